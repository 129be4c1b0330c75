"""Practice first in a browser: 练习 1-3's answers arrive held back; checking an answer (right or
wrong) or opening its solution shows that answer, remembered in this browser; the presenter's
显示答案 shows every answer."""

from __future__ import annotations

TILE = '.stat[data-key="t_step_ms_b1"] .v'


def _tile(page) -> str:
    return page.locator(TILE).inner_text()


def test_an_answer_shows_once_the_reader_has_tried(page, server):
    page.goto(server + "/cards/ex-1-3")
    assert _tile(page) == "?" and "先作答" in page.locator('.stat[data-key="t_step_ms_b1"]').inner_text()
    q = page.locator('li.q[data-key="t_step_ms_b1"]')
    q.locator("input[name=answer]").fill("20")  # wrong, but tried
    q.locator("button", has_text="检查").click()
    page.wait_for_function(f"() => document.querySelector('{TILE}').textContent.trim() === '29.85'")
    assert page.locator('.stat[data-key="b_star"] .v').inner_text() == "?"  # the others still wait
    page.reload()
    page.wait_for_function(f"() => document.querySelector('{TILE}').textContent.trim() === '29.85'")
    sol = page.locator('li.q[data-key="b_star"] details.solution')
    page.locator('li.q[data-key="b_star"] details.hint summary').click()
    sol.locator("summary").click()  # 查看解答 is asking to see it
    page.wait_for_function(
        "() => document.querySelector('.stat[data-key=\"b_star\"] .v').textContent.includes('105.5')"
    )
    page.wait_for_function("() => document.querySelector('li.q[data-key=\"b_star\"] details.solution').open")
    page.watch.assert_clean()


def test_the_presenter_shows_every_answer(page, server):
    page.goto(server + "/present/ex-1-3")
    toggle = page.locator("[data-answers-toggle]")
    assert toggle.is_visible() and _tile(page) == "?"
    toggle.click()
    page.wait_for_function(f"() => document.querySelector('{TILE}').textContent.trim() === '29.85'")
    assert "answers=shown" in page.url
    assert toggle.get_attribute("aria-pressed") == "true"
    page.watch.assert_clean()


def test_a_chart_that_draws_the_answer_comes_once_it_is_tried(page, server):
    """练习 3-2's backlog curve ends at the 30 s backlog the first question asks: the figure says why it
    waits, and once an answer is checked the curve is drawn."""
    page.goto(server + "/cards/ex-3-2")
    fig = page.locator('figure[data-idx="0"]')
    assert "先作答" in fig.inner_text() and page.locator("#plot-ex-3-2-0").count() == 0
    q = page.locator('li.q[data-key="backlog_2cards_steps"]')
    q.locator("input[name=answer]").fill("1000")  # wrong, but tried
    q.locator("button", has_text="检查").click()
    page.wait_for_function(
        "() => { const p = document.getElementById('plot-ex-3-2-0'); return p && p.data && p.data.length > 0; }"
    )
    assert "先作答" not in page.locator('figure[data-idx="0"]').inner_text()
    page.watch.assert_clean()


def test_the_presenters_show_answers_works_on_ex_1_4(page, server):
    """练习 1-4 printed its answers in a tile label (扩展效率 31/64), so 显示答案 had nothing to show there:
    now the label and the table's 约 31 wait, and the presenter's button brings them."""
    page.goto(server + "/present/ex-1-4")
    label = '.stat[data-key="scaling_efficiency_pct"] dt'
    assert page.locator(label).inner_text() == "扩展效率 ?/?"
    page.locator("[data-answers-toggle]").click()
    page.wait_for_function(f"() => document.querySelector('{label}').textContent.trim() === '扩展效率 31/64'")
    assert "约 31" in page.locator(".card table").first.inner_text()
    page.watch.assert_clean()


def test_a_card_without_controls_reveals_a_tried_answer(page, server):
    """练习 1-4 has no controls: a checked answer still brings its number back (the card's refresh is
    known as the card's, so it carries the reveal)."""
    page.goto(server + "/cards/ex-1-4")
    q = page.locator('li.q[data-key="throughput_ratio_b64"]')
    q.locator("input[name=answer]").fill("20")  # wrong, but tried
    q.locator("button", has_text="检查").click()
    label = '.stat[data-key="scaling_efficiency_pct"] dt'
    page.wait_for_function(f"() => document.querySelector('{label}').textContent.trim() === '扩展效率 31/?'")
    page.watch.assert_clean()
