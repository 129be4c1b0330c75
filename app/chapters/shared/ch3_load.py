"""Chapter 3's load cards (opener, 3.1, 3.2 and their end matter): the book's settings, 例题 3-1's
parameter set and its one computation, the measured agent trace. Section modules import from here
(and from the layers below), never from each other."""

from __future__ import annotations

from typing import Any, Literal

from ...calculators import model_config as mc
from ...calculators import queueing as qu
from ...calculators.units import GB, KIB
from ...cards import Params, choice, fixed, quote, slider
from ...data import gpu, read_json
from ...outputs import Out, out
from ...params_domain import shape_of_model
from ...trace import given, plain
from ...words import said, words_for

W = words_for(__name__)

QWEN = shape_of_model("qwen3-8b", "Qwen3-8B")
KV_BYTES = QWEN.kv_bytes_per_token_bf16  # 147,456 B = 144 KiB (traced: config.json)
KV_KIB = plain(KV_BYTES) / KIB
WEIGHT_GB = round(plain(mc.decode_weight_read_bytes(QWEN, 2)) / GB, 2)  # 15.14 GB as the book rounds it
PRO = gpu("rtx-pro-6000")
BW_TBPS, PEAK_TFLOPS = PRO.bw_bytes_s / 1e12, PRO.flops / 1e12  # 1.792 TB/s, 503.8 TFLOP/s
MU_BOOK = 2795.66  # decode steps/s per card, the book's stated value; the bandwidth formula gives 2,795.63
CLASS_A, CLASS_B = (8192, 256), (1024, 2048)  # 例题 3-1: long input, long output (P, G)
EG31 = W["eg31"]


def book(value: float, sym: str, unit: str = "", source: str = EG31) -> Any:
    """A value the book states, as a traced input naming its source."""
    return given(value, sym, unit, source)


def quiet(label: str = "", **kw: Any) -> Out:
    """An output for the JSON, the templates and the derivations, not shown as a tile."""
    return out(label, tile=False, **kw)


def say(decls: dict[str, Out], o: dict, text: str) -> str:
    """``text`` with its ``[[key]]`` slots filled from outputs in their declared formats (for the text
    the engine does not fill itself: diagram captions, figure labels); a number it quotes reads "?"
    while its output is held back (:class:`~app.cards.Quoted`). Text the engine fills (prompts, open
    answers, table cells, notes) keeps its slots instead."""

    def look(key: str, flag: str) -> tuple[str, str] | None:
        return (decls[key].fmt(o[key], flags=flag), "output") if key in o and key in decls else None

    return quote(text, look)


# --- 例题 3-1: the two-class mix, its presets and its one computation --------------------------------

PRESETS: dict[str, dict[str, float]] = {
    "uniform": {"duration_s": 120, "split_s": 60, "share_li_before_pct": 50, "share_li_after_pct": 50, "n_cards": 2},
    "skewed": {"duration_s": 120, "split_s": 60, "share_li_before_pct": 90, "share_li_after_pct": 10, "n_cards": 2},
    "burst30_2cards": {
        "duration_s": 30,
        "split_s": 0,
        "share_li_before_pct": 10,
        "share_li_after_pct": 10,
        "n_cards": 2,
    },
    "burst30_3cards": {
        "duration_s": 30,
        "split_s": 0,
        "share_li_before_pct": 10,
        "share_li_after_pct": 10,
        "n_cards": 3,
    },
}
PRESET_LABELS = {
    "uniform": W["preset_labels.uniform"],
    "skewed": W["preset_labels.skewed"],
    "burst30_2cards": W["preset_labels.burst30_2cards"],
    "burst30_3cards": W["preset_labels.burst30_3cards"],
}
SCENARIO = {
    "duration_s": ("T", "s"),
    "split_s": ("t_s", "s"),
    "share_li_before_pct": ("s_1", "%"),
    "share_li_after_pct": ("s_2", "%"),
    "n_cards": ("n", ""),
}


class Eg31Params(Params):
    preset: Literal["uniform", "skewed", "burst30_2cards", "burst30_3cards"] = choice(
        "skewed", PRESET_LABELS, label=W["eg31params.preset.label"]
    )
    rate_req_s: float = slider(
        4, ge=0.5, le=16, step=0.5, label=W["eg31params.rate_req_s.label"], unit=W["eg31params.rate_req_s.unit"]
    )
    duration_s: float | None = slider(
        None,
        ge=10,
        le=300,
        step=10,
        label=W["eg31params.duration_s.label"],
        unit="s",
        placeholder=W["eg31params.duration_s.placeholder"],
        sym="T",
    )
    split_s: float | None = slider(
        None,
        ge=0,
        le=300,
        step=10,
        label=W["eg31params.split_s.label"],
        unit="s",
        placeholder=W["eg31params.duration_s.placeholder"],
        sym="t_s",
    )
    share_li_before_pct: float | None = slider(
        None,
        ge=0,
        le=100,
        step=10,
        label=W["eg31params.share_li_before_pct.label"],
        unit="%",
        placeholder=W["eg31params.duration_s.placeholder"],
        sym="s_1",
    )
    share_li_after_pct: float | None = slider(
        None,
        ge=0,
        le=100,
        step=10,
        label=W["eg31params.share_li_after_pct.label"],
        unit="%",
        placeholder=W["eg31params.duration_s.placeholder"],
        sym="s_2",
    )
    n_cards: int | None = slider(
        None,
        ge=1,
        le=8,
        step=1,
        label=W["eg31params.n_cards.label"],
        placeholder=W["eg31params.duration_s.placeholder"],
        sym="n",
    )
    mu_source: Literal["book", "bandwidth"] = choice(
        "book",
        {"book": W["eg31params.mu_source.book"], "bandwidth": W["eg31params.mu_source.bandwidth"]},
        label=W["eg31params.mu_source.label"],
    )
    mu_per_card: float = slider(
        MU_BOOK,
        ge=1000,
        le=6000,
        step=0.01,
        label=W["eg31params.mu_per_card.label"],
        unit=W["eg31params.mu_per_card.unit"],
        sym="μ_1",
    )
    li_input_tokens: int = slider(
        CLASS_A[0], ge=256, le=32768, step=256, label=W["eg31params.li_input_tokens.label"], unit="token", sym="P_A"
    )
    li_output_tokens: int = slider(
        CLASS_A[1], ge=2, le=4096, step=1, label=W["eg31params.li_output_tokens.label"], unit="token", sym="G_A"
    )
    lo_input_tokens: int = slider(
        CLASS_B[0], ge=256, le=32768, step=256, label=W["eg31params.lo_input_tokens.label"], unit="token", sym="P_B"
    )
    lo_output_tokens: int = slider(
        CLASS_B[1], ge=2, le=8192, step=1, label=W["eg31params.lo_output_tokens.label"], unit="token", sym="G_B"
    )
    batch_seqs: int = slider(
        64, ge=1, le=256, step=1, label=W["eg31params.batch_seqs.label"], unit=W["eg31params.batch_seqs.unit"], sym="B"
    )
    weight_gb: float = fixed(WEIGHT_GB, W["eg31params.weight_gb.fixed"], "GB", sym="W")
    kv_kib_per_token: float = fixed(KV_KIB, W["eg31params.kv_kib_per_token.fixed"], "KiB", sym="c_{KV}")
    bandwidth_tbps: float = fixed(BW_TBPS, W["eg31params.bandwidth_tbps.fixed"], "TB/s", sym="β")
    dt_s: float = slider(
        1, ge=0.1, le=10, step=0.1, label=W["eg31params.dt_s.label"], unit="s", sym=W["eg31params.dt_s.label"]
    )


def scenario(p: Any) -> dict[str, Any]:
    """The scenario fields: the preset's (as inputs naming the preset), overridden by any given explicitly."""
    s = {
        k: getattr(p, k)
        if getattr(p, k) is not None
        else given(PRESETS[p.preset][k], sym, unit, W.f("scenario.given", v=PRESET_LABELS[p.preset]))
        for k, (sym, unit) in SCENARIO.items()
    }
    if s["split_s"] > s["duration_s"]:
        s["split_s"] = s["duration_s"]
    return s


def mix(
    rate: float,
    duration: float,
    split: float,
    s1_pct: float,
    s2_pct: float,
    a: tuple = CLASS_A,
    b: tuple = CLASS_B,
    source: str = EG31,
) -> qu.TwoClassMix:
    """A two-class mix; class sizes given as numbers are the book's (traced inputs naming ``source``)."""

    def cls(pg: tuple, tag: str) -> qu.RequestClass:
        return qu.RequestClass(
            *(given(v, f"{s}_{tag}", "token", source) if type(v) is int else v for v, s in zip(pg, "PG"))
        )

    return qu.TwoClassMix(rate, duration, split, s1_pct / 100, s2_pct / 100, cls(a, "A"), cls(b, "B"))


def book_card() -> qu.DecodeCard:
    """例题 3-1's decode card: W = 15.14 GB read per step, c_KV = 144 KiB, β = 1.792 TB/s, 64 sequences."""
    return qu.DecodeCard(
        book(WEIGHT_GB, "W", "GB") * GB,
        book(KV_KIB, "c_{KV}", "KiB") * KIB,
        book(BW_TBPS, "β", "TB/s") * 1e12,
        book(64, "B"),
    )


def eg31(p: Eg31Params) -> tuple[dict, qu.BacklogRun, qu.TwoClassMix]:
    """例题 3-1 for a setting: its outputs (catalog keys), the recursion's run and the mix."""
    sc = scenario(p)
    m = mix(
        p.rate_req_s,
        sc["duration_s"],
        sc["split_s"],
        sc["share_li_before_pct"],
        sc["share_li_after_pct"],
        (p.li_input_tokens, p.li_output_tokens),
        (p.lo_input_tokens, p.lo_output_tokens),
    )
    card = qu.DecodeCard(p.weight_gb * GB, p.kv_kib_per_token * KIB, p.bandwidth_tbps * 1e12, p.batch_seqs)
    o, run = qu.two_class_outputs(m, card, sc["n_cards"], p.mu_per_card if p.mu_source == "book" else None, p.dt_s)
    return {"preset": p.preset, **sc, **o}, run, m


def book_run(preset: str, mu: Any = None, **changes: Any) -> tuple[dict, qu.BacklogRun, qu.TwoClassMix]:
    """例题 3-1 at a preset with the book's λ = 4 条/s and μ₁ (or ``mu``); ``changes`` override the preset."""
    sc = {
        k: changes.get(k, book(v, SCENARIO[k][0], SCENARIO[k][1], W.f("book_run.book", v=PRESET_LABELS[preset])))
        for k, v in PRESETS[preset].items()
    }
    m = mix(
        book(4, "λ", W["eg31params.rate_req_s.unit"]),
        sc["duration_s"],
        sc["split_s"],
        sc["share_li_before_pct"],
        sc["share_li_after_pct"],
    )
    o, run = qu.two_class_outputs(
        m,
        book_card(),
        sc["n_cards"],
        book(MU_BOOK, "μ_1", W["eg31params.mu_per_card.unit"], W["book_run.book_2"]) if mu is None else mu,
    )
    return {**sc, **o}, run, m


class SuccessParams(Params):
    """Two methods' cost per attempt and success rate (图 3-9, 练习 3-3)."""

    cost_old: float = slider(
        1,
        ge=0.1,
        le=10,
        step=0.1,
        label=W["successparams.cost_old.label"],
        unit=W["successparams.cost_old.unit"],
        sym="c_1",
    )
    success_old_pct: float = slider(
        50, ge=0, le=100, step=1, label=W["successparams.success_old_pct.label"], unit="%", sym="p_1"
    )
    cost_new: float = slider(
        2,
        ge=0.1,
        le=10,
        step=0.1,
        label=W["successparams.cost_new.label"],
        unit=W["successparams.cost_old.unit"],
        sym="c_2",
    )
    success_new_pct: float = slider(
        80, ge=0, le=100, step=1, label=W["successparams.success_new_pct.label"], unit="%", sym="p_2"
    )


# --- 3.2.3: the measured coding-agent trace (thinking on) ------------------------------------------

AGENT = read_json("agent-trace.json")  # measured totals, the thinking off/on table, the page's 示意 round split
AGENT["rounds_illustrative"] = [  # each round's outcome in both editions (rounds_illustrative_en beside it)
    [said(row[0], {"en": en}), *row[1:]]
    for row, en in zip(AGENT["rounds_illustrative"], AGENT["rounds_illustrative_en"], strict=True)
]
TRACE_TOTAL_S, TRACE_MODEL_S, TRACE_TOOLS_S = (AGENT["totals"][k] for k in ("total_s", "model_s", "tools_s"))
FIRST_ROUND_S = AGENT["rounds_illustrative"][0][1]  # not printed: reconstructed from “约 47.5% / 23.8% / 40.1 s”
MEASURED = W["measured"]
TOOL_SETUP = {"model1_s": 2, "tool_a_s": 6, "tool_b_s": 10, "model2_s": 3, "state_gib": 1, "n_tasks": 1}  # 练习 3-4
