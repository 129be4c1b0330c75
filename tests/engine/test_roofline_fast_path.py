"""图 1-11 at tp = 1: its bounds are straight lines on log–log axes, so a batch change moves the
current-B marker alone (the browser's fast path redraws one trace) and the marker still sits on the
drawn 下界 max line; 图 1-12 (linear y) keeps a point at the current B so its marker sits on its curve."""

from __future__ import annotations

import math

from app.cards import REGISTRY, run
from app.state import parse_query

CARD = REGISTRY["eg-1-1"]


def _figures(**q):
    return run(CARD, parse_query(CARD, [(k, str(v)) for k, v in q.items()])).figures


def _on_polyline(xs, ys, x, y, log_y: bool) -> bool:
    """(x, y) lies on the polyline drawn through (xs, ys), straight between points on a log x axis."""
    for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
        if x0 <= x <= x1:
            u = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
            at = math.exp(math.log(y0) + u * (math.log(y1) - math.log(y0))) if log_y else y0 + u * (y1 - y0)
            return math.isclose(at, y, rel_tol=1e-3)
    return False


def test_a_batch_change_moves_only_the_marker_of_figure_1_11():
    a, b = _figures(batch=37)[0].fig, _figures(batch=301)[0].fig
    assert a["layout"] == b["layout"]
    assert a["data"][:3] == b["data"][:3]  # read, compute, max: unchanged
    assert a["data"][3] != b["data"][3]  # the marker moved


def test_the_markers_sit_on_their_curves():
    for batch in (3, 37, 150, 301, 500):
        bounds, thr = (f.fig for f in _figures(batch=batch))
        top, mark = bounds["data"][2], bounds["data"][3]
        assert _on_polyline(top["x"], top["y"], mark["x"][0], mark["y"][0], log_y=True), batch
        curve, mark = thr["data"][0], thr["data"][1]
        assert float(batch) in curve["x"]  # linear y: the curve has a point at the current B
        assert _on_polyline(curve["x"], curve["y"], mark["x"][0], mark["y"][0], log_y=False), batch
