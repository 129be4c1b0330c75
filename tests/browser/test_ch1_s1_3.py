"""Section 1.3 in a browser: 图 1-10's ▶ plays, it follows 例题 1-1's sliders on the section page,
and 练习 1-3's preset links load their conditions into 例题 1-1."""

from __future__ import annotations

import re

PLOT = "plot-fig-1-10-0"


def _stat(page, card, key):
    return page.locator(f'#{card} .stat[data-key="{key}"] .v').inner_text()


def _widths(page, trace=0):
    return page.evaluate(f"() => Array.from(document.getElementById('{PLOT}').data[{trace}].x)")


def test_fig_1_10_play_advances_frames(page, server):
    page.goto(server + "/cards/fig-1-10?batch=300")
    page.wait_for_function(f"() => document.getElementById('{PLOT}') && document.getElementById('{PLOT}').data")
    full = _widths(page)
    assert len(full) == 8 and all(w > 0 for w in full)
    assert _stat(page, "fig-1-10", "batch_ms") == "42.45"
    page.locator(f"#{PLOT} .updatemenu-button").first.click()
    # an early frame: the last read chunk has not arrived yet
    page.wait_for_function(f"() => document.getElementById('{PLOT}').data[0].x[7] < {full[7]} * 0.5", timeout=5000)
    mid = _widths(page, 1)
    # later frames: the compute lane keeps filling until the whole schedule is drawn again
    page.wait_for_function(
        f"() => document.getElementById('{PLOT}').data[1].x[7] >= {_widths(page, 1)[7]} "
        f"&& document.getElementById('{PLOT}').data[0].x[7] >= {full[7]} * 0.999",
        timeout=10000,
    )
    end = _widths(page, 1)
    assert sum(end) > sum(mid)
    page.watch.assert_clean()


def test_fig_1_10_follows_eg_1_1_on_section_page(page, server):
    page.goto(server + "/ch/1/1.3")
    page.wait_for_function(
        "() => document.getElementById('plot-eg-1-1-0') && document.getElementById('plot-eg-1-1-0').data"
    )
    page.locator("#fig-1-10").scroll_into_view_if_needed()
    page.wait_for_selector('#fig-1-10 .stat[data-key="throughput_tok_s"]')
    assert _stat(page, "fig-1-10", "throughput_tok_s") == "47.9"
    page.locator("#eg-1-1").scroll_into_view_if_needed()
    # one input event, as a typed value sends (fill() + a second dispatched event would make htmx
    # abort the first request, which it logs as a console error)
    page.locator("#eg-1-1-batch").evaluate(
        "b => { b.value = '8'; b.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    page.wait_for_function(
        "() => document.querySelector('#fig-1-10 .stat[data-key=\"throughput_tok_s\"] .v').innerText === '383'",
        timeout=10000,
    )
    assert page.locator("#fig-1-10-batch").input_value() == "8"
    assert _stat(page, "fig-1-10", "per_output_ms") == "2.61"
    assert _stat(page, "fig-1-10", "batch_ms") == "20.90"
    page.watch.assert_clean()


def test_ex_1_3_preset_link_loads_eg_1_1(page, server):
    page.goto(server + "/cards/ex-1-3")
    link = page.locator("#ex-1-3 .load-links a", has_text="B = 64,读取减半")
    link.click()
    page.wait_for_selector('#eg-1-1 .stat[data-key="t_step_ms"]')
    assert re.search(r"/cards/eg-1-1\?.*compute_eff_pct=50", page.url)
    assert _stat(page, "eg-1-1", "t_step_ms") == "18.11"
    assert page.locator("#eg-1-1-batch").input_value() == "64"
    assert page.locator("#eg-1-1-bytes_per_param").input_value() == "0.5"
    page.watch.assert_clean()


def test_batch_drag_moves_the_tile_and_the_live_prose_number(page, server):
    """On /ch/1/1.3 the worked arithmetic follows 例题 1-1: B = 8 makes F = 1120 GFLOP and F/Π = 1.132 ms,
    in the tile and in the prose sentence above the card."""
    page.goto(server + "/ch/1/1.3")
    page.wait_for_function(
        "() => document.getElementById('plot-eg-1-1-0') && document.getElementById('plot-eg-1-1-0').data"
    )
    live = page.locator('a.live[data-card="eg-1-1"][data-key="t_compute_ms"]')
    flops = page.locator('a.live[data-card="eg-1-1"][data-key="f_per_gpu_gflop"]')
    assert live.inner_text() == "0.1415 ms" and flops.inner_text() == "140 GFLOP"
    assert _stat(page, "eg-1-1", "t_compute_ms") == "0.1415"
    page.locator("#eg-1-1-batch").evaluate(
        "b => { b.value = '8'; b.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    page.wait_for_function(
        "() => document.querySelector('#eg-1-1 .stat[data-key=\"t_compute_ms\"] .v').innerText === '1.132'",
        timeout=10000,
    )
    page.wait_for_function(
        '() => document.querySelector(\'a.live[data-card="eg-1-1"][data-key="t_compute_ms"]\').innerText'
        " === '1.132 ms'",
        timeout=10000,
    )
    assert flops.inner_text() == "1,120 GFLOP"
    # the read bound did not move: the prose keeps 20.90 ms
    reads = page.locator('a.live[data-card="eg-1-1"][data-key="t_mem_ms"]').all_inner_texts()
    assert reads and set(reads) == {"20.90 ms"}, reads  # every place the prose quotes it (1.3.2 twice)
    page.watch.assert_clean()
