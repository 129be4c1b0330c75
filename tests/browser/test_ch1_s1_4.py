"""Section 1.4 as a reader uses it: move a control on the packet-core calculator and watch the cores
change; click a layer of 图 1-17 and read its explanation, with ?part= in the address bar."""

from __future__ import annotations


def _stat(page, card, key):
    return page.locator(f'#{card} .stat[data-key="{key}"] .v').inner_text()


def test_smartnic_cores_follow_per_core_rate(page, server):
    page.goto(server + "/cards/smartnic-cores")
    assert _stat(page, "smartnic-cores", "packet_rate_mpps") == "59.52"
    assert _stat(page, "smartnic-cores", "per_packet_ns") == "16.8"
    assert _stat(page, "smartnic-cores", "cores") == "5.95"
    assert "示意" in page.locator('#smartnic-cores .stat[data-key="cores"]').inner_text()
    assert page.locator("#smartnic-cores svg g.core").count() == 6
    page.locator("#smartnic-cores-per_core_mpps").fill("5")
    page.wait_for_function(
        "() => document.querySelector('#smartnic-cores .stat[data-key=\"cores\"] .v').innerText === '11.90'",
        timeout=20000,
    )
    assert page.locator("#smartnic-cores svg g.core").count() == 12
    page.wait_for_function("() => /[?&]per_core_mpps=5/.test(location.search)")
    page.locator("#smartnic-cores-link_gbit_s").fill("100")
    page.wait_for_function(
        "() => document.querySelector('#smartnic-cores .stat[data-key=\"packet_rate_mpps\"] .v').innerText === '148.81'",
        timeout=20000,
    )
    assert _stat(page, "smartnic-cores", "cores") == "29.76"
    page.watch.assert_clean()


def test_fig_1_17_click_layer_shows_explanation_and_url(page, server):
    page.goto(server + "/cards/fig-1-17")
    assert _stat(page, "fig-1-17", "layers") == "9"
    panel = page.locator("#fig-1-17 .part-panel")
    assert "点击" in panel.inner_text()
    page.locator('#fig-1-17 a.part[data-value="stack"]').first.click()
    # the prompt lists every layer (协议栈 included): wait for the stack's own explanation
    page.wait_for_function(
        "() => document.querySelector('#fig-1-17 .part-panel').innerText.includes('重传')", timeout=20000
    )
    assert "重传" in page.locator("#fig-1-17 .part-panel").inner_text()
    page.wait_for_function("() => /[?&]part=stack/.test(location.search)")
    assert page.locator("#fig-1-17-part").input_value() == "stack"
    # the UB ribbon's own layer, then switch the highlighted path by its label
    page.locator('#fig-1-17 a.part[data-set-param="part"][data-value="ub"]').first.click()
    page.wait_for_function("() => /[?&]part=ub/.test(location.search)", timeout=20000)
    page.wait_for_function("() => document.querySelector('#fig-1-17 .part-panel').innerText.includes('UB 直接访问')")
    page.locator('#fig-1-17 a.part[data-set-param="path"][data-value="ub"]').click()
    page.wait_for_function("() => /[?&]path=ub/.test(location.search)", timeout=20000)
    page.wait_for_function("() => document.querySelector('#fig-1-17 .stat[data-key=\"layers\"] .v').innerText === '3'")
    # deep link
    page.goto(server + "/cards/fig-1-17?part=buffer")
    assert "拷贝" in page.locator("#fig-1-17 .part-panel").inner_text()
    page.watch.assert_clean()


def test_section_page_places_every_card(page, server):
    page.goto(server + "/ch/1/1.4")
    for cid in ("tpu-scale-cost", "fig-1-15", "smartnic-cores", "fig-1-16", "fig-1-17", "tab-three-step"):
        page.wait_for_selector(f"#{cid}", state="attached")
    page.locator("#fig-1-16").scroll_into_view_if_needed()
    page.wait_for_selector("#fig-1-16 .part-panel", timeout=20000)
    page.watch.assert_clean()
