"""Issue 40, point 3, on the page: the exercise box sends the text as typed, so the site's own
notation is graded (it used to be refused in the browser with "请输入一个数"), a converted unit is
said, and unreadable text is named in the verdict."""

from __future__ import annotations

import pytest

from tests.browser.conftest import page, server  # noqa: F401  (the browser tests' fixtures)

pytestmark = pytest.mark.browser


def _verdict(page, q, typed: str, wait_for: str) -> str:  # noqa: F811
    q.locator("input[name=answer]").fill(typed)
    q.locator("button[type=submit]").click()
    sel = f'li.q[data-key="{q.get_attribute("data-key")}"] output.verdict'
    page.wait_for_function(f"() => document.querySelector('{sel}').textContent.includes('{wait_for}')")
    return q.locator("output.verdict").inner_text()


def test_the_page_sends_what_was_typed(page, server):  # noqa: F811
    page.goto(server + "/cards/ex-3-9")
    q = page.locator('li.q[data-key="row1_six_nd_flop"]')
    assert _verdict(page, q, "4.02×10²²", "正确").startswith("正确")
    assert "读不懂“abc”" in _verdict(page, q, "abc", "读不懂")
    page.goto(server + "/cards/ex-1-1")
    q = page.locator('li.q[data-key="weights_total_gb"]')
    assert "换算为 73.7231 GB" in _verdict(page, q, "68.66 GiB", "换算")
    assert _verdict(page, q, "７３．７", "正确").startswith("正确")
    page.watch.assert_clean()


def test_the_english_page_says_it_in_english(page, server):  # noqa: F811
    page.goto(server + "/en/cards/ex-1-1")
    q = page.locator('li.q[data-key="weights_total_gb"]')
    assert "Could not read the unit “parsecs”" in _verdict(page, q, "73.7 parsecs", "Could not")
    assert _verdict(page, q, "73.7 GB", "Correct").startswith("Correct")
    page.watch.assert_clean()
