"""A reader answers 练习 1-3: wrong, then right; a unit slip is named and opens the hint, then the
solution; reloads and finds the attempt remembered (in this browser only)."""

from __future__ import annotations


def test_answer_hint_solution_and_remembered(page, server):
    page.goto(server + "/cards/ex-1-3#q2")
    q = page.locator("li.q").nth(1)
    assert "q2" == q.get_attribute("data-q")
    page.wait_for_function("() => document.querySelector('li.q[data-q=\"q2\"]').classList.contains('target')")
    box = q.locator("input[name=answer]")
    verdict = q.locator("output.verdict")
    box.fill("20.90")  # the full-efficiency bound: wrong under 70 % / 50 %
    q.locator("button", has_text="检查").click()
    page.wait_for_function(
        "() => document.querySelector('li.q[data-q=\"q2\"] output.verdict').textContent.includes('不对')"
    )
    box.fill("29.85")
    q.locator("button", has_text="检查").click()
    page.wait_for_function(
        "() => document.querySelector('li.q[data-q=\"q2\"] output.verdict').textContent.includes('正确')"
    )
    solution = q.locator("details.solution")
    assert not solution.is_visible()  # hint first
    box.fill("0.02985")  # seconds typed into the ms box: a unit slip, named, and its hint opens
    q.locator("button", has_text="检查").click()
    page.wait_for_function(
        "() => document.querySelector('li.q[data-q=\"q2\"] output.verdict').textContent.includes('不对')"
    )
    assert "按 s 算" in verdict.inner_text() and verdict.get_attribute("data-diagnosis") == "unit_choice"
    assert q.locator("details.hint").evaluate("d => d.open")
    box.fill("29.85")
    q.locator("button", has_text="检查").click()
    page.wait_for_function(
        "() => document.querySelector('li.q[data-q=\"q2\"] output.verdict').textContent.includes('正确')"
    )
    solution.wait_for(state="visible")
    solution.locator("summary").click()
    assert "29.85" in solution.inner_text()
    page.reload()
    q = page.locator("li.q").nth(1)
    assert q.locator("input[name=answer]").input_value() == "29.85"
    assert "正确" in q.locator("output.verdict").inner_text()
    page.watch.assert_clean()


def test_solutions_off_link_hides_reveals(page, server):
    page.goto(server + "/cards/ex-1-3?solutions=off")
    assert page.locator("details.solution").count() == 0
    q = page.locator("li.q").first
    q.locator("input[name=answer]").fill("29.85")
    q.locator("button", has_text="检查").click()
    page.wait_for_function("() => document.querySelector('li.q output.verdict').textContent.includes('正确')")
    # moving a slider keeps solutions hidden
    page.locator("#ex-1-3-bw_eff_pct").fill("80")
    page.locator("#ex-1-3-bw_eff_pct").dispatch_event("change")
    page.wait_for_timeout(400)
    assert page.locator("details.solution").count() == 0
    page.watch.assert_clean()


def test_typed_answer_survives_a_redraw(page, server):
    """A slider moved (or a reveal) redraws the questions with the card: what the reader typed but did
    not yet check stays in its box, with the unit chosen and the verdict shown before."""
    page.goto(server + "/cards/ex-1-3")
    q = page.locator("li.q").nth(1)
    box = q.locator("input[name=answer]")
    box.fill("20.90")
    q.locator("button", has_text="检查").click()
    page.wait_for_function(
        "() => document.querySelector('li.q[data-q=\"q2\"] output.verdict').textContent.includes('不对')"
    )
    page.wait_for_timeout(300)  # the reveal's redraw (the key tried is now shown)
    page.evaluate("() => { window.__before = document.querySelector('li.q[data-q=\"q2\"] form.answer'); }")
    page.locator("li.q[data-q=q2] input[name=answer]").fill("31.2")  # typed, not checked
    page.locator("#ex-1-3-bw_eff_pct").fill("80")
    page.locator("#ex-1-3-bw_eff_pct").dispatch_event("change")
    page.wait_for_function(
        "() => document.querySelector('li.q[data-q=\"q2\"] form.answer') !== window.__before"
    )  # the form was replaced by the redraw
    q = page.locator("li.q[data-q=q2]")
    assert q.locator("input[name=answer]").input_value() == "31.2"
    assert "不对" in q.locator("output.verdict").inner_text()
    page.watch.assert_clean()


def test_selection_in_the_answer_box_survives_a_redraw(page, server):
    """Typing over a selected answer while the card redraws replaces it (the reveal after a check
    redraws the card: '20.90' selected, then typed over, must not become '20.9029.85')."""
    page.goto(server + "/cards/ex-1-3")
    box = page.locator("li.q[data-q=q2] input[name=answer]")
    box.fill("20.90")
    page.evaluate(
        """() => {
          const inp = document.querySelector('li.q[data-q="q2"] input[name=answer]');
          window.__before = inp; inp.focus(); inp.select();
          const s = document.getElementById('ex-1-3-bw_eff_pct');
          s.value = 80; s.dispatchEvent(new Event('change', {bubbles: true}));
        }"""
    )
    page.wait_for_function("() => document.querySelector('li.q[data-q=\"q2\"] input[name=answer]') !== window.__before")
    sel = page.evaluate(
        "() => [document.activeElement.name, document.activeElement.selectionStart, document.activeElement.selectionEnd]"
    )
    assert sel == ["answer", 0, 5]
    page.keyboard.type("29.85")
    assert box.input_value() == "29.85"
    page.watch.assert_clean()
