"""Screens (issue 26.6 and 26.8), measured in a browser and photographed: at 390 px (a phone, touch), 1366 px and
1920 px no axis title or tick label leaves its chart, no number breaks inside a table cell, nothing widens the
page, and a glossary definition opened near the right edge stays on screen; in the presenter at 1366×768 and
1920×1080 every chart of 图 3-1 and every tile is on screen, tick labels are at least 14 px, and Plotly's mode
bar shows neither there nor on a touch screen. Log axes show the figure's own labels (decades, 2 and 5 as full
values). Screenshots are taken when $SCREENS_DIR names where to put them (to look at them). ``make test``
measures each page at one of the sizes (tests/sampling.py), ``make test-full`` at every size."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.sampling import spread

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
WIDTHS = {
    "phone": PHONE,
    "1366": {"viewport": {"width": 1366, "height": 768}},
    "1920": {"viewport": {"width": 1920, "height": 1080}},
}
PAGES = ["/cards/fig-3-1", "/tools/fit", "/cards/eg-1-1", "/cards/fig-3-28", "/cards/prefix-cache-4round"]
READY = """() => { const ps = Array.from(document.querySelectorAll('.plot'));
  return ps.length > 0 && ps.every(p => p.data && p.querySelector('.main-svg')); }"""

# every axis title and tick label against its chart's svg (its drawn box, 1 px of rounding allowed)
CLIPPED = """() => {
  const out = [];
  document.querySelectorAll('.plot').forEach(plot => {
    const svg = plot.querySelector('.main-svg').getBoundingClientRect();
    plot.querySelectorAll('.g-xtitle text, .g-ytitle text, .xtick text, .ytick text, .annotation-text').forEach(t => {
      const r = t.getBoundingClientRect();
      if (!t.textContent.trim() || r.width === 0) return;
      if (r.left < svg.left - 1 || r.right > svg.right + 1 || r.top < svg.top - 1 || r.bottom > svg.bottom + 1)
        out.push(plot.id + ': ' + t.textContent + ' ' + JSON.stringify([r.left, r.right, r.top, r.bottom]) +
                 ' svg ' + JSON.stringify([svg.left, svg.right, svg.top, svg.bottom]));
    });
  });
  return out;
}"""
# a number cell on more than one line, or a cell whose digits the page lets break
BROKEN_NUMBERS = """() => {
  const out = [];
  document.querySelectorAll('table.data td.num').forEach(td => {
    const range = document.createRange();
    range.selectNodeContents(td);
    // lines: boxes that do not overlap the line above vertically (a 示意 badge sits inside its line)
    const rects = Array.from(range.getClientRects()).filter(r => r.width > 0).sort((a, b) => a.top - b.top);
    let lines = 0, bottom = -Infinity;
    rects.forEach(r => { if (r.top >= bottom - 1) { lines += 1; bottom = r.bottom; } else bottom = Math.max(bottom, r.bottom); });
    const cs = getComputedStyle(td);
    if (lines > 1 || cs.whiteSpace !== 'nowrap' || !cs.fontVariantNumeric.includes('tabular-nums'))
      out.push(td.textContent + ' lines=' + lines + ' ' + cs.whiteSpace);
  });
  return out;
}"""
WIDER = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"


def _shots() -> Path | None:
    """Where to photograph the pages ($SCREENS_DIR), or None: nothing asserts on a photograph, and a
    full-page one at twice the pixels costs the suite more than the measuring does."""
    if not os.environ.get("SCREENS_DIR"):
        return None
    d = Path(os.environ["SCREENS_DIR"])
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.mark.parametrize(("size", "pages"), spread(WIDTHS, PAGES, sample=PAGES))
def test_charts_and_tables_fit_the_screen(browser, server, size, pages):
    ctx = browser.new_context(service_workers="block", **WIDTHS[size])
    page = ctx.new_page()
    shots, bad = _shots(), {}
    try:
        for path in pages:
            page.goto(server + path)
            page.wait_for_function(READY)
            page.wait_for_timeout(200)  # a resize-driven redraw settles
            name = path.strip("/").replace("/", "-")
            if shots:
                page.screenshot(path=str(shots / f"{size}-{name}.png"), full_page=True)
            clipped, numbers, wider = page.evaluate(CLIPPED), page.evaluate(BROKEN_NUMBERS), page.evaluate(WIDER)
            if clipped or numbers or wider > 0:
                bad[path] = {"clipped": clipped, "numbers": numbers, "wider_by": wider}
            if size == "phone":  # a touch screen: no mode bar over the chart's top labels
                assert page.locator(".modebar").count() == 0, path
    finally:
        ctx.close()
    assert not bad, bad


def test_table_numbers_are_cells_of_one_line(browser, server):
    ctx = browser.new_context(service_workers="block", **PHONE)
    page = ctx.new_page()
    try:
        page.goto(server + "/tools/fit")
        page.wait_for_function(READY)
        assert page.locator("table.data td.num").count() >= 10  # the measured points' table is checked
        assert page.evaluate(BROKEN_NUMBERS) == []
    finally:
        ctx.close()


def test_a_definition_near_the_right_edge_stays_on_screen(browser, server):
    ctx = browser.new_context(service_workers="block", **PHONE)
    page = ctx.new_page()
    try:
        page.goto(server + "/tools/fit")
        vw = page.evaluate("document.documentElement.clientWidth")
        # the visible term whose left edge is furthest right
        idx = page.evaluate(
            """() => { let best = -1, x = -1;
              document.querySelectorAll('.term').forEach((t, i) => { const r = t.getBoundingClientRect();
                if (r.width && r.left > x && r.right < document.documentElement.clientWidth) { x = r.left; best = i; } });
              return best; }"""
        )
        term = page.locator(".term").nth(idx)
        term.scroll_into_view_if_needed()
        left = term.evaluate("t => t.getBoundingClientRect().left")
        assert left > vw * 0.55, left  # a term near the right edge
        term.tap()
        box = term.evaluate(
            """t => { const r = t.getBoundingClientRect(), a = getComputedStyle(t, '::after');
              const x = r.left + parseFloat(a.left), w = parseFloat(a.width) + parseFloat(a.paddingLeft)
                + parseFloat(a.paddingRight) + parseFloat(a.borderLeftWidth) + parseFloat(a.borderRightWidth);
              return {content: a.content, left: x, right: x + w}; }"""
        )
        if shots := _shots():
            page.screenshot(path=str(shots / "phone-tooltip.png"))
        assert box["content"].startswith('"') and len(box["content"]) > 4, box  # the definition shows
        assert 0 <= box["left"] and box["right"] <= vw, box
    finally:
        ctx.close()


PRESENTED = """() => {
  const vw = document.documentElement.clientWidth, vh = window.innerHeight, out = [];
  document.querySelectorAll('.card .plot .main-svg').forEach(s => { const r = s.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > vh + 0.5 || r.right > vw + 0.5 || r.height < 150)
      out.push('chart ' + s.closest('.plot').id + ' ' + JSON.stringify([r.left, r.top, r.right, r.bottom])); });
  document.querySelectorAll('.card .result > dl.stats .stat').forEach(t => { const r = t.getBoundingClientRect();
    if (r.top < 0 || r.left < 0 || r.bottom > vh + 0.5 || r.right > vw + 0.5)
      out.push('tile ' + t.dataset.key + ' ' + JSON.stringify([r.left, r.top, r.right, r.bottom])); });
  return {off: out, scrolled: window.scrollY, charts: document.querySelectorAll('.card .plot').length,
          ticks: Array.from(document.querySelectorAll('.card .plot .xtick text, .card .plot .ytick text'))
                   .map(t => parseFloat(getComputedStyle(t).fontSize)),
          modebars: document.querySelectorAll('.modebar').length};
}"""


@pytest.mark.parametrize("width,height", [(1366, 768), (1920, 1080)])
def test_presenter_shows_every_chart_and_tile(browser, server, width, height):
    ctx = browser.new_context(viewport={"width": width, "height": height}, service_workers="block")
    page = ctx.new_page()
    try:
        page.goto(server + "/present/fig-3-1")
        page.wait_for_function(READY)
        page.wait_for_timeout(200)
        if shots := _shots():
            page.screenshot(path=str(shots / f"present-{width}-fig-3-1.png"))
        r = page.evaluate(PRESENTED)
        assert r["charts"] == 3 and r["scrolled"] == 0
        assert r["off"] == [], r["off"]
        assert r["ticks"] and min(r["ticks"]) >= 14, r["ticks"]
        assert r["modebars"] == 0
    finally:
        ctx.close()


def test_mode_bar_stays_for_a_mouse_on_a_desktop(page, server):
    page.goto(server + "/cards/eg-1-1")
    page.wait_for_function(READY)
    assert page.locator("#plot-eg-1-1-0 .modebar").count() == 1


def test_log_axis_labels_are_the_figures_full_values(page, server):
    page.goto(server + "/cards/eg-1-1?batch=186")
    page.wait_for_function(READY)
    shown = page.evaluate(
        "() => Array.from(document.querySelectorAll('#plot-eg-1-1-0 .ytick text')).map(t => t.textContent)"
    )
    sent = page.evaluate("() => document.getElementById('plot-eg-1-1-0').layout.yaxis.ticktext")
    assert shown and set(shown) <= set(sent)
    assert set(shown) <= {"0.01", "0.1", "1", "10", "100", "1,000", "10,000"}, shown  # decades, no bare 2 or 5
    xs = page.evaluate(
        "() => Array.from(document.querySelectorAll('#plot-eg-1-1-0 .xtick text')).map(t => t.textContent)"
    )
    assert "2" not in xs and "5" not in xs, xs
