"""The planner page /tools/fit in a browser, as a lab uses it: paste its own config.json, pick a card too small
for the batch ("does not fit"), then shrink the batch until it fits again, reading the verdict and the tiles.

Llama-3.1-8B (tests/data/configs): 8,030,261,248 parameters, BF16 weights 16,060,522,496 B; KV 32 layers × 2 ×
8 heads × 128 × 2 B = 131,072 B per token. On an RTX 4090 (24 GB): KV budget 0.9 × 24 GB − 16,060,522,496 − 4 GB
= 1,539,477,504 B → ⌊…/131,072⌋ = 11,745 tokens; 16 requests × 8,192 tokens need 17.18 GB (does not fit),
one request needs 1.07 GB (fits), and at 8,192 tokens ⌊1,539,477,504 / (8,192 × 131,072)⌋ = 1 request fits."""

from __future__ import annotations

from pathlib import Path

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"
CARD = "fit-planner"


def _stat(page, key):
    return page.locator(f'#{CARD} .stat[data-key="{key}"] .v').inner_text()


def _headline(page):
    return page.locator(f"#r-{CARD} .headline").inner_text()


def _wait_headline(page, start):
    page.wait_for_function(
        "([id, s]) => { const e = document.querySelector(`#r-${id} .headline`); "
        "return e && e.innerText.startsWith(s); }",
        arg=[CARD, start],
    )


def test_pasted_config_to_does_not_fit_and_back(page, server):
    page.goto(server + "/tools/fit")
    page.wait_for_function(
        f"() => document.getElementById('plot-{CARD}-0') && document.getElementById('plot-{CARD}-0').data"
    )
    assert _headline(page).startswith("✓ 放得下 · Qwen3-8B")
    assert _stat(page, "kv_capacity_tokens") == "350,060"  # the defaults: phase 1's worked case

    # 1. paste the lab's own config.json
    page.select_option(f"#{CARD}-model", label="自定义…")
    box = page.locator(f'.custom-model[data-for="{CARD}-model"]')
    box.wait_for(state="visible")
    box.locator("textarea").fill((CONFIGS / "llama-3.1-8b.json").read_text(encoding="utf-8"))
    box.locator("button.apply-model").click()
    _wait_headline(page, "✓ 放得下 · 自定义模型")
    assert "总参数 8,030,261,248" in box.locator(".custom-status").inner_text()
    assert _stat(page, "kv_bytes_per_token_per_gpu") == "131,072"

    # 2. a 24 GB card: 16 × 8,192 tokens of KV do not fit beside 16 GB of weights
    page.select_option(f"#{CARD}-gpu", "rtx-4090")
    _wait_headline(page, "✗ 放不下")
    assert _stat(page, "fits").startswith("放不下(还差 15.64 GB)")
    assert _stat(page, "kv_capacity_tokens") == "11,745"
    assert _stat(page, "max_concurrency_at_context") == "1"

    # 3. one request instead of sixteen: it fits again
    page.locator(f"#{CARD}-concurrency").fill("1")
    _wait_headline(page, "✓ 放得下")
    assert _stat(page, "fits").startswith("放得下(KV 预算还余 0.47 GB)")
    assert _stat(page, "kv_capacity_tokens") == "11,745"  # capacity does not depend on the batch
    page.watch.errors = [e for e in page.watch.errors if not e.startswith(("htmx:sendAbort,", "htmx:afterRequest,"))]
    page.watch.assert_clean()
