"""Where a new state's time goes, in one process: the steps of ``/cards/{id}/fragment`` timed one by
one on fresh slider values (no HTTP, no second worker, no load generator on the machine), beside the
whole request through the app (ASGI, every middleware, the edge cache missing) and the bench's bare
route the same way. ``make bench`` prints these as information rows under its targets, so a miss on
the new-state row comes with the step that grew; alone:

    python bench/stages.py [--card eg-1-1] [--n 1500] [--rounds 15]

Each figure is the mean over ``n`` states in ms. The steps are the ones the route takes:
``parse_query`` (StateRef), ``run`` (compute), ``Shown`` with its figures and tiles (what the
templates read), the template, then the edge's brotli; then ``fragment_html`` (the
steps in one call). What the whole request costs beyond ``fragment_html`` and brotli is the stack
(routing, dependencies, middlewares, the edge cache's bookkeeping)."""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from anyio.from_thread import BlockingPortal, start_blocking_portal

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def fresh_queries(card, n: int, seed: int = 7) -> list[list[tuple[str, str]]]:
    """``n`` states of ``card`` not seen before: its first two sliders at random values of their ranges."""
    from app.cards import controls_of

    rnd = random.Random(seed)
    sliders = [s for s in controls_of(card.params) if s.control == "slider" and s.ge is not None and s.le > s.ge]
    out = []
    for _ in range(n):
        q = []
        for s in sliders[:2]:
            v = s.ge + (s.le - s.ge) * rnd.random()
            q.append((s.name, str(int(round(v))) if s.is_int else f"{v:.6g}"))
        out.append(q)
    return out


def mean_ms(fn: Callable[[int], object], indices: range) -> float:
    """The mean ms of ``fn(i)`` over ``indices``."""
    t = time.perf_counter()
    for i in indices:
        fn(i)
    return (time.perf_counter() - t) / len(indices) * 1e3


async def asgi_get(app, path: str, query: str) -> int:
    """One GET through ``app`` as a browser sends it (brotli accepted); the response status."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), (b"accept-encoding", b"gzip, deflate, br")],
        "client": ("127.0.0.1", 1234),
        "server": ("127.0.0.1", 8000),
    }
    status = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        if message["type"] == "http.response.start":
            status.append(message["status"])

    await app(scope, receive, send)
    return status[0]


def request_ms(portal: BlockingPortal, app, path: str, queries: list[str]) -> float:
    """The mean time of a GET of ``path`` with each query in turn, through ``app`` in this process
    (on the event loop of ``portal``, a thread of its own: the caller may be inside a running loop,
    e.g. a test process where Playwright's sync API is open, where ``asyncio.run`` would refuse)."""

    async def go() -> float:
        t = time.perf_counter()
        for q in queries:
            assert await asgi_get(app, path, q) == 200, (path, q)
        return (time.perf_counter() - t) / len(queries) * 1e3

    return portal.call(go)


def stages(card_id: str = "eg-1-1", n: int = 1500, rounds: int = 15) -> dict[str, float]:
    """The mean ms of each step of a new state of ``card_id``, and of whole requests (see the module).
    It runs in any process, the test suite's too: the app is built without start-up warming (every
    card rendered is not needed here, and nothing process-wide such as the collector's settings may
    change), the card's own templates warm up on 200 requests before any timing, and the requests run
    on an event loop of their own."""
    with start_blocking_portal(backend="asyncio") as portal:
        return _stages(portal, card_id, n, rounds)


def _stages(portal: BlockingPortal, card_id: str, n: int, rounds: int) -> dict[str, float]:
    from urllib.parse import urlencode

    import brotli
    from app.cards import REGISTRY, run
    from app.main import create_app
    from app.render.card import Reading, fragment_context, fragment_html
    from app.render.env import env
    from app.settings import Settings
    from app.state import parse_query
    from app.web.edge import BROTLI_QUALITY

    from bench.bare import app as bare_app

    app = create_app(Settings(warm=False))
    card = REGISTRY[card_id]
    items = fresh_queries(card, n)
    params = [parse_query(card, q) for q in items]
    views = [run(card, p) for p in params]
    template = env.get_template(card.template or "_result.html")

    def shown(i: int):
        ctx = fragment_context(card, params[i], views[i], Reading())
        s = ctx["s"]
        for name in ("figures", "tiles", "view_qs", "qs", "live_values"):  # what the template reads
            getattr(s, name)
        return ctx

    contexts = [shown(i) for i in range(n)]
    html = [template.render(**c) for c in contexts]
    raw = [h.encode() for h in html]
    steps: dict[str, Callable[[int], object]] = {  # state i → one step of it, as the route takes them
        "state from the query (parse_query)": lambda i: parse_query(card, items[i]),
        "compute (run: outputs, figures, tables)": lambda i: run(card, params[i]),
        "what the templates read (Shown: figures, tiles)": shown,
        "template (_result.html and its macros)": lambda i: template.render(**contexts[i]),
        "edge: brotli": lambda i: brotli.compress(raw[i], quality=BROTLI_QUALITY),
    }
    one_call, whole, bare = (
        "the steps in one call, as the route makes it (fragment_html)",
        "whole request through the app (ASGI)",
        "bare route through its app (ASGI)",
    )
    path = f"/cards/{card_id}/fragment"
    request_ms(portal, app, path, [urlencode(q) for q in fresh_queries(card, 200, seed=1)])  # templates, imports
    fresh = [urlencode(q) for q in fresh_queries(card, n, seed=3)]  # states the edge has not kept
    together: dict[str, Callable[[range], float]] = {
        one_call: lambda part: mean_ms(lambda i: fragment_html(card, params[i]), part),
        whole: lambda part: request_ms(portal, app, path, [fresh[i] for i in part]),
        bare: lambda part: request_ms(portal, bare_app, "/bare", [f"i={i}" for i in part]),
    }
    # in rounds, every row once a round, each on its own slice of the states: a shared machine whose
    # speed drifts slows every row alike; a row is its fastest round (the least disturbed)
    best: dict[str, float] = {}
    for k in range(rounds):
        part = range(k * n // rounds, (k + 1) * n // rounds)
        for name, step in steps.items():
            best[name] = min(best.get(name, math.inf), mean_ms(step, part))
        for name, measure in together.items():
            best[name] = min(best.get(name, math.inf), measure(part))
    out = {name: best[name] for name in steps}
    out["sum of the steps, each timed alone"] = sum(out.values())
    out |= {name: best[name] for name in together}
    out["stack: the request beyond fragment_html and brotli"] = best[whole] - best[one_call] - best["edge: brotli"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--card", default="eg-1-1")
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=15)
    a = ap.parse_args()
    for name, ms in stages(a.card, a.n, a.rounds).items():
        print(f"{name:62} {ms:8.3f} ms")


if __name__ == "__main__":
    main()
