"""练习 3-5〔延伸〕· 图像分辨率与音频缓冲 (end of chapter 3; the cards it builds on are in 3.3)."""
from __future__ import annotations

from ...calculators import audio
from ...cards import Link, Note, Params, Question, View, card
from .s3_3 import KV_BYTES_PER_TOKEN, BOOK_SIDE, JitterParams, fixed, jitter_sim, trim, vision_outputs


class Ex35Params(Params):
    img_side_px: int = fixed(1280, "新的图片边长", "px")
    arrival_rate_s_per_s: float = fixed(0.9, "每秒到达的可播放音频", "s/s")
    initial_buffer_s: float = fixed(0.3, "开播时已缓存", "s")


@card("ex-3-5", title="图像分辨率与音频缓冲", label="练习 3-5〔延伸〕", section="3.end", kind="exercise",
      params=Ex35Params,
      lead="四个小问:图片边长翻倍后视觉数据变多少;40 ms 和 60 ms 初始缓冲谁先开播、会不会停;到达慢于实时时缓冲多久耗尽;有限缓冲能解决什么。")
def ex_3_5(p: Ex35Params) -> View:
    side = p.img_side_px
    big = vision_outputs(side, side)
    small = vision_outputs(BOOK_SIDE, BOOK_SIDE)
    jp = JitterParams()
    s40 = jitter_sim(JitterParams(initial_buffer_ms=40))
    s60 = jitter_sim(JitterParams(initial_buffer_ms=60))
    drain = audio.drain_time(p.initial_buffer_s, p.arrival_rate_s_per_s)
    o = {
        "vision_tokens": big["vision_tokens"], "ec_mib": big["ec_mib"], "visual_kv_mib": big["visual_kv_mib"],
        "vision_encode_tflop": big["vision_encode_tflop"],
        "play_start_40_ms": s40["o"]["play_start_ms"], "play_start_60_ms": s60["o"]["play_start_ms"],
        "stall_40_ms": s40["o"]["stall_total_ms"], "stall_60_ms": s60["o"]["stall_total_ms"],
        "drain_s": drain,
    }
    late = s40["late"]
    late_arr = s40["arr"][late] * 1e3
    chunk_ms = s40["chunk"] * 1e3
    planned40 = o["play_start_40_ms"] + late * chunk_ms
    planned60 = o["play_start_60_ms"] + late * chunk_ms
    ratio = big["vision_tokens"] / small["vision_tokens"]
    first = s40["o"]["first_arrival_ms"]
    v = View(outputs=o, headline=f"(a) {side}×{side} 的 Qwen3-VL-4B 输入 · (b) 40 / 60 ms 初始缓冲 · (c) r = {p.arrival_rate_s_per_s:g},B₀ = {p.initial_buffer_s:g} s")
    tok = f"$n_v = {side}^2/(16^2 \\cdot 2^2) = {big['vision_tokens']:,}$"
    v.questions = [
        Question(key="vision_tokens", prompt=f"(a) 输入从 640×640 改成 {side}×{side},视觉 token 有多少个?", unit="token",
                 hint="16×16 的块,2×2 个块合成一个 token。",
                 solution=[tok, f"是 640×640 时 {small['vision_tokens']:,} 个的 {ratio:g} 倍:边长翻倍,面积变 4 倍。"]),
        Question(key="ec_mib", prompt="(a) 完整编码结果 EC 有多大?", unit="MiB",
                 hint="每个视觉 token 是 4 × 2560 个 BF16 值。", units={"KiB": 1 / 1024},
                 solution=[tok, f"每 token {big['ec_bytes_per_token']:,.0f} B = {trim(big['ec_bytes_per_token'] / 1024)} KiB",
                           f"EC = {big['vision_tokens']:,} × 20 KiB = {trim(big['ec_mib'])} MiB(640×640 时 {trim(small['ec_mib'])} MiB)"]),
        Question(key="visual_kv_mib", prompt="(a) 这些视觉 token 的语言 KV 有多大?", unit="MiB",
                 hint="语言 KV 每 token 144 KiB。", units={"GiB": 1024},
                 solution=[f"{big['vision_tokens']:,} × {KV_BYTES_PER_TOKEN // 1024} KiB = {trim(big['visual_kv_mib'])} MiB"
                           f"(640×640 时 {trim(small['visual_kv_mib'])} MiB)"]),
        Question(key="vision_encode_tflop", prompt="(a 延伸) 视觉编码的矩阵运算约多少 TFLOPs?为什么不是 4 倍?", unit="TFLOPs",
                 hint="ViT 块里块与块之间做全注意力,注意力项随块数平方增长。", rel_tol=0.005,
                 solution=[f"{side}×{side}:约 {big['vision_encode_tflop']:.3f} TFLOPs;640×640:约 {small['vision_encode_tflop']:.3f} TFLOPs",
                           f"比值 {big['vision_encode_tflop'] / small['vision_encode_tflop']:.1f}×:线性层和合并器随块数 ×4,注意力随块数平方 ×16。",
                           "用的是公开的 Qwen3-VL-4B 视觉配置(见图 3-15 卡片),书中只给了 640×640 的 1.310。"]),
        Question(key="play_start_40_ms", prompt="(b) 初始缓冲 40 ms 时,何时开始播放?", unit="ms",
                 hint="首块在 20 + 12 + 1 + 5 ms 到达。",
                 solution=[f"首块 {first:.0f} ms 到达,再等 40 ms:{o['play_start_40_ms']:.0f} ms 开播。"]),
        Question(key="play_start_60_ms", prompt="(b) 初始缓冲 60 ms 时,何时开始播放?", unit="ms",
                 solution=[f"{first:.0f} + 60 = {o['play_start_60_ms']:.0f} ms,比 40 ms 缓冲晚 20 ms。"]),
        Question(key="stall_40_ms", prompt="(b) 40 ms 缓冲时停顿多久?(按图 3-18 卡片的示意迟到模式)", unit="ms",
                 hint=f"示意:块 {late} 的网络延迟是 {jp.late_net_ms:g} ms,而不是通常的 {jp.net_ms:g} ms。", rel_tol=0.001, close_tol=0.2,
                 solution=[f"块 {late} 在 {late_arr:.0f} ms 才到,原定 {planned40:.0f} ms 播放,前一块此时已播完:"
                           f"停 {o['stall_40_ms']:.0f} ms。这个答案依赖卡片自设的迟到模式(示意)。"]),
        Question(key="stall_60_ms", prompt="(b) 60 ms 缓冲时停顿多久?(同样的示意迟到模式)", unit="ms", rel_tol=0.001,
                 solution=[f"块 {late} 原定 {planned60:.0f} ms 播放,它 {late_arr:.0f} ms 已到:停顿 {o['stall_60_ms']:.0f} ms。"
                           "多等 20 ms 换来了不停顿(示意)。"]),
        Question(key="drain_s", prompt=f"(c) 每秒只收到 {p.arrival_rate_s_per_s:g} 秒可播放音频、开播时已缓存 {p.initial_buffer_s:g} 秒,多久耗尽?",
                 unit="s", units={"ms": 0.001},
                 solution=[f"$B(t) = {p.initial_buffer_s:g} - (1 - {p.arrival_rate_s_per_s:g})\\,t$",
                           f"$t = {p.initial_buffer_s:g}/{1 - p.arrival_rate_s_per_s:.3g} = {drain:.3g}$ s"]),
        Question(key="finite_buffer", prompt="(d) 有限的缓冲能解决什么问题,不能解决什么?", kind="open",
                 answer_text="能吸收到达时间的抖动(个别块晚到),代价是开播更晚;不能弥补持续低于实时的平均到达速度,"
                             "那时缓冲只会线性减少,再大也只是把中断往后推。"),
    ]
    v.links = [Link("(a) 图 3-15 · 1280×1280", "/cards/fig-3-15?img_h_px=1280&img_w_px=1280"),
               Link("(b) 图 3-18 · 初始缓冲 40 ms", "/cards/fig-3-18?initial_buffer_ms=40"),
               Link("(b) 图 3-18 · 初始缓冲 60 ms", "/cards/fig-3-18?initial_buffer_ms=60"),
               Link("(c) 缓冲耗尽", "/cards/buffer-drain?arrival_rate_s_per_s=0.9&initial_buffer_s=0.3")]
    v.notes = [
        Note(f"(b) 的停顿依赖图 3-18 卡片自设的迟到模式(块 {late} 网络延迟 {jp.late_net_ms:g} ms),不是书中给的数。", "illustrative"),
    ]
    return v
