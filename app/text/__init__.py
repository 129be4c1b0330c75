"""Rich text for prose, notes and solutions: inline ``$tex$`` becomes MathML (rendered on the
server, no script), the rest is escaped. Section prose is Markdown with the same maths."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Protocol

import latex2mathml.converter
from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from ..words import localize
from . import cond

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)


@lru_cache(maxsize=4096)
def tex(src: str, display: bool = False) -> str:
    """LaTeX → MathML string."""
    return latex2mathml.converter.convert(src, display="block" if display else "inline")


def rich(text: str) -> Markup:
    """Escape ``text`` and typeset its ``$…$`` / ``$$…$$`` spans."""
    text = localize(text)
    if "$" not in text:
        return escape(text)
    out, pos = [], 0
    for m in _MATH.finditer(text):
        out.append(str(escape(text[pos : m.start()])))
        if m.group(1) is not None:
            out.append(tex(m.group(1).strip(), True))
        else:
            out.append(tex(m.group(2).strip()))
        pos = m.end()
    out.append(str(escape(text[pos:])))
    return Markup("".join(out))


_md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")


LIVE = re.compile(r"\[\[([a-z0-9-]+)\.([a-z_][a-z0-9_]*)(?:\|([a-z0-9,]+))?\]\]")
# a marker Markdown leaves alone: a held piece of HTML (maths, a live number, a conditional)
_HELD = re.compile("\ue000(\\d+)\ue001")


class Live(Protocol):
    """What renders the prose's live parts: ``live(card, key, flags)`` is a live number's HTML (None:
    left as written); its optional ``branch(conditional)`` is the case that holds at the card's
    defaults (without one, the first case: the one that holds there)."""

    def __call__(self, card: str, key: str, flag: str, /) -> str | None: ...


def markdown(text: str, live: Live | Callable[[str, str, str], str | None] | None = None) -> Markup:
    """Markdown with maths. Maths, live numbers ``[[card.key]]`` (rendered by ``live`` into HTML) and
    conditionals ``{{if card: …}}…{{end}}`` (:mod:`app.text.cond`) are swapped for placeholders first
    so Markdown leaves them alone. A conditional reads as the case that holds, in a
    ``span.if`` the page script switches; every case's HTML travels in one JSON block after the text."""
    text = localize(text)
    held: list[str] = []
    cases: dict[str, list[str]] = {}

    def hold(html: str) -> str:
        held.append(html)
        return f"\ue000{len(held) - 1}\ue001"

    def keep(m: re.Match) -> str:
        return hold(tex(m.group(1).strip(), True) if m.group(1) is not None else tex(m.group(2).strip()))

    def keep_live(m: re.Match) -> str:
        html = live(m.group(1), m.group(2), m.group(3) or "") if live else None
        return m.group(0) if html is None else hold(html)

    def restore(html: str) -> str:
        while "\ue000" in html:  # a case's HTML holds live numbers and maths of its own
            html = _HELD.sub(lambda m: held[int(m.group(1))], html)
        return html

    def keep_if(m: re.Match) -> str:
        c = cond.parse(m)
        branch = getattr(live, "branch", None)
        k = branch(c) if branch is not None else 0
        html = [restore(_md.renderInline(LIVE.sub(keep_live, _MATH.sub(keep, t)))) for t in c.texts]
        cases[c.id] = html
        shown = html[k] if k >= 0 else ""
        return hold(f'<span class="if" data-card="{c.card}" data-if="{c.id}" data-case="{k}">{shown}</span>')

    html = restore(_md.render(LIVE.sub(keep_live, _MATH.sub(keep, cond.IF.sub(keep_if, text)))))
    if cases:
        html += f'<script type="application/json" class="prose-if">{_json(cases)}</script>\n'
    return Markup(html)


def _json(obj: object) -> str:
    """JSON safe inside ``<script type="application/json">`` (``<``, ``>``, ``&`` escaped)."""
    s = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
