"""Section 1.2 in a browser: moving one control on each interactive card changes what it shows."""

from __future__ import annotations

import pytest


def _stat(page, card, key):
    return page.locator(f'#{card} .stat[data-key="{key}"] .v').inner_text()


def _wait_stat(page, card, key, text):
    page.wait_for_function(
        '([c, k, t]) => { const e = document.querySelector(`#${c} .stat[data-key="${k}"] .v`); return e && e.innerText === t; }',
        arg=[card, key, text],
    )


def _set_box(page, card, name, value):
    page.locator(f"#{card}-{name}").fill(str(value))  # fill() fires the input event


def _assert_clean(page):
    # a request superseded by a newer one (hx-sync "replace") is aborted and htmx reports the abort;
    # that is expected when one change fires both input and change. Everything else must be clean.
    page.watch.errors = [e for e in page.watch.errors if not e.startswith(("htmx:sendAbort,", "htmx:afterRequest,"))]
    page.watch.assert_clean()


# card, control, new value, (stat key, text at the book's default, text after the change)
CASES = [
    ("serial-wait", "n_seeks", 10, ("total_ms", "201", "101")),
    ("amdahl-team", "part_pct", 80, ("new_total_h", "84", "36")),
    ("weight-bytes", "n_gpus", 4, ("bf16_per_gpu_gb", "70.55", "35.28")),
    ("fig-1-7", "n_gpus", 2, ("per_gpu_total_gb", "78.56", "40.35")),
    ("link-conversion", "link_gbit_s", 800, ("link_gbps", "50", "100")),
]


@pytest.mark.parametrize("cid,name,value,stat", CASES, ids=[c[0] for c in CASES])
def test_moving_a_control_changes_the_output(page, server, cid, name, value, stat):
    key, before, after = stat
    page.goto(server + f"/cards/{cid}")
    page.wait_for_selector(f'#{cid} .stat[data-key="{key}"]')
    assert _stat(page, cid, key) == before
    _set_box(page, cid, name, value)
    _wait_stat(page, cid, key, after)
    assert f"{name}={value}" in page.url
    _assert_clean(page)


def test_fig_1_6_select_and_row_click(page, server):
    page.goto(server + "/cards/fig-1-6")
    page.wait_for_function(
        "() => document.getElementById('plot-fig-1-6-0') && document.getElementById('plot-fig-1-6-0').data"
    )
    assert _stat(page, "fig-1-6", "ratio") == "100,000"
    page.select_option("#fig-1-6-row_b", "round-trip-datacenter")
    _wait_stat(page, "fig-1-6", "ratio", "5,000")
    # clicking a row's "A" in the picker sets row_a through the same control
    page.locator('#fig-1-6 a[data-set-param="row_a"][data-value="l1-cache-reference"]').click()
    _wait_stat(page, "fig-1-6", "ratio", "1,000,000")
    assert page.locator("#fig-1-6-row_a").input_value() == "l1-cache-reference"
    _assert_clean(page)


def test_amdahl_team_preset(page, server):
    page.goto(server + "/cards/amdahl-team")
    page.wait_for_selector('#amdahl-team .stat[data-key="speedup"]')
    assert _stat(page, "amdahl-team", "speedup") == "1.19"
    page.locator('#amdahl-team a[data-set-param="part_pct"][data-value="80"]').click()
    _wait_stat(page, "amdahl-team", "speedup", "2.78")
    _assert_clean(page)


def test_fig_1_7_over_limit_and_bars(page, server):
    page.goto(server + "/cards/fig-1-7")
    page.wait_for_function(
        "() => document.getElementById('plot-fig-1-7-0') && document.getElementById('plot-fig-1-7-0').data"
    )
    assert "刚好放下" in _stat(page, "fig-1-7", "fits")
    page.select_option("#fig-1-7-precision", "bf16")
    page.wait_for_function(
        "() => document.querySelector('#fig-1-7 .stat[data-key=\"fits\"] .v').innerText.startsWith('放不下')"
    )
    _set_box(page, "fig-1-7", "n_gpus", 2)
    page.wait_for_function("() => document.getElementById('plot-fig-1-7-0').data[0].x.length === 2")
    assert _stat(page, "fig-1-7", "per_gpu_total_gb") == "74.04"
    assert page.locator("#fig-1-7 .badge-ill").count() > 0  # the even split is the page's own rule
    _assert_clean(page)


def test_ex_1_2_reserve_changes_grid(page, server):
    page.goto(server + "/cards/ex-1-2")
    page.wait_for_selector("#ex-1-2 details.answer-grid")
    grid = page.locator("#ex-1-2 details.answer-grid")
    grid.locator("summary").click()
    before = grid.inner_text()
    assert "146.11" in before
    _set_box(page, "ex-1-2", "reserve_gb", 10)
    page.wait_for_function("() => document.querySelector('#ex-1-2 details.answer-grid').textContent.includes('151.11')")
    assert "每卡预留 10 GB" in page.locator("#ex-1-2 .headline").inner_text()
    _assert_clean(page)


def test_section_page_loads_every_card(page, server):
    page.goto(server + "/ch/1/1.2")
    ids = [
        "fig-1-6",
        "serial-wait",
        "amdahl-team",
        "four-quantities",
        "gpu-cheatsheet",
        "weight-bytes",
        "fig-1-7",
        "link-conversion",
        "ex-1-2",
    ]
    for cid in ids:
        page.locator(f"#{cid}").scroll_into_view_if_needed()
        page.wait_for_selector(f"#r-{cid} :is(.stats, .block, .figs, .questions)", timeout=10000)
    page.wait_for_function("() => document.querySelectorAll('.result.lazy .loading').length === 0", timeout=10000)
    # reading order follows the prose
    order = page.evaluate("() => Array.from(document.querySelectorAll('article.card')).map(a => a.id)")
    assert [i for i in order if i in ids] == ids
    _assert_clean(page)
