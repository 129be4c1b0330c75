"""3.4 / 3.5 in the browser: 图 3-20 plays (the cursor frames advance) and clicking an answer in
group-advantage flips it (the advantages, the form and the address bar follow)."""

from __future__ import annotations

import re


def _stat(page, card, key):
    return page.locator(f'#{card} .stat[data-key="{key}"] .v').inner_text()


def test_fig_3_20_plays(page, server):
    page.goto(server + "/cards/fig-3-20?micro_batches=2")
    page.wait_for_function(
        "() => { const el = document.getElementById('plot-fig-3-20-0'); return el && el.data && el._transitionData; }"
    )
    assert _stat(page, "fig-3-20", "peak_activation") == "2"
    cursor = "() => document.getElementById('plot-fig-3-20-0').data[4].x[0]"
    assert page.evaluate(cursor) == 12  # before play: the cursor rests at the end
    page.locator("#fig-3-20 .updatemenu-button").first.click()
    page.wait_for_function(f"() => ({cursor})() < 12")
    first = page.evaluate(cursor)
    page.wait_for_function(f"() => ({cursor})() > {first}")  # frames keep advancing
    later = page.evaluate(cursor)
    assert 0 <= first < later <= 12
    page.watch.assert_clean()


def test_group_advantage_click_flips_answer(page, server):
    page.goto(server + "/cards/group-advantage")
    page.wait_for_selector('#group-advantage .stat[data-key="advantage_1"]')
    assert _stat(page, "group-advantage", "advantage_1") == "0.50"
    assert _stat(page, "group-advantage", "advantage_2") == "-0.50"
    page.locator("#group-advantage a.part").nth(1).click()  # answer 2: wrong → right
    page.wait_for_function(
        "() => document.querySelector('#group-advantage .stat[data-key=\"advantage_2\"] .v').innerText === '0.25'"
    )
    assert _stat(page, "group-advantage", "advantage_1") == "0.25"
    assert _stat(page, "group-advantage", "advantage_4") == "-0.75"
    assert page.locator('#group-advantage input[name="rewards"]').nth(1).input_value() == "1"
    assert re.search(r"/cards/group-advantage\?rewards=1&rewards=1&rewards=1&rewards=0", page.url)
    page.locator("#group-advantage a.part").nth(3).click()  # answer 4 too: all right → no signal
    page.wait_for_function(
        "() => document.querySelector('#group-advantage .stat[data-key=\"advantage_4\"] .v').innerText === '0.00'"
    )
    assert "是" in _stat(page, "group-advantage", "all_zero")
    assert page.locator("#group-advantage .block svg").text_content().count("学习信号归零") == 1
    page.watch.assert_clean()


def test_section_3_4_prose_follows_eg_3_3(page, server):
    """The worked arithmetic in 3.4's prose is live: moving 例题 3-3's gradient bytes updates the tile and the prose."""
    page.goto(server + "/ch/3/3.4")
    live = '#main a.live[data-card="eg-3-3"][data-key="total_gb"]'
    page.wait_for_selector(live)
    assert page.locator(live).first.inner_text() == "147.43 GB"  # the book's value, before any script ran
    page.locator("#eg-3-3").scroll_into_view_if_needed()
    page.wait_for_selector('#eg-3-3 .stat[data-key="total_gb"]')
    page.locator("#eg-3-3-grad_bytes").fill("2")
    page.wait_for_function(
        "() => document.querySelector('#eg-3-3 .stat[data-key=\"total_gb\"] .v').innerText === '131.05'"
    )
    page.wait_for_function(f"() => document.querySelector('{live}').innerText === '131.05 GB'")
    assert (
        page.locator('#main a.live[data-card="eg-3-3"][data-key="bytes_per_param"][data-flag="n"]').inner_text() == "16"
    )
    page.watch.assert_clean()
