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
from ...words import words_for
from ..shared import ch3_train as sh
from ..shared.ch3_train import VISION, formatter, mib, quoter, vision

W = words_for(__name__)

SIDE_STEP, DIT_SIDE_STEP = VISION.patch * VISION.merge, sh.DIT.pixels_per_position  # 32 px, 16 px


class VisionParams(Params):
    img_h_px: int = slider(
        sh.BOOK_SIDE, ge=32, le=2048, step=SIDE_STEP, label=W["visionparams.img_h_px.label"], unit="px"
    )
    img_w_px: int = slider(
        sh.BOOK_SIDE, ge=32, le=2048, step=SIDE_STEP, label=W["visionparams.img_w_px.label"], unit="px"
    )
    n_images: int = slider(
        1,
        ge=1,
        le=8,
        step=1,
        label=W["visionparams.n_images.label"],
        unit=W["visionparams.n_images.unit"],
        sym="n_{img}",
    )
    text_tokens: int = slider(
        0, ge=0, le=4096, step=1, label=W["visionparams.text_tokens.label"], unit="token", sym="T"
    )
    patch_px: int = fixed(VISION.patch, W["visionparams.patch_px.fixed"], "px")
    merge: int = fixed(VISION.merge, W["visionparams.merge.fixed"])
    feature_levels: int = fixed(VISION.feature_levels, W["visionparams.feature_levels.fixed"], sym="n_{lvl}")
    feature_dim: int = fixed(VISION.out_hidden, W["visionparams.feature_dim.fixed"], sym="d")
    feature_bytes: int = fixed(sh.VISION_BYTES, W["visionparams.feature_bytes.fixed"], "B", sym="b")
    kv_kib_per_token: int = fixed(sh.KV_PER_TOKEN // KIB, W["visionparams.kv_kib_per_token.fixed"], "KiB", sym="kv")

    _snap = field_validator("img_h_px", "img_w_px")(sh.snap_to(SIDE_STEP))


VISION_OUT = outputs(
    patches_per_image=out(W["vision_out.patches_per_image"], unit=W["vision_out.unit"], sym="n_p"),
    vision_tokens=out(W["vision_out.vision_tokens"], unit="token", em=True, sym="n_v"),
    ec_bytes_per_token=out(W["vision_out.ec_bytes_per_token"], unit="B", sym="EC_{tok}"),
    ec_mib=mib(W["vision_out.ec_mib"], em=True, sym="EC"),
    visual_kv_mib=mib(W["vision_out.visual_kv_mib"], em=True, sym="KV_v"),
    input_tokens=out(W["vision_out.input_tokens"], unit="token"),
    input_kv_mib=mib(W["vision_out.input_kv_mib"], sym="KV_{in}"),
    kv_to_ec_ratio=out(W["vision_out.kv_to_ec_ratio"], unit="×", sig=2),
    vision_encode_tflop=out(W["vision_out.vision_encode_tflop"], unit="TFLOPs", digits=3, approx=True, sym="F_{enc}"),
)
_TOWER = {s: mm.vision_tower_flops(VISION, s, s).total for s in (640, 1280)}


@card(
    "fig-3-15",
    title=W["fig_3_15.title"],
    label=W["fig_3_15.label"],
    section="3.3",
    kind="calculator",
    params=VisionParams,
    aliases=("fig-3-16",),
    badges=((W["fig_3_15.badges"], "ex-3-5"),),
    outputs=VISION_OUT,
    lead=W["fig_3_15.lead"],
)
def fig_3_15(p: VisionParams) -> View:
    facts = mm.VisionFacts(
        p.patch_px, p.merge, p.feature_levels, p.feature_dim, p.feature_bytes, p.kv_kib_per_token * KIB
    )
    o = vision(p.img_h_px, p.img_w_px, p.n_images, p.text_tokens, facts)
    f, fl, txt = formatter(VISION_OUT, o), mm.vision_tower_flops(VISION, p.img_h_px, p.img_w_px), bool(p.text_tokens)
    book = p.img_h_px == sh.BOOK_SIDE == p.img_w_px and p.n_images == 1 and not txt
    bars = [(W["fig_3_15"], sh.SCREENSHOT_MB * 1e6 / MIB, "idle", sh.SCREENSHOT_TEXT)] * book + [
        (W["vision_out.ec_mib"], o["ec_mib"], "prefill", f("ec_mib")),
        (W["vision_out.visual_kv_mib"], o["visual_kv_mib"], "state", f("visual_kv_mib")),
        *[(W["vision_out.input_kv_mib"], o["input_kv_mib"], "state", f("input_kv_mib"))] * txt,
    ]
    return View(
        o,
        headline=W.f(
            "fig_3_15.headline_joined",
            a=W.f("fig_3_15.headline", img_w_px=p.img_w_px, img_h_px=p.img_h_px),
            b=W["fig_3_15.headline_2"] if txt else "",
        ),
        ctx={"ec_kib": o["ec_bytes_per_token"] / KIB},
        figures=[
            Figure(
                mm_charts.sizes_figure(bars),
                W["fig_3_15.figures"],
                W.f(
                    "fig_3_15.figures_joined",
                    a=W["fig_3_15.figures_2"],
                    b=W["fig_3_15.figures_3"] if txt else "",
                    c=W["fig_3_15.figures_4"],
                ),
                draws=frozenset({"ec_mib", "input_kv_mib", "visual_kv_mib"}),
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
                    "n_v": quoter(VISION_OUT, o)("vision_tokens", "n"),
                    "n_p": quoter(VISION_OUT, o)("patches_per_image", "n"),
                    "patch": VISION.patch,
                    "merge": VISION.merge,
                    "C": COLORS,
                },
            )
        ],
        notes=[
            Note(
                W["fig_3_15.notes"],
                "formula",
            ),
            Note(W.f("fig_3_15.notes_2", v=_TOWER[1280] / 1e12, v2=_TOWER[1280] / _TOWER[640])),
            Note(
                W.f(
                    "fig_3_15.notes_3",
                    depth=VISION.depth,
                    hidden=VISION.hidden,
                    mlp=VISION.mlp,
                    mergers=VISION.mergers,
                    v=fl.embed / 1e9,
                    v2=fl.blocks / 1e9,
                    v3=fl.mergers / 1e9,
                )
            ),
            Note(W["fig_3_15.notes_4"]),
        ],
    )


class ReuseParams(Params):
    question_position: Literal["after", "before"] = choice(
        "after",
        {"after": W["reuseparams.question_position.after"], "before": W["reuseparams.question_position.before"]},
        label=W["reuseparams.question_position.label"],
    )
    img_h_px: int = fixed(sh.BOOK_SIDE, W["reuseparams.img_h_px.fixed"], "px", sym="H")
    img_w_px: int = fixed(sh.BOOK_SIDE, W["reuseparams.img_w_px.fixed"], "px", sym="W")
    screenshot_mb: float = slider(
        sh.SCREENSHOT_MB,
        ge=sh.SCREENSHOT_MB,
        le=sh.SCREENSHOT_MB,
        step=0.1,
        label=W["reuseparams.screenshot_mb.label"],
        unit="MB",
    )


REUSE_OUT = outputs(
    screenshot_mb=out(W["reuse_out.screenshot_mb"], tile=False),
    ec_mib=mib(W["vision_out.ec_mib"], tile=False),
    visual_kv_mib=mib(W["vision_out.visual_kv_mib"], tile=False),
    visual_kv_reusable_on_new_question=out(
        W["reuse_out.visual_kv_reusable_on_new_question"],
        em=True,
        text={True: W["reuse_out.t"], False: W["reuse_out.t_2"]},
    ),
)


@card(
    "vision-reuse-table",
    title=W["vision_reuse_table.title"],
    section="3.3",
    kind="table",
    params=ReuseParams,
    outputs=REUSE_OUT,
    lead=W["vision_reuse_table.lead"],
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
    kv_fate = W["vision_reuse_table"] if after else W["vision_reuse_table_2"]
    return View(
        o,
        headline=W.f("vision_reuse_table.headline", img_w_px=p.img_w_px, img_h_px=p.img_h_px)
        + (W["vision_reuse_table.headline_2"] if after else W["vision_reuse_table.headline_3"]),
        ctx={"n_v": vo["vision_tokens"]},
        blocks=[Block("diagrams/vision-reuse-table.html", {"after": after, "C": COLORS})],
        tables=[
            Table(
                [
                    W["vision_reuse_table.tables"],
                    W["vision_reuse_table.tables_2"],
                    W["vision_reuse_table.tables_3"],
                    W["vision_reuse_table.tables_4"],
                ],
                [
                    [
                        W["reuse_out.screenshot_mb"],
                        W.f(
                            "vision_reuse_table.screenshot",
                            mb=sh.SCREENSHOT_TEXT.split(" ≈ ")[0],
                            given=W["vision_reuse_table.tables_5"],
                            mib=sh.SCREENSHOT_TEXT.split(" ≈ ")[1],
                        ),
                        W["vision_reuse_table.tables_6"],
                        W["vision_reuse_table.tables_7"],
                    ],
                    [
                        W["vision_out.ec_mib"],
                        o["ec_mib"],
                        W["vision_reuse_table.tables_8"],
                        W["vision_reuse_table.tables_7"],
                    ],
                    [W["vision_out.visual_kv_mib"], o["visual_kv_mib"], W["vision_reuse_table.tables_9"], kv_fate],
                ],
                links={0: "fig-3-15", 1: "fig-3-15", 2: "fig-3-15"},
                formats=["", "ec_mib", "", ""],
            )
        ],
        notes=[
            Note(W["vision_reuse_table.notes"]),
            Note(W["vision_reuse_table.notes_2"]),
        ],
    )


HANDOFF = {"image": (W["handoff.image"], "E,P,D"), "ec": ("EC", "P,D"), "kv": ("KV", "D")}


class HandoffParams(Params):
    handoff: Literal["image", "ec", "kv"] = choice(
        "ec",
        {
            "image": W["handoffparams.handoff.image"],
            "ec": W["handoffparams.handoff.ec"],
            "kv": W["handoffparams.handoff.kv"],
        },
        label=W["handoffparams.handoff.label"],
    )
    screenshot_mb: float = slider(
        sh.SCREENSHOT_MB,
        ge=sh.SCREENSHOT_MB,
        le=sh.SCREENSHOT_MB,
        step=0.1,
        label=W["handoffparams.screenshot_mb.label"],
        unit="MB",
    )


HANDOFF_OUT = outputs(
    receiver_stages=out(W["handoff_out.receiver_stages"], text=lambda s: s.replace(",", " → ")),
    handoff_mib=mib(W["handoff_out.handoff_mib"], em=True, sym="S"),
    ec_mib=mib("EC"),
    kv_mib=mib(W["handoff_out.kv_mib"]),
)


@card(
    "epd-handoff",
    title=W["epd_handoff.title"],
    section="3.3",
    kind="diagram",
    params=HandoffParams,
    outputs=HANDOFF_OUT,
    lead=W["epd_handoff.lead"],
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
    f = quoter(HANDOFF_OUT, o)
    pts = [
        {"id": k, "label": HANDOFF[k][0], "size": size}
        for k, size in (("image", "0.8 MB"), ("ec", f("ec_mib")), ("kv", f("kv_mib")))
    ]
    return View(
        o,
        headline=W["epd_handoff.headline"],
        ctx={"what": HANDOFF[p.handoff][0], "given": W["epd_handoff.given"] if p.handoff == "image" else ""},
        blocks=[
            Block(
                "diagrams/epd-handoff.html",
                {"sel": p.handoff, "points": pts, "receiver": HANDOFF[p.handoff][1].split(","), "C": COLORS},
            )
        ],
        notes=[
            Note(W["epd_handoff.notes"]),
            Note(W["epd_handoff.notes_2"]),
        ],
    )


class SpeechParams(Params):
    frames: int = slider(
        50,
        ge=1,
        le=500,
        step=1,
        label=W["speechparams.frames.label"],
        unit=W["speechparams.frames.unit"],
        illustrative=True,
        sym="n_{fr}",
    )
    frame_rate_hz: float = slider(
        25,
        ge=10,
        le=100,
        step=0.5,
        label=W["speechparams.frame_rate_hz.label"],
        unit="Hz",
        illustrative=True,
        sym="f_{fr}",
    )
    slow_per_frame: int = fixed(1, W["speechparams.slow_per_frame.fixed"], sym="n_{slow}")
    fast_state_forwards: int = fixed(1, W["speechparams.fast_state_forwards.fixed"], sym="n_{state}")
    fast_codebook_forwards: int = fixed(9, W["speechparams.fast_codebook_forwards.fixed"], sym="n_{cb}")


SPEECH_OUT = outputs(
    fast_forwards_per_frame=out(
        W["speech_out.fast_forwards_per_frame"], unit=W["speech_out.unit"], em=True, sym="n_{fast}"
    ),
    slow_forwards=out(W["speech_out.slow_forwards"], unit=W["speech_out.unit"]),
    fast_forwards=out(W["speech_out.fast_forwards"], unit=W["speech_out.unit"]),
    total_forwards=out(W["speech_out.total_forwards"], unit=W["speech_out.unit"]),
    audio_s=out(W["speech_out.audio_s"], sig=3, ill=True),
)


@card(
    "speech-loop",
    title=W["speech_loop.title"],
    section="3.3",
    kind="animation",
    params=SpeechParams,
    outputs=SPEECH_OUT,
    lead=W["speech_loop.lead"],
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
        W.f("speech_loop", k=k, v=k * p.slow_per_frame, v2=k * per, v3=k / p.frame_rate_hz) for k in range(shown_ + 1)
    ]
    return View(
        o,
        headline=W["speech_loop.headline"],
        figures=[
            Figure(
                mm_charts.speech_figure(p.frames, p.fast_state_forwards, p.fast_codebook_forwards, counter),
                W.f("speech_loop.figures", shown=shown_),
                W["speech_loop.figures_2"],
                illustrative=True,
                animated=True,
                draws=frozenset(
                    {"audio_s", "fast_forwards", "fast_forwards_per_frame", "slow_forwards", "total_forwards"}
                ),
            )
        ],
        notes=[
            Note(W["speech_loop.notes"]),
            Note(W["speech_loop.notes_2"], "illustrative"),
            Note(W["speech_loop.notes_3"]),
        ],
    )


class ImageGenParams(Params):
    img_h_px: int = slider(
        1024, ge=256, le=2048, step=DIT_SIDE_STEP, label=W["imagegenparams.img_h_px.label"], unit="px"
    )
    img_w_px: int = slider(
        1024, ge=256, le=2048, step=DIT_SIDE_STEP, label=W["imagegenparams.img_w_px.label"], unit="px"
    )
    steps: int = slider(50, ge=1, le=100, step=1, label=W["imagegenparams.steps.label"])
    cfg_branches: int = slider(2, ge=1, le=2, step=1, label=W["imagegenparams.cfg_branches.label"])
    text_tokens: int = slider(512, ge=0, le=1024, step=1, label=W["imagegenparams.text_tokens.label"], unit="token")

    _snap = field_validator("img_h_px", "img_w_px")(sh.snap_to(DIT_SIDE_STEP))


IMAGE_OUT = outputs(
    latent_positions=out(W["image_out.latent_positions"], unit=W["image_out.unit"], sym="n_v"),
    dit_forwards=out(W["image_out.dit_forwards"], unit=W["speech_out.unit"], sym="n_{fwd}"),
    flop_per_forward=out(W["image_out.flop_per_forward"], unit="×10¹³ FLOPs", exp=13, digits=4, sym="F_{step}"),
    total_pflop=out(W["image_out.total_pflop"], unit="×10¹⁵ FLOPs", digits=3, approx=True, em=True, sym="F_{total}"),
    attention_share_pct=out(W["image_out.attention_share_pct"], sig=3),
)


@card(
    "image-gen-loop",
    title=W["image_gen_loop.title"],
    section="3.3",
    kind="calculator",
    params=ImageGenParams,
    outputs=IMAGE_OUT,
    lead=W["image_gen_loop.lead"],
)
def image_gen_loop(p: ImageGenParams) -> View:
    o = mm.image_gen_outputs(sh.DIT, p.img_h_px, p.img_w_px, p.steps, p.cfg_branches, p.text_tokens)
    f = mm.dit_forward_flops(sh.DIT, o["latent_positions"], p.text_tokens)
    sides = list(range(256, 2049, 64))
    tot = [mm_charts.dit_total_flops(sh.DIT, s, p.steps, p.cfg_branches, p.text_tokens) for s in sides]
    lin = [o["total_pflop"] * 1e15 * mm.latent_positions(s, s, sh.DIT) / o["latent_positions"] for s in sides]
    fig1 = mm_charts.image_cost_figure(
        sides,
        tot,
        lin,
        math.sqrt(p.img_h_px * p.img_w_px),
        o["total_pflop"] * 1e15,
        W.f("image_gen_loop.image_cost_figure", img_w_px=p.img_w_px, img_h_px=p.img_h_px),
    )
    marks = [round(p.steps * k / min(p.steps, 20)) for k in range(min(p.steps, 20) + 1)]
    captions = [
        W.f(
            "image_gen_loop",
            s=s,
            steps=p.steps,
            v=s * p.cfg_branches,
            v2=mm.image_gen_flops(s, p.cfg_branches, o["flop_per_forward"]) / 1e15,
        )
        for s in marks
    ]
    return View(
        o,
        headline=W.f("image_gen_loop.headline", img_w_px=p.img_w_px, img_h_px=p.img_h_px),
        figures=[
            Figure(
                fig1,
                W["image_gen_loop.figures"],
                W.f("image_gen_loop.figures_2", v=tot[-1] / 1e15, v2=lin[-1] / 1e15),
                draws=frozenset({"dit_forwards", "latent_positions"}),
            ),
            Figure(
                mm_charts.denoise_figure(captions, [str(s) for s in marks]),
                W["image_gen_loop.figures_3"],
                W["image_gen_loop.figures_4"],
                illustrative=True,
                animated=True,
                draws=frozenset({"dit_forwards", "total_pflop"}),
            ),
        ],
        notes=[
            Note(
                W["image_gen_loop.notes"],
                "formula",
            ),
            Note(W["image_gen_loop.notes_2"]),
            Note(
                W.f(
                    "image_gen_loop.notes_3",
                    layers=sh.DIT.layers,
                    width=sh.DIT.width,
                    mlp=sh.DIT.mlp,
                    v=f.linear / 1e12,
                    v2=f.attention / 1e12,
                    v3=f.modulation / 1e9,
                    v4=f.io / 1e9,
                    v5=f.small / 1e6,
                )
            ),
            Note(W["image_gen_loop.notes_4"]),
        ],
    )


_MEASURED = W["measured"]
JITTER_OUT = outputs(
    chunk_bytes=out(W["jitter_out.chunk_bytes"], unit="B", digits=0, sym="b_{chunk}"),
    first_arrival_ms=out(W["jitter_out.first_arrival_ms"], digits=0, sym="t_1"),
    play_start_ms=out(W["jitter_out.play_start_ms"], digits=0, ill=True, sym="t_{play}"),
    n_stalls=out(W["jitter_out.n_stalls"], unit=W["speech_out.unit"], ill=True, em=True),
    stall_total_ms=out(W["jitter_out.stall_total_ms"], digits=0, ill=True, em=True),
    last_play_end_ms=out(W["jitter_out.last_play_end_ms"], digits=0, ill=True),
    mute_ms=out(W["jitter_out.mute_ms"], digits=0, ill=True, sym="t_{mute}"),
    mute_latency_ms=out(W["jitter_out.mute_latency_ms"], digits=0),
    best_mute_latency_ms=out(W["jitter_out.best_mute_latency_ms"], digits=0),
    worst_mute_latency_ms=out(W["jitter_out.worst_mute_latency_ms"], digits=0),
    backend_stop_ms=out(W["jitter_out.backend_stop_ms"], digits=0, ill=True, sym="t_{stop}"),
    release_ms=out(W["jitter_out.release_ms"], digits=0, ill=True, sym="t_{rel}"),
    discarded_audio_ms=out(W["jitter_out.discarded_audio_ms"], digits=0, ill=True),
    measured_first_chunk_ms_run1=out(W["jitter_out.measured_first_chunk_ms_run1"], unit="ms", approx=True),
    measured_first_chunk_ms_run2=out(W["jitter_out.measured_first_chunk_ms_run2"], unit="ms", approx=True),
    measured_chunk_gap_median_ms=out(W["jitter_out.measured_chunk_gap_median_ms"], approx=True),
)


@card(
    "fig-3-18",
    title=W["fig_3_18.title"],
    label=W["fig_3_18.label"],
    section="3.3",
    kind="animation",
    params=sh.JitterParams,
    aliases=("fig-3-19",),
    badges=((W["fig_3_15.badges"], "ex-3-5"),),
    outputs=JITTER_OUT,
    lead=W["fig_3_18.lead"],
)
def fig_3_18(p: sh.JitterParams) -> View:
    j = audio.jitter(p)
    o = {
        **j.outputs,
        "measured_first_chunk_ms_run1": given(400, W["fig_3_18.measured_first_chunk_ms_run1"], "ms", _MEASURED),
        "measured_first_chunk_ms_run2": given(370, W["fig_3_18.measured_first_chunk_ms_run2"], "ms", _MEASURED),
        "measured_chunk_gap_median_ms": given(94, W["fig_3_18.measured_chunk_gap_median_ms"], "ms", _MEASURED),
    }
    late = W["fig_3_18"] if j.late >= 0 else W["fig_3_18_2"]
    return View(
        o,
        headline=W.f("fig_3_18.headline_joined", a=W["fig_3_18.headline"], b=late),
        ctx={"late": j.late},
        figures=[
            Figure(
                audio_charts.jitter_figure(j.run, p.chunk_ms, o["play_start_ms"], j.late),
                W["fig_3_18.figures"],
                W["fig_3_18.figures_2"],
                illustrative=True,
                animated=True,
                draws=frozenset(
                    {
                        "backend_stop_ms",
                        "best_mute_latency_ms",
                        "discarded_audio_ms",
                        "first_arrival_ms",
                        "last_play_end_ms",
                        "measured_chunk_gap_median_ms",
                        "mute_latency_ms",
                        "mute_ms",
                        "n_stalls",
                        "play_start_ms",
                        "release_ms",
                        "stall_total_ms",
                        "worst_mute_latency_ms",
                    }
                ),
            ),
            Figure(
                audio_charts.interrupt_figure(j.run, j.interrupt, p.poll_ms, o["discarded_audio_ms"]),
                W["fig_3_18.figures_3"],
                W["fig_3_18.figures_4"],
                illustrative=True,
                draws=frozenset(
                    {
                        "backend_stop_ms",
                        "best_mute_latency_ms",
                        "discarded_audio_ms",
                        "first_arrival_ms",
                        "last_play_end_ms",
                        "mute_latency_ms",
                        "mute_ms",
                        "n_stalls",
                        "play_start_ms",
                        "release_ms",
                        "stall_total_ms",
                        "worst_mute_latency_ms",
                    }
                ),
            ),
        ],
        notes=[
            Note(
                W["fig_3_18.notes"],
                "formula",
            ),
            Note(W["fig_3_18.notes_2"]),
            Note(W["fig_3_18.notes_3"], "illustrative", when="defaults"),
            Note(W["fig_3_18.notes_3_moved"], "illustrative", when="moved"),
            Note(W["fig_3_18.notes_4"]),
            Note(W["fig_3_18.notes_5"]),
        ],
    )


class DrainParams(Params):
    arrival_rate_s_per_s: float = slider(
        0.9, ge=0.5, le=1.2, step=0.05, label=W["drainparams.arrival_rate_s_per_s.label"], unit="s/s"
    )
    initial_buffer_s: float = slider(
        0.3, ge=0, le=2, step=0.05, label=W["drainparams.initial_buffer_s.label"], unit="s", sym="B_0"
    )


DRAIN_OUT = outputs(
    drain_s=out(W["drain_out.drain_s"], sig=3, em=True, sym="t_{drain}", text={None: W["drain_out.t"]}),
    deficit_s_per_s=out(W["drain_out.deficit_s_per_s"], unit="s/s", sig=3, sym="δ"),
)


@card(
    "buffer-drain",
    title=W["buffer_drain.title"],
    section="3.3",
    kind="chart",
    params=DrainParams,
    outputs=DRAIN_OUT,
    badges=((W["fig_3_15.badges"], "ex-3-5"),),
    lead=W["buffer_drain.lead"],
)
def buffer_drain(p: DrainParams) -> View:
    drain = audio.drain_time(p.initial_buffer_s, p.arrival_rate_s_per_s)
    o = {"drain_s": drain if math.isfinite(drain) else None, "deficit_s_per_s": 1 - p.arrival_rate_s_per_s}
    summary = W["buffer_drain"] if math.isfinite(drain) else W["buffer_drain_2"]
    return View(
        o,
        headline="r = [[arrival_rate_s_per_s]] · B₀ = [[initial_buffer_s]]",
        figures=[
            Figure(
                audio_charts.drain_figure(p.initial_buffer_s, p.arrival_rate_s_per_s, drain),
                W["buffer_drain.figures"],
                summary,
                draws=frozenset({"deficit_s_per_s", "drain_s"}),
            )
        ],
        notes=[
            Note(W["buffer_drain.notes"], "formula"),
            Note(W["buffer_drain.notes_2"]),
        ],
    )


class AoiParams(Params):
    event_ms: float = slider(
        300, ge=10, le=5000, step=10, label=W["aoiparams.event_ms.label"], unit="ms", illustrative=True, sym="T_{pop}"
    )
    interval_ms: float = slider(
        500,
        ge=10,
        le=5000,
        step=10,
        label=W["aoiparams.interval_ms.label"],
        unit="ms",
        illustrative=True,
        sym="T_{obs}",
    )
    frames_per_s_kept: float = slider(
        2,
        ge=0.1,
        le=30,
        step=0.1,
        label=W["aoiparams.frames_per_s_kept.label"],
        unit=W["aoiparams.frames_per_s_kept.unit"],
        illustrative=True,
        sym="f_{key}",
    )


AOI_OUT = outputs(
    p_catch=out(W["aoi_out.p_catch"], unit="", sig=3, ill=True, em=True, sym="p"),
    observations_per_s=out(W["aoi_out.observations_per_s"], unit=W["aoi_out.unit"], sig=3, ill=True),
    frames_kept_per_min=out(W["aoi_out.frames_kept_per_min"], unit=W["speechparams.frames.unit"], sig=3, ill=True),
)


@card(
    "aoi-observe",
    title=W["aoi_observe.title"],
    section="3.3",
    kind="diagram",
    params=AoiParams,
    outputs=AOI_OUT,
    lead=W["aoi_observe.lead"],
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
        headline=W["aoi_observe.headline"],
        blocks=[
            Block(
                "diagrams/aoi-observe.html",
                {**geo, "kept_per_min": quoter(AOI_OUT, o)("frames_kept_per_min", "n,d0"), "C": COLORS},
            )
        ],
        notes=[
            Note(
                W["aoi_observe.notes"],
                "illustrative",
            ),
            Note(W["aoi_observe.notes_2"]),
        ],
    )


PIPE_TARGETS = {
    "ttft": W["pipe_targets.ttft"],
    "playback": W["pipe_targets.playback"],
    "completion": W["pipe_targets.completion"],
}


class PipelineParams(Params):
    target: Literal["ttft", "playback", "completion"] = choice(
        "ttft", PIPE_TARGETS, label=W["pipelineparams.target.label"]
    )


@card(
    "multimodal-pipeline",
    title=W["multimodal_pipeline.title"],
    section="3.3",
    kind="diagram",
    params=PipelineParams,
    outputs=outputs(
        n_stages=out(W["multimodal_pipeline.n_stages"], unit=W["multimodal_pipeline.unit"]),
        target=out(W["multimodal_pipeline.target"], text=PIPE_TARGETS),
    ),
    lead=W["multimodal_pipeline.lead"],
)
def multimodal_pipeline(p: PipelineParams) -> View:
    o = {
        "n_stages": given(4, "n", W["multimodal_pipeline.unit"], W["multimodal_pipeline.n_stages_2"]),
        "target": p.target,
    }
    return View(
        o,
        headline=W["multimodal_pipeline.headline"],
        blocks=[Block("diagrams/multimodal-pipeline.html", {"targets": PIPE_TARGETS, "sel": p.target, "C": COLORS})],
        notes=[
            Note(W["multimodal_pipeline.notes"]),
        ],
    )
