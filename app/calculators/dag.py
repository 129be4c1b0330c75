"""Task dependency graphs: earliest start/finish of every step, the critical path (the longest
chain, which sets the earliest completion) and each step's slack. Times in seconds."""

from __future__ import annotations

from dataclasses import dataclass

from ..trace import name, rule, tmax
from ..words import words_for

W = words_for(__name__)


@dataclass(frozen=True)
class Schedule:
    start: dict[str, float]
    finish: dict[str, float]
    slack: dict[str, float]
    length: float  # makespan = longest path
    critical: list[str]  # nodes on one critical path, in order


@rule(W["es_v_max_ef_u.rule"])
def critical_path(durations: dict[str, float], edges: list[tuple[str, str]]) -> Schedule:
    """Longest path in a DAG: ES(v) = max over u→v of EF(u); EF = ES + d; slack = LS − ES."""
    preds: dict[str, list[str]] = {n: [] for n in durations}
    succs: dict[str, list[str]] = {n: [] for n in durations}
    for u, v in edges:
        preds[v].append(u)
        succs[u].append(v)
    order: list[str] = []
    indeg = {n: len(preds[n]) for n in durations}
    ready = [n for n in durations if indeg[n] == 0]
    while ready:
        n = ready.pop(0)
        order.append(n)
        for v in succs[n]:
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
    if len(order) != len(durations):
        raise ValueError("graph has a cycle")
    es: dict[str, float] = {}
    ef: dict[str, float] = {}
    for n in order:
        es[n] = max((ef[u] for u in preds[n]), default=0.0)
        ef[n] = es[n] + durations[n]
    length = max(ef.values(), default=0.0)
    lf: dict[str, float] = {}
    for n in reversed(order):
        lf[n] = min((lf[v] - durations[v] for v in succs[n]), default=length)
    slack = {n: lf[n] - ef[n] for n in order}
    # walk one critical chain from a zero-slack source
    eps = 1e-9
    path: list[str] = []
    cur = next((n for n in order if not preds[n] and slack[n] <= eps), None)
    while cur is not None:
        path.append(cur)
        cur = next((v for v in succs[cur] if slack[v] <= eps and abs(es[v] - ef[cur]) <= eps), None)
    return Schedule(es, ef, slack, length, path)


def model_tools_model(model1: float, tool_a: float, tool_b: float, model2: float, dependent: bool) -> Schedule:
    """Model → tools A, B → model. Dependent: A → B (serial, m1+a+b+m2); independent: A ∥ B (m1+max(a,b)+m2)."""
    d = {"model1": model1, "tool_a": tool_a, "tool_b": tool_b, "model2": model2}
    if dependent:
        e = [("model1", "tool_a"), ("tool_a", "tool_b"), ("tool_b", "model2")]
    else:
        e = [("model1", "tool_a"), ("model1", "tool_b"), ("tool_a", "model2"), ("tool_b", "model2")]
    return critical_path(d, e)


def wait_area(n_tasks: int, state: float, wait_s: float) -> float:
    """State held only while waiting for tools: n·M·wait (e.g. GiB·s)."""
    return n_tasks * state * wait_s


def tool_wait_outputs(
    model1: float, tool_a: float, tool_b: float, model2: float, parallel: bool, state: float, n_tasks: int
) -> dict:
    """图 3-11 / 练习 3-4: serial m₁+a+b+m₂, parallel m₁+max(a,b)+m₂ (the critical paths of
    :func:`model_tools_model`); state held only while waiting for tools: n·M·(a+b) or n·M·max(a,b)."""
    serial = name(model1 + tool_a + tool_b + model2, "T_{ser}", "s")
    par = name(model1 + tmax(tool_a, tool_b) + model2, "T_{par}", "s")
    wait_ser, wait_par = tool_a + tool_b, tmax(tool_a, tool_b)
    o = {
        "serial_s": serial,
        "parallel_s": par,
        "critical_path_s": par if parallel else serial,
        "saved_s": serial - par,
        "tool_work_s": tool_a + tool_b,
        "wait_s": wait_par if parallel else wait_ser,
        "gib_s_serial": wait_area(n_tasks, state, wait_ser),
        "gib_s_parallel": wait_area(n_tasks, state, wait_par),
        "peak_gib": n_tasks * state,
    }
    o["gib_s"] = o["gib_s_parallel"] if parallel else o["gib_s_serial"]
    return o
