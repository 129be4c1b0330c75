"""`make bench`: what a reader feels, measured side by side in one run.

The guard rows (targets), each the median of 3 interleaved rounds (one round runs every guard row
once, so a shared VM whose speed drifts by ±50 % within minutes slows every row alike, and one
disturbed round cannot decide a row); the rounds are printed beside their median:

- an open-loop class: 600 new states per second over mixed cards (bench/openloop.py), p99 ≤ 50 ms,
  no errors in any round;
- slider change → numbers and both eg-1-1 charts redrawn, ≤ 1.2× a bare ``Plotly.react`` of the same
  two figures in the same page (Playwright + Debian Chromium);
- a one-second mouse drag of 例题 1-1's B slider (bench/drag.py): ≥ 30 distinct states drawn per
  second, the final value shown after mouse-up and no stale frame after it (the lag is printed);
- the first page /ch/1/1.3 and its assets as served with brotli, ≤ 400 kB;
- warm fragments (URLs seen before) ≥ 0.85× the bare route: ``bench/bare.py``, a minimal FastAPI
  app whose ``async def`` route returns precomputed bytes of the fragment's size, run with the same 2
  uvicorn workers and driven by the same wrk clients (every run sends ``Accept-Encoding: gzip,
  deflate, br`` as browsers do).

Information rows (never targets, no pass/fail): every-request-new states and their ratio to the bare
route, warm fragments at 1 and 64 clients, the app's stack returning fixed bytes (AIINFRA_BENCH=1 adds
/bench/ceiling), a derivation panel, 1,200 new states/s (past capacity), bytes per update, a section
page until interactive, and where a new state's time goes (``bench/stages.py``, one process).

`--smoke` runs every measurement once and briefly (CI): it must finish, not meet targets.
"""

from __future__ import annotations

import argparse
import contextlib
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
ROUNDS = 3  # the guard rows' interleaved rounds; each row is their median
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


CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    """Debian's Chromium (never a downloaded browser), or None."""
    path = shutil.which("chromium") or "/usr/bin/chromium"
    return path if Path(path).exists() else None


def slider_vs_react(browser, url: str, changes: int, offset: int = 0) -> dict:
    """Median ms of a slider change until numbers and both charts are redrawn, and of a bare
    ``Plotly.react`` of the same two figures, alternating in one page (``changes`` of each)."""
    pg = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        pg.goto(url + f"/cards/{CARD}")
        pg.wait_for_function(
            f"() => document.getElementById('plot-{CARD}-1') && document.getElementById('plot-{CARD}-1').data"
        )
        ours, bare = [], []
        for i in range(offset, offset + changes):
            ours.append(pg.evaluate(SLIDER_JS % (CARD, CARD), 2 + (i * 37) % 500))
            bare.append(pg.evaluate(BARE_REACT_JS % CARD, i))
    finally:
        pg.close()
    return {
        "slider_ms": statistics.median(ours),
        "slider_p90_ms": sorted(ours)[int(0.9 * (len(ours) - 1))],
        "react_ms": statistics.median(bare),
    }


def section_page(browser, url: str, loads: int) -> dict:
    """Median ms from navigation to a section page (3.2) whose first chart is drawn and htmx ready."""
    times, cards = [], 0
    for _ in range(loads):
        pg = browser.new_page(viewport={"width": 1280, "height": 900})
        t0 = time.perf_counter()
        pg.goto(url + "/ch/3/3.2", wait_until="domcontentloaded")
        pg.wait_for_function("() => { const p = document.querySelector('.plot'); return window.htmx && p && p.data; }")
        times.append((time.perf_counter() - t0) * 1000)
        cards = pg.evaluate("() => document.querySelectorAll('article.card').length")
        pg.close()
    return {"section_ms": statistics.median(times), "section_cards": cards}


def dragged(browser, url: str) -> dict:
    """bench/drag.py's one-second drag of eg-1-1's B slider, in a fresh context."""
    from bench.drag import drag

    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        return drag(ctx.new_page(), url)
    finally:
        ctx.close()


@contextlib.contextmanager
def browser_or_none(chromium: str | None):
    """One headless Chromium for the whole run, or None where there is none (its rows say so)."""
    if not chromium:
        yield None
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def open_loop(portal, url: str, paths: list[str], rate: float, seconds: float) -> dict:
    """bench/openloop.py at ``rate`` for ``seconds`` on ``paths`` (states the server has not seen),
    on the portal's event loop (Playwright's sync API is open in this thread: no asyncio.run here)."""
    from bench.openloop import run

    return portal.call(run, url, paths, rate, seconds)


def measure(secs: float, smoke: bool) -> dict:
    """Everything in one run: the fragment's size, then the guard rows in interleaved rounds with
    the bare app and the app both up, then the information rows, then bench/stages.py alone."""
    from anyio.from_thread import start_blocking_portal

    from bench.openloop import fresh_paths

    m: dict = {"rounds": []}
    proc, url = start_server(2)
    try:
        frag, _ = get(url + f"/cards/{CARD}/fragment?batch=8")
        m["fsize"], m["fbr"] = len(frag), len(get(url + f"/cards/{CARD}/fragment?batch=8", "br")[0])
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    rounds = 1 if smoke else ROUNDS
    open_s, open1200_s = (2, 2) if smoke else (10, 10)
    changes = 5 if smoke else 15
    # one list of never-seen states for every open-loop run, each run on its own slice
    paths = fresh_paths(600 * open_s * rounds + 1200 * open1200_s + 10, seed=600)
    bare, burl = start_server(2, "bench.bare:app", {"BARE_SIZE": str(m["fsize"])})
    proc, url = start_server(2)
    try:
        with start_blocking_portal(backend="asyncio") as portal, browser_or_none(chromium_path()) as browser:
            wrk(burl, "/bare", 4, 1)
            for _ in range(2):  # every URL of the warm run seen before by both workers
                wrk(url, LUA_WARM % CARD, 4, 2)
            if browser:
                slider_vs_react(browser, url, 3, offset=1000)  # scripts compiled, Plotly warm
            for i in range(rounds):
                r: dict = {
                    "bare": wrk(burl, "/bare", 16, secs),
                    "warm": wrk(url, LUA_WARM % CARD, 16, secs),
                    "new": wrk(url, lua_new(CARD, i), 16, secs),
                }
                part = paths[600 * open_s * i : 600 * open_s * (i + 1)]
                r["open600"] = open_loop(portal, url, part, 600, open_s)
                r["weight"] = page_weight(url, "/ch/1/1.3")
                if browser:
                    r |= slider_vs_react(browser, url, changes, offset=i * changes)
                    r["drag"] = dragged(browser, url)
                m["rounds"].append(r)
            bare.terminate()
            for c in (1, 64):
                m[("warm", c)] = wrk(url, LUA_WARM % CARD, c, secs)
            m["stack"] = wrk(url, f"/bench/ceiling?size={m['fsize']}", 16, secs)
            m["explain"] = wrk(url, lua_new(CARD, 99).replace("/fragment?", "/explain?"), 4, max(1, secs / 4))
            m["open1200"] = open_loop(portal, url, paths[600 * open_s * rounds :], 1200, open1200_s)
            if browser:
                m |= section_page(browser, url, 1 if smoke else 3)
    finally:
        for p in (bare, proc):
            p.terminate()
            p.wait(timeout=10)
    from bench.stages import stages  # with both servers stopped: the machine to itself

    m["stages"] = stages(CARD, 150 if smoke else 1500, 3 if smoke else 15)
    return m


def med(values: list[float]) -> float:
    return statistics.median(values)


def report(m: dict, secs: float, smoke: bool) -> bool:
    """The guard rows (each round beside their median; ✓/✗ on the median), then the information rows
    (– : never a target). True when every guard row holds."""
    rounds: list[dict] = m["rounds"]
    n = len(rounds)
    oks: list[bool] = []
    print(
        f"\nAI Infra 图解 · make bench{' (smoke)' if smoke else ''} · card {CARD} · 2 uvicorn workers · wrk {secs:g}s "
        f"per run, Accept-Encoding: {BROWSER}\n"
    )
    heads = [f"round {i + 1}" for i in range(n)]
    print("guard rows: each the median of", n, "interleaved rounds (every row once a round)\n")
    print(f"{'measure':58} {'target':>14} " + " ".join(f"{h:>14}" for h in heads) + f" {'median':>14}  ok")
    print("-" * (92 + 15 * n))

    def guard(name: str, target: str, per_round: list[str], median: str, ok: bool) -> None:
        print(
            f"{name:58} {target:>14} "
            + " ".join(f"{v:>14}" for v in per_round)
            + f" {median:>14}  {'✓' if ok else '✗'}"
        )
        oks.append(ok)

    o = [r["open600"] for r in rounds]
    p99 = med([x["p99"] for x in o])
    guard(
        "open loop 600 new states/s, mixed cards: p99 ms (errors)",
        "≤ 50, 0 err",
        [f"{x['p99']:.1f} ({x['errors']})" for x in o],
        f"{p99:.1f} ({sum(x['errors'] for x in o)})",
        p99 <= 50.0 and all(x["errors"] == 0 for x in o),
    )
    if "slider_ms" in rounds[0]:
        ratios = [r["slider_ms"] / r["react_ms"] for r in rounds]
        guard(
            "slider → numbers + 2 charts ÷ bare Plotly.react",
            "≤ 1.2×",
            [f"{x:.2f}×" for x in ratios],
            f"{med(ratios):.2f}×",
            med(ratios) <= 1.2,
        )
        d = [r["drag"] for r in rounds]
        fps = med([x["fps"] for x in d])
        guard(
            "drag B for 1 s: distinct states drawn per second",
            "≥ 30/s",
            [f"{x['fps']:.0f}" for x in d],
            f"{fps:.0f}",
            fps >= 30,
        )
        lags = [x["lag_ms"] for x in d]
        fresh = all(x["final_shown"] and x["stale_after"] == 0 and x["lag_ms"] is not None for x in d)
        guard(
            "after mouse-up: final value shown, no stale frame; lag ms",
            "final, 0 stale",
            ["—" if x is None else f"{x:.0f}" for x in lags],
            "—" if None in lags else f"{med(lags):.0f}",
            fresh,
        )
    else:
        print("(browser rows skipped: no chromium)")
    served = [r["weight"][1] for r in rounds]
    guard(
        "first page /ch/1/1.3 + assets as served (brotli): kB",
        "≤ 400",
        [f"{x / 1000:.0f}" for x in served],
        f"{med(served) / 1000:.0f}",
        med(served) <= 400_000,
    )
    warm = [r["warm"]["rps"] / r["bare"]["rps"] for r in rounds]
    guard(
        "warm fragment ÷ bare route (16 clients, req/s)",
        "≥ 0.85",
        [f"{x:.2f}" for x in warm],
        f"{med(warm):.2f}",
        med(warm) >= 0.85 and all(r["warm"]["errors"] + r["warm"]["non2xx"] == 0 for r in rounds),
    )

    print("\ninformation rows (no target): medians of the rounds where there are rounds\n")

    def info(name: str, measured: str) -> None:
        print(f"{name:74} {measured:>26}  –")

    for key, label in (("bare", "bare FastAPI route"), ("warm", "warm fragment"), ("new", "every request a new state")):
        rs = [r[key] for r in rounds]
        errs = sum(x["errors"] + x["non2xx"] for x in rs)
        info(
            f"{label}, 16 clients: req/s · p99 ms (errors)",
            f"{med([x['rps'] for x in rs]):.0f} · {med([x['p99'] for x in rs]):.1f} ({errs})",
        )
    info("new states ÷ bare route", f"{med([r['new']['rps'] / r['bare']['rps'] for r in rounds]):.3f}")
    for c in (1, 64):
        w = m[("warm", c)]
        info(
            f"warm fragment, {c:>2} clients: req/s · p99 ms (errors)",
            f"{w['rps']:.0f} · {w['p99']:.1f} ({w['errors'] + w['non2xx']})",
        )
    info("app stack past the edge cache, same bytes: req/s", f"{m['stack']['rps']:.0f}")
    ex = m["explain"]
    info("derivation panel of a new state, 4 clients: req/s · p50 ms", f"{ex['rps']:.0f} · {ex['p50']:.1f}")
    o12 = m["open1200"]
    info(
        "open loop 1,200 new states/s (past capacity): p50 · p99 ms (errors)",
        f"{o12['p50']:.1f} · {o12['p99']:.1f} ({o12['errors']})",
    )
    info("open loop 600/s: p50 ms", f"{med([x['p50'] for x in o]):.1f}")
    info("bytes per update (fragment raw / brotli)", f"{m['fsize'] / 1000:.1f} / {m['fbr'] / 1000:.1f} kB")
    raw, _, nfiles = rounds[0]["weight"]
    info(f"first page /ch/1/1.3 + {nfiles - 1} assets, raw", f"{raw / 1000:.0f} kB")
    if "slider_ms" in rounds[0]:
        info("bare Plotly.react of the same two figures: ms", f"{med([r['react_ms'] for r in rounds]):.0f}")
        info(
            "slider change → numbers + 2 charts redrawn: ms (p90)",
            f"{med([r['slider_ms'] for r in rounds]):.0f} ({med([r['slider_p90_ms'] for r in rounds]):.0f})",
        )
        info(
            "drag: mouse moves sent · frames sampled · torn frames (charts ≠ tile) · requests · repeated",
            " · ".join(
                f"{med([r['drag'][k] for r in rounds]):.0f}"
                for k in ("moves", "frames", "torn", "requests", "repeated")
            ),
        )
        info(f"section page with {m['section_cards']} cards → interactive: ms", f"{m['section_ms']:.0f}")
    print(f"\none new {CARD} state in one process, no HTTP (bench/stages.py): ms, each row its fastest round")
    for name, ms in m["stages"].items():
        info(f"  {name}", f"{ms:.3f}")
    print()
    return all(oks)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true", help="brief run for CI: must finish, targets not enforced")
    ap.add_argument("--seconds", type=float, default=None)
    a = ap.parse_args()
    secs = a.seconds or (1 if a.smoke else 4)
    ok = report(measure(secs, a.smoke), secs, a.smoke)
    if not a.smoke:
        print("every target met" if ok else "some targets missed")


if __name__ == "__main__":
    main()
