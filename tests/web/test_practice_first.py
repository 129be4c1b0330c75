"""Practice first: a number that answers one of a card's own questions is not printed in the card's
reading view (tiles, tables, prose slots, solutions, notes, charts) until the reader has checked an answer to
it or asked to see it (``reveal=<key>``); ``answers=shown`` shows everything; the JSON API stays a
complete calculator. Walked over every card with questions at its defaults and two other states."""

from __future__ import annotations

import json
import math
import re

import pytest
from app.cards import REGISTRY, run
from app.outputs import undeclared
from app.state import parse_query

from tests.web.test_derivations import moved_states
from tests.web.test_hide import _numbers

SCRIPT = re.compile(r"<script\b.*?</script>", re.S)


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _text_of(card, key, v) -> str:
    return (card.outputs.get(key) or undeclared(key)).fmt(v, unit=False).removeprefix("≈ ")


def _answers(card, query: dict) -> dict[str, str]:
    """The texts of the answers to the card's own numeric questions that tell (three significant digits
    or more: a 4 or a 64 reads like many other numbers) and no other output or parameter shares (a
    coincidence is not a leak)."""
    p = parse_query(card, list(query.items()))
    view = run(card, p)
    texts = {k: _text_of(card, k, v) for k, v in view.outputs.items() if _number(v)}
    inputs = {f"{v:g}" for v in p.model_dump().values() if _number(v)}
    keys = {q.key for q in view.questions if q.kind == "numeric" and _number(view.outputs.get(q.key))}
    out = {}
    for k in keys:
        t = texts[k]
        if [j for j in keys if math.isclose(view.outputs[j], view.outputs[k], rel_tol=1e-9)] != [k]:
            continue  # two questions with one answer: revealing one still holds the other back
        others = [x for j, x in texts.items() if j not in keys]
        digits = re.sub(r"\D", "", t)
        if len(digits.lstrip("0")) >= 3 and t.replace(",", "") not in inputs and t not in others:
            out[k] = t
    return out


def _printed(html: str, text: str) -> bool:
    return bool(re.search(rf"(?<![\d.,]){re.escape(text)}(?![\d]|[.,]\d)", SCRIPT.sub("", html)))


CARDS = sorted(cid for cid, c in REGISTRY.items() if run(c, c.defaults()).questions)
CASES = [(cid, i) for cid in CARDS for i in range(3)]


def test_every_card_with_questions_is_walked():
    assert len(CARDS) == 14


@pytest.mark.parametrize(("cid", "which"), CASES, ids=[f"{c}-{i}" for c, i in CASES])
def test_answers_wait_until_tried(client, cid, which):
    card = REGISTRY[cid]
    query = {} if which == 0 else moved_states(cid)[which - 1]
    answers = _answers(card, query)
    held = client.get(f"/cards/{cid}/fragment", params=query).text
    shown = client.get(f"/cards/{cid}/fragment", params={**query, "answers": "shown"}).text
    for key, text in answers.items():
        assert not _printed(held, text), f"{cid}.{key} = {text} printed before the reader tried"
        assert _printed(shown, text), f"{cid}.{key} = {text} not shown with answers=shown"
        revealed = client.get(f"/cards/{cid}/fragment", params=[*query.items(), ("reveal", key)]).text
        assert _printed(revealed, text), f"{cid}.{key}: revealed, yet still held back"
    api = client.get(f"/api/cards/{cid}", params=query).json()["outputs"]
    assert all(_text_of(card, k, api[k]) == t for k, t in answers.items())  # the API stays complete


FIGDATA = re.compile(r'<script type="application/json" class="figdata" data-plot="([^"]+)">(.*?)</script>', re.S)


def _plotted(html: str, value: float) -> list[str]:
    """The figures of ``html`` whose data carries ``value`` (to the 5 digits the wire keeps)."""
    return [
        pid
        for pid, raw in FIGDATA.findall(html)
        if any(math.isclose(x, value, rel_tol=5e-5) for x in _numbers(json.loads(raw)))
    ]


@pytest.mark.parametrize(("cid", "which"), CASES, ids=[f"{c}-{i}" for c, i in CASES])
def test_no_chart_draws_an_answer_before_it_is_tried(client, cid, which):
    """A chart answers a question too (its hover and its data table print the value): a figure that
    draws an answer not yet tried is held, with a note, until the reader tries it or asks to see it."""
    card = REGISTRY[cid]
    query = {} if which == 0 else moved_states(cid)[which - 1]
    p = parse_query(card, list(query.items()))
    outputs = run(card, p).outputs
    held = client.get(f"/cards/{cid}/fragment", params=query).text
    shown = client.get(f"/cards/{cid}/fragment", params={**query, "answers": "shown"}).text
    for key in _answers(card, query):
        assert not _plotted(held, outputs[key]), f"{cid}.{key} = {outputs[key]} drawn before the reader tried"
        if _plotted(shown, outputs[key]):  # drawn once shown: then the held view says why it is not
            assert "这张图画出了题目的答案" in held, f"{cid}.{key}: a held figure without its note"


def test_a_chart_that_answers_returns_once_its_answers_are_tried(client):
    """练习 3-2's backlog curve ends at the 30 s backlog it asks for; 练习 3-1's bars count the weight
    reads it asks for."""
    for cid, key in (("ex-3-2", "backlog_2cards_steps"), ("ex-3-1", "weight_read_rounds")):
        plot = f"plot-{cid}-0"
        held = client.get(f"/cards/{cid}/fragment").text
        assert plot not in dict(FIGDATA.findall(held)) and "这张图画出了题目的答案" in held, cid
        tried = client.get(f"/cards/{cid}/fragment", params={"reveal": key}).text
        assert plot in dict(FIGDATA.findall(tried)) and "这张图画出了题目的答案" not in tried, cid
        assert plot in dict(FIGDATA.findall(client.get(f"/cards/{cid}/fragment?answers=shown").text)), cid


def test_the_page_holds_answers_back_too(client):
    answers = _answers(REGISTRY["ex-1-3"], {})
    assert answers
    page = client.get("/cards/ex-1-3").text
    assert not any(_printed(page, t) for t in answers.values())
    assert all(_printed(client.get("/cards/ex-1-3?answers=shown").text, t) for t in answers.values())


def test_a_held_back_derivation_stops_at_the_substituted_formula(client):
    explain = client.get("/cards/ex-1-3/explain").text
    sec = re.search(r'<section class="deriv" data-key="t_step_ms_b1">(.*?)</section>', explain, re.S).group(1)
    assert "d-formula" in sec and "29.85" not in sec
    shown = client.get("/cards/ex-1-3/explain?answers=shown").text
    assert "29.85" in re.search(r'data-key="t_step_ms_b1">(.*?)</section>', shown, re.S).group(1)
