"""amdahl.part_outputs (例题 3-2, 练习 3-4) and the agent trace's arithmetic (3.2.3)."""

import pytest
from app.calculators import agent, amdahl


def test_part_outputs_first_round_and_tools():
    o = amdahl.part_outputs(76.51, 36.37, 2)
    assert o["part_pct"] == pytest.approx(47.54, abs=0.01) and o["rest_s"] == pytest.approx(40.14)
    assert o["new_total_s"] == pytest.approx(40.14 + 18.185) and o["saved_s"] == pytest.approx(18.185)
    assert o["saved_pct"] == pytest.approx(23.77, abs=0.01) and o["overall_speedup"] == pytest.approx(76.51 / 58.325)
    assert o["cap_speedup"] == pytest.approx(76.51 / 40.14)
    tools = amdahl.part_outputs(76.51, 0.078, 2)
    assert tools["new_total_s"] == pytest.approx(76.471) and tools["saved_pct"] == pytest.approx(0.051, abs=0.001)


def test_trace_outputs_and_spans():
    rounds = [(36.37, 0.0, 0.040), (19.50, 0.004, 0.035), (13.20, 0.074, 0.033), (7.224, 0.0, 0.030)]
    o = agent.trace_outputs(76.510, 76.294, 0.078, rounds)
    assert o["control_s"] == pytest.approx(0.138) and o["model_pct"] == pytest.approx(99.72, abs=0.01)
    assert o["round_model_s_sum"] == pytest.approx(76.294) and o["round_tool_s_sum"] == pytest.approx(0.078)
    assert o["round_control_s_sum"] == pytest.approx(o["control_s"])
    spans = agent.round_spans(rounds)
    assert len(spans) == 10 and spans[0] == (0, "model", 0.0, 36.37) and spans[-1][3] == pytest.approx(76.51)
    assert all(a[3] == pytest.approx(b[2]) for a, b in zip(spans, spans[1:]))  # end to end, no gaps


def test_thinking_outputs():
    d = {
        "off_read_file": 1,
        "off_rewrite": 5,
        "off_run_tests": 6,
        "alias_total_on": 1013,
        "alias_pass_on": 710,
        "model_time_s_off": 13.156,
        "output_tokens_off": 765,
        "model_time_s_on": 76.294,
        "output_tokens_on": 2733,
        "check_pass_off": 315,
        "check_total_off": 1013,
    }
    o = agent.thinking_outputs(d)
    assert o["off_rounds_sum"] == 12 and o["alias_fail_on"] == 303
    assert o["ms_per_output_token_off"] == pytest.approx(17.2, abs=0.05) and o[
        "ms_per_output_token_on"
    ] == pytest.approx(27.9, abs=0.05)
    assert o["check_pass_pct_off"] == pytest.approx(31.1, abs=0.05) and o["alias_pass_pct_on"] == pytest.approx(
        70.1, abs=0.05
    )
