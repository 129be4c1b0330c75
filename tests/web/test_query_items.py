"""The fragment lane splits a query without escapes itself; the pairs must be parse_qsl's (blanks
kept), which is how the route (Starlette) reads the same query."""

from __future__ import annotations

import random
from urllib.parse import parse_qsl

from app.web.lane import query_items


def test_query_items_are_parse_qsl_pairs():
    rnd = random.Random(5)
    alphabet = "ab_=&&=9.-%2B+é"
    queries = ["", "&", "=", "a", "a=", "=b", "a==b", "a=1&&b=2&", "batch=37&params_billion=71.3", "x=%E4%B8%AD+y"]
    queries += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 16))) for _ in range(5000)]
    for q in queries:
        raw = q.encode("utf-8")  # the bytes the server receives
        assert query_items(raw) == parse_qsl(raw.decode("latin-1"), keep_blank_values=True), q
