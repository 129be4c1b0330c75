"""Chapter 3 end matter, part D: 练习 3-6, 练习 3-7 and the third fallacy (训练 token 总数相同).
Every number comes from the calculators the 3.4 / 3.5 cards use; the exercises link back to them."""

from __future__ import annotations

from ...calculators import rl
from ...calculators import training as T
from ...cards import Link, Note, Params, Question, Table, View, card, slider
from ...outputs import out, outputs
from ...trace import given, name
from ..shared.ch3_train import RL_GEN, RL_KEEP, RL_PROMPT, answers, formatter, n_params, qwen3_8b


class Ex36P(Params):
    micro_batches: int = slider(8, ge=8, le=8, step=1, label="micro-batch 数 a(题设)")
    seqs_per_micro: int = slider(2, ge=2, le=2, step=1, label="每个 micro-batch 的序列数 B_μ(题设)", unit="条")
    seq_len: int = slider(4096, ge=4096, le=4096, step=1, label="每条输入 P(题设)", unit="token")
    label_tokens: int = slider(
        1024, ge=1024, le=1024, step=1, label="每条监督 token(题设)", unit="token", sym="P_{label}"
    )


EX36_OUT = answers(
    state_gb=out("长期训练状态", digits=2, sym="M_{state}"),
    state_bf16_grad_gb=out("BF16 梯度时的状态", digits=2),
    bf16_grad_saving_gb=out("BF16 梯度省下", digits=2),
    input_tokens=out("每次更新输入", unit="token"),
    supervised_tokens=out("每次更新监督", unit="token"),
    lm_head_saving_tflop=out("只投影监督行省下(前反向)", digits=2),
    lm_head_saving_fwd_tflop=out("只投影监督行省下(前向)", digits=2),
    update_train_tflop=out("这次更新的逐项训练量", digits=2),
    n_params=out("参数量 N", unit=""),
    unsupervised_tokens=out("不监督的行", unit="token", sym="n_{unsup}"),
    saving_share_pct=out("节省占这次更新", digits=1),
)


@card(
    "ex-3-6",
    title="一次更新要多少计算、状态和监督 token",
    label="练习 3-6〔延伸〕",
    section="3.end",
    kind="exercise",
    params=Ex36P,
    outputs=EX36_OUT,
    lead="从 Y = XW 的梯度形状出发,算 Qwen3-8B 的长期训练状态、一次更新的输入与监督 token,再比较两种处理不监督 token 的做法。",
)
def ex_3_6(p: Ex36P) -> View:
    s = qwen3_8b()
    n = n_params(s)
    st, st16 = T.optimizer_state_bytes(n), T.optimizer_state_bytes(n, grad_b=2)
    u = T.update_outputs(p.micro_batches, p.seqs_per_micro, p.seq_len, p.label_tokens)
    unsup = name(u["input_tokens"] - u["supervised_tokens"], "n_{unsup}", "token")
    upd = T.itemised_outputs(s, u["sequences"], p.seq_len)["itemized_tflop"]
    save = T.lm_head_flops(s, unsup) / 1e12
    o = {
        "state_gb": st.total / 1e9,
        "state_bf16_grad_gb": st16.total / 1e9,
        "bf16_grad_saving_gb": (st.total - st16.total) / 1e9,
        "input_tokens": u["input_tokens"],
        "supervised_tokens": u["supervised_tokens"],
        "lm_head_saving_tflop": save,
        "lm_head_saving_fwd_tflop": T.lm_head_flops(s, unsup, train=False) / 1e12,
        "update_train_tflop": upd,
        "n_params": n,
        "unsupervised_tokens": unsup,
        "saving_share_pct": 100 * save / upd,
    }
    f = formatter(EX36_OUT, o)
    v = View(o, headline="先自己算,再展开答案;每题旁的卡片可以直接验证。")
    v.questions = [
        Question(
            "gradient_shapes",
            "由 Y = XW(X 为 m×k,W 为 k×n)推导 dX 与 dW 的形状,并说明三次矩阵乘的运算量为何相同。",
            kind="open",
            answer_text=(
                "反向传回 dY(m×n)。dX = dY·Wᵀ:(m×n)·(n×k) 得 m×k,和 X 同形;dW = Xᵀ·dY:(k×m)·(m×n) 得 k×n,和 W 同形。三次乘法(前向 XW、dX、dW)"
                "都是把一个长 m、k、n 的三重循环走一遍,各含 m·k·n 个乘加,所以各 2mkn FLOPs,合计 6mkn。dW 要用前向时保存的 X,dX 要用 W。"
            ),
        ),
        Question(
            "state_gb",
            "Qwen3-8B 每参数 18 字节的长期训练状态一共多少?",
            "GB",
            units={"GiB": 2**30 / 1e9},
            hint="N 从配置推出;18 = 2(BF16 权重)+ 4(FP32 梯度)+ 4(FP32 主权重)+ 4 + 4(Adam m、v)。",
            solution=["N = [[n_params|n]](由配置推出),每个参数存 BF16 权重、FP32 梯度、FP32 主权重和 Adam 的两个矩。"],
        ),
        Question(
            "bf16_grad_saving_gb",
            "梯度改为 BF16(2 B/参数)能省多少?",
            "GB",
            units={"GiB": 2**30 / 1e9},
            solution=["每参数省 4 − 2 = 2 B;剩下 16 B/参数([[state_bf16_grad_gb]]),仍远超一张 80 GB 卡。"],
        ),
        Question(
            "state_bf16_grad_gb",
            "梯度改为 BF16 后,长期状态还剩多少?",
            "GB",
            units={"GiB": 2**30 / 1e9},
            solution=["每参数 2 + 2 + 4 + 4 + 4 = 16 B。"],
        ),
        Question(
            "input_tokens",
            f"每 micro-batch {p.seqs_per_micro} 条、每条 {p.seq_len} 输入,累计 {p.micro_batches} 个后更新:每次更新输入多少 token?",
            "token",
            solution=["$a\\cdot B_\\mu\\cdot P$:micro-batch 数 × 每个的序列数 × 每条长度。"],
        ),
        Question(
            "supervised_tokens",
            f"每条 {p.label_tokens} 个监督 token:每次更新监督多少 token(也是损失的分母)?",
            "token",
            solution=["$a\\cdot B_\\mu\\cdot P_{label}$:只数参与损失的 token。"],
        ),
        Question(
            "lm_head_saving_tflop",
            "“只对监督 token 做词表投影”比“只屏蔽损失”每次更新少算多少(前反向)?",
            "TFLOP",
            hint="词表投影每行前向 2·h·V FLOPs,前反向 ×3;h = 4096,V = 151,936。",
            solution=[
                "不监督的 [[unsupervised_tokens]] 行各省一次词表投影的前反向(只算前向为 [[lm_head_saving_fwd_tflop]])。",
                "对照:这次更新的逐项训练量约 [[update_train_tflop]](16 条 × 图 3-23 在 P = 4096),节省约 [[saving_share_pct]]。",
            ],
        ),
        Question("lm_head_saving_fwd_tflop", "同样的节省,只看前向是多少?", "TFLOP", solution=["每行 2·h·V,不乘 3。"]),
        Question(
            "vocab_proj_compare",
            "比较两种做法:哪一种真的省了计算?",
            kind="open",
            answer_text=(
                f"只在损失里屏蔽时,不监督的 {f('unsupervised_tokens', 'n')} 行仍做完整的词表投影和它的反向,矩阵乘一个没少,"
                f"只是结果不进损失;只对监督行做投影,才真正省下约 {f('lm_head_saving_tflop')}"
                f"(约占这次更新 {f('update_train_tflop', 'd0')} 的 {f('saving_share_pct')})。两种做法的主干计算相同:"
                "不监督的 token 仍要过所有层,为回答提供上下文。"
            ),
        ),
    ]
    v.links_title = "动手验证"
    v.links = [
        Link(t, h)
        for t, h in [
            ("(a) 线性层的三次矩阵乘", "/cards/linear-3mm"),
            ("(b) 例题 3-3:18 B/参数", "/cards/eg-3-3"),
            ("(b) 梯度改为 BF16", "/cards/eg-3-3?grad_bytes=2"),
            ("(c) 一次更新读多少、监督多少", "/cards/update-tokens"),
            ("(d) SFT:只投影监督行", "/cards/sft-tokens?vocab_proj=supervised"),
            ("(d) 图 3-23 在 P = 4096、B = 16", "/cards/fig-3-23?batch=16&seq_len=4096"),
        ]
    ]
    v.notes = [
        Note(
            "状态 $= N(2+4+4+4+4)$;输入 $= aB_\\mu P$;监督 $= aB_\\mu P_{label}$;词表投影节省 $= (\\text{输入} - \\text{监督})\\cdot 6hV$。",
            "formula",
        )
    ]
    return v


class Ex37P(Params):
    n_a: int = slider(32, ge=32, le=32, step=1, label="已知周期 A 的生成条数(题设)", unit="条", sym="n_A")
    n_b: int = slider(64, ge=64, le=64, step=1, label="已知周期 B 的生成条数(题设)", unit="条", sym="n_B")
    n_pred: int = slider(48, ge=48, le=48, step=1, label="要预测的生成条数(题设)", unit="条", sym="n")
    replicas: int = slider(4, ge=4, le=4, step=1, label="BF16 权重副本数(题设)", sym="R")


EX37_OUT = outputs(
    f_cycle_a_tflop=out("已知:n = [[n_a|n]] 的周期总量", digits=2, sym="F_A"),
    f_cycle_b_tflop=out("已知:n = [[n_b|n]] 的周期总量", digits=2, sym="F_B"),
    **answers(
        slope_tflop=out("每多生成一条", digits=3, sym="f_g + f_r"),
        intercept_tflop=out("F_u", digits=3, sym="F_u"),
        f_cycle_pred_tflop=out("预测的周期总量", digits=2),
        teacher_tflop=out("教师前向", digits=3),
        weight_sync_gb=out("权重同步", digits=2),
        f_r_tflop=out("参考前向每条 f_r", digits=3, sym="f_r"),
        seq_tokens=out("教师强制输入长", unit="token"),
        seq_pairs=out("因果配对", unit=""),
    ),
)


@card(
    "ex-3-7",
    title="更新样本不变时,多生成的 RL 开销",
    label="练习 3-7〔核心〕",
    section="3.end",
    kind="exercise",
    params=Ex37P,
    outputs=EX37_OUT,
    lead="例题 3-4 里生成 32 条与 64 条时的周期总量已知。由它们反推每多生成一条的代价和一次更新的固定代价,再加教师、算权重同步。",
)
def ex_3_7(p: Ex37P) -> View:
    s = qwen3_8b()
    ca, cb = (rl.rl_cycle(s, RL_PROMPT, RL_GEN, RL_KEEP, m, replicas=p.replicas) for m in (p.n_a, p.n_b))
    fa, fb = name(ca.total / 1e12, "F_A", "TFLOP"), name(cb.total / 1e12, "F_B", "TFLOP")
    slope, icpt = rl.line_through(p.n_a, fa, p.n_b, fb)
    o = {
        "f_cycle_a_tflop": fa,
        "f_cycle_b_tflop": fb,
        "slope_tflop": slope,
        "intercept_tflop": icpt,
        "f_cycle_pred_tflop": icpt + slope * p.n_pred,
        "teacher_tflop": p.n_pred * ca.f_r / 1e12,
        "weight_sync_gb": ca.weight_sync_bytes / 1e9,
        "f_r_tflop": ca.f_r / 1e12,
        "seq_tokens": ca.seq_tokens,
        "seq_pairs": T.causal_pairs(ca.seq_tokens),
    }
    v = View(
        o,
        ctx={"n_keep": RL_KEEP},
        headline="已知:生成 [[n_a|n]] 条时 [[f_cycle_a_tflop]],生成 [[n_b|n]] 条时 [[f_cycle_b_tflop]](保留 [[n_keep]] 条)",
    )
    v.questions = [
        Question(
            "slope_tflop",
            "每多生成一条,生成 + 参考模型的运算量增加多少?",
            "TFLOP",
            hint="周期总量对 n 是一条直线:F = n(f_g + f_r) + F_u。",
            solution=["两点定直线:斜率 = 两个周期总量之差 ÷ 生成条数之差。"],
        ),
        Question(
            "intercept_tflop",
            "一次更新的固定运算量 F_u 是多少?",
            "TFLOP",
            solution=["截距 = 已知周期总量减去 n × 斜率;它等于 [[n_keep]] 条 × 3(前反向)× f_r,与生成条数无关。"],
        ),
        Question(
            "f_cycle_pred_tflop",
            f"预测生成 {p.n_pred} 条时的周期总量。",
            "TFLOP",
            solution=["沿这条直线取 n = [[n_pred|n]]。"],
        ),
        Question(
            "teacher_tflop",
            f"再加一个同结构教师,对这 {p.n_pred} 条各前向一次:新增多少?",
            "TFLOP",
            hint="教师做的是和参考模型一样的教师强制前向 f_r(每一行都做词表投影)。",
            solution=[
                "$f_r$ = [[f_r_tflop]]([[seq_tokens|n]] 行过主干并全部做词表投影,加 [[seq_pairs|n]] 个因果配对)。",
                "恰好等于 F_u:[[n_pred|n]] 条 × 1 次前向 = [[n_keep]] 条 × 3 次,是巧合。",
            ],
        ),
        Question(
            "weight_sync_gb",
            f"每次更新后把 BF16 权重分别发给 {p.replicas} 个副本,一共传多少?",
            "GB",
            units={"GiB": 2**30 / 1e9},
            solution=["每个副本收一份完整的 BF16 权重(每参数 2 B)。"],
        ),
        Question(
            "dependencies",
            "画出生成、反馈、更新与同步的依赖,哪些阶段可以在不同 batch 之间重叠?",
            kind="open",
            answer_text=(
                "一个 batch 内是一条链:生成 → 反馈(规则/测试、奖励或参考模型、教师)→ 更新 → 权重同步,下一批生成要等同步完成(同步方案)。跨 batch:反馈可以与下一批的生成流水重叠(逐条打分);"
                "下一批的生成也可以与本批的更新、同步重叠,但那样生成用的是旧一版权重,要处理样本版本和滞后(异步方案,见图 3-24)。更新自身依赖本批全部反馈,不能提前开始。"
            ),
        ),
    ]
    v.links_title = "动手验证"
    v.links = [
        Link(t, h)
        for t, h in [
            ("例题 3-4 预设 ③(生成 64 条)", "/cards/eg-3-4?keep_ratio=0.25"),
            ("例题 3-4 预设 ②(生成 32 条)", "/cards/eg-3-4?keep_ratio=0.5"),
            ("生成 48 条 + 教师", f"/cards/eg-3-4?n_generate={p.n_pred}&teacher=true"),
            ("图 3-24:同步与异步", "/cards/fig-3-24?mode=async"),
        ]
    ]
    v.notes = [Note("$F_{cycle}(n) = n(f_g+f_r) + F_u$;两点定直线:斜率 $f_g+f_r$,截距 $F_u$。", "formula")]
    return v


class FallacyP(Params):
    first_doc_tokens: int = slider(
        4096, ge=0, le=8192, step=128, label="切分示例:第一份文档长度", unit="token", illustrative=True, sym="L_1"
    )


FALLACY_OUT = outputs(
    attention_tflop=out("6ND 漏掉的注意力(B=1,P=8192)", digits=3, sym="F_{attn}"),
    pairs_single_doc=out("一份 8192 文档的配对", unit=""),
    pairs_split=out("切成 [[first_doc_tokens|n]] + [[second_doc_tokens|n]] 的配对", unit="", ill=True),
    **answers(
        second_doc_tokens=out("第二份文档", unit="token"),
        over_6nd_pct=out("逐项比 6ND 高", digits=2),
        rl_generate_quarter=out("保留 1/4 时要生成", unit="条"),
    ),
)


@card(
    "fallacy-train-tokens",
    title="✗ 训练 token 总数相同,工作量就相同",
    section="3.end",
    kind="table",
    params=FallacyP,
    aliases=("fallacy-3-3",),
    outputs=FALLACY_OUT,
    lead="同样多的训练 token,切法、标签与词表头策略、更新次数和 RL 的取舍都会改变实际要做的工作。",
)
def fallacy_train_tokens(p: FallacyP) -> View:
    s = qwen3_8b()
    P = given(8192, "P", "token", "书中:一条 8192 token 的序列")
    it, sp = T.itemised_outputs(s, 1, P), T.split_outputs(s, P, p.first_doc_tokens)
    o = {
        "attention_tflop": it["attention_tflop"],
        "pairs_single_doc": sp["pairs_single_doc"],
        "pairs_split": sp["pairs"],
        "second_doc_tokens": sp["second_doc_tokens"],
        "over_6nd_pct": it["over_6nd_pct"],
        "rl_generate_quarter": rl.n_generate(RL_KEEP, 0.25),
    }
    f = formatter(FALLACY_OUT, o)
    split = f"{p.first_doc_tokens:,} + {f('second_doc_tokens', 'n')}"
    return View(
        o,
        tables=[
            Table(
                ["什么变了", "改变了哪部分工作", "本页数字"],
                [
                    [
                        "序列怎么切",
                        "因果注意力的查询—键配对数(行数不变)",
                        f"一份 8192:{f('pairs_single_doc', 'n')} 对;{split}:{f('pairs_split', 'n')} 对",
                    ],
                    [
                        "标签与词表头策略",
                        "只屏蔽损失时不监督的行仍做词表投影;只投影监督行才省",
                        "每行前反向 6·4096·151,936 FLOPs",
                    ],
                    [
                        "6ND 与逐项核算",
                        "6ND 不含注意力,却算了词嵌入",
                        f"注意力 {f('attention_tflop')},逐项比 6ND 高 {f('over_6nd_pct')}",
                    ],
                    [
                        "更新次数",
                        "优化器更新随参数量 × 更新次数增长,和 token 数无关",
                        "a 越小、更新越频繁,更新开销越高",
                    ],
                    [
                        "RL 的取舍",
                        "没被采用的回答也付了生成与反馈",
                        f"保留比例 1/4 时要生成 {f('rl_generate_quarter', 'n')} 条才留 16 条",
                    ],
                ],
                links={0: "doc-split-8192", 1: "sft-tokens", 2: "fig-3-23", 3: "update-tokens", 4: "eg-3-4"},
                illustrative_cells={(0, 2)},
            )
        ],
        notes=[Note("比较两份训练方案的工作量,要按配对数、投影行数、更新次数和生成条数逐项算,不能只看 token 总数。")],
    )
