"""The strict CSP holds while a reader uses cards: no violation while sliders move, animations play,
data tables open, answers are checked and a custom model is applied."""

from __future__ import annotations

import pytest

RECORD = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""


@pytest.fixture
def csp_page(page):
    page.add_init_script(RECORD)
    return page


def _violations(page):
    return page.evaluate("() => window.__csp")


def test_no_csp_violations_while_using_cards(csp_page, server):
    page = csp_page
    page.goto(server + "/cards/eg-1-1")
    page.wait_for_function(
        "() => document.getElementById('plot-eg-1-1-0') && document.getElementById('plot-eg-1-1-0').data"
    )
    page.locator('#eg-1-1 input.range[data-for="eg-1-1-batch"]').evaluate(
        "(r) => { r.value = 700; r.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    page.wait_for_timeout(300)
    page.locator("#eg-1-1 details.fig-table summary").first.click()
    page.locator("#eg-1-1 details.fig-table tbody tr").first.wait_for()
    page.click(".theme-toggle")
    assert _violations(page) == []

    page.goto(server + "/cards/fig-1-10")
    page.wait_for_function(
        "() => document.getElementById('plot-fig-1-10-0') && document.getElementById('plot-fig-1-10-0').data"
    )
    page.evaluate(
        "() => document.getElementById('fig-1-10').dispatchEvent(new CustomEvent('card:play', {bubbles: true}))"
    )
    page.wait_for_timeout(600)
    assert _violations(page) == []

    page.goto(server + "/cards/ex-1-3")
    page.locator("li.q form.answer input[name=answer]").first.fill("29.85")
    page.locator("li.q form.answer button").first.click()
    page.locator("li.q output.verdict").first.wait_for()
    page.wait_for_function("() => document.querySelector('li.q output.verdict').textContent !== ''")
    assert _violations(page) == []

    page.goto(server + "/ch/3/3.2")
    page.wait_for_timeout(800)
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(800)
    assert _violations(page) == []
    page.watch.assert_clean()
