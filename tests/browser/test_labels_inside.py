"""No chart label is cut off by its chart's bounds: a reference line's label over the top (a
projector's larger type) or beside a side (a phone's narrow chart) is moved inside once drawn. Before
this, 11 cards' labels were cut in the presenter (B*≈148 on 例题 1-1) and 4 on a phone (图 3-9's
and tpu-scale-cost's ran off the right by up to 89 px). ``make test`` opens a sample of the cards
(tests/sampling.py), ``make test-full`` every card with a chart."""

from __future__ import annotations

import pytest

from tests.browser.test_presenter_fit import WITH_CHART, each_chart_card
from tests.sampling import spread

CUT_LABELS = """() => [...document.querySelectorAll('.plot')].flatMap(el => {
  const svg = el.querySelector('.main-svg'); if (!svg) return [];
  const r = svg.getBoundingClientRect();
  return [...el.querySelectorAll('.annotation-text')].map(a => {
    const b = a.getBoundingClientRect();
    return [el.id, a.textContent, Math.round(Math.max(r.top - b.top, b.bottom - r.bottom, r.left - b.left, b.right - r.right))];
  }).filter(x => x[2] > 1);
})"""
SETTLED = "() => [...document.querySelectorAll('.plot')].every(el => !el.data || el.querySelector('.main-svg'))"


@pytest.mark.parametrize(("where", "cards"), spread(["present-1366x768", "cards-390x844"], WITH_CHART))
def test_no_chart_label_is_cut_off(browser, server, where, cards):
    view, size = where.split("-")
    width, height = (int(x) for x in size.split("x"))
    cut = {}
    for cid, page in each_chart_card(browser, server, view, width, height, cards):
        page.wait_for_function(SETTLED)
        page.wait_for_timeout(100)  # the one relayout that moves a label inside
        got = page.evaluate(CUT_LABELS)
        if got:
            page.wait_for_timeout(1000)  # a slow machine: look again before calling it cut
            got = page.evaluate(CUT_LABELS)
        if got:
            cut[cid] = got
    assert not cut, cut
