"""Book values per card, asserted through the JSON API (tests/web/test_book_values.py).

Each chapter/section module defines ``CHECKS``: a list of ``check(card, params, expect, rel_tol,
source, where)``. ``source="book"`` = printed in the seed; ``"derived"`` = follows from the catalog's
formulas at another setting. Numbers compare with ``rel_tol``; strings and booleans exactly.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Check:
    card: str
    params: dict[str, Any]
    expect: dict[str, Any]
    rel_tol: float = 0.005
    source: str = "book"
    where: str = ""
    abs_tol: float = 0.0

    @property
    def id(self) -> str:
        p = ",".join(f"{k}={v}" for k, v in self.params.items())
        return f"{self.card}[{p}]" + (f"({self.where})" if self.where else "")


def check(
    card: str,
    params: dict | None = None,
    expect: dict | None = None,
    rel_tol: float = 0.005,
    source: str = "book",
    where: str = "",
    abs_tol: float = 0.0,
) -> Check:
    return Check(card, params or {}, expect or {}, rel_tol, source, where, abs_tol)


def all_checks() -> list[Check]:
    out: list[Check] = []
    for m in pkgutil.iter_modules(__path__):
        mod = importlib.import_module(f"{__name__}.{m.name}")
        out += list(getattr(mod, "CHECKS", []))
    return out
