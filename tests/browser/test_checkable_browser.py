"""Every card that asks questions answers its 检查 button on the page (练习 3-1 is a calculator card
and used to say 无法检查): one correct answer per card, typed or clicked as a reader would. ``make test``
tries a sample of the cards (tests/sampling.py, 练习 3-1 always), ``make test-full`` every one."""

from __future__ import annotations

import pytest

from tests.sampling import card_sample, sample_and_rest
from tests.web.test_checkable import WITH_QUESTIONS, first_checkable


@pytest.mark.parametrize("cards", sample_and_rest(WITH_QUESTIONS, card_sample(WITH_QUESTIONS) + ["ex-3-1"]))
def test_check_button_works_on_every_card_with_questions(page, server, cards):
    assert "ex-3-1" in WITH_QUESTIONS
    for cid in cards:
        q, expected = first_checkable(cid)
        page.goto(f"{server}/cards/{cid}")
        li = page.locator(f'#{cid} li.q[data-key="{q.key}"]')
        if q.kind == "numeric":
            li.locator("input[name=answer]").fill(repr(expected))
        else:
            value = ("true" if expected else "false") if isinstance(expected, bool) else str(expected)
            li.locator(f'input[name=answer][value="{value}"]').check()
        li.locator("button", has_text="检查").click()
        verdict = li.locator("output.verdict")  # the card redraws with this answer shown: read the one on the page
        sel = f'#{cid} li.q[data-key="{q.key}"] output.verdict'
        page.wait_for_function(f"() => (document.querySelector('{sel}') || {{}}).textContent", timeout=10_000)
        assert verdict.inner_text().startswith("正确"), (cid, q.key, expected, verdict.inner_text())
    page.watch.assert_clean()
