"""Latency orders of magnitude: the 2009 "Numbers Everyone Should Know" table, ratios between two
operations, and serial waits that add up (n · t_each + t_compute). Pure: the table's rows are passed
in by the card (they live in data/latency_numbers_2009.json)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..trace import tmax, tmin


@dataclass(frozen=True)
class Op:
    id: str
    label: str  # the slide's English wording
    zh: str  # Chinese label
    ns: float  # latency in nanoseconds
    category: str  # compute | sync | storage | network

    @property
    def seconds(self) -> float:
        return self.ns * 1e-9


def numbers_2009(rows: Iterable[Mapping]) -> tuple[Op, ...]:
    """The LADIS 2009 slide's rows (id, label, zh, ns, category), in the order given."""
    return tuple(Op(**r) for r in rows)


def op(ops: Sequence[Op], op_id: str) -> Op:
    """The row ``op_id`` of a table."""
    return next(o for o in ops if o.id == op_id)


def ratio(a: float, b: float) -> float:
    """How many times longer the slower of two durations is: max(a, b) / min(a, b)."""
    return tmax(a, b) / tmin(a, b)


@dataclass(frozen=True)
class SerialWait:
    wait: float  # s, n · t_each
    compute: float  # s
    total: float  # s

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
