"""The glossary: every term the two chapters introduce, defined in our own words, with the section
that introduces it. Prose and card text mark a term where it first appears on a page (hover or
keyboard focus shows the definition; screen readers get it as the element's description);
``/glossary`` lists them all with links back into the sections."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cache

from ..words import DEFAULT_LANG, LANGS, Text, words_for

W = words_for(__name__)


@dataclass(frozen=True)
class Term:
    slug: str
    term: str  # as the glossary lists it
    forms: tuple[str, ...]  # spellings that mark it in text (first match wins)
    definition: str
    section: str  # section key that introduces it: "1.2", "3.1", "1.end" …
    spellings: str = ""  # the forms as written in the words file ("a|b"), for another edition


def _t(slug: str, term: str, forms: str, section: str, definition: str) -> Term:
    return Term(slug, term, _forms(forms), definition, section, forms)


def _forms(spellings: str) -> tuple[str, ...]:
    return tuple(f for f in spellings.split("|") if f)


def _in(text: str, lang: str) -> str:
    return text.localized(lang) if isinstance(text, Text) else text


TERMS: tuple[Term, ...] = (
    # ---------------------------------------------------------------- chapter 1
    _t(
        "ai-infra",
        "AI Infra",
        "AI Infra",
        "1.1",
        W["terms.t"],
    ),
    _t(
        "context",
        W["terms.t_2"],
        W["terms.t_3"],
        "1.1",
        W["terms.t_4"],
    ),
    _t(
        "batch-size",
        W["terms.t_5"],
        W["terms.t_6"],
        "1.1",
        W["terms.t_7"],
    ),
    _t(
        "inference-instance",
        W["terms.t_8"],
        W["terms.t_8"],
        "1.1",
        W["terms.t_9"],
    ),
    _t(
        "kv-cache",
        W["terms.t_10"],
        W["terms.t_11"],
        "1.1",
        W["terms.t_12"],
    ),
    _t(
        "scale-up",
        W["terms.t_13"],
        "scale-up",
        "1.1",
        W["terms.t_14"],
    ),
    _t(
        "scale-out",
        W["terms.t_15"],
        "scale-out",
        "1.1",
        W["terms.t_16"],
    ),
    _t(
        "supernode",
        W["terms.t_17"],
        W["terms.t_17"],
        "1.1",
        W["terms.t_18"],
    ),
    _t(
        "hbm",
        W["terms.t_19"],
        "HBM",
        "1.1",
        W["terms.t_20"],
    ),
    _t(
        "data-parallel",
        W["terms.t_21"],
        W["terms.t_22"],
        "1.1",
        W["terms.t_23"],
    ),
    _t(
        "amdahl",
        W["terms.t_24"],
        "Amdahl",
        "1.2",
        W["terms.t_25"],
    ),
    _t(
        "gib",
        W["terms.t_26"],
        "GiB",
        "1.2",
        W["terms.t_27"],
    ),
    _t(
        "flop",
        W["terms.t_28"],
        "FLOP/s|FLOPs",
        "1.2",
        W["terms.t_29"],
    ),
    _t(
        "capacity",
        W["terms.t_30"],
        W["terms.t_31"],
        "1.2",
        W["terms.t_32"],
    ),
    _t(
        "bandwidth",
        W["terms.t_33"],
        W["terms.t_34"],
        "1.2",
        W["terms.t_35"],
    ),
    _t(
        "lower-bound",
        W["terms.t_36"],
        W["terms.t_37"],
        "1.2",
        W["terms.t_38"],
    ),
    _t(
        "mfu",
        W["terms.t_39"],
        "MFU",
        "1.2",
        W["terms.t_40"],
    ),
    _t(
        "mbu",
        W["terms.t_41"],
        "MBU",
        "1.2",
        W["terms.t_42"],
    ),
    _t(
        "gqa",
        W["terms.t_43"],
        "GQA",
        "1.2",
        W["terms.t_44"],
    ),
    _t(
        "mla",
        W["terms.t_45"],
        "MLA",
        "1.2",
        W["terms.t_46"],
    ),
    _t(
        "quantization",
        W["terms.t_47"],
        W["terms.t_47"],
        "1.2",
        W["terms.t_48"],
    ),
    _t(
        "tensor-parallel",
        W["terms.t_49"],
        W["terms.t_49"],
        "1.2",
        W["terms.t_50"],
    ),
    _t(
        "arithmetic-intensity",
        W["terms.t_51"],
        W["terms.t_52"],
        "1.3",
        W["terms.t_53"],
    ),
    _t(
        "ridge-point",
        W["terms.t_54"],
        W["terms.t_55"],
        "1.3",
        W["terms.t_56"],
    ),
    _t(
        "roofline",
        W["terms.t_57"],
        "Roofline",
        "1.3",
        W["terms.t_58"],
    ),
    _t(
        "throughput",
        W["terms.t_59"],
        W["terms.t_59"],
        "1.3",
        W["terms.t_60"],
    ),
    _t(
        "tpot",
        W["terms.t_61"],
        W["terms.t_62"],
        "1.3",
        W["terms.t_63"],
    ),
    _t(
        "eager",
        W["terms.t_64"],
        "eager",
        "1.3",
        W["terms.t_65"],
    ),
    _t(
        "pipeline-parallel",
        W["terms.t_66"],
        W["terms.t_66"],
        "1.4",
        W["terms.t_67"],
    ),
    _t(
        "tpu",
        "TPU",
        "TPU",
        "1.4",
        W["terms.t_68"],
    ),
    _t(
        "smartnic",
        "SmartNIC",
        "SmartNIC",
        "1.4",
        W["terms.t_69"],
    ),
    _t(
        "unified-bus",
        "Unified Bus(UB)",
        "Unified Bus",
        "1.4",
        W["terms.t_70"],
    ),
    _t(
        "prefill",
        W["terms.t_71"],
        "prefill",
        "1.end",
        W["terms.t_72"],
    ),
    _t(
        "decode",
        W["terms.t_73"],
        "decode",
        "1.end",
        W["terms.t_74"],
    ),
    # ---------------------------------------------------------------- chapter 3
    _t(
        "ttft",
        W["terms.t_75"],
        "TTFT",
        "3.1",
        W["terms.t_76"],
    ),
    _t(
        "goodput",
        W["terms.t_77"],
        W["terms.t_78"],
        "3.1",
        W["terms.t_79"],
    ),
    _t(
        "p95",
        W["terms.t_80"],
        W["terms.t_81"],
        "3.1",
        W["terms.t_82"],
    ),
    _t(
        "state-area",
        W["terms.t_83"],
        W["terms.t_84"],
        "3.1",
        W["terms.t_85"],
    ),
    _t(
        "backlog",
        W["terms.t_86"],
        W["terms.t_87"],
        "3.1",
        W["terms.t_88"],
    ),
    _t(
        "prefix-cache",
        W["terms.t_89"],
        W["terms.t_90"],
        "3.2",
        W["terms.t_91"],
    ),
    _t(
        "success-cost",
        W["terms.t_92"],
        W["terms.t_93"],
        "3.2",
        W["terms.t_94"],
    ),
    _t(
        "agent",
        W["terms.t_95"],
        W["terms.t_96"],
        "3.2",
        W["terms.t_97"],
    ),
    _t(
        "critical-path",
        W["terms.t_98"],
        W["terms.t_98"],
        "3.2",
        W["terms.t_99"],
    ),
    _t(
        "ced",
        W["terms.t_100"],
        "CED",
        "3.2",
        W["terms.t_101"],
    ),
    _t(
        "visual-token",
        W["terms.t_102"],
        W["terms.t_102"],
        "3.3",
        W["terms.t_103"],
    ),
    _t(
        "ec",
        W["terms.t_104"],
        "EC",
        "3.3",
        W["terms.t_105"],
    ),
    _t(
        "dit",
        W["terms.t_106"],
        "DiT|latent",
        "3.3",
        W["terms.t_107"],
    ),
    _t(
        "jitter-buffer",
        W["terms.t_108"],
        W["terms.t_109"],
        "3.3",
        W["terms.t_110"],
    ),
    _t(
        "activation",
        W["terms.t_111"],
        "micro-batch",
        "3.4",
        W["terms.t_112"],
    ),
    _t(
        "six-nd",
        "6ND",
        "6ND",
        "3.4",
        W["terms.t_113"],
    ),
    _t(
        "optimizer-state",
        W["terms.t_114"],
        W["terms.t_115"],
        "3.4",
        W["terms.t_116"],
    ),
    _t(
        "recompute",
        W["terms.t_117"],
        W["terms.t_117"],
        "3.4",
        W["terms.t_118"],
    ),
    _t(
        "sft",
        W["terms.t_119"],
        "SFT",
        "3.4",
        W["terms.t_120"],
    ),
    _t(
        "rl",
        W["terms.t_121"],
        W["terms.t_122"],
        "3.5",
        W["terms.t_123"],
    ),
    _t(
        "advantage",
        W["terms.t_124"],
        W["terms.t_125"],
        "3.5",
        W["terms.t_126"],
    ),
    _t(
        "teacher-forcing",
        W["terms.t_127"],
        W["terms.t_128"],
        "3.5",
        W["terms.t_129"],
    ),
    _t(
        "scaling-law",
        W["terms.t_130"],
        "Scaling Law",
        "3.6",
        W["terms.t_131"],
    ),
    _t(
        "compute-optimal",
        W["terms.t_132"],
        W["terms.t_133"],
        "3.6",
        W["terms.t_134"],
    ),
    _t(
        "hold-out",
        W["terms.t_135"],
        W["terms.t_136"],
        "3.6",
        W["terms.t_137"],
    ),
    _t(
        "moe",
        W["terms.t_138"],
        "MoE",
        "3.6",
        W["terms.t_139"],
    ),
    _t(
        "gpu-hours",
        W["terms.t_140"],
        W["terms.t_140"],
        "3.6",
        W["terms.t_141"],
    ),
)

BY_SLUG = {t.slug: t for t in TERMS}


@cache
def terms_in(lang: str) -> tuple[Term, ...]:
    """The glossary in edition ``lang``: each term's name, spellings and definition in that language,
    keeping its ``zh`` name beside it (:func:`chinese_name`)."""
    if lang == DEFAULT_LANG:  # Chinese readers meet these terms in English papers and logs: both names
        return tuple(replace(t, term=_both(t.term)) for t in TERMS)
    return tuple(
        Term(t.slug, _in(t.term, lang), _forms(_in(t.spellings, lang)), _in(t.definition, lang), t.section, t.spellings)
        for t in TERMS
    )


def _both(term: str) -> str:
    """A Chinese term with its English name after it, unless the Chinese already says it."""
    en = _in(term, "en")
    bare = [re.sub(r"[\W_]+", "", x).lower() for x in (en, term)]
    return term if bare[0] in bare[1] else W.f("both_names", zh=term, en=en)


def glossary_sep(lang: str) -> str:
    """What stands between a term's name and its definition in ``lang`` (a full-width colon in Chinese)."""
    return _in(W["sep"], lang)


def names(slug: str) -> dict[str, str]:
    """A term's name in every edition (``{"zh": "批大小 B", "en": "batch size (B)"}``): the glossary is bilingual."""
    t = BY_SLUG[slug]
    return {lang: _in(t.term, lang) for lang in LANGS}
