"""The planner page /tools/fit in a browser, as a lab uses it: paste its own config.json, pick a card too small
for the batch (the model fits, the batch does not), then shrink the batch until it fits again, reading the
verdict and the tiles; then a model that does not fit at all.

Memory is what the runtime reports (data/gpus.json mem_bytes) and the reserve vLLM's profiled terms (issue 38,
app/calculators/engine_memory.py). Defaults: Qwen3-8B on an H100 (79.22 GiB): 365,722 tokens (the card's golden
record). Llama-3.1-8B (tests/data/configs): BF16 weights 16,060,522,496 B; KV 131,072 B per token. On an RTX 4090
(23.55 GiB at runtime, vllm#13061): usable round(0.9 × M) = 22,757,957,960 B; reserve = activation (2,048 batched
tokens, vLLM's default below 70 GiB: the sampler's 256 rows × 128,256 logits × 37.3 B + 2,048 × 4,096 × 2 B)
1,241,514,189 B + non-torch 0.35 GiB = 1,617,323,827 B; budget 5,080,111,637 B → 38,758 tokens; 16 requests ×
8,192 tokens need 17.18 GB (12.10 GB short), one request 1.07 GB (4.01 GB to spare), and at 8,192 tokens
⌊5,080,111,637 / (8,192 × 131,072)⌋ = 4 requests fit."""

from __future__ import annotations

import json
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
    assert _stat(page, "kv_capacity_tokens") == "365,722"  # the defaults: runtime memory, vLLM's profiled reserve

    # 1. paste the lab's own config.json
    page.select_option(f"#{CARD}-model", label="自定义…")
    box = page.locator(f'.custom-model[data-for="{CARD}-model"]')
    box.wait_for(state="visible")
    box.locator("textarea").fill((CONFIGS / "llama-3.1-8b.json").read_text(encoding="utf-8"))
    box.locator("button.apply-model").click()
    _wait_headline(page, "✓ 放得下 · 自定义模型")
    assert "总参数 8,030,261,248" in box.locator(".custom-status").inner_text()
    assert _stat(page, "kv_bytes_per_token_per_gpu") == "131,072"

    # 2. a 24 GB card: the model fits, 16 × 8,192 tokens of KV beside 16 GB of weights do not
    page.select_option(f"#{CARD}-gpu", "rtx-4090")
    _wait_headline(page, "模型放得下 · ✗ 这批放不下")
    assert _stat(page, "fits").startswith("模型放得下,这批放不下:KV 还差 12.10 GB")
    assert _stat(page, "kv_capacity_tokens") == "38,758"
    assert _stat(page, "max_concurrency_at_context") == "4"

    # 3. one request instead of sixteen: it fits again
    page.locator(f"#{CARD}-concurrency").fill("1")
    _wait_headline(page, "✓ 放得下")
    assert _stat(page, "fits").startswith("放得下(KV 预算还余 4.01 GB)")
    assert _stat(page, "kv_capacity_tokens") == "38,758"  # capacity does not depend on the batch

    # 4. a 70B model in BF16 on the 24 GB card: no budget, no step, and what would make it fit
    page.select_option(f"#{CARD}-model", "deepseek-r1-distill-llama-70b")
    _wait_headline(page, "✗ 模型放不下")
    assert _stat(page, "t_step_lb_ms").startswith("无")
    assert "能让它放得下" in page.locator(f"#r-{CARD}").inner_text()
    page.watch.errors = [e for e in page.watch.errors if not e.startswith(("htmx:sendAbort,", "htmx:afterRequest,"))]
    page.watch.assert_clean()


def test_config_and_hf_quant_config_uploaded_together_size_the_stored_format(page, server, tmp_path):
    """A ModelOpt checkpoint keeps its quantization in hf_quant_config.json beside config.json: chosen
    together in the upload box, the planner sizes the weights as stored FP8 (about half of BF16)."""
    raw = json.loads((CONFIGS / "qwen3-8b.json").read_text(encoding="utf-8"))
    cfg, quant = tmp_path / "config.json", tmp_path / "hf_quant_config.json"
    cfg.write_text(json.dumps({k: v for k, v in raw.items() if not k.startswith("_")}), encoding="utf-8")
    quant.write_text(
        json.dumps({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "FP8"}}), encoding="utf-8"
    )
    page.goto(server + "/tools/fit?weight_format=stored")
    page.select_option(f"#{CARD}-model", label="自定义…")
    box = page.locator(f'.custom-model[data-for="{CARD}-model"]')
    box.wait_for(state="visible")
    box.locator("input[type=file]").set_input_files([str(cfg), str(quant)])
    _wait_headline(page, "✓ 放得下 · 自定义模型")
    assert '"hf_quant_config"' in box.locator("textarea").input_value()
    page.wait_for_function("() => /model=/.test(location.search)")
    from urllib.parse import parse_qs, urlparse

    model = parse_qs(urlparse(page.url).query)["model"][0]
    api = page.request.get(server + f"/api/cards/{CARD}?weight_format=stored&model={model}").json()["outputs"]
    lin, total = 6_945_767_424, 8_190_735_360
    assert api["weights_per_gpu_bytes"] == lin + 8 * 36 * 7 + 2 * (total - lin)  # FP8 linears, BF16 rest
    page.watch.assert_clean()
