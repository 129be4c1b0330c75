"""Rich text for prose, notes and solutions: inline ``$tex$`` becomes MathML (rendered on the
server, no script), the rest is escaped. Section prose is Markdown with the same maths."""
from __future__ import annotations

import re
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
    out, pos = [], 0
    for m in _MATH.finditer(text):
        out.append(str(escape(text[pos:m.start()])))
        if m.group(1) is not None:
            out.append(tex(m.group(1).strip(), True))
        else:
            out.append(tex(m.group(2).strip()))
        pos = m.end()
    out.append(str(escape(text[pos:])))
    return Markup("".join(out))


_md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")


def markdown(text: str) -> Markup:
    """Markdown with maths. Maths is swapped for placeholders first so Markdown leaves it alone."""
    maths: list[str] = []

    def keep(m: re.Match) -> str:
        maths.append(tex(m.group(1).strip(), True) if m.group(1) is not None else tex(m.group(2).strip()))
        return f"\ue000{len(maths) - 1}\ue001"

    html = _md.render(_MATH.sub(keep, text))
    html = re.sub("\ue000(\\d+)\ue001", lambda m: maths[int(m.group(1))], html)
    return Markup(html)
