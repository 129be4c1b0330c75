"""练习 3-5〔延伸〕· 图像分辨率与音频缓冲 (end of chapter 3; the cards it builds on are in 3.3)."""

from __future__ import annotations

from ...calculators import audio
from ...cards import Link, Note, Params, Question, View, card, fixed
from ...outputs import out
from ..shared.ch3_train import BOOK_SIDE, JitterParams, answers, given_params, mib, vision

FIG_3_18 = "图 3-18 卡片的默认设置(示意迟到模式)"


class Ex35Params(Params):
    img_side_px: int = fixed(1280, "新的图片边长", "px", sym="H")
    arrival_rate_s_per_s: float = fixed(0.9, "每秒到达的可播放音频", "s/s", sym="r")
    initial_buffer_s: float = fixed(0.3, "开播时已缓存", "s", sym="B_0")


EX35_OUT = answers(
    vision_tokens=out("视觉 token", unit="token", sym="n_v"),
    ec_mib=mib("EC", sym="EC"),
    visual_kv_mib=mib("视觉 KV", sym="KV_v"),
    vision_encode_tflop=out("视觉编码矩阵运算", unit="TFLOPs", digits=3, approx=True, sym="F_{enc}"),
    play_start_40_ms=out("40 ms 缓冲开播", digits=0, sym="t_{play}"),
    play_start_60_ms=out("60 ms 缓冲开播", digits=0, sym="t_{play}"),
    stall_40_ms=out("40 ms 缓冲的停顿", digits=0),
    stall_60_ms=out("60 ms 缓冲的停顿", digits=0),
    drain_s=out("耗尽时刻", sig=3, sym="t_{drain}"),
    vision_tokens_640=out("640×640 的视觉 token", unit="token"),
    ec_640_mib=mib("640×640 的 EC"),
    visual_kv_640_mib=mib("640×640 的视觉 KV"),
    vision_encode_640_tflop=out("640×640 的视觉编码", unit="TFLOPs", digits=3, approx=True),
    ec_bytes_per_token=out("每个视觉 token 的 EC", unit="B", sym="EC_{tok}"),
    first_arrival_ms=out("首块到达", digits=0, sym="t_1"),
    late_arrival_ms=out("迟到块到达", digits=0),
    late_planned_40_ms=out("迟到块原定播放(40 ms)", digits=0),
    late_planned_60_ms=out("迟到块原定播放(60 ms)", digits=0),
)


@card(
    "ex-3-5",
    title="图像分辨率与音频缓冲",
    label="练习 3-5〔延伸〕",
    section="3.end",
    kind="exercise",
    params=Ex35Params,
    outputs=EX35_OUT,
    lead="四个小问:图片边长翻倍后视觉数据变多少;40 ms 和 60 ms 初始缓冲谁先开播、会不会停;到达慢于实时时缓冲多久耗尽;有限缓冲能解决什么。",
)
def ex_3_5(p: Ex35Params) -> View:
    side, big, small = p.img_side_px, vision(p.img_side_px, p.img_side_px), vision(BOOK_SIDE, BOOK_SIDE)
    j40, j60 = (audio.jitter(given_params(JitterParams, FIG_3_18, initial_buffer_ms=b)) for b in (40, 60))
    jp = given_params(JitterParams, FIG_3_18)
    late = j40.late
    late_arr = audio.arrival(late, jp.chunk_ms, jp.proc_ms, jp.send_ms, jp.late_net_ms)
    o = {
        **{
            k: big[k] for k in ("vision_tokens", "ec_mib", "visual_kv_mib", "vision_encode_tflop", "ec_bytes_per_token")
        },
        "play_start_40_ms": j40.outputs["play_start_ms"],
        "play_start_60_ms": j60.outputs["play_start_ms"],
        "stall_40_ms": j40.outputs["stall_total_ms"],
        "stall_60_ms": j60.outputs["stall_total_ms"],
        "drain_s": audio.drain_time(p.initial_buffer_s, p.arrival_rate_s_per_s),
        "vision_tokens_640": small["vision_tokens"],
        "ec_640_mib": small["ec_mib"],
        "visual_kv_640_mib": small["visual_kv_mib"],
        "vision_encode_640_tflop": small["vision_encode_tflop"],
        "first_arrival_ms": j40.outputs["first_arrival_ms"],
        "late_arrival_ms": late_arr,
        "late_planned_40_ms": j40.outputs["play_start_ms"] + late * jp.chunk_ms,
        "late_planned_60_ms": j60.outputs["play_start_ms"] + late * jp.chunk_ms,
    }
    ctx = {
        "ratio": big["vision_tokens"] / small["vision_tokens"],
        "enc_ratio": round(big["vision_encode_tflop"] / small["vision_encode_tflop"], 1),
        "late": late,
    }
    v = View(
        o,
        ctx=ctx,
        headline="(a) [[img_side_px|n]]×[[img_side_px|n]] 的 Qwen3-VL-4B 输入 · (b) 40 / 60 ms 初始缓冲 · "
        "(c) r = [[arrival_rate_s_per_s|n]],B₀ = [[initial_buffer_s]]",
    )
    v.questions = [
        Question(
            key="vision_tokens",
            prompt=f"(a) 输入从 640×640 改成 {side}×{side},视觉 token 有多少个?",
            unit="token",
            hint="16×16 的块,2×2 个块合成一个 token。",
            solution=["是 640×640 时 [[vision_tokens_640|n]] 个的 [[ratio]] 倍:边长翻倍,面积变 4 倍。"],
        ),
        Question(
            key="ec_mib",
            prompt="(a) 完整编码结果 EC 有多大?",
            unit="MiB",
            hint="每个视觉 token 是 4 × 2560 个 BF16 值。",
            units={"KiB": 1 / 1024},
            solution=[
                "每个视觉 token 的 EC 是 [[ec_bytes_per_token]],乘以视觉 token 数(640×640 时 EC 为 [[ec_640_mib]])。"
            ],
        ),
        Question(
            key="visual_kv_mib",
            prompt="(a) 这些视觉 token 的语言 KV 有多大?",
            unit="MiB",
            hint="语言 KV 每 token 144 KiB。",
            units={"GiB": 1024},
            solution=["视觉 token 数 × 每 token 的语言 KV(640×640 时为 [[visual_kv_640_mib]])。"],
        ),
        Question(
            key="vision_encode_tflop",
            prompt="(a 延伸) 视觉编码的矩阵运算约多少 TFLOPs?为什么不是 4 倍?",
            unit="TFLOPs",
            hint="ViT 块里块与块之间做全注意力,注意力项随块数平方增长。",
            solution=[
                "640×640 时约 [[vision_encode_640_tflop]];比值 [[enc_ratio]]×:线性层和合并器随块数 ×4,注意力随块数平方 ×16。",
                "用的是公开的 Qwen3-VL-4B 视觉配置(见图 3-15 卡片),书中只给了 640×640 的 1.310。",
            ],
        ),
        Question(
            key="play_start_40_ms",
            prompt="(b) 初始缓冲 40 ms 时,何时开始播放?",
            unit="ms",
            hint="首块在 20 + 12 + 1 + 5 ms 到达。",
            solution=["首块 [[first_arrival_ms]] 到达,再等初始缓冲才开播。"],
        ),
        Question(
            key="play_start_60_ms",
            prompt="(b) 初始缓冲 60 ms 时,何时开始播放?",
            unit="ms",
            solution=["同一首块到达时刻加上 60 ms 缓冲:比 40 ms 缓冲晚 20 ms。"],
        ),
        Question(
            key="stall_40_ms",
            prompt="(b) 40 ms 缓冲时停顿多久?(按图 3-18 卡片的示意迟到模式)",
            unit="ms",
            hint=f"示意:块 {late} 的网络延迟是 {JitterParams().late_net_ms:g} ms,而不是通常的 {JitterParams().net_ms:g} ms。",
            solution=[
                "块 [[late]] 在 [[late_arrival_ms]] 才到,原定 [[late_planned_40_ms]] 播放,前一块此时已播完,只能停下等它。这个答案依赖卡片自设的迟到模式(示意)。"
            ],
        ),
        Question(
            key="stall_60_ms",
            prompt="(b) 60 ms 缓冲时停顿多久?(同样的示意迟到模式)",
            unit="ms",
            solution=[
                "块 [[late]] 原定 [[late_planned_60_ms]] 播放,它 [[late_arrival_ms]] 已到:不停顿。多等 20 ms 换来了不停顿(示意)。"
            ],
        ),
        Question(
            key="drain_s",
            prompt=f"(c) 每秒只收到 {p.arrival_rate_s_per_s:g} 秒可播放音频、开播时已缓存 {p.initial_buffer_s:g} 秒,多久耗尽?",
            unit="s",
            units={"ms": 0.001},
            solution=["$B(t) = B_0 - (1 - r)\\,t$ 降到 0 时,$t = B_0/(1-r)$。"],
        ),
        Question(
            key="finite_buffer",
            prompt="(d) 有限的缓冲能解决什么问题,不能解决什么?",
            kind="open",
            answer_text="能吸收到达时间的抖动(个别块晚到),代价是开播更晚;不能弥补持续低于实时的平均到达速度,那时缓冲只会线性减少,再大也只是把中断往后推。",
        ),
    ]
    v.links = [
        Link("(a) 图 3-15 · 1280×1280", "/cards/fig-3-15?img_h_px=1280&img_w_px=1280"),
        Link("(b) 图 3-18 · 初始缓冲 40 ms", "/cards/fig-3-18?initial_buffer_ms=40"),
        Link("(b) 图 3-18 · 初始缓冲 60 ms", "/cards/fig-3-18?initial_buffer_ms=60"),
        Link("(c) 缓冲耗尽", "/cards/buffer-drain?arrival_rate_s_per_s=0.9&initial_buffer_s=0.3"),
    ]
    v.notes = [
        Note(
            f"(b) 的停顿依赖图 3-18 卡片自设的迟到模式(块 {late} 网络延迟 {JitterParams().late_net_ms:g} ms),不是书中给的数。",
            "illustrative",
        )
    ]
    return v
