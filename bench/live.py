"""Live-class bench: N SSE followers (default 500) + answers at R/s (default 100) for S seconds
(default 60) against `make serve-prod` (2 workers) on Redis, all on loopback — beside an abuse mix:

- answer stuffing: answers under invented identities (credentials signed with a made-up key,
  altered ones, another class's, garbage) at A/s (default 100) for the whole run;
- a join flood: one address joins as fast as it can (1,000 joins), then holds streams for some of
  the participants it got;
- a class flood: one address starts classes as fast as it can (300), then an honest instructor
  starts one.

The honest class sits behind one NAT address (as a lecture hall's Wi-Fi does), the attackers on
addresses of their own (X-Forwarded-For from loopback, a trusted proxy). The instructor moves a
slider 5 times a second; each follower records when every change reaches it and checks the sequence
of event ids. Prints follower-update latency p50/p95/p99, lost and out-of-order updates, errors,
whether every honest answer was counted (and nothing else), and what each abuse got. Exits non-zero
on any loss, error or abuse that got through.

    make live-bench                 (500 followers, 100 answers/s, 60 s)
    python bench/live.py --smoke    (CI: 60 followers, 20 answers/s, 5 s)

Starts redis-server and serve-prod itself on free ports; followers run in separate processes."""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.live_cluster import Follower, call, free_port, missing, start_redis, start_serve_prod  # noqa: E402

PUT_EVERY_S = 0.2
HALL = "10.20.0.1"  # the honest class: one NAT address
FLOODER = "203.0.113.66"  # joins as fast as it can
CLASS_FLOODER = "203.0.113.77"  # starts classes as fast as it can
STUFFER = "203.0.113.88"  # answers under invented identities
HONEST_TEACHER = "192.0.2.10"
JOIN_FLOOD = 1_000
FLOOD_STREAMS = 100  # streams the join flooder then holds open
CLASS_FLOOD = 300


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (Linux /proc)."""
    tick, total = os.sysconf("SC_CLK_TCK"), 0.0
    for pid in pids:
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(f[11]) + int(f[12])) / tick
        except OSError:
            pass
    return total


def descendants(root: int) -> list[int]:
    """``root`` and every process below it (make → gunicorn → workers)."""
    parent = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                parent[int(p.name)] = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    out, todo = [], [root]
    while todo:
        x = todo.pop()
        out.append(x)
        todo += [c for c, pp in parent.items() if pp == x]
    return out


def follower_proc(port: int, code: str, creds: list[str], ready, done, out) -> None:
    """One process holding many followers (behind the hall's NAT); reports per-follower sequences
    and arrival times."""

    async def go():
        stop = asyncio.Event()
        fs = [Follower("127.0.0.1", port, code, c, xff=HALL) for c in creds]
        tasks = [asyncio.create_task(f.run(stop)) for f in fs]
        await asyncio.wait_for(asyncio.gather(*(f.connected.wait() for f in fs)), 120)
        ready.put(len(fs))
        while not done.is_set():
            await asyncio.sleep(0.1)
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        out.put(
            [
                {
                    "arrivals": f.arrivals,
                    "lost": f.lost,
                    "out_of_order": f.out_of_order,
                    "errors": f.errors,
                    "reconnects": f.reconnects,
                    "first": f.seqs[0] if f.seqs else None,
                    "last": f.last,
                }
                for f in fs
            ]
        )

    asyncio.run(go())


def answers_proc(port: int, code: str, qid: int, creds: list[str], seconds: float, rate: float, go, out) -> None:
    """The class answering at ``rate``/s (every participant in turn, changing its answer each time),
    on a few keep-alive connections, in its own process."""
    from bench.live_cluster import KeepAlive

    async def run():
        queue: asyncio.Queue = asyncio.Queue()
        accepted, errors = set(), []

        async def worker():
            c = KeepAlive("127.0.0.1", port)
            while (cred := await queue.get()) is not None:
                status, _ = await c.request(
                    "POST",
                    f"/api/live/{code}/questions/{qid}/answers",
                    {"participant": cred, "value": round(random.uniform(50, 300), 1)},
                    headers={"X-Forwarded-For": HALL},
                )
                (accepted.add(cred) if status == 200 else errors.append(f"answer {status}"))
            c.close()

        workers = [asyncio.create_task(worker()) for _ in range(8)]
        go.wait()
        cpu0 = time.process_time()
        t_next = time.perf_counter()
        end = t_next + seconds
        order = random.sample(creds, len(creds))  # round robin: each participant re-answers in turn,
        i = 0  # well inside its rate limit
        while time.perf_counter() < end:
            queue.put_nowait(order[i % len(order)])
            i += 1
            t_next += 1.0 / rate
            await asyncio.sleep(max(0.0, t_next - time.perf_counter()))
        for _ in workers:
            queue.put_nowait(None)
        await asyncio.gather(*workers)
        out.put({"accepted": sorted(accepted), "errors": errors, "cpu": time.process_time() - cpu0})

    asyncio.run(run())


def forged(code: str, foreign: str, i: int) -> str:
    """An invented identity, of one of four kinds: signed with a made-up key, an altered real-looking
    one, another class's (a valid credential, but not this class's), garbage."""
    from app.live.credentials import Keys

    kind = i % 4
    if kind == 0:
        return Keys(b"the attacker's own key, not the server's").issue(code, f"{i:08x}")[0]
    if kind == 1:
        return foreign.replace(foreign.split(".")[1], code)  # another class's, re-labelled
    if kind == 2:
        return foreign
    return f"p1.{code}.{i:08x}.{i:016d}.{'A' * 22}"


async def stuffing(port: int, code: str, foreign: str, seconds: float, rate: float) -> dict:
    """Answers under invented identities at ``rate``/s for ``seconds``: the statuses they got."""
    from bench.live_cluster import KeepAlive

    c, got = KeepAlive("127.0.0.1", port), Counter()
    t_next = time.perf_counter()
    end, i = t_next + seconds, 0
    while time.perf_counter() < end:
        body = {"participant": forged(code, foreign, i), "value": 1.0}
        status, _ = await c.request(
            "POST", f"/api/live/{code}/questions/1/answers", body, headers={"X-Forwarded-For": STUFFER}
        )
        got[status] += 1
        i += 1
        t_next += 1.0 / rate
        await asyncio.sleep(max(0.0, t_next - time.perf_counter()))
    c.close()
    return dict(got)


async def join_flood(port: int, code: str, stop: asyncio.Event) -> dict:
    """JOIN_FLOOD joins from one address as fast as four connections go, then FLOOD_STREAMS of the
    participants it got hold an event stream each (until ``stop``)."""
    from bench.live_cluster import KeepAlive

    while time.time() % 60 > 45:  # all of the flood inside one rate window (it takes ~2 s)
        await asyncio.sleep(0.5)
    conns = [KeepAlive("127.0.0.1", port) for _ in range(4)]
    got, creds, first_refused = Counter(), [], None
    for start in range(0, JOIN_FLOOD, 4):
        res = await asyncio.gather(
            *(c.request("POST", f"/api/live/{code}/join", {}, headers={"X-Forwarded-For": FLOODER}) for c in conns)
        )
        for j, (status, body) in enumerate(res):
            got[status] += 1
            if status == 200:
                creds.append(body["participant"])
            elif first_refused is None:
                first_refused = start + j + 1
    for c in conns:
        c.close()
    streams = [Follower("127.0.0.1", port, code, cr, xff=FLOODER) for cr in creds[:FLOOD_STREAMS]]
    tasks = [asyncio.create_task(f.run(stop, reconnect=False)) for f in streams]
    await asyncio.wait_for(asyncio.gather(*(f.connected.wait() for f in streams)), 60)
    return {"statuses": dict(got), "first_refused": first_refused, "streams": len(streams), "tasks": tasks}


async def class_flood(port: int) -> dict:
    """CLASS_FLOOD classes from one address, then one from an honest instructor elsewhere."""
    from bench.live_cluster import KeepAlive

    c, got = KeepAlive("127.0.0.1", port), Counter()
    for _ in range(CLASS_FLOOD):
        status, _ = await c.request("POST", "/api/live", {"card": "eg-1-1"}, headers={"X-Forwarded-For": CLASS_FLOODER})
        got[status] += 1
    honest, _ = await c.request("POST", "/api/live", {"card": "eg-1-1"}, headers={"X-Forwarded-For": HONEST_TEACHER})
    c.close()
    return {"statuses": dict(got), "honest_teacher": honest}


def abuse_proc(port: int, code: str, foreign: str, seconds: float, rate: float, go, out) -> None:
    """The abuse mix, in its own process: answer stuffing for the whole run, meanwhile a join flood
    (then held streams) and a class flood (then an honest instructor)."""

    async def run():
        go.wait()
        cpu0 = time.process_time()
        stop = asyncio.Event()
        stuff = asyncio.create_task(stuffing(port, code, foreign, seconds, rate))
        flood = await join_flood(port, code, stop)
        classes = await class_flood(port)
        stuffed = await stuff
        _, st = await asyncio.to_thread(call, f"http://127.0.0.1:{port}", "GET", f"/api/live/{code}")
        stop.set()
        for t in flood.pop("tasks"):
            t.cancel()
        out.put(
            {
                "stuffing": stuffed,
                "join_flood": flood,
                "class_flood": classes,
                "followers_seen": st.get("followers"),
                "cpu": time.process_time() - cpu0,
            }
        )

    asyncio.run(run())


def slider(port: int, code: str, token: str, seconds: float) -> dict:
    """The instructor moving a slider every PUT_EVERY_S: seq → the moment its PUT was sent."""
    from bench.live_cluster import KeepAlive

    async def run():
        c, sent, errors = KeepAlive("127.0.0.1", port), {}, []
        i, t_next = 0, time.perf_counter()
        end = t_next + seconds
        while time.perf_counter() < end:
            i += 1
            t0 = time.perf_counter()
            status, body = await c.request(
                "PUT", f"/api/live/{code}/state", {"card": "eg-1-1", "query": f"batch={i % 511 + 1}"}, token
            )
            if status == 200:
                sent[body["seq"]] = t0
            else:
                errors.append(f"PUT {status}")
            t_next += PUT_EVERY_S
            await asyncio.sleep(max(0.0, t_next - time.perf_counter()))
        c.close()
        return {"sent": sent, "errors": errors}

    return asyncio.run(run())


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p / 100 * len(xs) + 0.5)) - 1))] if xs else float("nan")


def report(d: dict, followers: list[dict], seconds: float, n: int, rate: float, verbose: bool = False) -> bool:
    from app.live.limits import JOINS_PER_ADDRESS, MAX_CLASSES_PER_ADDRESS

    lat, missing_updates = [], 0
    seqs = sorted(d["sent"])
    per_seq: dict[int, list[float]] = {s: [] for s in seqs}
    for f in followers:
        arr = f["arrivals"]
        for s in seqs:
            if s in arr:
                ms = (arr[s] - d["sent"][s]) * 1000
                lat.append(ms)
                per_seq[s].append(ms)
            elif f["first"] is not None and s > f["first"]:
                missing_updates += 1
    if verbose:
        for s in seqs:
            print(f"    seq {s}: p50 {pct(per_seq[s], 50):.1f} ms, max {max(per_seq[s] or [0]):.1f} ms")
    lost = sum(f["lost"] for f in followers) + missing_updates
    ooo = sum(f["out_of_order"] for f in followers)
    sse_errors = sum(f["errors"] for f in followers)
    reconnects = sum(f["reconnects"] for f in followers)
    a = d["abuse"]
    print(
        f"live bench: {n} SSE followers (one NAT address), {rate:g} answers/s, {seconds:g} s, slider every "
        f"{PUT_EVERY_S * 1000:.0f} ms, serve-prod 2 workers + Redis (loopback), beside the abuse mix"
    )
    print(f"  updates published         {len(seqs)}")
    print(f"  follower deliveries       {len(lat)} (expected {len(seqs) * n})")
    print(f"  update latency p50        {pct(lat, 50):.1f} ms")
    print(f"  update latency p95        {pct(lat, 95):.1f} ms")
    print(f"  update latency p99 / max  {pct(lat, 99):.1f} / {max(lat) if lat else float('nan'):.1f} ms")
    print(f"  lost / out-of-order       {lost} / {ooo}")
    print(f"  SSE errors / reconnects   {sse_errors} / {reconnects}")
    print(f"  honest answers            {d['accepted']} participants accepted / {d['counted']} counted")
    stuffed = a["stuffing"]
    print(
        f"  answer stuffing           {sum(stuffed.values())} answers under invented identities: "
        + ", ".join(f"{v} × {k}" for k, v in sorted(stuffed.items()))
        + f"; counted {d['counted'] - d['accepted']}"
    )
    jf = a["join_flood"]
    print(
        f"  join flood                {JOIN_FLOOD} joins from one address: "
        + ", ".join(f"{v} × {k}" for k, v in sorted(jf["statuses"].items()))
        + f" (first refusal at join #{jf['first_refused']}); it then held {jf['streams']} streams"
    )
    print(
        f"  followers on the projector {a['followers_seen']} (= {n} honest + {jf['streams']} held streams; "
        f"joins made {n + jf['statuses'].get(200, 0)})"
    )
    cf = a["class_flood"]
    print(
        f"  class flood               {CLASS_FLOOD} classes from one address: "
        + ", ".join(f"{v} × {k}" for k, v in sorted(cf["statuses"].items()))
        + f"; an honest instructor then: {cf['honest_teacher']}"
    )
    print(
        "  CPU cores used            "
        + ", ".join(f"{r} {c:.2f}" for r, c in d["cpu"].items())
        + f" (machine load average {d['load']:.1f} on {os.cpu_count()} cores)"
    )
    print(
        f"  HTTP errors               {len(d['errors'])}"
        + (f" ({', '.join(sorted(set(d['errors'])))})" if d["errors"] else "")
    )
    honest_ok = lost == 0 and ooo == 0 and sse_errors == 0 and reconnects == 0 and not d["errors"]
    counted_ok = d["accepted"] == d["counted"]  # every honest participant's answer, and nothing else
    abuse_ok = (
        set(stuffed) == {403}
        and jf["statuses"].get(200) == JOINS_PER_ADDRESS
        and jf["first_refused"] == JOINS_PER_ADDRESS + 1
        and set(jf["statuses"]) == {200, 429}
        and a["followers_seen"] == n + jf["streams"]
        and cf["statuses"] == {201: MAX_CLASSES_PER_ADDRESS, 429: CLASS_FLOOD - MAX_CLASSES_PER_ADDRESS}
        and cf["honest_teacher"] == 201
    )
    ok = honest_ok and counted_ok and abuse_ok
    print(
        "  result                    "
        + ("OK" if ok else f"FAILED (honest {honest_ok}, counted {counted_ok}, abuse held {abuse_ok})")
    )
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--followers", type=int, default=500)
    ap.add_argument("--rate", type=float, default=100.0, help="honest answers per second")
    ap.add_argument("--stuffing", type=float, default=100.0, help="answers per second under invented identities")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--procs", type=int, default=2, help="follower processes")
    ap.add_argument("--smoke", action="store_true", help="short CI run: 60 followers, 20 answers/s, 5 s")
    ap.add_argument("--verbose", action="store_true", help="latency of every update")
    ap.add_argument("--server-log", type=Path, default=None, help="write serve-prod's output here")
    a = ap.parse_args()
    if a.smoke:
        a.followers, a.rate, a.stuffing, a.seconds = 60, 20.0, 20.0, 5.0
    if missing("redis-server"):
        print("needs redis-server (apt-get install redis-server)")
        return 2
    procs = []
    try:
        redis, url = start_redis()
        procs.append(redis)
        port = free_port()
        env = {"AIINFRA_REDIS_URL": url, "AIINFRA_TRUSTED_PROXIES": "127.0.0.1"}
        prod = start_serve_prod(port, env, workers=2, log=a.server_log)
        procs.append(prod)
        base = f"http://127.0.0.1:{port}"
        _, k = call(base, "POST", "/api/live", {"card": "eg-1-1", "query": ""}, headers={"X-Forwarded-For": HALL})
        _, q = call(
            base,
            "POST",
            f"/api/live/{k['code']}/questions",
            {"card": "eg-1-1", "key": "b_star", "query": ""},
            k["token"],
        )
        hall = {"X-Forwarded-For": HALL}
        creds = []
        for _ in range(a.followers):  # the hall joins, all from its one NAT address
            status, body = call(base, "POST", f"/api/live/{k['code']}/join", {}, headers=hall)
            assert status == 200, body
            creds.append(body["participant"])
        _, other = call(base, "POST", "/api/live", {"card": "eg-1-1"}, headers={"X-Forwarded-For": "192.0.2.99"})
        foreign = call(base, "POST", f"/api/live/{other['code']}/join", {})[1]["participant"]
        ctx = mp.get_context("spawn")
        ready, done, out = ctx.Queue(), ctx.Event(), ctx.Queue()
        shares = [creds[i :: a.procs] for i in range(a.procs)]
        workers = [ctx.Process(target=follower_proc, args=(port, k["code"], s, ready, done, out)) for s in shares]
        for w in workers:
            w.start()
        for _ in workers:
            ready.get(timeout=180)
        time.sleep(0.5)
        go, ans_out, abuse_out = ctx.Event(), ctx.Queue(), ctx.Queue()
        answering = ctx.Process(
            target=answers_proc, args=(port, k["code"], q["qid"], creds, a.seconds, a.rate, go, ans_out)
        )
        abusing = ctx.Process(target=abuse_proc, args=(port, k["code"], foreign, a.seconds, a.stuffing, go, abuse_out))
        answering.start()
        abusing.start()
        roles = {
            "server (2 workers)": descendants(prod.popen.pid),
            "redis": [redis.popen.pid],
            "followers": [w.pid for w in workers],
            "instructor": [os.getpid()],
        }
        cpu0 = {r: cpu_seconds(p) for r, p in roles.items()}
        go.set()
        d = slider(port, k["code"], k["token"], a.seconds)
        ans = ans_out.get(timeout=120)
        answering.join(timeout=30)
        d["abuse"] = abuse_out.get(timeout=180)
        abusing.join(timeout=30)
        d["cpu"] = {r: (cpu_seconds(p) - cpu0[r]) / a.seconds for r, p in roles.items()}
        d["cpu"]["answers"] = ans["cpu"] / a.seconds
        d["cpu"]["abuse"] = d["abuse"]["cpu"] / a.seconds
        d["errors"] += ans["errors"]
        d["accepted"] = len(ans["accepted"])
        d["counted"] = call(base, "GET", f"/api/live/{k['code']}/questions/{q['qid']}/results", token=k["token"])[1][
            "answered"
        ]
        d["load"] = os.getloadavg()[0]
        time.sleep(1.5)  # the last update's tail
        done.set()
        followers = [f for _ in workers for f in out.get(timeout=120)]
        for w in workers:
            w.join(timeout=30)
        return 0 if report(d, followers, a.seconds, a.followers, a.rate, a.verbose) else 1
    finally:
        for p in reversed(procs):
            p.stop()


if __name__ == "__main__":
    sys.exit(main())
