"""Chapter 3 end matter, part D: 练习 3-6, 练习 3-7 and the third fallacy (训练 token 总数相同).
Every number comes from the 3.4 / 3.5 cards' own functions; the exercises link back to them."""
from __future__ import annotations

from ...calculators import rl
from ...calculators import training as T
from ...cards import Link, Note, Params, Question, Stat, Table, View, card, slider
from .s3_4 import GB, GIB, TERA, itemised_outputs, qwen3_8b, split_outputs, update_outputs

# ============================================================== 练习 3-6


class Ex36P(Params):
    micro_batches: int = slider(8, ge=8, le=8, step=1, label="micro-batch 数 a(题设)")
    seqs_per_micro: int = slider(2, ge=2, le=2, step=1, label="每个 micro-batch 的序列数 B_μ(题设)", unit="条")
    seq_len: int = slider(4096, ge=4096, le=4096, step=1, label="每条输入 P(题设)", unit="token")
    label_tokens: int = slider(1024, ge=1024, le=1024, step=1, label="每条监督 token(题设)", unit="token")


@card("ex-3-6", title="一次更新要多少计算、状态和监督 token", label="练习 3-6〔延伸〕", section="3.end", kind="exercise",
      params=Ex36P,
      lead="从 Y = XW 的梯度形状出发,算 Qwen3-8B 的长期训练状态、一次更新的输入与监督 token,再比较两种处理不监督 token 的做法。")
def ex_3_6(p: Ex36P) -> View:
    s = qwen3_8b()
    n = s.params_total
    st = T.optimizer_state_bytes(n)
    st16 = T.optimizer_state_bytes(n, grad_b=2)
    u = update_outputs(p)
    unsup = u["input_tokens"] - u["supervised_tokens"]
    save = T.lm_head_flops(s, unsup)
    save_fwd = T.lm_head_flops(s, unsup, train=False)
    upd = itemised_outputs(s, u["sequences"], p.seq_len, False)["itemized_tflop"]
    o = {"state_gb": st.total / GB, "state_bf16_grad_gb": st16.total / GB,
         "bf16_grad_saving_gb": (st.total - st16.total) / GB,
         "input_tokens": u["input_tokens"], "supervised_tokens": u["supervised_tokens"],
         "lm_head_saving_tflop": save / TERA, "lm_head_saving_fwd_tflop": save_fwd / TERA,
         "update_train_tflop": upd}
    share = 100 * o["lm_head_saving_tflop"] / upd
    h, V = s.hidden, s.vocab
    v = View(outputs=o, headline="先自己算,再展开答案;每题旁的卡片可以直接验证。")
    v.questions = [
        Question("gradient_shapes", "由 Y = XW(X 为 m×k,W 为 k×n)推导 dX 与 dW 的形状,并说明三次矩阵乘的运算量为何相同。",
                 kind="open",
                 answer_text=("反向传回 dY(m×n)。dX = dY·Wᵀ:(m×n)·(n×k) 得 m×k,和 X 同形;"
                              "dW = Xᵀ·dY:(k×m)·(m×n) 得 k×n,和 W 同形。三次乘法(前向 XW、dX、dW)"
                              "都是把一个长 m、k、n 的三重循环走一遍,各含 m·k·n 个乘加,所以各 2mkn FLOPs,合计 6mkn。"
                              "dW 要用前向时保存的 X,dX 要用 W。")),
        Question("state_gb", "Qwen3-8B 每参数 18 字节的长期训练状态一共多少?", "GB", units={"GiB": GIB / GB},
                 hint="N 从配置推出;18 = 2(BF16 权重)+ 4(FP32 梯度)+ 4(FP32 主权重)+ 4 + 4(Adam m、v)。",
                 solution=[f"$N = {n:,}$",
                           f"$18 \\times N = {st.total:,.0f}$ B $= {o['state_gb']:,.2f}$ GB $\\approx {st.total / GIB:,.2f}$ GiB"]),
        Question("bf16_grad_saving_gb", "梯度改为 BF16(2 B/参数)能省多少?", "GB", units={"GiB": GIB / GB},
                 solution=[f"每参数省 4 − 2 = 2 B:$2N = {o['bf16_grad_saving_gb']:,.2f}$ GB",
                           f"剩下 16 B/参数 $= {o['state_bf16_grad_gb']:,.2f}$ GB,仍远超一张 80 GB 卡"]),
        Question("state_bf16_grad_gb", "梯度改为 BF16 后,长期状态还剩多少?", "GB", units={"GiB": GIB / GB},
                 solution=[f"$16 \\times N = {o['state_bf16_grad_gb']:,.2f}$ GB"]),
        Question("input_tokens", f"每 micro-batch {p.seqs_per_micro} 条、每条 {p.seq_len} 输入,累计 {p.micro_batches} 个后更新:每次更新输入多少 token?",
                 "token", solution=[f"$a\\cdot B_\\mu\\cdot P = {p.micro_batches}\\times{p.seqs_per_micro}\\times{p.seq_len} = {o['input_tokens']:,}$"]),
        Question("supervised_tokens", f"每条 {p.label_tokens} 个监督 token:每次更新监督多少 token(也是损失的分母)?", "token",
                 solution=[f"$a\\cdot B_\\mu\\cdot P_{{label}} = {p.micro_batches}\\times{p.seqs_per_micro}\\times{p.label_tokens} = {o['supervised_tokens']:,}$"]),
        Question("lm_head_saving_tflop", "“只对监督 token 做词表投影”比“只屏蔽损失”每次更新少算多少(前反向)?", "TFLOP",
                 hint="词表投影每行前向 2·h·V FLOPs,前反向 ×3;h = 4096,V = 151,936。",
                 solution=[f"不监督的行:${o['input_tokens']:,} - {o['supervised_tokens']:,} = {unsup:,}$",
                           f"$ {unsup:,} \\times 6 \\times {h} \\times {V:,} = {o['lm_head_saving_tflop']:,.2f}$ TFLOP"
                           f"(只算前向为 {o['lm_head_saving_fwd_tflop']:,.2f})",
                           f"对照:这次更新的逐项训练量约 {upd:,.2f} TFLOP(16 条 × 图 3-23 在 P = 4096),节省约 {share:.1f}%"]),
        Question("lm_head_saving_fwd_tflop", "同样的节省,只看前向是多少?", "TFLOP",
                 solution=[f"$ {unsup:,} \\times 2 \\times {h} \\times {V:,} = {o['lm_head_saving_fwd_tflop']:,.2f}$ TFLOP"]),
        Question("vocab_proj_compare", "比较两种做法:哪一种真的省了计算?", kind="open",
                 answer_text=(f"只在损失里屏蔽时,不监督的 {unsup:,} 行仍做完整的词表投影和它的反向,矩阵乘一个没少,"
                              f"只是结果不进损失;只对监督行做投影,才真正省下约 {o['lm_head_saving_tflop']:,.2f} TFLOP"
                              f"(约占这次更新 {upd:,.0f} TFLOP 的 {share:.1f}%)。两种做法的主干计算相同:"
                              "不监督的 token 仍要过所有层,为回答提供上下文。")),
    ]
    v.links_title = "动手验证"
    v.links = [Link(t, h) for t, h in [
        ("(a) 线性层的三次矩阵乘", "/cards/linear-3mm"),
        ("(b) 例题 3-3:18 B/参数", "/cards/eg-3-3"),
        ("(b) 梯度改为 BF16", "/cards/eg-3-3?grad_bytes=2"),
        ("(c) 一次更新读多少、监督多少", "/cards/update-tokens"),
        ("(d) SFT:只投影监督行", "/cards/sft-tokens?vocab_proj=supervised"),
        ("(d) 图 3-23 在 P = 4096、B = 16", "/cards/fig-3-23?batch=16&seq_len=4096"),
    ]]
    v.notes = [Note("状态 $= N(2+4+4+4+4)$;输入 $= aB_\\mu P$;监督 $= aB_\\mu P_{label}$;"
                    "词表投影节省 $= (\\text{输入} - \\text{监督})\\cdot 6hV$。", "formula")]
    return v


# ============================================================== 练习 3-7


class Ex37P(Params):
    n_a: int = slider(32, ge=32, le=32, step=1, label="已知周期 A 的生成条数(题设)", unit="条")
    n_b: int = slider(64, ge=64, le=64, step=1, label="已知周期 B 的生成条数(题设)", unit="条")
    n_pred: int = slider(48, ge=48, le=48, step=1, label="要预测的生成条数(题设)", unit="条")
    replicas: int = slider(4, ge=4, le=4, step=1, label="BF16 权重副本数(题设)")


P_RL, G_RL, KEEP_RL = 1024, 256, 16   # 例题 3-4's setting (the exercise starts from its table)


@card("ex-3-7", title="更新样本不变时,多生成的 RL 开销", label="练习 3-7〔核心〕", section="3.end", kind="exercise",
      params=Ex37P,
      lead="例题 3-4 里生成 32 条与 64 条时的周期总量已知。由它们反推每多生成一条的代价和一次更新的固定代价,再加教师、算权重同步。")
def ex_3_7(p: Ex37P) -> View:
    s = qwen3_8b()
    ca = rl.rl_cycle(s, P_RL, G_RL, KEEP_RL, p.n_a, replicas=p.replicas)
    cb = rl.rl_cycle(s, P_RL, G_RL, KEEP_RL, p.n_b, replicas=p.replicas)
    fa, fb = ca.total / TERA, cb.total / TERA
    slope, icpt = rl.line_through(p.n_a, fa, p.n_b, fb)
    pred = icpt + slope * p.n_pred
    teacher = p.n_pred * ca.f_r / TERA
    o = {"f_cycle_a_tflop": fa, "f_cycle_b_tflop": fb, "slope_tflop": slope, "intercept_tflop": icpt,
         "f_cycle_pred_tflop": pred, "teacher_tflop": teacher, "weight_sync_gb": ca.weight_sync_bytes / GB}
    n = s.params_total
    v = View(outputs=o, headline=f"已知:生成 {p.n_a} 条时 {fa:,.2f} TFLOP,生成 {p.n_b} 条时 {fb:,.2f} TFLOP(保留 {KEEP_RL} 条)")
    v.stat("f_cycle_a_tflop", f"已知:n = {p.n_a} 的周期总量", "TFLOP", digits=2)
    v.stat("f_cycle_b_tflop", f"已知:n = {p.n_b} 的周期总量", "TFLOP", digits=2)
    v.questions = [
        Question("slope_tflop", "每多生成一条,生成 + 参考模型的运算量增加多少?", "TFLOP",
                 hint="周期总量对 n 是一条直线:F = n(f_g + f_r) + F_u。",
                 solution=[f"$\\Delta F/\\Delta n = ({fb:,.2f} - {fa:,.2f}) / ({p.n_b} - {p.n_a}) = {slope:.3f}$ TFLOP/条"]),
        Question("intercept_tflop", "一次更新的固定运算量 F_u 是多少?", "TFLOP",
                 solution=[f"$F_u = {fa:,.2f} - {p.n_a}\\times{slope:.3f} = {icpt:.3f}$ TFLOP",
                           "= 16 条 × 3(前反向)× f_r,与生成条数无关"]),
        Question("f_cycle_pred_tflop", f"预测生成 {p.n_pred} 条时的周期总量。", "TFLOP",
                 solution=[f"${icpt:.3f} + {p.n_pred}\\times{slope:.3f} = {pred:,.2f}$ TFLOP"]),
        Question("teacher_tflop", f"再加一个同结构教师,对这 {p.n_pred} 条各前向一次:新增多少?", "TFLOP",
                 hint="教师做的是和参考模型一样的教师强制前向 f_r(每一行都做词表投影)。",
                 solution=[f"$f_r = {ca.f_r / TERA:.3f}$ TFLOP({ca.seq_tokens:,} 行过主干并全部做词表投影,加 {T.causal_pairs(ca.seq_tokens):,} 个因果配对)",
                           f"${p.n_pred}\\times{ca.f_r / TERA:.3f} = {teacher:.3f}$ TFLOP",
                           "恰好等于 F_u:48 × 1 次前向 = 16 × 3 次,是巧合"]),
        Question("weight_sync_gb", f"每次更新后把 BF16 权重分别发给 {p.replicas} 个副本,一共传多少?", "GB",
                 units={"GiB": GIB / GB},
                 solution=[f"${p.replicas}\\times 2\\,\\text{{B}}\\times {n:,} = {o['weight_sync_gb']:,.2f}$ GB"]),
        Question("dependencies", "画出生成、反馈、更新与同步的依赖,哪些阶段可以在不同 batch 之间重叠?", kind="open",
                 answer_text=("一个 batch 内是一条链:生成 → 反馈(规则/测试、奖励或参考模型、教师)→ 更新 → 权重同步,"
                              "下一批生成要等同步完成(同步方案)。跨 batch:反馈可以与下一批的生成流水重叠(逐条打分);"
                              "下一批的生成也可以与本批的更新、同步重叠,但那样生成用的是旧一版权重,"
                              "要处理样本版本和滞后(异步方案,见图 3-24)。更新自身依赖本批全部反馈,不能提前开始。")),
    ]
    v.links_title = "动手验证"
    v.links = [Link(t, h) for t, h in [
        ("例题 3-4 预设 ③(生成 64 条)", "/cards/eg-3-4?keep_ratio=0.25"),
        ("例题 3-4 预设 ②(生成 32 条)", "/cards/eg-3-4?keep_ratio=0.5"),
        ("生成 48 条 + 教师", f"/cards/eg-3-4?n_generate={p.n_pred}&teacher=true"),
        ("图 3-24:同步与异步", "/cards/fig-3-24?mode=async"),
    ]]
    v.notes = [Note("$F_{cycle}(n) = n(f_g+f_r) + F_u$;两点定直线:斜率 $f_g+f_r$,截距 $F_u$。", "formula")]
    return v


# ============================================================== 谬误 3:训练 token 总数相同,工作量就相同


class FallacyP(Params):
    first_doc_tokens: int = slider(4096, ge=0, le=8192, step=128, label="切分示例:第一份文档长度", unit="token",
                                   illustrative=True)


@card("fallacy-train-tokens", title="✗ 训练 token 总数相同,工作量就相同", section="3.end", kind="table",
      params=FallacyP, aliases=("fallacy-3-3",),
      lead="同样多的训练 token,切法、标签与词表头策略、更新次数和 RL 的取舍都会改变实际要做的工作。")
def fallacy_train_tokens(p: FallacyP) -> View:
    s = qwen3_8b()
    it = itemised_outputs(s, 1, 8192, False)
    sp = split_outputs(s, 8192, p.first_doc_tokens)
    o = {"attention_tflop": it["attention_tflop"], "pairs_single_doc": sp["pairs_single_doc"], "pairs_split": sp["pairs"]}
    v = View(outputs=o)
    v.stat("attention_tflop", "6ND 漏掉的注意力(B=1,P=8192)", "TFLOP", digits=3)
    v.stat("pairs_single_doc", "一份 8192 文档的配对", "")
    v.stats.append(Stat("pairs_split", f"切成 {p.first_doc_tokens:,} + {8192 - p.first_doc_tokens:,} 的配对", o["pairs_split"],
                        illustrative=True))
    v.tables.append(Table(
        columns=["什么变了", "改变了哪部分工作", "本页数字"],
        rows=[
            ["序列怎么切", "因果注意力的查询—键配对数(行数不变)",
             f"一份 8192:{o['pairs_single_doc']:,} 对;{p.first_doc_tokens:,} + {8192 - p.first_doc_tokens:,}:{o['pairs_split']:,} 对"],
            ["标签与词表头策略", "只屏蔽损失时不监督的行仍做词表投影;只投影监督行才省", "每行前反向 6·4096·151,936 FLOPs"],
            ["6ND 与逐项核算", "6ND 不含注意力,却算了词嵌入", f"注意力 {o['attention_tflop']:.3f} TFLOP,逐项比 6ND 高 {it['over_6nd_pct']:.2f}%"],
            ["更新次数", "优化器更新随参数量 × 更新次数增长,和 token 数无关", "a 越小、更新越频繁,更新开销越高"],
            ["RL 的取舍", "没被采用的回答也付了生成与反馈", f"保留比例 1/4 时要生成 {rl.n_generate(16, 0.25)} 条才留 16 条"],
        ],
        links={0: "doc-split-8192", 1: "sft-tokens", 2: "fig-3-23", 3: "update-tokens", 4: "eg-3-4"},
        illustrative_cells={(0, 2)},
    ))
    v.notes = [Note("比较两份训练方案的工作量,要按配对数、投影行数、更新次数和生成条数逐项算,不能只看 token 总数。")]
    return v
