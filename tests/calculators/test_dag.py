"""Critical path and tool-wait state area (图 3-11 / 3-12, 练习 3-4)."""

from app.calculators import dag


def test_exercise_3_4_serial_and_parallel():
    ser = dag.model_tools_model(2, 6, 10, 3, dependent=True)
    par = dag.model_tools_model(2, 6, 10, 3, dependent=False)
    assert ser.length == 21
    assert par.length == 15
    assert ser.critical == ["model1", "tool_a", "tool_b", "model2"]
    assert par.critical == ["model1", "tool_b", "model2"]
    assert par.slack["tool_a"] == 4 and par.slack["tool_b"] == 0
    assert par.start["model2"] == 12


def test_state_area_only_while_waiting():
    assert dag.wait_area(1, 1, 6 + 10) == 16
    assert dag.wait_area(1, 1, max(6, 10)) == 10
    assert dag.wait_area(3, 1, 10) == 30  # tasks waiting at once add up


def test_ten_second_compile():
    assert dag.model_tools_model(2, 10, 10, 3, dependent=True).length == 25
    assert dag.model_tools_model(2, 10, 10, 3, dependent=False).length == 15


def test_critical_path_moves_to_the_longer_tool():
    par = dag.model_tools_model(2, 12, 10, 3, dependent=False)
    assert par.length == 17 and par.critical == ["model1", "tool_a", "model2"]


def test_general_dag_and_cycle():
    s = dag.critical_path({"a": 1, "b": 2, "c": 3, "d": 1}, [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])
    assert s.length == 5 and s.critical == ["a", "c", "d"]
    import pytest

    with pytest.raises(ValueError):
        dag.critical_path({"a": 1, "b": 1}, [("a", "b"), ("b", "a")])


def test_tool_wait_outputs_match_the_critical_path():
    for a, b in ((6, 10), (12, 10), (0, 3)):
        for parallel in (True, False):
            o = dag.tool_wait_outputs(2, a, b, 3, parallel, 1, 2)
            ser, par = dag.model_tools_model(2, a, b, 3, True), dag.model_tools_model(2, a, b, 3, False)
            assert o["serial_s"] == ser.length and o["parallel_s"] == par.length
            assert o["critical_path_s"] == (par.length if parallel else ser.length)
            assert o["saved_s"] == ser.length - par.length and o["tool_work_s"] == a + b
            assert o["gib_s_serial"] == 2 * (a + b) and o["gib_s_parallel"] == 2 * max(a, b) and o["peak_gib"] == 2
            assert o["gib_s"] == (o["gib_s_parallel"] if parallel else o["gib_s_serial"])
            assert o["wait_s"] == (max(a, b) if parallel else a + b)
