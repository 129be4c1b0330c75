"""Every card that asks questions can be checked, whatever its kind (练习 3-1 is a calculator card);
question sets that depend on a parameter are covered by the check body too. Choice parameters
whose options are numbers travel as numbers."""

from __future__ import annotations

from typing import Literal

import pytest
from app import exercises
from app.cards import REGISTRY, Card, Params, Question, View, choice, number_type, toggle
from app.cards import run as compute
from app.web.api import _check_endpoint, check_body_model
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.apps import settings_for_tests

WITH_QUESTIONS = sorted(cid for cid, c in REGISTRY.items() if compute(c, c.defaults()).questions)


def first_checkable(cid):
    """The card's first question with a checkable answer, and that answer (the card's own output)."""
    card = REGISTRY[cid]
    view = compute(card, card.defaults())
    q = next(q for q in view.questions if q.kind != "open")
    return q, view.outputs[q.key]


def test_cards_with_questions_include_a_non_exercise():
    assert "ex-3-1" in WITH_QUESTIONS and REGISTRY["ex-3-1"].kind != "exercise"
    assert len(WITH_QUESTIONS) >= 14


@pytest.mark.parametrize("cid", WITH_QUESTIONS)
def test_one_correct_answer_per_card_through_the_api(client, cid):
    q, expected = first_checkable(cid)
    r = client.post(f"/api/cards/{cid}/check", json={"answers": {q.key: expected}})
    assert r.status_code == 200, r.text
    assert r.json()["results"][q.key]["verdict"] == "correct"
    assert f"/api/cards/{cid}/check" in client.get("/openapi.json").json()["paths"]


def test_ex_3_1_checks_at_the_readers_parameters(client):
    """The same question at n = 16 expects the n = 16 value; the numeric choice may come as text
    (the page's form sends strings) or as a JSON number."""
    at16 = client.get("/api/cards/ex-3-1?n_requests=16").json()["outputs"]["decode_steps_total"]
    at8 = client.get("/api/cards/ex-3-1").json()["outputs"]["decode_steps_total"]
    assert at16 != at8
    for n in (16, "16", 16.0, "16.0"):
        r = client.post(
            "/api/cards/ex-3-1/check", json={"params": {"n_requests": n}, "answers": {"decode_steps_total": at16}}
        )
        assert r.status_code == 200, (n, r.text)
        assert r.json()["results"]["decode_steps_total"]["verdict"] == "correct", n
    r = client.post(
        "/api/cards/ex-3-1/check", json={"params": {"n_requests": 3}, "answers": {"decode_steps_total": at16}}
    )
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "params", "n_requests"]


# ------------------------------------------------------------------ a question set that depends on a parameter


class _VariantParams(Params):
    variant: Literal["a", "b"] = choice("a", {"a": "A", "b": "B"}, label="题型")
    double: bool = toggle(False, label="×2")


def _variant_compute(p: _VariantParams) -> View:
    k = 2 if p.double else 1
    o = {"x": 3.0 * k, "y": 5.0 * k, "z": 7.0 * k}
    v = View(outputs=o)
    v.questions = (
        [Question("x", "x?")]
        + ([Question("y", "y?")] if p.variant == "b" else [])
        + ([Question("z", "z?")] if p.double else [])
    )
    return v


def _variant_app() -> TestClient:
    card = Card(
        id="zz-variant",
        title="t",
        label="",
        section="3.1",
        kind="calculator",
        params=_VariantParams,
        compute=_variant_compute,
    )
    app = FastAPI()
    app.state.settings = settings_for_tests()
    app.add_api_route("/check", _check_endpoint(card), methods=["POST"])
    return TestClient(app), card


def test_question_sets_that_depend_on_parameters_are_checkable():
    c, card = _variant_app()
    assert set(exercises.questions_of(card)) == {"x", "y", "z"}
    assert set(check_body_model(card).model_fields["answers"].annotation.model_fields) == {"x", "y", "z"}
    r = c.post("/check", json={"params": {"variant": "b"}, "answers": {"y": 5}})
    assert r.status_code == 200 and r.json()["results"]["y"]["verdict"] == "correct", r.text
    r = c.post("/check", json={"params": {"double": "true"}, "answers": {"z": 14, "x": 6}})
    assert {k: v["verdict"] for k, v in r.json()["results"].items()} == {"z": "correct", "x": "correct"}
    # a key this state does not ask is not judged; an unknown key is refused
    assert c.post("/check", json={"answers": {"y": 5}}).json()["results"] == {}
    assert c.post("/check", json={"answers": {"w": 1}}).status_code == 422


# ------------------------------------------------------------------ numeric choice options


def test_numeric_choice_is_a_number_everywhere(client):
    for raw in ("2796", "2796.0", "2.796e3"):
        r = client.get(f"/api/cards/ex-3-2?mu_per_card={raw}")
        assert r.status_code == 200, (raw, r.text)
        assert r.json()["params"]["mu_per_card"] == 2796
    assert client.get("/api/cards/ex-3-2").json()["params"]["mu_per_card"] == 2795.66
    for bad in ("2797", "true", "abc", "nan", ""):
        r = client.get(f"/api/cards/ex-3-2?mu_per_card={bad}")
        assert r.status_code == 422, bad
        assert r.json()["detail"][0]["field"] == "mu_per_card" and "2795.66、2796" in r.json()["detail"][0]["msg"]
    body = {"params": {"mu_per_card": 2796}, "answers": {"backlog_2cards_steps": 56376}}
    r = client.post("/api/cards/ex-3-2/check", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["results"]["backlog_2cards_steps"]["verdict"] == "correct"
    r = client.post("/api/cards/ex-3-2/check", json={"params": {"mu_per_card": True}, "answers": {}})
    assert r.status_code == 422


def test_numeric_choice_schema_is_an_enum_of_numbers(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path, name, enum in (
        ("/api/cards/ex-3-2", "mu_per_card", [2795.66, 2796]),
        ("/api/cards/ex-3-1", "n_requests", [1, 2, 4, 8, 16, 32, 64, 128]),
    ):
        p = next(p for p in paths[path]["get"]["parameters"] if p["name"] == name)
        assert p["schema"]["type"] == "number" and p["schema"]["enum"] == enum
        assert all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in p["schema"]["enum"])


def test_numeric_choice_links_stay_short_and_select_the_option(client):
    from app.state import to_query

    card = REGISTRY["ex-3-1"]
    assert to_query(card, card.parse({"n_requests": "16.0"})) == [("n_requests", "16")]
    assert to_query(card, card.defaults()) == []
    page = client.get("/cards/ex-3-1?n_requests=16.0").text
    assert '<option value="16" selected>' in page and '<option value="8" selected>' not in page


def test_number_type_refuses_booleans_and_non_options():
    class P(Params):
        n: number_type((1, 2, 4)) = choice(2, {1: "1", 2: "2", 4: "4"}, label="n")

    assert P(n="4.0").n == 4 and P(n=1.0).n == 1
    for bad in (True, "3", [1], None):
        with pytest.raises(ValueError):
            P(n=bad)
