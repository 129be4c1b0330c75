"""Section 1.3's comparative sentences in a browser: as 例题 1-1's B moves, each conditional sentence
switches to the case its fragment names and the live numbers beside it follow, so the page reads
true at B = 300 (compute is the slower term) and reads as the book again at B = 1."""

from __future__ import annotations

PARAGRAPHS = (
    "() => Array.from(document.querySelectorAll('.prose p'))"
    ".filter(p => p.querySelector('span.if[data-card=\"eg-1-1\"]'))"
    ".map(p => p.textContent.replace(/\\s+/g, '')).join('|')"
)


def _set_batch(page, b: int) -> None:
    page.locator("#eg-1-1-batch").evaluate(
        f"b => {{ b.value = '{b}'; b.dispatchEvent(new Event('input', {{bubbles: true}})); }}"
    )
    page.wait_for_function(
        f"() => document.querySelector('#eg-1-1-batch').value === '{b}'"
        f' && document.querySelector(\'script.livevals[data-card="eg-1-1"]\').textContent.includes(\'"batch|n":"{b}"\')',
        timeout=10000,
    )


def _text(page) -> str:
    return page.evaluate(PARAGRAPHS)


def test_1_3_reads_true_as_b_moves(page, server):
    page.goto(server + "/ch/1/1.3")
    page.wait_for_function(
        "() => document.getElementById('plot-eg-1-1-0') && document.getElementById('plot-eg-1-1-0').data"
    )
    book = _text(page)
    assert "≈0.1415ms,相差约148倍。离10ms的目标还差一倍多。" in book
    assert "原因在于每读进一个权重只做一次乘加" in book

    _set_batch(page, 300)
    page.wait_for_function(f"() => ({PARAGRAPHS})().includes('反过来是读取的约')", timeout=10000)
    text = _text(page)
    assert "计算却要42,000GFLOP÷989,400GFLOP/s≈42.45ms,反过来是读取的约2.0倍。下界已是10ms目标的约4.2倍。" in text
    assert "这时较慢的是计算:加算力才能缩短一步,加带宽帮不上忙。" in text
    assert "相差约" not in text and "一倍多" not in text and "只做一次乘加" not in text
    # the numbers inside the switched case are the fragment's, as the tile shows them
    assert page.locator('a.live[data-card="eg-1-1"][data-key="compute_to_read_ratio"]').inner_text() == "2.0"
    assert page.locator('#eg-1-1 .stat[data-key="t_compute_ms"] .v').inner_text() == "42.45"

    _set_batch(page, 64)
    page.wait_for_function(f"() => ({PARAGRAPHS})().includes('相差约2.3倍')", timeout=10000)
    text = _text(page)
    assert "计算只要8,960GFLOP÷989,400GFLOP/s≈9.056ms,相差约2.3倍。离10ms的目标还差一倍多。" in text
    assert "现在每读进一个权重要和64个token各做一次乘加,计算单元仍然先把手上的数据算完" in text

    _set_batch(page, 1)
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('span.if[data-card=\"eg-1-1\"]')).every(s => s.dataset.case === '0')",
        timeout=10000,
    )
    assert _text(page) == book  # the book's sentences again, with the server's markup (glossary terms)
    page.watch.assert_clean()


def test_only_a_page_that_quotes_the_card_asks_for_its_prose_values(page, server):
    """The section page's slider requests carry prose=1; the card's own page (no prose) does not."""
    for path, quoted in (("/ch/1/1.3", True), ("/cards/eg-1-1", False)):
        page.goto(server + path)
        page.wait_for_function(
            "() => document.getElementById('plot-eg-1-1-0') && document.getElementById('plot-eg-1-1-0').data"
        )
        with page.expect_request(lambda r: "/cards/eg-1-1/fragment" in r.url) as req:
            page.locator("#eg-1-1-batch").evaluate(
                "b => { b.value = '32'; b.dispatchEvent(new Event('input', {bubbles: true})); }"
            )
        assert ("prose=1" in req.value.url) == quoted, (path, req.value.url)
        assert "batch=32" in req.value.url
    page.watch.assert_clean()
