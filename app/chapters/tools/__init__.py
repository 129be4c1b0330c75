"""Tool pages (outside the chapters, section ``"tools"``): each on its own page /tools/{slug} with an
intro in ``{slug}.md`` beside its module. Every module in this package defines cards; importing the
package registers them all (modules are discovered, so a new tool's cards need no edit here)."""

import importlib
import pkgutil
from functools import cache
from pathlib import Path

from ...words import DEFAULT_LANG, current_lang

TOOLS: dict[str, str] = {"fit": "fit-planner"}  # page slug → its card


def tool_intro(slug: str) -> str:
    """The intro prose of tool page ``slug`` (Markdown with ``$tex$``) in the edition served:
    ``{slug}.en.md`` for English where it exists, else the Chinese ``{slug}.md``."""
    lang = current_lang()
    return (_intro(slug, lang) if lang != DEFAULT_LANG else "") or _intro(slug, DEFAULT_LANG)


@cache
def _intro(slug: str, lang: str) -> str:
    p = Path(__file__).resolve().parent / (f"{slug}.md" if lang == DEFAULT_LANG else f"{slug}.{lang}.md")
    return p.read_text(encoding="utf-8") if p.exists() else ""


for _m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    importlib.import_module(f"{__name__}.{_m.name}")
