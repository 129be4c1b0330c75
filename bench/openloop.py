"""Open-loop load: requests leave at a fixed rate whatever the server does (a class dragging
sliders at once), unlike wrk's closed loop where a slow answer delays the next request. Latency is
measured from each request's scheduled start, so a stall counts for every request it delays
(no coordinated omission). Every URL is a state the server has not seen (fresh slider values
across many cards), unless ``--repeat`` allows repeats.

    python bench/openloop.py URL --rate 600 --seconds 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ENCODINGS = "gzip, deflate, br"


def fresh_paths(n: int, seed: int = 11) -> list[str]:
    """``n`` distinct fragment URLs across every card with a free slider (mixed cards, new states)."""
    from app.cards import REGISTRY, controls_of
    from app.chapters import load_all

    load_all()  # every card registers

    rnd = random.Random(seed)
    pools = []
    for cid in sorted(REGISTRY):
        sliders = [
            s
            for s in controls_of(REGISTRY[cid].params)
            if s.control == "slider" and s.ge is not None and s.le > s.ge and not s.optional
        ]
        if sliders:
            pools.append((cid, sliders))
    seen: set[str] = set()
    out: list[str] = []
    tries = 0
    while len(out) < n and tries < 50 * n:
        tries += 1
        cid, sliders = rnd.choice(pools)
        s = rnd.choice(sliders)
        steps = int((s.le - s.ge) / (s.step or 1))
        v = s.ge + rnd.randint(0, max(steps, 1)) * (s.step or 1)
        v = min(v, s.le)
        text = str(int(round(v))) if s.is_int else f"{v:.10g}"
        path = f"/cards/{cid}/fragment?" + urlencode({s.name: text})
        if path not in seen and accepted(cid, s.name, text):
            seen.add(path)
            out.append(path)
    return out


def accepted(cid: str, name: str, text: str) -> bool:
    """Whether the card takes this value (a cross-field rule may refuse it: that would be a 422)."""
    from app.cards import REGISTRY
    from app.state import ParamError, parse_query

    try:
        parse_query(REGISTRY[cid], [(name, text)])
        return True
    except ParamError:
        return False


async def run(url: str, paths: list[str], rate: float, seconds: float, timeout: float = 10.0) -> dict:
    n = min(len(paths), int(rate * seconds))
    lat: list[float] = []
    errors = 0
    conn = aiohttp.TCPConnector(limit=512, force_close=False)
    # the bodies are read, not decoded: the generator shares the machine with the server, and
    # decompressing every answer would take CPU from it
    async with aiohttp.ClientSession(
        url,
        connector=conn,
        timeout=aiohttp.ClientTimeout(total=timeout),
        headers={"Accept-Encoding": ENCODINGS},
        auto_decompress=False,
    ) as session:

        async def one(path: str, due: float) -> None:
            nonlocal errors
            try:
                async with session.get(path) as r:
                    await r.read()
                    if r.status != 200:
                        errors += 1
            except Exception:
                errors += 1
            lat.append(time.perf_counter() - due)

        t0 = time.perf_counter() + 0.2
        tasks = []
        for i in range(n):
            due = t0 + i / rate
            wait = due - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            tasks.append(asyncio.create_task(one(paths[i], due)))
        await asyncio.gather(*tasks)
        wall = time.perf_counter() - t0
    lat.sort()
    return {
        "rate": rate,
        "sent": n,
        "achieved_rps": n / wall,
        "errors": errors,
        "p50": _pct(lat, 0.50),
        "p99": _pct(lat, 0.99),
        "max": lat[-1] * 1000 if lat else 0.0,
        "mean": statistics.fmean(lat) * 1000 if lat else 0.0,
    }


def _pct(sorted_s: list[float], q: float) -> float:
    """Nearest-rank percentile in ms."""
    return (
        sorted_s[min(len(sorted_s) - 1, max(0, -(-int(q * 1000) * len(sorted_s) // 1000) - 1))] * 1000
        if sorted_s
        else 0.0
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--rate", type=float, default=600)
    ap.add_argument("--seconds", type=float, default=20)
    a = ap.parse_args()
    paths = fresh_paths(int(a.rate * a.seconds))
    print(json.dumps(asyncio.run(run(a.url, paths, a.rate, a.seconds))))


if __name__ == "__main__":
    main()
