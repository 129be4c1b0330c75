"""Latency orders of magnitude: the 2009 "Numbers Everyone Should Know" table, ratios between two
operations, and serial waits that add up (n · t_each + t_compute)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..data import read_json


@dataclass(frozen=True)
class Op:
    id: str
    label: str        # the slide's English wording
    zh: str           # Chinese label
    ns: float         # latency in nanoseconds
    category: str     # compute | sync | storage | network

    @property
    def seconds(self) -> float:
        return self.ns * 1e-9


@lru_cache(maxsize=None)
def numbers_2009() -> tuple[Op, ...]:
    """The LADIS 2009 slide's 12 rows in slide order (data/latency_numbers_2009.json)."""
    return tuple(Op(**r) for r in read_json("latency_numbers_2009.json")["rows"])


def op(op_id: str) -> Op:
    return next(o for o in numbers_2009() if o.id == op_id)


def ratio(a: float, b: float) -> float:
    """How many times longer the slower of two durations is: max(a, b) / min(a, b)."""
    return max(a, b) / min(a, b)


@dataclass(frozen=True)
class SerialWait:
    wait: float       # s, n · t_each
    compute: float    # s
    total: float      # s

    @property
    def wait_frac(self) -> float:
        return self.wait / self.total if self.total else 0.0

    @property
    def wait_to_compute(self) -> float:
        return self.wait / self.compute


def serial_wait(n: int, each: float, compute: float) -> SerialWait:
    """Waits done one after another add up: T = n · t_each + t_compute."""
    w = n * each
    return SerialWait(w, compute, w + compute)
