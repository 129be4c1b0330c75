"""`make bench`: speed and size of the card engine, measured side by side in one run, printed as
one table of target vs measured.

- Server: uvicorn with 2 workers on loopback (AIINFRA_BENCH=1 adds /bench/ceiling: the same stack
  returning precomputed bytes of the fragment's size — the throughput ceiling).
- Load: Debian's `wrk` (C, 2 threads), so the load generator is not the bottleneck.
- Browser: Playwright + Debian Chromium: slider change → numbers and both charts redrawn (eg-1-1);
  section page with ~10 cards until interactive.
- Size: the first page (HTML + CSS + JS) raw and gzipped, as served.

`--smoke` runs every measurement briefly (CI): it must finish, not meet targets.
"""
from __future__ import annotations

import argparse
import gzip
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
CARD = "eg-1-1"


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def start_server(workers: int = 2) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "AIINFRA_BENCH": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port",
                             str(port), "--workers", str(workers), "--log-level", "warning", "--no-access-log"],
                            cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            return proc, url
        except Exception:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("server did not start")


def get(url: str, gz: bool = False) -> tuple[bytes, dict]:
    req = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gz else {})
    with urllib.request.urlopen(req) as r:
        return r.read(), dict(r.headers)


LUA_COLD = """
counter = 0
request = function()
  counter = counter + 1
  -- a new state every request: the LRU never helps (a reader dragging through fresh values)
  local n = 20 + (counter %% 9000) / 10.0 + math.random()
  return wrk.format("GET", "/cards/%s/fragment?batch=" .. (1 + counter %% 512) .. "&params_billion=" .. n)
end
"""
LUA_WARM = """
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", "/cards/%s/fragment?batch=" .. (1 + counter %% 512))
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
    if not shutil.which("wrk"):
        raise SystemExit("wrk not installed: apt-get install wrk")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        if path_or_lua.startswith("/"):
            f.write(f'request = function() return wrk.format("GET", "{path_or_lua}") end\n')
        else:
            f.write(path_or_lua)
        f.write(LUA_DONE)
        script = f.name
    threads = min(2, conns)
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{conns}", f"-d{max(1, round(seconds))}s", "-s", script, url],
                         capture_output=True, text=True, check=True).stdout
    os.unlink(script)
    return json.loads(re.search(r"JSON(\{.*\})", out).group(1))


def page_weight(url: str, path: str) -> tuple[int, int, int]:
    """(raw bytes, gzipped bytes as served, number of files) of a page and its CSS/JS."""
    html, _ = get(url + path)
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', html.decode())
    raw = gz = 0
    for p in [path] + assets:
        b, _ = get(url + p)
        g, h = get(url + p, gz=True)
        raw += len(b)
        gz += len(g) if h.get("Content-Encoding") == "gzip" else len(gzip.compress(b, 6)) if False else len(g)
    return raw, gz, 1 + len(assets)


def browser_measures(url: str, changes: int) -> dict:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        return {}
    from playwright.sync_api import sync_playwright
    args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]
    res: dict = {}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=args)
        pg = b.new_page(viewport={"width": 1280, "height": 900})
        pg.goto(url + f"/cards/{CARD}")
        pg.wait_for_function(f"() => document.getElementById('plot-{CARD}-1') && document.getElementById('plot-{CARD}-1').data")
        times = []
        for i in range(changes):
            v = 2 + (i * 37) % 500
            ms = pg.evaluate("""(v) => new Promise((resolve) => {
                const card = document.getElementById('%s'), box = document.getElementById('%s-batch');
                const t0 = performance.now();
                card.addEventListener('card:drawn', () => resolve(performance.now() - t0), {once: true});
                box.value = String(v);
                box.dispatchEvent(new Event('input', {bubbles: true}));
            })""" % (CARD, CARD), v)
            times.append(ms)
        res["slider_ms"] = statistics.median(times)
        res["slider_p90_ms"] = sorted(times)[int(0.9 * (len(times) - 1))]
        # a long section page: time until the first card's chart is drawn and its controls respond
        loads = []
        for _ in range(3 if changes > 5 else 1):
            pg2 = b.new_page(viewport={"width": 1280, "height": 900})
            t0 = time.perf_counter()
            pg2.goto(url + "/ch/3/3.2", wait_until="domcontentloaded")
            pg2.wait_for_function("() => { const p = document.querySelector('.plot'); return window.htmx && p && p.data; }")
            loads.append((time.perf_counter() - t0) * 1000)
            res["section_cards"] = pg2.evaluate("() => document.querySelectorAll('article.card').length")
            pg2.close()
        res["section_ms"] = statistics.median(loads)
        b.close()
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--smoke", action="store_true", help="brief run for CI: must finish, targets not enforced")
    ap.add_argument("--seconds", type=float, default=None)
    a = ap.parse_args()
    secs = a.seconds or (1 if a.smoke else 8)
    proc, url = start_server(2)
    rows = []
    try:
        frag, _ = get(url + f"/cards/{CARD}/fragment?batch=8")
        fsize = len(frag)
        fgz = len(get(url + f"/cards/{CARD}/fragment?batch=8", gz=True)[0])
        for _ in range(2):   # warm both workers' caches for the warm run
            wrk(url, LUA_WARM % CARD, 4, 1)
        results = {}
        for c in (1, 16, 64):
            results[("warm", c)] = wrk(url, LUA_WARM % CARD, c, secs)
        results[("cold", 16)] = wrk(url, LUA_COLD % CARD, 16, secs)
        results[("ceiling", 16)] = wrk(url, f"/bench/ceiling?size={fsize}", 16, secs)
        raw, gz, nfiles = page_weight(url, "/ch/1/1.3")
        br = browser_measures(url, 5 if a.smoke else 25)
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    ceil = results[("ceiling", 16)]
    print(f"\nAI Infra 图解 · make bench{' (smoke)' if a.smoke else ''} · card {CARD} · 2 uvicorn workers · wrk {secs:g}s per run\n")
    print(f"{'measure':58} {'target':>14} {'measured':>14}  ok")
    print("-" * 94)

    def row(name, target, measured, ok):
        print(f"{name:58} {target:>14} {measured:>14}  {'✓' if ok else '✗'}")
        rows.append(ok)

    for c in (1, 16, 64):
        r = results[("warm", c)]
        print(f"{f'fragment, {c:>2} clients (LRU warm): req/s · p50 · p99 ms':58} {'':>14} "
              f"{r['rps']:>8.0f} · {r['p50']:.1f} · {r['p99']:.1f}   errors {r['errors'] + r['non2xx']}")
    cold = results[("cold", 16)]
    print(f"{'fragment, 16 clients (every state new): req/s · p50 · p99':58} {'':>14} "
          f"{cold['rps']:>8.0f} · {cold['p50']:.1f} · {cold['p99']:.1f}   errors {cold['errors'] + cold['non2xx']}")
    print(f"{'ceiling: precomputed bytes, same size, same stack, 16 clients':58} {'':>14} {ceil['rps']:>8.0f} · {ceil['p50']:.1f} · {ceil['p99']:.1f}")
    print("-" * 94)
    w16 = results[("warm", 16)]
    row("card update throughput ÷ ceiling (16 clients, warm)", "≥ 0.80", f"{w16['rps'] / ceil['rps']:.2f}", w16["rps"] >= 0.8 * ceil["rps"])
    row("card update throughput ÷ ceiling (16 clients, all new)", "(info)", f"{cold['rps'] / ceil['rps']:.2f}", True)
    row("p99 latency, 16 clients (warm)", "≤ 20 ms", f"{w16['p99']:.1f} ms", w16["p99"] <= 20)
    row("p99 latency, 16 clients (all new; cold render, info)", "(info)", f"{cold['p99']:.1f} ms", True)
    row("bytes per update (fragment raw / gzipped)", "(info)", f"{fsize / 1000:.1f} / {fgz / 1000:.1f} kB", True)
    row(f"first page /ch/1/1.3 + {nfiles - 1} assets, raw", "(info)", f"{raw / 1000:.0f} kB", True)
    row("first page, gzipped as served", "≤ 450 kB", f"{gz / 1000:.0f} kB", gz <= 450_000)
    if br:
        row("slider change → numbers + 2 charts redrawn (median)", "≤ 80 ms", f"{br['slider_ms']:.0f} ms", br["slider_ms"] <= 80)
        row("slider change (p90)", "(info)", f"{br['slider_p90_ms']:.0f} ms", True)
        row(f"section page with {br['section_cards']} cards → interactive", "≤ 1500 ms", f"{br['section_ms']:.0f} ms", br["section_ms"] <= 1500)
    else:
        print("(browser measures skipped: no chromium)")
    print()
    if not a.smoke and not all(rows):
        print("some targets missed")


if __name__ == "__main__":
    main()
