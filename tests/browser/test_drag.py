"""Dragging 例题 1-1's B slider with the mouse in Chromium (bench/drag.py): the card follows the hand,
at least 30 distinct states a second while the button is down (both charts and the tiles showing one B in
a frame; requests coalesce to the latest value, none asked for twice), and once the button is released it
ends on the value the slider ended on, with no stale frame (an older answer drawn over it) afterwards.

Marked ``alone``: it runs by itself after the rest of the suite (``make test``'s last step, ``pytest
--alone``). Beside another browser test on this 2-core VM a drag drew 24–45 states a second, alone 33–45
(make bench prints the same measure as a guard row); a drag disturbed anyway is tried again."""

from __future__ import annotations

import pytest
from bench.drag import drag

from tests.browser.conftest import Watch

TRIES = 3  # a drag disturbed by the shared machine is tried again; every try must end right
STATES_PER_S = 30  # issue 35.3: at the speed of the eye


@pytest.mark.alone
def test_dragging_b_follows_the_hand_and_ends_on_the_final_value(browser, server):
    best = None
    for _ in range(TRIES):
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
        try:
            page = ctx.new_page()
            watch = Watch(page)
            d = drag(page, server)
            watch.assert_clean()
        finally:
            ctx.close()
        assert d["inputs"] >= 2 and d["states"] >= 2, d  # the slider moved and the card followed
        assert d["requests"] <= d["inputs"], d  # one request at most per value change (none on mouse-up)…
        assert d["repeated"] == 0, d  # …and no state asked for twice (neighbouring log positions snap alike)
        assert d["final_shown"] and d["lag_ms"] is not None, d  # the released value is what the card shows…
        assert d["stale_after"] == 0, d  # …and nothing older is drawn over it
        best = d if best is None or d["fps"] > best["fps"] else best
        if best["fps"] >= STATES_PER_S:
            break
    assert best["states"] >= 5, best  # several states drawn during a one-second drag, not only the last…
    assert best["fps"] >= STATES_PER_S, best  # …at least 30 a second


# The card's result as a reader's page holds it, next to the fragment the server sends for the same
# state, asked as the form asked: every element's attributes and every text, in document order (a chart's own drawing inside
# its div left out), so a state put in place can be compared with a state swapped in whole.
SHAPE_JS = """async (card) => {
  const walk = (root) => {
    const out = [];
    const visit = (n) => {
      if (n.nodeType === 3) { out.push('#' + n.nodeValue); return; }
      if (n.nodeType !== 1) return;
      if (n.hasAttribute('hx-preserve')) { out.push('<' + n.nodeName + ' id=' + n.id); return; }  // Plotly's own
      const attrs = Array.from(n.attributes).map(a => a.name + '=' + (a.name === 'class' ? a.value.replace(/\\s*htmx-\\S+/g, '') : a.value));
      out.push('<' + n.nodeName + ' ' + attrs.sort().join(' '));
      n.childNodes.forEach(visit);
    };
    root.childNodes.forEach(visit);
    return out;
  };
  const tpl = document.createElement('template');
  // the form's last request, as it asked (every field of the form)
  const asked = performance.getEntriesByType('resource').filter(e => e.name.includes('/cards/' + card + '/fragment?')).pop();
  tpl.innerHTML = await (await fetch(asked.name)).text();
  return {page: walk(document.getElementById('r-' + card)), served: walk(tpl.content)};
}"""


def test_a_new_state_is_put_in_place_and_equals_the_served_fragment(page, server):
    """A slider's next state changes the card's numbers and figures where they are (the tiles are the
    same elements, not rebuilt), and what the page then holds is what the server sends for that state,
    to the data table's address, which htmx follows (opened, the table is the new state's)."""
    card = "eg-1-1"
    page.goto(f"{server}/cards/{card}")
    page.wait_for_function(f"() => document.getElementById('plot-{card}-1').data")
    tile = f'#{card} .stat[data-key="f_gflop"] .v'
    box = page.locator(f"#{card}-batch")
    for b, text in ((20, "2,800"), (50, "7,000")):
        if b == 50:
            page.eval_on_selector(tile, "(el) => { window.__tile = el; }")
        box.fill(str(b))
        page.wait_for_function("([s, t]) => document.querySelector(s).textContent === t", arg=[tile, text])
    page.wait_for_function("() => /[?&]batch=50/.test(location.search)")
    assert page.evaluate(f"() => window.__tile === document.querySelector('{tile}') && window.__tile.isConnected")
    got = page.evaluate(SHAPE_JS, card)
    assert got["page"] == got["served"]
    with page.expect_request(lambda r: f"/cards/{card}/figure/0.html" in r.url) as asked:
        page.locator(f"#{card} figure[data-idx='0'] details.fig-table summary").click()
    assert "batch=50" in asked.value.url, asked.value.url
    assert page.locator(f"#{card} figure[data-idx='0'] a.csv").get_attribute("href").endswith("?batch=50")
    page.watch.assert_clean()
