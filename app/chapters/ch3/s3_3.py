"""Section 3.3 多模态与实时交互: image → vision tokens → EC / KV, handoff points, speech and image
generation loops, jitter buffer and interruption, buffer drain, AOI, the multimodal pipeline."""

from __future__ import annotations

import math
from typing import Literal

from pydantic import field_validator

from ...calculators import audio
from ...calculators import multimodal as mm
from ...calculators.units import KIB, MIB
from ...cards import Block, Figure, Note, Params, Table, View, card, choice, fixed, slider
from ...charts import audio as audio_charts
from ...charts import multimodal as mm_charts
from ...charts.theme import COLORS
from ...outputs import out, outputs
from ...trace import given, tmin
from ..shared import ch3_train as sh
from ..shared.ch3_train import VISION, formatter, mib, vision

SIDE_STEP, DIT_SIDE_STEP = VISION.patch * VISION.merge, sh.DIT.pixels_per_position  # 32 px, 16 px


class VisionParams(Params):
    img_h_px: int = slider(sh.BOOK_SIDE, ge=32, le=2048, step=SIDE_STEP, label="图片高 H", unit="px")
    img_w_px: int = slider(sh.BOOK_SIDE, ge=32, le=2048, step=SIDE_STEP, label="图片宽 W", unit="px")
    n_images: int = slider(1, ge=1, le=8, step=1, label="图片张数", unit="张", sym="n_{img}")
    text_tokens: int = slider(0, ge=0, le=4096, step=1, label="同一输入中的文本 token", unit="token", sym="T")
    patch_px: int = fixed(VISION.patch, "patch 边长 p", "px")
    merge: int = fixed(VISION.merge, "合并因子 r(r×r 块 → 1 token)")
    feature_levels: int = fixed(VISION.feature_levels, "DeepStack 拼接层数", sym="n_{lvl}")
    feature_dim: int = fixed(VISION.out_hidden, "每层宽度", sym="d")
    feature_bytes: int = fixed(sh.VISION_BYTES, "每个值字节(BF16)", "B", sym="b")
    kv_kib_per_token: int = fixed(sh.KV_PER_TOKEN // KIB, "语言 KV / token", "KiB", sym="kv")

    _snap = field_validator("img_h_px", "img_w_px")(sh.snap_to(SIDE_STEP))


VISION_OUT = outputs(
    patches_per_image=out("每张图的块数 H·W/p²", unit="块", sym="n_p"),
    vision_tokens=out("视觉 token 数 n_v", unit="token", em=True, sym="n_v"),
    ec_bytes_per_token=out("每个视觉 token 的 EC(= [[ec_kib]] KiB)", unit="B", sym="EC_{tok}"),
    ec_mib=mib("完整编码结果 EC", em=True, sym="EC"),
    visual_kv_mib=mib("视觉 token 的语言 KV", em=True, sym="KV_v"),
    input_tokens=out("输入 token(视觉 + 文本)", unit="token"),
    input_kv_mib=mib("输入 KV(视觉 + 文本)", sym="KV_{in}"),
    kv_to_ec_ratio=out("每 token KV ÷ EC", unit="×", sig=2),
    vision_encode_tflop=out("视觉编码矩阵运算", unit="TFLOPs", digits=3, approx=True, sym="F_{enc}"),
)
_TOWER = {s: mm.vision_tower_flops(VISION, s, s).total for s in (640, 1280)}


@card(
    "fig-3-15",
    title="像素 → 块 → 视觉 token → 三种数据",
    label="图 3-15 / 3-16",
    section="3.3",
    kind="calculator",
    params=VisionParams,
    aliases=("fig-3-16",),
    badges=(("练习 3-5", "ex-3-5"),),
    outputs=VISION_OUT,
    lead="Qwen3-VL-4B 把图片切成 16×16 的块,再把 2×2 个块并成一个视觉 token。改图片尺寸、张数和文本长度,看编码结果 EC、视觉 KV 和视觉编码运算量怎么变。",
)
def fig_3_15(p: VisionParams) -> View:
    facts = mm.VisionFacts(
        p.patch_px, p.merge, p.feature_levels, p.feature_dim, p.feature_bytes, p.kv_kib_per_token * KIB
    )
    o = vision(p.img_h_px, p.img_w_px, p.n_images, p.text_tokens, facts)
    f, fl, txt = formatter(VISION_OUT, o), mm.vision_tower_flops(VISION, p.img_h_px, p.img_w_px), bool(p.text_tokens)
    book = p.img_h_px == sh.BOOK_SIDE == p.img_w_px and p.n_images == 1 and not txt
    bars = [("压缩截图(给定输入)", sh.SCREENSHOT_MB * 1e6 / MIB, "idle", sh.SCREENSHOT_TEXT)] * book + [
        ("完整编码结果 EC", o["ec_mib"], "prefill", f("ec_mib")),
        ("视觉 token 的语言 KV", o["visual_kv_mib"], "state", f("visual_kv_mib")),
        *[("输入 KV(视觉 + 文本)", o["input_kv_mib"], "state", f("input_kv_mib"))] * txt,
    ]
    return View(
        o,
        headline=f"[[n_images|n]] 张 {p.img_w_px}×{p.img_h_px} 图片" + " + [[text_tokens|n]] 个文本 token" * txt,
        ctx={"ec_kib": o["ec_bytes_per_token"] / KIB},
        figures=[
            Figure(
                mm_charts.sizes_figure(bars),
                "三种数据的大小(MiB)",
                "[[vision_tokens|n]] 个视觉 token:EC [[ec_mib]],视觉 KV [[visual_kv_mib]]"
                + ",加上文本后的输入 KV [[input_kv_mib]]" * txt
                + "。",
            )
        ],
        blocks=[
            Block(
                "diagrams/fig-3-15.html",
                {
                    "g": mm_charts.patch_grid(p.img_h_px, p.img_w_px, VISION.patch, VISION.merge),
                    "h": p.img_h_px,
                    "w": p.img_w_px,
                    "n_images": p.n_images,
                    "n_v": f("vision_tokens", "n"),
                    "n_p": f("patches_per_image", "n"),
                    "patch": VISION.patch,
                    "merge": VISION.merge,
                    "C": COLORS,
                },
            )
        ],
        notes=[
            Note(
                "$n_v = H_{img}W_{img}/(p_{patch}^2 r^2)$;EC = $n_v$ × 4 × 2560 × 2 B;视觉 KV = $n_v$ × 144 KiB。",
                "formula",
            ),
            Note(
                "特征拼接只加宽每个 token(4 层 × 2560),图片变大才增加 token 数。边长翻倍,视觉 token、EC、视觉 KV 都变成 4 倍;"
                f"视觉编码因为块之间做全注意力,增长更快(1280×1280 约 {_TOWER[1280] / 1e12:.3f} TFLOPs,是 640×640 的 {_TOWER[1280] / _TOWER[640]:.1f} 倍)。"
            ),
            Note(
                f"视觉编码运算量来自公开的 Qwen3-VL-4B 视觉配置(data/models/qwen3-vl-4b-vision.json):"
                f"{VISION.depth} 个 ViT 块、宽 {VISION.hidden}、MLP {VISION.mlp},同一张图内全注意力,另有 {VISION.mergers} 个合并器。"
                f"本图:块嵌入 {fl.embed / 1e9:,.3f} G + ViT 块 {fl.blocks / 1e9:,.3f} G + 合并器 {fl.mergers / 1e9:,.3f} G(每张图)。"
                "只计矩阵乘,不含偏置、归一化和激活;多张图之间不互相注意,按张数相加。"
            ),
            Note(
                "边长按 32 px(16 × 2)的倍数取整,与预处理器的做法一致。0.8 MB 的压缩截图只对书中那张 640×640 图成立,换尺寸后不知道文件多大,所以不画。"
            ),
        ],
    )


class ReuseParams(Params):
    question_position: Literal["after", "before"] = choice(
        "after", {"after": "问题放在图片之后", "before": "问题放在图片之前"}, label="新问题的位置"
    )
    img_h_px: int = fixed(sh.BOOK_SIDE, "图片高", "px", sym="H")
    img_w_px: int = fixed(sh.BOOK_SIDE, "图片宽", "px", sym="W")
    screenshot_mb: float = slider(
        sh.SCREENSHOT_MB, ge=sh.SCREENSHOT_MB, le=sh.SCREENSHOT_MB, step=0.1, label="压缩截图(固定)", unit="MB"
    )


REUSE_OUT = outputs(
    screenshot_mb=out("压缩截图", tile=False),
    ec_mib=mib("完整编码结果 EC", tile=False),
    visual_kv_mib=mib("视觉 token 的语言 KV", tile=False),
    visual_kv_reusable_on_new_question=out("换问题后视觉 KV 仍有效?", em=True, text={True: "是", False: "否"}),
)


@card(
    "vision-reuse-table",
    title="对象 / 本例大小(640×640) / 能否复用取决于",
    section="3.3",
    kind="table",
    params=ReuseParams,
    outputs=REUSE_OUT,
    lead="同一张 640×640 截图有三种形态:压缩文件、完整编码结果 EC、视觉 token 的语言 KV。越往后越大,能复用的条件也越多。",
)
def vision_reuse_table(p: ReuseParams) -> View:
    vo = vision(p.img_h_px, p.img_w_px)
    after = p.question_position == "after"
    o = {
        "screenshot_mb": p.screenshot_mb,
        "ec_mib": vo["ec_mib"],
        "visual_kv_mib": vo["visual_kv_mib"],
        "visual_kv_reusable_on_new_question": after,
    }
    kv_fate = (
        "可用(因果注意力:后面的问题不影响前面的 KV)" if after else "失效(问题在前,改问题就改了图片 token 看到的上文)"
    )
    return View(
        o,
        headline=f"{p.img_w_px}×{p.img_h_px} · [[n_v]] 个视觉 token · "
        + ("问题在图片之后" if after else "问题在图片之前"),
        ctx={"n_v": vo["vision_tokens"]},
        blocks=[Block("diagrams/vision-reuse-table.html", {"after": after, "C": COLORS})],
        tables=[
            Table(
                ["对象", "本例大小(640×640)", "能否复用取决于", "换一个新问题后"],
                [
                    ["压缩截图", sh.SCREENSHOT_TEXT.replace(" ≈", "(给定输入,≈") + ")", "同一文件内容", "可用"],
                    ["完整编码结果 EC", o["ec_mib"], "图片、预处理、编码器与输出格式一致", "可用"],
                    ["视觉 token 的语言 KV", o["visual_kv_mib"], "还依赖先前上下文、顺序、位置与模型", kv_fate],
                ],
                links={0: "fig-3-15", 1: "fig-3-15", 2: "fig-3-15"},
                formats=["", "ec_mib", "", ""],
            )
        ],
        notes=[
            Note("MB 是十进制(10⁶ B),MiB 是二进制(2²⁰ B):0.8 MB ≈ 0.763 MiB。表里每格都写单位,不混算。"),
            Note(
                "EC 只由图片和视觉编码器决定;语言 KV 是语言模型读到这些 token 时算出的,所以还和它前面有什么、排在第几位有关。"
            ),
        ],
    )


HANDOFF = {"image": ("原图", "E,P,D"), "ec": ("EC", "P,D"), "kv": ("KV", "D")}


class HandoffParams(Params):
    handoff: Literal["image", "ec", "kv"] = choice(
        "ec", {"image": "交接原图", "ec": "交接编码结果 EC", "kv": "交接语言 KV"}, label="交接什么"
    )
    screenshot_mb: float = slider(
        sh.SCREENSHOT_MB, ge=sh.SCREENSHOT_MB, le=sh.SCREENSHOT_MB, step=0.1, label="原图大小(固定)", unit="MB"
    )


HANDOFF_OUT = outputs(
    receiver_stages=out("接收方剩下的阶段", text=lambda s: s.replace(",", " → ")),
    handoff_mib=mib("交接的数据量(640×640[[given]])", em=True, sym="S"),
    ec_mib=mib("EC"),
    kv_mib=mib("视觉 KV"),
)


@card(
    "epd-handoff",
    title="原图 / EC / KV 三种交接位置",
    section="3.3",
    kind="diagram",
    params=HandoffParams,
    outputs=HANDOFF_OUT,
    lead="视觉问答是 E(视觉编码)→ P(语言 prefill)→ D(decode)。点一个交接点:交得越晚,传的数据越大,接收方剩下的活越少。",
)
def epd_handoff(p: HandoffParams) -> View:
    vo = vision(sh.BOOK_SIDE, sh.BOOK_SIDE)
    sizes = {"image": p.screenshot_mb * 1e6 / MIB, "ec": vo["ec_mib"], "kv": vo["visual_kv_mib"]}
    o = {
        "receiver_stages": HANDOFF[p.handoff][1],
        "handoff_mib": sizes[p.handoff],
        "ec_mib": vo["ec_mib"],
        "kv_mib": vo["visual_kv_mib"],
    }
    f = formatter(HANDOFF_OUT, o)
    pts = [
        {"id": k, "label": HANDOFF[k][0], "size": size}
        for k, size in (("image", "0.8 MB"), ("ec", f("ec_mib")), ("kv", f("kv_mib")))
    ]
    return View(
        o,
        headline="交接[[what]]:接收方还要做 [[receiver_stages]]",
        ctx={"what": HANDOFF[p.handoff][0], "given": ",原图 0.8 MB" if p.handoff == "image" else ""},
        blocks=[
            Block(
                "diagrams/epd-handoff.html",
                {"sel": p.handoff, "points": pts, "receiver": HANDOFF[p.handoff][1].split(","), "C": COLORS},
            )
        ],
        notes=[
            Note(
                "交接越晚,传过去的东西越大(0.8 MB < 7.8 MiB < 56 MiB),接收方剩下的工作越少。大小只对 640×640 这张图成立。"
            ),
            Note(
                "三种交接位置后面还会用到:第 8 章把各阶段放在同一张卡上执行,第 9 章比较阶段之间的交接,第 12 章把它们放到端、边、云的链路上。"
            ),
        ],
    )


class SpeechParams(Params):
    frames: int = slider(50, ge=1, le=500, step=1, label="要生成的声学帧", unit="帧", illustrative=True, sym="n_{fr}")
    frame_rate_hz: float = slider(
        25, ge=10, le=100, step=0.5, label="每秒音频的帧数", unit="Hz", illustrative=True, sym="f_{fr}"
    )
    slow_per_frame: int = fixed(1, "每帧慢速步", sym="n_{slow}")
    fast_state_forwards: int = fixed(1, "建立状态的快速前向", sym="n_{state}")
    fast_codebook_forwards: int = fixed(9, "预测码本的快速前向", sym="n_{cb}")


SPEECH_OUT = outputs(
    fast_forwards_per_frame=out("每帧快速前向(1 建状态 + 9 预测码本)", unit="次", em=True, sym="n_{fast}"),
    slow_forwards=out("慢速路径步数", unit="次"),
    fast_forwards=out("快速路径前向", unit="次"),
    total_forwards=out("前向总数", unit="次"),
    audio_s=out("得到的音频时长", sig=3, ill=True),
)


@card(
    "speech-loop",
    title="语音:帧内还有一层循环 · Fish Audio S2 Pro",
    section="3.3",
    kind="animation",
    params=SpeechParams,
    outputs=SPEECH_OUT,
    lead="慢速路径每步推进一帧;每帧里快速路径先做 1 次前向建立状态,再做 9 次预测补齐码本;codec 再把码本编号还原成波形。▶ 一帧一帧地放。",
)
def speech_loop(p: SpeechParams) -> View:
    per = p.fast_state_forwards + p.fast_codebook_forwards
    slow, fast = p.frames * p.slow_per_frame, p.frames * per
    o = {
        "fast_forwards_per_frame": per,
        "slow_forwards": slow,
        "fast_forwards": fast,
        "total_forwards": slow + fast,
        "audio_s": p.frames / p.frame_rate_hz,
    }
    shown_ = min(p.frames, 12)
    counter = [
        f"已生成 {k} 帧 · 慢速 {k * p.slow_per_frame} 次 · 快速 {k * per} 次 · 音频 {k / p.frame_rate_hz:.2f} s(示意)"
        for k in range(shown_ + 1)
    ]
    return View(
        o,
        headline="[[frames|n]] 帧 · 每帧 [[slow_per_frame|n]] 次慢速 + [[fast_forwards_per_frame|n]] 次快速前向",
        figures=[
            Figure(
                mm_charts.speech_figure(p.frames, p.fast_state_forwards, p.fast_codebook_forwards, counter),
                f"两层循环(画出前 {shown_} 帧)",
                "每帧 1 个慢速块,下面 [[fast_forwards_per_frame|n]] 个快速前向(1 个建状态 + [[fast_codebook_forwards|n]] 个预测码本);"
                "[[frames|n]] 帧共 [[total_forwards|n]] 次前向,约 [[audio_s|c]] 音频(帧率 [[frame_rate_hz]] 为示意)。",
                illustrative=True,
                animated=True,
            )
        ],
        notes=[
            Note(
                "书里只说每帧快速路径“1 次建立状态 + 9 次预测补齐码本”,共 10 次快速前向;没有给码本个数,这里也不把 10 说成“10 个码本”。"
            ),
            Note("帧数和每秒帧数是示意值(书中没有给帧率),所以音频时长也是示意。", "illustrative"),
            Note(
                "三种速度要分开说:语言 token/s 是慢速路径之前的文本理解;声学帧/s 取决于每帧 11 次前向有多快;每秒生成的音频时长 = 声学帧/s ÷ 帧率,大于 1 才跟得上实时播放。"
            ),
        ],
    )


class ImageGenParams(Params):
    img_h_px: int = slider(1024, ge=256, le=2048, step=DIT_SIDE_STEP, label="输出高 H", unit="px")
    img_w_px: int = slider(1024, ge=256, le=2048, step=DIT_SIDE_STEP, label="输出宽 W", unit="px")
    steps: int = slider(50, ge=1, le=100, step=1, label="去噪步数 n_s")
    cfg_branches: int = slider(2, ge=1, le=2, step=1, label="每步前向 n_b(真 CFG = 2)")
    text_tokens: int = slider(512, ge=0, le=1024, step=1, label="提示词 token T(假设)", unit="token")

    _snap = field_validator("img_h_px", "img_w_px")(sh.snap_to(DIT_SIDE_STEP))


IMAGE_OUT = outputs(
    latent_positions=out("latent 位置 n_v", unit="个", sym="n_v"),
    dit_forwards=out("DiT 前向次数 n_s·n_b", unit="次", sym="n_{fwd}"),
    flop_per_forward=out("单次前向 F_step", unit="×10¹³ FLOPs", exp=13, digits=4, sym="F_{step}"),
    total_pflop=out("总运算量", unit="×10¹⁵ FLOPs", digits=3, approx=True, em=True, sym="F_{total}"),
    attention_share_pct=out("联合注意力占单步", sig=3),
)


@card(
    "image-gen-loop",
    title="图像:反复更新同一组 latent · Qwen-Image-2512",
    section="3.3",
    kind="calculator",
    params=ImageGenParams,
    outputs=IMAGE_OUT,
    lead="1024² 的图是 4096 个 latent 位置。每个去噪步跑 n_b 次 DiT 前向,每次都处理同一组位置;总运算量 = n_s · n_b · F_step(n_v)。",
)
def image_gen_loop(p: ImageGenParams) -> View:
    o = mm.image_gen_outputs(sh.DIT, p.img_h_px, p.img_w_px, p.steps, p.cfg_branches, p.text_tokens)
    f = mm.dit_forward_flops(sh.DIT, o["latent_positions"], p.text_tokens)
    sides = list(range(256, 2049, 64))
    tot = [mm_charts.dit_total_flops(sh.DIT, s, p.steps, p.cfg_branches, p.text_tokens) for s in sides]
    lin = [o["total_pflop"] * 1e15 * mm.latent_positions(s, s, sh.DIT) / o["latent_positions"] for s in sides]
    fig1 = mm_charts.image_cost_figure(
        sides, tot, lin, math.sqrt(p.img_h_px * p.img_w_px), o["total_pflop"] * 1e15, f"当前 {p.img_w_px}×{p.img_h_px}"
    )
    marks = [round(p.steps * k / min(p.steps, 20)) for k in range(min(p.steps, 20) + 1)]
    captions = [
        f"第 {s}/{p.steps} 步 · 已做 {s * p.cfg_branches} 次前向 · 累计 "
        f"{mm.image_gen_flops(s, p.cfg_branches, o['flop_per_forward']) / 1e15:.3f}×10¹⁵ FLOPs"
        for s in marks
    ]
    return View(
        o,
        headline=f"{p.img_w_px}×{p.img_h_px} · [[steps|n]] 步 × [[cfg_branches|n]] 次前向 · 提示词 [[text_tokens|n]] token(假设)",
        figures=[
            Figure(
                fig1,
                "总运算量随分辨率增长",
                "[[steps|n]] 步 × [[cfg_branches|n]] 次前向时,当前 [[total_pflop]];"
                f"边长 2048 时 {tot[-1] / 1e15:.4g}×10¹⁵,高于按 n_v 线性外推的 {lin[-1] / 1e15:.4g}×10¹⁵。",
            ),
            Figure(
                mm_charts.denoise_figure(captions, [str(s) for s in marks]),
                "▶ 去噪:同一组 latent 被反复更新(画面示意)",
                "[[steps|n]] 步里每一步都更新同样 [[latent_positions|n]] 个位置,每步 [[cfg_branches|n]] 次前向,开销每步相同。",
                illustrative=True,
                animated=True,
            ),
        ],
        notes=[
            Note(
                "$F_{total} = n_s \\cdot n_b \\cdot F_{step}(n_v)$,$n_v = (H/16)(W/16)$(VAE 每边缩小 8 倍,再 2×2 成块)。",
                "formula",
            ),
            Note(
                "书中没有给提示词长度。这里假设 T = [[text_tokens|n]] 个 token(默认 512):取 512 正好得到书上的 7.830×10¹⁵;"
                "取 511 或 513 会变成 7.828 或 7.832。书的公式让两个 CFG 分支一样长,实际负向提示通常更短。"
            ),
            Note(
                f"F_step 由公开的 Qwen-Image MMDiT 配置(data/models/qwen-image-2512-dit.json)逐项算出:{sh.DIT.layers} 个双流块、宽 {sh.DIT.width}、"
                f"MLP {sh.DIT.mlp},图像与文本 token 做联合全注意力。当前一次前向:线性层 {f.linear / 1e12:,.2f} T + 注意力 {f.attention / 1e12:,.2f} T"
                f" + 调制 {f.modulation / 1e9:,.2f} G + 输入输出投影 {f.io / 1e9:,.2f} G + 时间步等 {f.small / 1e6:,.1f} M FLOPs。文本编码器和 VAE 另算。"
            ),
            Note(
                "步数加倍,运算量加倍;分辨率提高时位置数变多,每行的线性层和位置两两之间的注意力都涨,所以比线性更快。和文本 decode 不同,上下文不会越来越长:固定分辨率下每一步一样贵。"
            ),
        ],
    )


_MEASURED = "书中引用的两次语音实测"
JITTER_OUT = outputs(
    chunk_bytes=out("每块字节", unit="B", digits=0, sym="b_{chunk}"),
    first_arrival_ms=out("首块到达", digits=0, sym="t_1"),
    play_start_ms=out("开始播放", digits=0, ill=True, sym="t_{play}"),
    n_stalls=out("停顿次数", unit="次", ill=True, em=True),
    stall_total_ms=out("停顿总时长", digits=0, ill=True, em=True),
    last_play_end_ms=out("最后一块播完", digits=0, ill=True),
    mute_ms=out("设备静音", digits=0, ill=True, sym="t_{mute}"),
    mute_latency_ms=out("静音 − 决定打断", digits=0),
    best_mute_latency_ms=out("最快静音", digits=0),
    worst_mute_latency_ms=out("最慢静音", digits=0),
    backend_stop_ms=out("后端停止生成", digits=0, ill=True, sym="t_{stop}"),
    release_ms=out("释放缓冲与状态", digits=0, ill=True, sym="t_{rel}"),
    discarded_audio_ms=out("到达却没播放的音频", digits=0, ill=True),
    measured_first_chunk_ms_run1=out("实测一:停说 → 首块音频", unit="ms", approx=True),
    measured_first_chunk_ms_run2=out("实测二:停说 → 首块音频", unit="ms", approx=True),
    measured_chunk_gap_median_ms=out("实测:后续块间隔中位数", approx=True),
)


@card(
    "fig-3-18",
    title="抖动缓冲与打断",
    label="图 3-18 / 3-19",
    section="3.3",
    kind="animation",
    params=sh.JitterParams,
    aliases=("fig-3-19",),
    badges=(("练习 3-5", "ex-3-5"),),
    outputs=JITTER_OUT,
    lead="20 ms 一块的音频经过处理、发送、网络后到达设备。▶ 让时钟走起来:看到达、原定播放和实际播放,以及缓冲余量 B(t)。下面一张图演示打断时的三个不同时刻。",
)
def fig_3_18(p: sh.JitterParams) -> View:
    j = audio.jitter(p)
    o = {
        **j.outputs,
        "measured_first_chunk_ms_run1": given(400, "t_{实测1}", "ms", _MEASURED),
        "measured_first_chunk_ms_run2": given(370, "t_{实测2}", "ms", _MEASURED),
        "measured_chunk_gap_median_ms": given(94, "Δt_{中位}", "ms", _MEASURED),
    }
    late = " · 块 [[late]] 迟到(示意)" if j.late >= 0 else " · 无迟到块"
    return View(
        o,
        headline="每块 [[chunk_ms]] · 初始缓冲 [[initial_buffer_ms]](示意)" + late,
        ctx={"late": j.late},
        figures=[
            Figure(
                audio_charts.jitter_figure(j.run, p.chunk_ms, o["play_start_ms"], j.late),
                "图 3-18 · 到达、原定播放与实际播放;缓冲余量 B(t)",
                "首块 [[first_arrival_ms]] 到达,[[play_start_ms]] 开播;停顿 [[n_stalls|n]] 次共 [[stall_total_ms]],"
                "最后一块 [[last_play_end_ms]] 播完。",
                illustrative=True,
                animated=True,
            ),
            Figure(
                audio_charts.interrupt_figure(j.run, j.interrupt, p.poll_ms, o["discarded_audio_ms"]),
                "图 3-19 · 打断:静音、停止、释放是三个时刻",
                "[[interrupt_ms]] 决定打断;后端 [[backend_stop_ms]] 停止生成;设备在下一次检查指令时([[mute_ms]])静音;"
                "[[release_ms]] 释放缓冲与状态;已到达却没播放的音频 [[discarded_audio_ms]]。",
                illustrative=True,
            ),
        ],
        notes=[
            Note(
                "$B_{audio}(t) = A(t) - P(t)$:A 是已到达、可以按顺序播放的音频时长,P 是已播放时长,播放时每秒涨 1 秒。块 k 在 $(k+1)\\cdot$块长 + 处理 + 发送 + 网络 时到达。",
                "formula",
            ),
            Note(
                "“初始缓冲”按“首块到达后再等这么久才开播”理解(常见的抖动缓冲做法)。若理解成“攒够这么多音频才开播”,40 ms 会在 58 ms 开播,60 ms 会在 78 ms 开播。"
            ),
            Note(
                "示意部分:哪一块迟到、迟到多久、初始缓冲默认值、决定打断的时刻、释放延迟。书中只给出 20 ms / 960 B / 12 / 1 / 5 / 38 ms 和 5 ms、10 ms。"
                "默认的迟到模式下,40 ms 缓冲会停一次 10 ms,60 ms 不停。",
                "illustrative",
            ),
            Note(
                "书中没说由谁决定打断。这里假设由一个控制端在该时刻决定,设备和生成端都在 5 ms 控制延迟后收到;设备每 10 ms 才检查一次指令,所以静音落在决定后 5–15 ms。后端停止时间按“决定 + 控制延迟”计。"
            ),
            Note(
                "两次实测语音会话(书中数据):停说到首块音频约 400 ms 和 370 ms,后续块到达间隔中位数约 94 ms,远大于 20 ms 的块长。"
            ),
        ],
    )


class DrainParams(Params):
    arrival_rate_s_per_s: float = slider(0.9, ge=0.5, le=1.2, step=0.05, label="每秒到达的可播放音频 r", unit="s/s")
    initial_buffer_s: float = slider(0.3, ge=0, le=2, step=0.05, label="开播时已缓存 B₀", unit="s", sym="B_0")


DRAIN_OUT = outputs(
    drain_s=out("耗尽时刻 B₀/(1 − r)(s)", sig=3, em=True, sym="t_{drain}", text={None: "不会耗尽(r ≥ 1)"}),
    deficit_s_per_s=out("每秒亏空 1 − r", unit="s/s", sig=3, sym="δ"),
)


@card(
    "buffer-drain",
    title="到达跟不上播放,缓冲只是延后中断",
    section="3.3",
    kind="chart",
    params=DrainParams,
    outputs=DRAIN_OUT,
    badges=(("练习 3-5", "ex-3-5"),),
    lead="每秒只到 r 秒可播放音频而播放每秒消耗 1 秒时,余量按 (1 − r) 的斜率下降。把 B₀ 调大,只是把断开的时刻往后推。",
)
def buffer_drain(p: DrainParams) -> View:
    drain = audio.drain_time(p.initial_buffer_s, p.arrival_rate_s_per_s)
    o = {"drain_s": drain if math.isfinite(drain) else None, "deficit_s_per_s": 1 - p.arrival_rate_s_per_s}
    summary = (
        "B(t) 从 [[initial_buffer_s]] 以每秒 [[deficit_s_per_s|n,c]] s 下降,[[drain_s|c]] 时降到 0。"
        if math.isfinite(drain)
        else "r = [[arrival_rate_s_per_s|n]] ≥ 1,余量不会下降到 0。"
    )
    return View(
        o,
        headline="r = [[arrival_rate_s_per_s]] · B₀ = [[initial_buffer_s]]",
        figures=[
            Figure(
                audio_charts.drain_figure(p.initial_buffer_s, p.arrival_rate_s_per_s, drain),
                "缓冲余量随时间下降",
                summary,
            )
        ],
        notes=[
            Note("$B(t) = B_0 - (1-r)\\,t$,$t_{drain} = B_0/(1-r)$(r < 1)。", "formula"),
            Note(
                "有限的缓冲能吸收到达时间的抖动,代价是晚一点开播;但平均到达速度低于实时的时候,缓冲再大也只是把中断推后。"
            ),
        ],
    )


class AoiParams(Params):
    event_ms: float = slider(
        300, ge=10, le=5000, step=10, label="弹窗持续时间", unit="ms", illustrative=True, sym="T_{pop}"
    )
    interval_ms: float = slider(
        500, ge=10, le=5000, step=10, label="观测间隔", unit="ms", illustrative=True, sym="T_{obs}"
    )
    frames_per_s_kept: float = slider(
        2, ge=0.1, le=30, step=0.1, label="每秒交给模型的关键帧", unit="帧/s", illustrative=True, sym="f_{key}"
    )


AOI_OUT = outputs(
    p_catch=out("随机相位采样看到弹窗的概率", unit="", sig=3, ill=True, em=True, sym="p"),
    observations_per_s=out("每秒观测次数", unit="次/s", sig=3, ill=True),
    frames_kept_per_min=out("每分钟进上下文的关键帧", unit="帧", sig=3, ill=True),
)


@card(
    "aoi-observe",
    title="持续观察也要筛选",
    section="3.3",
    kind="diagram",
    params=AoiParams,
    outputs=AOI_OUT,
    lead="只在动作结束后截图的 Agent,会错过中途出现又消失的弹窗。AOI 把观测和动作分开:一直采集,再挑出交给模型的记录。",
)
def aoi_observe(p: AoiParams) -> View:
    o = {
        "p_catch": tmin(1, p.event_ms / p.interval_ms),
        "observations_per_s": 1000 / p.interval_ms,
        "frames_kept_per_min": 60 * p.frames_per_s_kept,
    }
    geo = mm_charts.aoi_timeline(p.event_ms / 1000, p.interval_ms / 1000, [(0.0, 0.8), (1.2, 2.0), (2.8, 3.6)], 2.35)
    return View(
        o,
        headline="时间线全部为示意",
        blocks=[
            Block(
                "diagrams/aoi-observe.html",
                {**geo, "kept_per_min": formatter(AOI_OUT, o)("frames_kept_per_min", "n,d0"), "C": COLORS},
            )
        ],
        notes=[
            Note(
                "全部为示意:书中没有给数字,也没有给公式。这里用“弹窗时长 ÷ 观测间隔”(不超过 1)粗略表示随机相位下看到弹窗的机会。",
                "illustrative",
            ),
            Note(
                "观测越频繁,越能抓住短暂事件;但每秒交给模型的关键帧越多,上下文越挤,效果反而会变差。所以 AOI 的关键是先一直看,再筛选。"
            ),
        ],
    )


PIPE_TARGETS = {"ttft": "尽快开始(首个输出)", "playback": "连续播放", "completion": "尽早完成"}


class PipelineParams(Params):
    target: Literal["ttft", "playback", "completion"] = choice("ttft", PIPE_TARGETS, label="完成目标")


@card(
    "multimodal-pipeline",
    title="编码 → 理解 → 声学生成 → 缓冲播放",
    section="3.3",
    kind="diagram",
    params=PipelineParams,
    outputs=outputs(n_stages=out("阶段数", unit="段"), target=out("当前目标", text=PIPE_TARGETS)),
    lead="语音助手的一次回答要走四段。点上方的目标:“尽快开始”“连续播放”“尽早完成”看的是不同阶段的边界。",
)
def multimodal_pipeline(p: PipelineParams) -> View:
    o = {"n_stages": given(4, "n", "段", "书中:编码、理解、声学生成、缓冲播放四段"), "target": p.target}
    return View(
        o,
        headline="目标:[[target]]",
        blocks=[Block("diagrams/multimodal-pipeline.html", {"targets": PIPE_TARGETS, "sel": p.target, "C": COLORS})],
        notes=[
            Note(
                "RAW 照片精修只关心最终图何时完成,而且必须保留原始像素:视觉编码结果 EC 是为理解而压缩的表示,不能代替原图。"
            ),
        ],
    )
