"""Section 3.1 and the chapter-3 opener in a real browser: 例题 3-1 plays and its backlog grows in the
second minute; the preset buttons switch scenarios; the opener and section pages load cleanly."""

from __future__ import annotations

PLOT = "plot-eg-3-1-0"
READY = f"() => {{ const el = document.getElementById('{PLOT}'); return el && el.data && el.data.length >= 4; }}"
LAST_Q = f"() => {{ const d = document.getElementById('{PLOT}').data[2]; return [d.x[d.x.length - 1], d.y[d.y.length - 1]]; }}"


def _stat(page, card, key):
    return page.locator(f'#{card} .stat[data-key="{key}"] .v').inner_text()


def test_eg_3_1_play_backlog_grows_in_second_minute(page, server):
    page.goto(server + "/cards/eg-3-1")
    page.wait_for_function(READY)
    assert _stat(page, "eg-3-1", "backlog_end_steps_display") == "112,792"
    t_end, q_end = page.evaluate(LAST_Q)  # before ▶ the chart shows the whole run
    assert t_end > 140 and q_end == 0
    page.locator(f"#{PLOT} .updatemenu-button").first.click()  # ▶ 播放
    samples: list[tuple[float, float]] = []
    for _ in range(400):
        t, q = page.evaluate(LAST_Q)
        if not samples or samples[-1] != (t, q):
            samples.append((t, q))
        if t >= 125:
            break
        page.wait_for_timeout(40)
    first_minute = [q for t, q in samples if 0 < t <= 60]
    second_minute = [(t, q) for t, q in samples if 62 <= t <= 120]
    assert first_minute and all(q == 0 for q in first_minute), samples
    assert len(second_minute) >= 3, samples
    qs = [q for _, q in second_minute]
    assert all(b > a for a, b in zip(qs, qs[1:])), second_minute  # grows second by second
    peak = max(q for _, q in samples)
    assert 100_000 < peak <= 112_793
    page.watch.assert_clean()


def test_eg_3_1_preset_button_switches_to_burst(page, server):
    page.goto(server + "/cards/eg-3-1")
    page.wait_for_function(READY)
    page.locator('#eg-3-1 a.preset[data-value="burst30_2cards"]').click()
    page.wait_for_function(
        "() => document.querySelector('#eg-3-1 .stat[data-key=\"backlog_end_steps_display\"] .v').innerText === '56,396'"
    )
    assert "preset=burst30_2cards" in page.url
    assert _stat(page, "eg-3-1", "drain_s") == "10.09"
    page.watch.assert_clean()


def test_exercise_links_back_with_preset(page, server):
    page.goto(server + "/cards/ex-3-2")
    page.locator('#ex-3-2 a[href*="preset=burst30_3cards"]').click()
    page.wait_for_function(READY)
    assert _stat(page, "eg-3-1", "backlog_end_steps_display") == "0"
    assert page.locator("#eg-3-1-preset").input_value() == "burst30_3cards"
    page.watch.assert_clean()


def test_opener_and_section_pages_load_cleanly(page, server):
    page.goto(server + "/ch/3")
    page.wait_for_function(
        "() => { const el = document.getElementById('plot-intro-two-minutes-0'); return el && el.data; }"
    )
    assert _stat(page, "intro-two-minutes", "backlog_end_steps_display") == "112,792"
    page.goto(server + "/ch/3/3.1")
    for rid in page.evaluate("() => Array.from(document.querySelectorAll('.result.lazy')).map(e => e.id)"):
        page.locator(f"#{rid}").scroll_into_view_if_needed()
        page.wait_for_function(f"() => !document.querySelector('#{rid} .loading')", timeout=15000)
    for cid in (
        "fig-3-1",
        "ex-3-1",
        "fig-3-2",
        "metrics-table",
        "p95-nearest-rank",
        "fig-3-3",
        "eg-3-1",
        "real-replay",
    ):
        assert page.locator(f"article#{cid}").count() == 1, cid
    page.watch.assert_clean()
