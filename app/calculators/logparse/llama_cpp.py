"""llama.cpp's benchmark tables (tools/llama-bench, tools/batched-bench), as printed in markdown.

``llama-bench``: a header row naming its columns (``model | size | params | backend | ngl | … | test | t/s``)
and one row a test: ``pp512`` (prompt processing of 512 tokens; older releases print ``pp 512``) or
``tg128`` (generating 128 tokens), optionally ``@ d4096`` (at that context depth), and the rate as
``mean ± sd`` tokens/s. ``size`` is the model file (``12.55 GiB``), ``params`` its parameter count
(``6.74 B``, ``752.39 M``).

``llama-batched-bench``: ``| PP | TG | B | N_KV | T_PP s | S_PP t/s | T_TG s | S_TG t/s | T s | S t/s |``,
one row per (prompt, generation, batch) combination; S_TG is the generation rate of the whole batch.

A row with fewer cells than its header is a cut-off table: if no row is whole, ``LogError("truncated")``."""

from __future__ import annotations

import re

from .common import NUM, Found, LogError, Value, number, to_bytes

TEST = re.compile(r"^(pp|tg)\s*(\d+)(?:\s*@\s*d\s*(\d+))?$", re.I)
RATE = re.compile(rf"^({NUM})\s*(?:±\s*({NUM}))?$")
SIZE = re.compile(rf"^({NUM})\s*(GiB|MiB|GB|MB)$", re.I)
PARAMS = re.compile(rf"^({NUM})\s*([BMK])$", re.I)
SCALE = {"b": 1e9, "m": 1e6, "k": 1e3}
BATCHED = ("pp", "tg", "b", "n_kv", "t_pp s", "s_pp t/s", "t_tg s", "s_tg t/s")


def _cells(line: str) -> list[str] | None:
    s = line.strip()
    if not s.startswith("|"):
        return None
    parts = [c.strip() for c in s.strip("|").split("|")]
    return parts


def _tables(text: str, wanted) -> list[tuple[list[str], list[list[str]], bool]]:
    """(header, whole rows, any row cut short) for each markdown table whose header ``wanted`` accepts."""
    out = []
    header: list[str] | None = None
    rows: list[list[str]] = []
    cut = False
    for line in text.splitlines():
        cells = _cells(line)
        if cells is None:
            if header:
                out.append((header, rows, cut))
            header, rows, cut = None, [], False
            continue
        low = [c.lower() for c in cells]
        if header is None:
            if wanted(low):
                header = low
            continue
        if all(re.fullmatch(r":?-+:?", c) for c in cells if c):
            continue  # the separator row
        if len(cells) != len(header):
            cut = True
            continue
        rows.append(cells)
    if header:
        out.append((header, rows, cut))
    return out


def _bench_row(h: list[str], c: list[str]) -> dict[str, Value] | None:
    t = TEST.match(c[h.index("test")])
    r = RATE.match(c[h.index("t/s")])
    if not t or not r:
        return None
    row: dict[str, Value] = {"test": t[1].lower(), "n_tokens": int(t[2]), "tokens_per_s": number(r[1])}
    if t[3]:
        row["depth"] = int(t[3])
    if r[2]:
        row["sd"] = number(r[2])
    if "size" in h and (m := SIZE.match(c[h.index("size")])):
        row["model_bytes"] = to_bytes(m[1], m[2])
    if "params" in h and (m := PARAMS.match(c[h.index("params")])):
        row["params"] = number(m[1]) * SCALE[m[2].lower()]
    return row


def parse_bench(text: str) -> Found | None:
    """``llama-bench`` rows; the fields are the first pp and the first tg row (of the first model)."""
    tables = _tables(text, lambda h: "test" in h and "t/s" in h)
    if not tables:
        return None
    rows = [r for h, body, _ in tables for c in body if (r := _bench_row(h, c))]
    if not rows:
        if any(cut for *_, cut in tables):
            raise LogError("truncated", "llama-bench")
        return None
    f: dict[str, Value] = {}
    for kind in ("pp", "tg"):
        r = next((r for r in rows if r["test"] == kind), None)
        if r is None:
            continue
        f[f"{kind}_tokens"], f[f"{kind}_tokens_per_s"] = r["n_tokens"], r["tokens_per_s"]
        if "sd" in r:
            f[f"{kind}_sd"] = r["sd"]
        if "depth" in r:
            f[f"{kind}_depth"] = r["depth"]
    for k in ("model_bytes", "params"):
        if k in rows[0]:
            f[k] = rows[0][k]
    return Found("llama_bench", f, tuple(rows))


def parse_batched(text: str) -> Found | None:
    """``llama-batched-bench`` rows. Fields: the prompt and generation lengths of the first row and, for each
    batch size B with that (PP, TG), ``batched_tg_tokens_per_s_b{B}`` (S_TG) and ``batched_pp_tokens_per_s_b{B}``."""
    tables = _tables(text, lambda h: all(k in h for k in BATCHED))
    if not tables:
        return None
    rows: list[dict[str, Value]] = []
    for h, body, _ in tables:
        for c in body:
            try:
                rows.append(
                    {
                        "pp": int(number(c[h.index("pp")])),
                        "tg": int(number(c[h.index("tg")])),
                        "b": int(number(c[h.index("b")])),
                        "s_pp": number(c[h.index("s_pp t/s")]),
                        "s_tg": number(c[h.index("s_tg t/s")]),
                    }
                )
            except ValueError:
                continue
    if not rows:
        if any(cut for *_, cut in tables):
            raise LogError("truncated", "llama-batched-bench")
        return None
    pp, tg = rows[0]["pp"], rows[0]["tg"]
    f: dict[str, Value] = {"batched_pp": pp, "batched_tg": tg}
    for r in rows:
        if r["pp"] == pp and r["tg"] == tg:
            f.setdefault(f"batched_tg_tokens_per_s_b{r['b']}", r["s_tg"])
            f.setdefault(f"batched_pp_tokens_per_s_b{r['b']}", r["s_pp"])
    return Found("llama_batched_bench", f, tuple(rows))
