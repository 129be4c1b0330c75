"""`make bench`: speed and size of the card engine, measured side by side in one run and printed as
one table of target vs measured.

- The bare limit: ``bench/bare.py``, a minimal FastAPI app whose ``async def`` route returns
  precomputed bytes of the fragment's size, run with the same 2 uvicorn workers and driven by the
  same wrk clients as the app (every run sends ``Accept-Encoding: gzip, deflate, br`` as browsers do).
- The app (2 uvicorn workers, AIINFRA_BENCH=1 adds /bench/ceiling: the app's own stack returning
  precomputed bytes, answered past the edge cache: an information row).
- Warm fragment (URLs seen before), every-request-new fragment (fresh slider values), an open-loop
  run of new states across mixed cards at a fixed arrival rate (bench/openloop.py).
- Browser (Playwright + Debian Chromium): slider change → numbers and both eg-1-1 charts redrawn,
  against a bare ``Plotly.react`` of the same two figures in the same page; a section page until
  interactive.
- Size: the first page /ch/1/1.3 and its assets as served with brotli.
- Where a new state's time goes (``bench/stages.py``): its steps timed in one process, alone and
  together, beside the whole request through the app: information rows.

`--smoke` runs every measurement briefly (CI): it must finish, not meet targets.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CARD = "eg-1-1"
BROWSER = "gzip, deflate, br"


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def start_server(
    workers: int = 2, app: str = "app.main:create_app", env: dict | None = None
) -> tuple[subprocess.Popen, str]:
    """``app`` on a free port; ``create_app`` (a factory) is started with ``--factory``."""
    port = free_port()
    factory = ["--factory"] if app.endswith(":create_app") else []
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            *factory,
            app,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            str(workers),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        cwd=ROOT,
        env={**os.environ, "AIINFRA_BENCH": "1", **(env or {})},
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            return proc, url
        except Exception:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"{app} did not start")


def get(url: str, encoding: str | None = None) -> tuple[bytes, dict]:
    req = urllib.request.Request(url, headers={"Accept-Encoding": encoding} if encoding else {})
    with urllib.request.urlopen(req) as r:
        return r.read(), dict(r.headers)


LUA_NEW = """
-- A new state every request, so no cache helps (a reader dragging through fresh values). wrk's
-- threads run this script with the same counter and the same random sequence: the thread's number
-- goes into the value, or both threads would ask for the same states (half the requests repeats);
-- RUN seeds the random part, so the rounds of one bench ask for different states too.
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
init = function(args)
  math.randomseed(RUN * 1000 + tid)
end
counter = 0
request = function()
  counter = counter + 1
  local n = 20 + ((counter * 2 + tid) %% 19000) / 20.0 + math.random() / 40.0
  return wrk.format("GET", "/cards/%s/fragment?batch=" .. (1 + counter %% 512) .. "&params_billion=" .. n, HEADERS)
end
"""


def lua_new(card: str, run: int) -> str:
    """The new-state script for one wrk run (``run`` numbers the runs of one bench)."""
    return f"RUN = {run}\n" + LUA_NEW % card


LUA_WARM = """
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", "/cards/%s/fragment?batch=" .. (1 + counter %% 512), HEADERS)
end
"""
LUA_DONE = """
done = function(summary, latency, requests)
  io.write(string.format("JSON{\\"rps\\":%f,\\"p50\\":%f,\\"p99\\":%f,\\"errors\\":%d,\\"non2xx\\":%d,\\"requests\\":%d}\\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status, summary.requests))
end
"""


def wrk(url: str, path_or_lua: str, conns: int, seconds: float) -> dict:
    """Closed-loop load with wrk (C, 2 threads), browser encodings on every request."""
    if not shutil.which("wrk"):
        raise SystemExit("wrk not installed: apt-get install wrk")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(f'HEADERS = {{["Accept-Encoding"] = "{BROWSER}"}}\n')
        if path_or_lua.startswith("/"):
            f.write(f'request = function() return wrk.format("GET", "{path_or_lua}", HEADERS) end\n')
        else:
            f.write(path_or_lua)
        f.write(LUA_DONE)
        script = f.name
    out = subprocess.run(
        ["wrk", f"-t{min(2, conns)}", f"-c{conns}", f"-d{max(1, round(seconds))}s", "-s", script, url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    os.unlink(script)
    return json.loads(re.search(r"JSON(\{.*\})", out).group(1))


def page_weight(url: str, path: str) -> tuple[int, int, int]:
    """(raw bytes, bytes as served with brotli, number of files) of a page and its CSS/JS."""
    html, _ = get(url + path)
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', html.decode())
    raw = served = 0
    for p in [path] + assets:
        raw += len(get(url + p)[0])
        served += len(get(url + p, "br")[0])  # urllib does not decode: the bytes on the wire
    return raw, served, 1 + len(assets)


SLIDER_JS = """(v) => new Promise((resolve) => {
    const card = document.getElementById('%s'), box = document.getElementById('%s-batch');
    const t0 = performance.now();
    card.addEventListener('card:drawn', () => resolve(performance.now() - t0), {once: true});
    box.value = String(v);
    box.dispatchEvent(new Event('input', {bubbles: true}));
})"""
# the same two figures redrawn by Plotly.react alone, from the figure data the page holds (no request,
# no swap): what a redraw costs when nothing else is done
BARE_REACT_JS = """async (i) => {
    const els = [0, 1].map(k => document.getElementById('plot-%s-' + k));
    const figs = els.map(el => JSON.parse(document.querySelector('script.figdata[data-plot="' + el.id + '"]').textContent));
    figs.forEach(f => f.data.forEach(t => { if (t.y) t.y = t.y.map(y => y === null ? y : y * (1 + 1e-3 * ((i %% 7) + 1))); }));
    const t0 = performance.now();
    await Promise.all(els.map((el, k) => Plotly.react(el, figs[k].data, figs[k].layout)));
    return performance.now() - t0;
}"""


def browser_measures(url: str, changes: int) -> dict:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        return {}
    from playwright.sync_api import sync_playwright

    args = [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
    ]
    res: dict = {}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=args)
        pg = b.new_page(viewport={"width": 1280, "height": 900})
        pg.goto(url + f"/cards/{CARD}")
        pg.wait_for_function(
            f"() => document.getElementById('plot-{CARD}-1') && document.getElementById('plot-{CARD}-1').data"
        )
        ours, bare = [], []
        for i in range(changes):
            ours.append(pg.evaluate(SLIDER_JS % (CARD, CARD), 2 + (i * 37) % 500))
            bare.append(pg.evaluate(BARE_REACT_JS % CARD, i))
        res["slider_ms"], res["slider_p90_ms"] = statistics.median(ours), sorted(ours)[int(0.9 * (len(ours) - 1))]
        res["react_ms"] = statistics.median(bare)
        loads = []
        for _ in range(3 if changes > 5 else 1):
            pg2 = b.new_page(viewport={"width": 1280, "height": 900})
            t0 = time.perf_counter()
            pg2.goto(url + "/ch/3/3.2", wait_until="domcontentloaded")
            pg2.wait_for_function(
                "() => { const p = document.querySelector('.plot'); return window.htmx && p && p.data; }"
            )
            loads.append((time.perf_counter() - t0) * 1000)
            res["section_cards"] = pg2.evaluate("() => document.querySelectorAll('article.card').length")
            pg2.close()
        res["section_ms"] = statistics.median(loads)
        b.close()
    return res


def open_loop(url: str, rate: float, seconds: float) -> dict:
    from bench.openloop import fresh_paths, run

    paths = fresh_paths(int(rate * seconds) + 10, seed=int(rate))
    return asyncio.run(run(url, paths, rate, seconds))


def measure(secs: float, smoke: bool) -> dict:
    """Everything, in one run: the bare app first (its own workers), then the app."""
    m: dict = {}
    proc, url = start_server(2)
    try:
        frag, _ = get(url + f"/cards/{CARD}/fragment?batch=8")
        m["fsize"], m["fbr"] = len(frag), len(get(url + f"/cards/{CARD}/fragment?batch=8", "br")[0])
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    bare, burl = start_server(2, "bench.bare:app", {"BARE_SIZE": str(m["fsize"])})
    proc, url = start_server(2)
    try:
        wrk(burl, "/bare", 4, 1)
        for _ in range(2):  # every URL of the warm run seen before by both workers
            wrk(url, LUA_WARM % CARD, 4, 2)
        # the ratios' two sides in alternating rounds, both servers up: a machine whose speed drifts
        # (a shared VM) then slows both sides alike, instead of whichever ran later
        rounds = 1 if smoke else 4
        for i in range(rounds):
            for key, target in (
                ("bare", (burl, "/bare")),
                (("warm", 16), (url, LUA_WARM % CARD)),
                ("new", (url, lua_new(CARD, i))),
            ):
                m.setdefault(key, []).append(wrk(*target, 16, secs / rounds))
        for key in ("bare", ("warm", 16), "new"):
            m[key] = combined(m[key])
        bare.terminate()
        for c in (1, 64):
            m[("warm", c)] = wrk(url, LUA_WARM % CARD, c, secs)
        m["stack"] = wrk(url, f"/bench/ceiling?size={m['fsize']}", 16, secs)
        m["explain"] = wrk(url, lua_new(CARD, 99).replace("/fragment?", "/explain?"), 4, max(1, secs / 4))
        m["open600"] = open_loop(url, 600, 3 if smoke else 20)
        m["open1200"] = open_loop(url, 1200, 2 if smoke else 10)
        m["weight"] = page_weight(url, "/ch/1/1.3")
        m["browser"] = browser_measures(url, 5 if smoke else 25)
    finally:
        for p in (bare, proc):
            p.terminate()
            p.wait(timeout=10)
    from bench.stages import stages  # with both servers stopped: the machine to itself

    m["stages"] = stages(CARD, 150 if smoke else 1500, 3 if smoke else 15)
    return m


def combined(runs: list[dict]) -> dict:
    """Several wrk runs as one: requests over their total time; the worst p99, the middle p50."""
    seconds = sum(r["requests"] / r["rps"] for r in runs)
    return {
        "rps": sum(r["requests"] for r in runs) / seconds,
        "p50": statistics.median(r["p50"] for r in runs),
        "p99": max(r["p99"] for r in runs),
        "errors": sum(r["errors"] for r in runs),
        "non2xx": sum(r["non2xx"] for r in runs),
        "requests": sum(r["requests"] for r in runs),
        "runs": len(runs),
    }


def report(m: dict, secs: float, smoke: bool) -> bool:
    rows: list[bool] = []

    def row(name: str, target: str, measured: str, ok: bool | None = True) -> None:
        """``ok=None``: an information row that is not a target (shown with –, never a miss)."""
        print(f"{name:62} {target:>12} {measured:>22}  {'–' if ok is None else '✓' if ok else '✗'}")
        if ok is not None:
            rows.append(ok)

    bare, new, stack = m["bare"], m["new"], m["stack"]
    print(
        f"\nAI Infra 图解 · make bench{' (smoke)' if smoke else ''} · card {CARD} · 2 uvicorn workers · wrk {secs:g}s, "
        f"Accept-Encoding: {BROWSER}\nbare, warm (16 clients) and new states: {bare.get('runs', 1)} alternating rounds, "
        "both servers up\n"
    )
    print(f"{'measure':62} {'target':>12} {'measured':>22}  ok\n" + "-" * 104)
    row(
        "bare FastAPI async route, same bytes, 16 clients: req/s · p99 ms",
        "(limit)",
        f"{bare['rps']:.0f} · {bare['p99']:.1f}",
    )
    for c in (1, 16, 64):
        r = m[("warm", c)]
        row(
            f"warm fragment (URL seen before), {c:>2} clients: req/s · p99 ms",
            "(info)",
            f"{r['rps']:.0f} · {r['p99']:.1f}",
            r["errors"] + r["non2xx"] == 0,
        )
    w16 = m[("warm", 16)]
    row(
        "warm fragment ÷ bare route (16 clients)",
        "≥ 0.85",
        f"{w16['rps'] / bare['rps']:.2f}",
        w16["rps"] >= 0.85 * bare["rps"],
    )
    row("app stack past the edge cache, same bytes (info): req/s", "(info)", f"{stack['rps']:.0f}")
    row(
        "every request a new state, 16 clients: req/s · p99 ms",
        "(info)",
        f"{new['rps']:.0f} · {new['p99']:.1f}",
        new["errors"] + new["non2xx"] == 0,
    )
    row("new states ÷ bare route", "≥ 0.10", f"{new['rps'] / bare['rps']:.3f}", new["rps"] >= 0.10 * bare["rps"])
    ex = m["explain"]
    row(
        "derivation panel of a new state, 4 clients: req/s · p50 ms",
        "(info)",
        f"{ex['rps']:.0f} · {ex['p50']:.1f}",
        None,
    )
    for key, target in (("open600", 50.0), ("open1200", None)):
        o = m[key]
        label = f"open loop {o['rate']:.0f}/s new states, mixed cards: p50 · p99 ms (errors)"
        ok = (o["errors"] == 0 and o["p99"] <= target) if target else None  # 1,200/s: past capacity, reported
        row(
            label, f"p99 ≤ {target:.0f}" if target else "(info)", f"{o['p50']:.1f} · {o['p99']:.1f} ({o['errors']})", ok
        )
    row("bytes per update (fragment raw / brotli)", "(info)", f"{m['fsize'] / 1000:.1f} / {m['fbr'] / 1000:.1f} kB")
    raw, served, nfiles = m["weight"]
    row(f"first page /ch/1/1.3 + {nfiles - 1} assets, raw", "(info)", f"{raw / 1000:.0f} kB")
    row("first page, as served with brotli", "≤ 400 kB", f"{served / 1000:.0f} kB", served <= 400_000)
    br = m["browser"]
    if br:
        row("bare Plotly.react of the same two figures (median)", "(info)", f"{br['react_ms']:.0f} ms")
        row(
            "slider change → numbers + 2 charts redrawn (median)",
            "≤ 1.0× react",
            f"{br['slider_ms']:.0f} ms ({br['slider_ms'] / br['react_ms']:.2f}×)",
            br["slider_ms"] <= br["react_ms"],
        )
        row("slider change (p90)", "(info)", f"{br['slider_p90_ms']:.0f} ms")
        row(f"section page with {br['section_cards']} cards → interactive", "(info)", f"{br['section_ms']:.0f} ms")
    else:
        print("(browser measures skipped: no chromium)")
    print(f"\none new {CARD} state in one process, no HTTP (bench/stages.py): ms, each row its fastest round")
    for name, ms in m["stages"].items():
        row(f"  {name}", "(info)", f"{ms:.3f}", None)
    print()
    return all(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true", help="brief run for CI: must finish, targets not enforced")
    ap.add_argument("--seconds", type=float, default=None)
    a = ap.parse_args()
    secs = a.seconds or (1 if a.smoke else 8)
    ok = report(measure(secs, a.smoke), secs, a.smoke)
    if not a.smoke:
        print("every target met" if ok else "some targets missed")


if __name__ == "__main__":
    main()
