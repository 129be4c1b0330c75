"""Reader-facing words, kept out of the code: every module that shows words has a catalogue beside it,
``<module>.zh.toml`` (one flat table, ``"key" = "text"``), and reaches its words by key:
``W = words_for(__name__)``, then ``W["fig_1_6.title"]`` or, for a sentence with values in it,
``W.f("fig_1_6.caption", name=a.zh)`` (``str.format`` fields, format specs as in an f-string).

A word is a :class:`Text`: a ``str`` holding the Chinese (the edition at the root), which also knows
its catalogue, key and arguments, so that another edition can look up the same key in its own file
(``<module>.en.toml``) and format it with the same values. Python holds structure and keys only; an
author changes a sentence in the TOML file, a translator writes a second file with the same keys.
Why TOML and not gettext: the words are keyed by their place (a card's title, a note, a chart's
axis), not by their Chinese text, numbers are ``[[slots]]`` filled by the cards' formatters rather
than printf fields, TOML reads and diffs as plain text with no compile step, and completeness is a
comparison of key sets (see ``docs/words.md``)."""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any

LANGS = ("zh", "en")
DEFAULT_LANG = "zh"
HTML_LANG = {"zh": "zh-CN", "en": "en"}
LANG: ContextVar[str] = ContextVar("lang", default=DEFAULT_LANG)  # the edition of the request being served


def prefixed(path: str, lang: str) -> str:
    """``path`` in edition ``lang``'s folder (``/ch/1`` → ``/en/ch/1``; Chinese stays at the root)."""
    return path if lang == DEFAULT_LANG else f"/{lang}{path}"


HERE: ContextVar[tuple[str, str]] = ContextVar("here", default=("/", ""))  # the page's path (no prefix) and query


def editions() -> list[dict[str, str]]:
    """Every edition of the page being served: its language, ``hreflang`` and address (the same
    path and query in that edition's folder), the one being read marked ``current``."""
    path, query = HERE.get()
    now = LANG.get()
    return [
        {
            "lang": lang,
            "hreflang": HTML_LANG[lang],
            "href": prefixed(path, lang) + (f"?{query}" if query else ""),
            "current": "1" if lang == now else "",
            "name": NAMES[lang],
        }
        for lang in LANGS
    ]


NAMES = {"zh": "中文", "en": "English"}  # each language by its own name


def current_lang() -> str:
    return LANG.get()


@contextmanager
def speaking(lang: str) -> Iterator[None]:
    """Render in ``lang`` within the block (a request under ``/en/``, an API call with ``lang=en``)."""
    token = LANG.set(lang)
    try:
        yield
    finally:
        LANG.reset(token)


def localize(value: Any) -> Any:
    """``value`` in the edition being served: a :class:`Text` in that language, anything else as it is."""
    if isinstance(value, Text):
        lang = LANG.get()
        return value if lang == DEFAULT_LANG else value.localized(lang)
    return value


def localize_deep(value: Any) -> Any:
    """Every :class:`Text` inside lists, tuples and dicts (a figure, a JSON body) in the edition served."""
    if LANG.get() == DEFAULT_LANG:
        return value
    if isinstance(value, str):
        return localize(value)
    if isinstance(value, dict):
        return {localize(k) if isinstance(k, Text) else k: localize_deep(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return (
            type(value)(localize_deep(v) for v in value)
            if isinstance(value, list)
            else tuple(localize_deep(v) for v in value)
        )
    return value


class Text(str):
    """A string from a words catalogue: the Chinese text, plus how to say it in another edition."""

    catalogue: Catalogue
    key: str
    args: dict[str, Any]

    def __new__(cls, text: str, catalogue: Catalogue, key: str, args: dict[str, Any] | None = None) -> Text:
        t = super().__new__(cls, text)
        t.catalogue, t.key, t.args = catalogue, key, args or {}
        return t

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (a store, another process): the Chinese text
        return (str, (str(self),))

    def __copy__(self) -> Text:  # words are immutable: a copy (dataclasses.asdict, a deep copy) is the same words
        return self

    def __deepcopy__(self, memo: dict) -> Text:
        return self

    # Words glued to other words stay words: ``W["a"] + ":" + W["b"]``, ``W["sep"].join(…)``,
    # ``W["t"].replace("{LAW}", x)`` and ``W["t"].format(n=…)`` render in the edition served, each part
    # in its own language (an f-string cannot be intercepted: use ``W.f`` there).
    def __add__(self, other: str) -> Text:  # type: ignore[override]
        return Composite((self, other)) if _plain_text(other) else NotImplemented

    def __radd__(self, other: str) -> Text:
        return Composite((other, self)) if _plain_text(other) else NotImplemented

    def join(self, parts: Any) -> str:  # type: ignore[override]
        parts = list(parts)
        if not parts:
            return ""
        out: list[Any] = [parts[0]]
        for x in parts[1:]:
            out += [self, x]
        return Composite(tuple(out))

    def replace(self, old: str, new: str, count: int = -1) -> str:  # type: ignore[override]
        return Derived(
            str.replace(self, old, new, count),
            lambda lang: self.localized(lang).replace(old, in_edition(new, lang), count),
        )

    def format(self, *args: Any, **kw: Any) -> str:  # type: ignore[override]
        def say(lang: str) -> str:
            return self.localized(lang).format(
                *(in_edition(a, lang) for a in args), **{k: in_edition(v, lang) for k, v in kw.items()}
            )

        return Derived(str.format(self, *args, **kw), say)

    def localized(self, lang: str) -> str:
        """The same words in ``lang`` (the Chinese where that edition has no such key)."""
        if lang == DEFAULT_LANG:
            return str(self)
        template = self.catalogue.table(lang).get(self.key)
        if template is None:
            return str(self)
        args = {k: v.localized(lang) if isinstance(v, Text) else v for k, v in self.args.items()}
        return template.format(**args) if args else template


def said(text: str, editions: dict[str, str] | None) -> str:
    """A data file's words (``text`` is the Chinese) with their other editions beside them
    (``{"en": "…"}``): rendered in the edition served like a catalogue's words."""
    if not editions:
        return text
    return Derived(text, lambda lang: editions.get(lang, text))


def joined(sep: str, parts: Any) -> str:
    """``sep.join(parts)`` that keeps any words among the parts as words (each said in the edition served)."""
    parts = list(parts)
    out: list[Any] = []
    for i, x in enumerate(parts):
        out += [sep, x] if i else [x]
    return Composite(tuple(out)) if any(isinstance(x, Text) for x in parts) else sep.join(parts)


def _plain_text(x: Any) -> bool:
    """A str that is text, not markup (Markup + Text stays Markup's business: it escapes the words)."""
    return isinstance(x, str) and not hasattr(x, "__html__")


def in_edition(value: Any, lang: str) -> Any:
    return value.localized(lang) if isinstance(value, Text) else value


class Composite(Text):
    """Words and text glued together: each part says itself in the edition asked."""

    def __new__(cls, parts: tuple[Any, ...]) -> Composite:
        flat: list[Any] = []
        for x in parts:
            flat += list(x.parts) if isinstance(x, Composite) else [x]
        t = str.__new__(cls, "".join(str(x) for x in flat))
        t.parts, t.catalogue, t.key, t.args = tuple(flat), None, "", {}  # type: ignore[assignment]
        return t

    parts: tuple[Any, ...]

    def localized(self, lang: str) -> str:
        return str(self) if lang == DEFAULT_LANG else "".join(str(in_edition(x, lang)) for x in self.parts)


class Derived(Text):
    """Words changed by a str method (replace, format): the same change made to the words of the edition asked."""

    def __new__(cls, text: str, say: Any) -> Derived:
        t = str.__new__(cls, text)
        t.say, t.catalogue, t.key, t.args = say, None, "", {}  # type: ignore[assignment]
        return t

    say: Any

    def localized(self, lang: str) -> str:
        return str(self) if lang == DEFAULT_LANG else self.say(lang)


class Catalogue:
    """The words of one module: ``<module file>.<lang>.toml`` beside it, read once per language."""

    def __init__(self, stem: Path) -> None:
        self.stem = stem

    def path(self, lang: str) -> Path:
        return self.stem.with_name(f"{self.stem.name}.{lang}.toml")

    @cache  # noqa: B019 — a catalogue lives as long as its module
    def table(self, lang: str) -> dict[str, str]:
        p = self.path(lang)
        return tomllib.loads(p.read_text(encoding="utf-8")) if p.exists() else {}

    # typed as str: a Text goes wherever words go (dict[str, str] and the like)
    def __getitem__(self, key: str) -> str:
        return Text(self.table(DEFAULT_LANG)[key], self, key)

    def f(self, key: str, **args: Any) -> str:
        """The words at ``key`` with ``args`` formatted into their ``{fields}``."""
        return Text(self.table(DEFAULT_LANG)[key].format(**args), self, key, args)

    def keys(self) -> set[str]:
        return set(self.table(DEFAULT_LANG))


class Nested(Catalogue):
    """A structured words file (``content.toml``: tables, arrays of tables) and its editions
    (``content.en.toml``, the same structure); a string is found by its path, ``fallacies.0.claim``."""

    def path(self, lang: str) -> Path:
        name = self.stem.name
        return self.stem.with_name(f"{name}.toml" if lang == DEFAULT_LANG else f"{name}.{lang}.toml")

    @cache  # noqa: B019 — a catalogue lives as long as its module
    def table(self, lang: str) -> dict[str, str]:
        p = self.path(lang)
        return flatten(tomllib.loads(p.read_text(encoding="utf-8"))) if p.exists() else {}

    def data(self) -> Any:
        """The Chinese file's structure, every string a :class:`Text` that knows its path."""
        return self._wrap(tomllib.loads(self.path(DEFAULT_LANG).read_text(encoding="utf-8")), "")

    def _wrap(self, v: Any, at: str) -> Any:
        if isinstance(v, str):
            return Text(v, self, at)
        if isinstance(v, dict):
            return {k: self._wrap(x, f"{at}.{k}" if at else k) for k, x in v.items()}
        if isinstance(v, list):
            return [self._wrap(x, f"{at}.{i}") for i, x in enumerate(v)]
        return v


def flatten(data: Any, prefix: str = "") -> dict[str, Any]:
    """``{"a": [{"b": "x"}]}`` → ``{"a.0.b": "x"}``: a structured file's strings by path."""
    out: dict[str, Any] = {}
    if isinstance(data, dict):
        for k, v in data.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.update(flatten(v, f"{prefix}.{i}"))
    else:
        out[prefix] = data
    return out


def nested(path: Path) -> Any:
    """A structured words file (``…/content.toml``) as data whose strings are :class:`Text`."""
    return Nested(path.with_suffix("")).data()


def words_for(module: str) -> Catalogue:
    """The catalogue of ``module`` (call as ``words_for(__name__)``): the TOML files beside its source."""
    return catalogue(Path(sys.modules[module].__file__ or module).with_suffix(""))


@cache
def catalogue(stem: Path) -> Catalogue:
    return Catalogue(stem)
