"""扫参 (issue 27): the contract of a class sweep, driven in-process on a fresh SQLite file: starting
one (201 / 422 naming the field), every phone owning a point, predictions (one each, the latest
replaces, the exercises' verdicts), the hiding until 公布, the frontier and the CSV."""

from __future__ import annotations

import csv
import io
import itertools
import json
import random

import pytest
from app import format as fmt
from app.cards import REGISTRY
from app.live import limits
from app.live.sweeps import dominates, frontier, owned
from app.state import parse_query
from bench.live_cluster import call

from .conftest import api_class, api_join, ask_at_once, start_class

BATCHES = [1, 2, 4, 8, 16, 64, 256, 512]
SWEEP = {
    "card": "eg-1-1",
    "query": "",
    "vary": {"batch": BATCHES},
    "predict": "throughput_tok_s",
    "x": "t_step_ms",
    "x_better": "lower",
    "y": "throughput_tok_s",
    "y_better": "higher",
}


def outputs(card: str, query: str) -> dict:
    from urllib.parse import parse_qsl

    c = REGISTRY[card]
    return c.compute(parse_query(c, parse_qsl(query))).outputs


def start(client, k, **over):
    return client.post(f"/api/live/{k.code}/sweeps", json={**SWEEP, **over}, headers=k.auth)


def started(client, k, **over) -> int:
    r = start(client, k, **over)
    assert r.status_code == 201, r.text
    return r.json()["sid"]


def mine(client, k, sid, cred):
    r = client.get(f"/api/live/{k.code}/sweeps/{sid}/mine", params={"participant": cred})
    assert r.status_code == 200, r.text
    return r.json()


def predict(client, k, sid, cred, value):
    return client.post(f"/api/live/{k.code}/sweeps/{sid}/predictions", json={"participant": cred, "value": value})


def field(r) -> str:
    return r.json()["detail"][0]["field"]


# ------------------------------------------------------------------ starting a sweep


def test_start_returns_sid_and_point_count(client, klass):
    r = start(client, klass)
    assert r.status_code == 201, r.text
    assert r.json()["sid"] == 1 and r.json()["points"] == len(BATCHES)
    r = start(client, klass, vary={"batch": [1, 8], "tp": [1, 2, 4]})
    assert r.status_code == 201 and r.json() == {"sid": 2, "points": 6, "seq": r.json()["seq"]}
    state = client.get(f"/api/live/{klass.code}").json()
    assert state["sweep"]["sid"] == 2 and state["sweep"]["status"] == "open"
    assert state["sweep"]["predict"] == "throughput_tok_s" and state["sweep"]["npoints"] == 6


def test_start_needs_the_token(client, klass):
    r = client.post(f"/api/live/{klass.code}/sweeps", json=SWEEP)
    assert r.status_code == 401
    r = client.post(f"/api/live/{klass.code}/sweeps", json=SWEEP, headers={"Authorization": "Bearer nope"})
    assert r.status_code == 403


@pytest.mark.parametrize(
    ("over", "name", "words"),
    [
        ({"vary": {"nope": [1]}}, "vary.nope", "nope"),
        ({"vary": {"batch": [1, 1.5]}}, "vary.batch", "1.5"),
        ({"vary": {"batch": [0]}}, "vary.batch", "0"),
        ({"vary": {"batch": [513]}}, "vary.batch", "513"),
        ({"vary": {"tp": [3]}}, "vary.tp", "3"),
        ({"vary": {"gpu": ["h100-sxm", "tpu-v9"]}}, "vary.gpu", "tpu-v9"),
        ({"vary": {"bw_eff_pct": [12]}}, "vary.bw_eff_pct", "12"),  # the grid is 10, 15, …
        ({"vary": {}}, "vary", ""),
        ({"vary": {"batch": []}}, "vary.batch", ""),
        ({"predict": "nope"}, "predict", "nope"),
        ({"x": "bound"}, "x", "bound"),  # an output that is not a number
        ({"y": "chart"}, "y", "chart"),
        ({"x_better": "smaller"}, "x_better", ""),
        ({"card": "no-such-card"}, "card", ""),
    ],
)
def test_unknown_param_value_or_output_is_422_naming_it(client, klass, over, name, words):
    r = start(client, klass, **over)
    assert r.status_code == 422, r.text
    assert field(r) == name, r.json()
    assert words in r.json()["detail"][0]["msg"]


def test_values_on_the_slider_grid_and_the_choices_are_taken(client, klass):
    sid = started(client, klass, vary={"bw_eff_pct": [10, 55, 100], "gpu": ["h100-sxm", "a100-80gb-sxm"]})
    res = client.get(f"/api/live/{klass.code}/sweeps/{sid}", headers=klass.auth).json()
    assert [p["query"] for p in res["points"]][:2] == ["bw_eff_pct=10", "gpu=a100-80gb-sxm&bw_eff_pct=10"]
    assert res["npoints"] == 6 and res["vary"] == {
        "bw_eff_pct": ["10", "55", "100"],
        "gpu": ["h100-sxm", "a100-80gb-sxm"],
    }


def test_a_sweep_keeps_the_rest_of_the_instructors_state(client, klass):
    sid = started(client, klass, query="tp=2&params_billion=8", vary={"batch": [1, 64]})
    pts = client.get(f"/api/live/{klass.code}/sweeps/{sid}", headers=klass.auth).json()["points"]
    assert [p["query"] for p in pts] == ["params_billion=8&tp=2", "params_billion=8&batch=64&tp=2"]


# ------------------------------------------------------------------ every phone owns a point


def test_the_first_n_participants_get_n_distinct_points_then_points_repeat(client, klass):
    sid = started(client, klass)
    n = len(BATCHES)
    got = [mine(client, klass, sid, klass.who(client, f"s{i}")) for i in range(n + 2)]
    assert sorted(g["point"] for g in got[:n]) == list(range(n))
    assert [g["point"] for g in got[n:]] == [0, 1]
    for g in got:
        assert g["query"] == ("" if BATCHES[g["point"]] == 1 else f"batch={BATCHES[g['point']]}")
        assert g["card"] == "eg-1-1" and g["predict"] == "throughput_tok_s"
    again = mine(client, klass, sid, klass.who(client, "s3"))
    assert again["point"] == got[3]["point"]  # the same participant keeps its point


def test_mine_needs_a_credential_of_this_class(client, klass):
    sid = started(client, klass)
    other = start_class(client)
    r = client.get(f"/api/live/{klass.code}/sweeps/{sid}/mine", params={"participant": other.who(client, "x")})
    assert r.status_code == 403 and field(r) == "participant"
    r = client.get(f"/api/live/{klass.code}/sweeps/{sid}/mine", params={"participant": "forged.credential"})
    assert r.status_code == 403
    assert client.get(f"/api/live/{klass.code}/sweeps/{sid}/mine").status_code == 403
    r = client.get(f"/api/live/{klass.code}/sweeps/9/mine", params={"participant": klass.who(client, "a")})
    assert r.status_code == 404 and field(r) == "sid"
    r = client.get(f"/api/live/{klass.code}/sweeps/0/mine", params={"participant": klass.who(client, "a")})
    assert r.status_code == 422 and field(r) == "sid"


def test_owned_spreads_then_repeats():
    assert [owned(i, 3) for i in range(7)] == [0, 1, 2, 0, 1, 2, 0]


# ------------------------------------------------------------------ predictions


def test_predictions_are_graded_by_the_exercise_rule_and_the_latest_replaces(client, klass):
    sid = started(client, klass)
    creds = [klass.who(client, f"p{i}") for i in range(3)]
    truths = []
    for c in creds:
        m = mine(client, klass, sid, c)
        truths.append(outputs("eg-1-1", m["query"])["throughput_tok_s"])
    assert predict(client, klass, sid, creds[0], truths[0] * 1.03).status_code == 200  # 接近 (within 5 %)
    assert predict(client, klass, sid, creds[0], truths[0] * 1.002).status_code == 200  # …replaced: 正确 (0.5 %)
    assert predict(client, klass, sid, creds[1], str(truths[1] * 1.03)).status_code == 200
    assert predict(client, klass, sid, creds[2], truths[2] * 2).status_code == 200
    r = client.get(f"/api/live/{klass.code}/sweeps/{sid}", headers=klass.auth).json()
    assert r["predicted"] == 3
    by_point = {p["i"]: p for p in r["points"]}
    pts = [by_point[mine(client, klass, sid, c)["point"]] for c in creds]
    assert [p["verdict"] for p in pts] == ["correct", "close", "incorrect"]
    assert pts[0]["prediction"] == pytest.approx(truths[0] * 1.002) and pts[0]["predictions"] == 1
    assert all(p["verdict"] is None and p["prediction"] is None for p in r["points"] if p not in pts)


def test_a_value_rounding_to_what_the_card_prints_is_correct(client, klass):
    sid = started(client, klass, predict="t_step_ms", vary={"batch": [512]})
    cred = klass.who(client, "r")
    truth = outputs("eg-1-1", "batch=512")["t_step_ms"]
    shown = float(fmt.num(truth, digits=1).replace(",", ""))  # 72.4 for 72.448 ms: the tile's one decimal
    assert predict(client, klass, sid, cred, shown).status_code == 200
    pt = client.get(f"/api/live/{klass.code}/sweeps/{sid}", headers=klass.auth).json()["points"][0]
    assert pt["verdict"] == "correct", (truth, shown)


def test_bad_predictions(client, klass):
    sid = started(client, klass)
    cred = klass.who(client, "b")
    for bad in ("many", "nan", "inf", 1e101, True):
        r = predict(client, klass, sid, cred, bad)
        assert r.status_code == 422 and field(r) == "value", (bad, r.text)
    r = client.post(f"/api/live/{klass.code}/sweeps/{sid}/predictions", json={"participant": "forged", "value": 1})
    assert r.status_code == 403 and field(r) == "participant"
    r = client.post(f"/api/live/{klass.code}/sweeps/{sid}/predictions", content="value=1")
    assert r.status_code == 415
    assert predict(client, klass, 7, cred, 1).status_code == 404


def test_no_prediction_after_the_reveal(client, klass):
    sid = started(client, klass)
    cred = klass.who(client, "late")
    assert predict(client, klass, sid, cred, 100).status_code == 200
    assert client.post(f"/api/live/{klass.code}/sweeps/{sid}/reveal").status_code == 401
    r = client.post(f"/api/live/{klass.code}/sweeps/{sid}/reveal", headers=klass.auth)
    assert r.status_code == 200 and r.json()["status"] == "revealed"
    r = predict(client, klass, sid, cred, 200)
    assert r.status_code == 409 and field(r) == "sid"
    assert client.get(f"/api/live/{klass.code}").json()["sweep"]["status"] == "revealed"


# ------------------------------------------------------------------ hidden until 公布


def _values(points) -> list[str]:
    """How the points' numbers could appear in a text (several precisions)."""
    out = set()
    for p in points:
        for v in (p["x"], p["y"], p["truth"]):
            out |= {repr(v), f"{v:.2f}", fmt.num(v)}
    return sorted((s for s in out if len(s) >= 4), key=len, reverse=True)


def test_followers_see_counts_only_until_the_reveal(client, klass):
    sid = started(client, klass)
    cred = klass.who(client, "f")
    predict(client, klass, sid, cred, 123)
    full = client.get(f"/api/live/{klass.code}/sweeps/{sid}", headers=klass.auth).json()
    hidden = client.get(f"/api/live/{klass.code}/sweeps/{sid}", params={"participant": cred})
    assert hidden.json() == {"sid": sid, "status": "open", "npoints": len(BATCHES), "predicted": 1}
    texts = [
        hidden.text,
        client.get(f"/api/live/{klass.code}").text,
        client.post(f"/api/live/{klass.code}/join", json={}).text,
        json.dumps(mine(client, klass, sid, cred)),
    ]
    for text in texts:
        assert '"x"' not in text and '"truth"' not in text and '"frontier"' not in text
        for shown in _values(full["points"]):
            assert shown not in text, shown
    # after 公布 everyone sees every point, and a phone its own
    client.post(f"/api/live/{klass.code}/sweeps/{sid}/reveal", headers=klass.auth)
    r = client.get(f"/api/live/{klass.code}/sweeps/{sid}", params={"participant": cred}).json()
    assert r["points"] == full["points"]
    point = mine(client, klass, sid, cred)["point"]
    assert r["mine"] == {"point": point, "value": 123, "verdict": "incorrect", "truth": full["points"][point]["truth"]}


def test_the_stage_of_the_swept_card_holds_the_predicted_output_back(client, klass):
    sid = started(client, klass)
    truth = outputs("eg-1-1", "")["throughput_tok_s"]
    for path in (f"/live/{klass.code}", f"/live/{klass.code}/control"):
        page = client.get(path).text
        stage = page[page.index('<div id="live-stage"') :]
        assert 'data-hide="throughput_tok_s"' in stage and 'name="solutions" value="off"' in stage
        assert fmt.num(truth) not in stage  # 47.9 token/s nowhere on the stage
    # a phone's point, as the stage route serves it masked
    html = client.get("/live/card/eg-1-1", params={"batch": "64", "hide": "throughput_tok_s"}).text
    shown = outputs("eg-1-1", "batch=64")["throughput_tok_s"]
    assert fmt.num(shown) not in html and f"{shown:,.0f}" not in html
    client.post(f"/api/live/{klass.code}/sweeps/{sid}/reveal", headers=klass.auth)
    assert 'data-hide=""' in client.get(f"/live/{klass.code}").text


# ------------------------------------------------------------------ the server computes, the frontier


def brute(points, xb, yb):
    return [not any(dominates(q, p, xb, yb) for j, q in enumerate(points) if j != i) for i, p in enumerate(points)]


def test_every_point_is_the_cards_own_compute_and_the_frontier_is_undominated(client, klass):
    sid = started(client, klass, vary={"batch": [1, 8, 64, 256], "tp": [1, 2, 8]})
    res = client.get(f"/api/live/{klass.code}/sweeps/{sid}", headers=klass.auth).json()
    assert res["axes"]["x"] == {"key": "t_step_ms", "label": "单步下界 T_step", "unit": "ms", "better": "lower"}
    assert res["axes"]["y"]["unit"] == "token/s" and res["unit"] == "token/s"
    for p in res["points"]:
        o = outputs("eg-1-1", p["query"])
        assert p["x"] == o["t_step_ms"] and p["y"] == o["throughput_tok_s"] and p["truth"] == o["throughput_tok_s"]
    xy = [(p["x"], p["y"]) for p in res["points"]]
    assert [p["frontier"] for p in res["points"]] == brute(xy, "lower", "higher")
    assert 0 < sum(p["frontier"] for p in res["points"]) < len(xy)


def test_a_phone_cannot_send_x_or_y(client, klass):
    sid = started(client, klass)
    cred = klass.who(client, "x")
    r = client.post(f"/api/live/{klass.code}/sweeps/{sid}/predictions", json={"participant": cred, "value": 1, "x": 5})
    assert r.status_code == 422 and field(r) == "x"


def test_frontier_by_hand():
    pts = [(1, 1), (2, 3), (3, 3), (2, 2), (4, 5), (0.5, 0.2), (None, 9), (2, 3)]
    # x lower and y higher are better: (1,1), (0.5,0.2) trade off; (2,3) twice beats (2,2) and (3,3); (4,5) is the top
    assert frontier(pts, "lower", "higher") == [True, True, False, False, True, True, False, True]
    # both higher: only (4, 5)
    assert frontier(pts, "higher", "higher") == [False, False, False, False, True, False, False, False]
    # both lower: (0.5, 0.2) alone
    assert frontier(pts, "lower", "lower") == [False, False, False, False, False, True, False, False]
    # a tie in one output: the better of the other wins; equal points are both on
    assert frontier([(1, 2), (1, 3), (1, 3)], "lower", "higher") == [False, True, True]
    assert frontier([], "lower", "lower") == []


def test_frontier_agrees_with_the_definition_on_random_points():
    rng = random.Random(27)
    for _ in range(200):
        n = rng.randint(1, 30)
        pts = [(rng.choice([0, 1, 2, 3, 4.5]), rng.choice([0, 1, 2, 3])) for _ in range(n)]
        for xb, yb in itertools.product(("lower", "higher"), repeat=2):
            assert frontier(pts, xb, yb) == brute(pts, xb, yb), (pts, xb, yb)


# ------------------------------------------------------------------ CSV


def test_csv_has_a_row_per_point_and_needs_the_token(client, klass):
    sid = started(client, klass, vary={"batch": [1, 64], "tp": [1, 2]})
    cred = klass.who(client, "c")
    m = mine(client, klass, sid, cred)
    predict(client, klass, sid, cred, outputs("eg-1-1", m["query"])["throughput_tok_s"])
    assert client.get(f"/api/live/{klass.code}/sweeps/{sid}.csv").status_code == 401
    r = client.get(f"/api/live/{klass.code}/sweeps/{sid}.csv", headers=klass.auth)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(r.content.decode("utf-8-sig"))))
    assert rows[0][:4] == ["点", "batch", "tp", "查询串"] and rows[0][4] == "单步下界 T_step(ms)"
    assert len(rows) == 1 + 4
    assert [r[1:4] for r in rows[1:]] == [
        ["1", "1", ""],
        ["1", "2", "tp=2"],
        ["64", "1", "batch=64"],
        ["64", "2", "batch=64&tp=2"],
    ]
    assert rows[1 + m["point"]][-4:] == ["正确", "1", "0", "0"]
    assert [r[-4] for r in rows[1:]].count("未作答") == 3
    res = client.get(f"/api/live/{klass.code}/sweeps/{sid}", headers=klass.auth).json()
    for row, p in zip(rows[1:], res["points"], strict=True):
        assert float(row[4]) == p["x"] and float(row[5]) == p["y"] and row[6] == ("是" if p["frontier"] else "否")


# ------------------------------------------------------------------ limits


def test_limits_of_a_sweep(client, klass):
    assert (limits.MAX_SWEEP_POINTS, limits.MAX_SWEEP_PARAMS, limits.MAX_SWEEPS) == (1_000, 3, 50)
    r = start(client, klass, vary={"batch": list(range(1, 501)), "tp": [1, 2]})
    assert r.status_code == 201 and r.json()["points"] == 1_000
    r = start(client, klass, vary={"batch": list(range(1, 502)), "tp": [1, 2]})
    assert r.status_code == 422 and field(r) == "vary" and "1,000" in r.json()["detail"][0]["msg"]
    four = {"batch": [1], "tp": [1], "gpu": ["h100-sxm"], "bw_eff_pct": [50]}
    r = start(client, klass, vary=four)
    assert r.status_code == 422 and field(r) == "vary" and "3" in r.json()["detail"][0]["msg"]


def test_sweeps_per_class(client, klass):
    for _ in range(limits.MAX_SWEEPS - 1):
        started(client, klass, vary={"batch": [1]})
    assert started(client, klass, vary={"batch": [1]}) == limits.MAX_SWEEPS
    r = start(client, klass, vary={"batch": [1]})
    assert r.status_code == 429 and f"{limits.MAX_SWEEPS} 次" in r.json()["detail"][0]["msg"]


def test_predictions_per_window(client, klass, frozen):
    now = frozen
    assert (limits.PREDICTIONS_PER_WINDOW, limits.PREDICTION_WINDOW_S) == (10, 10)
    sid = started(client, klass)
    cred = klass.who(client, "fast")
    for i in range(limits.PREDICTIONS_PER_WINDOW):
        assert predict(client, klass, sid, cred, i + 1).status_code == 200
    r = predict(client, klass, sid, cred, 99)
    assert r.status_code == 429 and r.headers["retry-after"]
    now[0] += limits.PREDICTION_WINDOW_S
    assert predict(client, klass, sid, cred, 99).status_code == 200


def test_an_ended_class_keeps_its_sweep_csv_and_refuses_the_rest(client, klass):
    sid = started(client, klass)
    cred = klass.who(client, "e")
    assert client.delete(f"/api/live/{klass.code}", headers=klass.auth).status_code == 204
    assert client.get(f"/api/live/{klass.code}/sweeps/{sid}.csv", headers=klass.auth).status_code == 200
    assert predict(client, klass, sid, cred, 1).status_code == 410
    assert client.get(f"/api/live/{klass.code}/sweeps/{sid}").status_code == 410
    assert start(client, klass).status_code == 410


def test_sweepable_lists_the_controls_and_numeric_outputs(client):
    r = client.get("/api/live/sweepable/eg-1-1", params={"batch": "8"})
    assert r.status_code == 200
    params = {p["name"]: p for p in r.json()["params"]}
    assert params["batch"]["min"] == 1 and params["batch"]["max"] == 512 and params["batch"]["current"] == 8
    assert params["batch"]["suggest"] and all(v in range(1, 513) for v in params["batch"]["suggest"])
    assert [o["value"] for o in params["tp"]["options"]] == [1, 2, 4, 8]
    keys = {o["key"]: o for o in r.json()["outputs"]}
    assert keys["throughput_tok_s"]["unit"] == "token/s" and "bound" not in keys and "chart" not in keys
    assert client.get("/api/live/sweepable/nope").status_code == 404


def test_a_sweep_that_cannot_be_computed_in_time_is_422(client, klass, monkeypatch):
    from app.live import sweep_api

    assert limits.SWEEP_COMPUTE_S == 20.0
    monkeypatch.setattr(sweep_api, "SWEEP_COMPUTE_S", -1.0)  # the deadline passed before the first point
    r = start(client, klass)
    assert r.status_code == 422 and field(r) == "vary" and r.json()["detail"][0]["type"] == "too_slow"


def test_the_scatter_axes_follow_the_cards_log_rule():
    """Values spread over more than 100× get a log axis labelled as the cards' log axes are (decades,
    2 and 5 as full values); a narrower spread, or a zero or negative value, stays linear."""
    from app.charts.theme import log_ticks
    from app.live.sweeps import axis_scale

    assert axis_scale([20.9, 36.3, 72.6]) == {"log": False}
    assert axis_scale([0.0, 10.0, 5000.0]) == {"log": False}
    scale = axis_scale([47.9, 3000.0, None, 7100.0])
    assert scale["log"] and (scale["tickvals"], scale["ticktext"]) == tuple(map(list, log_ticks(47.9, 7100.0)))
    assert "5,000" in scale["ticktext"]  # every label is its tick's full value, never a bare mantissa
    assert all(float(t.replace(",", "")) == v for v, t in zip(scale["tickvals"], scale["ticktext"], strict=True))


def test_revealed_results_say_how_the_scatter_draws_its_axes(client, klass):
    sid = started(client, klass, vary={"batch": [1, 64, 512]})
    res = client.get(f"/api/live/{klass.code}/sweeps/{sid}", headers=klass.auth).json()
    assert res["scales"]["x"] == {"log": False}  # 20.9 … 72.6 ms
    assert res["scales"]["y"]["log"] and "1,000" in res["scales"]["y"]["ticktext"]  # 47.9 … 7,100 token/s
    hidden = client.get(f"/api/live/{klass.code}/sweeps/{sid}").json()
    assert "scales" not in hidden  # followers see counts only until 公布


def test_points_handed_out_at_the_same_moment_are_distinct(sqlite_server):
    """On a real server with its SQLite file, 16 phones asking for their point at once: the 8 points
    are each owned by exactly two, and each phone keeps its own when it asks again."""
    base = sqlite_server["base"]
    k = api_class(base)
    status, body = call(base, "POST", f"/api/live/{k.code}/sweeps", SWEEP, k.token)
    assert status == 201 and body["points"] == len(BATCHES), body
    creds = [api_join(base, k) for _ in range(16)]
    points = ask_at_once([base], k.code, body["sid"], creds)
    assert sorted(points) == sorted(list(range(len(BATCHES))) * 2)
    assert ask_at_once([base], k.code, body["sid"], creds) == points


def _sweepable() -> list[str]:
    """Every card the sweep menu offers: a control to vary and two numeric outputs to plot."""
    from app.cards import controls_of
    from app.live.sweep_api import numeric_outputs
    from app.live.sweeps import variable

    return [
        cid
        for cid, c in REGISTRY.items()
        if any(variable(s) for s in controls_of(c.params)) and len(numeric_outputs(c, c.compute(c.defaults()))) >= 2
    ]


SWEEPABLE = _sweepable()


def test_most_cards_can_be_swept():
    assert len(SWEEPABLE) >= 60 and "eg-1-1" in SWEEPABLE


@pytest.mark.parametrize("cid", SWEEPABLE)
def test_any_card_sweeps_over_what_its_menu_suggests(client, cid):
    """Each card on the menu: its first control swept over the first three values the menu suggests,
    its first two numeric outputs as the axes: it starts (201), and every point is the card's own
    compute at that point's query."""
    menu = client.get(f"/api/live/sweepable/{cid}").json()
    first = menu["params"][0]
    values = first.get("suggest") or [o["value"] for o in first["options"]]
    x, y = menu["outputs"][0]["key"], menu["outputs"][1]["key"]
    k = start_class(client, cid)
    body = {"card": cid, "query": "", "vary": {first["name"]: values[:3]}, "predict": x, "x": x, "y": y}
    r = client.post(
        f"/api/live/{k.code}/sweeps", json={**body, "x_better": "lower", "y_better": "higher"}, headers=k.auth
    )
    assert r.status_code == 201, r.text
    res = client.get(f"/api/live/{k.code}/sweeps/{r.json()['sid']}", headers=k.auth).json()
    assert 1 <= len(res["points"]) <= 3
    for p in res["points"]:
        o = outputs(cid, p["query"])
        assert p["truth"] == o[x] and p["x"] == o[x] and p["y"] == o[y], (p, o[x], o[y])
