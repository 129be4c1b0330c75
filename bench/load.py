"""Load test: N concurrent clients (default 200) for S seconds (default 60) on loopback against a
mix of card fragments, JSON and pages, through 2 uvicorn workers. Prints errors and latency
percentiles; exits non-zero on any error. `--seconds 5` is the CI smoke form.

Traffic goes only to 127.0.0.1 (a server this script starts), bounded in time by wrk's -d."""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.bench import start_server  # noqa: E402


def mixed_paths(n: int = 600) -> list[str]:
    """n random one-slider URLs over every card; a value the card itself refuses (a cross-field rule
    such as supervised tokens ≤ sequence length) is drawn again, so every URL is a valid state."""
    from app.cards import REGISTRY, controls_of
    from app.chapters import load_all

    load_all()  # every card registers

    from bench.openloop import accepted

    rnd = random.Random(7)
    ids = sorted(REGISTRY)
    paths = ["/", "/ch/1", "/ch/3/3.1"]
    for _ in range(n):
        cid = rnd.choice(ids)
        q = ""
        sliders = [
            s
            for s in controls_of(REGISTRY[cid].params)
            if s.control == "slider" and s.ge is not None and s.ge != s.le and not s.optional
        ]
        for _attempt in range(20):
            if not sliders:
                break
            s = rnd.choice(sliders)
            lo, hi = s.ge, s.le
            v = lo + (hi - lo) * rnd.random()
            v = round(v) if s.is_int else round(v / s.step) * s.step if s.step else v
            v = min(max(v, lo), hi)
            text = f"{v:g}" if not s.is_int else str(int(v))
            if accepted(cid, s.name, text):
                q = "?" + urlencode({s.name: text})
                break
        kind = rnd.random()
        paths.append(
            f"/cards/{cid}/fragment{q}" if kind < 0.6 else f"/api/cards/{cid}{q}" if kind < 0.9 else f"/cards/{cid}{q}"
        )
    return paths


LUA = """
paths = %s
counter = 0
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter %% #paths) + 1])
end
done = function(summary, latency, requests)
  io.write(string.format("JSON{\\"rps\\":%%f,\\"p50\\":%%f,\\"p90\\":%%f,\\"p99\\":%%f,\\"max\\":%%f,\\"errors\\":%%d,\\"non2xx\\":%%d,\\"requests\\":%%d}\\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status, summary.requests))
end
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--seconds", type=int, default=60)
    a = ap.parse_args()
    paths = mixed_paths()
    lua = LUA % ("{" + ",".join(json.dumps(p) for p in paths) + "}")
    proc, url = start_server(2)
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
            f.write(lua)
        out = subprocess.run(
            ["wrk", "-t2", f"-c{a.clients}", f"-d{a.seconds}s", "--timeout", "10s", "-s", f.name, url],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    r = json.loads(re.search(r"JSON(\{.*\})", out).group(1))
    errs = r["errors"] + r["non2xx"]
    print(f"load: {a.clients} clients × {a.seconds} s, {len(paths)} mixed URLs (fragments, JSON, pages), 2 workers")
    print(
        f"  requests {r['requests']:,} · {r['rps']:,.0f} req/s · errors {errs} "
        f"(socket {r['errors']}, non-2xx {r['non2xx']})"
    )
    print(f"  latency ms: p50 {r['p50']:.1f} · p90 {r['p90']:.1f} · p99 {r['p99']:.1f} · max {r['max']:.1f}")
    sys.exit(1 if errs else 0)


if __name__ == "__main__":
    main()
