"""Section 3.6 从负载需求到训练与服务预算: scaling law and budget split, 例题 3-5 hold-out check,
图 3-28 intercept vs slope, lifetime cost, Llama→Qwen tokens per parameter, MoE FLOPs, 图 3-30
A100-equivalent GPU-hours and calendar time."""
from __future__ import annotations

import math
from typing import Literal

from pydantic import Field, field_validator

from ...calculators import lifetime as lt
from ...calculators import scaling_law as sl
from ...cards import Block, Figure, Note, Params, Stat, Table, View, card, choice, gpu_choice, gpu_type, slider, toggle
from ...charts import axis, bar, figure, hline, layout, line, points, vline, with_refs
from ...data import gpu, read_json

HOLDOUTS = ("2b855b55b", "8b7178b178b")
SEED_RUNS = tuple(f"2b855b55bc4seed{i}" for i in range(1, 5))
EXAMPLE_FIT = ("146m14b14b", "220m7b57b5", "421m32b32b", "619m22b22b", "1b191b91b", "1b566b66b")
EXTRAPOLATION_FROM_D = 178e9     # 示意: the largest D among the eight C4 points of 例题 3-5
LAW_NOTE = ("这条曲线的系数是从书中印出的数字反推的重建值(E = 1.760752,A = 120.715449,B = 385.775028,"
            "α = β = 0.2701515),不是书中的拟合结果;书里没有给出系数,六个拟合点也未能在公开数据中认出。"
            "它能复现书中的 2.583、2.363、+0.009、+0.026、0.0193、298.6B、125.7、73.5。")

_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def sci(x: float | None, sig: int = 4) -> str:
    """1.45438e24 → '1.454×10²⁴' (the book's notation)."""
    if x is None or not isinstance(x, (int, float)) or not math.isfinite(x):
        return "—"
    if x == 0:
        return "0"
    e = math.floor(math.log10(abs(x)))
    m = x / 10 ** e
    if round(m, sig - 1) >= 10:
        m, e = m / 10, e + 1
    return f"{m:.{sig - 1}f}×10{str(e).translate(_SUP)}"


def fin(x: float) -> float | None:
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None


def budgets() -> dict:
    return read_json("training_budgets.json")


# =============================================================================================
# budget-doubling
# =============================================================================================

R = sl.RECONSTRUCTED


class BudgetParams(Params):
    budget_mult: float = slider(2, ge=1, le=16, step=0.5, label="预算倍数 k(新预算 ÷ 原预算)", unit="×")
    alpha: float = slider(R.alpha, ge=0.05, le=1, step=0.01, label="α(参数项指数)", illustrative=True)
    beta: float = slider(R.beta, ge=0.05, le=1, step=0.01, label="β(数据项指数)", illustrative=True)
    budget_flop: float = slider(1e21, ge=1e18, le=1e25, step=1e18, label="原预算 C", unit="FLOP", log=True,
                                illustrative=True)


def budget_outputs(k: float, alpha: float, beta: float, c: float) -> dict:
    n_mult, d_mult = sl.budget_multipliers(k, alpha, beta)
    n0 = sl.optimal_n(c, R.A, R.B, alpha, beta)
    return {"n_mult": n_mult, "d_mult": d_mult, "n_exponent": beta / (alpha + beta),
            "d_exponent": alpha / (alpha + beta), "n_opt_params": n0, "d_opt_tokens": c / (6 * n0),
            "n_opt_params_after": sl.optimal_n(k * c, R.A, R.B, alpha, beta),
            "d_opt_tokens_after": sl.optimal_d(k * c, R.A, R.B, alpha, beta)}


@card("budget-doubling", title="预算翻倍,新增计算分给谁", label="", section="3.6", kind="calculator",
      params=BudgetParams, badges=(("练习 3-8", "ex-3-8"),),
      lead="总预算 C ≈ 6ND 固定时,多给参数就得少给数据。按 Scaling Law 求最优分配,预算变成 k 倍后,参数和数据各长几倍?")
def budget_doubling(p: BudgetParams) -> View:
    o = budget_outputs(p.budget_mult, p.alpha, p.beta, p.budget_flop)
    lo, hi = 18, 25
    grid = [10 ** (lo + (hi - lo) * i / 35) for i in range(36)]
    ns = [sl.optimal_n(c, R.A, R.B, p.alpha, p.beta) for c in grid]
    ds = [c / (6 * n) for c, n in zip(grid, ns)]
    c0, c1 = p.budget_flop, p.budget_flop * p.budget_mult
    n0, n1, d0, d1 = o["n_opt_params"], o["n_opt_params_after"], o["d_opt_tokens"], o["d_opt_tokens_after"]
    lay = layout(axis("训练预算 C (FLOP,对数)", log=True), axis("最优规模(对数)", log=True), height=340)
    lay["annotations"] = [
        {"x": math.log10(c1), "y": math.log10(n1), "ax": math.log10(c0), "ay": math.log10(n0), "xref": "x",
         "yref": "y", "axref": "x", "ayref": "y", "showarrow": True, "arrowhead": 2, "arrowwidth": 2,
         "arrowcolor": "#8a5cf5", "text": ""},
        {"x": math.log10(c1), "y": math.log10(d1), "ax": math.log10(c0), "ay": math.log10(d0), "xref": "x",
         "yref": "y", "axref": "x", "ayref": "y", "showarrow": True, "arrowhead": 2, "arrowwidth": 2,
         "arrowcolor": "#2f7fd8", "text": ""},
    ]
    fig = figure([
        line(grid, ns, "N_opt(参数)", "state"),
        line(grid, ds, "D_opt(训练 token)", "decode"),
        points([c0, c0], [n0, d0], "原预算 C", "ink", size=10),
        points([c1, c1], [n1, d1], f"新预算 {p.budget_mult:g}C", "accent", size=11),
    ], lay)
    v = View(outputs=o, headline=f"预算 ×{p.budget_mult:g}:参数 ×{o['n_mult']:.3f},数据 ×{o['d_mult']:.3f}")
    v.stat("n_mult", "N_opt 增长 $k^{\\beta/(\\alpha+\\beta)}$", "×", digits=3, emphasis=True)
    v.stat("d_mult", "D_opt 增长 $k^{\\alpha/(\\alpha+\\beta)}$", "×", digits=3, emphasis=True)
    v.stat("n_exponent", "参数指数 β/(α+β)", "", digits=3)
    v.stat("d_exponent", "数据指数 α/(α+β)", "", digits=3)
    v.stats += [
        Stat("n_opt_params", "原预算下 N_opt", n0, text=sci(n0) + " 参数", illustrative=True),
        Stat("d_opt_tokens", "原预算下 D_opt", d0, text=sci(d0) + " token", illustrative=True),
        Stat("n_opt_params_after", "新预算下 N_opt", n1, text=sci(n1) + " 参数", illustrative=True),
    ]
    v.figures.append(Figure(fig, "最优参数量与训练 token 随预算增长(对数–对数)",
                            f"预算从 {sci(c0, 3)} 增到 {sci(c1, 3)} FLOP:N_opt {sci(n0, 3)} → {sci(n1, 3)},"
                            f"D_opt {sci(d0, 3)} → {sci(d1, 3)};两条线的斜率分别是 {o['n_exponent']:.3f} 和 {o['d_exponent']:.3f}。",
                            illustrative=True))
    v.notes = [
        Note("$L = E + A/N^{\\alpha} + B/D^{\\beta}$,$C \\approx 6ND$ ⇒ "
             "$N_{opt} = (\\alpha A/\\beta B)^{1/(\\alpha+\\beta)}(C/6)^{\\beta/(\\alpha+\\beta)}$,"
             "$D_{opt} \\propto C^{\\alpha/(\\alpha+\\beta)}$。", "formula"),
        Note("增长倍数只取决于 α 与 β 的比例,与 E、A、B 和起始预算无关。α = β 时两边各拿一半指数:"
             "预算 ×2 → 各 ×√2 ≈ 1.414,×4 → 各 ×2,×9 → 各 ×3。"),
        Note("绝对规模(N_opt、D_opt)用的是重建律的 A、B 和示意的起始预算 10²¹ FLOP;默认 α、β 也是重建值。"
             + "(见例题 3-5)", "illustrative"),
    ]
    return v


# =============================================================================================
# eg-3-5 · 留出检验
# =============================================================================================


def _fit_runs_field():
    return Field(list(EXAMPLE_FIT), min_length=5, max_length=24,
                 description="fit 模式下用来拟合的 run 名(CSV 的 run 列),每项一个",
                 json_schema_extra={"control": "list", "step": None, "unit": "", "label": "拟合用的 run(fit 模式)",
                                    "item_ge": None, "item_le": None, "illustrative": False,
                                    "items": {"type": "string", "enum": sorted(sl.c4_runs())}, "uniqueItems": True})


class HoldoutParams(Params):
    law: Literal["book", "fit"] = choice("book", {"book": "书中数字反推的重建律(示意)", "fit": "用所选 run 自己拟合"},
                                         label="系数来源")
    fit_runs: list[str] = _fit_runs_field()
    tied: bool = toggle(True, label="拟合时令 α = β")

    @field_validator("fit_runs")
    @classmethod
    def _known(cls, v: list[str]) -> list[str]:
        runs = sl.c4_runs()
        for x in v:
            if x not in runs:
                raise ValueError(f"没有名为 “{x[:40]}” 的 run(见 datablations_c4_points.csv 的 run 列)")
        if len(set(v)) != len(v):
            raise ValueError("同一个 run 只能选一次")
        return v


def candidate_runs() -> list[sl.Run]:
    """Single-epoch C4 runs with N < 2×10⁹ (the pool the book's six fit points came from)."""
    return sorted((r for r in sl.c4_runs().values() if r.epochs == 1 and not r.seed and r.params < 2e9),
                  key=lambda r: (r.params, r.tokens))


def holdout_outputs(law: sl.Law) -> dict:
    runs = sl.c4_runs()
    h = [runs[x] for x in HOLDOUTS]
    pred = [sl.loss(law, r.params, r.tokens) for r in h]
    res = [pp - r.loss for pp, r in zip(pred, h)]
    return {"obs_h1": h[0].loss, "obs_h2": h[1].loss, "pred_h1": pred[0], "pred_h2": pred[1],
            "resid_h1": res[0], "resid_h2": res[1], "holdout_rmse": sl.rmse(res),
            "E": law.E, "A": law.A, "B": law.B, "alpha": law.alpha, "beta": law.beta}


def _href(law: str, fit_runs: list[str], tied: bool) -> str:
    """Card link for a fit setting (run names are [a-z0-9] only, so no quoting is needed)."""
    q = [f"law={law}"] + [f"fit_runs={x}" for x in fit_runs] + [f"tied={'true' if tied else 'false'}"]
    return "/cards/eg-3-5?" + "&".join(q) + "#eg-3-5"


@card("eg-3-5", title="留出检验", label="例题 3-5", section="3.6", kind="chart", params=HoldoutParams,
      lead="用 datablations 的 C4 小模型拟合 Scaling Law,再拿两个没参与拟合的更大模型检验:预测与实测差多少?"
           "也可以自己挑几个 run 重新拟合,比较拟合误差和留出误差。")
def eg_3_5(p: HoldoutParams) -> View:
    runs = sl.c4_runs()
    fit_res = None
    if p.law == "fit":
        sel = [runs[x] for x in p.fit_runs]
        fit_res = sl.fit([r.params for r in sel], [r.tokens for r in sel], [r.loss for r in sel], tied=p.tied)
        law = fit_res.law
    else:
        law = sl.RECONSTRUCTED
    o = holdout_outputs(law)
    o["fit_rmse"] = fit_res.fit_rmse if fit_res else None
    o["n_fit_runs"] = len(p.fit_runs) if fit_res else 6
    leak = [x for x in p.fit_runs if x in HOLDOUTS or x in SEED_RUNS] if fit_res else []

    # --- chart: loss against N, context runs, the law at the two held-out D, hold-out residuals
    cand = candidate_runs()
    ctx = [r for r in runs.values() if r.epochs == 1 and not r.seed and r.run not in HOLDOUTS]
    h = [runs[x] for x in HOLDOUTS]
    ngrid = [10 ** (7 + 3.2 * i / 40) for i in range(41)]
    traces = [
        points([r.params for r in ctx], [r.loss for r in ctx], "datablations C4 单轮 run(背景)", "idle", size=7,
               opacity=0.55, text=[r.run for r in ctx], hovertemplate="%{text}<br>N=%{x:.3g} L=%{y:.4f}<extra></extra>"),
        line(ngrid, [sl.loss(law, n, 55e9) for n in ngrid], "律:D = 55B", "prefill", dash="dot", width=2),
        line(ngrid, [sl.loss(law, n, 178e9) for n in ngrid], "律:D = 178B", "decode", dash="dot", width=2),
    ]
    if fit_res:
        sel = [runs[x] for x in p.fit_runs]
        traces.append(points([r.params for r in sel], [r.loss for r in sel], "拟合点(你选的)", "accent", size=10,
                             symbol="diamond"))
    traces += [
        points([r.params for r in h], [r.loss for r in h], "留出点 实测", "backlog", size=12),
        points([r.params for r in h], [o["pred_h1"], o["pred_h2"]], "留出点 预测", "backlog", size=12,
               symbol="circle-open"),
        line([h[0].params, h[0].params, None, h[1].params, h[1].params],
             [h[0].loss, o["pred_h1"], None, h[1].loss, o["pred_h2"]], "预测 − 实测", "backlog", width=2),
    ]
    main = figure(traces, layout(axis("参数量 N(对数)", log=True, range_=(7, 10.2)),
                                 axis("C4 测试损失 (nats/token)", range_=(2.2, 4.2)), height=380))
    seed_runs = [runs["2b855b55b"]] + [runs[x] for x in SEED_RUNS]
    strip = figure([
        points([r.loss for r in seed_runs[1:]], ["2.81B / 55B"] * 4, "换随机种子重跑(4 次)", "idle", size=11),
        points([seed_runs[0].loss], ["2.81B / 55B"], "书中留出点 2.574", "backlog", size=12),
        points([o["pred_h1"]], ["2.81B / 55B"], "律的预测", "backlog", size=12, symbol="circle-open"),
    ], layout(axis("C4 测试损失 (nats/token)"), axis(""), height=170, margin=(90, 16, 8, 44)))

    label = "重建律(示意)" if not fit_res else ("你的拟合(α = β)" if p.tied else "你的拟合(α、β 各自拟合)")
    v = View(outputs=o, headline=f"{label}:H1 {o['resid_h1']:+.3f},H2 {o['resid_h2']:+.3f},留出 RMSE {o['holdout_rmse']:.4f}")
    ill = not fit_res
    v.stat("obs_h1", "H1 实测(2.81B,55B token)", "nats/token", digits=3)
    v.stat("obs_h2", "H2 实测(8.67B,178B token)", "nats/token", digits=3)
    v.stat("pred_h1", "H1 预测", "nats/token", digits=3, illustrative=ill)
    v.stat("pred_h2", "H2 预测", "nats/token", digits=3, illustrative=ill)
    v.stats += [
        Stat("resid_h1", "H1 预测 − 实测", o["resid_h1"], text=f"{o['resid_h1']:+.3f}", illustrative=ill),
        Stat("resid_h2", "H2 预测 − 实测", o["resid_h2"], text=f"{o['resid_h2']:+.3f}", illustrative=ill),
    ]
    v.stat("holdout_rmse", "留出 RMSE", "nats/token", digits=4, approx=not fit_res, emphasis=True, illustrative=ill)
    if fit_res:
        v.stat("fit_rmse", f"拟合点 RMSE({len(p.fit_runs)} 个点)", "nats/token", digits=4, emphasis=True)
    v.stats += [Stat(k, k if k in ("E", "A", "B") else ("α" if k == "alpha" else "β"), o[k],
                     digits=(7 if k in ("alpha", "beta") else 6) if ill else None, sig=None if ill else 6,
                     illustrative=ill) for k in ("E", "A", "B", "alpha", "beta")]
    v.figures = [
        Figure(main, "例题 3-5 · 六点拟合、两点留出(datablations · C4)",
               f"灰点是 datablations 的 C4 单轮 run,书中用于拟合的六个点未能识别;红色实心为两个留出点的实测 "
               f"{o['obs_h1']:.3f}、{o['obs_h2']:.3f},空心为预测 {o['pred_h1']:.3f}、{o['pred_h2']:.3f},竖线是误差。",
               illustrative=ill),
        Figure(strip, "同一配置换种子:2.81B 模型、55B token",
               "同样 2.81B/55B 的配置换四个随机种子,损失在 2.5682–2.5706 之间,书中留出点 2.5741;"
               f"种子之间的差(约 0.006)与 H1 的误差 {o['resid_h1']:+.3f} 同一量级。"),
    ]
    rows, ill_cells = [], set()
    if fit_res:
        for i, r in enumerate(runs[x] for x in p.fit_runs):
            rows.append([r.run, "拟合", sci(r.params, 3), f"{r.tokens / 1e9:g}B", f"{r.loss:.4f}",
                         f"{sl.loss(law, r.params, r.tokens):.4f}", f"{fit_res.residuals[i]:+.4f}"])
    for j, (r, key) in enumerate(zip(h, ("h1", "h2"))):
        rows.append([r.run, f"留出 H{j + 1}", sci(r.params, 3), f"{r.tokens / 1e9:g}B", f"{r.loss:.4f}",
                     f"{o['pred_' + key]:.4f}", f"{o['resid_' + key]:+.4f}"])
        if ill:
            ill_cells |= {(len(rows) - 1, 5), (len(rows) - 1, 6)}
    v.tables.append(Table(["run", "用途", "N", "D", "实测 L", "预测 L", "预测 − 实测"], rows,
                          title="拟合点与留出点" if fit_res else "留出点(书中的六个拟合点未能识别)",
                          illustrative_cells=ill_cells))
    sel = set(p.fit_runs)
    cand_rows = []
    for r in cand:
        new = [x for x in p.fit_runs if x != r.run] if r.run in sel else list(p.fit_runs) + [r.run]
        cand_rows.append({"run": r.run, "n": sci(r.params, 3), "d": f"{r.tokens / 1e9:g}B", "loss": f"{r.loss:.3f}",
                          "selected": r.run in sel and bool(fit_res),
                          "href": _href(law="fit", fit_runs=new, tied=p.tied) if 5 <= len(new) <= 24 else ""})
    v.blocks.append(Block("diagrams/eg-3-5.html", {
        "runs": cand_rows, "fit_mode": bool(fit_res), "n_sel": len(p.fit_runs),
        "href_example": _href(law="fit", fit_runs=list(EXAMPLE_FIT), tied=p.tied),
        "href_untied": _href(law="fit", fit_runs=list(p.fit_runs), tied=False),
        "href_book": "/cards/eg-3-5#eg-3-5"}))
    v.notes = [Note("$L(N, D) = E + A/N^{\\alpha} + B/D^{\\beta}$;预测 − 实测 > 0 表示预测偏高。"
                    "留出 RMSE $= \\sqrt{(r_1^2 + r_2^2)/2}$。", "formula")]
    if not fit_res:
        v.notes.append(Note(LAW_NOTE, "illustrative"))
    else:
        v.notes.append(Note("拟合方法:在 L 上做不加权最小二乘,A、B ≥ 0;对固定的 α(β)系数是线性的,外层在 "
                            "[0.01, 2] 上网格搜索再细化,内层用 numpy 最小二乘。这不是书中的拟合流程,只是让你看到:"
                            "拟合点的误差可以很小,留出点的误差却可能大得多。", "note"))
    if leak:
        v.notes.append(Note(f"你选的拟合点里有留出点或它的重跑({'、'.join(leak)}),留出误差因此不再是真正的检验。", "warn"))
    v.notes.append(Note("拟合点上的误差只说明曲线贴住了用来求系数的数据;能不能往更大的模型外推,要看没参与拟合的点。"
                        "同一配置换种子结果也会变,只有多 seed 重复才能分清趋势与偶然。"))
    return v


# =============================================================================================
# fig-3-28 · 训练投入是截距,单次调用是斜率
# =============================================================================================

GPU_IDS = {"h100-sxm": "h100-sxm", "a100-sxm": "a100-80gb-sxm"}


def peak_flops(gid: str) -> float:
    if gid == "h800":
        return budgets()["h800_bf16_tflops"] * 1e12
    return gpu(GPU_IDS.get(gid, gid)).bf16_tflops * 1e12   # a preset, or a reader's custom:GB,TB/s,TFLOP/s


class InterceptParams(Params):
    target_loss: float = slider(2.9, ge=2.5, le=3.5, step=0.01, label="目标损失 L*", unit="nats/token")
    prompt_tokens: int = slider(512, ge=1, le=8192, step=1, label="每次输入 P", unit="token", log=True)
    gen_tokens: int = slider(128, ge=1, le=4096, step=1, label="每次输出 G", unit="token", log=True)
    gpu: gpu_type(["h100-sxm", "a100-sxm"]) = gpu_choice("h100-sxm", {"h100-sxm": "H100 SXM(989.4 TFLOP/s)",
                                                                    "a100-sxm": "A100 SXM(312 TFLOP/s)"}, label="加速器")
    mfu_pct: float = slider(40, ge=5, le=100, step=1, label="MFU", unit="%")
    n_small: float = slider(1e8, ge=5e7, le=3e9, step=1e7, label="小模型 N", unit="参数", log=True)
    n_large: float = slider(5e8, ge=5e7, le=3e9, step=1e7, label="大模型 N", unit="参数", log=True)


def intercept_outputs(p: InterceptParams, law: sl.Law = sl.RECONSTRUCTED) -> dict:
    rate = lt.sustained_rate(peak_flops(p.gpu), p.mfu_pct / 100)
    d_s = sl.tokens_for_loss(law, p.n_small, p.target_loss)
    d_l = sl.tokens_for_loss(law, p.n_large, p.target_loss)
    c0_s = lt.gpu_seconds(sl.train_flops(p.n_small, d_s), rate) / lt.HOUR
    c0_l = lt.gpu_seconds(sl.train_flops(p.n_large, d_l), rate) / lt.HOUR
    c_s = lt.gpu_seconds(sl.call_flops(p.n_small, p.prompt_tokens, p.gen_tokens), rate)
    c_l = lt.gpu_seconds(sl.call_flops(p.n_large, p.prompt_tokens, p.gen_tokens), rate)
    dc0 = c0_s - c0_l
    dc = c_l - c_s
    q = lt.break_even(dc0 * lt.HOUR, dc) if math.isfinite(dc0) and dc0 > 0 and dc > 0 else math.nan
    bc = budgets()["beyond_chinchilla"]
    return {"sustained_tflops": rate / 1e12, "d_small_btokens": fin(d_s / 1e9), "d_large_btokens": fin(d_l / 1e9),
            "train_gpu_h_small": fin(c0_s), "train_gpu_h_large": fin(c0_l), "delta_train_gpu_h": fin(dc0),
            "call_gpu_s_small": c_s, "call_gpu_s_large": c_l, "saving_gpu_s_per_call": dc,
            "q_star_calls": fin(q), "beyond_chinchilla_models": bc["models"],
            "beyond_chinchilla_max_tokens_per_param": bc["max_tokens_per_param"],
            "extrapolation_from_btokens": EXTRAPOLATION_FROM_D / 1e9}


@card("fig-3-28", title="训练投入是截距,单次调用是斜率", label="图 3-28", section="3.6", kind="chart",
      params=InterceptParams,
      lead="同样达到目标损失,小模型要多训练(截距高),但每次调用更省(斜率低)。两条总成本线在 Q* 相交。")
def fig_3_28(p: InterceptParams) -> View:
    o = intercept_outputs(p)
    law = sl.RECONSTRUCTED
    ok = o["train_gpu_h_small"] is not None and o["train_gpu_h_large"] is not None
    v = View(outputs=o, headline=f"目标损失 {p.target_loss:g} · P={p.prompt_tokens} · G={p.gen_tokens} · "
                                 f"{'H100 SXM' if p.gpu == 'h100-sxm' else 'A100 SXM'} {p.mfu_pct:g}% MFU = "
                                 f"{o['sustained_tflops']:.2f} TFLOP/GPU·s")
    v.stat("sustained_tflops", "折算速率 峰值 × MFU", "TFLOP/s", digits=2)
    v.stat("d_small_btokens", f"小模型({sci(p.n_small, 2)})所需训练 token", "B", digits=1, approx=True, illustrative=True)
    v.stat("d_large_btokens", f"大模型({sci(p.n_large, 2)})所需训练 token", "B", digits=2, illustrative=True)
    v.stat("train_gpu_h_small", "小模型训练 C₀", "GPU·h", digits=1, approx=True, illustrative=True)
    v.stat("train_gpu_h_large", "大模型训练 C₀", "GPU·h", digits=2, illustrative=True)
    v.stat("delta_train_gpu_h", "小模型多花 ΔC₀", "GPU·h", digits=1, illustrative=True, emphasis=True)
    v.stats += [
        Stat("call_gpu_s_small", "小模型每次调用", o["call_gpu_s_small"], "GPU·s", sig=3),
        Stat("call_gpu_s_large", "大模型每次调用", o["call_gpu_s_large"], "GPU·s", sig=4),
        Stat("saving_gpu_s_per_call", "每次调用省 Δc", o["saving_gpu_s_per_call"], "GPU·s", sig=3, approx=True,
             emphasis=True),
        Stat("q_star_calls", "交点 Q* = ΔC₀/Δc", o["q_star_calls"], text=(sci(o["q_star_calls"], 4) + " 次调用")
             if o["q_star_calls"] else "无交点", illustrative=True, emphasis=True),
    ]
    if ok:
        qs = sorted({10 ** (6 + 4 * i / 40) for i in range(41)} | ({o["q_star_calls"]} if o["q_star_calls"] and
                                                                     1e6 <= o["q_star_calls"] <= 1e10 else set()))
        ys = [o["train_gpu_h_small"] + q * o["call_gpu_s_small"] / 3600 for q in qs]
        yl = [o["train_gpu_h_large"] + q * o["call_gpu_s_large"] / 3600 for q in qs]
        refs = []
        tr = [line(qs, ys, f"小模型 {sci(p.n_small, 2)}:多训练、调用便宜", "prefill"),
              line(qs, yl, f"大模型 {sci(p.n_large, 2)}:少训练、调用贵", "decode")]
        if o["q_star_calls"] and 1e6 <= o["q_star_calls"] <= 1e10:
            qv = o["q_star_calls"]
            tr.append(points([qv], [o["train_gpu_h_small"] + qv * o["call_gpu_s_small"] / 3600], "交点 Q*", "accent", size=12))
            refs.append(vline(qv, f"Q*≈{sci(qv, 3)}", log=True))
        main = figure(tr, with_refs(layout(axis("累计调用次数 Q(对数)", log=True, range_=(6, 10)),
                                           axis("累计 GPU 小时 C₀ + Q·c(对数)", log=True), height=340), *refs))
        v.figures.append(Figure(main, "图 3-28 · 训练投入是截距,单次调用是斜率",
                                f"小模型训练约 {o['train_gpu_h_small']:.1f} GPU 小时,大模型 {o['train_gpu_h_large']:.2f};"
                                f"每次调用小模型省 {o['saving_gpu_s_per_call']:.3g} GPU 秒;两线在约 "
                                f"{sci(o['q_star_calls'], 3) if o['q_star_calls'] else '—'} 次调用处相交。",
                                illustrative=True))
    # iso-loss curve D(N) at L*
    ngrid = [10 ** (math.log10(5e7) + (math.log10(3e9) - math.log10(5e7)) * i / 40) for i in range(41)]
    dd = [sl.tokens_for_loss(law, n, p.target_loss) / 1e9 for n in ngrid]
    inside = [d if math.isfinite(d) and d <= 178 else None for d in dd]
    beyond = [d if math.isfinite(d) and d >= 178 else None for d in dd]
    for i in range(1, len(dd)):      # join the two segments at the boundary
        if inside[i] is None and inside[i - 1] is not None and beyond[i] is not None:
            beyond[i - 1] = inside[i - 1]
        if beyond[i - 1] is not None and inside[i] is not None and inside[i - 1] is None:
            inside[i - 1] = beyond[i - 1]
    pts = [(n, d) for n, d in ((p.n_small, o["d_small_btokens"]), (p.n_large, o["d_large_btokens"])) if d]
    iso = figure([
        line(ngrid, inside, "等损失线(数据范围内)", "ink"),
        line(ngrid, beyond, "外推(超出 178B)", "ink", dash="dash"),
        points([x for x, _ in pts], [y for _, y in pts], "两个模型", "accent", size=11),
    ], with_refs(layout(axis("参数量 N(对数)", log=True), axis("所需训练 token D (10⁹,对数)", log=True), height=280),
                 hline(178, "数据范围上限 178B(示意)", "idle", log=True)))
    v.figures.append(Figure(iso, f"达到 L* = {p.target_loss:g} 所需的训练 token",
                            "模型越小,要达到同样损失所需的 token 越多;虚线段超出了拟合数据的范围,是外推。", illustrative=True))
    v.notes = [
        Note("训练 $C_0 = 6ND/R$,每次调用 $c = 2N[P + (G-1)]/R$,$R$ = 峰值 × MFU;"
             "$Q^* = \\Delta C_0/\\Delta c$。训练和服务用同一个 $R$,所以 Q* 只取决于运算量,与 MFU 无关。", "formula"),
        Note(LAW_NOTE + " 所需 token 和训练 GPU 小时都依赖这条律;395.76 TFLOP/s 和每次调用的 GPU 秒不依赖它。",
             "illustrative"),
        Note("书中的图还画了 1B 和 2.81B(外推)两条线,但正文没有给出截距,这里不画。"),
        Note(f"Beyond Chinchilla-Optimal 把推理需求算进来:{o['beyond_chinchilla_models']} 个模型(150M–6B),"
             f"150M 的模型训练量最高达每参数 {o['beyond_chinchilla_max_tokens_per_param']:,} token。", "book"),
    ]
    if not ok:
        v.notes.insert(0, Note(f"按这条律,{sci(p.n_small, 2)} 或 {sci(p.n_large, 2)} 的模型无论训练多少 token 都到不了 "
                               f"L* = {p.target_loss:g}(律的下限 E + A/N^α 已高于目标)。", "warn"))
    return v


# =============================================================================================
# lifetime-cost · Q* = ΔC₀ / Δc
# =============================================================================================


class LifetimeParams(Params):
    delta_train_gpu_h: float = slider(100_000, ge=0, le=1e6, step=1000, label="小模型多训练 ΔC₀", unit="H100 GPU·h")
    saving_gpu_s_per_task: float = slider(0.72, ge=0.01, le=10, step=0.01, label="每个成功任务省 Δc", unit="GPU·s")
    tasks: float = slider(2e8, ge=1e6, le=1e11, step=1e6, label="生命周期任务数 Q", unit="项", log=True)


def lifetime_outputs(dc0_h: float, dc_s: float, tasks: float) -> dict:
    net_s = lt.net_saving(dc0_h * lt.HOUR, dc_s, tasks)
    return {"q_star_tasks": fin(lt.break_even(dc0_h * lt.HOUR, dc_s)),
            "serving_saved_gpu_h": tasks * dc_s / lt.HOUR, "net_saving_gpu_h": net_s / lt.HOUR,
            "choose_small": net_s > 0, "cost_gap_gpu_h": abs(net_s) / lt.HOUR}


@card("lifetime-cost", title="Q* = ΔC₀ / Δc · 选哪个模型取决于未来调用量", label="", section="3.6", kind="calculator",
      params=LifetimeParams, badges=(("练习 3-10 后半", "ex-3-10"),),
      lead="小模型多花一笔训练,换来每个任务更省。任务量不到 Q* 时多花的训练收不回来,超过 Q* 才划算。")
def lifetime_cost(p: LifetimeParams) -> View:
    o = lifetime_outputs(p.delta_train_gpu_h, p.saving_gpu_s_per_task, p.tasks)
    q_star = o["q_star_tasks"]
    qs = sorted({10 ** (6 + 5 * i / 50) for i in range(51)} | {p.tasks} | ({q_star} if q_star and 1e6 <= q_star <= 1e11 else set()))
    extra_train = [p.delta_train_gpu_h] * len(qs)
    extra_serve = [q * p.saving_gpu_s_per_task / 3600 for q in qs]
    marks = [q for q in (2e8, 1e9) if q != p.tasks]
    tr = [line(qs, extra_train, "小模型:多出的训练 ΔC₀", "prefill"),
          line(qs, extra_serve, "大模型:多出的服务 Q·Δc", "decode"),
          points(marks, [q * p.saving_gpu_s_per_task / 3600 for q in marks], "两亿 / 十亿项", "ink", size=9),
          points([p.tasks], [p.tasks * p.saving_gpu_s_per_task / 3600], f"当前 Q = {sci(p.tasks, 3)}", "accent", size=12)]
    refs = [vline(q_star, f"Q*≈{sci(q_star, 3)}", log=True)] if q_star and 1e6 <= q_star <= 1e11 else []
    fig = figure(tr, with_refs(layout(axis("生命周期任务数 Q(对数)", log=True, range_=(6, 11)),
                                      axis("两者不同的那部分成本 (GPU·h,对数)", log=True), height=330), *refs))
    choice_txt = "选多训练的小模型" if o["choose_small"] else "留用大模型"
    v = View(outputs=o, headline=f"Q = {sci(p.tasks, 3)} 项:{choice_txt},总成本差 {o['cost_gap_gpu_h']:,.0f} GPU·h")
    v.stats += [
        Stat("q_star_tasks", "反转点 Q* = ΔC₀/Δc", q_star, text=(sci(q_star, 3) + " 项") if q_star else "—",
             emphasis=True),
    ]
    v.stat("serving_saved_gpu_h", "服务省下 Q·Δc", "GPU·h", digits=0)
    v.stat("net_saving_gpu_h", "净节省 Q·Δc − ΔC₀", "GPU·h", digits=0, emphasis=True)
    v.stats.append(Stat("choose_small", "选择", o["choose_small"], text=choice_txt))
    v.stat("cost_gap_gpu_h", "总成本差 |净节省|", "GPU·h", digits=0)
    v.figures.append(Figure(fig, "多出的训练 vs 多出的服务",
                            f"水平线是小模型多花的 {p.delta_train_gpu_h:,.0f} GPU 小时训练,斜线是大模型每项多用 "
                            f"{p.saving_gpu_s_per_task:g} GPU 秒累计出的服务成本,两者在 Q*≈{sci(q_star, 3) if q_star else '—'} 项相交。"))
    v.notes = [
        Note("$C_{life}(m) = C_0(m) + Q\\cdot\\sum_j w_j c_j(m)$;两模型之差为 $\\Delta C_0 - Q\\,\\Delta c$,"
             "$Q^* = \\Delta C_0/\\Delta c$(换算:1 GPU·h = 3600 GPU·s)。", "formula"),
        Note("比较前,两个模型都要满足相同的质量、时限与完成条件;$c_j$ 要把失败和重试算进去,Δc 是每个“成功”任务的节省。"),
        Note("图里只画两者不同的部分:两模型共有的成本对两条线一样,不改变交点。"),
    ]
    return v


# =============================================================================================
# tab-llama-qwen
# =============================================================================================


class LlamaQwenParams(Params):
    chinchilla_tokens_per_param: float = slider(20, ge=20, le=20, step=1, label="计算最优基准(固定)", unit="token/参数")


def llama_qwen_outputs(tpp: float = 20) -> dict:
    b = budgets()
    o: dict = {}
    for i, m in enumerate(b["open_models"], 1):
        dn = m["tokens"] / m["params"]
        o[f"row{i}_d_over_n"] = dn
        o[f"row{i}_six_nd_flop"] = sl.train_flops(m["params"], m["tokens"])
        o[f"row{i}_x_chinchilla"] = dn / tpp
    o["chinchilla_8b_btokens"] = tpp * 8e9 / 1e9
    o.update(b["quality"])
    o["mmlu_gap_pts"] = round(o["mmlu_llama2_70b"] - o["mmlu_llama3_8b"], 6)
    o["triviaqa_gap_pts"] = round(o["triviaqa_llama2_70b"] - o["triviaqa_llama3_8b"], 6)
    return o


@card("tab-llama-qwen", title="从 Llama 到 Qwen:数据越给越多", label="", section="3.6", kind="table",
      params=LlamaQwenParams,
      lead="同为 7B–8B 级别,训练 token 从 1T 涨到 36T,每参数 token 数比 Chinchilla 的 20 高出一到两个数量级。")
def tab_llama_qwen(p: LlamaQwenParams) -> View:
    b = budgets()
    o = llama_qwen_outputs(p.chinchilla_tokens_per_param)
    approx = ["", "", "约 ", "约 ", "约 "]
    rows = []
    for i, m in enumerate(b["open_models"], 1):
        dn = o[f"row{i}_d_over_n"]
        rows.append([m["name"] + (f"({m['tag']})" if m["tag"] else ""), f"{approx[i - 1]}{m['tokens'] / 1e12:g}T",
                     approx[i - 1] + f"{dn:,.0f}", approx[i - 1] + sci(o[f"row{i}_six_nd_flop"], 4 if i == 5 else 3),
                     f"{o[f'row{i}_x_chinchilla']:,.3g}×"])
    v = View(outputs=o, headline=f"Chinchilla 基准:8B 模型约 {o['chinchilla_8b_btokens']:g}B token;实际 1T–36T")
    v.tables.append(Table(["模型", "训练 token", "D/N", "6ND (FLOPs)", f"× Chinchilla({p.chinchilla_tokens_per_param:g})"],
                          rows, title="D/N 与 6ND(N 按“模型”列的约数计)"))
    v.stat("chinchilla_8b_btokens", "8B 的计算最优 token(20 token/参数)", "B", digits=0)
    v.stat("row5_d_over_n", "Qwen3 每参数 token", "", digits=0, approx=True, emphasis=True)
    v.stat("mmlu_gap_pts", "MMLU:Llama 2 70B − Llama 3 8B", "分", digits=1)
    v.stat("triviaqa_gap_pts", "TriviaQA-Wiki:同上", "分", digits=1)
    names = [m["name"].split(" · ")[0] for m in b["open_models"]]
    dns = [o[f"row{i}_d_over_n"] for i in range(1, 6)]
    fig = figure([bar(names, dns, "D/N", "decode", text=[f"{x:,.0f}" for x in dns])],
                 with_refs(layout(axis(""), axis("训练 token / 参数(对数)", log=True), height=280, legend=False),
                           hline(p.chinchilla_tokens_per_param, "Chinchilla 20", "target", dash="dash", log=True)))
    v.figures.append(Figure(fig, "每参数训练 token(对数)", "五个模型的 D/N 从 149 到约 4,500,虚线是计算最优基准 20。"))
    v.notes = [
        Note("这不是 Scaling Law 拟合错了,而是目标不同:计算最优只管固定训练预算下的损失,开发者还要算上线后的服务成本。"),
        Note(f"质量门槛要按自己的任务定:Llama 3 8B 与 Llama 2 70B 在 MMLU 上 {o['mmlu_llama3_8b']}/{o['mmlu_llama2_70b']},"
             f"在 TriviaQA-Wiki 上 {o['triviaqa_llama3_8b']}/{o['triviaqa_llama2_70b']},差距分别是 "
             f"{o['mmlu_gap_pts']:.1f} 与 {o['triviaqa_gap_pts']:.1f} 分,不能用一个分数概括。", "book"),
        Note("D/N 用“模型”列的约数计算(如 2T ÷ 7B ≈ 286);Qwen2.5、Qwen3 的 token 数是系列披露。"),
    ]
    return v


# =============================================================================================
# moe-flops
# =============================================================================================


class MoeParams(Params):
    model: Literal["v4-flash", "v4-pro"] = choice("v4-flash", {"v4-flash": "DeepSeek-V4-Flash", "v4-pro": "DeepSeek-V4-Pro"},
                                                  label="预设")
    moe_layers: int | None = slider(None, ge=1, le=128, step=1, label="MoE 层数 n_L(推断)", placeholder="按预设")
    hidden: int | None = slider(None, ge=1024, le=16384, step=1, label="隐藏维 h(推断)", placeholder="按预设")
    expert_ffn: int | None = slider(None, ge=256, le=8192, step=1, label="专家 FFN 宽 f(推断)", placeholder="按预设")
    routed: int = slider(6, ge=1, le=16, step=1, label="每 token 路由专家数", unit="个")
    shared: int = slider(1, ge=0, le=4, step=1, label="共享专家数", unit="个")
    tokens: float | None = slider(None, ge=1e12, le=1e14, step=1e11, label="训练 token", unit="token", log=True,
                                  placeholder="按预设")


def moe_outputs(model: str, n_l=None, h=None, f=None, routed=6, shared=1, tokens=None) -> dict:
    m = budgets()["moe"][model]
    n_l, h, f = n_l or m["moe_layers"], h or m["hidden"], f or m["expert_ffn"]
    tokens = tokens or m["tokens"]
    per_tok = sl.moe_expert_flops_per_token(n_l, h, f, routed, shared)
    return {"gflop_per_token": per_tok / 1e9, "total_flop": per_tok * tokens, "total_params": m["total_params"],
            "active_params": m["active_params"], "train_tokens": tokens,
            "active_frac_pct": 100 * m["active_params"] / m["total_params"]}


@card("moe-flops", title="MoE:总参数与激活参数、专家的训练运算量", label="", section="3.6", kind="calculator",
      params=MoeParams,
      lead="MoE 模型要同时报总参数和每 token 激活的参数:前者决定放权重要多大容量,后者决定每个 token 的运算量。")
def moe_flops(p: MoeParams) -> View:
    b = budgets()["moe"]
    m = b[p.model]
    o = moe_outputs(p.model, p.moe_layers, p.hidden, p.expert_ffn, p.routed, p.shared, p.tokens)
    n_l, h, f = p.moe_layers or m["moe_layers"], p.hidden or m["hidden"], p.expert_ffn or m["expert_ffn"]
    v = View(outputs=o, headline=f"{m['name']}:{o['total_params'] / 1e9:,.0f}B 总参数 / 约 {o['active_params'] / 1e9:,.0f}B 激活,"
                                 f"{o['train_tokens'] / 1e12:g}T token")
    v.stat("gflop_per_token", f"主干专家训练量 18·{n_l}·{h}·{f}·({p.routed}+{p.shared})", "GFLOPs/token", digits=4,
           approx=True, emphasis=True)
    v.stats += [
        Stat("total_flop", "× 训练 token", o["total_flop"], text="≈ " + sci(o["total_flop"], 6) + " FLOPs", emphasis=True),
        Stat("total_params", "总参数", o["total_params"], text=f"{o['total_params'] / 1e9:,.0f}B"),
        Stat("active_params", "激活参数", o["active_params"], text=f"≈{o['active_params'] / 1e9:,.0f}B"),
        Stat("train_tokens", "训练 token", o["train_tokens"], text=f"{o['train_tokens'] / 1e12:g}T"),
    ]
    v.stat("active_frac_pct", "激活 ÷ 总参数", "%", digits=1)
    names = [b[k]["name"] for k in ("deepseek-v3", "v4-flash", "v4-pro")]
    fig = figure([
        bar(names, [b[k]["total_params"] / 1e9 for k in ("deepseek-v3", "v4-flash", "v4-pro")], "总参数(容量)", "state"),
        bar(names, [b[k]["active_params"] / 1e9 for k in ("deepseek-v3", "v4-flash", "v4-pro")], "每 token 激活(运算)", "prefill"),
    ], layout(axis(""), axis("参数 (10⁹,对数)", log=True), height=290, barmode="group"))
    v.figures.append(Figure(fig, "总参数 vs 激活参数",
                            "DeepSeek-V3 671B/约 37B,V4-Flash 284B/约 13B,V4-Pro 1.6T/约 49B:激活参数只占总参数的几个百分点。"))
    v.tables.append(Table(["模型", "总参数", "激活参数", "预训练 token", "专家训练量 (GFLOPs/token)"], [
        [b["deepseek-v3"]["name"], "671B", "约 37B", "14.8T", "—(书中未给)"],
        [b["v4-flash"]["name"], "284B", "约 13B", "32T", "≈45.4495"],
        [b["v4-pro"]["name"], "1.6T", "约 49B", "33T", "≈169.2465"],
    ], title="书中列出的三个 MoE 模型"))
    v.notes = [
        Note("每个被选中的专家有 3 个矩阵(SwiGLU 的 gate、up、down),每次乘加 2 FLOP,训练算前向、输入梯度、权重梯度 3 遍:"
             "$18\\cdot n_L\\cdot h\\cdot f\\cdot(k_{routed} + k_{shared})$。", "formula"),
        Note(f"书中只印了乘积;n_L·h·f 拆成 {m['moe_layers']}·{m['hidden']}·{m['expert_ffn']} 是本站的推断,"
             "能复现书中每一位数字(45.449478、1.4543833×10²⁴、169.246458、5.5851331×10²⁴)。", "illustrative"),
        Note("损失权重不是执行比例:MTP 的损失权重 0.3,并不表示辅助计算只做了 30%。"),
        Note("总专家数加倍而每 token 选中数不变:参数容量翻倍,每 token 专家运算不变;选中数加倍(12 + 1)则运算近乎翻倍"
             "(V4-Flash:45.45 → 84.41 GFLOPs/token)。见练习 3-9。"),
    ]
    return v


# =============================================================================================
# fig-3-30 · GPU 小时折算成 A100 等效
# =============================================================================================

GPU_NAMES = {"h100-sxm": "H100 SXM", "h800": "H800", "a100-sxm": "A100 SXM"}
GPU_ROLE = {"h100-sxm": "decode", "h800": "prefill", "a100-sxm": "state"}


class A100Params(Params):
    gpu_hours: float = slider(1, ge=1, le=1e9, step=1, label="报告的 GPU 小时", unit="GPU·h", log=True)
    gpu: gpu_type(["h100-sxm", "h800", "a100-sxm"]) = gpu_choice("h100-sxm", GPU_NAMES, label="原始 GPU")


def a100_outputs(hours: float, gid: str) -> dict:
    a100 = peak_flops("a100-sxm")
    q = budgets()["qwen3_post_training_gpu_h"]
    return {"a100_equiv_ratio": peak_flops(gid) / a100, "a100_equiv_gpu_h": lt.a100_equivalent(hours, peak_flops(gid), a100),
            "qwen3_rl_gpu_h": q["rl"], "qwen3_opd_gpu_h": q["opd"], "qwen3_rl_over_opd": q["rl"] / q["opd"]}


@card("fig-3-30", title="GPU 小时折算成 A100 等效(对数尺度)", label="图 3-30", section="3.6", kind="chart",
      params=A100Params,
      lead="各家报告的训练 GPU 小时用的卡不同。按 BF16 稠密峰值之比折成 A100 等效,才能放在一把尺子上比投入规模。")
def fig_3_30(p: A100Params) -> View:
    o = a100_outputs(p.gpu_hours, p.gpu)
    reports = budgets()["gpu_hours_reports"]
    a100 = peak_flops("a100-sxm")
    eq = [lt.a100_equivalent(r["gpu_hours"], peak_flops(r["gpu"]), a100) for r in reports]
    labels = [f"{r['model']}({GPU_NAMES[r['gpu']]},{r['scope']})" for r in reports]
    traces = []
    for g in ("a100-sxm", "h100-sxm", "h800"):
        idx = [i for i, r in enumerate(reports) if r["gpu"] == g]
        if idx:
            traces.append(bar([labels[i] for i in idx], [eq[i] for i in idx], f"原始 GPU:{GPU_NAMES[g]}", GPU_ROLE[g],
                              horizontal=True, text=[sci(eq[i], 3) for i in idx]))
    fig = figure(traces, layout(axis("A100 等效 GPU 小时(对数)", log=True),
                                axis("", categoryorder="array", categoryarray=labels),
                                height=320, margin=(260, 16, 16, 48)))
    v = View(outputs=o, headline=f"H100/H800 ÷ A100 BF16 稠密峰值 = 989.4/312 ≈ {peak_flops('h100-sxm') / a100:.2f}")
    v.stat("a100_equiv_ratio", f"{GPU_NAMES.get(p.gpu, '自定义 GPU')} ÷ A100 峰值比", "×", digits=2, approx=True, emphasis=True)
    v.stat("a100_equiv_gpu_h", f"{p.gpu_hours:,.0f} {GPU_NAMES.get(p.gpu, '自定义 GPU')} GPU·h 折合", "A100 GPU·h", sig=4)
    v.stat("qwen3_rl_gpu_h", "Qwen3 8B 后训练 · RL 路线", "GPU·h", digits=0)
    v.stat("qwen3_opd_gpu_h", "Qwen3 8B 后训练 · OPD 路线", "GPU·h", digits=0)
    v.stat("qwen3_rl_over_opd", "RL ÷ OPD", "×", digits=2)
    v.figures.append(Figure(fig, "图 3-30 · 报告的训练 GPU 小时,折成 A100 等效",
                            "; ".join(f"{r['model']} {sci(x, 3)}" for r, x in zip(reports, eq)) + "(A100 等效 GPU 小时)。"))
    v.tables.append(Table(["模型", "原始 GPU", "报告的 GPU 小时", "范围", "来源"],
                          [[r["model"], GPU_NAMES[r["gpu"]], f"{r['gpu_hours']:,}", r["scope"], r["source"]] for r in reports],
                          title="条形图数据(书中未列出,取自公开报告)"))
    v.notes = [
        Note("A100 等效 = GPU 小时 × 该卡 BF16 稠密峰值 ÷ 312 TFLOP/s。折算假定各设备实际利用率相近,只比投入规模,"
             "不代表效率或成本差异。DeepSeek-V3 只计预训练。", "formula"),
        Note("书中正文只给了折算比例、Qwen3 的两个后训练数字和练习 3-10 的 1,022,362 A100 GPU 小时;条形图的其余数据是本站从"
             "公开报告中补的,来源见上表。", "note"),
        Note("Qwen3 表 21 中同一个 8B 模型的 RL 路线 17,920 GPU 小时与 OPD 路线 1,800 GPU 小时是二选一的两条路线;"
             "书中没说 GPU 型号,所以这里不折算,只比倍数。", "book"),
    ]
    return v


# =============================================================================================
# gpu-hours-calendar
# =============================================================================================


class CalendarParams(Params):
    gpu_hours: float = slider(1_022_362, ge=1e3, le=1e8, step=1, label="总 GPU 小时", unit="GPU·h", log=True)
    n_gpus: int = slider(2048, ge=1, le=32768, step=1, label="同时训练的卡数", unit="张", log=True)


def calendar_outputs(hours: float, n: int) -> dict:
    wall_s = lt.calendar_seconds(hours * lt.HOUR, n)
    return {"wall_h": wall_s / lt.HOUR, "wall_days": wall_s / lt.DAY, "wall_weeks": wall_s / (7 * lt.DAY)}


@card("gpu-hours-calendar", title="GPU 小时 ÷ 卡数 = 日历时间", label="", section="3.6", kind="calculator",
      params=CalendarParams, badges=(("练习 3-10 前半", "ex-3-10"),),
      lead="GPU 小时是总工作量;除以同时运行的卡数,才是要等多少天。")
def gpu_hours_calendar(p: CalendarParams) -> View:
    o = calendar_outputs(p.gpu_hours, p.n_gpus)
    v = View(outputs=o, headline=f"{p.gpu_hours:,.0f} GPU·h ÷ {p.n_gpus:,} 张卡")
    v.stat("wall_h", "日历时间", "小时", digits=1)
    v.stat("wall_days", "日历时间", "天", digits=2, emphasis=True)
    v.stat("wall_weeks", "约合", "周", digits=1)
    v.notes = [
        Note("$T_{wall} = \\text{GPU 小时} / \\text{卡数}$,假定每张卡从头到尾一直在算。", "formula"),
        Note("没有计入故障、重启和评估暂停;真实的排期会更长。卡数减半,天数翻倍(1024 张卡:41.60 天)。"),
    ]
    return v
