"""Tool pages (outside the chapters, section ``"tools"``): each on its own page /tools/{slug} with an
intro in ``{slug}.md`` beside its module. Every module in this package defines cards; importing the
package registers them all (modules are discovered, so a new tool's cards need no edit here)."""

import importlib
import pkgutil
from functools import cache
from pathlib import Path

TOOLS: dict[str, str] = {"fit": "fit-planner"}  # page slug → its card


@cache
def tool_intro(slug: str) -> str:
    """The intro prose of tool page ``slug`` (Chinese, Markdown with ``$tex$``)."""
    return (Path(__file__).resolve().parent / f"{slug}.md").read_text(encoding="utf-8")


for _m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    importlib.import_module(f"{__name__}.{_m.name}")
