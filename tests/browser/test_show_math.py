"""Show the math in the browser: a tile expands (click or keyboard) into its derivation with the
reader's values substituted; moving the batch slider changes the tile, the open derivation and a
live number in the 1.3 prose; a glossary term opens by keyboard."""

from __future__ import annotations

import time


def _ready(page, card="eg-1-1"):
    page.wait_for_function(
        f"() => document.getElementById('plot-{card}-0') && document.getElementById('plot-{card}-0').data"
    )


def test_tile_expands_into_substituted_formula(page, server):
    page.goto(server + "/cards/eg-1-1")
    _ready(page)
    tile = page.locator('#eg-1-1 button.why[data-key="t_compute_ms"]').first
    assert tile.get_attribute("aria-expanded") == "false"
    tile.click()
    panel = page.locator("#why-eg-1-1")
    panel.locator('section.deriv[data-key="t_compute_ms"]').wait_for()
    text = panel.inner_text()
    assert "140 GFLOP ÷ 989.4 TFLOP/s" in text, text  # F/Π_eff with the reader's values
    assert "Π_eff = Π·η_Π" in text or "Π_eff" in text, text
    assert "0.1415 ms" in text
    assert tile.get_attribute("aria-expanded") == "true"
    # keyboard: focus another tile, Enter opens it; Escape closes
    other = page.locator('#eg-1-1 button.why[data-key="b_star"]').first
    other.focus()
    page.keyboard.press("Enter")
    panel.locator('section.deriv[data-key="b_star"]').wait_for()
    assert "989.4 TFLOP/s" in panel.inner_text() and "3.35 TB/s" in panel.inner_text()
    page.keyboard.press("Escape")
    page.wait_for_function("() => document.getElementById('why-eg-1-1').hidden")
    page.watch.assert_clean()


def test_drag_batch_updates_tile_open_derivation_and_live_prose(page, server):
    page.goto(server + "/ch/1/1.3")
    _ready(page)
    live = page.locator('a.live[data-card="eg-1-1"]')
    assert live.count() >= 2, "1.3's worked arithmetic quotes 例题 1-1"
    before = live.all_inner_texts()
    page.locator('#eg-1-1 button.why[data-key="f_gflop"]').first.click()
    page.locator('#why-eg-1-1 section.deriv[data-key="f_gflop"]').wait_for()
    box = page.locator("#eg-1-1-batch")
    box.fill("8")
    box.dispatch_event("input")
    page.wait_for_function(
        "() => document.querySelector('#eg-1-1 .stat[data-key=\"throughput_tok_s\"] .v').innerText === '383'"
    )
    page.wait_for_function(
        "() => (document.querySelector('#why-eg-1-1 section.deriv[data-key=\"f_gflop\"]') || {}).innerText"
        " && document.querySelector('#why-eg-1-1').innerText.includes('2 × 8')"
    )
    after = live.all_inner_texts()
    assert after != before, (before, after)
    assert page.locator('a.live.moved[data-card="eg-1-1"]').count() >= 1
    page.watch.assert_clean()


def _shown(page, sel):
    """The definition a term shows (its ::after box), or '' when none is drawn."""
    return page.evaluate(
        """(sel) => { const s = getComputedStyle(document.querySelector(sel), '::after');
        return s.display !== 'none' && s.content !== 'none' ? s.content : ''; }""",
        sel,
    )


def test_glossary_term_opens_by_keyboard(page, server):
    page.goto(server + "/ch/3/3.1")
    sel = '.term[data-term="ttft"]'
    assert _shown(page, sel) == ""
    page.locator(sel).first.focus()
    assert page.evaluate("() => document.activeElement.dataset.term") == "ttft"
    assert "首 token" in _shown(page, sel)
    # the screen-reader description is the same definition
    desc = page.evaluate(
        "(s) => document.getElementById(document.querySelector(s).getAttribute('aria-describedby')).textContent", sel
    )
    assert "首 token" in desc
    page.keyboard.press("Escape")
    assert _shown(page, sel) == ""
    page.keyboard.press("Tab")
    assert _shown(page, sel) == ""
    page.watch.assert_clean()


def test_worked_solution_is_the_answers_derivation(page, server):
    """练习 1-3: after the hint, 查看解答 opens the answer's own derivation (formula and values)."""
    page.goto(server + "/cards/ex-1-3")
    q = page.locator("li.q").first
    q.locator("details.hint summary").click()
    sol = q.locator("details.solution")
    sol.wait_for(state="visible")
    sol.locator("summary").click()  # asking to see it: the card comes back with this answer shown
    slot = page.locator('li.q[data-q="q1"] details.solution[open] .deriv-solution[data-loaded="1"]')
    slot.wait_for()
    text = slot.inner_text()
    key = q.get_attribute("data-key")
    body = page.evaluate("() => fetch('/api/cards/ex-1-3').then(r => r.json())")
    assert body["derivations"][key]["substituted"] in text, (text, body["derivations"][key])
    page.watch.assert_clean()


def test_an_answer_still_held_never_shows_its_derivation_as_a_question_mark(page, server):
    """Opening 查看解答 asks for the answer (a new fragment) and for its derivation at once. The
    derivation of the page as it was, where the answer still reads "?", must not be shown meanwhile:
    a slow fragment (held 0.6 s here) used to leave that "?" derivation on screen, and the run that
    found it read it instead of the answer's."""
    page.goto(server + "/cards/ex-1-3")
    page.evaluate(
        """() => { window.__loaded = [];
        new MutationObserver(() => document.querySelectorAll('.deriv-solution[data-loaded="1"]').forEach(s => {
          if (!s.__seen) { s.__seen = 1; window.__loaded.push(s.innerText); } }))
          .observe(document.body, {subtree: true, childList: true, attributes: true}); }"""
    )
    page.route("**/cards/ex-1-3/fragment*", lambda route: (time.sleep(0.6), route.continue_()))
    q = page.locator("li.q").first
    q.locator("details.hint summary").click()
    q.locator("details.solution").wait_for(state="visible")
    q.locator("details.solution summary").click()
    q.locator('details.solution[open] .deriv-solution[data-loaded="1"]').wait_for()
    page.wait_for_timeout(300)
    loaded = page.evaluate("() => window.__loaded")
    key = q.get_attribute("data-key")
    body = page.evaluate("() => fetch('/api/cards/ex-1-3').then(r => r.json())")
    assert loaded and all(body["derivations"][key]["substituted"] in t for t in loaded), loaded
    page.watch.assert_clean()
