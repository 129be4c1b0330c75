"""Section 1.1 AI Infra 为什么重要: 图 1-1 ~ 1-5, the agent loop, 练习 1-1's ledger, the two threads."""
from __future__ import annotations

from typing import Literal

from ...calculators import model_config as mc
from ...calculators import request_path as rp
from ...cards import Block, Figure, Note, Params, Question, Stat, View, card, choice, slider
from ...charts import COLORS, axis, figure, layout, animate
from ...data import model_config

KIB = 2**10
MIB = 2**20

# The 70B running example (DeepSeek-R1-Distill-Llama-70B) read from its config.json.
MODEL_70B = "deepseek-r1-distill-llama-70b"


def shape_70b() -> mc.ModelShape:
    return mc.shape_of(model_config(MODEL_70B))


# 例题 1-1's hand simplification used by the ledger for the per-step read: 1 B × 70×10⁹ parameters.
HAND_N = 70e9
HAND_BYTES_PER_PARAM = 1.0

# GB200 NVL72, as the seed gives it: one rack, one NVLink domain.
NVL72_GRACE_CPUS = 36
NVL72_GPUS = 72

# ------------------------------------------------------------------------------------------------
# 图 1-1 · 两种应用的表达方式与执行路径
# ------------------------------------------------------------------------------------------------

STACKS = [
    {"id": "code-driven", "title": "代码驱动的应用",
     "stack": ["应用代码:用代码写出行为", "编译器", "指令", "操作系统:管理资源", "硬件"]},
    {"id": "model-driven", "title": "模型驱动的应用",
     "stack": ["应用:选模型 · 组织上下文 · 提供工具",
               "上下文:任务指令 / 参考材料 / 此前交互结果", "模型(参数不变)", "推理软件栈",
               "工具 → 操作系统", "硬件"]},
]
EDGES = [{"style": "solid", "meaning": "向下的执行依赖"},
         {"style": "dashed", "meaning": "工具调用仍依赖操作系统"}]


class Fig11Params(Params):
    highlight: Literal["none", "code-driven", "model-driven"] = choice(
        "none", {"none": "两列都看", "code-driven": "代码驱动", "model-driven": "模型驱动"}, label="突出哪一列")


@card("fig-1-1", title="两种应用的表达方式与执行路径", label="图 1-1", section="1.1", kind="diagram",
      params=Fig11Params,
      lead="左边靠代码表达行为,右边多了一个入口:选模型、拼上下文、给工具。点一列看它从上到下怎么落到硬件。")
def fig_1_1(p: Fig11Params) -> View:
    v = View(outputs={"highlight": p.highlight, "stacks": STACKS, "edges": EDGES})
    v.blocks.append(Block("diagrams/fig-1-1.html", {"highlight": p.highlight}))
    v.notes.append(Note("上下文就是这次调用能用到的全部输入。参数一个没变,换了指令、示例或材料,模型就在做另一件事——上下文成了新的编程界面。"))
    v.notes.append(Note("方框里除“代码、编译器、指令、操作系统、模型、上下文、工具”之外的细化措辞是本页补的。", "illustrative"))
    return v


# ------------------------------------------------------------------------------------------------
# Agent 循环
# ------------------------------------------------------------------------------------------------


class AgentParams(Params):
    iterations: int = slider(3, ge=1, le=10, step=1, label="循环轮数", unit="轮", illustrative=True)


def agent_steps(n: int) -> list[dict]:
    """Actor/action of each round: the model picks the next step, the host program acts."""
    out = []
    for i in range(1, n + 1):
        out.append({"round": i, "actor": "model", "action": "读上下文,提出修改或发起工具调用(运行测试)"})
        out.append({"round": i, "actor": "host", "action": "执行测试,把结果追加到下一次调用的上下文"})
    return out


@card("agent-loop", title="Agent 循环:模型选下一步,宿主程序动手", section="1.1", kind="diagram",
      params=AgentParams,
      lead="以代码检查为例:模型决定下一步做什么,宿主程序真正去跑测试并把结果送回来。点“下一轮”多走一圈。")
def agent_loop(p: AgentParams) -> View:
    n = p.iterations
    steps = agent_steps(n)
    o = {"model_calls": sum(s["actor"] == "model" for s in steps),
         "tool_runs": sum(s["actor"] == "host" for s in steps), "steps": steps}
    v = View(outputs=o)
    v.stat("model_calls", "模型调用", "次", illustrative=True)
    v.stat("tool_runs", "工具执行", "次", illustrative=True)
    v.blocks.append(Block("diagrams/agent-loop.html", {"n": n, "max": 10, "steps": steps}))
    v.notes.append(Note("书中没有给轮数;这里的轮数只是演示一次任务可能要来回多少次。", "illustrative"))
    return v


# ------------------------------------------------------------------------------------------------
# 模型影响硬件 / 硬件影响模型
# ------------------------------------------------------------------------------------------------

BOXES = {
    "model_to_hardware": ["压缩保存的状态", "改变注意力机制", "只激活部分参数(专家)"],
    "hardware_to_model": ["存储容量", "传输速度", "设备之间怎么连接"],
}


@card("model-hw-interplay", title="模型影响硬件要做的事 / 硬件影响该选哪种模型", section="1.1",
      kind="diagram",
      lead="箭头是双向的:改模型会改变硬件的工作量,硬件条件又反过来决定哪种模型结构更划算。")
def model_hw_interplay(p: Params) -> View:
    v = View(outputs={"boxes": BOXES})
    v.blocks.append(Block("diagrams/model-hw-interplay.html", {"boxes": BOXES}))
    return v


# ------------------------------------------------------------------------------------------------
# 图 1-2 · 六层分工
# ------------------------------------------------------------------------------------------------

# 示意: the seed names neither the six layers nor their duties; only "应用" (top) and "硬件"
# (bottom) follow from the title. Names below follow the catalog's placeholder set.
LAYERS_ILLUSTRATIVE = [
    ("应用", "把用户的任务变成一次次模型调用:拼上下文、调用工具、编排多轮交互。"),
    ("模型", "结构和参数决定每个 token 要做多少计算、要留下多少状态(例如 KV)。"),
    ("编译器与算子", "把计算图落成加速器上的算子,决定哪些相邻算子融合、中间结果放在哪一级存储。"),
    ("运行时", "组批、分配显存和 KV、决定每一步在哪张卡上、什么时候执行。"),
    ("系统与主机", "CPU、主存、操作系统与驱动:加载模型、发起数据传输、协调卡间通信。"),
    ("硬件", "加速器、显存和互联给出算力、容量与带宽——上面各层所有估算的边界。"),
]
CROSS_CUTTING = [
    "资源调度、运行环境、观测与计费:需要同时看多层的信息",
    "工艺、封装、供电与散热:决定设备怎样造出来、怎样部署",
    "网络:不只在最底层,跨设备协作的模型、算子和服务都要经过具体的互联",
]
INTERFACES = [
    {"pair": "模型 × 系统", "lever": "改变状态表示", "effect": "存储与通信需求跟着变"},
    {"pair": "编译器 × 存储", "lever": "相邻算子融合", "effect": "中间结果换个地方放"},
    {"pair": "运行时 × 主机", "lever": "加速器间直接交接", "effect": "主机参与次数减少"},
]


class Fig12Params(Params):
    layer: int = slider(0, ge=0, le=6, step=1, label="选中的层(0 = 不选)", help="1 = 最上层(应用),6 = 最底层(硬件)")


@card("fig-1-2", title="从应用到硬件的六层分工", label="图 1-2", section="1.1", kind="diagram",
      params=Fig12Params,
      lead="点击任意一层,看它负责什么;右侧列出贯穿多层的能力和三个跨层接口。")
def fig_1_2(p: Fig12Params) -> View:
    o = {"n_layers": len(LAYERS_ILLUSTRATIVE), "selected": p.layer, "cross_cutting": CROSS_CUTTING,
         "interfaces": INTERFACES, "layer_names": None}
    v = View(outputs=o)
    sel = LAYERS_ILLUSTRATIVE[p.layer - 1] if p.layer else None
    v.blocks.append(Block("diagrams/fig-1-2.html", {
        "layers": LAYERS_ILLUSTRATIVE, "selected": p.layer, "sel": sel,
        "cross_cutting": CROSS_CUTTING, "interfaces": INTERFACES}))
    v.notes.append(Note("书页没有给出六层的名称和职责,只有最上层“应用”、最下层“硬件”可由图题确定;"
                        "中间四层的名字和每层说明都是本页按三个接口补的占位。", "illustrative"))
    v.notes.append(Note("分层的思路借自廖恒博士的“十八层宝塔”:从应用一直到芯片、工艺和物理,多数人只懂其中一两层,于是错过跨层优化。"))
    return v


# ------------------------------------------------------------------------------------------------
# 图 1-3 / 1-4 · 一次请求从进入到流式返回 (▶)
# ------------------------------------------------------------------------------------------------


class Fig13Params(Params):
    input_tokens: int = slider(2048, ge=1, le=32768, step=1, label="输入长度", unit="token", log=True,
                               illustrative=True)
    output_tokens: int = slider(8, ge=1, le=64, step=1, label="输出长度", unit="token", illustrative=True)
    frame: int = slider(0, ge=0, le=64, step=1, label="第几帧(0 = prefill 之前)",
                        help="0 = prefill 之前,1 = prefill 完成,k = 第 k−1 个 decode 步之后;超过输出长度按最后一帧")


STAGES = [  # x position on the stage lane, label
    (0.0, "客户端"), (1.6, "服务入口"), (3.2, "路由器"), (4.8, "分词器"), (6.4, "prefill"),
    (8.0, "decode 循环"), (9.6, "流式返回"),
]


def _stage_of(frame: int, out_tokens: int) -> tuple[list[int], str]:
    """Stage indices lit at a frame and a caption."""
    if frame == 0:
        return [0, 1, 2, 3], "请求进入:入口 → 路由器选实例 → 分词"
    if frame == 1:
        return [4, 6], "prefill:一次处理全部输入,写入 KV,送出第 1 个 token"
    return [5, 6], f"decode 第 {frame - 1} 步:读旧 KV、追加 1 个,送出第 {frame} 个 token"


def _kv_scale(inp: int, out: int) -> tuple[float, float]:
    """示意 bar scale: the input's KV takes 4 units, each decoded token 6/(G−1) units."""
    return 4.0, 6.0 / max(out - 1, 1)


def _frame_traces(inp: int, out: int, k: int, kv_per_token: int) -> list[dict]:
    kv_tok, emitted = rp.frame_state(inp, out, k)
    lit, caption = _stage_of(k, out)
    w_in, w_tok = _kv_scale(inp, out)
    gen = max(kv_tok - inp, 0) if kv_tok else 0
    x_in = [0, w_in] if kv_tok else [None, None]
    x_gen = [w_in, w_in + gen * w_tok] if gen else [None, None]
    tok_w = 10.0 / out
    tok_x = [(i + 0.5) * tok_w for i in range(emitted)]
    kv_txt = "KV 缓存:—" if not kv_tok else f"KV 缓存:{kv_tok:,} token · {kv_tok * kv_per_token / MIB:,.0f} MiB"
    return [
        {"type": "scatter", "mode": "markers", "x": [STAGES[i][0] for i in lit], "y": [2.4] * len(lit)},
        {"type": "scatter", "mode": "lines", "x": x_in, "y": [1.2, 1.2]},
        {"type": "scatter", "mode": "lines", "x": x_gen, "y": [1.2, 1.2]},
        {"type": "scatter", "mode": "markers", "x": tok_x or [None], "y": [0.3] * len(tok_x) if tok_x else [None]},
        {"type": "scatter", "mode": "text", "x": [0], "y": [1.62], "text": [kv_txt]},
        {"type": "scatter", "mode": "text", "x": [0], "y": [2.95], "text": [caption]},
    ]


def _fig_1_3(inp: int, out: int, frame: int, kv_per_token: int) -> dict:
    cur = _frame_traces(inp, out, frame, kv_per_token)
    static = {"type": "scatter", "mode": "markers+text", "x": [s[0] for s in STAGES], "y": [2.4] * len(STAGES),
              "text": [s[1] for s in STAGES], "textposition": "bottom center", "name": "阶段",
              "marker": {"size": 16, "color": COLORS["waiting"], "symbol": "circle"}, "hoverinfo": "text"}
    path = {"type": "scatter", "mode": "lines", "x": [STAGES[0][0], STAGES[-1][0]], "y": [2.4, 2.4],
            "line": {"color": COLORS["waiting"], "width": 2}, "hoverinfo": "skip", "name": "请求路径"}
    styles = [
        {"name": "当前阶段", "marker": {"size": 26, "color": COLORS["accent"], "symbol": "circle-open",
                                      "line": {"width": 4, "color": COLORS["accent"]}}, "hoverinfo": "skip"},
        {"name": f"输入的 KV({inp:,} token,示意长度)", "line": {"color": COLORS["capacity"], "width": 26}},
        {"name": "decode 追加的 KV", "line": {"color": COLORS["read"], "width": 26}},
        {"name": "已流式送出的 token", "marker": {"size": 14, "color": COLORS["compute"], "symbol": "square"}},
        {"textposition": "middle right", "textfont": {"size": 15}, "hoverinfo": "skip", "showlegend": False},
        {"textposition": "middle right", "textfont": {"size": 14}, "hoverinfo": "skip", "showlegend": False},
    ]
    dyn = [dict(t, **s) for t, s in zip(cur, styles)]
    lay = layout(axis("", range_=(-0.4, 10.6), showticklabels=False, showgrid=False),
                 axis("", range_=(-0.3, 3.2), ticks=[0.3, 1.2, 2.4], ticktext=["已输出", "KV 缓存", "阶段"],
                      showgrid=False),
                 height=300, margin=(72, 16, 16, 40))
    fig = figure([path, static] + dyn, lay)
    frames = [{"data": _frame_traces(inp, out, k, kv_per_token), "traces": [2, 3, 4, 5, 6, 7]}
              for k in range(out + 1)]
    labels = ["前"] + ["prefill"] + [f"d{k - 1}" for k in range(2, out + 1)]
    animate(fig, frames, labels, duration=600, prefix="帧:")
    fig["layout"]["sliders"][0]["active"] = frame
    return fig


@card("fig-1-3", title="一次请求从进入到流式返回", label="图 1-3 / 1-4", section="1.1", kind="animation",
      params=Fig13Params, aliases=("fig-1-4",), badges=(("练习 1-1", "ex-1-1"),),
      lead="请求从客户端一路走到推理实例:先分词,一次 prefill 写下整段输入的 KV,之后每个 decode 步追加一个 token。"
           "按 ▶ 看 KV 条怎样一步步变长。")
def fig_1_3(p: Fig13Params) -> View:
    s = shape_70b()
    kvb = s.kv_bytes_per_token_bf16
    frame = min(p.frame, p.output_tokens)
    kv_tok, emitted = rp.frame_state(p.input_tokens, p.output_tokens, frame)
    o = {"kv_tokens": kv_tok, "tokens_emitted": emitted, "kv_mib": kv_tok * kvb / MIB,
         "kv_per_token_kib": kvb / KIB, "frames": p.output_tokens + 1}
    lit, caption = _stage_of(frame, p.output_tokens)
    v = View(outputs=o, headline=f"第 {frame} 帧 · {caption}")
    v.stats.append(Stat("kv_tokens", "KV 缓存长度", kv_tok, "token",
                        text="—" if frame == 0 else None, illustrative=True))
    v.stat("kv_mib", "KV 大小(70B,BF16)", "MiB", digits=0, illustrative=True)
    v.stat("tokens_emitted", "已送出", "token", illustrative=True)
    v.stat("kv_per_token_kib", "每 token KV", "KiB", digits=0)
    v.figures.append(Figure(
        _fig_1_3(p.input_tokens, p.output_tokens, frame, kvb), "▶ 请求的阶段与 KV 缓存增长",
        f"输入 {p.input_tokens:,} token,输出 {p.output_tokens} token,共 {o['frames']} 帧。prefill 后 KV 为 "
        f"{p.input_tokens:,} token,之后每个 decode 步加 1 个(每个 {o['kv_per_token_kib']:.0f} KiB),"
        f"最后一个 token 送出时为 {p.input_tokens + p.output_tokens - 1:,} token。",
        illustrative=True, animated=True))
    v.blocks.append(Block("diagrams/fig-1-3.html", {"frame": frame, "lit": lit, "kv_tokens": kv_tok,
                                                     "kv_mib": o["kv_mib"], "emitted": emitted,
                                                     "out": p.output_tokens}))
    v.notes.append(Note("KV 条的长度和两个 token 数都是示意;每 token 320 KiB 按 70B 模型的配置算出"
                        "($80\\times2\\times8\\times128\\times2$ B)。", "illustrative"))
    v.notes.append(Note("同一份权重有两种搬法:加载只在启动时把模型送进显存一次;执行则每一步都把要用的权重和 KV 送到计算单元。"
                        "请求本身也许只有一句话,内部搬动的却是几十 GB 的权重、KV 和中间张量。"))
    v.notes.append(Note("路由策略、分词器放在哪里、prefill 和 decode 是否拆到不同实例,都是部署时的选择(图中虚线标签)。"))
    return v


# ------------------------------------------------------------------------------------------------
# 练习 1-1 and its ledger
# ------------------------------------------------------------------------------------------------


class Ex11Params(Params):
    input_tokens: int = slider(2048, ge=1, le=32768, step=1, label="输入长度", unit="token", log=True,
                               illustrative=True)
    output_tokens: int = slider(100, ge=1, le=4096, step=1, label="回答长度 G", unit="token", log=True)
    instances: int = slider(1, ge=1, le=4, step=1, label="实例数", unit="个")
    gpus_per_instance: int = slider(1, ge=1, le=2, step=1, label="每实例 GPU 数(2 = 流水线切分)", unit="张",
                                    illustrative=True)


def ledger_for(p: Ex11Params) -> rp.Ledger:
    s = shape_70b()
    return rp.ledger(mc.weight_bytes(s, "w8-g128"), HAND_BYTES_PER_PARAM * HAND_N, s.kv_bytes_per_token_bf16,
                     s.hidden, p.input_tokens, p.output_tokens, p.instances, p.gpus_per_instance)


def ledger_outputs(lg: rp.Ledger) -> dict:
    return {
        "weights_gb": lg.weights_bytes / 1e9, "weights_total_gb": lg.weights_total_bytes / 1e9,
        "weight_loads": lg.weight_loads, "kv_per_token_kib": lg.kv_per_token_bytes / KIB,
        "weight_read_per_step_gb": lg.read_per_step_bytes / 1e9, "steps": lg.steps,
        "decode_steps": lg.decode_steps, "weight_read_total_gb": lg.weight_read_total_bytes / 1e9,
        "kv_append_per_step_kib": lg.kv_per_token_bytes / KIB, "kv_final_tokens": lg.kv_final_tokens,
        "kv_final_gb": lg.kv_final_bytes / 1e9, "kv_read_total_gb": lg.kv_read_total_bytes / 1e9,
        "inter_gpu_per_step_kib": lg.handoff_per_token_bytes / KIB, "router_choices": lg.router_choices,
    }


def _fmt_bytes(x: float) -> str:
    if x >= 1e9:
        return f"{x / 1e9:,.2f} GB"
    if x >= MIB:
        return f"{x / MIB:,.1f} MiB"
    return f"{x / KIB:,.0f} KiB"


def ledger_rows(lg: rp.Ledger, base: rp.Ledger) -> list[dict]:
    """Rows of the ledger: what, how often, per time, for this request, changed vs the defaults."""
    def row(what, when, each, total, key, grows):
        return {"what": what, "when": when, "each": each, "total": total,
                "changed": key(lg) != key(base), "grows": grows}
    handoff = lg.handoff_per_token_bytes
    return [
        row("模型文件加载", f"启动时每个实例一次(共 {lg.weight_loads} 次)", f"{lg.weights_bytes / 1e9:.2f} GB",
            f"驻留 {lg.weights_total_bytes / 1e9:.2f} GB", lambda x: x.weights_total_bytes, "随实例数"),
        row("一步权重读取", f"每步一次:1 次 prefill + {lg.decode_steps:,} 次 decode",
            f"{lg.read_per_step_bytes / 1e9:.0f} GB", f"{lg.weight_read_total_bytes / 1e9:,.0f} GB",
            lambda x: x.weight_read_total_bytes, "随回答长度(线性)"),
        row("KV 追加", f"prefill 写 {lg.input_tokens:,} 个,之后每个 decode 步 1 个",
            f"{lg.kv_per_token_bytes / KIB:.0f} KiB / token", f"最终 {lg.kv_final_tokens:,} token = {lg.kv_final_bytes / 1e9:.4f} GB",
            lambda x: x.kv_final_bytes, "随回答长度(线性)"),
        row("旧 KV 读取", "每个 decode 步读一遍已有的 KV", "越往后越多",
            f"{lg.kv_read_total_bytes / 1e9:,.2f} GB", lambda x: x.kv_read_total_bytes, "随回答长度(近似平方)"),
        row("卡间结果传递", "每步、每个 token 过一次切分边界" if handoff else "单卡实例:无",
            f"{handoff / KIB:.0f} KiB / token" if handoff else "—",
            _fmt_bytes(lg.handoff_total_bytes) if handoff else "—",
            lambda x: x.handoff_total_bytes, "随切分与长度"),
        row("路由选择", "每个请求一次", f"{lg.router_choices} 个可选实例", "—",
            lambda x: x.router_choices, "随实例数"),
    ]


@card("ex-1-1", title="一次请求中的权重读取、状态增长与数据传递", label="练习 1-1〔延伸〕", section="1.1",
      kind="exercise", params=Ex11Params, badges=(("图 1-3 / 1-4", "fig-1-3"), ("图 1-5", "fig-1-5")),
      lead="70B 模型(8 比特权重 73.73 GB,每 token KV 320 KiB)处理一个请求时,哪些事只做一次、哪些每步都做?"
           "拖动回答长度和实例数,变化的行会亮起来。")
def ex_1_1(p: Ex11Params) -> View:
    lg = ledger_for(p)
    base = ledger_for(Ex11Params(input_tokens=p.input_tokens))
    o = ledger_outputs(lg)
    v = View(outputs=o, headline=f"输入 {p.input_tokens:,} token · 回答 {p.output_tokens:,} token · "
                                 f"{p.instances} 个实例 × {p.gpus_per_instance} 张卡")
    v.stat("weights_gb", "模型文件(每实例)", "GB", digits=2)
    v.stat("weights_total_gb", "所有实例驻留", "GB", digits=2)
    v.stat("kv_per_token_kib", "每 token KV", "KiB", digits=0)
    v.stat("weight_read_per_step_gb", "每步读权重(例题 1-1 简化)", "GB", digits=0)
    v.stat("steps", "读权重的遍数 G", "遍")
    v.stat("weight_read_total_gb", "本请求共读权重", "GB", sig=4, emphasis=True)
    v.stat("kv_final_tokens", "最终 KV 长度", "token")
    v.stat("kv_final_gb", "最终 KV 大小", "GB", digits=4)
    v.stat("kv_read_total_gb", "decode 累计读旧 KV", "GB", digits=2)
    v.stat("inter_gpu_per_step_kib", "每步每 token 卡间传递", "KiB", digits=0)
    v.stat("router_choices", "路由器可选实例", "个")
    v.blocks.append(Block("diagrams/ex-1-1.html", {"rows": ledger_rows(lg, base), "input_ill": True}))

    G, inp = p.output_tokens, p.input_tokens
    kvk = o["kv_per_token_kib"]
    v.questions = [
        Question("loaded_once", "回答从 100 增到 1000 个 token:哪些数据只加载一次,哪些访问会随之增加?", kind="open",
                 answer_text="只加载一次:模型文件(启动时每个实例从共享存储经主存送进显存一次),与回答长短无关。"
                             "随回答变长而增加:每步一次的权重读取(G 遍)、每步追加的 KV、每个 decode 步对旧 KV 的读取"
                             "(累计量约按 G² 增长),以及切分到两张卡时每步的卡间传递。",
                 hint="把账本里“频率”一列分成“启动时”和“每步”两类。"),
        Question("weight_read_total_gb", f"回答 {G:,} 个 token 时,这个请求一共要读多少权重?", unit="GB",
                 hint="读权重的遍数 = 1 次 prefill + (G−1) 次 decode。",
                 solution=[f"遍数 $= 1 + ({G:,} - 1) = {lg.steps:,}$",
                           f"$ {lg.steps:,} \\times {o['weight_read_per_step_gb']:.0f}\\ \\text{{GB}} = {o['weight_read_total_gb']:,.0f}$ GB"],
                 units={"TB": 1000}),
        Question("kv_final_tokens", f"最后一个 token 送出时,KV 缓存里有多少个 token?", unit="token",
                 hint="prefill 写入全部输入;decode 每步追加一个,最后一个输出自己的 KV 还没写。",
                 solution=[f"${inp:,} + {G:,} - 1 = {lg.kv_final_tokens:,}$ token"]),
        Question("kv_final_gb", "那时 KV 占多少?", unit="GB",
                 hint="每 token 320 KiB = 327,680 B。",
                 solution=[f"${lg.kv_final_tokens:,} \\times {lg.kv_per_token_bytes:,.0f}\\ \\text{{B}} = {o['kv_final_gb']:.4f}$ GB"],
                 units={"GiB": 1.073741824, "MiB": 1.048576e-3}),
        Question("kv_read_total_gb", "所有 decode 步加起来,一共读了多少旧 KV?", unit="GB",
                 hint="第 j 个 decode 步读 input + j − 1 个 token 的 KV,j 从 1 到 G−1。",
                 solution=[f"token 读取次数 $= (G-1)\\cdot {inp:,} + (G-1)(G-2)/2 = {rp.old_kv_read_tokens(inp, G):,}$",
                           f"$\\times {kvk:.0f}$ KiB $= {o['kv_read_total_gb']:,.2f}$ GB"],
                 units={"TB": 1000}),
        Question("weights_total_gb", f"现在是 {p.instances} 个实例:所有实例驻留的权重共多少 GB?", unit="GB",
                 hint="每个实例各存一份完整权重。把实例数调成 2 再做一遍。",
                 solution=[f"${p.instances} \\times {o['weights_gb']:.2f} = {o['weights_total_gb']:.2f}$ GB"]),
        Question("router_changes", "把一个实例复制成两个,请求路由怎样改变?", kind="open",
                 answer_text="路由器多了一个可选去处:每个请求先被分到其中一个实例,由那个实例独立完成。"
                             "单个请求的每步读取、KV 增长和卡间传递都不变,变的是总驻留权重(两份、两次加载)和能同时服务的请求数。"),
    ]
    v.notes.append(Note("每步读权重用例题 1-1 的简化(每参数 1 字节、约 70 GB),而模型文件用真实的 8 比特大小 73.73 GB——"
                        "账本有意两者并列。每 token 320 KiB 与书中“8192 token 的 BF16 KV = 2.5 GiB”一致。", "book"))
    v.notes.append(Note("输入 2048 token 是示意值;两卡切分按流水线在一处分界、每 token 传一个 8192 维 BF16 向量估算,书中没有给切分方式。",
                        "illustrative"))
    v.notes.append(Note("账本只算一个请求($B=1$);多个请求组成一批时,这一步的权重读取由整批分摊(见例题 1-1)。"))
    return v


# ------------------------------------------------------------------------------------------------
# 图 1-5 and the three kinds of traffic
# ------------------------------------------------------------------------------------------------

TRAFFIC = [
    {"id": "request", "name": "请求", "color": "#0f9f8f",
     "path": "服务入口 → 数据中心网络 → 主机", "when": "每个请求进出", "timing": "数据量小,可能只是一小段文字"},
    {"id": "model-file", "name": "模型文件", "color": COLORS["storage"],
     "path": "共享存储 → 网络 → 主存 → 显存", "when": "实例启动或切换模型", "timing": "量大,但可以提前加载"},
    {"id": "intermediate", "name": "中间结果", "color": COLORS["read"],
     "path": "GPU ↔ GPU(超节点内部互联,或经网卡跨超节点)", "when": "每层计算之间", "timing": "必须及时到达,下一层才能继续"},
]
LEVELS = ["scale-up:超节点内部,加速器经高带宽互联紧密协作", "scale-out:超节点之间,经网卡和交换网络扩大集群"]


class Fig15Params(Params):
    highlight: Literal["none", "request", "model-file", "intermediate"] = choice(
        "none", {"none": "全部", "request": "请求", "model-file": "模型文件", "intermediate": "中间结果"},
        label="突出哪种流量")


@card("fig-1-5", title="物理连接的两层视图:三种流量", label="图 1-5", section="1.1", kind="diagram",
      params=Fig15Params, badges=(("三种流量表", "tab-three-traffic"),),
      lead="超节点内部靠高速互联(scale-up),超节点之间经网卡和交换网络(scale-out)。点图例看一种流量走哪条路。")
def fig_1_5(p: Fig15Params) -> View:
    o = {"nvl72_grace_cpus": NVL72_GRACE_CPUS, "nvl72_gpus": NVL72_GPUS, "levels": LEVELS, "highlight": p.highlight}
    v = View(outputs=o)
    v.stat("nvl72_grace_cpus", "GB200 NVL72 · Grace CPU", "个")
    v.stat("nvl72_gpus", "GB200 NVL72 · Blackwell GPU(同一 NVLink 域)", "个")
    v.blocks.append(Block("diagrams/fig-1-5.html", {"traffic": TRAFFIC, "highlight": p.highlight}))
    v.notes.append(Note("图中每个超节点画几颗 CPU、几张 GPU 只是示意。", "illustrative"))
    v.notes.append(Note("CPU 连主存,跑主机程序、控制执行;GPU 各连自己的显存(多为 HBM,接口很宽,持续供数);CPU 与 GPU 可走 PCIe,"
                        "GPU 之间走独立的高速互联。支持直接内存访问(DMA)时,数据由传输硬件直接写进目标内存,CPU 只负责发起和管理(第 7 章)。"))
    v.notes.append(Note("单卡的算力和带宽决定本地计算与读写要多久;多卡协作还要加上数据交换和等待。本章先估单卡,后面的章节把同样的方法用到超节点和网络。"))
    return v


@card("tab-three-traffic", title="三种流量", section="1.1", kind="table",
      lead="同一套物理连接上跑着三种节奏完全不同的流量。点一行,在图 1-5 里看它的路径。")
def tab_three_traffic(p: Params) -> View:
    rows = [{k: t[k] for k in ("id", "path", "when", "timing")} for t in TRAFFIC]
    v = View(outputs={"rows": rows})
    v.blocks.append(Block("diagrams/tab-three-traffic.html", {"traffic": TRAFFIC}))
    return v


# ------------------------------------------------------------------------------------------------
# 贯穿全书的两条线索
# ------------------------------------------------------------------------------------------------

THREADS = [
    {"id": "decoder-only", "name": "decoder-only",
     "gist": "所有输入 token 和新 token 都经过同一个解码器主体"},
    {"id": "ced", "name": "因果编码器—解码器(CED)",
     "gist": "编码器形成上下文表示,解码器从中取全局信息;大量输入 token 不必经过解码器主体"},
]
MODELS = [
    {"name": "DeepSeek V4", "role": "用上下文压缩和稀疏访问改变存储与读取需求"},
    {"name": "DeepSeek V4.1 Flash", "role": "重划模型内部职责:编码器形成上下文表示,解码器取全局信息;新 token 仍依次经过编码器与解码器"},
    {"name": "Qwen3", "role": "开源,作为全书的基础算例"},
]
CHAPTERS = [
    {"ch": "第 2 章", "topic": "CED 的结构与状态"},
    {"ch": "第 3 章", "topic": "分解负载"},
    {"ch": "第 4–7 章", "topic": "追踪数据路径"},
    {"ch": "第 8、9 章", "topic": "缓存与分配"},
]


@card("two-threads", title="贯穿全书的两条线索", section="1.1", kind="diagram",
      lead="decoder-only 与因果编码器—解码器(CED)两条线并行往下走;Agent 负载“输入多、输出少”,计算可以按这个重新分配。")
def two_threads(p: Params) -> View:
    v = View(outputs={"threads": THREADS, "models": MODELS, "chapters": CHAPTERS})
    v.blocks.append(Block("diagrams/two-threads.html", {"threads": THREADS, "models": MODELS, "chapters": CHAPTERS}))
    v.notes.append(Note("图里编码器、解码器的方框只表达“谁处理哪些 token”,内部结构是示意,详见第 2 章。", "illustrative"))
    return v
