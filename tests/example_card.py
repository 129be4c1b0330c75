"""The worked example of docs/adding-cards.md, as a module that runs: ``kv-per-request``, the KV cache
one request holds for a context length (Qwen3-8B, BF16).

Importing this module registers the card; ``tests/engine/test_adding_cards.py`` imports it inside a
test, renders it and unregisters it again (the rest of the suite never sees it). Every Python block
of the guide is copied from here, and that test holds the guide to this file.

In a real card the formula lives in ``app/calculators/<topic>.py`` and the declaration in a section
module (``app/chapters/ch1/s1_2_<slug>.py``), both written with relative imports (``from ...cards
import …``); here both sit in one file under ``tests/``, so the imports are absolute.
"""

from __future__ import annotations

from app.calculators.units import GIB
from app.cards import Figure, Params, View, card, slider
from app.charts.theme import axis, figure, layout, line
from app.outputs import out, outputs
from app.params_domain import shape_of_model
from app.trace import name

# --- 1. the formula (app/calculators/<topic>.py) -------------------------------------------------


def kv_request_bytes(kv_per_token: float, context_tokens: int) -> float:
    """KV of one request = kv/token · context."""
    return name(kv_per_token * context_tokens, "KV_{req}", "B")


# --- 2. the declaration (app/chapters/ch1/s1_2_<slug>.py) -----------------------------------------


class KvParams(Params):
    context_tokens: int = slider(4096, ge=128, le=131072, step=128, label="上下文长度 S", unit="token", log=True)


KV_OUT = outputs(
    kv_per_token_bytes=out("每 token KV", sym="kv"),  # unit "B" from the suffix
    kv_request_gib=out("每请求 KV", digits=2, em=True),  # unit "GiB" from the suffix
)

CONTEXTS = [2**k for k in range(7, 18)]  # 128 … 131,072 tokens: the slider's range


def kv_curve(kv_per_token: float, context_tokens: int) -> dict:
    """KV per request against the context length (log x), the reader's S marked."""
    gib = [kv_request_bytes(kv_per_token, s) / GIB for s in CONTEXTS]
    here = kv_request_bytes(kv_per_token, context_tokens) / GIB
    return figure(
        [
            line(CONTEXTS, gib, "每请求 KV", "resident"),
            line([context_tokens], [here], "当前 S", "ink", mode="markers"),
        ],
        layout(axis("上下文长度 S(token)", log=True), axis("KV(GiB)")),
    )


@card(
    "kv-per-request",
    title="每个请求的 KV",
    section="1.2",
    kind="calculator",
    params=KvParams,
    outputs=KV_OUT,
    lead="上下文越长,每个请求驻留的 KV 越多。",
)
def kv_per_request(p: KvParams) -> View:
    s = shape_of_model("qwen3-8b", "Qwen3-8B")
    kv = kv_request_bytes(s.kv_bytes_per_token_bf16, p.context_tokens)
    o = {"kv_per_token_bytes": s.kv_bytes_per_token_bf16, "kv_request_gib": kv / GIB}
    chart = Figure(
        kv_curve(s.kv_bytes_per_token_bf16, p.context_tokens),
        "每请求 KV 与上下文长度",
        summary="S = [[context_tokens]] 时每请求 [[kv_request_gib]]。",
    )
    return View(o, headline="上下文 [[context_tokens]]", figures=[chart])
