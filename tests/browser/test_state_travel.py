"""A card's state travels with it (issue 26.5): after a drag on a section page the card's 演示 / 单独打开 /
JSON links carry the state (canonically: only what differs from the defaults) and open the card in it; the
planner /tools/fit keeps its state in the address (a plan can be shared, reloaded, presented); in the
presenter N then P comes back to the state the card was left in."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

READY = "id => { const e = document.getElementById(id); return e && e.data && e.querySelector('.main-svg'); }"


def _set(page, sel: str, value: str) -> None:
    page.locator(sel).evaluate(
        f"b => {{ b.value = '{value}'; b.dispatchEvent(new Event('input', {{bubbles: true}})); }}"
    )


def _query(href: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(href).query)


def _tool_href(page, card: str, text: str) -> str:
    return page.locator(f"#{card} .card-tools a", has_text=text).get_attribute("href")


def test_section_links_carry_the_dragged_state(page, server):
    page.goto(server + "/ch/1/1.3")
    page.wait_for_function(READY, arg="plot-eg-1-1-0")
    assert _tool_href(page, "eg-1-1", "单独打开") == "/cards/eg-1-1"  # the defaults: nothing to carry
    _set(page, "#eg-1-1-batch", "186")
    page.wait_for_function(
        "() => document.querySelector('#eg-1-1 .card-tools a.present-link').getAttribute('href').includes('batch=186')"
    )
    for text, path in (("演示", "/present/eg-1-1"), ("单独打开", "/cards/eg-1-1"), ("JSON", "/api/cards/eg-1-1")):
        href = _tool_href(page, "eg-1-1", text)
        assert urlsplit(href).path == path
        assert _query(href) == {"batch": ["186"]}, href  # canonical: the moved parameter only
    csv = page.locator("#eg-1-1 a.csv").first.get_attribute("href")
    assert "batch=186" in csv
    # the section's address holds the card's state too (issue 40.5: a reload or a shared link restores it)
    assert urlsplit(page.url).path == "/ch/1/1.3" and _query(page.url)["eg-1-1.batch"] == ["186"]

    # 单独打开 opens the card in that state; its own links carry it on
    page.locator("#eg-1-1 .card-tools a", has_text="单独打开").click()
    page.wait_for_url("**/cards/eg-1-1?batch=186")
    page.wait_for_function(READY, arg="plot-eg-1-1-0")
    assert page.locator("#eg-1-1-batch").input_value() == "186"
    assert _query(_tool_href(page, "eg-1-1", "演示")) == {"batch": ["186"]}
    data = page.request.get(server + _tool_href(page, "eg-1-1", "JSON")).json()
    assert data["params"]["batch"] == 186
    page.watch.assert_clean()


def test_planner_address_holds_its_state(page, server):
    page.goto(server + "/tools/fit")
    page.wait_for_function(READY, arg="plot-fit-planner-0")
    page.select_option("#fit-planner-gpu", "a100-80gb-sxm")
    page.wait_for_function("() => location.search.includes('gpu=a100-80gb-sxm')")
    page.select_option("#fit-planner-model", "qwen3-14b-awq")
    page.wait_for_function("() => location.search.includes('model=qwen3-14b-awq')")
    assert urlsplit(page.url).path == "/tools/fit"
    assert _query(page.url) == {"gpu": ["a100-80gb-sxm"], "model": ["qwen3-14b-awq"]}
    present = _tool_href(page, "fit-planner", "演示")
    assert _query(present) == {"gpu": ["a100-80gb-sxm"], "model": ["qwen3-14b-awq"]}

    page.reload()
    page.wait_for_function(READY, arg="plot-fit-planner-0")
    assert page.locator("#fit-planner-gpu").input_value() == "a100-80gb-sxm"
    assert page.locator("#fit-planner-model").input_value() == "qwen3-14b-awq"
    assert "Qwen3-8B" not in page.locator("#r-fit-planner .headline").inner_text()
    # the reloaded page's links are the server's, in the same state
    assert _query(_tool_href(page, "fit-planner", "演示")) == _query(present)

    page.goto(server + present)
    page.wait_for_function(READY, arg="plot-fit-planner-0")
    assert page.locator("#fit-planner-gpu").input_value() == "a100-80gb-sxm"
    assert page.locator("#fit-planner-model").input_value() == "qwen3-14b-awq"
    page.watch.assert_clean()


def test_presenter_n_then_p_keeps_the_state(page, server):
    page.goto(server + "/present/eg-1-1")
    page.wait_for_function(READY, arg="plot-eg-1-1-0")
    _set(page, "#eg-1-1-batch", "186")
    page.wait_for_function("() => location.search === '?batch=186'")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("n")
    page.wait_for_url("**/present/fig-1-10")
    page.wait_for_function(READY, arg="plot-fig-1-10-0")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("p")
    page.wait_for_url("**/present/eg-1-1?batch=186")
    page.wait_for_function(READY, arg="plot-eg-1-1-0")
    assert page.locator("#eg-1-1-batch").input_value() == "186"
    assert page.locator(".present-bar a.back").get_attribute("href") == "/cards/eg-1-1?batch=186"
    page.watch.assert_clean()
