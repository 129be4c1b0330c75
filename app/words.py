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
from functools import cache
from pathlib import Path
from typing import Any

LANGS = ("zh", "en")
DEFAULT_LANG = "zh"


class Text(str):
    """A string from a words catalogue: the Chinese text, plus how to say it in another edition."""

    catalogue: Catalogue
    key: str
    args: dict[str, Any]

    def __new__(cls, text: str, catalogue: Catalogue, key: str, args: dict[str, Any] | None = None) -> Text:
        t = super().__new__(cls, text)
        t.catalogue, t.key, t.args = catalogue, key, args or {}
        return t

    def __reduce__(self) -> tuple[Any, ...]:
        return (str, (str(self),))

    def localized(self, lang: str) -> str:
        """The same words in ``lang`` (the Chinese where that edition has no such key)."""
        if lang == DEFAULT_LANG:
            return str(self)
        template = self.catalogue.table(lang).get(self.key)
        if template is None:
            return str(self)
        args = {k: v.localized(lang) if isinstance(v, Text) else v for k, v in self.args.items()}
        return template.format(**args) if args else template


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


def words_for(module: str) -> Catalogue:
    """The catalogue of ``module`` (call as ``words_for(__name__)``): the TOML files beside its source."""
    return catalogue(Path(sys.modules[module].__file__ or module).with_suffix(""))


@cache
def catalogue(stem: Path) -> Catalogue:
    return Catalogue(stem)
