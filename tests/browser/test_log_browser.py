"""/tools/log in Chromium: paste a vLLM bench output, submit, and see the table, the chart and the verdicts
at an address that holds numbers only; no console error, no CSP violation, nothing fetched off the machine."""

from __future__ import annotations

from pathlib import Path

BENCH = (
    Path(__file__).resolve().parents[1] / "data" / "logs" / "vllm_bench" / "vllm-bench-yiliu30-pp-local.sh.txt"
).read_text()


def test_paste_bench_see_table_chart_verdicts(server, page):
    page.goto(server + "/tools/log")
    page.fill("#log-text", "INFO host gpu-node-17.example.com /home/alice/x hf_SecretToken123\n" + BENCH)
    page.select_option("#s-model", "qwen3-8b")
    page.fill("#s-gpu", "h100-sxm")
    page.click("#log-form button[type=submit]")
    page.wait_for_selector("#log-rows")
    assert "median_tpot_s=" in page.url and "hf_" not in page.url and "alice" not in page.url
    rows = page.locator("#log-rows tbody tr")
    assert rows.count() >= 3
    verdicts = page.locator("#log-rows td.verdict").all_inner_texts()
    assert any("下界" in v for v in verdicts)
    page.wait_for_selector("#log-plot .main-svg", timeout=15000)
    assert page.locator("#log-plot .scatterlayer .trace").count() >= 2
    assert "gpu-node-17" not in page.content()
    page.watch.assert_clean()


def test_upload_a_llama_bench_file_see_the_share_bars(server, page):
    """A chosen file is read into the box in the browser (static/log.js), then submitted like a paste; with no
    curve to draw (llama-bench's model is in its table, not the planner), the chart is each row's share."""
    path = Path(__file__).resolve().parents[1] / "data" / "logs" / "llama_cpp" / "llama-bench-4766-rtx4090.md"
    page.goto(server + "/tools/log")
    page.set_input_files("#log-file", str(path))
    page.wait_for_function(
        "() => document.getElementById('log-text').value.includes('tg 128')"
    )  # a function: an expression is eval'd, which the CSP refuses
    page.fill("#s-gpu", "rtx-4090")
    page.click("#log-form button[type=submit]")
    page.wait_for_selector("#log-rows")
    keys = page.locator("#log-rows tbody tr").evaluate_all("rs => rs.map(r => r.dataset.key)")
    assert keys == ["llama_tg", "llama_pp"]
    assert "tg_tokens_per_s=61.03" in page.url and "s_gpu=rtx-4090" in page.url
    page.wait_for_selector("#log-plot .main-svg", timeout=15000)
    assert page.locator("#log-plot .barlayer .trace").count() == 1
    page.watch.assert_clean()


AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
AXE_RUN = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '));
}"""


def test_the_page_and_a_result_pass_axe_in_both_themes(server, browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.add_init_script(AXE.read_text(encoding="utf-8"))
    pg = ctx.new_page()
    try:
        for url in ("/tools/log", "/tools/log?fmt=vllm_bench&median_tpot_s=0.07&max_concurrency=32&completed=32"):
            pg.goto(server + url)
            pg.wait_for_load_state("load")
            for theme in ("light", "dark"):
                pg.evaluate("(t) => document.documentElement.setAttribute('data-theme', t)", theme)
                assert pg.evaluate(AXE_RUN) == [], (url, theme)
    finally:
        ctx.close()


def test_a_phone_gets_no_sideways_scroll(server, browser):
    ctx = browser.new_context(viewport={"width": 390, "height": 800})
    pg = ctx.new_page()
    try:
        for url in ("/tools/log", "/tools/log?fmt=vllm_bench&median_tpot_s=0.07&max_concurrency=32&completed=32"):
            pg.goto(server + url)
            pg.wait_for_load_state("load")
            assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), url
    finally:
        ctx.close()
