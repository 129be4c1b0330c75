"""Section 3.2 in a real browser: ▶ plays the agent trace; moving a tool slider of 图 3-11 moves
the critical path (numbers, DAG highlight and timeline follow)."""

from __future__ import annotations


def _stat(page, card, key):
    return page.locator(f'#{card} .stat[data-key="{key}"] .v').inner_text()


def _plot_ready(page, pid):
    page.wait_for_function(f"() => document.getElementById('{pid}') && document.getElementById('{pid}').data")


def test_agent_trace_plays(page, server):
    page.goto(server + "/cards/agent-trace")
    _plot_ready(page, "plot-agent-trace-0")
    assert _stat(page, "agent-trace", "total_s") == "76.510"
    start = page.evaluate("() => document.getElementById('plot-agent-trace-0').data[3].x[0]")
    assert start == 0
    page.locator("#plot-agent-trace-0 .updatemenu-button").first.click()
    page.wait_for_function("() => document.getElementById('plot-agent-trace-0').data[3].x[0] > 5", timeout=10000)
    # the cursor keeps moving and reaches the end of the 76.51 s task
    page.wait_for_function("() => document.getElementById('plot-agent-trace-0').data[3].x[0] > 76", timeout=20000)
    page.watch.assert_clean()


def test_fig_3_11_tool_slider_moves_critical_path(page, server):
    page.goto(server + "/cards/fig-3-11")
    _plot_ready(page, "plot-fig-3-11-0")
    assert _stat(page, "fig-3-11", "critical_path_s") == "15"
    svg = page.locator("#fig-3-11 svg[data-critical]")
    assert svg.get_attribute("data-critical") == "model1 tool_b model2"
    assert page.locator('#fig-3-11 g.node.crit[data-node="tool_b"]').count() == 1
    box = page.locator("#fig-3-11-tool_a_s")
    box.fill("12")  # fires one input event; a second one could abort the first request under load
    page.wait_for_function(
        "() => document.querySelector('#fig-3-11 .stat[data-key=\"critical_path_s\"] .v').innerText === '17'"
    )
    assert page.locator("#fig-3-11 svg[data-critical]").get_attribute("data-critical") == "model1 tool_a model2"
    assert page.locator('#fig-3-11 g.node.crit[data-node="tool_a"]').count() == 1
    assert page.locator('#fig-3-11 g.node.crit[data-node="tool_b"]').count() == 0
    assert _stat(page, "fig-3-11", "serial_s") == "27"
    page.wait_for_function("() => document.getElementById('plot-fig-3-11-0').data[1].x[3] === 12")
    assert "tool_a_s=12" in page.url
    # leave the box first: its change event would otherwise race (and abort) the click's request
    box.evaluate("(b) => b.blur()")
    page.wait_for_timeout(300)
    page.wait_for_load_state("networkidle")
    # clicking the 串行 pill in the diagram switches the schedule through the normal flow
    page.locator('#fig-3-11 a.part[data-value="serial"]').click()
    page.wait_for_function(
        "() => document.querySelector('#fig-3-11 .stat[data-key=\"critical_path_s\"] .v').innerText === '27'"
    )
    page.watch.assert_clean()


def test_section_3_2_loads_cleanly(page, server):
    page.goto(server + "/ch/3/3.2")
    ids = page.evaluate("() => Array.from(document.querySelectorAll('.result.lazy')).map(e => e.id)")
    assert "r-agent-trace" in ids and "r-fig-3-14" in ids
    for rid in ids:  # reveal every card in reading order, as a reader scrolling down would
        page.locator(f"#{rid}").scroll_into_view_if_needed()
        page.wait_for_function(f"() => !document.querySelector('#{rid} .loading')", timeout=15000)
    assert page.locator("#prefix-cache-4round .stat").count() > 0
    page.watch.assert_clean()
