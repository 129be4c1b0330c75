"""What 3.3–3.5 and their end cards (练习 3-5 … 3-7, the training-token fallacy) share: model facts as traced inputs, 图 3-18's
and 例题 3-4's settings, output helpers the engine lacks. Section modules import from here, never from each other."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ...calculators import multimodal as mm
from ...calculators.model_config import ModelShape, dense_shape
from ...cards import Params, Quoted, controls_of, fixed, slider
from ...data import model_config
from ...outputs import Out, out, outputs
from ...params_domain import shape_of_model
from ...trace import given, name
from ...words import words_for

W = words_for(__name__)

# ---------------------------------------------------------------- 3.3: Qwen3-VL-4B, Qwen-Image (data/models/*.json)

_VCFG = model_config("qwen3-vl-4b-vision")
VISION = mm.vision_shape(_VCFG)
VISION_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4}[_VCFG["torch_dtype"]]
KV_PER_TOKEN = dense_shape(model_config("qwen3-vl-4b-text")).kv_bytes_per_token_bf16  # 147,456 B = 144 KiB
DIT = mm.dit_shape(model_config("qwen-image-2512-dit"))
_SRC = W["src"]
VISION_FACTS = mm.VisionFacts(
    given(VISION.patch, "p", "px", _SRC),
    given(VISION.merge, "r", "", _SRC),
    given(VISION.feature_levels, "n_{lvl}", "", _SRC),
    given(VISION.out_hidden, "d", "", _SRC),
    given(VISION_BYTES, "b", "B", _SRC),
    given(KV_PER_TOKEN, "kv", "B", _SRC + W["vision_facts.given"]),
)
BOOK_SIDE, SCREENSHOT_MB = 640, 0.8  # the book's screenshot: 640×640 px, 0.8 MB compressed (decimal MB)
SCREENSHOT_TEXT = "0.8 MB ≈ 0.763 MiB"  # a given input (not computed on any card)


def snap_to(step: int) -> Callable[[Any, int], int]:
    """A field validator: image sides snap to multiples of ``step`` px (as the preprocessor does)."""
    return classmethod(lambda cls, v: max(step, round(v / step) * step))  # type: ignore[return-value]


def vision(h: int, w: int, n_images: int = 1, text_tokens: int = 0, facts: mm.VisionFacts = VISION_FACTS) -> dict:
    """fig-3-15's outputs for Qwen3-VL-4B (used by the table, the handoff strip and 练习 3-5)."""
    return mm.vision_outputs(facts, VISION, h, w, n_images, text_tokens)


class JitterParams(Params):
    """图 3-18 / 3-19 (and 练习 3-5 (b)): 20 ms chunks, processing, sending, network, one late chunk (示意)."""

    initial_buffer_ms: float = slider(
        40,
        ge=0,
        le=200,
        step=10,
        label=W["jitterparams.initial_buffer_ms.label"],
        unit="ms",
        illustrative=True,
        sym="T_{buf}",
    )
    chunk_ms: float = slider(
        20, ge=10, le=100, step=10, label=W["jitterparams.chunk_ms.label"], unit="ms", sym="T_{chunk}"
    )
    sample_rate_hz: int = slider(
        24000, ge=8000, le=48000, step=8000, label=W["jitterparams.sample_rate_hz.label"], unit="Hz", sym="f_s"
    )
    channels: int = fixed(1, W["jitterparams.channels.fixed"], sym="n_{ch}")
    bytes_per_sample: int = fixed(2, W["jitterparams.bytes_per_sample.fixed"], "B", sym="b_s")
    proc_ms: float = slider(12, ge=0, le=50, step=1, label=W["jitterparams.proc_ms.label"], unit="ms", sym="T_{proc}")
    send_ms: float = slider(1, ge=0, le=10, step=1, label=W["jitterparams.send_ms.label"], unit="ms", sym="T_{send}")
    net_ms: float = slider(5, ge=0, le=100, step=1, label=W["jitterparams.net_ms.label"], unit="ms", sym="T_{net}")
    n_chunks: int = slider(
        12,
        ge=4,
        le=50,
        step=1,
        label=W["jitterparams.n_chunks.label"],
        illustrative=True,
        sym=W["jitterparams.n_chunks.label"],
    )
    late_chunk: int = slider(
        3,
        ge=-1,
        le=49,
        step=1,
        label=W["jitterparams.late_chunk.label"],
        illustrative=True,
        sym=W["jitterparams.late_chunk.sym"],
    )
    late_net_ms: float = slider(
        55,
        ge=5,
        le=300,
        step=5,
        label=W["jitterparams.late_net_ms.label"],
        unit="ms",
        illustrative=True,
        sym="T_{net,late}",
    )
    interrupt_ms: float = slider(
        183,
        ge=0,
        le=1000,
        step=1,
        label=W["jitterparams.interrupt_ms.label"],
        unit="ms",
        illustrative=True,
        sym="t_{int}",
    )
    control_ms: float = slider(
        5, ge=0, le=50, step=1, label=W["jitterparams.control_ms.label"], unit="ms", sym="T_{ctl}"
    )
    poll_ms: float = slider(10, ge=1, le=50, step=1, label=W["jitterparams.poll_ms.label"], unit="ms", sym="T_{poll}")
    release_ms: float = slider(
        20, ge=0, le=200, step=5, label=W["jitterparams.release_ms.label"], unit="ms", illustrative=True, sym="T_{rel}"
    )


def given_params(model: type[Params], source: str, **values: Any) -> Any:
    """Another card's parameters (its defaults, some overridden) as traced inputs naming ``source``."""
    p = model(**values)
    specs = {s.name: s for s in controls_of(model)}
    return p.model_copy(
        update={
            k: given(v, specs[k].sym, specs[k].unit, source)
            for k, v in p
            if isinstance(v, (int, float)) and not isinstance(v, bool)
        }
    )


# ---------------------------------------------------------------- 3.4–3.5: Qwen3-8B and 例题 3-4's setting


def qwen3_8b() -> ModelShape:
    """Qwen3-8B's shape from data/models/qwen3-8b.json, its counts traced inputs (read once)."""
    return shape_of_model("qwen3-8b", "Qwen3-8B")


def n_params(s: ModelShape) -> int:
    """N = all parameters (embedding, LM head, blocks, norms), named for derivations."""
    return name(s.params_total, "N")


RL_SRC = W["rl_src"]
RL_PROMPT, RL_GEN, RL_KEEP = (
    given(1024, "P", "token", RL_SRC),
    given(256, "G", "token", RL_SRC),
    given(16, "n_{keep}", W["module.given"], RL_SRC),
)


# ---------------------------------------------------------------- MiB as the book prints them


def mib(label: str, **kw: Any) -> Out:
    """A MiB output printed to at most 4 decimals, trailing zeros dropped (7.8125 MiB, 56.25 MiB)."""
    return out(label, digits=4, trim=True, **kw)


def formatter(decls: dict[str, Out], o: dict) -> Callable[..., str]:
    """``f(key, flags)``: an output as its declaration prints it, for chart labels and diagram text."""
    return lambda key, flags="": decls[key].fmt(o[key], flags=flags)


def quoter(decls: dict[str, Out], o: dict) -> Callable[..., Quoted]:
    """``q(key, flags)``: an output as its declaration prints it, for a diagram's text (a block's
    template prints what it is given, no slot can go there): it reads "?" while the output is held back
    (a live question's value, an answer not tried yet), as a slot of it does."""
    return lambda key, flags="": Quoted(decls[key].fmt(o[key], flags=flags), [key])


def answers(**decls: Out) -> dict[str, Out]:
    """Outputs declared like any card's but not shown as tiles (an exercise's answers and what its solutions quote)."""
    return outputs(**{k: replace(d, tile=False) for k, d in decls.items()})
