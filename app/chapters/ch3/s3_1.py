"""Section 3.1 从单次请求到持续到达的负载: 图 3-1 … 3-3, 练习 3-1, the metrics table, p95,
例题 3-1 (the backlog recursion, ``shared.ch3_load.eg31``) and the vLLM replay."""

from __future__ import annotations

from functools import partial

from ...calculators import latency_metrics as lm
from ...calculators import queueing as qu
from ...calculators import roofline
from ...calculators.units import GB, GIB, KIB
from ...cards import Figure, Note, Params, Question, Table, View, card, choice, fixed, number_type, slider
from ...charts import backlog as bk
from ...charts import requests as rq
from ...data import read_json
from ...outputs import data, out, outputs
from ...trace import given
from ..shared import ch3_load as ld
from ..shared.ch3_load import Eg31Params, quiet, say

# --- 例题 3-1 · the backlog recursion ----------------------------------------------------------------

EG31 = outputs(
    total_requests=out("请求数", unit="条", sym="N"),
    total_decode_steps=out("decode 总步数 Σ(G−1)", sym="D"),
    avg_demand_steps_s=out("平均需求", digits=0, sym="λw_{avg}"),
    capacity_steps_s=out("[[n_cards]] 卡处理率 μ", digits=0, approx=True, sym="μ"),
    demand_before_steps_s=out("切换前需求", digits=1, sym="λw_1"),
    demand_after_steps_s=out("切换后需求", digits=1, sym="λw_2"),
    util_avg_pct=out("平均利用率", digits=1, sym="ρ"),
    util_after_pct=out("切换后利用率", digits=1, sym="ρ_2"),
    backlog_end_steps_display=out("停止到达时积压 ⌊Q⌋", unit="步", em=True, sym="Q_{disp}"),
    drain_s=out("排空时间 Q/μ", digits=2, sym="T_{drain}"),
    completion_s=out("全部做完", digits=2, sym="T_{done}"),
    min_time_one_card_s=out("单卡做完全部 decode 至少", digits=1, sym="T_1"),
    mean_ctx_tokens=out("按步加权的平均旧 KV", digits=2, book="约 2,742", sym="c̄"),
    step_read_write_gb=out("每步读写", digits=2, sym="R_{step}"),
    step_ms=out("每步耗时(带宽下界)", digits=2, sym="T_{step}"),
    mu_bw_per_card=out("带宽公式的每卡 μ", unit="步/s", digits=2, sym="μ_β"),
    mu_per_card=out("采用的每卡 μ", unit="步/s", digits=2, book="约 2,796", sym="μ_1"),
    preset=quiet("预设", text=ld.PRESET_LABELS),
    duration_s=quiet("到达时长", sym="T"),
    split_s=quiet("切换时刻", sym="t_s"),
    n_cards=quiet("decode 卡数", sym="n"),
    share_li_before_pct=quiet("切换前长输入占比", sym="s_1"),
    share_li_after_pct=quiet("切换后长输入占比", sym="s_2"),
    long_input_requests=quiet("长输入请求", unit="条", sym="N_A"),
    long_output_requests=quiet("长输出请求", unit="条", sym="N_B"),
    decode_steps_long_input=quiet("长输入类每条 decode 步"),
    decode_steps_long_output=quiet("长输出类每条 decode 步"),
    mu_per_card_rounded=quiet("每卡 μ(取整)", unit="步/s"),
    util_before_pct=quiet("切换前利用率", digits=1, sym="ρ_1"),
    backlog_end_steps=quiet("停止到达时积压 Q", digits=1, sym="Q_{end}"),
    backlog_fluid_steps=quiet("流体公式的积压", digits=1, sym="Q_{fluid}"),
    peak_backlog_steps=quiet("积压峰值", digits=1, sym="Q_{max}"),
    min_time_all_cards_s=quiet("全部卡做完至少", digits=1, sym="T_n"),
    queue_series=data("逐段积压 Q_k(步)"),
    arrival_series=data("逐段到达 A_k(步)"),
)


@card(
    "eg-3-1",
    title="平均处理能力够,为什么还积压",
    label="例题 3-1",
    section="3.1",
    kind="animation",
    outputs=EG31,
    params=Eg31Params,
    badges=(("练习 3-2 ③④", "ex-3-2"),),
    template="diagrams/eg-3-1.html",
    lead="两类请求每秒到 4 条,持续两分钟:长输入 8192→256、长输出 1024→2048。两张 RTX PRO 6000 每秒最多做约 5,591 个 decode 步。"
    "按 ▶ 逐秒递推积压 $Q_{k+1}=\\max(0, Q_k + A_k - \\mu\\Delta t)$;预设 ①② 是书中两种到达方式,③④ 对应练习 3-2。",
)
def eg_3_1(p: Eg31Params) -> View:
    o, run, m = ld.eg31(p)
    kv_gb = o["step_read_write_gb"] - p.weight_gb
    # the μ note's 两者差 …: words, not an output (a derivation would print μ_β to 4 figures, 2,796, and
    # so hide the 0.001 % it explains); a plain number, as it enters no derivation
    gap_pct = float(abs(o["mu_bw_per_card"] - ld.MU_BOOK) / ld.MU_BOOK * 100)
    same = f"两者差 {gap_pct:.3f}%," if gap_pct >= 0.0005 else "两者几乎相同(差不到 0.001%),"
    notes = [
        Note(
            "$Q_{k+1} = \\max(0,\\ Q_k + A_k - \\mu\\Delta t)$;突发时积压 $(\\lambda w - \\mu)\\tau$,排空需 $(\\lambda w-\\mu)\\tau/\\mu$。",
            "formula",
        ),
        Note("到达按“流体”计:每秒的 4 条请求按占比拆成两类,一条请求的 G−1 步 decode 都记在它到达的那一秒。"),
        Note("积压显示取下整:递推得 [[backlog_end_steps]],书中印 [[backlog_end_steps_display]](四舍五入会多 1)。"),
        Note(
            "每卡 μ:带宽公式 [[batch_seqs|n]] ÷ [[step_ms|d3]] 得 [[mu_bw_per_card]],书中取 2,795.66;"
            + same
            + "页面默认用书中取值,可在“μ 来源”切到公式值。",
            "book",
        ),
        Note(
            "每步字节按“读旧 KV + 写一个新 token”:$W + 64(\\bar c + 1)\\cdot 144\\,\\text{KiB}$,$\\bar c$ 取未四舍五入的按步加权平均。"
        ),
        Note("这里只算 decode;prefill 的算力另算,实测吞吐只会更低。", "warn"),
    ]
    if p.preset.startswith("burst"):
        notes.append(Note("预设 ③④ 是本页对练习 3-2 的读法:只有 1:9 那一段持续 30 s,初始队列为空。", "illustrative"))
    if run.truncated:
        notes.append(Note("排空过程太长,曲线只列出前面一段,终点按 Q/μ 算出。", "warn"))
    return View(
        o,
        headline="[[preset]] · [[n_cards|n]] 张卡 · μ = [[capacity_steps_s|d2]]",
        notes=notes,
        ctx={"kv_gb": f"{kv_gb:.2f} GB"},
        figures=[
            Figure(
                bk.backlog_figure(run, qu.class_a_steps(m, run), o["capacity_steps_s"]),
                "例题 3-1 · 每秒到达的 decode 工作与积压 Q(t)",
                "切换前需求 [[demand_before_steps_s]]、切换后 [[demand_after_steps_s]],处理率 [[capacity_steps_s|d2]]。"
                "到达结束([[duration_s]])时积压 [[backlog_end_steps_display]],再过 [[drain_s]] 排空。",
                animated=True,
            ),
            Figure(
                bk.stacked_step_bytes(p.weight_gb, kv_gb, p.batch_seqs),
                "μ 从哪来 · 一步 decode 的读写",
                "权重 [[weight_gb]] + [[batch_seqs]]序列 KV [[kv_gb]] = [[step_read_write_gb]],在 [[bandwidth_tbps]] 下 [[step_ms]],"
                "每卡每秒约 [[mu_bw_per_card|n]] 步。",
            ),
        ],
    )


# --- 图 3-1 · one prefill, then decode after decode -------------------------------------------------


class Fig31Params(Params):
    restored_tokens: int = slider(0, ge=0, le=32768, step=1, label="恢复的上下文 S", unit="token")
    input_tokens: int = slider(ld.CLASS_A[0], ge=1, le=32768, step=1, label="新输入 P", unit="token")
    output_tokens: int = slider(ld.CLASS_A[1], ge=1, le=4096, step=1, label="返回 G", unit="token")
    batch: int = slider(1, ge=1, le=256, step=1, label="批大小 B", unit="条")
    peak_tflops: float = fixed(ld.PEAK_TFLOPS, "BF16 峰值 Π", "TFLOP/s")
    bandwidth_tbps: float = fixed(ld.BW_TBPS, "显存带宽 β", "TB/s")
    weight_bytes_per_param: float = fixed(2, "每参数字节 b_W", "B")
    kv_kib_per_token: float = fixed(ld.KV_KIB, "每 token KV", "KiB", sym="c_{KV}")


BOUND_ZH = {"compute": "受算力限制", "bandwidth": "受带宽限制"}
FIG31 = outputs(
    total_calls=out("调用次数", unit="次", sym="n_{call}"),
    decode_calls=out("其中 decode", unit="次", sym="n_{dec}"),
    first_decode_ctx_tokens=out("decode 0 开始时上下文 S+P[[no_dec]]", sym="C_0"),
    last_decode_ctx_tokens=out("decode [[last_j]] 开始时上下文", tile="has_decode", sym="C_{last}"),
    final_kv_tokens=out("结束时 KV(S+P+G−1)", sym="KV_{end}"),
    final_text_tokens=out("结束时文本长度(S+P+G)", sym="L_{end}"),
    final_kv_mib=out("结束时驻留 KV(整批)", digits=1, sym="M_{KV}"),
    decode_kv_read_gb=out("所有 decode 读旧 KV", digits=1, sym="R_{KV}"),
    ridge_rows=out("转折点 b_WΠ/(2β)", unit="行", digits=1, sym="B^*"),
    prefill_bound=out("prefill", text=BOUND_ZH),
    decode_bound=out("decode", text=BOUND_ZH),
    prefill_calls=quiet("prefill 次数", unit="次"),
    prefill_rows_per_weight_read=quiet("prefill 每读一遍权重的行数", unit="行", sym="r_{pre}"),
    decode_rows_per_weight_read=quiet("decode 每读一遍权重的行数", unit="行", sym="r_{dec}"),
    decode_kv_read_tokens=quiet("所有 decode 读旧 KV", sym="ΣC"),
)


@card(
    "fig-3-1",
    title="一次 prefill,接着逐个 decode",
    label="图 3-1",
    section="3.1",
    kind="animation",
    params=Fig31Params,
    outputs=FIG31,
    lead="一条请求:恢复 S 个上下文 token、处理 P 个新输入、返回 G 个 token,共 1 次 prefill + (G−1) 次 decode。"
    "按 ▶ 逐次点亮调用,看上下文和 KV 怎样一格格长上去。默认值借用例题 3-1 的长输入类。",
)
def fig_3_1(p: Fig31Params) -> View:
    S, P, B = p.restored_tokens, p.input_tokens, p.batch
    ridge = roofline.b_star(p.weight_bytes_per_param, p.bandwidth_tbps * 1e12, p.peak_tflops * 1e12)
    o = {
        "prefill_calls": given(1, "n_{pre}", "次", "每条请求 1 次 prefill"),
        **qu.request_outputs(S, P, p.output_tokens, B, ridge, p.kv_kib_per_token * KIB),
    }
    n_dec = o["decode_calls"]
    timeline = rq.call_timeline(n_dec, P, lambda j: B * (S + P + (0 if j is None else j + 1)), p.kv_kib_per_token)
    return View(
        o,
        headline="S = [[restored_tokens|n]] · P = [[input_tokens|n]] · G = [[output_tokens|n]] · B = [[batch|n]]",
        ctx={"has_decode": bool(n_dec), "last_j": n_dec - 1, "no_dec": "" if n_dec else "(G = 1,没有 decode)"},
        figures=[
            Figure(
                timeline,
                "图 3-1 · 调用时间线与驻留 KV",
                "1 次 prefill 处理 [[input_tokens|n]] 个新 token,接着 [[decode_calls|n]] 次 decode "
                "各生成 1 个;结束时每条请求 KV [[final_kv_tokens]],整批 [[final_kv_mib]]。",
                animated=True,
            ),
            Figure(
                rq.context_staircase([S] + [S + P + j for j in range(n_dec)]),
                "每次调用开始时的上下文",
                "prefill 开始时已有 [[restored_tokens]];decode j 开始时已有 S+P+j,从 [[first_decode_ctx_tokens|n]] 涨到 "
                "[[last_decode_ctx_tokens|n]]。",
            ),
            Figure(
                rq.rows_per_read(o["prefill_rows_per_weight_read"], B, ridge),
                "每读一遍权重做多少行乘加",
                "prefill [[prefill_rows_per_weight_read|n]] 行,decode [[batch|n]] 行;转折点约 [[ridge_rows|n]] 行。"
                "prefill [[prefill_bound]],decode [[decode_bound]]。",
            ),
        ],
        notes=[
            Note(
                "第 $j$ 次 decode($j$ 从 0 计)开始时已有 $S+P+j$ 个 token 的上下文;最后一个返回的 token 不再送回模型,所以 KV 比文本少 1。",
                "formula",
            ),
            Note(
                "时间线上的块宽只是示意:prefill 一次处理 P 个 token,画得宽;decode 每次只处理 1 个。G−1 > 40 时只画前 20 次和后 20 次。"
            ),
            Note("转折点就是第 1 章的 $B^* = b_W\\Pi/(2\\beta)$,这里按 BF16 权重($b_W$ = 2 B)和 RTX PRO 6000 计算。"),
            Note(
                "书中这张图没有印数字;默认值借用例题 3-1 的长输入类(S = 0、P = 8192、G = 256)和低并发 B = 1。",
                "illustrative",
            ),
        ],
    )


# --- 练习 3-1 · same total output, different request count -------------------------------------------

N_REQUESTS = (1, 2, 4, 8, 16, 32, 64, 128)


class Ex31Params(Params):
    n_requests: number_type(N_REQUESTS) = choice(8, {k: f"{k} 条" for k in N_REQUESTS}, label="请求数 n")  # type: ignore[valid-type]
    total_output_tokens: int = fixed(1024, "总输出", "token", sym="G_{tot}")
    input_tokens: int = slider(1024, ge=128, le=8192, step=128, label="每条输入 P", unit="token")
    weight_gb: float = fixed(ld.WEIGHT_GB, "每轮读权重", "GB", sym="W")
    kv_kib_per_token: float = fixed(ld.KV_KIB, "每 token KV", "KiB", sym="c_{KV}")
    bandwidth_tbps: float = fixed(ld.BW_TBPS, "显存带宽", "TB/s", sym="β")


# key: (table row, tile label or "" (no tile), unit, digits)
EX31_ROWS = {
    "output_per_request": ("每条输出 G", "", "token", None),
    "prefill_count": ("prefill 次数(请求数)", "prefill 次数", "次", None),
    "prefill_batches": ("prefill 批次", "", "批", None),
    "prefill_tokens": ("prefill 的输入 token", "", "token", None),
    "decode_steps_total": ("decode 总步数 n·(G−1)", "decode 总步数", "步", None),
    "decode_rounds": ("decode 轮数 G−1", "decode 轮数", "轮", None),
    "weight_read_rounds": ("共享权重读取轮数 1+(G−1)", "共享权重读取", "轮", None),
    "end_context_tokens": ("结束时文本长度 P+G", "结束时每条上下文", "token", None),
    "end_kv_tokens_per_request": ("结束时每条 KV P+G−1", "", "token", None),
    "end_kv_mib_total": ("结束时全部 KV (MiB)", "结束时全部 KV", "MiB", 1),
    "weight_read_gb": ("读权重总量 (GB)", "", "GB", 1),
    "decode_lb_s": ("decode 带宽下界 (s) 推算", "decode 带宽下界(推算)", "s", 3),
}
EX31 = outputs(
    **{
        k: out(tile_ or row, unit=u, digits=d, tile=bool(tile_))
        for k, (row, tile_, u, d) in list(EX31_ROWS.items())[:7]
    },
    weight_read_ratio=out("读取轮数少了", unit="×", digits=0),
    **{
        k: out(tile_ or row, unit=u, digits=d, tile=bool(tile_))
        for k, (row, tile_, u, d) in list(EX31_ROWS.items())[7:]
    },
    **{f"ref_{k}": quiet(f"1 条请求:{row}", unit=u, digits=d) for k, (row, _, u, d) in EX31_ROWS.items()},
    total_output_tokens=quiet("总输出", unit="token"),
    input_tokens=quiet("每条输入 P"),
    n_requests=quiet("请求数 n", unit="条"),
)


@card(
    "ex-3-1",
    title="总输出相同,请求数不同",
    label="练习 3-1",
    section="3.1",
    kind="calculator",
    params=Ex31Params,
    outputs=EX31,
    lead="同样 1,024 个输出 token:一条请求独自生成,还是 n 条请求各生成 1024/n 个?每条输入 1,024。"
    "假设各条同步生成、每步共享一次权重读取,prefill 也合成一批。本卡也是章末练习 3-1〔延伸〕。",
)
def ex_3_1(p: Ex31Params) -> View:
    n, args = (
        int(p.n_requests),
        (p.total_output_tokens, p.input_tokens, p.weight_gb * GB, p.kv_kib_per_token * KIB, p.bandwidth_tbps * 1e12),
    )
    cur = qu.sync_column(given(n, "n", "条", "选择:请求数 n"), *args)  # n requests against one (keys ref_*)
    ref, batches = (
        qu.sync_column(given(1, "n_1", "条", "对照:1 条请求"), *args, tag="_1"),
        given(1, "n_{batch}", "批", "同步时 prefill 合成一批"),
    )
    o = {
        "total_output_tokens": p.total_output_tokens,
        "input_tokens": p.input_tokens,
        "n_requests": cur["prefill_count"],
        **cur,
        "prefill_batches": batches,
        **{f"ref_{k}": v for k, v in ref.items()},
        "ref_prefill_batches": batches,
        "weight_read_ratio": ref["weight_read_rounds"] / cur["weight_read_rounds"],
    }
    s = partial(say, EX31, o)
    counts = [
        (f"{label} 条请求", role, [o[f"{pre}{k}"] for k in ("prefill_batches", "decode_rounds", "weight_read_rounds")])
        for label, role, pre in (("1", "idle", "ref_"), (str(n), "decode", ""))
    ]
    rows = [[row, s(f"[[ref_{k}|n]]"), s(f"[[{k}|n]]")] for k, (row, *_r) in EX31_ROWS.items()]
    return View(
        o,
        headline="总输出 [[total_output_tokens]] · 每条输入 [[input_tokens|n]] · n = [[n_requests|n]]",
        tables=[
            Table(
                ["", "1 条请求", f"{n} 条请求"],
                rows,
                title="两种做法逐项对比",
                note="“decode 带宽下界”只算 decode 轮:每轮读一遍权重,每条请求读 P+j 个旧 KV、写 1 个新 token;仅带宽下界,不含 prefill。",
            )
        ],
        figures=[
            Figure(
                rq.grouped_counts(["prefill 批次", "decode 轮数", "权重读取轮数"], counts, "次数(对数)", log=True),
                "调用与权重读取(对数)",
                "1 条请求要 [[ref_decode_rounds|n]] 轮 decode、读 [[ref_weight_read_rounds|n]] 遍权重;"
                + (
                    "n = 1 时两列是同一种做法。"
                    if n == 1
                    else "[[n_requests]]同步时只要 [[decode_rounds|n]] 轮、[[weight_read_rounds|n]] 遍。"
                ),
            ),
            Figure(
                rq.grouped_counts(
                    ["1 条", f"{n} 条"],
                    [("结束时驻留 KV", "state", [o["ref_end_kv_mib_total"], o["end_kv_mib_total"]])],
                    "KV (MiB)",
                    fmt="{:,.1f} MiB",
                    height=240,
                ),
                "结束时驻留的 KV",
                "1 条请求 [[ref_end_kv_mib_total]],[[n_requests]]共 [[end_kv_mib_total]]。",
            ),
        ],
        questions=[
            Question(
                key="prefill_count",
                prompt=s(f"{n} 条请求一共做几次 prefill?(1 条请求时是 [[ref_prefill_count]])"),
                unit="次",
                hint="每条请求各有一次 prefill;同步时它们能合成一批,但次数不变。",
                solution=[
                    "每条请求 1 次 prefill;同步时合成 [[prefill_batches]]一起算,处理 [[prefill_tokens]]"
                    "(1 条请求只处理 [[ref_prefill_tokens]])。"
                ],
            ),
            Question(
                key="decode_steps_total",
                prompt=f"{n} 条请求的 decode 总步数是多少?",
                unit="步",
                hint="每条请求 G−1 次 decode。",
                solution=[
                    "每条输出 G = [[output_per_request|n]],各做 G−1 次 decode;1 条请求时是 [[ref_decode_steps_total]]。"
                ],
            ),
            Question(
                key="end_context_tokens",
                prompt="结束时每条请求的上下文(文本)长度是多少 token?",
                unit="token",
                hint="文本长度 P+G;KV 里比它少 1。",
                solution=[
                    "KV 中是 [[end_kv_tokens_per_request]];1 条请求时文本 [[ref_end_context_tokens]]"
                    "(KV [[ref_end_kv_tokens_per_request]])。"
                ],
            ),
            Question(
                key="weight_read_rounds",
                prompt=f"{n} 条同步生成时共享的权重读取一共几轮?",
                unit="轮",
                hint="prefill 一轮,之后每轮 decode 一轮。",
                solution=["1 条请求要 [[ref_weight_read_rounds]],相差 [[weight_read_ratio]]。"],
            ),
            Question(
                key="decode_lb_s",
                kind="open",
                prompt="总输出一样,为什么还不足以判断多久做完?",
                answer_text=s(
                    (
                        "n = 1 时两种做法相同,轮数和读取都一样;换成更多条同步生成,顺序执行的 decode 轮数才会少下来。"
                        if n == 1
                        else "顺序执行的 decode 轮数差了 [[weight_read_ratio|n]] 倍([[ref_decode_rounds|n]] 对 [[decode_rounds|n]]),批量时权重也少读同样倍数;"
                        f"但 {n} 条请求要 prefill [[prefill_tokens]],结束时共驻留 [[end_kv_mib_total]] KV(1 条时 [[ref_end_kv_mib_total]])。"
                    )
                    + "完成时间取决于有几轮必须依次执行、每轮读多少字节,而不只是输出 token 的总数。"
                ),
            ),
        ],
        notes=[
            Note("文本长度是 $P+G$,KV 里是 $P+G-1$:最后一个返回的 token 没再送回模型。本卡两个都给。"),
            Note("“decode 带宽下界”是本页推算的数(书中没有印),只算带宽,不含 prefill。"),
        ],
    )


# --- 图 3-2 · shortening one segment changes only the metrics that contain it -----------------------


class Fig32Params(Params):
    queue_ms: float = slider(300, ge=0, le=5000, step=10, label="排队", unit="ms", illustrative=True, sym="T_{queue}")
    prefill_ms: float = slider(
        150, ge=10, le=5000, step=10, label="prefill", unit="ms", illustrative=True, sym="T_{prefill}"
    )
    inter_token_ms: float = slider(25, ge=5, le=200, step=1, label="token 间隔", unit="ms", illustrative=True, sym="Δ")
    output_tokens: int = slider(200, ge=2, le=4096, step=1, label="输出 G", unit="token", illustrative=True)
    thinking_tokens: int = slider(
        0, ge=0, le=4000, step=10, label="首个有用输出前的思考 token", unit="token", illustrative=True, sym="G_{think}"
    )
    audio_delay_ms: float = slider(
        0, ge=0, le=1000, step=10, label="语音解码 + 设备缓冲", unit="ms", illustrative=True, sym="T_{audio}"
    )


FIG32 = outputs(
    ttft_ms=out("TTFT = t₁ − t_a", digits=0, ill=True, sym="T_{TTFT}"),
    request_ms=out("完整请求 = t_G − t_a", digits=0, ill=True, sym="T_{request}"),
    token_ms=out("token 间隔 = (t_G − t₁)/(G−1)", sig=3, ill=True, sym="T_{token}"),
    first_useful_ms=out("首个有用输出", digits=0, ill=True, sym="T_{useful}"),
    first_audible_ms=out("首个声音", digits=0, ill=True, sym="T_{audible}"),
)


@card(
    "fig-3-2",
    title="缩短哪一段,只改变包含它的指标",
    label="图 3-2",
    section="3.1",
    kind="calculator",
    params=Fig32Params,
    outputs=FIG32,
    lead="一条请求的时间线上有三个事件:到达 $t_a$、首个 token $t_1$、最后一个 token $t_G$。拖动“排队”:"
    "TTFT 和完整请求时间一起变,token 间隔不动。数值都是示意。",
)
def fig_3_2(p: Fig32Params) -> View:
    tl = lm.request_timeline(
        p.queue_ms / 1e3,
        p.prefill_ms / 1e3,
        p.inter_token_ms / 1e3,
        p.output_tokens,
        p.thinking_tokens,
        p.audio_delay_ms / 1e3,
        given(0.0, "t_a", "s", "到达时刻,取作时间原点"),
    )
    o = lm.timeline_outputs(tl)
    fig = rq.request_events(
        p.queue_ms,
        tl.t_1 * 1e3,
        tl.t_G * 1e3,
        p.inter_token_ms,
        p.output_tokens,
        p.thinking_tokens,
        bool(p.audio_delay_ms),
        o,
    )
    return View(
        o,
        headline="排队 [[queue_ms]] · prefill [[prefill_ms]] · 间隔 [[inter_token_ms]] · G = [[output_tokens|n]]",
        ctx={"gaps": p.output_tokens - 1},
        figures=[
            Figure(
                fig,
                "图 3-2 · 三个事件与三种时间",
                "排队 [[queue_ms]] + prefill [[prefill_ms]] 得 TTFT [[ttft_ms]];"
                "再加 [[gaps]] 个 [[inter_token_ms]] 间隔,完整请求 [[request_ms]]。",
                illustrative=True,
            )
        ],
        notes=[
            Note(
                "$T_{TTFT} = t_1 - t_a$,$T_{request} = t_G - t_a$,$T_{token} = (t_G - t_1)/(G-1)$:间隔数是 G−1,不是 G。",
                "formula",
            ),
            Note(
                "排队只出现在 TTFT 和完整请求里;token 间隔只看 $t_1$ 之后,改排队它不动。reasoning 模型另记首个有用输出,语音再加解码与设备缓冲。"
            ),
            Note("书中注明这张图的数值为示意。", "illustrative"),
        ],
    )


# --- The metrics table and p95 by nearest rank -----------------------------------------------------

METRIC_ROWS = [
    ("多快开始有回应?", "TTFT;reasoning 模型另记首个有用输出", "fig-3-2"),
    ("输出是否连贯不断?", "逐 token(或逐块)的间隔,以及它的分布", "p95-nearest-rank"),
    ("多久把事情办完?", "完整请求时间;多步任务看完整任务时间", "fig-3-2"),
    ("每秒能完成多少合格任务?", "在质量和时限要求之内的有效吞吐(goodput)", "p95-nearest-rank"),
    ("拿到一个成功结果要花多少?", "所有尝试的模型、工具、环境开销 ÷ 成功任务数", "fig-3-9"),
    ("等待时还占着什么?", "状态属于哪个请求、哪个模型版本,多大、放在哪、驻留多久", "fig-3-3"),
]


@card(
    "metrics-table",
    title="要回答的问题 / 需要的指标或记录",
    section="3.1",
    kind="table",
    aliases=("tab-metrics",),
    outputs=outputs(n_rows=quiet("行数"), rows=data("表格行:问题、指标或记录")),
    lead="先说清楚什么算“完成”,再决定记录什么。点问题可跳到算它的卡片。",
)
def metrics_table(p: Params) -> View:
    rows = [[q, m] for q, m, _ in METRIC_ROWS]
    return View(
        {"n_rows": given(len(rows), "n", "行", "表中行数"), "rows": rows},
        tables=[
            Table(
                ["要回答的问题", "需要的指标或记录"], rows, links={i: cid for i, (_, _, cid) in enumerate(METRIC_ROWS)}
            )
        ],
    )


P95_SAMPLE = [
    tuple(
        given(x, f"{s}_{{{i}}}", u, "data/p95-sample.json(示意样本)")
        for x, s, u in zip(row, ("q", "p", "d"), ("ms", "ms", "s"))
    )
    for i, row in enumerate(read_json("p95-sample.json")["rows"], 1)
]  # (queue ms, prefill ms, decode s): 示意


class P95Params(Params):
    n: int = slider(20, ge=1, le=100000, step=1, label="观测数 n", log=True)
    q_pct: int = slider(95, ge=50, le=99, step=1, label="分位数 q", unit="%")


COLS = {"queue_ms": ("排队", "ms"), "ttft_ms": ("首响应 TTFT", "ms"), "request_s": ("完整请求", "s")}
P95 = outputs(
    rank=out("秩 ⌈[[q_pct|n]]·n/100⌉", em=True, sym="r"),
    p95_queue_ms=out("排队 p[[q_pct|n]]", ill=True, sym="T_{queue,(r)}"),
    p95_ttft_ms=out("TTFT p[[q_pct|n]]", ill=True, sym="T_{TTFT,(r)}"),
    p95_request_s=out("完整请求 p[[q_pct|n]]", ill=True, sym="T_{req,(r)}"),
    **{
        f"p95_{k}_request_id": out(f"{nm} 的 p[[q_pct|n]] 来自请求", ill=True, sym=f"i_{{{k.rsplit('_', 1)[0]}}}")
        for k, (nm, _) in COLS.items()
    },
    max_ttft_ms=out("TTFT 最大值", ill=True, sym="T_{TTFT,max}"),
    max_queue_ms=quiet("排队最大值", sym="T_{queue,max}"),
    max_request_s=quiet("完整请求最大值", sym="T_{req,max}"),
)


@card(
    "p95-nearest-rank",
    title="p95:最近秩法",
    section="3.1",
    kind="calculator",
    params=P95Params,
    aliases=("p95",),
    outputs=P95,
    lead="n 个观测从小到大排,取第 ⌈0.95n⌉ 个。排队、首响应、完整请求要各自排序:三个 p95 可能来自三条不同的请求。",
)
def p95_nearest_rank(p: P95Params) -> View:
    o: dict = {"rank": lm.nearest_rank(p.q_pct, p.n)}
    v = View(
        o,
        headline="n = [[n|n]] · q = [[q_pct]] · 取第 [[rank]] 个",
        notes=[Note("秩用整数算:$(q\\cdot n + 99)\\ \\mathrm{div}\\ 100$,避免浮点乘积贴近整数时差 1。", "formula")],
    )
    if p.n > len(P95_SAMPLE):
        v.notes.append(Note(f"示意样本只有 {len(P95_SAMPLE)} 条;n 更大时只给出秩。"))
        return v
    cols = lm.sample_columns(P95_SAMPLE[: p.n])
    o.update(lm.percentile_outputs(cols, p.q_pct))
    picks = {k: (o[f"p95_{k}"], o[f"p95_{k}_request_id"] - 1) for k in cols}
    v.figures.append(
        Figure(
            rq.ranked_columns(cols, COLS, o["rank"], picks, p.q_pct),
            say(P95, o, "各列分别排序后的第 [[rank|n]] 位"),
            "排队 p[[q_pct|n]] = [[p95_queue_ms]](请求 [[p95_queue_ms_request_id]]),TTFT p[[q_pct|n]] = [[p95_ttft_ms]]"
            "(请求 [[p95_ttft_ms_request_id]]),完整请求 p[[q_pct|n]] = [[p95_request_s|d3,c]](请求 [[p95_request_s_request_id]])。",
            illustrative=True,
        )
    )
    rows = [
        [i + 1, q, pf, d, t, r]
        for i, ((q, pf, d), t, r) in enumerate(zip(P95_SAMPLE[: p.n], cols["ttft_ms"], cols["request_s"]))
    ]
    v.tables.append(
        Table(
            ["请求", "排队 ms", "prefill ms", "decode s", "TTFT ms", "完整请求 s"],
            rows,
            title="示意样本(TTFT = 排队 + prefill;完整请求 = TTFT + decode)",
            illustrative_cells={(i, c) for i in range(len(rows)) for c in range(1, 6)},
        )
    )
    return v


# --- 图 3-3 · waiting state occupies capacity -------------------------------------------------------


class Fig33Params(Params):
    arrival_rate_per_s: float = slider(2, ge=0.5, le=10, step=0.5, label="进入等待的速率 λ", unit="个/s")
    wait_s: float = slider(10, ge=1, le=60, step=1, label="每个等待 τ", unit="s")
    state_gib: float = slider(1, ge=0.25, le=8, step=0.25, label="每个任务占用 M₀", unit="GiB", sym="M_0")
    horizon_s: float = slider(40, ge=10, le=120, step=10, label="模拟时长", unit="s", illustrative=True, sym="H")


FIG33 = outputs(
    mean_waiting_tasks=out("同时在等的任务 λ·τ", unit="个", sig=4, sym="L"),
    mean_occupancy_gib=out("平均占用 λ·M₀·τ", sig=4, em=True, sym="M̄"),
    area_per_task_gib_s=out("一个任务的面积 M₀·τ", sig=4, sym="A_1"),
    area_horizon_gib_s=out("0–[[horizon_s|n]] s 内的面积 ∫M dt", sig=6, ill=True, sym="A_M"),
    steady_from_s=out("从此持平", sig=4),
)


@card(
    "fig-3-3",
    title="状态没变大,但这段时间别人用不了",
    label="图 3-3",
    section="3.1",
    kind="animation",
    params=Fig33Params,
    outputs=FIG33,
    badges=(("练习 3-2 后半", "ex-3-2"),),
    lead="一个任务等待 τ 秒、一直占着 M₀ 的状态:状态没长,可面积 M₀·τ 这段容量别人用不上。"
    "任务以 λ 个/秒进入等待,总占用 M(t) 爬到 λ·M₀·τ 后持平。按 ▶ 看任务一个个进来。",
)
def fig_3_3(p: Fig33Params) -> View:
    lam, tau, m0, H = p.arrival_rate_per_s, p.wait_s, p.state_gib, p.horizon_s
    o = qu.wait_outputs(lam, tau, m0 * GIB, H)
    arr = qu.arrival_times(lam, H)
    brk = sorted({0.0, H} | set(arr) | {t + tau for t in arr if t + tau < H})
    brk = brk if len(brk) <= 400 else [H * i / 399 for i in range(400)]
    fig = bk.occupancy_figure(
        brk,
        [qu.occupancy_at(t, lam, m0, tau) for t in brk],
        m0,
        tau,
        o["mean_occupancy_gib"],
        H,
        say(FIG33, o, "一个任务:M₀·τ = [[area_per_task_gib_s|c]]"),
        say(FIG33, o, "λ·M₀·τ = [[mean_occupancy_gib|c]]"),
    )
    return View(
        o,
        headline="λ = [[arrival_rate_per_s]] · τ = [[wait_s]] · M₀ = [[state_gib]]",
        figures=[
            Figure(
                fig,
                "图 3-3 · 一个任务的占用面积,和许多任务叠起来的 M(t)",
                "每个任务占 [[state_gib]]、等 [[wait_s]];每秒进来 [[arrival_rate_per_s|n]] 个,[[wait_s]] 后 M(t) 稳在约 "
                "[[mean_occupancy_gib|c]]。0–[[horizon_s]] 的面积 [[area_horizon_gib_s|d1]]。",
                animated=True,
            )
        ],
        notes=[
            Note(
                "$A_M = \\int M(t)\\,dt$(单位 byte·s,页面用 GiB·s);稳定时等待中的平均占用 $\\approx \\lambda \\cdot M_0 \\cdot \\tau$。",
                "formula",
            ),
            Note(
                "模拟时长和“第 k 个任务在 k/λ 秒到”的到达方式是本页的选择;平均占用公式对任何稳定的到达方式都成立。",
                "illustrative",
            ),
            Note("默认 λ = 2 个/s、τ = 10 s、M₀ = 1 GiB 取自练习 3-2 后半;把 τ 改成 30 s 再看。"),
        ],
    )


# --- 真实回放 · vLLM replay of 例题 3-1 on one card ------------------------------------------------------


class ReplayParams(Params):
    kv_pool_gib: float = fixed(24, "vLLM KV 池", "GiB", sym="M_{KV}")
    max_seqs: int = fixed(64, "最多并发序列", "条", sym="B_{max}")
    mu_per_card: float = fixed(ld.MU_BOOK, "每卡 decode 处理率", "步/s", sym="μ_1")


MEASURES = {
    "request_p95_s": ("完整请求 p95", "s", "约 "),
    "ttft_p95_s": ("TTFT p95", "s", ""),
    "first_sched_wait_p95_s": ("初次调度等待 p95", "s", ""),
    "last_finish_s": ("最后完成时刻", "s", ""),
    "preemptions": ("抢占事件", "", ""),
    "kv_pool_peak_pct": ("KV 池峰值", "%", ""),
}
MIXES = {"uniform": "均匀混合", "skewed": "前 9:1、后 1:9"}
REPLAY = outputs(
    mu_per_card_rounded=out("单卡 decode 上限", unit="步/s", approx=True),
    avg_demand_steps_s=out("均匀混合的平均需求"),
    total_decode_steps=out("[[total_requests|n]] 条请求的 decode 总步数", sym="D"),
    min_time_one_card_s=out("单卡做完至少", digits=1, book="至少 197.6 s", sym="T_1"),
    ttft_p95_diff_s=out("两种方式 TTFT p95 相差", digits=1, approx=True),
    kv_pool_tokens=out("KV 池能装的 token(推算)", digits=1),
    max_resident_long_input=out("满长时能驻留的长输入请求(推算)", unit="条"),
    max_resident_long_output=out("满长时能驻留的长输出请求(推算)", unit="条"),
    **{f"{k}_{m}": quiet(f"{lab}({ml})", unit=u) for k, (lab, u, _) in MEASURES.items() for m, ml in MIXES.items()},
    total_requests=quiet("请求数", unit="条"),
    arrival_window_s=quiet("到达时长"),
    max_seqs=quiet("最多并发序列", unit="条"),
)


@card(
    "real-replay",
    title="KV 池满了,空着的算力也接不了新请求",
    label="真实回放",
    section="3.1",
    kind="table",
    params=ReplayParams,
    outputs=REPLAY,
    lead="把例题 3-1 的两种到达方式放到一张 RTX PRO 6000 上用 vLLM 实测:Qwen3-8B、vLLM 0.23、KV 池 24 GiB、最多 64 条序列、关闭前缀缓存。",
)
def real_replay(p: ReplayParams) -> View:
    mixes = read_json("real-replay.json")["mixes"]
    o: dict = {
        f"{k}_{m}": given(mixes[m][k], f"{lab}({ml})", u, "data/real-replay.json(书中实测)")
        for k, (lab, u, _) in MEASURES.items()
        for m, ml in MIXES.items()
    }
    eg, _, mix = ld.book_run("uniform")
    tokens, (li, lo) = qu.kv_pool_residency(p.kv_pool_gib * GIB, ld.KV_BYTES, (mix.a, mix.b))
    o.update(
        {
            "ttft_p95_diff_s": o["ttft_p95_s_skewed"] - o["ttft_p95_s_uniform"],
            "mu_per_card_rounded": round(p.mu_per_card),
            "avg_demand_steps_s": eg["avg_demand_steps_s"],
            "total_decode_steps": eg["total_decode_steps"],
            "total_requests": eg["total_requests"],
            "arrival_window_s": eg["duration_s"],
            "max_seqs": p.max_seqs,
            "min_time_one_card_s": eg["total_decode_steps"] / p.mu_per_card,
            "kv_pool_tokens": tokens,
            "max_resident_long_input": li,
            "max_resident_long_output": lo,
        }
    )
    rows = [
        [lab, say(REPLAY, o, f"{pre}[[{k}_uniform]]"), say(REPLAY, o, f"{pre}[[{k}_skewed]]")]
        for k, (lab, _, pre) in MEASURES.items()
    ]
    texts = (say(REPLAY, o, "约 [[mu_per_card_rounded|n]]"), say(REPLAY, o, "[[avg_demand_steps_s|n,d0]]"))
    return View(
        o,
        headline="Qwen3-8B · vLLM 0.23 · 1 × RTX PRO 6000 · KV 池 24 GiB · 64 序列 · 前缀缓存关",
        tables=[
            Table(["实测", mixes["uniform"]["label"], mixes["skewed"]["label"]], rows, title="两种到达方式的实测结果")
        ],
        figures=[
            Figure(
                bk.rate_vs_demand(p.mu_per_card, o["avg_demand_steps_s"], texts),
                "一张卡对平均需求",
                "单卡最多约 [[mu_per_card_rounded]],低于均匀混合的 [[avg_demand_steps_s|d0]];[[total_decode_steps]] 至少 "
                "[[min_time_one_card_s]],而请求 [[arrival_window_s]] 内就全到了。",
            )
        ],
        notes=[
            Note("表中是实测数据,照书中给出。两次都大量积压,带宽下界就能预见:单卡还要兼做 prefill。", "book"),
            Note(
                "推算(书中未印):[[kv_pool_gib]] 的 KV 池约装 [[kv_pool_tokens|n]] 个 token;按满长算,只能同时驻留 "
                "[[max_resident_long_input|n]] 条长输入请求(每条 8,447 token)或 [[max_resident_long_output|n]] 条长输出请求"
                "(每条 3,071 token)。卡住的是 KV 池,不是 64 条序列的上限。这里忽略了 vLLM 按 16 token 分块的粒度。"
            ),
            Note(
                "两次 KV 池都到过 100%:输入、输出长度在哪个时段出现,决定了状态何时释放、新请求何时被接纳,所以整批完成时间接近,TTFT 却差约 16 s。"
            ),
        ],
    )
