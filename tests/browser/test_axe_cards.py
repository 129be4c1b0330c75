"""axe-core on every card page and every presenter view, in the light and the dark theme: no serious
or critical violation. One context, one page reused; axe is injected by an init script. The theme is
switched in place on the loaded page, and in the second theme only the colour rules run again (the
DOM is the same; only colours change). ``make test`` checks a sample of the cards (one of each kind in
each chapter, tests/sampling.py), ``make test-full`` every card."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app.cards import REGISTRY

from tests.sampling import spread

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
RUN = """async (rules) => {
  const opts = {resultTypes: ['violations']};
  if (rules) opts.runOnly = {type: 'rule', values: rules};
  const r = await axe.run(document, opts);
  return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => ({id: v.id, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ' · ' + (n.failureSummary || '').slice(0, 160))}));
}"""
THEME = """(t) => {
  document.documentElement.setAttribute('data-theme', t);
  return getComputedStyle(document.body).backgroundColor;
}"""


@pytest.fixture(scope="module")
def axe_page(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.add_init_script("try { localStorage.setItem('theme', 'light'); } catch (e) {}")
    ctx.add_init_script(AXE.read_text(encoding="utf-8"))
    page = ctx.new_page()
    yield page
    ctx.close()


@pytest.mark.parametrize(("view", "cards"), spread(["cards", "present"], REGISTRY))
def test_every_card_has_no_serious_axe_violation_in_either_theme(axe_page, server, view, cards):
    page, bad = axe_page, {}
    for cid in cards:
        page.goto(f"{server}/{view}/{cid}")
        page.wait_for_load_state("load")
        assert page.evaluate("() => typeof axe") == "object"
        light_bg = page.evaluate(THEME, "light")
        found = page.evaluate(RUN, None)
        dark_bg = page.evaluate(THEME, "dark")
        if view == "cards":
            assert dark_bg != light_bg, (cid, light_bg)  # the dark theme really applies
        found += [dict(v, theme="dark") for v in page.evaluate(RUN, COLOUR_RULES)]
        if found:
            bad[cid] = found
    assert not bad, json.dumps(bad, ensure_ascii=False, indent=1)
