"""An instructor's deck: N/P walk the deck's order; moving a control on a step rewrites that step's
state in the address bar (shareable), and coming back to a step finds its state."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit


def _steps(url):
    q = parse_qs(urlsplit(url).query)
    return q["c"], q["at"][0]


def _state(entry):
    """A step ``id?query`` → (id, its query as a dict of single values)."""
    cid, _, q = entry.partition("?")
    return cid, {k: v[0] for k, v in parse_qs(q).items()}


def _ready(page, cid):
    page.wait_for_function(
        f"() => document.getElementById('plot-{cid}-0') && document.getElementById('plot-{cid}-0').data"
    )


def test_deck_walk_keeps_each_steps_state(page, server):
    page.goto(server + "/present/deck?cards=fig-1-11,ex-1-3,fig-3-1")
    _ready(page, "eg-1-1")
    assert _steps(page.url) == (["eg-1-1", "ex-1-3", "fig-3-1"], "1")
    page.locator("#eg-1-1-batch").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => location.search.includes('batch%3D2')")
    steps, at = _steps(page.url)
    assert at == "1" and steps[1:] == ["ex-1-3", "fig-3-1"]
    assert _state(steps[0])[0] == "eg-1-1" and _state(steps[0])[1]["batch"] == "2"
    first = steps[0]
    shared = page.url

    page.locator("body").click(position={"x": 5, "y": 700})
    page.keyboard.press("n")
    page.wait_for_url("**at=2")
    assert page.locator("#ex-1-3").count() == 1
    assert _steps(page.url) == ([first, "ex-1-3", "fig-3-1"], "2")
    assert "第 2 / 3 步" in page.locator(".deck-pos").inner_text()
    page.keyboard.press("n")
    page.wait_for_url("**at=3")
    _ready(page, "fig-3-1")
    page.keyboard.press("n")  # the last step: N stays
    page.wait_for_timeout(300)
    assert page.url.endswith("at=3")
    page.keyboard.press("p")
    page.wait_for_url("**at=2")
    page.keyboard.press("p")
    page.wait_for_url("**at=1")
    _ready(page, "eg-1-1")
    assert page.locator("#eg-1-1-batch").input_value() == "2"

    page.goto(shared)  # the copied link reopens the same state
    _ready(page, "eg-1-1")
    assert page.locator("#eg-1-1-batch").input_value() == "2"
    page.keyboard.press("Escape")
    page.wait_for_url("**/cards/eg-1-1?*")
    assert "batch=2" in page.url
    page.watch.assert_clean()


def test_bad_deck_entry_page(page, server):
    r = page.goto(server + "/present/deck?c=eg-1-1&c=fig-9-99")
    assert r.status == 404
    assert "第 2 步" in page.locator("main").inner_text()
