"""Bring your own model and GPU, as a reader does it: paste a config.json into 例题 1-1 and see the
bounds change; enter a custom GPU; the link keeps both."""

from __future__ import annotations

from pathlib import Path

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"


def _stat(page, key):
    return page.locator(f'#eg-1-1 .stat[data-key="{key}"] .v').inner_text()


def _ready(page):
    page.wait_for_function(
        "() => document.getElementById('plot-eg-1-1-0') && document.getElementById('plot-eg-1-1-0').data"
    )


def test_paste_config_changes_bounds_and_link_keeps_it(page, server):
    page.goto(server + "/cards/eg-1-1?bytes_per_param=2")
    _ready(page)
    before = _stat(page, "t_mem_ms")
    page.select_option("#eg-1-1-model", label="自定义…")
    box = page.locator('.custom-model[data-for="eg-1-1-model"]')
    box.wait_for(state="visible")
    box.locator("textarea").fill((CONFIGS / "llama-3.1-8b.json").read_text(encoding="utf-8"))
    box.locator("button.apply-model").click()
    page.wait_for_function(
        f"() => document.querySelector('#eg-1-1 .stat[data-key=\"t_mem_ms\"] .v').innerText !== '{before}'"
    )
    assert "总参数 8,030,261,248" in box.locator(".custom-status").inner_text()
    # Llama-3.1-8B in BF16 reads ≈ 15.0 GB per step: 2 × (8,030,261,248 − 525,336,576 + 4,096) B
    assert _stat(page, "r_w_gb").startswith("15.0")
    assert "model=cfg%3A" in page.url or "model=cfg:" in page.url
    url = page.url
    page.goto(url)
    _ready(page)
    assert _stat(page, "r_w_gb").startswith("15.0")
    page.watch.assert_clean()


def test_custom_gpu(page, server):
    page.goto(server + "/cards/eg-1-1")
    _ready(page)
    assert _stat(page, "t_mem_ms") == "20.90"
    page.select_option("#eg-1-1-gpu", label="自定义…")
    box = page.locator('.custom-gpu[data-for="eg-1-1-gpu"]')
    box.wait_for(state="visible")
    box.locator('input[data-part="0"]').fill("141")
    box.locator('input[data-part="1"]').fill("4.8")
    box.locator('input[data-part="2"]').fill("989.4")
    page.wait_for_function(
        "() => document.querySelector('#eg-1-1 .stat[data-key=\"t_mem_ms\"] .v').innerText === '14.58'"
    )
    assert "gpu=custom" in page.url
    page.watch.assert_clean()
