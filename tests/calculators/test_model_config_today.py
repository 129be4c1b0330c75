"""Today's architectures (issue 24), read from public configs in tests/data/configs/ (each file's
``_source`` says where it comes from). Every total is checked twice: against an independent count written
out here from the architecture's rule (the transformers modeling file named in the comment), and against
the published figure within the stated tolerance. KV bytes and constant state against the hand rules;
stored bytes against the quantization rules; and the no-silent-default rule over mutated configs."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from app.calculators import model_config as mc
from app.web.model_report import line

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"


def cfg(name: str) -> dict:
    raw = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    return {k: v for k, v in raw.items() if not k.startswith("_")}


def gqa(h: int, nh: int, nkv: int, hd: int, q_mult: int = 1) -> int:
    """q, k, v, o matrices of one attention layer."""
    return h * nh * hd * q_mult + 2 * h * nkv * hd + nh * hd * h


def swiglu(h: int, ff: int) -> int:
    return 3 * h * ff


# --- independent counts (modeling_*.py rules written out) ----------------------------------------------


def gpt_oss_total(L, E, h=2880, ff=2880, nh=64, nkv=8, hd=64, V=201088):
    # modular_gpt_oss.py: q/k/v/o with bias, sinks per head; experts gate_up (h×2ff) + down (ff×h) with biases;
    # router E×h + bias; 2 RMSNorms per block; untied LM head; final norm
    attn = gqa(h, nh, nkv, hd) + (nh * hd + 2 * nkv * hd + h) + nh
    moe = E * (h * 2 * ff + ff * h) + E * (2 * ff + h) + E * h + E
    return L * (attn + moe + 2 * h) + 2 * V * h + h


def llama4_total(L, E, step, h=5120, ff=8192, ff_mlp=16384, nh=40, nkv=8, hd=128, V=202048):
    # modeling_llama4.py: MoE layer = E experts (gate_up + down) + shared expert (ff) + router (no bias);
    # dense layer = MLP of intermediate_size_mlp; L2 qk-norm has no weight
    moe_layers = len(range(step - 1, L, step))
    moe = E * swiglu(h, ff) + swiglu(h, ff) + E * h
    return L * (gqa(h, nh, nkv, hd) + 2 * h) + moe_layers * moe + (L - moe_layers) * swiglu(h, ff_mlp) + 2 * V * h + h


def qwen3_next_total():
    # modular_qwen3_next.py: 12 gated-attention layers (q_proj 2×, q/k norm), 36 Gated DeltaNet layers
    # (in_proj_qkvz, in_proj_ba, conv1d, dt_bias, A_log, gated norm, out_proj); every layer MoE 512 × 512
    # + shared expert 512 + shared_expert_gate (h×1) + router
    h, V = 2048, 151936
    attn = gqa(h, 16, 2, 256, q_mult=2) + 2 * 256
    kd, vd, nv = 16 * 128, 32 * 128, 32
    gdn = h * (2 * kd + 2 * vd) + h * 2 * nv + vd * h + (2 * kd + vd) * 4 + 2 * nv + 128
    moe = 512 * swiglu(h, 512) + swiglu(h, 512) + h + 512 * h
    return 12 * attn + 36 * gdn + 48 * (moe + 2 * h) + 2 * V * h + h


def qwen35_27b_total():
    # modular_qwen3_5.py: in_proj_qkv / z / b / a instead of qkvz / ba (same sizes); dense MLP 17408
    h, V = 5120, 248320
    attn = gqa(h, 24, 4, 256, q_mult=2) + 2 * 256
    kd, vd, nv = 16 * 128, 48 * 128, 48
    gdn = h * (2 * kd + vd) + h * vd + 2 * h * nv + vd * h + (2 * kd + vd) * 4 + 2 * nv + 128
    return 16 * attn + 48 * gdn + 64 * (swiglu(h, 17408) + 2 * h) + 2 * V * h + h


def mla_attn(h, nh, qr, kvr, nope=128, rope=64, v=128):
    return h * qr + qr * nh * (nope + rope) + h * (kvr + rope) + kvr * nh * (nope + v) + nh * v * h


def dsv32_total():
    # DeepSeek-V3 (61 layers, 3 dense) + per-layer indexer: wq_b (1536 → 64×128), wk (h → 128), k_norm (LayerNorm
    # weight + bias 2×128), weights_proj (h → 64) — modular_deepseek_v32.py DeepseekV32Indexer
    h, V = 7168, 129280
    attn = mla_attn(h, 128, 1536, 512) + (1536 + 512) + (1536 * 64 * 128 + h * 128 + 2 * 128 + h * 64)
    moe = 256 * swiglu(h, 2048) + swiglu(h, 2048) + h * 256 + 256
    return 61 * (attn + 2 * h) + 3 * swiglu(h, 18432) + 58 * moe + 2 * V * h + h


def kimi_total():
    # DeepSeek-V3 shape: 61 layers, first 1 dense, 384 experts + 1 shared, 64 heads, router bias (noaux_tc)
    h, V = 7168, 163840
    attn = mla_attn(h, 64, 1536, 512) + 1536 + 512
    moe = 384 * swiglu(h, 2048) + swiglu(h, 2048) + h * 384 + 384
    return 61 * (attn + 2 * h) + swiglu(h, 18432) + 60 * moe + 2 * V * h + h


def minimax_total():
    # modular_minimax_m2.py: FlexOlmo attention with q_norm (nh·hd) and k_norm (nkv·hd); Mixtral experts;
    # e_score_correction_bias (E)
    h, V = 3072, 200064
    attn = gqa(h, 48, 8, 128) + 48 * 128 + 8 * 128
    moe = 256 * swiglu(h, 1536) + 256 * h + 256
    return 62 * (attn + moe + 2 * h) + 2 * V * h + h


TODAY = [  # name, independent total, published total, tolerance, what the published figure counts
    ("gpt-oss-20b", gpt_oss_total(24, 32), 20.91e9, 0.001, "model card / paper: 20.91B"),
    ("gpt-oss-120b", gpt_oss_total(36, 128), 116.83e9, 0.001, "model card / paper: 116.83B"),
    ("llama-4-scout-17b-16e", llama4_total(48, 16, 1), 109e9 - 1.7e9, 0.01, "109B incl. ≈1.7B vision"),
    ("llama-4-maverick-17b-128e", llama4_total(48, 128, 2), 400e9, 0.01, "model card: 400B"),
    ("qwen3-next-80b-a3b", qwen3_next_total(), 79.7e9, 0.002, "GGUF tensor count 79.7B (card: 80B)"),
    ("qwen3.5-27b", qwen35_27b_total(), 27e9, 0.02, "model name 27B (with its vision tower)"),
    ("deepseek-v3.2", dsv32_total(), 685e9 - 14e9, 0.01, "685B incl. ≈14B MTP module"),
    ("kimi-k2.5", kimi_total(), 1.04e12, 0.02, "model card: 1T total"),
    ("minimax-m2", minimax_total(), 230e9, 0.01, "model card: 230B"),
]


@pytest.mark.parametrize("name,independent,published,tol,what", TODAY, ids=[t[0] for t in TODAY])
def test_totals_against_independent_count_and_published(name, independent, published, tol, what):
    s = mc.shape_of(cfg(name))
    assert s.params_total == independent
    assert s.params_total == pytest.approx(published, rel=tol), what


def test_gpt_oss_active_excludes_input_embedding_as_published():
    # paper: 5.13B / 3.61B active: the routed top-4 experts, attention, LM head — the input table is not read whole
    for name, active in (("gpt-oss-120b", 5.13e9), ("gpt-oss-20b", 3.61e9)):
        s = mc.shape_of(cfg(name))
        assert s.params_active - s.embedding_params == pytest.approx(active, rel=0.002)


def test_llama4_active_17b():
    for name in ("llama-4-scout-17b-16e", "llama-4-maverick-17b-128e"):
        assert mc.shape_of(cfg(name)).params_active == pytest.approx(17e9, rel=0.02)


# --- KV and state against the hand rules ------------------------------------------------------------


def test_gpt_oss_kv_window_128_on_alternate_layers():
    s = mc.shape_of(cfg("gpt-oss-120b"))
    per_layer = 2 * 8 * 64 * 2
    assert (s.sliding_window, s.n_sliding_layers) == (128, 18)
    assert s.kv_bytes_per_token_bf16 == 36 * per_layer
    assert s.kv_full_bytes_per_token == 18 * per_layer
    assert mc.kv_bytes(s, 100_000) == 100_000 * 18 * per_layer + 128 * 18 * per_layer


def test_llama4_chunked_layers_bounded_by_chunk_and_nope_layers_global():
    s = mc.shape_of(cfg("llama-4-scout-17b-16e"))
    per_layer = 2 * 8 * 128 * 2
    assert (s.sliding_window, s.n_sliding_layers) == (8192, 36)  # layers 3, 7, …, 47 are NoPE and global
    assert mc.kv_bytes(s, 1_000_000) == 1_000_000 * 12 * per_layer + 8192 * 36 * per_layer
    unchunked = mc.shape_of(
        {
            **cfg("llama-4-scout-17b-16e"),
            "text_config": {**cfg("llama-4-scout-17b-16e")["text_config"], "attention_chunk_size": None},
        }
    )
    assert unchunked.n_sliding_layers == 0


def test_qwen3_next_state_and_full_layer_kv():
    s = mc.shape_of(cfg("qwen3-next-80b-a3b"))
    assert s.kv_bytes_per_token_bf16 == 12 * 2 * 2 * 256 * 2  # only the 12 full-attention layers
    conv = (2 * 16 * 128 + 32 * 128) * (4 - 1) * 2
    recurrent = 32 * 128 * 128 * 2
    assert s.state_bytes_per_sequence == 36 * (conv + recurrent) == 39_518_208
    assert mc.derive(cfg("qwen3-next-80b-a3b"))["kv_bytes_by_context"]["4096"] == 4096 * 24_576 + 39_518_208


def test_qwen35_state_float32_when_config_asks():
    c = cfg("qwen3.5-27b")
    base = mc.shape_of(c).state_bytes_per_sequence
    conv, rec = (2 * 16 * 128 + 48 * 128) * 3 * 2, 48 * 128 * 128
    assert base == 48 * (conv + rec * 2)
    f32 = mc.shape_of({**c, "text_config": {**c["text_config"], "mamba_ssm_dtype": "float32"}})
    assert f32.state_bytes_per_sequence == 48 * (conv + rec * 4)


def test_dsv32_kv_adds_indexer_key():
    s = mc.shape_of(cfg("deepseek-v3.2"))
    assert s.kv_bytes_per_token_bf16 == 61 * (512 + 64 + 128) * 2 == 85_888


def test_wrapper_says_text_model_counted():
    for name, wrapper in (("kimi-k2.5", "kimi_k25"), ("llama-4-scout-17b-16e", "llama4"), ("qwen3.5-27b", "qwen3_5")):
        d = mc.derive(cfg(name))
        assert d["text_model_of"] == wrapper
        assert any("只算 text_config" in x for x in map(line, mc.derivation(mc.analyze(cfg(name)))))


def test_generic_multimodal_wrapper_by_text_model_type():
    text = {**cfg("qwen3-8b"), "model_type": "qwen3"}
    wrapped = {"model_type": "some_new_vlm", "text_config": text, "vision_config": {}}
    assert mc.shape_of(wrapped).params_total == mc.shape_of(cfg("qwen3-8b")).params_total
    assert mc.derive(wrapped)["text_model_of"] == "some_new_vlm"


def test_unknown_architecture_refused_by_name():
    with pytest.raises(mc.ConfigError, match="不支持的架构:model_type='mamba2'") as e:
        mc.derive({"model_type": "mamba2", "architectures": ["Mamba2ForCausalLM"]})
    assert e.value.field == "model_type"


# --- stored bytes -----------------------------------------------------------------------------------


def test_mxfp4_experts_at_4_25_bits_rest_bf16():
    s = mc.shape_of(cfg("gpt-oss-120b"))
    experts = 36 * 128 * (2880 * 5760 + 2880 * 2880)
    assert s.stored_bytes == experts * 4.25 / 8 + (s.params_total - experts) * 2
    assert s.stored_bytes / 1e9 == pytest.approx(65.25, abs=0.01)  # issue: ≈ 65 GB as stored


def test_fp8_block_scales():
    s = mc.shape_of(cfg("deepseek-v3.2"))
    a = mc.analyze(cfg("deepseek-v3.2"))
    q, kept = 0, 0
    for m in a.matrices():
        if m.role in ("embed", "lm_head", "router"):
            kept += m.params * 2
        else:  # 1 B per weight + one FP32 scale per 128 × 128 block
            q += m.count * (m.rows * m.cols + math.ceil(m.rows / 128) * math.ceil(m.cols / 128) * 4)
    vectors = s.params_total - sum(m.params for m in a.matrices())
    assert s.stored_bytes == q + kept + vectors * 2


def test_qwen3_235b_fp8_is_about_236_gb_not_470():
    c = {
        **cfg("qwen3-235b-a22b"),
        "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]},
    }
    assert mc.shape_of(cfg("qwen3-235b-a22b")).stored_bytes / 1e9 == pytest.approx(470.19, abs=0.01)
    assert mc.shape_of(c).stored_bytes / 1e9 == pytest.approx(236, abs=0.6)


def test_compressed_tensors_int4_g32_kimi():
    a = mc.analyze(cfg("kimi-k2.5"))
    experts = sum(m.params for m in a.matrices() if m.role == "expert")
    rest = a.shape.params_total - experts
    # routed experts: 4 bits + one BF16 scale per 32; attention, shared experts, the dense layer, LM head: BF16
    assert a.shape.stored_bytes == experts * 4 / 8 + experts / 32 * 2 + rest * 2
    assert a.shape.stored_bytes / 1e9 == pytest.approx(594, rel=0.005)  # the INT4 checkpoint's size


def test_awq_and_gptq_groups():
    s = mc.shape_of(cfg("zephyr-7b-alpha-awq"))
    lin = s.linear_params
    per_weight = 4 / 8 + (2 + 4 / 8) / 128  # packed 4-bit + per group of 128: FP16 scale + 4-bit zero
    assert s.stored_bytes == pytest.approx(lin * per_weight + (s.params_total - lin) * 2, abs=1)
    gptq = {**cfg("zephyr-7b-alpha-awq"), "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128}}
    a = mc.analyze(gptq)
    g_idx = sum(m.cols * 4 for m in a.matrices() if m.role == "linear")
    assert a.shape.stored_bytes == pytest.approx(s.stored_bytes + g_idx, abs=1)


def test_modules_to_not_convert_kept_16_bit():
    c = cfg("zephyr-7b-alpha-awq")
    c["quantization_config"] = {**c["quantization_config"], "modules_to_not_convert": ["self_attn"]}
    a = mc.analyze(c)
    attn = sum(m.params for m in a.matrices() if ".self_attn." in m.name)
    base = mc.shape_of(cfg("zephyr-7b-alpha-awq")).stored_bytes
    assert a.shape.stored_bytes == pytest.approx(base + attn * (2 - (4 / 8 + 2.5 / 128)), abs=1)


def test_unsupported_quant_method_is_a_named_error():
    # bitsandbytes is sized since issue 38 (tests/calculators/test_model_config_issue38.py); HQQ is not
    with pytest.raises(mc.ConfigError, match="quant_method='hqq' 不支持") as e:
        mc.derive({**cfg("qwen3-8b"), "quantization_config": {"quant_method": "hqq"}})
    assert e.value.field == "quantization_config"


# --- no silent defaults --------------------------------------------------------------------------------


def test_qwen3_32b_without_head_dim_takes_128_and_says_so():
    c = {k: v for k, v in cfg("qwen3-32b").items() if k != "head_dim"}
    d = mc.derive(c)
    assert (d["params_total"], d["kv_bytes_per_token"]) == (32_762_123_264, 262_144)
    assert d["defaults_used"]["head_dim"] == 128
    assert any("未写 head_dim，取 transformers 默认值 128" in x for x in map(line, mc.derivation(mc.analyze(c))))


def test_mistral_without_sliding_window_takes_4096():
    c = {k: v for k, v in cfg("mistral-7b-v0.3").items() if k != "sliding_window"}
    d = mc.derive(c)
    assert (d["sliding_window"], d["n_sliding_layers"], d["defaults_used"]["sliding_window"]) == (4096, 32, 4096)
    assert mc.derive(cfg("mistral-7b-v0.3"))["sliding_window"] is None  # the released config says null


ALL = sorted(p.stem for p in CONFIGS.glob("*.json"))


def _int_fields(c: dict, prefix: str = "") -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for k, v in c.items():
        if k == "text_config" and isinstance(v, dict):
            out += [("text_config", *f) for f in _int_fields(v)]
        elif k != "quantization_config" and (isinstance(v, (int, bool, list)) or v is None):
            out.append((k,))  # lists too: layer_types, no_rope_layers, … (a default pattern must be said)
    return out


def _without(c: dict, path: tuple[str, ...]) -> dict:
    if len(path) == 1:
        return {k: v for k, v in c.items() if k != path[0]}
    return {**c, path[0]: _without(c[path[0]], path[1:])}


@pytest.mark.parametrize("name", ALL)
def test_no_silent_default_over_every_dropped_field(name):
    """Drop each scalar or list field in turn: the answer is unchanged, or the field is named as a default taken, or
    the config is refused naming the field — never a different number without a word."""
    c = cfg(name)
    base = mc.derive(c)
    for path in _int_fields(c):
        try:
            d = mc.derive(_without(c, path))
        except mc.ConfigError as e:
            assert e.field == path[-1], (path, str(e))
            continue
        changed = {k for k in base if k not in ("defaults_used",) and d[k] != base[k]}
        if changed:
            assert path[-1] in d["defaults_used"], (path, changed)


# --- the report shows only what the calculator computed -------------------------------------------------

NUM = re.compile(r"(?<![A-Za-z_\d,.])\d[\d,]*(?:\.\d+)?(?![A-Za-z_\d])")


def _numbers(v) -> set[str]:
    out: set[str] = set()
    if isinstance(v, bool) or v is None:
        return out
    if isinstance(v, (int, float)):
        return {f"{v:,}" if isinstance(v, int) else f"{v:,.2f}", str(v)}
    if isinstance(v, str):
        return set(NUM.findall(v))
    if isinstance(v, (list, tuple)):
        for x in v:
            out |= _numbers(x)
    return out


@pytest.mark.parametrize("name", ALL)
def test_every_number_in_the_report_is_the_calculators(name):
    for step in mc.derivation(mc.analyze(cfg(name))):
        allowed = set()
        for v in step.values.values():
            allowed |= _numbers(v)
        text = line(step)
        for n in NUM.findall(text):
            assert n in allowed, (step.kind, n, text)


def test_report_totals_match_derive():
    for name in ALL:
        a = mc.analyze(cfg(name))
        d = mc.derived(a)
        text = "\n".join(line(s) for s in mc.derivation(a))
        assert f"{d['params_total']:,}" in text and f"{d['kv_bytes_per_token']:,}" in text
        assert f"{d['weight_bytes']:,}" in text


def test_gpt_oss_without_layer_types_alternates_as_transformers_does():
    """GptOssConfig fills a missing layer_types with even layers sliding, odd ones full (transformers
    src/transformers/models/gpt_oss/configuration_gpt_oss.py, __post_init__): the same KV, and said."""
    full = cfg("gpt-oss-20b")
    bare = {k: v for k, v in full.items() if k != "layer_types"}
    a, b = mc.derive(full), mc.derive(bare)
    assert b["n_sliding_layers"] == a["n_sliding_layers"] == 12
    assert b["kv_bytes_by_context"] == a["kv_bytes_by_context"]
    assert "layer_types" in b["defaults_used"] and "layer_types" not in a["defaults_used"]
