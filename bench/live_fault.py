"""Fault demo for the live class: two app instances behind nginx, Redis as the store of record and
fan-out. Followers connect through nginx; answers are accepted; then one instance is killed
(SIGKILL) mid-class. Its followers reconnect through nginx to the other instance and converge on
the current state, and every answer accepted before the kill is still counted.

    make live-fault            (or: python bench/live_fault.py --followers 60)

Starts redis-server, two uvicorn instances and nginx itself on free loopback ports."""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.live_cluster import (
    Follower,
    call,
    free_port,
    missing,
    run_coroutine,
    start_nginx,
    start_redis,
    start_uvicorn,
)  # noqa: E402


async def scenario(base: str, port: int, kill, n_followers: int, n_answers: int) -> dict:
    """Drive one class through nginx at ``base``; ``kill()`` crashes one instance midway."""
    status, k = call(base, "POST", "/api/live", {"card": "eg-1-1", "query": ""})
    assert status == 201, k
    code, token = k["code"], k["token"]
    _, q = call(base, "POST", f"/api/live/{code}/questions", {"card": "eg-1-1", "key": "b_star", "query": ""}, token)

    def participant() -> str:
        status, body = call(base, "POST", f"/api/live/{code}/join", {})
        assert status == 200, body
        return body["participant"]

    stop = asyncio.Event()
    creds = await asyncio.to_thread(lambda: [participant() for _ in range(n_followers + n_answers + 10)])
    fs = [Follower("127.0.0.1", port, code, creds[i]) for i in range(n_followers)]
    tasks = [asyncio.create_task(f.run(stop)) for f in fs]
    await asyncio.wait_for(asyncio.gather(*(f.connected.wait() for f in fs)), 60)

    def put(i: int) -> int:
        status, body = call(base, "PUT", f"/api/live/{code}/state", {"card": "eg-1-1", "query": f"batch={i}"}, token)
        assert status == 200, body
        return body["seq"]

    for i in range(2, 6):
        await asyncio.to_thread(put, i)
    accepted = set()
    for i in range(n_answers):
        dev = f"answer-{i:04d}"
        status, _ = await asyncio.to_thread(
            call,
            base,
            "POST",
            f"/api/live/{code}/questions/{q['qid']}/answers",
            {"participant": creds[n_followers + i], "value": 100 + i, "nick": dev},
        )
        if status == 200:
            accepted.add(dev)
    await asyncio.sleep(0.5)
    before = {f.participant: f.reconnects for f in fs}

    kill()
    t_kill = time.perf_counter()
    seq = await asyncio.to_thread(put, 40)
    converged_at = None
    for _ in range(300):
        if all(f.last == seq for f in fs):
            converged_at = time.perf_counter()
            break
        await asyncio.sleep(0.1)
    after_kill = []
    for i in range(10):  # the class goes on: answers after the kill are taken by the survivor
        dev = f"after-{i:04d}"
        status, _ = await asyncio.to_thread(
            call,
            base,
            "POST",
            f"/api/live/{code}/questions/{q['qid']}/answers",
            {"participant": creds[n_followers + n_answers + i], "value": 148, "nick": dev},
        )
        after_kill.append(status)
    _, res = await asyncio.to_thread(call, base, "GET", f"/api/live/{code}/questions/{q['qid']}/results", None, token)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    counted = {a["nick"] for a in res.get("answers", [])}
    return {
        "followers": n_followers,
        "moved": sum(1 for f in fs if f.reconnects > before[f.participant]),
        "converged": sum(1 for f in fs if f.last == seq),
        "final_seq": seq,
        "converge_s": None if converged_at is None else converged_at - t_kill,
        "answers_accepted_before_kill": len(accepted),
        "answers_lost": len(accepted - counted),
        "answers_after_kill_ok": after_kill.count(200),
        "out_of_order": sum(f.out_of_order for f in fs),
    }


def run(n_followers: int = 40, n_answers: int = 30) -> dict:
    """Start redis, two instances and nginx; run the scenario; stop everything again."""
    gone = missing("redis-server", "nginx")
    if gone:
        raise SystemExit(f"needs {' and '.join(gone)} (apt-get install {' '.join(gone)})")
    procs, prefix = [], None
    try:
        redis, url = start_redis()
        procs.append(redis)
        env = {"AIINFRA_REDIS_URL": url, "AIINFRA_LIVE_KEEPALIVE_S": "2"}
        ports = [free_port(), free_port()]
        apps = [start_uvicorn(p, env) for p in ports]
        procs += apps
        port = free_port()
        nginx, prefix = start_nginx(port, ports)
        procs.append(nginx)
        return run_coroutine(scenario(f"http://127.0.0.1:{port}", port, apps[0].kill, n_followers, n_answers))
    finally:
        for p in reversed(procs):
            p.stop()
        if prefix:
            shutil.rmtree(prefix, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--followers", type=int, default=40)
    ap.add_argument("--answers", type=int, default=30)
    a = ap.parse_args()
    r = run(a.followers, a.answers)
    print(
        f"followers {r['followers']}: {r['moved']} reconnected to the surviving instance, "
        f"{r['converged']} converged on seq {r['final_seq']}"
        + (f" within {r['converge_s']:.2f} s of the kill" if r["converge_s"] is not None else " (NOT all converged)")
    )
    print(
        f"answers accepted before the kill: {r['answers_accepted_before_kill']}, lost: {r['answers_lost']}; "
        f"accepted after the kill: {r['answers_after_kill_ok']}/10; out-of-order events: {r['out_of_order']}"
    )
    ok = (
        r["converged"] == r["followers"]
        and r["answers_lost"] == 0
        and r["moved"] > 0
        and r["answers_after_kill_ok"] == 10
        and r["out_of_order"] == 0
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
