"""The fit planner through the JSON API (issue 17's contract) and its page /tools/fit.

The 13 hand-worked configurations of tests/calculators/test_planner.py (dense GQA, replicated heads,
local-global and alternating sliding windows, two MoE, two MLA incl. one that does not fit; tp 1/2/4/8;
every weight and KV format) go through ``GET /api/cards/fit-planner`` with the contract's parameter names,
and every contract output is compared: byte and token counts and the verdict exactly, the step bound and
throughput to 1e-12. Then the invariants, the flags the card shows, the limits and the page."""

from __future__ import annotations

import dataclasses
import html
import json
import math
import re
from pathlib import Path

import pytest
from app.data import encode_config, gpu

from tests.calculators.test_planner import CASES, RESERVE, expected

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"
API = "/api/cards/fit-planner"
EXACT = (
    "weights_per_gpu_bytes",
    "kv_bytes_per_token_per_gpu",
    "kv_capacity_tokens",
    "max_context_at_concurrency",
    "max_concurrency_at_context",
    "fits",
)


def cfg(name: str) -> str:
    return encode_config(json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8")))


def model_ref(name: str) -> str:
    """The preset where there is one (Qwen3-8B), else the config pasted as the page does it."""
    return name if name == "qwen3-8b" else cfg(name)


def get(client, **q):
    r = client.get(API, params=q)
    assert r.status_code == 200, r.text
    return r.json()


def outs(client, **q) -> dict:
    return get(client, **q)["outputs"]


def runtime_mem(gid: str) -> int:
    """The card sizes memory by what the driver reports (data/gpus.json mem_bytes), not the marketed GB."""
    return gpu(gid).mem_bytes or int(gpu(gid).mem_gb * 1e9)


@pytest.mark.parametrize("name", CASES)
def test_hand_worked_configuration_through_the_api(client, name):
    c = dataclasses.replace(CASES[name], mem=runtime_mem(CASES[name].gpu))
    o = outs(
        client,
        model=model_ref(c.model),
        gpu=c.gpu,
        tp=c.tp,
        weight_format=c.wf,
        kv_format=c.kvf,
        mem_util=0.9,
        reserve_gb=RESERVE / 1e9,
        context=c.context,
        concurrency=c.conc,
    )
    want = expected(c)
    for k in EXACT:
        assert o[k] == want[k], (name, k, o[k], want[k])
    assert o["model_fits"] is want["model_fits"]
    if not want["model_fits"]:
        assert o["t_step_lb_ms"] is None and o["tokens_per_s_ideal"] is None, name
        return
    assert o["t_step_lb_ms"] == pytest.approx(want["t_step_lb_ms"], rel=1e-12), name
    assert o["tokens_per_s_ideal"] == pytest.approx(want["tokens_per_s_ideal"], rel=1e-12), name


def test_the_cases_cover_the_acceptance_list():
    cs = CASES.values()
    assert len(CASES) >= 12
    assert {c.tp for c in cs} == {1, 2, 4, 8}
    assert {c.wf for c in cs} == {"bf16", "fp8", "int8", "int4-g128", "nvfp4"} and {c.kvf for c in cs} == {
        "bf16",
        "fp8",
        "int4",
    }
    assert {c.model for c in cs} >= {
        "gemma-3-12b",
        "gemma-2-9b",
        "mixtral-8x7b",
        "qwen3-30b-a3b",
        "deepseek-v3",
        "qwen3-8b",
    }


def test_mem_util_and_reserve_enter_the_budget(client):
    """Qwen3-8B BF16 on an H100 at η = 0.95 and a 2 GB reserve: budget round(0.95·M) − 2·8,190,735,360 − 2 GB,
    M the 79.22 GiB = 85,061,827,297 B the runtime reports (vllm PR #10511), not the marketed 80 GB."""
    o = outs(client, mem_util=0.95, reserve_gb=2, context=8192, concurrency=16)
    usable = round(0.95 * 85_061_827_297)
    budget = usable - 16_381_470_720 - 2_000_000_000
    assert budget == 62_427_265_212
    assert o["kv_capacity_tokens"] == budget // 147_456 == 423_361
    assert o["max_context_at_concurrency"] == budget // (16 * 147_456)
    assert o["max_concurrency_at_context"] == budget // (8192 * 147_456) == 51
    assert o["usable_gb"] * 1e9 == pytest.approx(usable, rel=1e-15)
    assert o["kv_budget_gb"] == pytest.approx(budget / 1e9, rel=1e-15)
    assert (o["capacity_gb"], o["marketed_gb"]) == (pytest.approx(85.061827297, rel=1e-12), 80)


@pytest.mark.parametrize(
    "model,gpu,tp,wf",
    [
        ("qwen3-8b", "h100-sxm", 1, "bf16"),
        ("gemma-3-12b", "h200-sxm", 1, "bf16"),
        ("deepseek-v3", "b200", 8, "fp8"),
        ("mixtral-8x7b", "h100-sxm", 2, "int4-g128"),
    ],
)
def test_halving_kv_bytes_doubles_kv_capacity_at_fixed_weights(client, model, gpu, tp, wf):
    q = dict(model=model_ref(model), gpu=gpu, tp=tp, weight_format=wf, reserve_gb=RESERVE / 1e9)  # fixed reserve
    bf, f8 = outs(client, **q, kv_format="bf16"), outs(client, **q, kv_format="fp8")
    assert f8["weights_per_gpu_bytes"] == bf["weights_per_gpu_bytes"]
    assert f8["kv_bytes_per_token_per_gpu"] * 2 == bf["kv_bytes_per_token_per_gpu"]
    budget = round(0.9 * runtime_mem(gpu)) - bf["weights_per_gpu_bytes"] - RESERVE
    assert bf["kv_capacity_tokens"] == math.floor(budget / bf["kv_bytes_per_token_per_gpu"])
    assert f8["kv_capacity_tokens"] == math.floor(2 * budget / bf["kv_bytes_per_token_per_gpu"])
    assert 2 * bf["kv_capacity_tokens"] <= f8["kv_capacity_tokens"] <= 2 * bf["kv_capacity_tokens"] + 1


@pytest.mark.parametrize("model", ["qwen3-8b", "mixtral-8x7b", "deepseek-v3", "gemma-2-9b"])
@pytest.mark.parametrize("wf", ["bf16", "fp8", "int8", "int4-g128", "nvfp4"])
def test_tp2_halves_per_gpu_weights(client, model, wf):
    one = outs(client, model=model_ref(model), gpu="b200", weight_format=wf)
    two = outs(client, model=model_ref(model), gpu="b200", weight_format=wf, tp=2)
    assert two["weights_per_gpu_bytes"] * 2 == one["weights_per_gpu_bytes"]
    assert two["weight_read_per_gpu_gb"] * 2 == pytest.approx(one["weight_read_per_gpu_gb"], rel=1e-15)


def test_moe_memory_uses_total_parameters_and_the_read_active_ones(client):
    """Mixtral 8×7B (46,702,792,704 params, 12,879,921,152 active): memory holds every expert; one token reads its
    two experts; a batch touches E·(1 − (1 − k/E)^B) of them and reads more."""
    m = cfg("mixtral-8x7b")
    one = outs(client, model=m, tp=2, concurrency=1)
    assert one["params_total"] == 46_702_792_704 and one["weights_per_gpu_bytes"] == 2 * 46_702_792_704 / 2
    assert one["distinct_experts"] == pytest.approx(2)
    assert one["weight_read_per_gpu_gb"] * 1e9 == pytest.approx(
        2 * (12_617_515_008 + 131_072_000 + 266_240 + 4096) / 2, rel=1e-15
    )
    many = outs(client, model=m, tp=2, concurrency=64)
    assert many["distinct_experts"] == pytest.approx(8 * (1 - 0.75**64))
    assert one["weight_read_per_gpu_gb"] < many["weight_read_per_gpu_gb"] < many["weights_per_gpu_bytes"] / 1e9
    dense = [outs(client, concurrency=b)["weight_read_per_gpu_gb"] for b in (1, 64)]
    assert dense[0] == dense[1] and outs(client)["distinct_experts"] is None


def test_allreduce_is_a_separate_term_only_above_tp1(client):
    b = get(client)
    assert b["outputs"]["t_allreduce_ms"] == 0 and b["derivations"]["t_allreduce_ms"]["source"].startswith("tp = 1")
    o = outs(client, tp=2, concurrency=16)
    # 16 tokens × 36 layers × 2 all-reduces × 2·(2−1)/2 × 4096 × 2 B over NVLink 450 GB/s
    assert o["t_allreduce_ms"] == pytest.approx(16 * 36 * 2 * 1 * 4096 * 2 / 450e9 * 1e3, rel=1e-12)
    assert o["t_step_lb_ms"] == pytest.approx(max(o["t_mem_ms"], o["t_compute_ms"]) + o["t_allreduce_ms"], rel=1e-12)
    frag = client.get("/cards/fit-planner/fragment", params={"tp": 2}).text
    assert 'data-key="t_allreduce_ms"' in frag and "all-reduce" in frag


def test_custom_gpu_needs_a_link_for_tp_and_the_override_is_used(client):
    g = "custom:48,1,300"
    r = client.get(API, params={"gpu": g, "tp": 2})
    assert r.status_code == 422
    d = r.json()["detail"][0]
    assert d["field"] == "tp" and "互连" in d["msg"]
    o = outs(client, gpu=g, tp=2, link_gbps=100, concurrency=4)
    assert o["t_allreduce_ms"] == pytest.approx(4 * 36 * 2 * 1 * 4096 * 2 / 100e9 * 1e3, rel=1e-12)
    assert o["peak_fell_back"] is False and o["peak_used_tflops"] == 300
    assert outs(client, gpu=g, weight_format="fp8")["peak_fell_back"] is True  # a custom card records only BF16
    assert client.get(API, params={"gpu": "custom:48,1,300", "tp": 4, "link_gbps": 448}).status_code == 200


def test_head_replication_and_mla_are_flagged(client):
    rep = outs(client, model=cfg("qwen2.5-7b"), tp=8)
    assert (rep["kv_heads_per_gpu"], rep["kv_replicated"]) == (1, True)
    assert outs(client, model=cfg("qwen2.5-7b"), tp=4)["kv_replicated"] is False
    frag = client.get("/cards/fit-planner/fragment", params={"model": cfg("qwen2.5-7b"), "tp": 8}).text
    assert "超过 KV 头数 4" in frag
    mla = outs(client, model=cfg("deepseek-v3"), gpu="b200", tp=8, weight_format="fp8")
    assert mla["kv_bytes_per_token_per_gpu"] == 61 * 576 * 2 and mla["kv_replicated"] is True
    assert (
        "压缩潜向量"
        in client.get(
            "/cards/fit-planner/fragment",
            params={"model": cfg("deepseek-v3"), "gpu": "b200", "tp": 8, "weight_format": "fp8"},
        ).text
    )


def test_compute_peak_follows_the_format_or_falls_back_and_says_why(client):
    fb = outs(client, weight_format="nvfp4")  # Hopper has no FP4
    assert (fb["peak_fell_back"], fb["peak_used_tflops"], fb["peak_format"]) == (True, 989.4, "bf16")
    assert "回退到 BF16" in client.get("/cards/fit-planner/fragment", params={"weight_format": "nvfp4"}).text
    assert outs(client, gpu="b200", weight_format="nvfp4")["peak_used_tflops"] == 9000
    assert outs(client, weight_format="fp8")["peak_used_tflops"] == 1979
    assert outs(client, gpu="a100-80gb-sxm", weight_format="fp8")["peak_fell_back"] is True
    assert outs(client, weight_format="int4-g128")["peak_fell_back"] is False  # weight-only: BF16 by design
    assert (outs(client, weight_format="int4-g128")["weight_bits"], outs(client, kv_format="int4")["kv_bits"]) == (
        4.125,
        4.5,
    )


def test_all_sliding_model_has_no_context_limit(client):
    from app.data import model_config

    c = dict(model_config("qwen3-8b"), use_sliding_window=True, sliding_window=4096, max_window_layers=0)
    b = get(client, model=encode_config(c), concurrency=4)
    assert b["outputs"]["max_context_at_concurrency"] is None and "max_context_at_concurrency" not in b["derivations"]
    assert (
        "不受显存限制"
        in client.get("/cards/fit-planner/fragment", params={"model": encode_config(c), "concurrency": 4}).text
    )


def test_does_not_fit_reads_as_such(client):
    """141 GB of BF16 weights on one H100: no budget, no step, no throughput — the shortfall and three ways out
    (with the fixed 3.3 GB reserve, so the shortfall is hand-checkable)."""
    o = outs(client, model="deepseek-r1-distill-llama-70b", reserve_gb=RESERVE / 1e9)
    assert o["fits"] is False and o["model_fits"] is False
    assert o["kv_capacity_tokens"] == 0 and o["max_concurrency_at_context"] == 0
    assert o["t_step_lb_ms"] is None and o["tokens_per_s_ideal"] is None and o["kv_budget_gb"] is None
    usable = round(0.9 * 85_061_827_297)
    assert o["model_short_gb"] * 1e9 == pytest.approx(2 * 70_553_706_496 + RESERVE - usable, rel=1e-12)
    assert o["short_gb"] == o["model_short_gb"] > 0
    assert o["fix_tp"] == "tp = 2" and o["fix_weight_format"].startswith("FP8") and o["fix_gpu"].startswith("B200")
    frag = client.get("/cards/fit-planner/fragment", params={"model": "deepseek-r1-distill-llama-70b"}).text
    assert "✗ 模型放不下" in frag and "理想吞吐" in frag and "无(模型放不下)" in frag and "-" + "4." not in frag


def test_model_fits_but_the_batch_does_not(client):
    """Qwen3-8B on one H100 with 200 × 65,536 tokens: the model fits, the batch's 1.93 TB of KV does not."""
    o = outs(client, concurrency=200, context=65536)
    assert o["model_fits"] is True and o["fits"] is False and o["t_step_lb_ms"] is not None
    assert o["short_gb"] * 1e9 == pytest.approx(200 * 65536 * 147_456 - o["kv_budget_gb"] * 1e9, rel=1e-9)
    frag = client.get("/cards/fit-planner/fragment", params={"concurrency": 200, "context": 65536}).text
    assert "模型放得下 · ✗ 这批放不下" in frag and "最多并发" in frag


def test_checkpoint_format_is_offered(client):
    """gpt-oss-120b as stored (MXFP4 experts): 65.25 GB of weights. On one H100 at η = 0.9 vLLM fails to start
    (vllm#23278: 65.97 GiB loaded, KV −2.14 GiB) — the vLLM profile says so; with the old fixed 3.3 GB reserve
    the weights fitted. On an H200 (FP8-less Marlin repack too) it fits."""
    o = outs(client, model="gpt-oss-120b", weight_format="stored")
    assert o["model_fits"] is False and o["weights_per_gpu_gb"] == pytest.approx(65.248815744, rel=1e-9)
    assert outs(client, model="gpt-oss-120b", weight_format="stored", reserve_gb=3.3)["model_fits"] is True
    assert outs(client, model="gpt-oss-120b", weight_format="stored", gpu="h200-sxm")["model_fits"] is True
    assert outs(client, model="gpt-oss-120b")["model_fits"] is False  # 233.7 GB in BF16
    frag = client.get("/cards/fit-planner/fragment", params={"model": "gpt-oss-120b", "weight_format": "stored"}).text
    assert "mxfp4" in frag


@pytest.mark.parametrize("gid", ["mi300x", "mi325x"])
def test_mesh_interconnect_at_tp4(client, gid):
    o = outs(client, gpu=gid, tp=4, concurrency=4)
    assert o["link_used_gbps"] == 192  # 3 of the 7 Infinity Fabric links, 64 GB/s each way
    assert o["t_allreduce_ms"] == pytest.approx(4 * 36 * 2 * 1.5 * 4096 * 2 / 192e9 * 1e3, rel=1e-12)


def test_public_measurements_beside_the_bound(client):
    """Every point of data/measured_decode.json is listed with its bound and 实测 / 下界 — above 100 %."""
    rows = outs(client)["measured"]
    assert len(rows) >= 8 and len({r["gpu"] for r in rows}) >= 3
    for r in rows:
        assert r["bound_ms"] > 0 and r["ratio_pct"] == pytest.approx(100 * r["measured_ms"] / r["bound_ms"])
        assert r["ratio_pct"] > 100 and r["source"]
    frag = client.get("/cards/fit-planner/fragment").text
    assert "实测 / 下界" in frag and "下界不是预测" in frag


@pytest.mark.parametrize(
    "field,bad",
    [
        ("tp", "3"),
        ("tp", "16"),
        ("tp", "0"),
        ("mem_util", "0"),
        ("mem_util", "1.01"),
        ("reserve_gb", "-1"),
        ("reserve_gb", "65"),
        ("context", "0"),
        ("context", "1048577"),
        ("concurrency", "0"),
        ("concurrency", "1001"),
        ("weight_format", "fp16"),
        ("kv_format", "int8"),
        ("link_gbps", "0"),
        ("model", "cfg:AAAAAAAAAA"),
        ("gpu", "rtx-a6000"),
        ("gpu", "custom:80,3.35"),
        ("max_num_batched_tokens", "0"),
        ("max_num_batched_tokens", "1048577"),
        ("max_num_batched_tokens", "2.5"),
    ],
)
def test_bad_input_is_a_field_named_422(client, field, bad):
    r = client.get(API, params={field: bad})
    assert r.status_code == 422, (field, bad)
    d = r.json()["detail"][0]
    assert d["field"] == field and field in d["msg"]
    page = client.get("/tools/fit", params={field: bad})
    assert page.status_code == 422 and f'data-error-for="{field}"' in page.text
    # issue 38 point 7: the English edition says it in English (API and page), the field still named
    en = client.get(API, params={field: bad, "lang": "en"})
    msg = en.json()["detail"][0]["msg"]
    assert en.status_code == 422 and msg.startswith(f"{field} (") and not re.search(r"[\u4e00-\u9fff]", msg), msg
    en_page = client.get("/en/tools/fit", params={field: bad})
    shown = re.search(rf'data-error-for="{field}"[^>]*>([^<]*)<', en_page.text)
    assert en_page.status_code == 422 and shown and not re.search(r"[\u4e00-\u9fff]", shown.group(1))


def test_contract_parameters_in_openapi(client):
    op = client.get("/openapi.json").json()["paths"][API]["get"]
    names = {p["name"] for p in op["parameters"]}
    assert {
        "model",
        "gpu",
        "tp",
        "weight_format",
        "kv_format",
        "mem_util",
        "reserve_gb",
        "context",
        "concurrency",
    } <= names
    tp = next(p for p in op["parameters"] if p["name"] == "tp")
    assert tp["schema"]["enum"] == [1, 2, 4, 8]
    assert "link_gbps" in op["description"]


# ---- the page -------------------------------------------------------------------------------------


def test_tool_page(client):
    r = client.get("/tools/fit")
    assert r.status_code == 200
    assert 'id="fit-planner"' in r.text and "放得下吗?最快能多快?" in r.text and "✓ 放得下" in r.text
    assert 'href="/tools/fit"' in r.text  # the header nav
    assert "/ch/0" not in r.text
    assert client.get("/tools/nope").status_code == 404
    q = client.get("/tools/fit", params={"model": "deepseek-r1-distill-llama-70b"})
    assert q.status_code == 200 and "✗ 模型放不下" in q.text


@pytest.mark.parametrize("section", ["/ch/1/1.2", "/ch/3/3.1"])
def test_sections_link_to_the_page(client, section):
    html = client.get(section).text
    prose_links = re.findall(r'<div class="prose">.*?</div>', html, re.S)
    assert any('href="/tools/fit"' in p for p in prose_links), section
    for href in set(re.findall(r'href="(/tools/[^"#?]*)"', html)):
        assert client.get(href).status_code == 200, href


def test_card_listed_found_and_standalone(client):
    listed = {c["id"]: c for c in client.get("/api/cards").json()["cards"]}
    assert listed["fit-planner"]["section"] == "tools"
    page = client.get("/cards/fit-planner")
    assert page.status_code == 200 and 'href="/ch/0"' not in page.text and "工具" in page.text
    assert (
        client.get("/jump", params={"q": "fit-planner"}, follow_redirects=False).headers["location"]
        == "/cards/fit-planner"
    )
    assert (
        client.get("/jump", params={"q": "速度规划"}, follow_redirects=False).headers["location"]
        == "/cards/fit-planner"
    )
    assert client.get("/present/fit-planner").status_code == 200
    assert client.get("/cards/fit-planner?embed=1").status_code == 200


def test_reserve_defaults_to_vllms_profile_and_takes_the_batched_token_budget(client):
    """Blank reserve: vLLM's terms (issue 38). Qwen3-8B on one H100: 8,192 batched tokens by default (≥ 70 GiB),
    the sampler over 1,024 rows × 151,936 logits dominates the activation; a larger token budget raises the
    forward term, and a typed reserve replaces every term."""
    o = outs(client)
    assert o["batched_tokens_used"] == 8192
    assert o["reserve_per_gpu_gb"] == pytest.approx(
        o["reserve_activation_gb"]
        + o["reserve_non_torch_gb"]
        + o["reserve_cuda_graph_gb"]
        + o["reserve_loaded_extra_gb"]
    )
    assert o["reserve_activation_gb"] * 1e9 == pytest.approx(8192 * 4096 * 2 + 1024 * 151_936 * 37.3)
    big = outs(client, max_num_batched_tokens=131072)
    assert (
        big["reserve_activation_gb"] > o["reserve_activation_gb"]
        and big["kv_capacity_tokens"] < o["kv_capacity_tokens"]
    )
    fixed = outs(client, reserve_gb=3.3)
    assert fixed["reserve_per_gpu_gb"] == pytest.approx(3.3) and fixed["reserve_activation_gb"] is None
    small = outs(client, gpu="rtx-4090", model="qwen3-8b", weight_format="fp8")
    assert small["batched_tokens_used"] == 2048  # < 70 GiB: vLLM's smaller default


def test_hybrid_reports_both_counts_and_says_which(client):
    """gpt-oss-120b on an H200: the pool counts every layer per token; vLLM prints max concurrency × max model
    length, where the 18 sliding layers hold at most 128 tokens — a larger number at 131,072 tokens."""
    o = outs(client, model="gpt-oss-120b", gpu="h200-sxm", weight_format="stored", context=131072, concurrency=1)
    assert o["model_fits"] and o["vllm_kv_tokens"] > o["kv_capacity_tokens"]
    assert o["vllm_max_concurrency"] * 131072 == pytest.approx(o["vllm_kv_tokens"], abs=1)
    frag = client.get(
        "/cards/fit-planner/fragment",
        params={"model": "gpt-oss-120b", "gpu": "h200-sxm", "weight_format": "stored", "context": 131072},
    ).text
    assert "别混用" in frag and "池子按每层每 token 算的容量" in frag
    dense = outs(client)
    assert dense["vllm_kv_tokens"] == dense["kv_capacity_tokens"]  # every layer keeps every token


def test_pasted_config_with_hf_quant_config_sets_the_stored_format(client):
    """The page's pasted config may carry hf_quant_config.json's content under the key hf_quant_config: a
    ModelOpt FP8 Qwen3-8B is then sized as FP8, not BF16."""
    from app.data import encode_config

    raw = json.loads((CONFIGS / "qwen3-8b.json").read_text(encoding="utf-8"))
    c = {k: v for k, v in raw.items() if not k.startswith("_")}
    c["hf_quant_config"] = {"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "FP8"}}
    o = outs(client, model=encode_config(c), weight_format="stored", reserve_gb=3.3)
    lin, total = 6_945_767_424, 8_190_735_360
    assert o["weights_per_gpu_bytes"] == lin + 8 * 36 * 7 + 2 * (total - lin)


def test_mtp_toggle_adds_the_mtp_weights_as_loaded(client):
    """Speculative decoding with MTP: vLLM loads the MTP layers; the toggle adds them to the weights as loaded (a
    model without MTP layers is unchanged)."""
    from app.calculators.model_config import shape_of
    from app.data import encode_config

    raw = json.loads((CONFIGS / "deepseek-v3.json").read_text(encoding="utf-8"))
    ref = encode_config({k: v for k, v in raw.items() if not k.startswith("_")})
    base = outs(client, model=ref, gpu="b200", tp=8, weight_format="fp8")
    mtp = outs(client, model=ref, gpu="b200", tp=8, weight_format="fp8", mtp=True)
    s = shape_of({k: v for k, v in raw.items() if not k.startswith("_")})
    added = (mtp["reserve_loaded_extra_gb"] - base["reserve_loaded_extra_gb"]) * 1e9
    assert added == pytest.approx(s.mtp_params * 2 / 8, rel=1e-9)  # unquantised checkpoint: 2 B/param, split by tp
    assert outs(client, mtp=True)["kv_capacity_tokens"] == outs(client)["kv_capacity_tokens"]  # Qwen3-8B: none


GiB = 2**30


def _nt_input(body: dict) -> dict:
    """The M_nt,2× input of the non-torch derivation (the term that depends on the interconnect)."""
    return next(i for i in body["derivations"]["reserve_non_torch_gb"]["inputs"] if i["sym"] == "M_nt,2×")


@pytest.mark.parametrize(
    ("gid", "tp", "per_doubling_gib", "said"),
    [
        ("rtx-4090", 2, 0.2, "topology = pcie"),  # PCIe 4.0 x16, no NVLink
        ("rtx-5090", 4, 0.2, "topology = pcie"),
        ("l40s", 2, 0.2, "topology = pcie"),
        ("h100-sxm", 2, 1.2, "topology = switch"),  # NVLink 4 through NVSwitch
        ("a100-80gb-sxm", 8, 1.2, "topology = switch"),
        ("mi300x", 4, 1.2, "topology = mesh"),  # Infinity Fabric: no calibrating log, the NVLink value, said so
    ],
)
def test_non_torch_term_follows_the_presets_interconnect_through_the_api(client, gid, tp, per_doubling_gib, said):
    """vLLM's non-torch memory grows per tp doubling by 1.2 GiB over NVLink / NVSwitch and 0.2 GiB over PCIe
    (docs/planner.md): the card takes each preset's topology from data/gpus.json and says where it read it."""
    b = get(client, gpu=gid, tp=tp, model="qwen3-8b", weight_format="fp8")
    expected = (0.35 + per_doubling_gib * math.log2(tp)) * GiB
    assert b["outputs"]["reserve_non_torch_gb"] * 1e9 == pytest.approx(expected, rel=1e-12)
    src = _nt_input(b)["source"]
    assert said in src and gpu(gid).name in src
    assert ("PCIe" in src) is (per_doubling_gib == 0.2)
    if gid == "mi300x":
        assert "Infinity Fabric" in src
    en = client.get(API, params={"gpu": gid, "tp": tp, "model": "qwen3-8b", "weight_format": "fp8", "lang": "en"})
    assert "this GPU's interconnect" in _nt_input(en.json())["source"] and said in _nt_input(en.json())["source"]
    page = client.get("/cards/fit-planner/explain", params={"gpu": gid, "tp": tp, "weight_format": "fp8"}).text
    shown = re.search(r"M_nt,2× = ([\d,]+) B<span class=\"d-src\">([^<]*)</span>", page)
    assert shown and int(shown.group(1).replace(",", "")) == round(per_doubling_gib * GiB) and said in shown.group(2)


def test_the_cards_compute_passes_the_presets_interconnect():
    """Through the card's own compute (no HTTP): at tp 2 a PCIe pair (RTX 4090) grows non-torch memory by
    0.2 GiB, an NVLink pair (H100) by 1.2 GiB; the other engine terms do not depend on the link, so at equal
    batch settings the reserves differ by exactly 1 GiB. At tp 1 the interconnect does not matter."""
    from app.chapters.tools.fit import FitParams, engine_reserve, fit_planner, model_shape

    pcie = fit_planner(FitParams(gpu="rtx-4090", tp=2, weight_format="fp8")).outputs
    nvl = fit_planner(FitParams(gpu="h100-sxm", tp=2, weight_format="fp8")).outputs
    assert pcie["reserve_non_torch_gb"] * 1e9 == pytest.approx(0.55 * GiB)
    assert nvl["reserve_non_torch_gb"] * 1e9 == pytest.approx(1.55 * GiB)
    s = model_shape("qwen3-8b")
    # the same token budget on both (the default differs by card size: 2,048 below 70 GiB, 8,192 above)
    r_pcie = engine_reserve(FitParams(gpu="rtx-4090", tp=2, weight_format="fp8", max_num_batched_tokens=1), s)
    r_nvl = engine_reserve(FitParams(gpu="h100-sxm", tp=2, weight_format="fp8", max_num_batched_tokens=1), s)
    assert r_nvl.non_torch - r_pcie.non_torch == pytest.approx(1 * GiB)
    assert r_nvl.forward_peak == r_pcie.forward_peak
    one = [
        fit_planner(FitParams(gpu=g, tp=1, weight_format="fp8")).outputs["reserve_non_torch_gb"]
        for g in ("rtx-4090", "h100-sxm")
    ]
    assert one[0] == one[1] == pytest.approx(0.35 * GiB / 1e9)


def test_a_custom_gpu_has_no_interconnect_and_says_so(client):
    """A reader's own card names no topology: the NVLink value (the smaller KV budget), said as unknown."""
    b = get(client, gpu="custom:48,1,300", tp=2, link_gbps=64)
    assert b["outputs"]["reserve_non_torch_gb"] * 1e9 == pytest.approx(1.55 * GiB)
    src = _nt_input(b)["source"]
    assert "互连未知" in src and "无 topology" in src


def test_every_preset_carries_its_interconnect():
    """Every preset in data/gpus.json names its topology and link (the PCIe cards as pcie)."""
    from app.data import gpus

    for gid, g in gpus().items():
        assert g.topology in ("switch", "mesh", "pcie"), gid
        assert g.interconnect, gid
    for gid in ("rtx-3090", "rtx-4090", "rtx-5090", "rtx-a6000", "rtx-pro-6000", "l40s", "l20"):
        assert gpus()[gid].topology == "pcie", gid


def test_every_engine_term_is_shown_with_its_source(client):
    """Issue 38 point 1: each term vLLM keeps before its KV cache is in the derivation with where it comes from —
    the code read (vllm-project/vllm@35d5cda1, profile_run / gpu_worker.py) or a cited calibration (docs/planner.md
    and the vLLM issue or PR it was fitted on)."""
    d = get(client, gpu="h100-sxm", tp=2, model="qwen3-8b")["derivations"]
    srcs = {k: [d[k].get("source") or ""] + [i["source"] for i in d[k].get("inputs", [])] for k in d}
    act = " ".join(srcs["reserve_activation_gb"])
    assert "35d5cda1 profile_run" in act and "vllm#10517" in act and "vllm#23278" in act  # T, c_fwd, b_logit
    nt = " ".join(srcs["reserve_non_torch_gb"])
    assert "vllm#10517" in nt and "#10511" in nt and "topology = switch" in nt
    assert "gpu_worker.py" in srcs["reserve_cuda_graph_gb"][0]
    assert srcs["reserve_loaded_extra_gb"][
        0
    ]  # "loaded in the stored format, no extra" here; MXFP4 / towers / MTP cite theirs
    oss = get(client, model="gpt-oss-120b", gpu="h100-sxm", weight_format="stored")["derivations"]
    assert any("vllm#23278" in i["source"] for i in oss["reserve_loaded_extra_gb"]["inputs"])  # MXFP4 via Marlin


def test_linear_attention_hybrid_reports_both_counts_and_says_which(client):
    """Qwen3-Next (Gated DeltaNet + full attention): the pool's token capacity counts the full-attention layers per
    token; what vLLM prints is max concurrency × max model length, each request also holding its constant
    recurrent state — so at 131,072 tokens the printed figure is the smaller one. The page names both."""
    raw = json.loads((CONFIGS / "qwen3-next-80b-a3b.json").read_text(encoding="utf-8"))
    ref = encode_config({k: v for k, v in raw.items() if not k.startswith("_")})
    q = {"model": ref, "gpu": "h200-sxm", "weight_format": "fp8", "context": 131072, "concurrency": 1}
    o = outs(client, **q)
    assert o["model_fits"] and o["state_per_seq_per_gpu_mb"] > 0
    assert o["vllm_kv_tokens"] == int(o["vllm_max_concurrency"] * 131072)
    assert o["vllm_kv_tokens"] < o["kv_capacity_tokens"]  # the state per request comes out of the pool
    per_request = o["kv_bytes_per_token_per_gpu"] * 131072 + o["state_per_seq_per_gpu_mb"] * 1e6
    assert o["vllm_max_concurrency"] == pytest.approx(o["kv_budget_gb"] * 1e9 / per_request, rel=1e-9)
    zh = client.get("/cards/fit-planner/fragment", params=q).text
    en = client.get("/en/cards/fit-planner/fragment", params=q).text
    assert "别混用" in zh and "池子按每层每 token 算的容量" in zh
    en = html.unescape(en)
    assert "GPU KV cache size in vLLM's log" in en and "per layer per token" in en and "don't mix them up" in en


def test_the_model_report_says_which_active_parameter_convention_a_publisher_uses(client):
    """Issue 38 point 6: the report gives both counts and says which convention the publishers' figures follow
    (gpt-oss's card and Qwen's A×B without the input embedding)."""
    raw = json.loads((Path(__file__).resolve().parents[2] / "data/models/gpt-oss-120b.json").read_text("utf-8"))
    body = json.dumps({k: v for k, v in raw.items() if not k.startswith("_")}).encode()
    r = client.post("/api/models/derive", content=body, headers={"content-type": "application/json"})
    d = r.json()
    assert r.status_code == 200 and d["params_active_excl_embedding"] == 5_132_849_472
    total = next(s for s in d["steps"] if "5,132,849,472" in s)
    assert "gpt-oss 模型卡的激活参数不含输入嵌入" in total and "A×B" in total
