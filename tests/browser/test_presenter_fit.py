"""On a projector the figure is the point: at 1920×1080 and 1366×768 every card's first chart is
fully on screen in /present/{id} without scrolling; hiding the controls (C) gives the chart the room.
``make test`` opens a sample of the cards (tests/sampling.py), ``make test-full`` every card."""

from __future__ import annotations

import pytest
from app.cards import REGISTRY
from app.cards import run as compute
from app.render.card import Shown

from tests.sampling import spread

WITH_CHART = sorted(cid for cid, c in REGISTRY.items() if compute(c, c.defaults()).figures)


def _charts_wait(cid: str) -> bool:
    """Whether every chart of the card waits for its answers to be tried (practice first): the presenter
    then draws them once 显示答案 is on (``answers=shown``)."""
    c = REGISTRY[cid]
    shown = Shown.of(c, c.defaults(), compute(c, c.defaults()))
    return len(shown.held_for_practice) == len(shown.view.figures)


ANSWERS_FIRST = {cid for cid in WITH_CHART if _charts_wait(cid)}
FIRST_CHART = """() => {
  const plot = document.querySelector('.card .plot');
  const svg = plot.querySelector('.main-svg');
  const r = svg.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height,
          vh: window.innerHeight, vw: document.documentElement.clientWidth, scrolled: window.scrollY};
}"""
READY = "() => { const e = document.querySelector('.card .plot'); return e && e.data && e.querySelector('.main-svg'); }"


def each_chart_card(browser, server, view: str, width: int, height: int, cards: list[str]):
    """Each of ``cards`` (cards with a chart) opened in ``view`` (``present`` or ``cards``) at this
    size, one after another in one page (显示答案 on where all its charts wait for it): ``(card id,
    page)`` once its first chart is drawn."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, service_workers="block")
    page = ctx.new_page()
    try:
        for cid in cards:
            page.goto(f"{server}/{view}/{cid}" + ("?answers=shown" if cid in ANSWERS_FIRST else ""))
            page.wait_for_function(READY)
            yield cid, page
    finally:
        ctx.close()


@pytest.mark.parametrize(("size", "cards"), spread(["1920x1080", "1366x768"], WITH_CHART))
def test_first_chart_fully_visible_in_presenter(browser, server, size, cards):
    width, height = (int(x) for x in size.split("x"))
    assert len(WITH_CHART) >= 40 and set(cards) <= set(WITH_CHART)
    off = {}
    for cid, page in each_chart_card(browser, server, "present", width, height, cards):
        r = page.evaluate(FIRST_CHART)
        if not (
            r["scrolled"] == 0
            and r["top"] >= 0
            and r["bottom"] <= r["vh"]
            and r["left"] >= 0
            and r["right"] <= r["vw"]
            and r["height"] >= 180
        ):
            off[cid] = r
    assert not off, off


def test_hiding_controls_gives_the_chart_the_room(page, server):
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(server + "/present/eg-3-1")
    page.wait_for_function(READY)
    before = page.evaluate(FIRST_CHART)["height"]
    page.locator("body").click(position={"x": 5, "y": 700})
    page.keyboard.press("c")
    assert not page.locator("#eg-3-1 form.controls").is_visible()
    page.wait_for_function(
        f"() => document.querySelector('.card .plot .main-svg').getBoundingClientRect().height > {before + 100}"
    )
    r = page.evaluate(FIRST_CHART)
    assert r["bottom"] <= r["vh"]
    assert page.locator(".toggle-controls").get_attribute("aria-pressed") == "true"
    page.locator(".toggle-controls").click()
    assert page.locator("#eg-3-1 form.controls").is_visible()
    page.watch.assert_clean()
