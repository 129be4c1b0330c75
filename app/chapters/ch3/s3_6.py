"""Section 3.6 从负载需求到训练与服务预算: scaling law and budget split, 例题 3-5 hold-out check,
图 3-28 intercept vs slope, lifetime cost, Llama→Qwen tokens per parameter, MoE FLOPs, 图 3-30
A100-equivalent GPU-hours and calendar time."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from ...calculators import budget as bd
from ...calculators import lifetime as lt
from ...calculators import scaling_law as sl
from ...cards import Block, Figure, Note, Params, Table, View, card, choice, slider, toggle
from ...charts import budget as charts
from ...data import gpu
from ...format import sci
from ...outputs import out, outputs
from ...params_domain import gpu_choice, gpu_of, gpu_type
from ...trace import given
from ..shared import ch3_budget as cb
from ..shared.ch3_budget import BookOut

NATS, GPU_H, GPU_S = "nats/token", "GPU·h", "GPU·s"
LAW, R = cb.LAW, sl.RECONSTRUCTED
LAW_NOTE = ("这条曲线的系数是从书中印出的数字反推的重建值(E = 1.760752,A = 120.715449,B = 385.775028,"
            "α = β = 0.2701515),不是书中的拟合结果;书里没有给出系数,六个拟合点也未能在公开数据中认出。"
            "它能复现书中的 2.583、2.363、+0.009、+0.026、0.0193、298.6B、125.7、73.5。")


class BudgetParams(Params):
    budget_mult: float = slider(2, ge=1, le=16, step=0.5, label="预算倍数 k(新预算 ÷ 原预算)", unit="×")
    alpha: float = slider(R.alpha, ge=0.05, le=1, step=0.01, label="α(参数项指数)", illustrative=True)
    beta: float = slider(R.beta, ge=0.05, le=1, step=0.01, label="β(数据项指数)", illustrative=True)
    budget_flop: float = slider(1e21, ge=1e18, le=1e25, step=1e18, label="原预算 C", unit="FLOP", log=True, illustrative=True)


@card("budget-doubling", title="预算翻倍,新增计算分给谁", label="", section="3.6", kind="calculator", params=BudgetParams,
      badges=(("练习 3-8", "ex-3-8"),), outputs=outputs(
          n_mult=out("N_opt 增长 $k^{\\beta/(\\alpha+\\beta)}$", unit="×", digits=3, em=True, sym="N_{opt} 增长"),
          d_mult=out("D_opt 增长 $k^{\\alpha/(\\alpha+\\beta)}$", unit="×", digits=3, em=True, sym="D_{opt} 增长"),
          n_exponent=out("参数指数 β/(α+β)", digits=3), d_exponent=out("数据指数 α/(α+β)", digits=3),
          n_opt_params=BookOut("原预算下 N_opt", unit="参数", sci=True, ill=True, sym="N_{opt}"),
          d_opt_tokens=BookOut("原预算下 D_opt", unit="token", sci=True, ill=True, sym="D_{opt}"),
          n_opt_params_after=BookOut("新预算下 N_opt", unit="参数", sci=True, ill=True, sym="N'_{opt}"),
          d_opt_tokens_after=BookOut("新预算下 D_opt", unit="token", sci=True, tile=False, sym="D'_{opt}")),
      lead="总预算 C ≈ 6ND 固定时,多给参数就得少给数据。按 Scaling Law 求最优分配,预算变成 k 倍后,参数和数据各长几倍?")
def budget_doubling(p: BudgetParams) -> View:
    o = bd.budget_outputs(p.budget_mult, p.alpha, p.beta, p.budget_flop, LAW.A, LAW.B)
    return View(o, headline="预算 ×[[budget_mult|n]]:参数 ×[[n_mult|n]],数据 ×[[d_mult|n]]",
                ctx={"c0": sci(p.budget_flop, 3), "c1": sci(p.budget_flop * p.budget_mult, 3)}, figures=[
        Figure(charts.split_figure(LAW, p.alpha, p.beta, p.budget_flop, p.budget_mult, o), "最优参数量与训练 token 随预算增长(对数–对数)",
               "预算从 [[c0]] 增到 [[c1]] FLOP:N_opt [[n_opt_params|n,s3]] → [[n_opt_params_after|n,s3]],D_opt "
               "[[d_opt_tokens|n,s3]] → [[d_opt_tokens_after|n,s3]];两条线的斜率分别是 [[n_exponent]] 和 [[d_exponent]]。",
               illustrative=True)], notes=[
        Note("$L = E + A/N^{\\alpha} + B/D^{\\beta}$,$C \\approx 6ND$ ⇒ $N_{opt} = (\\alpha A/\\beta B)^{1/(\\alpha+\\beta)}"
             "(C/6)^{\\beta/(\\alpha+\\beta)}$,$D_{opt} \\propto C^{\\alpha/(\\alpha+\\beta)}$。", "formula"),
        Note("增长倍数只取决于 α 与 β 的比例,与 E、A、B 和起始预算无关。α = β 时两边各拿一半指数:"
             "预算 ×2 → 各 ×√2 ≈ 1.414,×4 → 各 ×2,×9 → 各 ×3。"),
        Note("绝对规模(N_opt、D_opt)用的是重建律的 A、B 和示意的起始预算 10²¹ FLOP;默认 α、β 也是重建值。(见例题 3-5)",
             "illustrative")])


class HoldoutParams(Params):
    law: Literal["book", "fit"] = choice("book", {"book": "书中数字反推的重建律(示意)", "fit": "用所选 run 自己拟合"}, label="系数来源")
    fit_runs: list[str] = Field(list(cb.EXAMPLE_FIT), min_length=5, max_length=24, description="fit 模式下用来拟合的 run 名(CSV 的 run 列),每项一个",
                                json_schema_extra={"control": "list", "step": None, "unit": "", "label": "拟合用的 run(fit 模式)",
                                                   "item_ge": None, "item_le": None, "illustrative": False})
    tied: bool = toggle(True, label="拟合时令 α = β")

    @field_validator("fit_runs")
    @classmethod
    def _known(cls, v: list[str]) -> list[str]:
        if unknown := next((x for x in v if x not in cb.runs()), None):
            raise ValueError(f"没有名为 “{unknown[:40]}” 的 run(见 datablations_c4_points.csv 的 run 列)")
        if len(set(v)) != len(v):
            raise ValueError("同一个 run 只能选一次")
        return v

N3, D_B, L3, L4 = BookOut(sci=True, sig=3), BookOut(unit="B", scale=1e9, compact=True), out(digits=3), out(digits=4)


def _href(fit_runs: list[str], tied: bool) -> str:
    """Card link for a fit setting (run names are [a-z0-9] only, so no quoting is needed)."""
    return "/cards/eg-3-5?law=fit&" + "".join(f"fit_runs={x}&" for x in fit_runs) + f"tied={str(tied).lower()}#eg-3-5"


def _run_picker(p: HoldoutParams, fit_mode: bool) -> Block:
    """Single-epoch C4 runs with N < 2×10⁹ (the pool the book's six fit points came from), each a link that toggles it."""
    rows = []
    for r in sorted((r for r in cb.runs().values() if r.epochs == 1 and not r.seed and r.params < 2e9), key=lambda r: (r.params, r.tokens)):
        new = [x for x in p.fit_runs if x != r.run] if r.run in p.fit_runs else [*p.fit_runs, r.run]
        rows.append({"run": r.run, "n": N3.fmt(r.params), "d": D_B.fmt(r.tokens), "loss": L3.fmt(r.loss, unit=False),
                     "selected": r.run in p.fit_runs and fit_mode, "href": _href(new, p.tied) if 5 <= len(new) <= 24 else ""})
    return Block("diagrams/eg-3-5.html", {"runs": rows, "fit_mode": fit_mode, "n_sel": len(p.fit_runs), "href_book": "/cards/eg-3-5#eg-3-5",
                                          "href_example": _href(list(cb.EXAMPLE_FIT), p.tied), "href_untied": _href(p.fit_runs, False)})


def _holdout_table(fit: sl.FitResult | None, fitted: list[sl.Run], held: list[sl.Run], o: dict) -> Table:
    rows = [[r.run, "拟合", r.params, r.tokens, r.loss, sl.loss(fit.law, r.params, r.tokens), e] for r, e in zip(fitted, fit.residuals)] if fit else []
    rows += [[r.run, f"留出 H{j}", r.params, r.tokens, r.loss, o[f"pred_h{j}"], o[f"resid_h{j}"]] for j, r in enumerate(held, 1)]
    return Table(["run", "用途", "N", "D", "实测 L", "预测 L", "预测 − 实测"], rows, title="拟合点与留出点" if fit else "留出点(书中的六个拟合点未能识别)",
                 formats=["", "", N3, D_B, L4, L4, BookOut(digits=4, signed=True)],
                 illustrative_cells=set() if fit else {(len(rows) - k, c) for k in (1, 2) for c in (5, 6)})


@card("eg-3-5", title="留出检验", label="例题 3-5", section="3.6", kind="chart", params=HoldoutParams, outputs=outputs(
          obs_h1=out("H1 实测(2.81B,55B token)", unit=NATS, digits=3), obs_h2=out("H2 实测(8.67B,178B token)", unit=NATS, digits=3),
          pred_h1=out("H1 预测", unit=NATS, digits=3, ill="book"), pred_h2=out("H2 预测", unit=NATS, digits=3, ill="book"),
          resid_h1=BookOut("H1 预测 − 实测", digits=3, signed=True, ill="book"), resid_h2=BookOut("H2 预测 − 实测", digits=3, signed=True, ill="book"),
          holdout_rmse=out("留出 RMSE", unit=NATS, digits=4, approx="book", em=True, ill="book", sym="RMSE"),
          fit_rmse=out("拟合点 RMSE([[n_fit_runs]] 个点)", unit=NATS, digits=4, em=True, tile="fit", sym="RMSE_{fit}"),
          n_fit_runs=out("拟合用的 run 数", tile=False, sym="n"),
          **{k: BookOut(s, sig=6, stated=True, ill="book", sym=s) for k, s in zip(("E", "A", "B", "alpha", "beta"), sl.LAW_SYMBOLS)}),
      lead="用 datablations 的 C4 小模型拟合 Scaling Law,再拿两个没参与拟合的更大模型检验:预测与实测差多少?"
           "也可以自己挑几个 run 重新拟合,比较拟合误差和留出误差。")
def eg_3_5(p: HoldoutParams) -> View:
    fit = cb.fit_law(p.fit_runs, p.tied) if p.law == "fit" else None
    law, held, pool = (fit.law if fit else LAW), cb.held_out(), cb.runs()
    o = bd.holdout_outputs(law, held) | {"fit_rmse": fit.fit_rmse if fit else None, "n_fit_runs": given(
        len(p.fit_runs) if fit else 6, "n", "", "所选拟合 run 的个数" if fit else "书中的六个拟合点")}
    fitted = [pool[x] for x in p.fit_runs] if fit else []
    context = [r for r in pool.values() if r.epochs == 1 and not r.seed and r.run not in cb.HOLDOUTS]
    leak = "、".join(x for x in p.fit_runs if x in cb.HOLDOUTS or x in cb.SEED_RUNS) if fit else ""
    label = "重建律(示意)" if not fit else ("你的拟合(α = β)" if p.tied else "你的拟合(α、β 各自拟合)")
    return View(o, headline="[[law_label]]:H1 [[resid_h1|n]],H2 [[resid_h2|n]],留出 RMSE [[holdout_rmse|n]]",
                ctx={"book": not fit, "fit": bool(fit), "law_label": label, "leak": leak}, figures=[
        Figure(charts.holdout_figure(context, law, held, [o["pred_h1"], o["pred_h2"]], fitted), "例题 3-5 · 六点拟合、两点留出(datablations · C4)",
               "灰点是 datablations 的 C4 单轮 run,书中用于拟合的六个点未能识别;红色实心为两个留出点的实测 [[obs_h1|n]]、"
               "[[obs_h2|n]],空心为预测 [[pred_h1|n]]、[[pred_h2|n]],竖线是误差。", illustrative=not fit),
        Figure(charts.seed_strip([pool[x] for x in cb.SEED_RUNS], pool[cb.HOLDOUTS[0]], o["pred_h1"]), "同一配置换种子:2.81B 模型、55B token",
               "同样 2.81B/55B 的配置换四个随机种子,损失在 2.5682–2.5706 之间,书中留出点 2.5741;"
               "种子之间的差(约 0.006)与 H1 的误差 [[resid_h1|n]] 同一量级。"),
    ], tables=[_holdout_table(fit, fitted, held, o)], blocks=[_run_picker(p, bool(fit))], notes=[
        Note("$L(N, D) = E + A/N^{\\alpha} + B/D^{\\beta}$;预测 − 实测 > 0 表示预测偏高。留出 RMSE $= \\sqrt{(r_1^2 + r_2^2)/2}$。", "formula"),
        Note(LAW_NOTE, "illustrative") if not fit else
        Note("拟合方法:在 L 上做不加权最小二乘,A、B ≥ 0;对固定的 α(β)系数是线性的,外层在 [0.01, 2] 上网格搜索再细化,"
             "内层用 numpy 最小二乘。这不是书中的拟合流程,只是让你看到:拟合点的误差可以很小,留出点的误差却可能大得多。"),
        *([Note("你选的拟合点里有留出点或它的重跑([[leak]]),留出误差因此不再是真正的检验。", "warn")] if leak else []),
        Note("拟合点上的误差只说明曲线贴住了用来求系数的数据;能不能往更大的模型外推,要看没参与拟合的点。"
             "同一配置换种子结果也会变,只有多 seed 重复才能分清趋势与偶然。")])


GPU_IDS = {"h100-sxm": "h100-sxm", "a100-sxm": "a100-80gb-sxm"}
GPU_NAMES = {"h100-sxm": "H100 SXM", "h800": "H800", "a100-sxm": "A100 SXM"}


def peak_tflops(gid: str) -> float:
    """BF16 dense peak Π (TFLOP/s) of a preset or a reader's own card; H800 as the book states it."""
    if gid == "h800":
        return given(cb.budgets()["h800_bf16_tflops"], "Π", "TFLOP/s", "书中取值:H800 的 BF16 稠密峰值与 H100 相同")
    return gpu_of(GPU_IDS.get(gid, gid)).bf16_tflops


class InterceptParams(Params):
    target_loss: float = slider(2.9, ge=2.5, le=3.5, step=0.01, label="目标损失 L*", unit="nats/token", sym="L^*")
    prompt_tokens: int = slider(512, ge=1, le=8192, step=1, label="每次输入 P", unit="token", log=True)
    gen_tokens: int = slider(128, ge=1, le=4096, step=1, label="每次输出 G", unit="token", log=True)
    gpu: gpu_type(["h100-sxm", "a100-sxm"]) = gpu_choice(  # type: ignore[valid-type]
        "h100-sxm", {"h100-sxm": "H100 SXM(989.4 TFLOP/s)", "a100-sxm": "A100 SXM(312 TFLOP/s)"}, label="加速器")
    mfu_pct: float = slider(40, ge=5, le=100, step=1, label="MFU", unit="%")
    n_small: float = slider(1e8, ge=5e7, le=3e9, step=1e7, label="小模型 N", unit="参数", log=True, sym="N_{small}")
    n_large: float = slider(5e8, ge=5e7, le=3e9, step=1e7, label="大模型 N", unit="参数", log=True, sym="N_{large}")


def _intercept_notes(ok: bool) -> list[Note]:
    return [*([] if ok else [Note("按这条律,[[n_small_sci]] 或 [[n_large_sci]] 的模型无论训练多少 token 都到不了 L* = [[target_loss|n]]"
                                  "(律的下限 E + A/N^α 已高于目标)。", "warn")]),
            Note("训练 $C_0 = 6ND/R$,每次调用 $c = 2N[P + (G-1)]/R$,$R$ = 峰值 × MFU;"
                 "$Q^* = \\Delta C_0/\\Delta c$。训练和服务用同一个 $R$,所以 Q* 只取决于运算量,与 MFU 无关。", "formula"),
            Note(LAW_NOTE + " 所需 token 和训练 GPU 小时都依赖这条律;395.76 TFLOP/s 和每次调用的 GPU 秒不依赖它。", "illustrative"),
            Note("书中的图还画了 1B 和 2.81B(外推)两条线,但正文没有给出截距,这里不画。"),
            Note("Beyond Chinchilla-Optimal 把推理需求算进来:[[beyond_chinchilla_models]] 个模型(150M–6B),"
                 "150M 的模型训练量最高达每参数 [[beyond_chinchilla_max_tokens_per_param]]。", "book")]


@card("fig-3-28", title="训练投入是截距,单次调用是斜率", label="图 3-28", section="3.6", kind="chart", params=InterceptParams, outputs=outputs(
          sustained_tflops=out("折算速率 峰值 × MFU", digits=2, sym="R"),
          d_small_btokens=out("小模型([[n_small_sci]])所需训练 token", unit="B", digits=1, approx=True, ill=True, sym="D_{small}"),
          d_large_btokens=out("大模型([[n_large_sci]])所需训练 token", unit="B", digits=2, ill=True, sym="D_{large}"),
          train_gpu_h_small=out("小模型训练 C₀", unit=GPU_H, digits=1, approx=True, ill=True),
          train_gpu_h_large=out("大模型训练 C₀", unit=GPU_H, digits=2, ill=True),
          delta_train_gpu_h=out("小模型多花 ΔC₀", unit=GPU_H, digits=1, ill=True, em=True),
          call_gpu_s_small=out("小模型每次调用", unit=GPU_S, sig=3), call_gpu_s_large=out("大模型每次调用", unit=GPU_S, sig=4),
          saving_gpu_s_per_call=out("每次调用省 Δc", unit=GPU_S, sig=3, approx=True, em=True),
          q_star_calls=BookOut("交点 Q* = ΔC₀/Δc", unit="次调用", sci=True, none="无交点", ill=True, em=True, sym="Q^*"),
          beyond_chinchilla_models=out("Beyond Chinchilla-Optimal 的模型数", tile=False),
          beyond_chinchilla_max_tokens_per_param=out("150M 模型每参数训练 token 的上限", unit="token", tile=False),
          extrapolation_from_btokens=out("拟合数据的 D 上限(示意)", unit="B", tile=False)),
      lead="同样达到目标损失,小模型要多训练(截距高),但每次调用更省(斜率低)。两条总成本线在 Q* 相交。")
def fig_3_28(p: InterceptParams) -> View:
    o = bd.intercept_outputs(LAW, peak_tflops(p.gpu) * 1e12, p.mfu_pct, p.n_small, p.n_large, p.target_loss, p.prompt_tokens, p.gen_tokens)
    bc, src = cb.budgets()["beyond_chinchilla"], "Beyond Chinchilla-Optimal(书中引用,arXiv:2401.00448)"
    o |= {"beyond_chinchilla_models": given(bc["models"], "模型数", "", src),
          "beyond_chinchilla_max_tokens_per_param": given(bc["max_tokens_per_param"], "D/N", "token", src),
          "extrapolation_from_btokens": given(178, "D_{max}", "×10⁹ token", "示意:例题 3-5 八个 C4 点中最大的 D")}
    ok = o["train_gpu_h_small"] is not None and o["train_gpu_h_large"] is not None
    figs = [Figure(charts.intercept_figure(o, p.n_small, p.n_large), "图 3-28 · 训练投入是截距,单次调用是斜率",
                   "小模型训练约 [[train_gpu_h_small|n]] GPU 小时,大模型 [[train_gpu_h_large|n]];每次调用小模型省 [[saving_gpu_s_per_call|n]] "
                   "GPU 秒;" + ("两线在约 [[q_star_calls|n,s3]] 次调用处相交。" if o["q_star_calls"] else "两线不相交。"), illustrative=True)] if ok else []
    sizes = [(p.n_small, o["d_small_btokens"]), (p.n_large, o["d_large_btokens"])]
    figs.append(Figure(charts.iso_loss_figure(LAW, p.target_loss, sizes, o["extrapolation_from_btokens"]), f"达到 L* = {p.target_loss:g} 所需的训练 token",
                       "模型越小,要达到同样损失所需的 token 越多;虚线段超出了拟合数据的范围,是外推。", illustrative=True))
    return View(o, headline="目标损失 [[target_loss|n]] · P=[[prompt_tokens|n]] · G=[[gen_tokens|n]] · [[gpu_name]] [[mfu_pct]] MFU = "
                            "[[sustained_tflops|n]] TFLOP/GPU·s", figures=figs, notes=_intercept_notes(ok),
                ctx={"gpu_name": GPU_NAMES.get(p.gpu, "自定义 GPU"), "n_small_sci": sci(p.n_small, 2), "n_large_sci": sci(p.n_large, 2)})


class LifetimeParams(Params):
    delta_train_gpu_h: float = slider(100_000, ge=0, le=1e6, step=1000, label="小模型多训练 ΔC₀", unit="H100 GPU·h", sym="ΔC_0")
    saving_gpu_s_per_task: float = slider(0.72, ge=0.01, le=10, step=0.01, label="每个成功任务省 Δc", unit=GPU_S, sym="Δc")
    tasks: float = slider(2e8, ge=1e6, le=1e11, step=1e6, label="生命周期任务数 Q", unit="项", log=True)


@card("lifetime-cost", title="Q* = ΔC₀ / Δc · 选哪个模型取决于未来调用量", label="", section="3.6", kind="calculator", params=LifetimeParams,
      badges=(("练习 3-10 后半", "ex-3-10"),), outputs=outputs(
          q_star_tasks=BookOut("反转点 Q* = ΔC₀/Δc", unit="项", sci=True, sig=3, em=True, sym="Q^*"),
          serving_saved_gpu_h=out("服务省下 Q·Δc", unit=GPU_H, digits=0),
          net_saving_gpu_h=out("净节省 Q·Δc − ΔC₀", unit=GPU_H, digits=0, em=True),
          choose_small=out("选择", text={True: "选多训练的小模型", False: "留用大模型"}),
          cost_gap_gpu_h=out("总成本差 |净节省|", unit=GPU_H, digits=0)),
      lead="小模型多花一笔训练,换来每个任务更省。任务量不到 Q* 时多花的训练收不回来,超过 Q* 才划算。")
def lifetime_cost(p: LifetimeParams) -> View:
    o = bd.lifetime_outputs(p.delta_train_gpu_h, p.saving_gpu_s_per_task, p.tasks)
    return View(o, headline="Q = [[tasks_sci]] 项:[[choose_small]],总成本差 [[cost_gap_gpu_h]]", ctx={"tasks_sci": sci(p.tasks, 3)}, figures=[
        Figure(charts.lifetime_figure(p.delta_train_gpu_h, p.saving_gpu_s_per_task, p.tasks, o["q_star_tasks"]), "多出的训练 vs 多出的服务",
               "水平线是小模型多花的 [[delta_train_gpu_h|n]] GPU 小时训练,斜线是大模型每项多用 [[saving_gpu_s_per_task|n]] GPU 秒"
               "累计出的服务成本,两者在 Q*≈[[q_star_tasks|n]] 项相交。")], notes=[
        Note("$C_{life}(m) = C_0(m) + Q\\cdot\\sum_j w_j c_j(m)$;两模型之差为 $\\Delta C_0 - Q\\,\\Delta c$,"
             "$Q^* = \\Delta C_0/\\Delta c$(换算:1 GPU·h = 3600 GPU·s)。", "formula"),
        Note("比较前,两个模型都要满足相同的质量、时限与完成条件;$c_j$ 要把失败和重试算进去,Δc 是每个“成功”任务的节省。"),
        Note("图里只画两者不同的部分:两模型共有的成本对两条线一样,不改变交点。")])


class LlamaQwenParams(Params):
    chinchilla_tokens_per_param: float = slider(20, ge=20, le=20, step=1, label="计算最优基准(固定)", unit="token/参数", sym="(D/N)_{opt}")


LLAMA_OUT = outputs(
    chinchilla_8b_btokens=out("8B 的计算最优 token(20 token/参数)", unit="B", digits=0, sym="D_{opt,8B}"),
    row5_d_over_n=out("Qwen3 每参数 token", digits=0, approx=True, em=True),
    mmlu_gap_pts=out("MMLU:Llama 2 70B − Llama 3 8B", unit="分", digits=1), triviaqa_gap_pts=out("TriviaQA-Wiki:同上", unit="分", digits=1),
    **{k: d for k, d in cb.ROW_OUT.items() if k != "row5_d_over_n"},
    **{k: out(label, unit="分", digits=1, tile=False) for k, (_, label) in cb.QUALITY.items()})


@card("tab-llama-qwen", title="从 Llama 到 Qwen:数据越给越多", label="", section="3.6", kind="table", params=LlamaQwenParams, outputs=LLAMA_OUT,
      lead="同为 7B–8B 级别,训练 token 从 1T 涨到 36T,每参数 token 数比 Chinchilla 的 20 高出一到两个数量级。")
def tab_llama_qwen(p: LlamaQwenParams) -> View:
    o, models, approx = cb.llama_qwen(p.chinchilla_tokens_per_param), cb.budgets()["open_models"], ("", "", "约 ", "约 ", "约 ")

    def cell(key: str, flags: str = "n") -> str:
        return LLAMA_OUT[key].fmt(o[key], flags=flags)
    rows = [[m["name"] + (f"({m['tag']})" if m["tag"] else ""), f"{a}{m['tokens'] / 1e12:g}T", a + cell(f"row{i}_d_over_n"),
             a + cell(f"row{i}_six_nd_flop"), cell(f"row{i}_x_chinchilla", "u")] for i, (m, a) in enumerate(zip(models, approx), 1)]
    fig = charts.tokens_per_param_figure(cb.SHORT, [o[f"row{i}_d_over_n"] for i in range(1, 6)], [cell(f"row{i}_d_over_n") for i in range(1, 6)],
                                         p.chinchilla_tokens_per_param)
    return View(o, headline="Chinchilla 基准:8B 模型约 [[chinchilla_8b_btokens|n]]B token;实际 1T–36T", tables=[
        Table(["模型", "训练 token", "D/N", "6ND (FLOPs)", f"× Chinchilla({p.chinchilla_tokens_per_param:g})"], rows,
              title="D/N 与 6ND(N 按“模型”列的约数计)")], figures=[
        Figure(fig, "每参数训练 token(对数)", "五个模型的 D/N 从 [[row1_d_over_n]] 到约 [[row5_d_over_n]],虚线是计算最优基准 "
                                              "[[chinchilla_tokens_per_param|n]]。")], notes=[
        Note("这不是 Scaling Law 拟合错了,而是目标不同:计算最优只管固定训练预算下的损失,开发者还要算上线后的服务成本。"),
        Note("质量门槛要按自己的任务定:Llama 3 8B 与 Llama 2 70B 在 MMLU 上 [[mmlu_llama3_8b|n]]/[[mmlu_llama2_70b|n]],在 TriviaQA-Wiki "
             "上 [[triviaqa_llama3_8b|n]]/[[triviaqa_llama2_70b|n]],差距分别是 [[mmlu_gap_pts|n]] 与 [[triviaqa_gap_pts|n]] 分,"
             "不能用一个分数概括。", "book"),
        Note("D/N 用“模型”列的约数计算(如 2T ÷ 7B ≈ 286);Qwen2.5、Qwen3 的 token 数是系列披露。")])


class MoeParams(Params):
    model: Literal["v4-flash", "v4-pro"] = choice("v4-flash", {"v4-flash": "DeepSeek-V4-Flash", "v4-pro": "DeepSeek-V4-Pro"}, label="预设")
    moe_layers: int | None = slider(None, ge=1, le=128, step=1, label="MoE 层数 n_L(推断)", placeholder="按预设")
    hidden: int | None = slider(None, ge=1024, le=16384, step=1, label="隐藏维 h(推断)", placeholder="按预设")
    expert_ffn: int | None = slider(None, ge=256, le=8192, step=1, label="专家 FFN 宽 f(推断)", placeholder="按预设")
    routed: int = slider(6, ge=1, le=16, step=1, label="每 token 路由专家数", unit="个", sym="k_{routed}")
    shared: int = slider(1, ge=0, le=4, step=1, label="共享专家数", unit="个", sym="k_{shared}")
    tokens: float | None = slider(None, ge=1e12, le=1e14, step=1e11, label="训练 token", unit="token", log=True, placeholder="按预设", sym="D")


@card("moe-flops", title="MoE:总参数与激活参数、专家的训练运算量", label="", section="3.6", kind="calculator", params=MoeParams, outputs=outputs(
          gflop_per_token=out("主干专家训练量 18·[[dims]]·([[routed|n]]+[[shared|n]])", unit="GFLOPs/token", digits=4, approx=True, em=True),
          total_flop=BookOut("× 训练 token", unit="FLOPs", sci=True, sig=6, approx=True, em=True, sym="F_{tok}·D"),
          total_params=BookOut("总参数", unit="B", scale=1e9, digits=0),
          active_params=BookOut("激活参数", unit="B", scale=1e9, digits=0, approx=True),
          train_tokens=BookOut("训练 token", unit="T", scale=1e12, compact=True), active_frac_pct=out("激活 ÷ 总参数", digits=1)),
      lead="MoE 模型要同时报总参数和每 token 激活的参数:前者决定放权重要多大容量,后者决定每个 token 的运算量。")
def moe_flops(p: MoeParams) -> View:
    presets, (n_l, h, f, _, _) = cb.budgets()["moe"], cb.moe_dims(p.model)
    m, n_l, h, f = presets[p.model], p.moe_layers or n_l, p.hidden or h, p.expert_ffn or f
    o = bd.moe_outputs(n_l, h, f, p.routed, p.shared, p.tokens or cb.big(m["tokens"], "D", 12, cb.BOOK, " token"),
                       cb.big(m["total_params"], "N_{total}", 9, cb.BOOK), cb.big(m["active_params"], "N_{active}", 9, cb.BOOK))
    three = [presets[k] for k in ("deepseek-v3", "v4-flash", "v4-pro")]
    return View(o, headline="[[model_name]]:[[total_params]] 总参数 / 约 [[active_params]] 激活,[[train_tokens]] token",
                ctx={"model_name": m["name"], "dims": f"{n_l}·{h}·{f}", "preset_dims": f"{m['moe_layers']}·{m['hidden']}·{m['expert_ffn']}"}, figures=[
        Figure(charts.moe_params_figure(three), "总参数 vs 激活参数",
               "DeepSeek-V3 671B/约 37B,V4-Flash 284B/约 13B,V4-Pro 1.6T/约 49B:激活参数只占总参数的几个百分点。")], tables=[
        Table(["模型", "总参数", "激活参数", "预训练 token", "专家训练量 (GFLOPs/token)"], [
            [three[0]["name"], "671B", "约 37B", "14.8T", "—(书中未给)"], [three[1]["name"], "284B", "约 13B", "32T", "≈45.4495"],
            [three[2]["name"], "1.6T", "约 49B", "33T", "≈169.2465"]], title="书中列出的三个 MoE 模型")], notes=[
        Note("每个被选中的专家有 3 个矩阵(SwiGLU 的 gate、up、down),每次乘加 2 FLOP,训练算前向、输入梯度、权重梯度 3 遍:"
             "$18\\cdot n_L\\cdot h\\cdot f\\cdot(k_{routed} + k_{shared})$。", "formula"),
        Note("书中只印了乘积;n_L·h·f 拆成 [[preset_dims]] 是本站的推断,能复现书中每一位数字(45.449478、1.4543833×10²⁴、169.246458、"
             "5.5851331×10²⁴)。", "illustrative"),
        Note("损失权重不是执行比例:MTP 的损失权重 0.3,并不表示辅助计算只做了 30%。"),
        Note("总专家数加倍而每 token 选中数不变:参数容量翻倍,每 token 专家运算不变;选中数加倍(12 + 1)则运算近乎翻倍"
             "(V4-Flash:45.45 → 84.41 GFLOPs/token)。见练习 3-9。")])


class A100Params(Params):
    gpu_hours: float = slider(1, ge=1, le=1e9, step=1, label="报告的 GPU 小时", unit="GPU·h", log=True, sym="H")
    gpu: gpu_type(["h100-sxm", "h800", "a100-sxm"]) = gpu_choice("h100-sxm", GPU_NAMES, label="原始 GPU")  # type: ignore[valid-type]


@card("fig-3-30", title="GPU 小时折算成 A100 等效(对数尺度)", label="图 3-30", section="3.6", kind="chart", params=A100Params, outputs=outputs(
          a100_equiv_ratio=out("[[gpu_name]] ÷ A100 峰值比", unit="×", digits=2, approx=True, em=True, sym="Π/Π_{A100}"),
          a100_equiv_gpu_h=out("[[gpu_hours|n]] [[gpu_name]] GPU·h 折合", unit="A100 GPU·h", sig=4, sym="H_{A100}"),
          qwen3_rl_gpu_h=out("Qwen3 8B 后训练 · RL 路线", unit=GPU_H, digits=0),
          qwen3_opd_gpu_h=out("Qwen3 8B 后训练 · OPD 路线", unit=GPU_H, digits=0), qwen3_rl_over_opd=out("RL ÷ OPD", unit="×", digits=2)),
      lead="各家报告的训练 GPU 小时用的卡不同。按 BF16 稠密峰值之比折成 A100 等效,才能放在一把尺子上比投入规模。")
def fig_3_30(p: A100Params) -> View:
    b, a100, qsrc = cb.budgets(), gpu("a100-80gb-sxm"), "书中引用的 Qwen3 技术报告表 21"
    a100_peak = given(a100.bf16_tflops, "Π_{A100}", "TFLOP/s", f"{a100.name} 预设(data/gpus.json)")
    q = {k: given(v, f"H_{{{k.upper()}}}", GPU_H, qsrc) for k, v in b["qwen3_post_training_gpu_h"].items()}
    o = bd.a100_outputs(p.gpu_hours, peak_tflops(p.gpu), a100_peak, q["rl"], q["opd"])
    reports = b["gpu_hours_reports"]
    eq = [lt.a100_equivalent(r["gpu_hours"], peak_tflops(r["gpu"]), a100_peak) for r in reports]
    fig = charts.a100_figure([f"{r['model']}({GPU_NAMES[r['gpu']]},{r['scope']})" for r in reports], [r["gpu"] for r in reports], eq,
                             GPU_NAMES, {"a100-sxm": "state", "h100-sxm": "decode", "h800": "prefill"})
    return View(o, headline="H100/H800 ÷ A100 BF16 稠密峰值 = 989.4/312 ≈ [[h100_ratio]]",
                ctx={"gpu_name": GPU_NAMES.get(p.gpu, "自定义 GPU"), "h100_ratio": f"{peak_tflops('h100-sxm') / a100_peak:.2f}"}, figures=[
        Figure(fig, "图 3-30 · 报告的训练 GPU 小时,折成 A100 等效",
               "; ".join(f"{r['model']} {sci(x, 3)}" for r, x in zip(reports, eq)) + "(A100 等效 GPU 小时)。")], tables=[
        Table(["模型", "原始 GPU", "报告的 GPU 小时", "范围", "来源"], title="条形图数据(书中未列出,取自公开报告)",
              rows=[[r["model"], GPU_NAMES[r["gpu"]], f"{r['gpu_hours']:,}", r["scope"], r["source"]] for r in reports])], notes=[
        Note("A100 等效 = GPU 小时 × 该卡 BF16 稠密峰值 ÷ 312 TFLOP/s。折算假定各设备实际利用率相近,只比投入规模,"
             "不代表效率或成本差异。DeepSeek-V3 只计预训练。", "formula"),
        Note("书中正文只给了折算比例、Qwen3 的两个后训练数字和练习 3-10 的 1,022,362 A100 GPU 小时;条形图的其余数据是本站从"
             "公开报告中补的,来源见上表。", "note"),
        Note("Qwen3 表 21 中同一个 8B 模型的 RL 路线 17,920 GPU 小时与 OPD 路线 1,800 GPU 小时是二选一的两条路线;"
             "书中没说 GPU 型号,所以这里不折算,只比倍数。", "book")])


class CalendarParams(Params):
    gpu_hours: float = slider(1_022_362, ge=1e3, le=1e8, step=1, label="总 GPU 小时", unit="GPU·h", log=True, sym="H")
    n_gpus: int = slider(2048, ge=1, le=32768, step=1, label="同时训练的卡数", unit="张", log=True, sym="n")


@card("gpu-hours-calendar", title="GPU 小时 ÷ 卡数 = 日历时间", label="", section="3.6", kind="calculator", params=CalendarParams,
      badges=(("练习 3-10 前半", "ex-3-10"),), outputs=outputs(
          wall_h=out("日历时间", unit="小时", digits=1), wall_days=out("日历时间", unit="天", digits=2, em=True, sym="T_{days}"),
          wall_weeks=out("约合", unit="周", digits=1, sym="T_{weeks}")),
      lead="GPU 小时是总工作量;除以同时运行的卡数,才是要等多少天。")
def gpu_hours_calendar(p: CalendarParams) -> View:
    return View(bd.calendar_outputs(p.gpu_hours, p.n_gpus), headline="[[gpu_hours]] ÷ [[n_gpus]]卡", notes=[
        Note("$T_{wall} = \\text{GPU 小时} / \\text{卡数}$,假定每张卡从头到尾一直在算。", "formula"),
        Note("没有计入故障、重启和评估暂停;真实的排期会更长。卡数减半,天数翻倍(1024 张卡:41.60 天)。")])
