"""Section 1.1 AI Infra 为什么重要: 图 1-1 ~ 1-5, the agent loop, 练习 1-1's ledger, the two threads."""

from __future__ import annotations

from typing import Literal

from ...calculators import request_path as rp
from ...calculators.units import KIB, MIB
from ...cards import Figure, Params, View, card, choice, slider
from ...charts import COLORS
from ...charts.request_path import request_animation, stage_of
from ...outputs import data, out, outputs
from ...trace import given
from ..shared import ch1 as shared
from ..shared.ch1 import CONTENT

# ---- 图 1-1 · Agent 循环 · 模型影响硬件 / 硬件影响模型 · 图 1-2 ----------------------------------------------------------


class Fig11Params(Params):
    highlight: Literal["none", "code-driven", "model-driven"] = choice(
        "none", {"none": "两列都看", "code-driven": "代码驱动", "model-driven": "模型驱动"}, label="突出哪一列"
    )


@card(
    "fig-1-1",
    title="两种应用的表达方式与执行路径",
    label="图 1-1",
    section="1.1",
    kind="diagram",
    params=Fig11Params,
    outputs=outputs(highlight=out("突出哪一列", tile=False), stacks=data("两列的层次"), edges=data("两种连线的含义")),
    lead="左边靠代码表达行为,右边多了一个入口:选模型、拼上下文、给工具。点一列看它从上到下怎么落到硬件。",
)
def fig_1_1(p: Fig11Params) -> View:
    o = {"highlight": p.highlight, "stacks": CONTENT["stacks"], "edges": CONTENT["edges"]}
    return shared.diagram_view("fig-1-1", o, highlight=p.highlight)


class AgentParams(Params):
    iterations: int = slider(3, ge=1, le=10, step=1, label="循环轮数 n", unit="轮", illustrative=True)


@card(
    "agent-loop",
    title="Agent 循环:模型选下一步,宿主程序动手",
    section="1.1",
    kind="diagram",
    params=AgentParams,
    outputs=outputs(
        model_calls=out("模型调用", unit="次", ill=True),
        tool_runs=out("工具执行", unit="次", ill=True),
        steps=data("每轮的两步:round, actor, action"),
    ),
    lead="以代码检查为例:模型决定下一步做什么,宿主程序真正去跑测试并把结果送回来。点“下一轮”多走一圈。",
)
def agent_loop(p: AgentParams) -> View:
    steps = [
        {"round": i, "actor": a, "action": CONTENT["agent_round"][a]}
        for i in range(1, p.iterations + 1)
        for a in ("model", "host")
    ]
    o = {"model_calls": p.iterations, "tool_runs": p.iterations, "steps": steps}  # one call and one run per round
    return shared.diagram_view("agent-loop", o, n=p.iterations, max=10, steps=steps)


@card(
    "model-hw-interplay",
    title="模型影响硬件要做的事 / 硬件影响该选哪种模型",
    section="1.1",
    kind="diagram",
    outputs=outputs(boxes=data("两个方向各三项", type=dict)),
    lead="箭头是双向的:改模型会改变硬件的工作量,硬件条件又反过来决定哪种模型结构更划算。",
)
def model_hw_interplay(p: Params) -> View:
    return shared.diagram_view("model-hw-interplay", {"boxes": CONTENT["boxes"]}, boxes=CONTENT["boxes"])


SIX = CONTENT["six_layers"]


class Fig12Params(Params):
    layer: int = slider(0, ge=0, le=6, step=1, label="选中的层(0 = 不选)", help="1 = 最上层(应用),6 = 最底层(硬件)")


@card(
    "fig-1-2",
    title="从应用到硬件的六层分工",
    label="图 1-2",
    section="1.1",
    kind="diagram",
    params=Fig12Params,
    outputs=outputs(
        n_layers=out("层数", tile=False),
        selected=out("选中的层", tile=False),
        cross_cutting=data("贯穿多层的能力"),
        interfaces=data("三个跨层接口"),
        layer_names=data("六层的名称(书中未给出)", type=type(None)),
    ),
    lead="点击任意一层,看它负责什么;右侧列出贯穿多层的能力和三个跨层接口。",
)
def fig_1_2(p: Fig12Params) -> View:
    o = {
        "n_layers": given(len(SIX["layers"]), "层数", source="图 1-2 的六层"),
        "selected": p.layer,
        "cross_cutting": SIX["cross_cutting"],
        "interfaces": SIX["interfaces"],
        "layer_names": None,
    }
    return shared.diagram_view(
        "fig-1-2",
        o,
        layers=SIX["layers"],
        selected=p.layer,
        sel=SIX["layers"][p.layer - 1] if p.layer else None,
        cross_cutting=SIX["cross_cutting"],
        interfaces=SIX["interfaces"],
    )


# ---- 图 1-3 / 1-4 · 一次请求从进入到流式返回 (▶) ----------------------------------------------------------------------


class Fig13Params(Params):
    input_tokens: int = slider(
        2048, ge=1, le=32768, step=1, label="输入长度 S_in", unit="token", log=True, illustrative=True
    )
    output_tokens: int = slider(8, ge=1, le=64, step=1, label="输出长度 G", unit="token", illustrative=True)
    frame: int = slider(
        0,
        ge=0,
        le=64,
        step=1,
        label="第几帧(0 = prefill 之前) k",
        help="0 = prefill 之前,1 = prefill 完成,k = 第 k−1 个 decode 步之后;超过输出长度按最后一帧",
    )


FIG13 = outputs(
    kv_tokens=shared.shown_out("KV 缓存长度(token)", lambda v: "—" if v == 0 else None, unit="", ill=True),
    kv_mib=out("KV 大小(70B,BF16)", digits=0, ill=True),
    tokens_emitted=out("已送出", unit="token", ill=True),
    kv_per_token_kib=out("每 token KV", digits=0, sym="kv"),
    frames=out("帧数", tile=False),
    kv_last_tokens=out("最后一个 token 送出时的 KV 长度", unit="token", tile=False),
)


@card(
    "fig-1-3",
    title="一次请求从进入到流式返回",
    label="图 1-3 / 1-4",
    section="1.1",
    kind="animation",
    params=Fig13Params,
    aliases=("fig-1-4",),
    badges=(("练习 1-1", "ex-1-1"),),
    outputs=FIG13,
    lead="请求从客户端一路走到推理实例:先分词,一次 prefill 写下整段输入的 KV,之后每个 decode 步追加一个 token。"
    "按 ▶ 看 KV 条怎样一步步变长。",
)
def fig_1_3(p: Fig13Params) -> View:
    kvb = shared.model(shared.LLAMA_70B).kv_bytes_per_token_bf16
    frame = min(p.frame, p.output_tokens)
    kv_tok, emitted = rp.frame_state(p.input_tokens, p.output_tokens, frame)
    kv_tok = kv_tok or given(0, "S_{KV}", "token", source="prefill 之前还没有 KV")
    o = {
        "kv_tokens": kv_tok,
        "tokens_emitted": emitted,
        "kv_mib": kv_tok * kvb / MIB,
        "kv_per_token_kib": kvb / KIB,
        "frames": p.output_tokens + 1,
        "kv_last_tokens": rp.kv_tokens_after(p.input_tokens, p.output_tokens),
    }
    lit, caption = stage_of(frame)
    return View(
        o,
        headline="第 [[frame_no]] 帧 · [[caption]]",
        ctx={"frame_no": frame, "caption": caption},
        figures=[
            Figure(
                request_animation(p.input_tokens, p.output_tokens, frame, kvb),
                "▶ 请求的阶段与 KV 缓存增长",
                illustrative=True,
                animated=True,
                summary="输入 [[input_tokens]],输出 [[output_tokens]],共 [[frames|n]] 帧。prefill 后 KV 为 [[input_tokens]],"
                "之后每个 decode 步加 1 个(每个 [[kv_per_token_kib]]),最后一个 token 送出时为 [[kv_last_tokens]]。",
            )
        ],
        blocks=[
            shared.diagram(
                "fig-1-3",
                frame=frame,
                lit=lit,
                kv_tokens=kv_tok,
                emitted=emitted,
                out=p.output_tokens,
                kv_text=shared.shown(FIG13, o, "kv_tokens", "n") + " token · " + shared.shown(FIG13, o, "kv_mib"),
            )
        ],
        notes=shared.notes("fig-1-3"),
    )


# ---- 练习 1-1 and its ledger -------------------------------------------------------------------------------


class Ex11Params(Params):
    input_tokens: int = slider(
        2048, ge=1, le=32768, step=1, label="输入长度 S_in", unit="token", log=True, illustrative=True
    )
    output_tokens: int = slider(100, ge=1, le=4096, step=1, label="回答长度 G", unit="token", log=True)
    instances: int = slider(1, ge=1, le=4, step=1, label="实例数 m", unit="个")
    gpus_per_instance: int = slider(
        1, ge=1, le=2, step=1, label="每实例 GPU 数(2 = 流水线切分)", unit="张", illustrative=True, sym="g"
    )


EX11 = outputs(
    weights_gb=out("模型文件(每实例)", digits=2, sym="M_W"),
    weights_total_gb=out("所有实例驻留", digits=2),
    kv_per_token_kib=out("每 token KV", digits=0, sym="kv"),
    weight_read_per_step_gb=out("每步读权重(例题 1-1 简化)", digits=0, sym="R_W"),
    steps=out("读权重的遍数 G", unit="遍"),
    weight_read_total_gb=out("本请求共读权重", sig=4, em=True),
    kv_final_tokens=out("最终 KV 长度", unit="token"),
    kv_final_gb=out("最终 KV 大小", digits=4),
    kv_read_total_gb=out("decode 累计读旧 KV", digits=2),
    inter_gpu_per_step_kib=out("每步每 token 卡间传递", digits=0),
    router_choices=out("路由器可选实例", unit="个"),
    weight_loads=out("权重加载次数", unit="次", tile=False),
    decode_steps=out("decode 步数", unit="步", tile=False),
    kv_append_per_step_kib=out("每步追加的 KV", digits=0, tile=False),
    inter_gpu_total_mib=out("本请求卡间传递总量", sig=3, tile=False),
)


def ledger_outputs(p: Ex11Params) -> dict:
    """练习 1-1's ledger for one request on the 70B model: 8-bit file, 例题 1-1's 70 GB per-step read."""
    s = shared.model(shared.LLAMA_70B)
    return rp.ledger_outputs(
        rp.ledger(
            shared.stored_weights(s, "w8-g128"),
            shared.HAND_B_W * shared.HAND_N_BILLION * 1e9,
            s.kv_bytes_per_token_bf16,
            s.hidden,
            p.input_tokens,
            p.output_tokens,
            p.instances,
            p.gpus_per_instance,
        )
    )


@card(
    "ex-1-1",
    title="一次请求中的权重读取、状态增长与数据传递",
    label="练习 1-1〔延伸〕",
    section="1.1",
    kind="exercise",
    params=Ex11Params,
    badges=(("图 1-3 / 1-4", "fig-1-3"), ("图 1-5", "fig-1-5")),
    outputs=EX11,
    lead="70B 模型(8 比特权重 73.73 GB,每 token KV 320 KiB)处理一个请求时,哪些事只做一次、哪些每步都做?"
    "拖动回答长度和实例数,变化的行会亮起来。",
)
def ex_1_1(p: Ex11Params) -> View:
    o, base = ledger_outputs(p), ledger_outputs(Ex11Params(input_tokens=p.input_tokens))
    v = View(
        o,
        headline="输入 [[input_tokens]] · 回答 [[output_tokens]] · [[instances]]实例 × [[gpus_per_instance]]卡",
        notes=shared.notes("ex-1-1"),
    )
    v.questions = shared.questions("ex-1-1", v, p)
    rows = [
        {
            "what": r["what"],
            "grows": r["grows"],
            "changed": o[r["key"]] != base[r["key"]],
            **{
                k: shared.filled("ex-1-1", v, p, (r.get("single", {}) if p.gpus_per_instance == 1 else {}).get(k, r[k]))
                for k in ("when", "each", "total")
            },
        }
        for r in CONTENT["ledger"]
    ]
    v.blocks.append(shared.diagram("ex-1-1", rows=rows, input_ill=True))
    return v


# ---- 图 1-5 · 三种流量 · 两条线索 ---------------------------------------------------------------------------------

TRAFFIC = [dict(t, color=COLORS[t["role"]]) for t in CONTENT["traffic"]]
NVL72 = "GB200 NVL72(书中:一个机柜、一个 NVLink 域)"


class Fig15Params(Params):
    highlight: Literal["none", "request", "model-file", "intermediate"] = choice(
        "none",
        {"none": "全部", "request": "请求", "model-file": "模型文件", "intermediate": "中间结果"},
        label="突出哪种流量",
    )


@card(
    "fig-1-5",
    title="物理连接的两层视图:三种流量",
    label="图 1-5",
    section="1.1",
    kind="diagram",
    params=Fig15Params,
    badges=(("三种流量表", "tab-three-traffic"),),
    outputs=outputs(
        nvl72_grace_cpus=out("GB200 NVL72 · Grace CPU", unit="个"),
        nvl72_gpus=out("GB200 NVL72 · Blackwell GPU(同一 NVLink 域)", unit="个"),
        levels=data("两层连接"),
        highlight=out("突出哪种流量", tile=False),
    ),
    lead="超节点内部靠高速互联(scale-up),超节点之间经网卡和交换网络(scale-out)。点图例看一种流量走哪条路。",
)
def fig_1_5(p: Fig15Params) -> View:
    o = {
        "nvl72_grace_cpus": given(36, "n_{CPU}", "个", source=NVL72),
        "nvl72_gpus": given(72, "n_{GPU}", "个", source=NVL72),
        "levels": CONTENT["links"]["levels"],
        "highlight": p.highlight,
    }
    return shared.diagram_view("fig-1-5", o, traffic=TRAFFIC, highlight=p.highlight)


@card(
    "tab-three-traffic",
    title="三种流量",
    section="1.1",
    kind="table",
    outputs=outputs(rows=data("id, path, when, timing")),
    lead="同一套物理连接上跑着三种节奏完全不同的流量。点一行,在图 1-5 里看它的路径。",
)
def tab_three_traffic(p: Params) -> View:
    o = {"rows": [{k: t[k] for k in ("id", "path", "when", "timing")} for t in TRAFFIC]}
    return shared.diagram_view("tab-three-traffic", o, traffic=TRAFFIC)


@card(
    "two-threads",
    title="贯穿全书的两条线索",
    section="1.1",
    kind="diagram",
    outputs=outputs(threads=data("两条线索"), models=data("三个模型"), chapters=data("后续章节的路线")),
    lead="decoder-only 与因果编码器—解码器(CED)两条线并行往下走;Agent 负载“输入多、输出少”,计算可以按这个重新分配。",
)
def two_threads(p: Params) -> View:
    t = CONTENT["threads"]
    return shared.diagram_view("two-threads", dict(t), **t)
