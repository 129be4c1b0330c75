"""The book's structure: chapters, their sections in reading order, and each section's prose.

A section's prose is ``app/chapters/ch{N}/{section}.md`` (Chinese, Markdown with ``$tex$``); a line
``{{card:ID}}`` places a card. Cards registered for a section but not placed in its prose are
appended at the end, so a new card shows up even before its prose mentions it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from ..cards import REGISTRY, Card
from ..words import DEFAULT_LANG, current_lang, nested, words_for

W = words_for(__name__)

HERE = Path(__file__).resolve().parent
_MARK = re.compile(r"^\{\{card:([a-z0-9-]+)\}\}\s*$", re.M)


@dataclass(frozen=True)
class Section:
    chapter: int
    key: str  # "1.3", "1.open", "1.end"
    title: str

    @property
    def slug(self) -> str:
        return self.key.split(".", 1)[1] if self.key.endswith((".open", ".end")) else self.key

    @property
    def url(self) -> str:
        return f"/ch/{self.chapter}" if self.key.endswith(".open") else f"/ch/{self.chapter}/{self.slug}"

    @property
    def number(self) -> str:
        return "" if self.key.endswith((".open", ".end")) else self.key


@dataclass(frozen=True)
class Chapter:
    number: int
    title: str
    blurb: str
    sections: tuple[Section, ...] = field(default_factory=tuple)

    @property
    def url(self) -> str:
        return f"/ch/{self.number}"


def _ch(n: int, title: str, blurb: str, secs: list[tuple[str, str]]) -> Chapter:
    return Chapter(n, title, blurb, tuple(Section(n, k, t) for k, t in secs))


CHAPTERS: dict[int, Chapter] = {
    1: _ch(
        1,
        W["chapters.t"],
        W["chapters.t_2"],
        [
            ("1.open", W["chapters.t_3"]),
            ("1.1", W["chapters.t_4"]),
            ("1.2", W["chapters.t_5"]),
            ("1.3", W["chapters.t_6"]),
            ("1.4", W["chapters.t_7"]),
            ("1.end", W["chapters.t_8"]),
        ],
    ),
    3: _ch(
        3,
        W["chapters.t_9"],
        W["chapters.t_10"],
        [
            ("3.open", W["chapters.t_11"]),
            ("3.1", W["chapters.t_12"]),
            ("3.2", W["chapters.t_13"]),
            ("3.3", W["chapters.t_14"]),
            ("3.4", W["chapters.t_15"]),
            ("3.5", W["chapters.t_16"]),
            ("3.6", W["chapters.t_17"]),
            ("3.end", W["chapters.t_18"]),
        ],
    ),
}


def section(chapter: int, slug: str) -> Section | None:
    ch = CHAPTERS.get(chapter)
    if not ch:
        return None
    for s in ch.sections:
        if s.slug == slug or (slug in ("", "open") and s.key.endswith(".open")):
            return s
    return None


def section_of(card: Card) -> Section | None:
    ch = CHAPTERS.get(card.chapter)
    return next((s for s in ch.sections if s.key == card.section), None) if ch else None


@cache
def words(chapter_dir: str, name: str) -> dict:
    """A card-words file ``chN/<name>.toml`` (diagram content, notes, question texts: the words a
    group of cards shows, kept beside the section prose so the modules read as declarations and a
    translation touches text files only). Read once; every string is a :class:`~app.words.Text`, so an
    edition's ``<name>.en.toml`` (the same structure) says it in English."""
    return nested(HERE / chapter_dir / f"{name}.toml")


@cache
def _prose_file(sec_key: str, lang: str) -> str:
    ch = sec_key.split(".")[0]
    p = HERE / f"ch{ch}" / (f"{sec_key}.md" if lang == DEFAULT_LANG else f"{sec_key}.{lang}.md")
    return p.read_text(encoding="utf-8") if p.exists() else ""


def prose(sec_key: str) -> str:
    """A section's prose in the edition served (the Chinese where that edition has none yet)."""
    return _prose_file(sec_key, current_lang()) or _prose_file(sec_key, DEFAULT_LANG)


def layout(sec: Section) -> list[tuple[str, str]]:
    """The section in reading order: ("md", text) and ("card", id) parts."""
    text = prose(sec.key)
    parts: list[tuple[str, str]] = []
    placed: set[str] = set()
    pos = 0
    for m in _MARK.finditer(text):
        if text[pos : m.start()].strip():
            parts.append(("md", text[pos : m.start()]))
        if m.group(1) in REGISTRY:
            parts.append(("card", m.group(1)))
            placed.add(m.group(1))
        pos = m.end()
    if text[pos:].strip():
        parts.append(("md", text[pos:]))
    for cid, c in REGISTRY.items():
        if c.section == sec.key and cid not in placed:
            parts.append(("card", cid))
    return parts


def cards_in(sec: Section) -> list[str]:
    return [x for k, x in layout(sec) if k == "card"]


def reading_order() -> list[str]:
    """Every registered card in book order, then the cards of the tool pages (sections outside the chapters)."""
    out: list[str] = []
    for ch in CHAPTERS.values():
        for s in ch.sections:
            out += cards_in(s)
    return out + [cid for cid, c in REGISTRY.items() if section_of(c) is None]


def neighbours(card_id: str) -> tuple[str | None, str | None]:
    """Previous / next card of the same section in reading order."""
    c = REGISTRY[card_id]
    sec = section_of(c)
    ids = cards_in(sec) if sec else [card_id]
    i = ids.index(card_id) if card_id in ids else 0
    return (ids[i - 1] if i > 0 else None, ids[i + 1] if i + 1 < len(ids) else None)


def load_all() -> None:
    """Import every chapter package (and the tool pages) so their cards register."""
    from . import ch1, ch3, tools  # noqa: F401
