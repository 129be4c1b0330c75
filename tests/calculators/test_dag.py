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
    assert dag.wait_area(3, 1, 10) == 30          # tasks waiting at once add up


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
