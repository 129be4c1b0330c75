"""Find a card by what a reader types: a printed label in any common form (图 3-11, fig 3-11,
Figure 3-11, 练习 1-3, 例题 3-1, 表 …), an id or alias, or words from a title."""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from .cards import REGISTRY, resolve
from .words import LANGS, Text, words_for

W = words_for(__name__)

_PREFIX = [
    (W["prefix"], "fig"),
    (W["prefix_2"], "eg"),
    (W["prefix_3"], "ex"),
    (W["prefix_4"], "tab"),
]


def normalise(q: str) -> str:
    q = unicodedata.normalize("NFKC", q).strip().lower()
    q = q.replace("–", "-").replace("—", "-").replace("‐", "-").replace("−", "-").replace("·", " ")
    return re.sub(r"\s+", " ", q)


def label_to_id(q: str) -> str | None:
    """``图 3-11`` / ``fig3-11`` / ``Figure 3.11`` → ``fig-3-11`` (resolved through aliases)."""
    s = normalise(q).replace(" ", "")
    if resolve(s):
        return resolve(s)
    for pat, pre in _PREFIX:
        m = re.match(pat, s)
        if m:
            rest = s[m.end() :].lstrip("-_:")
            n = re.match(r"^(\d+)[-.](\d+)", rest)
            if n:
                return resolve(f"{pre}-{n.group(1)}-{n.group(2)}")
    return None


@cache
def _haystack(cid: str) -> str:
    """What a search looks in: a card's id, aliases, and its label, title and lead in every edition."""
    c = REGISTRY[cid]
    texts = [c.label, c.title, c.lead]
    words = [t.localized(lang) if isinstance(t, Text) else str(t) for t in texts for lang in LANGS]
    return normalise(f"{cid} {' '.join(c.aliases)} {' '.join(words)}")


def search(q: str, limit: int = 30) -> list[str]:
    """Cards whose id, label or title contains the query (or every word of it), best first."""
    nq = normalise(q)
    if not nq:
        return []
    words = nq.split(" ")
    kind = None
    for pat, pre in _PREFIX:
        if re.fullmatch(pat, nq.replace(" ", "")):
            kind = pre
    scored = []
    for cid, c in REGISTRY.items():
        hay = _haystack(cid)
        if kind:
            if cid.startswith(kind + "-") or (kind == "tab" and (W["search"] in c.label or c.kind == "table")):
                scored.append((0, cid))
            continue
        if nq in hay:
            scored.append((0 if nq in normalise(c.title) or nq in normalise(c.label) else 1, cid))
        elif all(w in hay for w in words):
            scored.append((2, cid))
    from .chapters import reading_order

    order = {c: i for i, c in enumerate(reading_order())}
    scored.sort(key=lambda t: (t[0], order.get(t[1], 1e9)))
    return [c for _, c in scored[:limit]]
