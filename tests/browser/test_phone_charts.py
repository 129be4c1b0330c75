"""Phones first for reading (issue 40.4): every chart card, at 390×844 (a phone, touch), 768×1024 (a
tablet) and 1366×768 (a laptop), draws every label of its charts inside the chart and on its own: no
axis title, tick label, legend entry, annotation or animation button leaves its chart's svg, and no two
of them overlap (nor an axis title the mode bar or the ▶/❚❚ buttons). ``make test`` opens a sample of the
cards (tests/sampling.py), ``make test-full`` every card with a chart."""

from __future__ import annotations

import pytest

from tests.browser.test_presenter_fit import ANSWERS_FIRST, WITH_CHART
from tests.sampling import spread

# the phone, the tablet and the laptop the issue names; the phone is a touch screen (no mode bar)
VIEWPORTS = {
    "390x844": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
    "768x1024": {"viewport": {"width": 768, "height": 1024}, "has_touch": True},
    "1366x768": {"viewport": {"width": 1366, "height": 768}},
}
# the cards the issue names (图 3-30, 图 1-6, the speech loop, 图 3-1) run in the sample too
NAMED = ("fig-3-30", "fig-1-6", "speech-loop", "fig-3-1")
SETTLED = """() => { const ps = [...document.querySelectorAll('.plot')];
  return ps.length > 0 && ps.every(p => !p.data || p.querySelector('.main-svg')); }"""

# Every label box of every chart: [chart id, kind, text, box]. Kinds: tick (one axis's tick label),
# title (an axis or chart title), legend (one entry), note (an annotation), text (a bar's or point's own
# label), button (▶/❚❚, an animation slider's labels), modebar. Then what is outside its svg, and each pair of boxes that intersect by more
# than 1 px both ways (ticks of one axis against each other too; a legend entry's own parts are one box;
# the mode bar, shown on hover, only against titles; a trace's labels against another trace's are not
# counted: an animated cursor's label crosses the bars it passes).
LABELS = """() => {
  const out = {clipped: [], overlaps: []};
  const box = r => [Math.round(r.left), Math.round(r.top), Math.round(r.right), Math.round(r.bottom)];
  document.querySelectorAll('.plot').forEach(plot => {
    const svgEl = plot.querySelector('.main-svg'); if (!svgEl) return;
    const svg = svgEl.getBoundingClientRect(), items = [];
    const add = (kind, el, group) => { const r = el.getBoundingClientRect();
      if (!r.width || !r.height) return;
      const cs = getComputedStyle(el); if (cs.visibility === 'hidden' || cs.display === 'none' || +cs.opacity === 0) return;
      items.push({kind, group, text: (el.textContent || '').trim().slice(0, 40), r}); };
    plot.querySelectorAll('.xaxislayer-above, .yaxislayer-above').forEach((layer, i) =>
      layer.querySelectorAll('text').forEach(t => t.textContent.trim() && add('tick', t, 'axis' + i)));
    plot.querySelectorAll('.infolayer g[class^="g-"][class$="title"] text').forEach(t => t.textContent.trim() && add('title', t));
    plot.querySelectorAll('.legend .traces').forEach(t => add('legend', t));
    plot.querySelectorAll('.annotation-text').forEach(t => t.textContent.trim() && add('note', t));
    plot.querySelectorAll('.updatemenu-button').forEach(b => add('button', b));
    plot.querySelectorAll('.slider-label, .slider-current-value').forEach(t => t.textContent.trim() && add('button', t, 'slider'));
    plot.querySelectorAll('.bartext, .textpoint text').forEach(t => { const g = t.closest('g.trace'), d = g && g.__data__;
      if (t.textContent.trim()) add('text', t, 'trace' + (d && d[0] && d[0].trace ? d[0].trace.index : '?')); });
    plot.querySelectorAll('.modebar').forEach(m => add('modebar', m));
    items.forEach(a => { if (a.kind === 'modebar') return;
      const r = a.r;
      if (r.left < svg.left - 1 || r.right > svg.right + 1 || r.top < svg.top - 1 || r.bottom > svg.bottom + 1)
        out.clipped.push([plot.id, a.kind, a.text, box(r), box(svg)]); });
    for (let i = 0; i < items.length; i++) for (let j = i + 1; j < items.length; j++) {
      const a = items[i], b = items[j];
      if (a.group && a.group === b.group && a.kind === 'button') continue;   // a slider's labels sit on its own rail
      // a trace's labels against another trace's: a moving cursor's label crosses the bars' (an animation)
      if (a.kind === 'text' && b.kind === 'text' && a.group !== b.group) continue;
      if ((a.kind === 'modebar') !== (b.kind === 'modebar') && a.kind !== 'title' && b.kind !== 'title') continue;   // shown on hover only: titles stay clear
      const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (w > 1 && h > 1) out.overlaps.push([plot.id, a.kind + ':' + a.text, b.kind + ':' + b.text]);
    }
  });
  return out;
}"""


def _url(server: str, cid: str) -> str:
    return f"{server}/cards/{cid}" + ("?answers=shown" if cid in ANSWERS_FIRST else "")


def measure(browser, server, size: str, cards: list[str]) -> dict[str, dict]:
    """The cut and overlapping labels of each of ``cards`` opened at ``size`` (only cards with any)."""
    ctx = browser.new_context(service_workers="block", **VIEWPORTS[size])
    page = ctx.new_page()
    bad: dict[str, dict] = {}
    try:
        for cid in cards:
            page.goto(_url(server, cid))
            page.wait_for_function(SETTLED)
            page.wait_for_timeout(150)  # the one relayout that moves a label inside
            got = page.evaluate(LABELS)
            if got["clipped"] or got["overlaps"]:
                page.wait_for_timeout(1000)  # a slow machine: look again before calling it cut
                got = page.evaluate(LABELS)
            if got["clipped"] or got["overlaps"]:
                bad[cid] = got
    finally:
        ctx.close()
    return bad


@pytest.mark.parametrize(("size", "cards"), spread(VIEWPORTS, WITH_CHART, every=NAMED))
def test_every_chart_label_inside_and_apart(browser, server, size, cards):
    assert len(WITH_CHART) >= 40 and set(cards) <= set(WITH_CHART)
    bad = measure(browser, server, size, cards)
    assert not bad, bad
