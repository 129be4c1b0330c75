"""Section 3.6 in a browser: switching 例题 3-5 to a reader's own fit, and moving Q on the lifetime card."""

from __future__ import annotations

import re


def _stat(page, card, key):
    return page.locator(f'#{card} .stat[data-key="{key}"] .v').inner_text()


def _ready(page, card, idx=0):
    page.wait_for_function(
        f"() => document.getElementById('plot-{card}-{idx}') && document.getElementById('plot-{card}-{idx}').data"
    )


def test_eg_3_5_switch_to_own_fit(page, server):
    page.goto(server + "/cards/eg-3-5")
    _ready(page, "eg-3-5")
    assert _stat(page, "eg-3-5", "holdout_rmse") == "≈ 0.0193"
    assert _stat(page, "eg-3-5", "pred_h1") == "2.583"
    pred_before = page.evaluate("() => document.getElementById('plot-eg-3-5-0').data[4].y[0]")
    # one change event (select_option would fire input and change: two requests, the first cancelled)
    page.locator("#eg-3-5-law").evaluate(
        "(s) => { s.value = 'fit'; s.dispatchEvent(new Event('change', {bubbles: true})); }"
    )
    page.wait_for_function(
        "() => document.querySelector('#eg-3-5 .stat[data-key=\"holdout_rmse\"] .v').innerText === '0.0293'"
    )
    assert _stat(page, "eg-3-5", "fit_rmse") == "0.0087"  # fit error much smaller than hold-out error
    assert _stat(page, "eg-3-5", "pred_h1") == "2.539"
    _ready(page, "eg-3-5")
    page.wait_for_function("() => document.getElementById('plot-eg-3-5-0').data.some(t => t.name === '拟合点(你选的)')")
    assert pred_before != page.evaluate(
        "() => document.getElementById('plot-eg-3-5-0').data.find(t => t.name === '留出点 预测').y[0]"
    )
    assert re.search(r"/cards/eg-3-5\?.*law=fit", page.url)
    # a run from the picker table: removing one of the six refits on five points
    assert page.locator("#eg-3-5 details.run-picker").get_attribute("open") is not None  # open in fit mode
    page.locator('#eg-3-5 a[data-run="146m14b14b"]').click()
    page.wait_for_url(re.compile(r"law=fit"))
    _ready(page, "eg-3-5")
    assert "146m14b14b" not in page.url
    assert _stat(page, "eg-3-5", "fit_rmse").startswith("0.0")
    page.watch.assert_clean()


def test_lifetime_cost_tasks_flip_the_choice(page, server):
    page.goto(server + "/cards/lifetime-cost")
    page.wait_for_selector('#lifetime-cost .stat[data-key="choose_small"]')
    assert _stat(page, "lifetime-cost", "net_saving_gpu_h") == "-60,000"
    assert _stat(page, "lifetime-cost", "choose_small") == "留用大模型"
    page.locator("#lifetime-cost-tasks").evaluate(
        "(b) => { b.value = '1000000000'; b.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    page.wait_for_function(
        "() => document.querySelector('#lifetime-cost .stat[data-key=\"choose_small\"] .v').innerText === '选多训练的小模型'"
    )
    assert _stat(page, "lifetime-cost", "net_saving_gpu_h") == "100,000"
    assert _stat(page, "lifetime-cost", "q_star_tasks") == "5.00×10⁸ 项"
    assert re.search(r"tasks=1000000000", page.url)
    page.watch.assert_clean()


def test_section_prose_follows_the_lifetime_card(page, server):
    """On the 3.6 page the prose's worked numbers are live: moving Q on the card rewrites them."""
    page.goto(server + "/ch/3/3.6")
    choice = page.locator('a.live[data-card="lifetime-cost"][data-key="choose_small"]')
    saving = page.locator('a.live[data-card="lifetime-cost"][data-key="net_saving_gpu_h"]')
    assert (
        choice.inner_text() == "留用大模型" and saving.inner_text() == "-60,000 GPU·h"
    )  # without script: the defaults
    page.locator("#lifetime-cost").scroll_into_view_if_needed()
    page.wait_for_selector('#lifetime-cost .stat[data-key="choose_small"]')
    page.locator("#lifetime-cost-tasks").evaluate(
        "(b) => { b.value = '1000000000'; b.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    page.wait_for_function(
        '() => document.querySelector(\'a.live[data-card="lifetime-cost"][data-key="choose_small"]\')'
        ".innerText === '选多训练的小模型'"
    )
    assert saving.inner_text() == "100,000 GPU·h" and "moved" in (saving.get_attribute("class") or "")
    # a number another card owns did not move
    assert page.locator('a.live[data-card="fig-3-28"][data-key="sustained_tflops"]').inner_text() == "395.76 TFLOP/s"
    page.watch.assert_clean()
