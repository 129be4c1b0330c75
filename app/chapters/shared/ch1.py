"""Declarations several chapter-1 sections share: parameter sets, the book's hand-calculation givens,
the model presets and small helpers. Section modules import from here (and from the layers below),
never from each other."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...calculators import roofline
from ...calculators.model_config import weight_bytes
from ...cards import Block, Note, Params, Question, Quoted, View, quote, slider
from ...charts import COLORS
from ...data import compute_gpu_ids, gpu_options, read_json
from ...outputs import Out, out
from ...params_domain import gpu_choice, gpu_of, gpu_type, shape_of_model
from ...trace import given, name
from ...words import words_for
from .. import words

W = words_for(__name__)

if TYPE_CHECKING:
    GpuId = str  # what the validated field holds
else:
    GpuId = gpu_type(compute_gpu_ids())  # a preset, or a reader's own card (custom:GB,TB/s,TFLOP/s)

# 例题 1-1's hand calculation: N = 70×10⁹ parameters at b_W = 1 B each, one request per step
# (N in units of 10⁹, as the slider gives it: multiply by 1e9 where it is used, inside a card).
HAND = W["hand"]
HAND_N_BILLION = given(70, "N", "×10⁹", source=HAND)
HAND_B_W = given(1.0, "b_W", "B", source=HAND)

LLAMA_70B, QWEN3_8B = "deepseek-r1-distill-llama-70b", "qwen3-8b"
MODEL_NAMES = {LLAMA_70B: "DeepSeek-R1-Distill-Llama-70B", QWEN3_8B: "Qwen3-8B"}
MEASURED = "qwen3_8b_rtx_pro_6000.json"  # 图 1-13 / 1-14: the book's measured points
CONTENT: dict[str, Any] = words("ch1", "content")


def model(ref: str) -> Any:
    """A model's shape with its counts as traced inputs (source: its config.json)."""
    return shape_of_model(ref, MODEL_NAMES.get(ref, ""))


def stored_weights(s: Any, precision: str) -> float:
    """A model's weight bytes in a format (``bf16``, ``w8-g128``, or ``stored``: as its checkpoint stores
    them), named W_BF16 / W_8 / W_stored in derivations."""
    return name(
        weight_bytes(s, precision), {"bf16": "W_{BF16}", "w8-g128": "W_8", "stored": "W_{stored}"}[precision], "B"
    )


def measured() -> tuple[dict[int, dict], int]:
    """The book's Qwen3-8B measurements keyed by batch (only the printed levels; values as traced
    inputs) and how many levels were measured in all."""
    raw = read_json(MEASURED)
    src = W.f("measured", measured=MEASURED)
    pts = {
        pt["batch"]: {
            "tpot_ms": given(pt["tpot_ms"], f"TPOT_{{B={pt['batch']}}}", "ms", source=src),
            "throughput_ratio": given(pt["throughput_ratio"], f"X_{{B={pt['batch']}}}", "×", source=src),
        }
        for pt in raw["points"]
    }
    return pts, raw["levels_measured"]


class StepParams(Params):
    """例题 1-1's nine quantities (shared by 图 1-10, 练习 1-3 and the chapter-1 fallacies)."""

    gpu: GpuId = gpu_choice("h100-sxm", gpu_options(), label=W["stepparams.gpu.label"])
    params_billion: float = slider(70, ge=1, le=1000, step=1, label=W["stepparams.params_billion.label"], unit="×10⁹")
    bytes_per_param: float = slider(1, ge=0.25, le=2, step=0.25, label=W["stepparams.bytes_per_param.label"], unit="B")
    batch: int = slider(
        1, ge=1, le=512, step=1, label=W["stepparams.batch.label"], unit=W["stepparams.batch.unit"], log=True
    )
    bw_tbps: float | None = slider(
        None,
        ge=0.1,
        le=10,
        step=0.001,
        label=W["stepparams.bw_tbps.label"],
        unit="TB/s",
        placeholder=W["stepparams.bw_tbps.placeholder"],
    )
    peak_tflops: float | None = slider(
        None,
        ge=10,
        le=5000,
        step=0.1,
        label=W["stepparams.peak_tflops.label"],
        unit="TFLOP/s",
        placeholder=W["stepparams.bw_tbps.placeholder"],
    )
    bw_eff_pct: float = slider(100, ge=10, le=100, step=5, label=W["stepparams.bw_eff_pct.label"], unit="%", sym="η_β")
    compute_eff_pct: float = slider(
        100, ge=10, le=100, step=5, label=W["stepparams.compute_eff_pct.label"], unit="%", sym="η_Π"
    )
    target_ms: float = slider(
        10, ge=1, le=100, step=1, label=W["stepparams.target_ms.label"], unit="ms", sym="T_{target}"
    )


def rates(
    gpu: str, bw_eff_pct: float, compute_eff_pct: float, bw_tbps: float | None = None, peak_tflops: float | None = None
) -> tuple[float, float]:
    """β_eff and Π_eff (B/s, FLOP/s): the override or the GPU's, times the usable share."""
    g = gpu_of(gpu)
    bw = (bw_tbps * 1e12 if bw_tbps is not None else g.bw_bytes_s) * bw_eff_pct / 100
    peak = (peak_tflops * 1e12 if peak_tflops is not None else g.flops) * compute_eff_pct / 100
    return name(bw, "β_{eff}", "B/s"), name(peak, "Π_{eff}", "FLOP/s")


def effective_rates(p: StepParams) -> tuple[float, float]:
    """β and Π actually used by a 例题 1-1 state."""
    return rates(p.gpu, p.bw_eff_pct, p.compute_eff_pct, p.bw_tbps, p.peak_tflops)


def step_of(p: StepParams, batch: Any = None, b_w: Any = None) -> dict:
    """例题 1-1's quantities for a state (optionally at another B or b_W), by the hand calculation."""
    bw, peak = effective_rates(p)
    return roofline.step_outputs(
        p.params_billion * 1e9,
        p.bytes_per_param if b_w is None else b_w,
        p.batch if batch is None else batch,
        bw,
        peak,
        p.target_ms,
    )


def notes(card_id: str, **when: Any) -> list[Note]:
    """The notes under a card (content.toml ``[notes]``), those with a ``when`` only if that
    condition (``!name``: its negation) holds."""

    def on(cond: str) -> bool:
        return not when[cond[1:]] if cond.startswith("!") else bool(when[cond])

    return [
        Note(n["text"], n.get("kind", "note"))
        for n in CONTENT["notes"].get(card_id, [])
        if "when" not in n or on(n["when"])
    ]


def questions(card_id: str, view: View, params: Any) -> list[Question]:
    """The card's questions (content.toml ``[questions]``); prompt, hint and answer text filled at
    this state, a solution left as a template so that its numbers expand into their derivations."""

    def one(q: dict[str, Any]) -> Question:
        fields: dict[str, Any] = {
            k: filled(card_id, view, params, v) if k in ("prompt", "hint", "answer_text") else v for k, v in q.items()
        }
        return Question(**fields)

    return [one(q) for q in CONTENT["questions"][card_id]]


def diagram(card_id: str, **ctx: Any) -> Block:
    """The card's SVG/HTML diagram (``diagrams/<id>.html``) with the theme's colour roles as ``colors``."""
    return Block(f"diagrams/{card_id}.html", {"colors": COLORS, **ctx})


def diagram_view(card_id: str, o: dict, **ctx: Any) -> View:
    """A card that is a diagram: its outputs, its diagram drawn with ``ctx``, its notes."""
    return View(o, blocks=[diagram(card_id, **ctx)], notes=notes(card_id))


def filled(card_id: str, view: Any, params: Any, text: str) -> Quoted:
    """``text`` with its ``[[key]]`` slots filled from a card's view, for diagram data (a block's
    template gets plain context, not the card's slot filler)."""
    from ...cards import REGISTRY, slot

    card = REGISTRY[card_id]
    return quote(text, lambda key, flag: slot(card, view, params, key, flag))


def shown(decls: dict[str, Out], o: dict, key: str, flags: str = "") -> Quoted:
    """An output as its declaration prints it (for text inside a figure, where no slot can go); it
    reads "?" while the output is held back (an answer not yet tried, a live question's value)."""
    return Quoted(decls[key].fmt(o[key], flags=flags), [key])


def plain_out(label: str = "", **kw: Any) -> Out:
    """An output printed without thousands separators ("3350 GB/s", "5952 万"), as the prose writes it."""
    return out(label, sep=False, **kw)


def shown_out(label: str, show: Callable[[Any], str | None], **kw: Any) -> Out:
    """An output that ``show`` prints (unit included) wherever it can; None → the declared format."""
    return out(label, show=show, **kw)
