"""The words that explain a ``config.json`` count (``POST /api/models/derive``'s ``steps``): every
number comes from ``model_config.analyze``; this module only says them in Chinese."""

from __future__ import annotations

from ..calculators.model_config import Analysis, Attention, FeedForward, SlidingRule, decode_weight_read_bytes


def _n(x: int) -> str:
    return f"{x:,}"


def _bytes_label(b: int) -> str:
    if b % 1024 == 0 and b >= 1024:
        return f"{_n(b)} B({_n(b // 1024)} KiB)"
    return f"{_n(b)} B({b / 1024:,.2f} KiB)" if b >= 1024 else f"{_n(b)} B"


def _attention(a: Attention) -> list[str]:
    d = a.dims
    if a.mla:
        h, nh, qr, qk = d["h"], d["nh"], d["q_rank"], d["nope"] + d["rope"]
        q_txt = f"q 低秩 {_n(h)}×{_n(qr)} + {_n(qr)}×({nh}×{qk})" if qr else f"q {_n(h)}×({nh}×{qk})"
        kvr, rope = d["kv_rank"], d["rope"]
        return [
            f"MLA 注意力每层:{q_txt} + kv_a {_n(h)}×({kvr}+{rope}) + kv_b {kvr}×({nh}×({d['nope']}+{d['v']}))"
            f" + o ({nh}×{d['v']})×{_n(h)} = {_n(a.params)};latent 范数等 {_n(a.other)}",
            f"MLA KV 缓存每层每 token 只存压缩向量 kv_lora_rank + qk_rope_head_dim = {kvr}+{rope} = "
            f"{kvr + rope} 个值 × 2 B = {_n(a.kv_bytes)} B",
        ]
    h, nh, nkv, hd = d["h"], d["nh"], d["nkv"], d["hd"]
    bias_txt = {"qkv": "q/k/v 偏置", "qkvo": "q/k/v/o 偏置"}.get(a.bias_kind, "")
    extra = "、".join(
        x for x in (f"{bias_txt} {_n(a.bias)}" if a.bias else "", f"q/k 逐头 RMSNorm 2×{hd}" if a.qk_norm else "") if x
    )
    return [
        f"注意力每层:q {_n(h)}×({nh}×{hd}) + k,v 2×{_n(h)}×({nkv}×{hd}) + o ({nh}×{hd})×{_n(h)}"
        f" = {_n(a.params)}" + (f";另有 {extra}" if extra else ""),
        f"KV 缓存每层每 token:2(K,V)× {nkv} 个 KV 头 × {hd} × 2 B = {_n(a.kv_bytes)} B",
    ]


def _ffn(f: FeedForward, h: int) -> list[str]:
    out = []
    if f.ff:
        out.append(
            f"稠密 FFN(gate/up/down 三个矩阵):3×{_n(h)}×{_n(f.ff)} = {_n(f.dense)}"
            + (f";偏置 {_n(f.dense_bias)}" if f.dense_bias else "")
        )
    if f.n_experts:
        E, k = f.n_experts, f.top_k
        out.append(
            f"MoE 层:{E} 个路由专家 × 3×{_n(h)}×{_n(f.expert_ff)} = {_n(E * f.expert)}"
            + (f" + 共享专家 {_n(f.shared)}" if f.shared else "")
            + f" + 路由器 {_n(h)}×{E} = {_n(f.router)}"
            + (f" + 路由偏置 e_score_correction_bias {E}" if f.router_bias else "")
            + f";每 token 只走 {k} 个路由专家"
            + ("和共享专家" if f.shared else "")
            + f",激活 {_n(f.moe_active)}"
        )
    return out


def _pattern(r: SlidingRule) -> str:
    return {
        "explicit": "按 layer_types",
        "alternate": "偶数层(0,2,4…)滑动窗口、奇数层全注意力交替",
        "every": f"每 {r.n} 层里前 {r.n - 1} 层滑动窗口、第 {r.n} 层全注意力",
        "from": f"第 {r.n} 层起滑动窗口(use_sliding_window=true)",
        "all": "全部层滑动窗口",
    }.get(r.kind, "")


def _totals(a: Analysis) -> list[str]:
    s = a.shape
    L, h, V, emb = s.n_layers, s.hidden, s.vocab, s.embedding_params
    out = [
        f"嵌入表 {_n(V)}×{_n(h)} = {_n(emb)};LM 头"
        + ("与嵌入共享(tie_word_embeddings),不另计" if s.tied else f"不共享,再 {_n(emb)}")
        + f";末层 RMSNorm {_n(h)}",
        f"总参数 = 各层 {_n(a.layer_params)} + 嵌入/LM 头 {_n(emb + s.lm_head_params)} + 末层范数 {_n(h)} = {_n(s.params_total)}",
    ]
    if s.params_active != s.params_total:
        out.append(f"激活参数(每 token 经过的)= {_n(s.params_active)}")
    if a.mtp_layers:
        out.append("不含 MTP(num_nextn_predict_layers)模块:它只用于训练/投机解码,不在主模型前向里")
    out.append(
        f"KV 缓存每 token(BF16,{L} 层都按全注意力算的最坏情况)= {L} × {_n(a.attention.kv_bytes)} B = "
        f"{_bytes_label(s.kv_bytes_per_token_bf16)}"
    )
    if s.n_sliding_layers and s.sliding_window is not None:
        w, full, win = s.sliding_window, s.kv_full_bytes_per_token, s.kv_window_bytes_per_token
        out.append(
            f"滑动窗口 {_n(w)}:{_pattern(a.sliding_rule)},共 {s.n_sliding_layers} 层;这些层最多保留 {_n(w)} 个 token。"
            f"全注意力层 {L - s.n_sliding_layers} 层每 token {_bytes_label(full)};上下文 n 个 token 时"
            f" KV = {_n(full)}·n + {_n(win)}·min(n, {_n(w)}) B"
        )
    return out


def steps(a: Analysis) -> list[str]:
    """The derivation of a config's counts, step by step, numbers filled in."""
    s = a.shape
    out = []
    if a.wrapper:
        out.append(f"多模态 config(model_type={a.wrapper}):只算 text_config 里的语言模型,视觉塔不计")
    out += [f"text_config 未写 {k},取 transformers Gemma3TextConfig 默认值 {v}" for k, v in a.filled]
    out.insert(
        0, f"model_type={s.model_type}:{s.n_layers} 层,hidden {_n(s.hidden)},{s.n_heads} 个 query 头,词表 {_n(s.vocab)}"
    )
    out += _attention(a.attention) + _ffn(a.ffn, s.hidden)
    if s.n_moe_layers and s.n_moe_layers < s.n_layers:
        out.append(f"{s.n_layers} 层里 {s.n_moe_layers} 层是 MoE、{s.n_layers - s.n_moe_layers} 层是稠密 FFN")
    out.append(f"每层 {a.n_norms} 个 RMSNorm:{a.n_norms}×{_n(s.hidden)} = {_n(a.n_norms * s.hidden)}")
    for is_moe, tot, act, cnt in a.groups:
        out.append(
            f"{'MoE 层' if is_moe else '稠密层'} × {cnt}:每层 {_n(tot)}"
            + (f"(激活 {_n(act)})" if act != tot else "")
            + f",合计 {_n(tot * cnt)}"
        )
    out += _totals(a)
    read = int(decode_weight_read_bytes(s, 2))
    flops = 2 * (s.active_linear_params + s.lm_head_matrix_params)
    out.append(
        f"解码每步读权重(BF16)= 2 B × (激活参数 {_n(s.params_active)} − 嵌入表 {_n(s.embedding_params)}"
        + (f" + 整张表 {_n(s.embedding_params)}(共享的 LM 头要读)" if s.tied else f" + 一行 {_n(s.hidden)}")
        + f")= {_n(read)} B"
    )
    out.append(
        f"每 token FLOPs(不含注意力)= 2 × (激活矩阵 {_n(s.active_linear_params)} + LM 头 "
        f"{_n(s.lm_head_matrix_params)}) = {_n(flops)}"
    )
    return out
