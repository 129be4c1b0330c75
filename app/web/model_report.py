"""The words that explain a ``config.json`` count (``POST /api/models/derive``'s ``steps``). Every number
comes from ``model_config.derivation``: each step there carries the values it shows, computed once in
the calculator; this module only says them in Chinese (no arithmetic here, so what is shown is what was
computed — tests/web/test_model_report.py checks every number of every line against its step)."""

from __future__ import annotations

from collections.abc import Callable

from ..calculators.model_config import Analysis, Step, derivation

V = dict  # a step's values


def _n(x: object) -> str:
    if isinstance(x, bool) or x is None:
        return str(x)
    if isinstance(x, float):
        return f"{x:,.2f}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def _mats(mats: list) -> str:
    return " + ".join(f"{name.split('.')[-1]} {_n(r)}×{_n(c)}" for name, r, c, _ in mats)


def _others(other: list) -> str:
    return "、".join(f"{label} {_n(n)}" for label, n in other)


def _model(v: V) -> str:
    return f"model_type={v['model_type']}:{v['L']} 层，hidden {_n(v['h'])}，{v['nh']} 个 query 头，词表 {_n(v['V'])}"


def _wrapper(v: V) -> str:
    return f"多模态 config(model_type={v['wrapper']}):只算 text_config 里的语言模型({v['text_model']})，视觉塔不计"


def _filled(v: V) -> str:
    val = v["value"]
    shown = "null" if val is None else str(val).lower() if isinstance(val, bool) else _n(val)
    return f"config.json 未写 {v['field']}，取 transformers 默认值 {shown}({v['source']})"


def _rule(v: V) -> str:
    return f"结构规则:{v['rule']}"


def _mixer(title: str) -> Callable[[V], str]:
    def line(v: V) -> str:
        extra = f";另有 {_others(v['other'])}(合计 {_n(v['other_params'])})" if v["other"] else ""
        return f"{title}每层的矩阵:{_mats(v['matrices'])} = {_n(v['params'])}{extra}"

    return line


def _kv_gqa(v: V) -> str:
    return (
        f"KV 缓存每层每 token:{v['kv_pair']}(K 和 V)× {v['nkv']} 个 KV 头 × {v['hd']} = {_n(v['kv_values'])} 个值 × "
        f"{v['value_bytes']} B = "
        f"{_n(v['kv_bytes'])} B"
    )


def _kv_mla(v: V) -> str:
    idx = f" + indexer 键 {v['index_dim']}" if "index_dim" in v else ""
    return (
        f"MLA KV 缓存每层每 token 只存压缩向量 kv_lora_rank {v['kv_rank']} + qk_rope_head_dim {v['rope']}{idx} = "
        f"{_n(v['kv_values'])} 个值 × {v['value_bytes']} B = {_n(v['kv_bytes'])} B"
    )


def _state(v: V) -> str:
    if v.get("mamba"):
        return (
            f"Mamba-2 不存逐 token 的 KV，只存每条序列固定大小的状态:卷积状态 {_n(v['conv_dim'])} × "
            f"{v['kernel_minus_1']} = {_n(v['conv_values'])} 个值 × {v['conv_value_bytes']} B = {_n(v['conv_bytes'])} B;"
            f"SSM 状态 {v['nv']} 个头 × {v['dk']} × {v['dv']} = {_n(v['rec_values'])} 个值 × {v['ssm_bytes']} B = "
            f"{_n(v['rec_bytes'])} B;每层 {_n(v['state_bytes'])} B。{v['rule']}"
        )
    return (
        f"Gated DeltaNet 层不存逐 token 的 KV，只存每条序列固定大小的状态:卷积状态 {_n(v['conv_dim'])} × "
        f"{v['kernel_minus_1']}(卷积核长 {v['kernel']}，要留前 {v['kernel_minus_1']} 步的输入) = {_n(v['conv_values'])} 个值 × {v['conv_value_bytes']} B = {_n(v['conv_bytes'])} B;"
        f"递推状态 {v['nv']} 个 value 头 × {v['dk']} × {v['dv']} = {_n(v['rec_values'])} 个值 × {v['ssm_bytes']} B = "
        f"{_n(v['rec_bytes'])} B;每层 {_n(v['state_bytes'])} B。{v['rule']}"
    )


def _ffn_dense(v: V) -> str:
    bias = f";偏置 {_n(v['bias'])}" if v["bias"] else ""
    if v["n_mats"] == 2:
        return f"MLP(up/down 两个矩阵，ReLU² 不带门控):{v['n_mats']} × {_n(v['h'])} × {_n(v['ff'])} = {_n(v['params'])}{bias}"
    return f"稠密 FFN(gate/up/down 三个矩阵):{v['n_mats']} × {_n(v['h'])} × {_n(v['ff'])} = {_n(v['params'])}{bias}"


def _ffn_moe(v: V) -> str:
    shared = f" + 共享专家 {_n(v['shared_params'])}" if v["shared_params"] else ""
    other = f" + {_others(v['other'])}" if v["other"] else ""
    return (
        f"MoE 层:{v['E']} 个路由专家，每个 {_n(v['expert_params'])}(专家 intermediate {_n(v['ffe'])})，"
        f"合计 {_n(v['experts_params'])}{shared} + 路由器 {_n(v['router_params'])}{other} = {_n(v['total_params'])};"
        f"每 token 只走 {v['k']} 个路由专家"
        + ("和共享专家" if v["shared_params"] else "")
        + f"，激活 {_n(v['active_params'])}"
    )


def _moe_layers(v: V) -> str:
    return f"{v['L']} 层里 {v['moe']} 层是 MoE、{v['dense']} 层是稠密 FFN"


def _hybrid(v: V) -> str:
    if v.get("mamba"):
        return f"{v['L']} 个块里 {v['linear']} 个是 Mamba-2，{v['attn']} 个是注意力，{v['mlp']} 个是 MLP"
    return f"{v['L']} 层里 {v['linear']} 层是 Gated DeltaNet(线性注意力)，{v['attn']} 层是全注意力"


def _norms(v: V) -> str:
    return f"每层 {v['n']} 个 RMSNorm:{v['n']} × {_n(v['h'])} = {_n(v['params'])}"


_MIXER_NAMES = {
    "gqa": "注意力层",
    "mla": "MLA 注意力层",
    "gdn": "Gated DeltaNet 层",
    "mamba": "Mamba-2 块",
    "none": "MLP 块",
}


def _group(v: V) -> str:
    if v["mixer"] == "none" or not v.get("ffn", True):
        kind = _MIXER_NAMES[v["mixer"]]  # a Mamba-2 hybrid's block holds one part
    else:
        kind = _MIXER_NAMES[v["mixer"]] + (" + MoE" if v["moe"] else " + 稠密 FFN")
    if v["window"]:
        kind += f"(最多保留 {_n(v['window'])} 个 token)"
    act = f"(激活 {_n(v['active'])})" if v["active"] != v["params"] else ""
    return f"{kind} × {v['count']}:每层 {_n(v['params'])}{act}，合计 {_n(v['total'])}"


def _embedding(v: V) -> str:
    head = "与嵌入共享(tie_word_embeddings)，不另计" if v["tied"] else f"不共享，再 {_n(v['head'])}"
    return f"嵌入表 {_n(v['V'])} × {_n(v['h'])} = {_n(v['emb'])};LM 头{head}"


def _total(v: V) -> str:
    act = f";激活参数(每 token 经过的)= {_n(v['active'])}" if v["active"] != v["total"] else ""
    if v.get("moe"):
        act += (
            f";不计输入嵌入表的激活参数 = {_n(v['active_excl_emb'])}(每 token 只读嵌入表一行)。发布方两种口径都有:"
            "gpt-oss 模型卡的激活参数不含输入嵌入,Qwen 名字里的“A×B”也与不含嵌入的口径相符,"
            "而 Qwen 模型卡表格里的激活参数含嵌入"
        )
    return (
        f"总参数 = 各层 {_n(v['layers'])} + 嵌入/LM 头 {_n(v['emb_head'])} + 末层范数 {_n(v['final_norm'])} = "
        f"{_n(v['total'])}{act}"
    )


def _mtp(v: V) -> str:
    return f"不含 {v['n']} 个 MTP(num_nextn_predict_layers)模块:它只用于训练/投机解码，不在主模型前向里"


def _kv_total(v: V) -> str:
    per = f" {v['layers']} × {_n(v['per_layer'])} B =" if v["per_layer"] is not None else ""
    return (
        f"KV 缓存每 token({v['value_bits']} 位，{v['layers']} 个注意力层都按保留全部 token 的最坏情况)={per} {_n(v['bytes'])} B"
        f"({_n(v['kib'])} KiB)"
    )


_RULE_WORDS = {
    "alternate": "下标为偶数的层滑动窗口、奇数的层全注意力，交替",
    "all": "全部层",
    "layer_types": "按 layer_types",
}


def _window(v: V) -> str:
    rule = str(v["rule"])
    where = _RULE_WORDS.get(rule) or (
        f"每 {rule.split(':')[1]} 层里最后一层全注意力、其余滑动窗口"
        if rule.startswith("every:")
        else f"从第 {rule.split(':')[1]} 层起滑动窗口"
        if rule.startswith("from:")
        else f"每 {rule.split(':')[1]} 层里前 {rule.split(':')[2]} 层带 RoPE、做分块注意力,最后一层不用 RoPE(NoPE)、看全部 token"
        if rule.startswith("nope:")
        else rule
    )
    what = "分块注意力(attention_chunk_size)" if v["chunked"] else "滑动窗口"
    return (
        f"{what} {_n(v['window'])}:{where}，共 {v['n_window_layers']} 层，这些层最多保留 {_n(v['window'])} 个 token;"
        f"全注意力层 {v['n_full_layers']} 层每 token {_n(v['full_bytes'])} B;上下文 n 个 token 时 KV = "
        f"{_n(v['full_bytes'])}·n + {_n(v['window_bytes'])}·min(n, {_n(v['window'])}) B"
    )


def _state_total(v: V) -> str:
    return (
        f"每条序列的固定状态 = {v['layers']} 层 × {_n(v['per_layer'])} B = {_n(v['bytes'])} B({_n(v['mib'])} MiB)，"
        "与上下文长度无关"
    )


def _storage(v: V) -> str:
    parts = ";".join(f"{label} {_n(p)} 个参数 → {_n(b)} B({rule})" for label, p, b, rule in v["parts"])
    head = (
        f"按 checkpoint 存储(格式取自 {v.get('source') or 'quantization_config'})"
        if v["method"]
        else "checkpoint 未量化"
    )
    return (
        f"{head}:{parts};合计 {_n(v['total'])} B = {_n(v['gb'])} GB，平均 {_n(v['bits'])} 位/参数"
        f"(全按 BF16 为 {_n(v['bf16'])} B = {_n(v['bf16_gb'])} GB)"
    )


def _read(v: V) -> str:
    emb = f" + 整张表 {_n(v['emb_read'])}(共享的 LM 头要读)" if v["tied"] else f" + 一行 {_n(v['emb_read'])}"
    return f"解码每步读权重(BF16)= {v['bytes_per_param']} B × (激活参数 {_n(v['active'])} − 嵌入表 {_n(v['emb'])}{emb})= {_n(v['bytes'])} B"


def _flops(v: V) -> str:
    return f"每 token FLOPs(不含注意力)= {v['per_mac']} × (激活矩阵 {_n(v['linear'])} + LM 头 {_n(v['head'])}) = {_n(v['flops'])}"


LINES: dict[str, Callable[[V], str]] = {
    "model": _model,
    "wrapper": _wrapper,
    "filled": _filled,
    "rule": _rule,
    "mixer-gqa": _mixer("注意力层"),
    "mixer-mla": _mixer("MLA 注意力层"),
    "mixer-gdn": _mixer("Gated DeltaNet 层"),
    "mixer-mamba": _mixer("Mamba-2 块"),
    "kv-gqa": _kv_gqa,
    "kv-mla": _kv_mla,
    "state": _state,
    "ffn-dense": _ffn_dense,
    "ffn-moe": _ffn_moe,
    "moe-layers": _moe_layers,
    "hybrid": _hybrid,
    "norms": _norms,
    "group": _group,
    "embedding": _embedding,
    "total": _total,
    "mtp": _mtp,
    "kv-total": _kv_total,
    "window": _window,
    "state-total": _state_total,
    "storage": _storage,
    "read": _read,
    "flops": _flops,
}


def line(step: Step) -> str:
    """One step in words."""
    return LINES[step.kind](step.values)


def steps(a: Analysis) -> list[str]:
    """The derivation of a config's counts, step by step, numbers filled in."""
    return [line(s) for s in derivation(a)]
