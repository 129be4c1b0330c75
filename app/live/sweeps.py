"""The class sweeps a design space (issue 27), the pure part: which values a card's control allows
(its own choices, or its slider's grid ``min + k·step``), the points of a sweep (every combination
of the varied values, the rest of the state as the instructor had it), the frontier of the points
under two stated directions, which point a participant owns, and the grading of a prediction
(the exercises' rule). Nothing here touches the store or a request."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode

from .. import exercises
from ..cards import Card, ControlSpec, controls_of
from ..charts.theme import log_ticks
from ..format import round_sig
from ..state import wire
from ..words import words_for

W = words_for(__name__)

Better = Literal["lower", "higher"]
GRID_EPS = 1e-9  # a value within this many steps of a grid point is on it (0.1 + 0.2 is 0.3)


class SweepError(ValueError):
    """A sweep the card cannot run: ``field`` names what is wrong (the 422's field)."""

    def __init__(self, field: str, msg: str, kind: str = "value_error"):
        super().__init__(msg)
        self.field, self.msg, self.kind = field, msg, kind


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def variable(spec: ControlSpec) -> bool:
    """A control a sweep can vary: a select, a toggle or a slider with more than one value (never a
    list, never a 题设 value)."""
    return spec.control in ("select", "toggle") or (spec.control == "slider" and not spec.fixed)


def allowed_value(spec: ControlSpec, v: Any) -> Any:
    """``v`` as the control's own value (a select's option, a toggle's bool, a slider's grid point),
    or None when the control does not offer it."""
    if spec.control == "select":
        for opt in spec.options or {}:
            if isinstance(v, bool) or isinstance(opt, bool):
                continue
            if str(opt) == str(v) or (_is_number(opt) and _is_number(v) and float(opt) == float(v)):
                return opt
        return None
    if spec.control == "toggle":
        if isinstance(v, bool):
            return v
        return {"true": True, "false": False}.get(str(v).lower())
    if spec.control != "slider" or spec.fixed or isinstance(v, bool):
        return None
    return _on_grid(spec, v)


def _on_grid(spec: ControlSpec, v: Any) -> Any:
    """A slider's value at its grid point ``min + k·step`` within its range, or None."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    if not math.isfinite(x):
        return None
    lo = spec.ge if spec.ge is not None else -math.inf
    hi = spec.le if spec.le is not None else math.inf
    if not lo - GRID_EPS * abs(lo or 1) <= x <= hi + GRID_EPS * abs(hi or 1):
        return None
    if spec.step and spec.ge is not None:
        k = (x - spec.ge) / spec.step
        if abs(k - round(k)) > 1e-6:
            return None
        x = round_sig(spec.ge + round(k) * spec.step, 12)  # 0.1 + 3 × 0.1 prints as 0.4
    if spec.is_int:
        return int(round(x)) if abs(x - round(x)) < 1e-9 else None
    return x


def grid(spec: ControlSpec, limit: int) -> list[Any]:
    """Every value the control offers, up to ``limit`` of them (the UI's list to pick from)."""
    if spec.control == "select":
        return list(spec.options or {})[:limit]
    if spec.control == "toggle":
        return [False, True]
    if spec.control != "slider" or spec.ge is None or spec.le is None or not spec.step:
        return []
    n = int(math.floor((spec.le - spec.ge) / spec.step + 1e-9)) + 1
    return [allowed_value(spec, spec.ge + k * spec.step) for k in range(min(n, limit))]


@dataclass(frozen=True)
class Plan:
    """The varied parameters in the card's order and their values in the order given."""

    vary: dict[str, list[Any]]

    @property
    def size(self) -> int:
        return math.prod(len(v) for v in self.vary.values())

    def combos(self) -> list[dict[str, Any]]:
        names = list(self.vary)
        return [dict(zip(names, combo)) for combo in itertools.product(*self.vary.values())]


def plan(card: Card, vary: Mapping[str, Sequence[Any]], max_params: int, max_points: int) -> Plan:
    """The sweep's plan, or SweepError naming the unknown parameter or value (field ``vary.<name>``)."""
    specs = {s.name: s for s in controls_of(card.params)}
    if not vary:
        raise SweepError("vary", W["plan.sweeperror"], "too_short")
    if len(vary) > max_params:
        raise SweepError("vary", W.f("plan.sweeperror_2", max_params=max_params), "too_long")
    out: dict[str, list[Any]] = {}
    for name, values in vary.items():
        spec = specs.get(name)
        if spec is None or not variable(spec):
            raise SweepError(f"vary.{name}"[:80], W.f("plan.sweeperror_3", v=name[:40]), "unknown_param")
        if not values:
            raise SweepError(f"vary.{name}", W["plan.sweeperror_4"], "too_short")
        seen: list[Any] = []
        for v in values:
            got = allowed_value(spec, v)
            if got is None:
                raise SweepError(
                    f"vary.{name}", W.f("plan.sweeperror_5", v=str(v)[:24], range=_range(spec)), "unknown_value"
                )
            if got not in seen:
                seen.append(got)
        out[name] = seen
        if math.prod(len(v) for v in out.values()) > max_points:
            raise SweepError("vary", W.f("plan.sweeperror_6", max_points=max_points), "too_many")
    return Plan(out)


def _range(spec: ControlSpec) -> str:
    if spec.control == "select":
        return W["range"] + W["range_2"].join(str(k) for k in (spec.options or {}))[:200]
    if spec.control == "slider" and spec.ge is not None and spec.le is not None:
        step = W.f("range_3", step=spec.step) if spec.step else ""
        return W.f("range_4", ge=spec.ge, le=spec.le, step=step)
    return ""


def point_query(base: str, combo: dict[str, Any]) -> str:
    """The instructor's query with the varied parameters set to ``combo``."""
    pairs = [(k, v) for k, v in parse_qsl(base, keep_blank_values=True) if k not in combo]
    return urlencode(pairs + [(k, wire(v)) for k, v in combo.items()])


def dominates(q: tuple[float, float], p: tuple[float, float], x_better: Better, y_better: Better) -> bool:
    """``q`` is at least as good as ``p`` in both outputs and strictly better in one."""
    sx = 1 if x_better == "higher" else -1
    sy = 1 if y_better == "higher" else -1
    ge_x, ge_y = sx * q[0] >= sx * p[0], sy * q[1] >= sy * p[1]
    gt_x, gt_y = sx * q[0] > sx * p[0], sy * q[1] > sy * p[1]
    return ge_x and ge_y and (gt_x or gt_y)


def frontier(points: Sequence[tuple[float | None, float | None]], x_better: Better, y_better: Better) -> list[bool]:
    """For each point: True when no other point dominates it (the Pareto frontier). A point
    without two finite values is never on it and dominates nothing. Equal points are all on it.
    Sort-and-sweep, O(n log n): by x best first (ties: y best first), a point is on the frontier
    iff its y is at least as good as the best y seen so far, and strictly better unless its x
    ties the point holding that best."""
    sx = 1 if x_better == "higher" else -1
    sy = 1 if y_better == "higher" else -1
    ok = [i for i, (x, y) in enumerate(points) if _is_number(x) and _is_number(y)]
    # in "higher is better" terms: a = sx·x, b = sy·y; q dominates p iff a_q ≥ a_p, b_q ≥ b_p, one strict
    order = sorted(ok, key=lambda i: (-sx * points[i][0], -sy * points[i][1]))  # type: ignore[operator]
    out = [False] * len(points)
    best_b = -math.inf
    best_a = math.inf
    for i in order:
        a, b = sx * points[i][0], sy * points[i][1]  # type: ignore[operator]
        # the points before i have a ≥ a_i; one of them dominates i iff it has b > b_i, or b == b_i and a > a_i
        if b > best_b or (b == best_b and a == best_a):
            out[i] = True
        if b > best_b:
            best_b, best_a = b, a
    return out


def owned(counter: int, npoints: int) -> int:
    """The point the ``counter``-th participant (0-based, in the order they first asked) owns: the
    first ``npoints`` participants get distinct points, then the points repeat."""
    return counter % npoints


def grade(value: float, truth: Any, decl) -> str:
    """A prediction against the true value at its point, by the exercises' rule (正确 within display
    rounding or 0.5 %, 接近 within 5 %, else 不对): correct / close / incorrect."""
    if not _is_number(truth) or not _is_number(value):
        return "incorrect"
    step = exercises.display_step(decl, float(truth)) if decl is not None else 0.0
    return exercises.verdict_of(float(value), float(truth), step)


LOG_SPAN = 100  # values spreading over more than this factor are plotted on a log axis


def axis_scale(values: Sequence[Any]) -> dict[str, Any]:
    """How the class's scatter draws one axis: log when the positive values spread over more than
    ``LOG_SPAN``×, with the cards' own labels (decades, 2 and 5 as full values: :func:`log_ticks`)."""
    v = [float(x) for x in values if _is_number(x) and math.isfinite(x)]
    if not v or min(v) <= 0 or max(v) / min(v) <= LOG_SPAN:
        return {"log": False}
    ticks, text = log_ticks(min(v), max(v))
    return {"log": True, "tickvals": ticks, "ticktext": text}
