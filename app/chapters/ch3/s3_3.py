"""Section 3.3 多模态与实时交互: image → vision tokens → EC / KV, handoff points, speech and image
generation loops, jitter buffer and interruption, buffer drain, AOI, the multimodal pipeline."""
from __future__ import annotations

import math
import random
from functools import lru_cache
from typing import Literal

from pydantic import field_validator

from ...calculators import audio, multimodal as mm
from ...calculators.model_config import dense_shape
from ...cards import Block, Figure, Note, Params, Stat, Table, View, card, choice, fixed, slider
from ...charts import animate, axis, bar, figure, layout, line, points, vline, with_refs
from ...data import model_config

MIB = 2 ** 20
KIB = 2 ** 10

# Model facts, all read from data/models/*.json (never typed in as results).
VISION = mm.vision_shape(model_config("qwen3-vl-4b-vision"))
VISION_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4}[model_config("qwen3-vl-4b-vision")["torch_dtype"]]
LM = dense_shape(model_config("qwen3-vl-4b-text"))
KV_BYTES_PER_TOKEN = LM.kv_bytes_per_token_bf16                 # 147,456 B = 144 KiB
DIT = mm.dit_shape(model_config("qwen-image-2512-dit"))
SIDE_STEP = VISION.patch * VISION.merge                          # 32 px: sides snap to multiples
DIT_SIDE_STEP = DIT.pixels_per_position                          # 16 px

SCREENSHOT_MB = 0.8          # the book's compressed 640×640 screenshot (a given input, decimal MB)
BOOK_SIDE = 640

# Two measured voice sessions the seed quotes (3.3.3): user stops talking → first audio chunk; median gap.
MEASURED_FIRST_CHUNK_MS = (400, 370)
MEASURED_CHUNK_GAP_MEDIAN_MS = 94


def trim(x: float, digits: int = 4) -> str:
    """Print like the book: 7.8125, 31.25, 56.25, 225 (no trailing zeros)."""
    s = f"{x:,.{digits}f}".rstrip("0").rstrip(".")
    return s or "0"


def snap(v: int, step: int, lo: int) -> int:
    return max(lo, int(round(v / step)) * step)


# =============================================================================================
# 图 3-15 / 3-16 · 像素 → 块 → 视觉 token → 三种数据
# =============================================================================================


class VisionParams(Params):
    img_h_px: int = slider(BOOK_SIDE, ge=32, le=2048, step=SIDE_STEP, label="图片高 H", unit="px")
    img_w_px: int = slider(BOOK_SIDE, ge=32, le=2048, step=SIDE_STEP, label="图片宽 W", unit="px")
    n_images: int = slider(1, ge=1, le=8, step=1, label="图片张数", unit="张")
    text_tokens: int = slider(0, ge=0, le=4096, step=1, label="同一输入中的文本 token", unit="token")
    patch_px: int = fixed(VISION.patch, "patch 边长 p", "px")
    merge: int = fixed(VISION.merge, "合并因子 r(r×r 块 → 1 token)")
    feature_levels: int = fixed(VISION.feature_levels, "DeepStack 拼接层数")
    feature_dim: int = fixed(VISION.out_hidden, "每层宽度")
    feature_bytes: int = fixed(VISION_DTYPE_BYTES, "每个值字节(BF16)", "B")
    kv_kib_per_token: int = fixed(KV_BYTES_PER_TOKEN // KIB, "语言 KV / token", "KiB")

    @field_validator("img_h_px", "img_w_px")
    @classmethod
    def _snap(cls, v: int) -> int:
        return snap(v, SIDE_STEP, SIDE_STEP)


def vision_outputs(h: int, w: int, n_images: int = 1, text_tokens: int = 0) -> dict:
    """fig-3-15's outputs for one setting (reused by vision-reuse-table, epd-handoff, 练习 3-5)."""
    n_v = mm.vision_tokens(h, w, VISION.patch, VISION.merge, n_images)
    ec_tok = mm.ec_bytes_per_token(VISION.feature_levels, VISION.out_hidden, VISION_DTYPE_BYTES)
    ec = mm.ec_bytes(n_v, VISION.feature_levels, VISION.out_hidden, VISION_DTYPE_BYTES)
    kv = mm.kv_bytes(n_v, KV_BYTES_PER_TOKEN)
    kv_in = mm.kv_bytes(n_v + text_tokens, KV_BYTES_PER_TOKEN)
    fl = mm.vision_tower_flops(VISION, h, w)
    return {
        "patches_per_image": mm.patches(h, w, VISION.patch), "vision_tokens": n_v,
        "ec_bytes_per_token": ec_tok, "ec_mib": ec / MIB, "visual_kv_mib": kv / MIB,
        "input_tokens": n_v + text_tokens, "input_kv_mib": kv_in / MIB,
        "kv_to_ec_ratio": KV_BYTES_PER_TOKEN / ec_tok,
        "vision_encode_tflop": n_images * fl.total / 1e12,
        "_flops": fl,
    }


def _grid_lines(h: int, w: int, box: int = 300) -> dict:
    """SVG geometry of the image with its patch grid and r×r merge groups."""
    s = box / max(h, w)
    iw, ih = w * s, h * s
    px, mx = VISION.patch * s, VISION.patch * VISION.merge * s
    cols, rows = w // VISION.patch, h // VISION.patch
    dense = max(cols, rows) > 64
    patch_v = [] if dense else [round(i * px, 2) for i in range(1, cols) if i % VISION.merge]
    patch_h = [] if dense else [round(j * px, 2) for j in range(1, rows) if j % VISION.merge]
    merge_v = [round(i * mx, 2) for i in range(1, w // (VISION.patch * VISION.merge))]
    merge_h = [round(j * mx, 2) for j in range(1, h // (VISION.patch * VISION.merge))]
    return {"iw": round(iw, 2), "ih": round(ih, 2), "patch_v": patch_v, "patch_h": patch_h,
            "merge_v": merge_v, "merge_h": merge_h, "dense": dense, "cols": cols, "rows": rows,
            "tcols": cols // VISION.merge, "trows": rows // VISION.merge,
            "one_token": round(mx, 2)}


@card("fig-3-15", title="像素 → 块 → 视觉 token → 三种数据", label="图 3-15 / 3-16", section="3.3",
      kind="calculator", params=VisionParams, aliases=("fig-3-16",), badges=(("练习 3-5", "ex-3-5"),),
      lead="Qwen3-VL-4B 把图片切成 16×16 的块,再把 2×2 个块并成一个视觉 token。改图片尺寸、张数和文本长度,看编码结果 EC、视觉 KV 和视觉编码运算量怎么变。")
def fig_3_15(p: VisionParams) -> View:
    o = vision_outputs(p.img_h_px, p.img_w_px, p.n_images, p.text_tokens)
    fl = o.pop("_flops")
    is_book = p.img_h_px == BOOK_SIDE and p.img_w_px == BOOK_SIDE and p.n_images == 1
    v = View(outputs=o, headline=f"{p.n_images} 张 {p.img_w_px}×{p.img_h_px} 图片"
             + (f" + {p.text_tokens:,} 个文本 token" if p.text_tokens else ""))
    v.stat("patches_per_image", "每张图的块数 H·W/p²", "块")
    v.stat("vision_tokens", "视觉 token 数 n_v", "token", emphasis=True)
    v.stats.append(Stat("ec_bytes_per_token", "每个视觉 token 的 EC", o["ec_bytes_per_token"],
                        text=f"{o['ec_bytes_per_token']:,.0f} B = {trim(o['ec_bytes_per_token'] / KIB)} KiB"))
    v.stats.append(Stat("ec_mib", "完整编码结果 EC", o["ec_mib"], text=f"{trim(o['ec_mib'])} MiB", emphasis=True))
    v.stats.append(Stat("visual_kv_mib", "视觉 token 的语言 KV", o["visual_kv_mib"],
                        text=f"{trim(o['visual_kv_mib'])} MiB", emphasis=True))
    v.stat("input_tokens", "输入 token(视觉 + 文本)", "token")
    v.stats.append(Stat("input_kv_mib", "输入 KV(视觉 + 文本)", o["input_kv_mib"], text=f"{trim(o['input_kv_mib'])} MiB"))
    v.stat("kv_to_ec_ratio", "每 token KV ÷ EC", "×", sig=2)
    v.stat("vision_encode_tflop", "视觉编码矩阵运算", "TFLOPs", digits=3, approx=True)

    names, vals, roles, texts = [], [], [], []
    if is_book and p.text_tokens == 0:
        names.append("压缩截图(给定输入)")
        vals.append(SCREENSHOT_MB * 1e6 / MIB)
        roles.append("idle")
        texts.append(f"{SCREENSHOT_MB:g} MB ≈ {SCREENSHOT_MB * 1e6 / MIB:.3f} MiB")
    names += ["完整编码结果 EC", "视觉 token 的语言 KV"]
    vals += [o["ec_mib"], o["visual_kv_mib"]]
    roles += ["prefill", "state"]
    texts += [f"{trim(o['ec_mib'])} MiB", f"{trim(o['visual_kv_mib'])} MiB"]
    if p.text_tokens:
        names.append("输入 KV(视觉 + 文本)")
        vals.append(o["input_kv_mib"])
        roles.append("state")
        texts.append(f"{trim(o['input_kv_mib'])} MiB")
    fig = figure([bar(names, vals, "大小", roles, horizontal=True, text=texts, cliponaxis=False)],
                 layout(axis("MiB"), axis("", autorange="reversed"), height=60 + 52 * len(names),
                        legend=False, margin=(170, 70, 10, 44)))
    v.figures.append(Figure(fig, "三种数据的大小(MiB)",
                            f"{o['vision_tokens']:,} 个视觉 token:EC {trim(o['ec_mib'])} MiB,视觉 KV {trim(o['visual_kv_mib'])} MiB"
                            + (f",加上文本后的输入 KV {trim(o['input_kv_mib'])} MiB" if p.text_tokens else "") + "。"))
    v.blocks.append(Block("diagrams/fig-3-15.html", {
        "g": _grid_lines(p.img_h_px, p.img_w_px), "h": p.img_h_px, "w": p.img_w_px, "n_images": p.n_images,
        "n_v": o["vision_tokens"], "n_p": o["patches_per_image"], "patch": VISION.patch, "merge": VISION.merge}))
    v.notes = [
        Note("$n_v = H_{img}W_{img}/(p_{patch}^2 r^2)$;EC = $n_v$ × 4 × 2560 × 2 B;视觉 KV = $n_v$ × 144 KiB。", "formula"),
        Note("特征拼接只加宽每个 token(4 层 × 2560),图片变大才增加 token 数。边长翻倍,视觉 token、EC、视觉 KV 都变成 4 倍;"
             f"视觉编码因为块之间做全注意力,增长更快(1280×1280 约 {mm.vision_tower_flops(VISION, 1280, 1280).total / 1e12:.3f} TFLOPs,"
             f"是 640×640 的 {mm.vision_tower_flops(VISION, 1280, 1280).total / mm.vision_tower_flops(VISION, 640, 640).total:.1f} 倍)。"),
        Note(f"视觉编码运算量来自公开的 Qwen3-VL-4B 视觉配置(data/models/qwen3-vl-4b-vision.json):"
             f"{VISION.depth} 个 ViT 块、宽 {VISION.hidden}、MLP {VISION.mlp},同一张图内全注意力,另有 {VISION.mergers} 个合并器。"
             f"本图:块嵌入 {fl.embed / 1e9:,.3f} G + ViT 块 {fl.blocks / 1e9:,.3f} G + 合并器 {fl.mergers / 1e9:,.3f} G(每张图)。"
             "只计矩阵乘,不含偏置、归一化和激活;多张图之间不互相注意,按张数相加。"),
        Note("边长按 32 px(16 × 2)的倍数取整,与预处理器的做法一致。0.8 MB 的压缩截图只对书中那张 640×640 图成立,换尺寸后不知道文件多大,所以不画。"),
    ]
    return v


# =============================================================================================
# 表:对象 / 本例大小(640×640) / 能否复用取决于
# =============================================================================================


class ReuseParams(Params):
    question_position: Literal["after", "before"] = choice(
        "after", {"after": "问题放在图片之后", "before": "问题放在图片之前"}, label="新问题的位置")
    img_h_px: int = fixed(BOOK_SIDE, "图片高", "px")
    img_w_px: int = fixed(BOOK_SIDE, "图片宽", "px")
    screenshot_mb: float = slider(SCREENSHOT_MB, ge=SCREENSHOT_MB, le=SCREENSHOT_MB, step=0.1,
                                  label="压缩截图(固定)", unit="MB")


@card("vision-reuse-table", title="对象 / 本例大小(640×640) / 能否复用取决于", section="3.3", kind="table",
      params=ReuseParams,
      lead="同一张 640×640 截图有三种形态:压缩文件、完整编码结果 EC、视觉 token 的语言 KV。越往后越大,能复用的条件也越多。")
def vision_reuse_table(p: ReuseParams) -> View:
    vo = vision_outputs(p.img_h_px, p.img_w_px)
    after = p.question_position == "after"
    o = {"screenshot_mb": p.screenshot_mb, "ec_mib": vo["ec_mib"], "visual_kv_mib": vo["visual_kv_mib"],
         "visual_kv_reusable_on_new_question": after}
    v = View(outputs=o, headline="640×640 · 400 个视觉 token · " + ("问题在图片之后" if after else "问题在图片之前"))
    v.tables.append(Table(
        columns=["对象", "本例大小(640×640)", "能否复用取决于", "换一个新问题后"],
        rows=[
            ["压缩截图", f"{p.screenshot_mb:g} MB(给定输入,≈ {p.screenshot_mb * 1e6 / MIB:.3f} MiB)", "同一文件内容", "可用"],
            ["完整编码结果 EC", f"{trim(vo['ec_mib'])} MiB", "图片、预处理、编码器与输出格式一致", "可用"],
            ["视觉 token 的语言 KV", f"{trim(vo['visual_kv_mib'])} MiB", "还依赖先前上下文、顺序、位置与模型",
             "可用(因果注意力:后面的问题不影响前面的 KV)" if after else "失效(问题在前,改问题就改了图片 token 看到的上文)"],
        ], links={0: "fig-3-15", 1: "fig-3-15", 2: "fig-3-15"}))
    v.stats.append(Stat("visual_kv_reusable_on_new_question", "换问题后视觉 KV 仍有效?", after,
                        text="是" if after else "否", emphasis=True))
    v.blocks.append(Block("diagrams/vision-reuse-table.html", {"after": after}))
    v.notes = [
        Note("MB 是十进制(10⁶ B),MiB 是二进制(2²⁰ B):0.8 MB ≈ 0.763 MiB。表里每格都写单位,不混算。"),
        Note("EC 只由图片和视觉编码器决定;语言 KV 是语言模型读到这些 token 时算出的,所以还和它前面有什么、排在第几位有关。"),
    ]
    return v


# =============================================================================================
# 原图 / EC / KV 三种交接位置
# =============================================================================================

HANDOFF_STAGES = {"image": "E,P,D", "ec": "P,D", "kv": "D"}


class HandoffParams(Params):
    handoff: Literal["image", "ec", "kv"] = choice(
        "ec", {"image": "交接原图", "ec": "交接编码结果 EC", "kv": "交接语言 KV"}, label="交接什么")
    screenshot_mb: float = slider(SCREENSHOT_MB, ge=SCREENSHOT_MB, le=SCREENSHOT_MB, step=0.1,
                                  label="原图大小(固定)", unit="MB")


@card("epd-handoff", title="原图 / EC / KV 三种交接位置", section="3.3", kind="diagram", params=HandoffParams,
      lead="视觉问答是 E(视觉编码)→ P(语言 prefill)→ D(decode)。点一个交接点:交得越晚,传的数据越大,接收方剩下的活越少。")
def epd_handoff(p: HandoffParams) -> View:
    vo = vision_outputs(BOOK_SIDE, BOOK_SIDE)
    sizes = {"image": p.screenshot_mb * 1e6 / MIB, "ec": vo["ec_mib"], "kv": vo["visual_kv_mib"]}
    o = {"receiver_stages": HANDOFF_STAGES[p.handoff], "handoff_mib": sizes[p.handoff],
         "ec_mib": vo["ec_mib"], "kv_mib": vo["visual_kv_mib"]}
    labels = {"image": "原图", "ec": "EC", "kv": "KV"}
    v = View(outputs=o, headline=f"交接{labels[p.handoff]}:接收方还要做 {o['receiver_stages'].replace(',', ' → ')}")
    v.stats.append(Stat("receiver_stages", "接收方剩下的阶段", o["receiver_stages"],
                        text=o["receiver_stages"].replace(",", " → ")))
    v.stats.append(Stat("handoff_mib", "交接的数据量(640×640)", o["handoff_mib"],
                        text=(f"{p.screenshot_mb:g} MB ≈ {sizes['image']:.3f} MiB" if p.handoff == "image"
                              else f"{trim(o['handoff_mib'])} MiB"), emphasis=True))
    v.stats.append(Stat("ec_mib", "EC", o["ec_mib"], text=f"{trim(o['ec_mib'])} MiB"))
    v.stats.append(Stat("kv_mib", "视觉 KV", o["kv_mib"], text=f"{trim(o['kv_mib'])} MiB"))
    points_ = [
        {"id": "image", "label": "原图", "size": f"{p.screenshot_mb:g} MB", "desc": "接收方还要做视觉编码"},
        {"id": "ec", "label": "EC", "size": f"{trim(vo['ec_mib'])} MiB", "desc": "接收方从语言 prefill 开始"},
        {"id": "kv", "label": "KV", "size": f"{trim(vo['visual_kv_mib'])} MiB", "desc": "语言上下文已算好,只剩 decode"},
    ]
    v.blocks.append(Block("diagrams/epd-handoff.html", {"sel": p.handoff, "points": points_,
                                                        "receiver": o["receiver_stages"].split(",")}))
    v.notes = [
        Note("交接越晚,传过去的东西越大(0.8 MB < 7.8 MiB < 56 MiB),接收方剩下的工作越少。大小只对 640×640 这张图成立。"),
        Note("三种交接位置后面还会用到:第 8 章把各阶段放在同一张卡上执行,第 9 章比较阶段之间的交接,第 12 章把它们放到端、边、云的链路上。"),
    ]
    return v


# =============================================================================================
# 语音:帧内还有一层循环 · Fish Audio S2 Pro  (▶)
# =============================================================================================


class SpeechParams(Params):
    frames: int = slider(50, ge=1, le=500, step=1, label="要生成的声学帧", unit="帧", illustrative=True)
    frame_rate_hz: float = slider(25, ge=10, le=100, step=0.5, label="每秒音频的帧数", unit="Hz", illustrative=True)
    slow_per_frame: int = fixed(1, "每帧慢速步")
    fast_state_forwards: int = fixed(1, "建立状态的快速前向")
    fast_codebook_forwards: int = fixed(9, "预测码本的快速前向")


SPEECH_SHOWN = 12      # frames drawn on the timeline (the counters use all frames)


@card("speech-loop", title="语音:帧内还有一层循环 · Fish Audio S2 Pro", section="3.3", kind="animation",
      params=SpeechParams,
      lead="慢速路径每步推进一帧;每帧里快速路径先做 1 次前向建立状态,再做 9 次预测补齐码本;codec 再把码本编号还原成波形。▶ 一帧一帧地放。")
def speech_loop(p: SpeechParams) -> View:
    per = p.fast_state_forwards + p.fast_codebook_forwards
    slow = p.frames * p.slow_per_frame
    fast = p.frames * per
    o = {"fast_forwards_per_frame": per, "slow_forwards": slow, "fast_forwards": fast,
         "total_forwards": slow + fast, "audio_s": p.frames / p.frame_rate_hz}
    v = View(outputs=o, headline=f"{p.frames} 帧 · 每帧 {p.slow_per_frame} 次慢速 + {per} 次快速前向")
    v.stat("fast_forwards_per_frame", "每帧快速前向(1 建状态 + 9 预测码本)", "次", emphasis=True)
    v.stat("slow_forwards", "慢速路径步数", "次")
    v.stat("fast_forwards", "快速路径前向", "次")
    v.stat("total_forwards", "前向总数", "次")
    v.stat("audio_s", "得到的音频时长", "s", sig=3, illustrative=True)

    shown = min(p.frames, SPEECH_SHOWN)
    slot = per + 1.0                       # x units per frame: one per fast forward, plus a gap

    # every frame's geometry once; frame k of the animation shows a prefix of it
    sx, sy, fx0, fy0, fx, fy, wx, wy = [], [], [], [], [], [], [], []
    for f in range(shown):
        x0 = f * slot
        sx += [x0, round(x0 + per - 0.1, 2), None]
        sy += [2, 2, None]
        fx0 += [round(x0 + 0.45 + j, 2) for j in range(p.fast_state_forwards)]
        fy0 += [1] * p.fast_state_forwards
        fx += [round(x0 + 0.45 + p.fast_state_forwards + j, 2) for j in range(p.fast_codebook_forwards)]
        fy += [1] * p.fast_codebook_forwards
        for i in range(9):
            wx.append(round(x0 + i * (per - 0.1) / 8, 2))
            wy.append(round(0.25 * math.sin(i * 2.4 + f * 1.3), 3) if i not in (0, 8) else 0)
        wx.append(None)
        wy.append(None)
    n_set, n_cb = p.fast_state_forwards, p.fast_codebook_forwards

    def counter(k: int) -> str:
        return (f"已生成 {k} 帧 · 慢速 {k * p.slow_per_frame} 次 · 快速 {k * per} 次 · "
                f"音频 {k / p.frame_rate_hz:.2f} s(示意)")

    def frame(k: int) -> list[dict]:
        return [{"x": sx[:3 * k], "y": sy[:3 * k]}, {"x": fx0[:n_set * k], "y": fy0[:n_set * k]},
                {"x": fx[:n_cb * k], "y": fy[:n_cb * k]}, {"x": wx[:10 * k], "y": wy[:10 * k]},
                {"x": [0], "y": [2.75], "text": [counter(k)]}]

    full = [
        line(sx, sy, "慢速路径:每步推进一帧", "state", width=18),
        points(fx0, fy0, "快速前向:建立状态", "prefill", size=11, symbol="square"),
        points(fx, fy, "快速前向:预测码本", "decode", size=11, symbol="square"),
        line(wx, wy, "codec → 波形(示意)", "tools", width=1.8),
        {"type": "scatter", "mode": "text", "x": [0], "y": [2.75], "text": [counter(shown)], "textposition": "middle right",
         "showlegend": False, "name": "计数", "hoverinfo": "skip", "textfont": {"size": 13}},
    ]

    xa = axis("执行顺序(每格一次快速前向;时间比例示意)", range_=(-0.5, max(shown, 1) * slot + 0.5), showticklabels=False)
    ya = axis("", range_=(-0.6, 3.1), ticks=[0, 1, 2], ticktext=["codec 输出", "快速路径", "慢速路径"], showgrid=False)
    fig = figure(full, layout(xa, ya, height=300, margin=(90, 16, 10, 36)))
    animate(fig, [{"data": frame(k)} for k in range(1, shown + 1)], [f"第 {k} 帧" for k in range(1, shown + 1)],
            duration=450, prefix="")
    v.figures.append(Figure(fig, f"两层循环(画出前 {shown} 帧)",
                            f"每帧 1 个慢速块,下面 {per} 个快速前向(1 个建状态 + {p.fast_codebook_forwards} 个预测码本);"
                            f"{p.frames} 帧共 {slow + fast:,} 次前向,约 {o['audio_s']:.3g} s 音频(帧率 {p.frame_rate_hz:g} Hz 为示意)。",
                            illustrative=True, animated=True))
    v.notes = [
        Note("书里只说每帧快速路径“1 次建立状态 + 9 次预测补齐码本”,共 10 次快速前向;没有给码本个数,这里也不把 10 说成“10 个码本”。"),
        Note("帧数和每秒帧数是示意值(书中没有给帧率),所以音频时长也是示意。", "illustrative"),
        Note("三种速度要分开说:语言 token/s 是慢速路径之前的文本理解;声学帧/s 取决于每帧 11 次前向有多快;"
             "每秒生成的音频时长 = 声学帧/s ÷ 帧率,大于 1 才跟得上实时播放。"),
    ]
    return v


# =============================================================================================
# 图像:反复更新同一组 latent · Qwen-Image-2512  (step ▶)
# =============================================================================================


class ImageGenParams(Params):
    img_h_px: int = slider(1024, ge=256, le=2048, step=DIT_SIDE_STEP, label="输出高 H", unit="px")
    img_w_px: int = slider(1024, ge=256, le=2048, step=DIT_SIDE_STEP, label="输出宽 W", unit="px")
    steps: int = slider(50, ge=1, le=100, step=1, label="去噪步数 n_s")
    cfg_branches: int = slider(2, ge=1, le=2, step=1, label="每步前向 n_b(真 CFG = 2)")
    text_tokens: int = slider(512, ge=0, le=1024, step=1, label="提示词 token T(假设)", unit="token")

    @field_validator("img_h_px", "img_w_px")
    @classmethod
    def _snap(cls, v: int) -> int:
        return snap(v, DIT_SIDE_STEP, DIT_SIDE_STEP)


def image_gen_total(h: int, w: int, steps: int, branches: int, text_tokens: int) -> tuple[int, mm.DiTFlops, float]:
    n_v = mm.latent_positions(h, w, DIT)
    f = mm.dit_forward_flops(DIT, n_v, text_tokens)
    return n_v, f, mm.image_gen_flops(steps, branches, f.total)


LATENT_GRID = 12     # the 示意 picture: 12×12 dots stand for the latent grid
LATENT_FRAMES = 20


def _latent_target(i: int, j: int) -> float:
    x, y = (i + 0.5) / LATENT_GRID - 0.5, (j + 0.5) / LATENT_GRID - 0.5
    return math.cos(6 * math.hypot(x, y)) + 0.6 * y


_CELLS = [(i, j) for j in range(LATENT_GRID) for i in range(LATENT_GRID)]
_rng = random.Random(7)
_NOISE = [(_rng.gauss(0, 1), _rng.gauss(0, 1)) for _ in _CELLS]
LATENT_COLORS = [round(_latent_target(i, j), 2) for i, j in _CELLS]


@lru_cache(maxsize=128)
def _latent_xy(a: float) -> tuple[list[float], list[float]]:
    """示意 picture: each latent dot drifts from noise (a = 0) to its grid place (a = 1)."""
    return ([round(i + (1 - a) * 1.8 * nx, 2) for (i, _), (nx, _) in zip(_CELLS, _NOISE)],
            [round(j + (1 - a) * 1.8 * ny, 2) for (_, j), (_, ny) in zip(_CELLS, _NOISE)])


@card("image-gen-loop", title="图像:反复更新同一组 latent · Qwen-Image-2512", section="3.3", kind="calculator",
      params=ImageGenParams,
      lead="1024² 的图是 4096 个 latent 位置。每个去噪步跑 n_b 次 DiT 前向,每次都处理同一组位置;总运算量 = n_s · n_b · F_step(n_v)。")
def image_gen_loop(p: ImageGenParams) -> View:
    n_v, f, total = image_gen_total(p.img_h_px, p.img_w_px, p.steps, p.cfg_branches, p.text_tokens)
    o = {"latent_positions": n_v, "dit_forwards": p.steps * p.cfg_branches, "flop_per_forward": f.total,
         "total_pflop": total / 1e15, "attention_share_pct": 100 * f.attention / f.total}
    v = View(outputs=o, headline=f"{p.img_w_px}×{p.img_h_px} · {p.steps} 步 × {p.cfg_branches} 次前向 · 提示词 {p.text_tokens} token(假设)")
    v.stat("latent_positions", "latent 位置 n_v", "个")
    v.stat("dit_forwards", "DiT 前向次数 n_s·n_b", "次")
    v.stats.append(Stat("flop_per_forward", "单次前向 F_step", f.total, text=f"{f.total / 1e13:.4f}×10¹³ FLOPs"))
    v.stats.append(Stat("total_pflop", "总运算量", o["total_pflop"], text=f"≈ {o['total_pflop']:.3f}×10¹⁵ FLOPs", emphasis=True))
    v.stat("attention_share_pct", "联合注意力占单步", "%", sig=3)

    sides = list(range(256, 2049, 64))
    cur_side = math.sqrt(p.img_h_px * p.img_w_px)
    tot = [image_gen_total(s, s, p.steps, p.cfg_branches, p.text_tokens)[2] for s in sides]
    lin = [total * mm.latent_positions(s, s, DIT) / n_v for s in sides]
    fig1 = figure([
        line(sides, tot, "总运算量", "compute"),
        line(sides, lin, "若与 n_v 成正比", "idle", dash="dot"),
        points([cur_side], [total], f"当前 {p.img_w_px}×{p.img_h_px}", "accent", size=11),
    ], layout(axis("边长(正方形,px)"), axis("总运算量 (FLOPs,对数)", log=True, exponentformat="power"), height=320))
    v.figures.append(Figure(fig1, "总运算量随分辨率增长",
                            f"{p.steps} 步 × {p.cfg_branches} 次前向时,当前约 {total / 1e15:.3f}×10¹⁵ FLOPs;"
                            f"边长 2048 时 {tot[-1] / 1e15:.4g}×10¹⁵,高于按 n_v 线性外推的 {lin[-1] / 1e15:.4g}×10¹⁵。"))

    n_frames = min(p.steps, LATENT_FRAMES)
    step_marks = [round(p.steps * k / n_frames) for k in range(n_frames + 1)]

    def counter(step: int) -> dict:
        done = mm.image_gen_flops(step, p.cfg_branches, f.total)
        return {"x": [-2], "y": [LATENT_GRID + 1.2],
                "text": [f"第 {step}/{p.steps} 步 · 已做 {step * p.cfg_branches} 次前向 · 累计 {done / 1e15:.3f}×10¹⁵ FLOPs"]}

    def latent(k: int) -> list[dict]:
        """Frame k: the dots at denoising fraction k/n_frames (positions are precomputed, 示意)."""
        xs, ys = _latent_xy(k / n_frames)
        return [{"x": xs, "y": ys}, counter(step_marks[k])]

    last = latent(n_frames)
    dots = {"type": "scatter", "mode": "markers", **last[0], "name": "latent 位置(示意)", "hoverinfo": "skip",
            "showlegend": False, "marker": {"size": 16, "symbol": "square", "color": LATENT_COLORS, "colorscale": "Viridis"}}
    text = {"type": "scatter", "mode": "text", **last[1], "showlegend": False, "hoverinfo": "skip",
            "textposition": "middle right", "name": "计数", "textfont": {"size": 13}}
    fig2 = figure([dots, text], layout(
        axis("", range_=(-3, LATENT_GRID + 2), visible=False),
        axis("", range_=(-3, LATENT_GRID + 2.2), visible=False, scaleanchor="x"),
        height=360, legend=False, margin=(10, 10, 10, 10)))
    animate(fig2, [{"data": latent(k)} for k in range(n_frames + 1)], [str(s) for s in step_marks], duration=220,
            prefix="去噪步 ")
    v.figures.append(Figure(fig2, "▶ 去噪:同一组 latent 被反复更新(画面示意)",
                            f"{p.steps} 步里每一步都更新同样 {n_v:,} 个位置,每步 {p.cfg_branches} 次前向,开销每步相同。",
                            illustrative=True, animated=True))
    v.notes = [
        Note("$F_{total} = n_s \\cdot n_b \\cdot F_{step}(n_v)$,$n_v = (H/16)(W/16)$(VAE 每边缩小 8 倍,再 2×2 成块)。", "formula"),
        Note(f"书中没有给提示词长度。这里假设 T = {p.text_tokens} 个 token(默认 512):取 512 正好得到书上的 7.830×10¹⁵;"
             "取 511 或 513 会变成 7.828 或 7.832。书的公式让两个 CFG 分支一样长,实际负向提示通常更短。"),
        Note(f"F_step 由公开的 Qwen-Image MMDiT 配置(data/models/qwen-image-2512-dit.json)逐项算出:{DIT.layers} 个双流块、宽 {DIT.width}、"
             f"MLP {DIT.mlp},图像与文本 token 做联合全注意力。当前一次前向:线性层 {f.linear / 1e12:,.2f} T + 注意力 {f.attention / 1e12:,.2f} T"
             f" + 调制 {f.modulation / 1e9:,.2f} G + 输入输出投影 {f.io / 1e9:,.2f} G + 时间步等 {f.small / 1e6:,.1f} M FLOPs。文本编码器和 VAE 另算。"),
        Note("步数加倍,运算量加倍;分辨率提高时位置数变多,每行的线性层和位置两两之间的注意力都涨,所以比线性更快。"
             "和文本 decode 不同,上下文不会越来越长:固定分辨率下每一步一样贵。"),
    ]
    return v


# =============================================================================================
# 图 3-18 / 3-19 · 抖动缓冲与打断  (▶)
# =============================================================================================


class JitterParams(Params):
    initial_buffer_ms: float = slider(40, ge=0, le=200, step=10, label="初始缓冲(首块到达后再等)", unit="ms",
                                      illustrative=True)
    chunk_ms: float = slider(20, ge=10, le=100, step=10, label="每块音频", unit="ms")
    sample_rate_hz: int = slider(24000, ge=8000, le=48000, step=8000, label="采样率", unit="Hz")
    channels: int = fixed(1, "声道")
    bytes_per_sample: int = fixed(2, "每样本字节", "B")
    proc_ms: float = slider(12, ge=0, le=50, step=1, label="每块处理", unit="ms")
    send_ms: float = slider(1, ge=0, le=10, step=1, label="发送", unit="ms")
    net_ms: float = slider(5, ge=0, le=100, step=1, label="通常网络延迟", unit="ms")
    n_chunks: int = slider(12, ge=4, le=50, step=1, label="画出的块数", illustrative=True)
    late_chunk: int = slider(3, ge=-1, le=49, step=1, label="迟到块序号(−1 = 无)", illustrative=True)
    late_net_ms: float = slider(55, ge=5, le=300, step=5, label="迟到块的网络延迟", unit="ms", illustrative=True)
    interrupt_ms: float = slider(183, ge=0, le=1000, step=1, label="决定打断的时刻", unit="ms", illustrative=True)
    control_ms: float = slider(5, ge=0, le=50, step=1, label="控制延迟", unit="ms")
    poll_ms: float = slider(10, ge=1, le=50, step=1, label="设备检查指令周期", unit="ms")
    release_ms: float = slider(20, ge=0, le=200, step=5, label="静音/停止后到释放缓冲与状态", unit="ms",
                               illustrative=True)


def jitter_sim(p: JitterParams) -> dict:
    """All of 图 3-18 / 3-19's quantities in seconds plus the catalog outputs in ms."""
    ms = 1e-3
    late = p.late_chunk if 0 <= p.late_chunk < p.n_chunks else -1
    chunk = p.chunk_ms * ms
    arr = audio.arrivals(p.n_chunks, chunk, p.proc_ms * ms, p.send_ms * ms, p.net_ms * ms, late, p.late_net_ms * ms)
    play_start = arr[0] + p.initial_buffer_ms * ms
    po = audio.playout(arr, chunk, play_start)
    it = audio.interrupt(p.interrupt_ms * ms, p.control_ms * ms, p.poll_ms * ms, p.release_ms * ms)
    best, worst = audio.mute_latency_range(p.control_ms * ms, p.poll_ms * ms)
    o = {
        "chunk_bytes": audio.chunk_bytes(p.sample_rate_hz, chunk, p.channels, p.bytes_per_sample),
        "first_arrival_ms": arr[0] / ms, "play_start_ms": play_start / ms,
        "n_stalls": po.n_stalls, "stall_total_ms": po.stall_total / ms, "last_play_end_ms": po.last_end / ms,
        "mute_ms": it.mute / ms, "mute_latency_ms": it.mute_latency / ms,
        "best_mute_latency_ms": best / ms, "worst_mute_latency_ms": worst / ms,
        "backend_stop_ms": it.stop / ms, "release_ms": it.release / ms,
        "discarded_audio_ms": audio.discarded_audio(arr, po, chunk, it.mute) / ms,
        "measured_first_chunk_ms_run1": MEASURED_FIRST_CHUNK_MS[0],
        "measured_first_chunk_ms_run2": MEASURED_FIRST_CHUNK_MS[1],
        "measured_chunk_gap_median_ms": MEASURED_CHUNK_GAP_MEDIAN_MS,
    }
    return {"o": o, "arr": arr, "po": po, "it": it, "chunk": chunk, "late": late, "play_start": play_start}


def _segs(pairs: list[tuple[float, float]], y: float) -> tuple[list, list]:
    xs, ys = [], []
    for a, b in pairs:
        xs += [a, b, None]
        ys += [y, y, None]
    return xs, ys


def _jitter_figure(s: dict, p: JitterParams) -> dict:
    arr, po, chunk, late = s["arr"], s["po"], s["chunk"] * 1e3, s["late"]
    A = [a * 1e3 for a in arr]
    starts = [x * 1e3 for x in po.starts]
    ends = [x * 1e3 for x in po.ends]
    stalls = [(a * 1e3, b * 1e3) for a, b in po.stalls]
    planned = [s["play_start"] * 1e3 + k * chunk for k in range(len(arr))]
    bt, bv = audio.buffer_curve(arr, po, s["chunk"])
    bt = [t * 1e3 for t in bt]
    bv = [b * 1e3 for b in bv]
    t_end = ends[-1] + chunk
    ymax = max(bv + [chunk]) * 1.15

    def q(xs: list) -> list:
        return [None if x is None else round(x, 2) for x in xs]

    def upto(t: float, full: bool = True) -> list[dict]:
        on = [k for k in range(len(A)) if A[k] <= t and k != late]
        ln = [k for k in range(len(A)) if A[k] <= t and k == late]
        play = [(a, min(b, t)) for a, b in zip(starts, ends) if a <= t]
        st = [(a, min(b, t)) for a, b in stalls if a <= t]
        cut = [(x, y) for x, y in zip(bt, bv) if x <= t]
        if cut and cut[-1][0] < t <= bt[-1]:
            cut.append((t, audio.buffer_level(arr, po, s["chunk"], t / 1e3) * 1e3))
        px, py = _segs(play, 1)
        sx, sy = _segs(st, 1)
        xy = [([A[k] for k in on], [3] * len(on)), ([A[k] for k in ln], [3] * len(ln)), (px, py), (sx, sy),
              ([c[0] for c in cut], [c[1] for c in cut]), ([t, t], [0.4, 3.6]), ([t, t], [0, ymax])]
        if not full:   # animation frames carry only the coordinates that move
            out = [{"x": q(x), "y": q(y)} for x, y in xy]
            out[0]["customdata"] = on
            out[1]["customdata"] = ln
            return out
        return [
            points(*xy[0], "到达", "decode", size=10,
                   customdata=on, hovertemplate="块 %{customdata} 到达 %{x:.0f} ms<extra></extra>"),
            points(*xy[1], "迟到的块(示意)", "backlog", size=12,
                   customdata=ln, hovertemplate="块 %{customdata} 到达 %{x:.0f} ms<extra></extra>"),
            line(*xy[2], "实际播放", "decode", width=14),
            line(*xy[3], "停顿", "backlog", width=14),
            line(*xy[4], "B(t) = A(t) − P(t)", "state", width=2.2, xaxis="x", yaxis="y2"),
            line(*xy[5], "时钟", "ink", width=1, dash="dot", showlegend=False, hoverinfo="skip"),
            line(*xy[6], "时钟", "ink", width=1, dash="dot", showlegend=False, hoverinfo="skip", yaxis="y2"),
        ]

    planned_tr = points(planned, [2] * len(planned), "原定播放", "ink", size=16, symbol="line-ns-open",
                        hovertemplate="原定 %{x:.0f} ms<extra></extra>")
    base = upto(t_end)
    lay = layout(axis("", range_=(0, t_end), anchor="y2", ticksuffix=" ms"),
                 axis("", range_=(0.4, 3.6), ticks=[1, 2, 3], ticktext=["实际播放", "原定播放", "到达"],
                      domain=[0.42, 1], showgrid=False),
                 height=420, margin=(80, 16, 10, 44))
    lay["yaxis2"] = axis("B(t) (ms 音频)", range_=(0, ymax), domain=[0, 0.32], anchor="x")
    fig = figure(base + [planned_tr], lay)
    n = 20
    ts = [t_end * k / n for k in range(1, n + 1)]
    animate(fig, [{"data": upto(t, full=False), "traces": list(range(len(base)))} for t in ts],
            [f"{t:.0f} ms" for t in ts], duration=160, prefix="t = ")
    return fig


def _interrupt_figure(s: dict, p: JitterParams) -> dict:
    o, it = s["o"], s["it"]
    mute = o["mute_ms"]
    A = [a * 1e3 for a in s["arr"]]
    starts = [x * 1e3 for x in s["po"].starts]
    ends = [x * 1e3 for x in s["po"].ends]
    played = [(a, min(b, mute)) for a, b in zip(starts, ends) if a < mute]
    unplayed_ms = o["discarded_audio_ms"]
    polls_from = max(0.0, math.floor((o["backend_stop_ms"] - 3 * p.poll_ms) / p.poll_ms) * p.poll_ms)
    polls = [polls_from + k * p.poll_ms for k in range(0, 8) if polls_from + k * p.poll_ms <= o["release_ms"] + p.poll_ms]
    px, py = _segs(played, 1)
    gx, gy = _segs([(mute, mute + unplayed_ms)] if unplayed_ms > 0 else [], 1)
    arrived = [a for a in A if a <= mute]
    x_hi = max(o["release_ms"], mute + unplayed_ms) + 30
    x_lo = max(0.0, p.interrupt_ms - 120)
    lay = layout(axis("时间 (ms)", range_=(x_lo, x_hi)),
                 axis("", range_=(0.4, 3.6), ticks=[1, 2, 3], ticktext=["设备播放", "设备检查指令", "到达"], showgrid=False),
                 height=300, margin=(100, 16, 30, 44))
    refs = [vline(p.interrupt_ms, f"决定打断 {p.interrupt_ms:g}", "ink", "dot"),
            vline(o["backend_stop_ms"], f"后端停止 {o['backend_stop_ms']:.0f}", "tools"),
            vline(mute, f"设备静音 {mute:.0f}", "backlog"),
            vline(o["release_ms"], f"释放 {o['release_ms']:.0f}", "state")]
    with_refs(lay, *refs)
    # stagger the four labels so they do not overlap
    for i, a in enumerate(lay["annotations"]):
        a["y"] = 1 - 0.12 * i
        a["yanchor"] = "top"
        a["xanchor"] = "left"
        a["bgcolor"] = "rgba(255,255,255,0.6)"
    fig = figure([
        points(arrived, [3] * len(arrived), "到达(静音前)", "decode", size=10),
        points(polls, [2] * len(polls), "设备检查指令", "idle", size=14, symbol="line-ns-open"),
        line(px, py, "已播放", "decode", width=14),
        line(gx, gy, "已到达但不再播放", "idle", width=14, dash="dot"),
    ], lay)
    return fig


@card("fig-3-18", title="抖动缓冲与打断", label="图 3-18 / 3-19", section="3.3", kind="animation",
      params=JitterParams, aliases=("fig-3-19",), badges=(("练习 3-5", "ex-3-5"),),
      lead="20 ms 一块的音频经过处理、发送、网络后到达设备。▶ 让时钟走起来:看到达、原定播放和实际播放,以及缓冲余量 B(t)。下面一张图演示打断时的三个不同时刻。")
def fig_3_18(p: JitterParams) -> View:
    s = jitter_sim(p)
    o = s["o"]
    v = View(outputs=o, headline=f"每块 {p.chunk_ms:g} ms · 初始缓冲 {p.initial_buffer_ms:g} ms(示意)"
             + (f" · 块 {s['late']} 迟到(示意)" if s["late"] >= 0 else " · 无迟到块"))
    v.stats.append(Stat("chunk_bytes", "每块字节", o["chunk_bytes"], "B", digits=0,
                        book=f"{p.sample_rate_hz:,} × {p.chunk_ms / 1e3:.3f} × {p.channels * p.bytes_per_sample}"))
    v.stat("first_arrival_ms", "首块到达", "ms", digits=0)
    v.stat("play_start_ms", "开始播放", "ms", digits=0, illustrative=True)
    v.stat("n_stalls", "停顿次数", "次", illustrative=True, emphasis=True)
    v.stat("stall_total_ms", "停顿总时长", "ms", digits=0, illustrative=True, emphasis=True)
    v.stat("last_play_end_ms", "最后一块播完", "ms", digits=0, illustrative=True)
    v.stat("mute_ms", "设备静音", "ms", digits=0, illustrative=True)
    v.stats.append(Stat("mute_latency_ms", "静音 − 决定打断", o["mute_latency_ms"], "ms", digits=0,
                        book=f"范围 {o['best_mute_latency_ms']:.0f}–{o['worst_mute_latency_ms']:.0f} ms"))
    v.stat("best_mute_latency_ms", "最快静音", "ms", digits=0)
    v.stat("worst_mute_latency_ms", "最慢静音", "ms", digits=0)
    v.stat("backend_stop_ms", "后端停止生成", "ms", digits=0, illustrative=True)
    v.stat("release_ms", "释放缓冲与状态", "ms", digits=0, illustrative=True)
    v.stat("discarded_audio_ms", "到达却没播放的音频", "ms", digits=0, illustrative=True)
    v.stat("measured_first_chunk_ms_run1", "实测一:停说 → 首块音频", "ms", approx=True)
    v.stat("measured_first_chunk_ms_run2", "实测二:停说 → 首块音频", "ms", approx=True)
    v.stat("measured_chunk_gap_median_ms", "实测:后续块间隔中位数", "ms", approx=True)

    fig = _jitter_figure(s, p)
    v.figures.append(Figure(fig, "图 3-18 · 到达、原定播放与实际播放;缓冲余量 B(t)",
                            f"首块 {o['first_arrival_ms']:.0f} ms 到达,{o['play_start_ms']:.0f} ms 开播;"
                            f"停顿 {o['n_stalls']} 次共 {o['stall_total_ms']:.0f} ms,最后一块 {o['last_play_end_ms']:.0f} ms 播完。",
                            illustrative=True, animated=True))
    v.figures.append(Figure(_interrupt_figure(s, p), "图 3-19 · 打断:静音、停止、释放是三个时刻",
                            f"{p.interrupt_ms:g} ms 决定打断;后端 {o['backend_stop_ms']:.0f} ms 停止生成;设备在下一次检查指令时"
                            f"({o['mute_ms']:.0f} ms)静音;{o['release_ms']:.0f} ms 释放缓冲与状态;"
                            f"已到达却没播放的音频 {o['discarded_audio_ms']:.0f} ms。", illustrative=True))
    v.notes = [
        Note("$B_{audio}(t) = A(t) - P(t)$:A 是已到达、可以按顺序播放的音频时长,P 是已播放时长,播放时每秒涨 1 秒。"
             "块 k 在 $(k+1)\\cdot$块长 + 处理 + 发送 + 网络 时到达。", "formula"),
        Note("“初始缓冲”按“首块到达后再等这么久才开播”理解(常见的抖动缓冲做法)。若理解成“攒够这么多音频才开播”,"
             "40 ms 会在 58 ms 开播,60 ms 会在 78 ms 开播。"),
        Note("示意部分:哪一块迟到、迟到多久、初始缓冲默认值、决定打断的时刻、释放延迟。书中只给出 20 ms / 960 B / 12 / 1 / 5 / 38 ms 和 5 ms、10 ms。"
             "默认的迟到模式下,40 ms 缓冲会停一次 10 ms,60 ms 不停。", "illustrative"),
        Note("书中没说由谁决定打断。这里假设由一个控制端在该时刻决定,设备和生成端都在 5 ms 控制延迟后收到;"
             "设备每 10 ms 才检查一次指令,所以静音落在决定后 5–15 ms。后端停止时间按“决定 + 控制延迟”计。"),
        Note("两次实测语音会话(书中数据):停说到首块音频约 400 ms 和 370 ms,后续块到达间隔中位数约 94 ms,远大于 20 ms 的块长。"),
    ]
    return v


# =============================================================================================
# 到达跟不上播放,缓冲只是延后中断
# =============================================================================================


class DrainParams(Params):
    arrival_rate_s_per_s: float = slider(0.9, ge=0.5, le=1.2, step=0.05, label="每秒到达的可播放音频 r", unit="s/s")
    initial_buffer_s: float = slider(0.3, ge=0, le=2, step=0.05, label="开播时已缓存 B₀", unit="s")


@card("buffer-drain", title="到达跟不上播放,缓冲只是延后中断", section="3.3", kind="chart", params=DrainParams,
      badges=(("练习 3-5", "ex-3-5"),),
      lead="每秒只到 r 秒可播放音频而播放每秒消耗 1 秒时,余量按 (1 − r) 的斜率下降。把 B₀ 调大,只是把断开的时刻往后推。")
def buffer_drain(p: DrainParams) -> View:
    r, b0 = p.arrival_rate_s_per_s, p.initial_buffer_s
    drain = audio.drain_time(b0, r)
    o = {"drain_s": drain, "deficit_s_per_s": 1 - r}
    v = View(outputs=o, headline=f"r = {r:g} s/s · B₀ = {b0:g} s")
    v.stats.append(Stat("drain_s", "耗尽时刻 B₀/(1 − r)", drain, "s", sig=3, emphasis=True,
                        text=None if math.isfinite(drain) else "不会耗尽(r ≥ 1)"))
    v.stat("deficit_s_per_s", "每秒亏空 1 − r", "s/s", sig=3)

    t_max = drain * 1.3 if math.isfinite(drain) and drain > 0 else 10.0
    t_max = max(t_max, 1.0)
    t_stop = min(drain, t_max) if math.isfinite(drain) else t_max
    n = 40
    ts = [t_stop * k / n for k in range(n + 1)]
    A = [b0 + r * t for t in ts]
    P = ts
    B = [audio.buffer_linear(b0, r, t) for t in ts]
    traces = [line(ts, A, "A(t) 已到达", "decode"), line(ts, P, "P(t) 已播放", "idle"),
              line(ts, B, "B(t) = A − P", "state", width=3)]
    lay = layout(axis("时间 t (s)", range_=(0, t_max)), axis("音频时长 (s)"), height=320)
    if math.isfinite(drain):
        after = [drain, t_max]
        traces.append(line(after, [0, 0], "耗尽后:断断续续", "backlog", width=5))
        with_refs(lay, vline(drain, f"t = {drain:.3g} s 耗尽", "backlog"))
    v.figures.append(Figure(figure(traces, lay), "缓冲余量随时间下降",
                            (f"B(t) 从 {b0:g} s 以每秒 {1 - r:.3g} s 下降,{drain:.3g} s 时降到 0。"
                             if math.isfinite(drain) else f"r = {r:g} ≥ 1,余量不会下降到 0。")))
    v.notes = [
        Note("$B(t) = B_0 - (1-r)\\,t$,$t_{drain} = B_0/(1-r)$(r < 1)。", "formula"),
        Note("有限的缓冲能吸收到达时间的抖动,代价是晚一点开播;但平均到达速度低于实时的时候,缓冲再大也只是把中断推后。"),
    ]
    return v


# =============================================================================================
# 持续观察也要筛选 (AOI)
# =============================================================================================


class AoiParams(Params):
    event_ms: float = slider(300, ge=10, le=5000, step=10, label="弹窗持续时间", unit="ms", illustrative=True)
    interval_ms: float = slider(500, ge=10, le=5000, step=10, label="观测间隔", unit="ms", illustrative=True)
    frames_per_s_kept: float = slider(2, ge=0.1, le=30, step=0.1, label="每秒交给模型的关键帧", unit="帧/s",
                                      illustrative=True)


AOI_ACTIONS = [(0.0, 0.8), (1.2, 2.0), (2.8, 3.6)]     # s, 示意
AOI_POPUP_START = 2.35                                 # s, 示意


@card("aoi-observe", title="持续观察也要筛选", section="3.3", kind="diagram", params=AoiParams,
      lead="只在动作结束后截图的 Agent,会错过中途出现又消失的弹窗。AOI 把观测和动作分开:一直采集,再挑出交给模型的记录。")
def aoi_observe(p: AoiParams) -> View:
    p_catch = min(1.0, p.event_ms / p.interval_ms)
    o = {"p_catch": p_catch, "observations_per_s": 1000 / p.interval_ms, "frames_kept_per_min": 60 * p.frames_per_s_kept}
    v = View(outputs=o, headline="时间线全部为示意")
    v.stat("p_catch", "随机相位采样看到弹窗的概率", "", sig=3, illustrative=True, emphasis=True)
    v.stat("observations_per_s", "每秒观测次数", "次/s", sig=3, illustrative=True)
    v.stat("frames_kept_per_min", "每分钟进上下文的关键帧", "帧", sig=3, illustrative=True)

    pop = (AOI_POPUP_START, AOI_POPUP_START + p.event_ms / 1000)
    window = max(4.0, pop[1] + 0.3)
    W, x0 = 760.0, 150.0
    sx = (W - x0 - 20) / window

    def X(t: float) -> float:
        return round(x0 + t * sx, 2)

    step = p.interval_ms / 1000
    n_obs = int(window / step) + 1
    obs = [k * step for k in range(n_obs)]
    stride = max(1, math.ceil(len(obs) / 200))
    ticks = [{"x": X(t), "hit": pop[0] <= t <= pop[1]} for t in obs[::stride]]
    shots = [{"x": X(b), "hit": pop[0] <= b <= pop[1]} for _, b in AOI_ACTIONS]
    caught = any(pop[0] <= t <= pop[1] for t in obs)
    v.blocks.append(Block("diagrams/aoi-observe.html", {
        "W": W, "x0": x0, "actions": [{"x": X(a), "w": round((b - a) * sx, 2)} for a, b in AOI_ACTIONS],
        "popup": {"x": X(pop[0]), "w": max(2.0, round((pop[1] - pop[0]) * sx, 2))},
        "ticks": ticks, "shots": shots, "caught": caught, "shot_caught": any(s["hit"] for s in shots),
        "seconds": [{"x": X(t), "t": t} for t in range(int(window) + 1)], "stride": stride,
        "kept_per_min": o["frames_kept_per_min"]}))
    v.notes = [
        Note("全部为示意:书中没有给数字,也没有给公式。这里用“弹窗时长 ÷ 观测间隔”(不超过 1)粗略表示随机相位下看到弹窗的机会。", "illustrative"),
        Note("观测越频繁,越能抓住短暂事件;但每秒交给模型的关键帧越多,上下文越挤,效果反而会变差。所以 AOI 的关键是先一直看,再筛选。"),
    ]
    return v


# =============================================================================================
# 编码 → 理解 → 声学生成 → 缓冲播放
# =============================================================================================

PIPE_STAGES = [("encode", "编码视觉或音频", "形成模型输入"), ("understand", "语言模型理解", "生成回复"),
               ("acoustic", "声学生成", "产生音频采样"), ("play", "缓冲与播放", "决定何时真正发声")]
PIPE_TARGETS = {"ttft": "尽快开始(首个输出)", "playback": "连续播放", "completion": "尽早完成"}


class PipelineParams(Params):
    target: Literal["ttft", "playback", "completion"] = choice("ttft", PIPE_TARGETS, label="完成目标")


@card("multimodal-pipeline", title="编码 → 理解 → 声学生成 → 缓冲播放", section="3.3", kind="diagram",
      params=PipelineParams,
      lead="语音助手的一次回答要走四段。点上方的目标:“尽快开始”“连续播放”“尽早完成”看的是不同阶段的边界。")
def multimodal_pipeline(p: PipelineParams) -> View:
    o = {"n_stages": len(PIPE_STAGES), "target": p.target}
    v = View(outputs=o, headline=f"目标:{PIPE_TARGETS[p.target]}")
    v.stat("n_stages", "阶段数", "段")
    v.stats.append(Stat("target", "当前目标", p.target, text=PIPE_TARGETS[p.target]))
    explain = {
        "ttft": "从请求开始到第一段声音出来:前三段都要先产出第一块,缓冲再等初始余量。对应文本里的 TTFT(见图 3-2)。",
        "playback": "开播之后每一块都要按时到:看的是缓冲与播放这一段的余量 B(t) 会不会降到零(见图 3-18)。",
        "completion": "只关心整件事何时结束,比如 RAW 照片精修只看最终图何时完成。",
    }
    v.blocks.append(Block("diagrams/multimodal-pipeline.html", {
        "stages": PIPE_STAGES, "targets": PIPE_TARGETS, "sel": p.target, "explain": explain[p.target]}))
    v.notes = [
        Note("RAW 照片精修只关心最终图何时完成,而且必须保留原始像素:视觉编码结果 EC 是为理解而压缩的表示,不能代替原图。"),
    ]
    return v
