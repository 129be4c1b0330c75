"""Answers held back by structure (issue 36.3): what carries the value of one of a card's own questions is
marked so where it is declared (a slot's key, a :class:`~app.cards.Quoted` text, ``Figure.answers``, the
derivation's nodes) and reads "?" until the reader has tried that question or asked to see it. Each case
below leaked under the old text-scanning code: a ✓/✗, a choice, a tile label, a table cell written in words,
a given's derivation, a solution step quoting the book."""

from __future__ import annotations

import re

import pytest
from app.cards import REGISTRY, Quoted
from app.render.card import HIDDEN_TEXT

from tests.web.test_practice_first import CARDS, _answers, _printed

TAGS = re.compile(r"<script\b.*?</script>|<[^>]+>", re.S)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", TAGS.sub(" ", html))


def _answer_table(html: str) -> list[list[str]]:
    """练习 1-3's 对照答案表, as the reader sees its cells."""
    body = re.search(r'<details class="answer-table">.*?<tbody>(.*?)</tbody>', html, re.S).group(1)
    return [
        [_text(c).strip() for c in re.findall(r"<td>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def test_ex_1_3s_answer_table_holds_every_asked_value_after_a_slider_moves(client):
    """After a slider move the table used to show T_step at B = 1 through the time per output (T/1), the
    throughputs (B/T) and the bound of B = 64 with half the read (a choice: a word no scan looks for)."""
    held = _answer_table(client.get("/cards/ex-1-3/fragment?bw_eff_pct=60").text)
    shown = _answer_table(client.get("/cards/ex-1-3/fragment?bw_eff_pct=60&answers=shown").text)
    b1, b64_half = held[0], held[5]
    assert b1[1:4] == [HIDDEN_TEXT] * 3, b1  # T_step, T/1 and 1/T all tell q1's answer
    assert b64_half[1:5] == [HIDDEN_TEXT] * 4, b64_half  # its bound is asked as a choice
    assert shown[0][1] == shown[0][2] and HIDDEN_TEXT not in shown[0][1:4] and shown[5][4] in ("计算", "读取")
    assert held[3] == shown[3]  # B = 1 with half the read is asked by no question: shown as it is
    tried = _answer_table(
        client.get("/cards/ex-1-3/fragment?bw_eff_pct=60&reveal=t_step_ms_b1&reveal=per_output_ms_b1").text
    )
    assert tried[0][1] == shown[0][1] and tried[0][2] == shown[0][2]


def test_ex_1_2s_marks_and_margins_wait_for_the_fits_question(client):
    """练习 1-2's 答案一览 showed every ✓/✗ and margin before the reader tried."""

    def cells(query: str) -> list[str]:
        html = client.get(f"/cards/ex-1-2/fragment{query}").text
        table = re.search(r"<table.*?</table>", html, re.S).group(0)
        return [_text(c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", table, re.S)]

    held, shown = cells(""), cells("?answers=shown")
    assert held[0] == "146.11 / 80 GB ?(余量 ?)" and shown[0] == "146.11 / 80 GB ✗(余量 -66.11)"
    assert "✓" not in held[1] and "✗" not in held[1]
    assert cells("?reveal=one_h100_bf16_fits")[0] == shown[0]  # tried: its mark and margin return


def test_ex_1_4s_tile_label_and_table_wait_and_the_presenter_shows_them(client):
    """练习 1-4's tile label 扩展效率 31/64 and its table's 约 31 answered two questions, and the presenter's
    显示答案 (answers=shown) had nothing to show."""
    held = client.get("/cards/ex-1-4/fragment").text
    assert "扩展效率 ?/?" in held and "31/64" not in held and "约 31" not in held
    for page in ("/present/ex-1-4?answers=shown", "/cards/ex-1-4/fragment?answers=shown"):
        shown = client.get(page)
        assert shown.status_code == 200
        assert "扩展效率 31/64" in shown.text and "约 31" in shown.text, page
    assert "31/64" not in client.get("/present/ex-1-4").text
    assert "Scaling efficiency ?/?" in client.get("/en/cards/ex-1-4/fragment").text


def test_a_givens_derivation_never_expands_into_an_answer(client):
    """练习 3-7's given cycle totals used to open into f_g, f_r and F_u: the slope's parts and the intercept."""
    explain = client.get("/cards/ex-3-7/explain").text
    given = re.search(r'data-key="f_cycle_a_tflop">(.*?)</section>', explain, re.S).group(1)
    assert "952.4" not in given and "19.84" not in given and "18.57" not in given
    assert "例题 3-4" in _text(given)  # said to be given, and by whom
    for key, text in _answers(REGISTRY["ex-3-7"], {}).items():
        assert not _printed(explain, text), f"ex-3-7.{key} = {text} in the derivations before it is tried"


@pytest.mark.parametrize("cid", CARDS)
def test_no_derivation_prints_an_answer_not_yet_tried(client, cid):
    """Every card with questions: no derivation (a tile's, a given's, a step's) prints an untried answer;
    with the answers shown, each is there."""
    answers = _answers(REGISTRY[cid], {})
    held = client.get(f"/cards/{cid}/explain").text
    shown = client.get(f"/cards/{cid}/explain?answers=shown").text
    for key, text in answers.items():
        assert not _printed(held, text), f"{cid}.{key} = {text} in a derivation before it is tried"
        assert _printed(shown, text) or f'data-key="{key}"' not in shown, f"{cid}.{key} not derived once shown"


def test_a_solution_quoting_the_book_waits_for_the_try(client):
    """练习 3-8's solution prints the book's ≈0.0193 (a typed book number, not a slot): its steps come with
    the reveal, and its hint no longer prints the book's residual."""
    held = client.get("/cards/ex-3-8/fragment").text
    assert "0.0193" not in _text(held) and "+0.009" not in _text(held)
    tried = client.get("/cards/ex-3-8/fragment?reveal=holdout_rmse").text
    assert "书中印的是 ≈0.0193" in tried


def test_quoted_text_keeps_its_keys_through_words_and_editions():
    """A Quoted joined to words stays quoted, each run said in the edition served."""
    from app.words import LANG, words_for

    w = words_for("app.chapters.ch1.s1_3b")
    q = w["gap_analysis.bound_vs_measured"] + Quoted("8.62 ms", ["lb_ms"])
    assert isinstance(q, Quoted) and q.held(frozenset({"lb_ms"})) and not q.held(frozenset({"gap_ms"}))
    assert q.html(frozenset({"lb_ms"})).endswith(HIDDEN_TEXT)
    token = LANG.set("en")
    try:
        assert q.html(frozenset()) != str(q) and q.html(frozenset()).endswith("8.62 ms")
    finally:
        LANG.reset(token)


def test_ex_3_2s_other_rounding_waits_with_the_answer_it_tells(client):
    """练习 3-2's book note gives the backlog and drain at the rate's other rounding (56,376.0 步, 10.08 s),
    which the 正确 band accepts for the asked 56,396.4 and 10.09 s: declared ``Question.tells``, each
    waits for its own question's try, and a live question on one holds it too."""

    def shows(**params):
        text = _text(client.get("/cards/ex-3-2/fragment", params=params).text)
        return "56,376.0" in text, "10.08 s" in text

    grade = client.post("/api/cards/ex-3-2/check", json={"params": {}, "answers": {"backlog_2cards_steps": 56376}})
    assert grade.json()["results"]["backlog_2cards_steps"]["verdict"] == "correct"  # why it must wait
    assert shows() == (False, False)
    assert shows(reveal="backlog_2cards_steps") == (True, False)
    assert shows(reveal=["backlog_2cards_steps", "drain_2cards_s"]) == (True, True)
    assert shows(answers="shown") == (True, True)
    assert shows(answers="shown", hide="drain_2cards_s") == (True, False)
