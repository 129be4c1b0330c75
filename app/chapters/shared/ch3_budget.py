"""What section 3.6 and the chapter-3 end matter share: the data they read (model tables, the
datablations runs) as traced inputs naming their source, the reconstructed law, 例题 3-5's run sets,
the tokens-per-parameter outputs, the cards' words (``budget.toml``) and ``BookOut`` (the number
formats 3.6 prints)."""

from __future__ import annotations

import math
from dataclasses import astuple, replace
from typing import Any

from ... import format as fmt
from ...calculators import budget
from ...calculators import scaling_law as sl
from ...cards import Note
from ...data import c4_points, read_json
from ...outputs import out, outputs
from ...trace import given
from ...words import localize, words_for
from .. import words

W = words_for(__name__)


def big(x: float, sym: str, exp: int | None, source: str, unit: str = "") -> float:
    """A large count as an input written the book's way (2.81×10⁹): a leaf in units of 10^exp (None: x's own order)."""
    exp = math.floor(math.log10(abs(x))) if exp is None else exp
    scaled = W.f("big.unit", exp=fmt.superscript(exp), unit=unit)  # ×10⁸ 项: the unit word stays a Text
    return given(x / 10**exp, sym, scaled, source) * 10**exp


WORDS: dict[str, Any] = words("ch3", "budget")
FIGURES: dict[str, tuple[str, str]] = {k: (t, s) for k, (t, s) in WORDS["figures"].items()}  # key → (title, summary)


def notes(*keys: str) -> list[Note]:
    """The notes filed under ``keys`` in budget.toml, in order (empty keys skipped); a note with the
    law written in comes twice: with the book's numbers at the card's defaults (the card's own as its
    slots: ``law.<card>``), without them elsewhere (``law.moved``)."""
    out = []
    for key in keys:
        for kind, t in WORDS["notes"][key] if key else ():
            if "{LAW}" in t:
                out += [
                    Note(_law_in(t, WORDS["law"][key.split(".")[0]]), kind, when="defaults"),
                    Note(_law_in(t, WORDS["law"]["moved"]), kind, when="moved"),
                ]
            else:
                out.append(Note(t, kind))
    return out


def _law_in(t: str, law: str) -> str:
    """A note with the law's text (one of budget.toml's ``law``) written in, filled per request in the
    edition served."""
    return localize(t).replace("{LAW}", localize(law))


BOOK = W["book"]
C4 = W["c4"]
HOLDOUTS = ("2b855b55b", "8b7178b178b")
SEED_RUNS = tuple(f"2b855b55bc4seed{i}" for i in range(1, 5))
EXAMPLE_FIT = ("146m14b14b", "220m7b57b5", "421m32b32b", "619m22b22b", "1b191b91b", "1b566b66b")
LAW = sl.Law(*(given(v, s, "", W["law.given"]) for v, s in zip(astuple(sl.RECONSTRUCTED), sl.LAW_SYMBOLS)))


BUDGETS: dict[str, Any] = read_json("training_budgets.json")  # read once, as app.data reads every data file
RUNS: dict[str, sl.Run] = sl.runs_from_rows(c4_points())


def traced_run(name: str, tag: str) -> sl.Run:
    """A datablations run with N, D and its observed loss as inputs (N_1 = 2.81×10⁹ …)."""
    r = RUNS[name]
    return replace(
        r,
        params=big(r.params, f"N_{{{tag}}}", None, C4),
        tokens=big(r.tokens, f"D_{{{tag}}}", 9, C4),
        loss=given(r.loss, f"L_{{{tag}}}", "nats/token", C4),
    )


def held_out() -> list[sl.Run]:
    return [traced_run(x, str(i)) for i, x in enumerate(HOLDOUTS, 1)]


def fit_law(names: list[str], tied: bool) -> sl.FitResult:
    """The reader's fit over the named runs (a search: rule values)."""
    sel = [traced_run(x, f"f{i}") for i, x in enumerate(names, 1)]
    return sl.fit([r.params for r in sel], [r.tokens for r in sel], [r.loss for r in sel], tied=tied)


def moe_dims(key: str) -> tuple[int, int, int, int, int]:
    """(n_L, h, f, k_routed, k_shared) of a preset; n_L, h, f are this site's factorisation of the printed product."""
    m, src = BUDGETS["moe"][key], W["moe_dims"]
    return (
        given(m["moe_layers"], "n_L", "", src),
        given(m["hidden"], "h", "", src),
        given(m["expert_ffn"], "f", "", src),
        given(m["routed"], "k_{routed}", "", BOOK),
        given(m["shared"], "k_{shared}", "", BOOK),
    )


SHORT = [m["name"].split(" · ")[0] for m in BUDGETS["open_models"]]
ROW_OUT = outputs(
    **{
        k: v
        for i, n in enumerate(SHORT, 1)
        for k, v in {
            f"row{i}_d_over_n": out(W.f("row_out.t", n=n), digits=0, tile=False),
            f"row{i}_six_nd_flop": out(
                W.f("row_out.t_2", n=n), unit="FLOP", sig=4 if i == 5 else 3, sci=True, tile=False
            ),
            f"row{i}_x_chinchilla": out(W.f("row_out.t_3", n=n), unit="×", sig=3, tile=False),
        }.items()
    }
)
QUALITY = {
    "mmlu_llama3_8b": ("MMLU_{8B}", "Llama 3 8B · MMLU"),
    "mmlu_llama2_70b": ("MMLU_{70B}", "Llama 2 70B · MMLU"),
    "triviaqa_llama3_8b": ("TriviaQA_{8B}", "Llama 3 8B · TriviaQA-Wiki"),
    "triviaqa_llama2_70b": ("TriviaQA_{70B}", "Llama 2 70B · TriviaQA-Wiki"),
}


def llama_qwen(per_param: float) -> dict:
    """D/N, 6ND and × the benchmark for the five open models (N as the book rounds it), the 8B benchmark, the scores."""
    models = [
        (big(m["params"], "N", 9, BOOK), big(m["tokens"], "D", 12, BOOK, " token")) for m in BUDGETS["open_models"]
    ]
    quality = {
        k: given(v, QUALITY[k][0], W["llama_qwen.given"], W["llama_qwen.given_2"])
        for k, v in BUDGETS["quality"].items()
    }
    return budget.llama_qwen_outputs(models, quality, per_param, big(8e9, "N_{8B}", 9, W["llama_qwen.big"]))
