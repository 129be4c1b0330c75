"""Log axes label their decades, and 2 and 5 only as full values (20, 50, 200), and only when the range
spans about two decades or less (issue 26.6): never Plotly's bare minor digits (…, 100, 5, 2, 10, 5, 2, 1)."""

from __future__ import annotations

from app.charts.theme import axis, figure, layout, line, log_tick_text, log_ticks, with_log_ticks


def _inside(lo, hi):
    vals, text = log_ticks(lo, hi)
    return [t for v, t in zip(vals, text) if lo <= v <= hi]


def test_decades_only_over_many_decades():
    assert _inside(1, 1000) == ["1", "10", "100", "1,000"]
    assert _inside(0.01, 100) == ["0.01", "0.1", "1", "10", "100"]


def test_two_and_five_as_full_values_over_few_decades():
    assert _inside(5, 400) == ["5", "10", "20", "50", "100", "200"]
    assert _inside(0.3, 4) == ["0.5", "1", "2"]
    assert "2" not in _inside(8, 300)  # the 20.90 ms line sits beside "20", not a lone "2"


def test_within_one_decade_every_multiple():
    assert _inside(20, 45) == ["20", "30", "40"]


def test_very_wide_ranges_thin_out_and_use_powers():
    ticks = _inside(1e18, 1e30)
    assert ticks == ["10¹⁸", "10²⁰", "10²²", "10²⁴", "10²⁶", "10²⁸", "10³⁰"]
    assert log_tick_text(2e6) == "2×10⁶" and log_tick_text(1e-4) == "10⁻⁴" and log_tick_text(0.05) == "0.05"
    assert log_tick_text(200_000) == "200,000"


def test_ticks_run_past_both_ends_and_reject_nonsense():
    vals, _ = log_ticks(3, 70)
    assert vals[0] < 3 and vals[-1] > 70
    assert log_ticks(0, 10) == ([], []) and log_ticks(-1, 10) == ([], [])


def test_every_log_axis_of_a_figure_gets_ticks_and_the_figure_stays_untouched():
    fig = figure(
        [line([1, 10, 1000], [2, 30, 4000], "a", "read"), line([1, 2], [5, 6], "b", "compute", xaxis="x2")],
        layout(axis("B", log=True), axis("t", log=True), xaxis2=axis("x2", log=True, range_=(0, 1))),
    )
    out = with_log_ticks(fig)
    assert "tickvals" not in fig["layout"]["xaxis"]  # the shared figure is not modified
    x, y, x2 = out["layout"]["xaxis"], out["layout"]["yaxis"], out["layout"]["xaxis2"]
    assert [t for v, t in zip(x["tickvals"], x["ticktext"]) if 1 <= v <= 1000] == ["1", "10", "100", "1,000"]
    assert [t for v, t in zip(y["tickvals"], y["ticktext"]) if 2 <= v <= 4000] == ["10", "100", "1,000"]
    assert [t for v, t in zip(x2["tickvals"], x2["ticktext"]) if 1 <= v <= 10] == ["1", "2", "5", "10"]
    # an axis that names its own ticks keeps them; a linear axis gets none
    own = figure([line([1, 10], [1, 2], "a", "read")], layout(axis("B", log=True, ticks=[1, 4]), axis("y")))
    assert with_log_ticks(own) is own
