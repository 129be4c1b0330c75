"""Mark glossary terms in rendered HTML: the first time a term appears in a scope (a page's prose,
a card's text) it becomes a focusable span whose definition shows on hover and keyboard focus (CSS
from its ``data-def``, so the prose's own text stays the prose) and is its accessible description
(``aria-describedby`` → the page's one list of definitions, :func:`definitions_html`). Text inside
links, buttons, maths, code and headings is left alone."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

from markupsafe import Markup, escape


class TermLike(Protocol):
    """A glossary entry as marking reads it (read-only, so frozen dataclasses match)."""

    @property
    def slug(self) -> str: ...
    @property
    def term(self) -> str: ...
    @property
    def forms(self) -> tuple[str, ...]: ...
    @property
    def definition(self) -> str: ...


SKIP = {
    "a",
    "math",
    "code",
    "pre",
    "button",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "script",
    "style",
    "summary",
    "label",
    "select",
    "option",
    "textarea",
    "dt",
}
MARKED_MAX = 20_000  # marked texts kept (card texts repeat from state to state; see Marker.mark)
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*?(/?)>")


@dataclass
class Scope:
    """Where "first appearance" is counted; ``anchors`` gives each marked term an ``id`` that the
    glossary page links to (prose of a section)."""

    prefix: str
    anchors: bool = False
    seen: set[str] = field(default_factory=set)


def definitions_html(terms: Iterable[TermLike], sep: str = "\uff1a") -> Markup:
    """Every definition once, hidden: what each marked term's ``aria-describedby`` points at (``sep``
    between name and definition: the edition's colon)."""
    items = "".join(f'<span id="def-{t.slug}">{escape(t.term)}{sep}{escape(t.definition)}</span>' for t in terms)
    return Markup(f'<div class="gl-defs" hidden>{items}</div>')


class Marker:
    def __init__(self, terms: Iterable[TermLike], sep: str = "\uff1a"):
        self.sep = sep
        self.by_form: dict[str, TermLike] = {}
        for t in terms:
            for f in t.forms:
                self.by_form.setdefault(f, t)
        forms = sorted(self.by_form, key=len, reverse=True)
        self.pattern = re.compile("|".join(_form_re(f) for f in forms)) if forms else None
        # a memo that earns its place: marking a note's terms is a scan with a pattern of every glossary
        # spelling, and a card's notes are the same text at every state (without it a new 例题 1-1 state
        # took 25–40 % longer, measured in one process, the two alternating)
        self._marked = lru_cache(maxsize=MARKED_MAX)(self._mark)

    def mark(self, html: str, scope: Scope) -> Markup:
        """``html`` with the terms not yet seen in ``scope`` marked (the first time each appears)."""
        if not self.pattern or not html:
            return Markup(html)
        out, marked = self._marked(html, scope.prefix, scope.anchors, frozenset(scope.seen))
        scope.seen |= marked
        return out

    def _mark(self, html: str, prefix: str, anchors: bool, seen: frozenset[str]) -> tuple[Markup, frozenset[str]]:
        """``html`` marked in a scope that has seen ``seen`` already, and the terms it marked."""
        scope = Scope(prefix, anchors, set(seen))
        return self._scan(html, scope), frozenset(scope.seen - seen)

    def _scan(self, html: str, scope: Scope) -> Markup:
        out, pos, skip = [], 0, 0
        for m in _TAG.finditer(html):
            text = html[pos : m.start()]
            out.append(self._text(text, scope) if skip == 0 else text)
            name = m.group(2).lower()
            if name in SKIP and not m.group(3):
                skip += -1 if m.group(1) else 1
                skip = max(skip, 0)
            out.append(m.group(0))
            pos = m.end()
        tail = html[pos:]
        out.append(self._text(tail, scope) if skip == 0 else tail)
        return Markup("".join(out))

    def _text(self, text: str, scope: Scope) -> str:
        if self.pattern is None or not text.strip():
            return text

        def sub(m: re.Match) -> str:
            t = self.by_form.get(m.group(0))
            if t is None or t.slug in scope.seen:
                return m.group(0)
            scope.seen.add(t.slug)
            anchor = f' id="term-{t.slug}"' if scope.anchors else ""
            return (
                f'<span class="term" tabindex="0" data-term="{t.slug}" data-def="{escape(t.term)}{self.sep}{escape(t.definition)}"'
                f' aria-describedby="def-{t.slug}"{anchor}>{m.group(0)}</span>'
            )

        return self.pattern.sub(sub, text)


def _form_re(form: str) -> str:
    """A spelling as a pattern; Latin spellings only match as whole words."""
    esc = re.escape(form)
    if re.match(r"[A-Za-z0-9]", form[0]):
        esc = r"(?<![A-Za-z0-9_])" + esc
    if re.match(r"[A-Za-z0-9*]", form[-1]):
        esc = esc + r"(?![A-Za-z0-9_])"
    return esc
