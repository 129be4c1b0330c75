"""An agent task's time (3.2.3): where the measured seconds of a coding-agent trace go (model calls,
tools, control and hand-off), and the derived rates of the thinking on/off comparison. Seconds in."""

from __future__ import annotations

from collections.abc import Sequence

from ..trace import name, tsum


def trace_outputs(total: float, model: float, tools: float, rounds: Sequence[tuple[float, float, float]]) -> dict:
    """Control = T − model − tools (the difference); shares of T; per-round columns (model, tools,
    control) summed, which must equal the measured totals."""
    return {
        "total_s": total,
        "model_s": model,
        "tools_s": tools,
        "control_s": name(total - model - tools, "T_{ctl}", "s"),
        "model_pct": 100 * model / total,
        "tools_pct": 100 * tools / total,
        "round_model_s_sum": tsum(r[0] for r in rounds),
        "round_tool_s_sum": tsum(r[1] for r in rounds),
        "round_control_s_sum": tsum(r[2] for r in rounds),
    }


def round_spans(rounds: Sequence[tuple[float, float, float]]) -> list[tuple[int, str, float, float]]:
    """The rounds laid end to end: (round index, "model" | "tools" | "control", start, end); empty parts skipped."""
    out, t = [], 0.0
    for i, parts in enumerate(rounds):
        for what, d in zip(("model", "tools", "control"), parts):
            if d:
                out.append((i, what, t, t + d))
                t += d
    return out


def thinking_outputs(d: dict) -> dict:
    """Derived rows of the thinking off/on table: 12 = read + rewrite + test rounds, alias failures,
    model ms per output token, pass rates (%)."""
    return {
        "off_rounds_sum": d["off_read_file"] + d["off_rewrite"] + d["off_run_tests"],
        "alias_fail_on": d["alias_total_on"] - d["alias_pass_on"],
        "ms_per_output_token_off": 1000 * d["model_time_s_off"] / d["output_tokens_off"],
        "ms_per_output_token_on": 1000 * d["model_time_s_on"] / d["output_tokens_on"],
        "check_pass_pct_off": 100 * d["check_pass_off"] / d["check_total_off"],
        "alias_pass_pct_on": 100 * d["alias_pass_on"] / d["alias_total_on"],
    }
