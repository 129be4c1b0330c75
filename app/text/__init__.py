"""Rich text for prose, notes and solutions: inline ``$tex$`` becomes MathML (rendered on the
server, no script), the rest is escaped. Section prose is Markdown with the same maths."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

import latex2mathml.converter
from markdown_it import MarkdownIt
from markupsafe import Markup, escape

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)


@lru_cache(maxsize=4096)
def tex(src: str, display: bool = False) -> str:
    """LaTeX → MathML string."""
    return latex2mathml.converter.convert(src, display="block" if display else "inline")


def rich(text: str) -> Markup:
    """Escape ``text`` and typeset its ``$…$`` / ``$$…$$`` spans."""
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


def markdown(text: str, live: Callable[[str, str, str], str | None] | None = None) -> Markup:
    """Markdown with maths. Maths (and live numbers ``[[card.key]]``, rendered by ``live`` into
    HTML) are swapped for placeholders first so Markdown leaves them alone."""
    held: list[str] = []

    def keep(m: re.Match) -> str:
        held.append(tex(m.group(1).strip(), True) if m.group(1) is not None else tex(m.group(2).strip()))
        return f"\ue000{len(held) - 1}\ue001"

    def keep_live(m: re.Match) -> str:
        html = live(m.group(1), m.group(2), m.group(3) or "") if live else None
        if html is None:
            return m.group(0)
        held.append(html)
        return f"\ue000{len(held) - 1}\ue001"

    html = _md.render(LIVE.sub(keep_live, _MATH.sub(keep, text)))
    html = re.sub("\ue000(\\d+)\ue001", lambda m: held[int(m.group(1))], html)
    return Markup(html)
