"""What every parser shares: numbers as printed (thousands separators, units), the result shape, the errors."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

Value = float | int | str

# a number as engines print it: 2,042,016 · 14.9888 · 1e-3 (never a sign: none of the figures is negative)
NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?"
UNIT = r"(?:TiB|GiB|MiB|KiB|TB|GB|MB|KB|B)"
BYTES = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
BYTES_LOWER = {k.lower(): v for k, v in BYTES.items()}
FLAGS = re.I | re.M
MAX_FIGURE = 1e15  # no figure a serving log prints is larger (1 PB, 11.6 days in ns): beyond it, not a figure


class LogError(ValueError):
    """A paste that cannot be read: ``kind`` is ``not_text``, ``truncated`` or ``nothing``."""

    def __init__(self, kind: str, detail: str = ""):
        super().__init__(kind)
        self.kind, self.detail = kind, detail


@dataclass(frozen=True)
class Found:
    """One format's fields (base units) and, for a table, its rows."""

    format: str
    fields: dict[str, Value]
    rows: tuple[dict[str, Value], ...] = field(default_factory=tuple)


def number(s: str) -> float:
    """``2,042,016`` → 2042016.0; the thousands separators engines print (vLLM ≥ 0.7.3) are dropped."""
    x = float(s.replace(",", ""))
    if not math.isfinite(x) or x > MAX_FIGURE:
        raise ValueError(s[:32])
    return x


def whole(s: str) -> int:
    return int(number(s))


def to_bytes(value: str, unit: str, gb_is_gib: bool = False) -> float:
    """``value`` ``unit`` in bytes; ``gb_is_gib``: the engine divides by 2**30 but prints "GB" (old vLLM's
    weights line, SGLang's KV sizes), so its GB is a GiB."""
    u = unit.lower()
    if gb_is_gib and u == "gb":
        u = "gib"
    return number(value) * BYTES_LOWER[u]


def first(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    return pattern.search(text)


def check_text(text: str) -> None:
    """Binary bytes are not a log: a NUL, or more than 1 % control characters (other than tab, CR, LF), or
    more than 1 % replacement characters (bytes that were not UTF-8) say so."""
    if "\x00" in text:
        raise LogError("not_text", "NUL")
    sample = text[:200_000]
    if not sample:
        raise LogError("nothing")
    bad = sum(1 for c in sample if (ord(c) < 32 and c not in "\t\r\n") or c == "\ufffd" or 0x7F <= ord(c) < 0xA0)
    if bad > 0.01 * len(sample):
        raise LogError("not_text", f"{bad}")
