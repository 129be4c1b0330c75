"""Section 3.3 in a browser: 图 3-18 plays, buffer-drain follows its controls, the section page is clean."""

from __future__ import annotations

import re


def _ready(page, pid):
    page.wait_for_function(f"() => document.getElementById('{pid}') && document.getElementById('{pid}').data")


def _stat(page, card, key):
    return page.locator(f'#{card} .stat[data-key="{key}"] .v').inner_text()


def test_fig_3_18_plays(page, server):
    page.goto(server + "/cards/fig-3-18")
    _ready(page, "plot-fig-3-18-0")
    assert _stat(page, "fig-3-18", "first_arrival_ms") == "38"
    assert _stat(page, "fig-3-18", "stall_total_ms") == "10"
    clock = "() => document.getElementById('plot-fig-3-18-0').data[5].x[0]"
    end = page.evaluate(clock)
    n_frames = page.evaluate("() => document.getElementById('plot-fig-3-18-0')._transitionData._frames.length")
    assert n_frames >= 10
    page.locator("#plot-fig-3-18-0 .updatemenu-button").first.click()
    # the clock restarts near zero and moves forward
    page.wait_for_function(f"() => ({clock})() < {end} * 0.5", timeout=10000)
    early = page.evaluate(clock)
    page.wait_for_function(f"() => ({clock})() > {early}", timeout=10000)
    # the buffer curve grows with the clock (fewer points early on, all of them at the end)
    page.wait_for_function(f"() => ({clock})() >= {end} - 1e-6", timeout=15000)
    assert page.evaluate("() => document.getElementById('plot-fig-3-18-0').data[4].x.length") > 10
    page.watch.assert_clean()


def test_fig_3_18_buffer_60_removes_the_stall(page, server):
    page.goto(server + "/cards/fig-3-19?initial_buffer_ms=60")
    assert "/cards/fig-3-18?initial_buffer_ms=60" in page.url
    _ready(page, "plot-fig-3-18-0")
    assert _stat(page, "fig-3-18", "play_start_ms") == "98"
    assert _stat(page, "fig-3-18", "n_stalls") == "0"
    page.watch.assert_clean()


def test_buffer_drain_follows_controls(page, server):
    page.goto(server + "/cards/buffer-drain")
    _ready(page, "plot-buffer-drain-0")
    assert _stat(page, "buffer-drain", "drain_s") == "3.00"
    b_end = "() => { const d = document.getElementById('plot-buffer-drain-0').data[2]; return d.x[d.x.length - 1]; }"
    assert abs(page.evaluate(b_end) - 3.0) < 1e-6
    box = page.locator("#buffer-drain-initial_buffer_s")
    box.fill("0.6")  # fill() fires one input event: one request
    page.wait_for_function(
        "() => document.querySelector('#buffer-drain .stat[data-key=\"drain_s\"] .v').innerText === '6.00'"
    )
    page.wait_for_function(f"() => Math.abs(({b_end})() - 6) < 1e-6")
    rate = page.locator("#buffer-drain-arrival_rate_s_per_s")
    rate.fill("0.8")
    page.wait_for_function(
        "() => document.querySelector('#buffer-drain .stat[data-key=\"drain_s\"] .v').innerText === '3.00'"
    )
    assert re.search(r"/cards/buffer-drain\?.*arrival_rate_s_per_s=0.8", page.url)
    rate.fill("1")
    page.wait_for_function(
        "() => document.querySelector('#buffer-drain .stat[data-key=\"drain_s\"] .v').innerText.includes('不会耗尽')"
    )
    page.watch.assert_clean()


def test_handoff_diagram_click(page, server):
    page.goto(server + "/cards/epd-handoff")
    page.wait_for_selector('#epd-handoff .stat[data-key="receiver_stages"]')
    assert _stat(page, "epd-handoff", "receiver_stages") == "P → D"
    page.locator('#epd-handoff a.part[data-value="kv"] circle').click()
    page.wait_for_function(
        "() => document.querySelector('#epd-handoff .stat[data-key=\"receiver_stages\"] .v').innerText === 'D'"
    )
    assert "handoff=kv" in page.url
    page.watch.assert_clean()


def test_section_3_3_page_is_clean(page, server):
    page.goto(server + "/ch/3/3.3")
    page.wait_for_selector("#fig-3-15")
    for _ in range(12):
        page.mouse.wheel(0, 1500)
        page.wait_for_timeout(150)
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_function("() => document.querySelectorAll('.result.lazy .loading').length === 0", timeout=15000)
    for cid in (
        "fig-3-15",
        "vision-reuse-table",
        "epd-handoff",
        "speech-loop",
        "image-gen-loop",
        "fig-3-18",
        "buffer-drain",
        "aoi-observe",
        "multimodal-pipeline",
    ):
        assert page.locator(f"#{cid}").count() == 1, cid
    page.watch.assert_clean()
