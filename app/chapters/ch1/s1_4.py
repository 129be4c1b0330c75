"""Section 1.4 需求如何推动架构设计: TPU (规模与总成本, 图 1-15), SmartNIC (包处理占几个核, 图 1-16),
Unified Bus (图 1-17) and the capacity / workload / dependency table."""

from __future__ import annotations

from typing import Literal

from ...calculators import architecture as arch
from ...cards import Figure, Params, View, card, choice, slider
from ...charts.scaling import cost_vs_scale
from ...outputs import data, out, outputs
from ...trace import given
from ..shared import ch1 as shared
from ..shared.ch1 import CONTENT

# 规模与总成本: 示意 — the book's chart has no scale; the constants are placeholders.
PLACEHOLDER = "示意占位常数(书中图没有刻度)"
COST = arch.CostModel(
    upfront=given(1.0, "C_0", "", source=PLACEHOLDER),
    general_per_unit=given(1.0, "g", "", source=PLACEHOLDER),
    dedicated_per_unit=given(0.3, "d", "", source=PLACEHOLDER),
)
SCALE_MAX = 3.0


class ScaleParams(Params):
    scale: float = slider(
        0.5,
        ge=0,
        le=SCALE_MAX,
        step=0.05,
        label="服务规模(标记位置) s",
        illustrative=True,
        help="横轴没有刻度,只表示“规模更大”;数值本身是示意",
    )


@card(
    "tpu-scale-cost",
    title="规模与总成本",
    section="1.4",
    kind="chart",
    params=ScaleParams,
    outputs=outputs(
        break_even_scale=out("交点位置(占位常数下)", digits=2, approx=True, ill=True, sym="s^*"),
        selected_scale=out("标记位置", digits=2, ill=True),
        chart=data("两条总成本线:scale, general_purpose, asic", type=dict),
    ),
    lead="通用服务器随规模按比例花钱;专用处理器先付一笔开发成本,之后每单位规模更便宜。拖动标记,看它越过交点前后谁更省。",
)
def tpu_scale_cost(p: ScaleParams) -> View:
    s_star = arch.break_even_scale(COST)
    grid = [i * 0.25 for i in range(int(SCALE_MAX / 0.25) + 1)]
    gp, asic = [arch.cost_general(s, COST) for s in grid], [arch.cost_dedicated(s, COST) for s in grid]
    at = arch.cost_general(p.scale, COST), arch.cost_dedicated(p.scale, COST)
    verdict = (
        "正好在交点:两种做法总成本相同"
        if abs(at[0] - at[1]) < 1e-9
        else "通用服务器更省(节省还没抵上前期投入)"
        if at[0] < at[1]
        else "专用处理器更省(累计节省已超过前期投入)"
    )
    fig = cost_vs_scale(
        grid,
        gp,
        asic,
        s_star,
        arch.cost_general(s_star, COST),
        p.scale,
        at,
        COST.upfront,
        SCALE_MAX,
        arch.cost_general(SCALE_MAX, COST) * 1.05,
    )
    o = {
        "break_even_scale": s_star,
        "selected_scale": p.scale,
        "chart": {"scale": grid, "general_purpose": gp, "asic": asic},
    }
    return View(
        o,
        headline="当前规模:[[verdict]]",
        ctx={"verdict": verdict},
        figures=[
            Figure(
                fig,
                "规模与总成本",
                illustrative=True,
                summary="示意图,无刻度。蓝线从原点出发、较陡;绿线从前期开发成本起步、较缓;"
                "两线相交处(占位常数下约 [[break_even_scale|n]])之后专用处理器更省。当前标记:[[verdict]]。",
            )
        ],
        notes=shared.notes("tpu-scale-cost"),
    )


def part_card(card_id: str, part: str, blocks: list[dict]) -> View:
    """A diagram whose parts explain themselves when picked (图 1-15, 图 1-16)."""
    o = {"blocks": [{"id": b["id"], "name": b["name"]} for b in blocks]}
    return shared.diagram_view(
        card_id, o, blocks=blocks, selected=part, sel=next((b for b in blocks if b["id"] == part), None)
    )


ENGINE = CONTENT["engine_blocks"]
NIC = CONTENT["nic_blocks"]
PARTS_OUT = outputs(blocks=data("部件:id, name"))


class EngineParams(Params):
    part: Literal["none", "host", "weights", "activations", "mac", "accumulators"] = choice(
        "none", {"none": "不选", **{b["id"]: b["name"] for b in ENGINE}}, label="查看部件"
    )


@card(
    "fig-1-15",
    title="围绕反复出现的矩阵运算组织计算阵列和缓冲",
    label="图 1-15",
    section="1.4",
    kind="diagram",
    params=EngineParams,
    outputs=PARTS_OUT,
    lead="专用处理器把同一种运算——矩阵乘加——做成规则的阵列,缓冲就放在阵列旁边。点一个部件,看它在数据流里做什么。",
)
def fig_1_15(p: EngineParams) -> View:
    return part_card("fig-1-15", p.part, ENGINE)


class NicDiagramParams(Params):
    part: Literal["none", "vm", "host-sw", "fpga", "port", "pcie"] = choice(
        "none", {"none": "不选", **{b["id"]: b["name"] for b in NIC}}, label="查看部件"
    )


@card(
    "fig-1-16",
    title="SmartNIC 软硬分工",
    label="图 1-16",
    section="1.4",
    kind="diagram",
    params=NicDiagramParams,
    outputs=PARTS_OUT,
    lead="规则由主机软件来定,逐包执行交给网卡上的 FPGA。点一个部件,看它负责哪一段。",
)
def fig_1_16(p: NicDiagramParams) -> View:
    return part_card("fig-1-16", p.part, NIC)


# ---- 包处理要占几个 CPU 核 (μ_core 示意) ---------------------------------------------------------------------------


class NicParams(Params):
    link_gbit_s: float = slider(40, ge=1, le=400, step=1, label="线路速率 R", unit="Gbit/s")
    frame_wire_bytes: int = slider(
        84,
        ge=84,
        le=1538,
        step=1,
        label="每帧占用的线时 w",
        unit="B",
        help="最小帧 64 B + 前导码/SFD 8 B + 帧间隙 12 B = 84 B",
    )
    per_core_mpps: float = slider(
        10,
        ge=0.5,
        le=50,
        step=0.5,
        label="单核处理能力 μ_core",
        unit="Mpps",
        illustrative=True,
        help="书中没有给出单核包处理速率,10 Mpps 是示意值",
    )


NIC_OUT = outputs(
    packet_rate_mpps=out("包到达率 λ", unit="Mpps", digits=2, em=True, sym="λ"),
    per_packet_ns=out("每帧线时 1/λ", unit="ns", sig=3),
    cores=out("需要的核数 λ/μ_core", unit="核", digits=2, ill=True, em=True, sym="n_{core}"),
    packet_rate_wan=shared.plain_out("包到达率(万个/s)", unit="万个/s", digits=0, tile=False, sym="λ"),
)


@card(
    "smartnic-cores",
    title="包处理要占几个 CPU 核",
    section="1.4",
    kind="calculator",
    params=NicParams,
    outputs=NIC_OUT,
    lead="线路跑满、全是最小帧时,每秒到达多少个包?每个核每秒处理得了多少个?两者一除,就是被包处理吃掉的核数。",
)
def smartnic_cores(p: NicParams) -> View:
    link = p.link_gbit_s * 1e9
    lam = arch.packet_rate(link, p.frame_wire_bytes)
    n = arch.cores_needed(lam, p.per_core_mpps * 1e6)
    o = {
        "packet_rate_mpps": lam / 1e6,
        "per_packet_ns": arch.per_packet_time(link, p.frame_wire_bytes) * 1e9,
        "cores": n,
        "packet_rate_wan": lam / 1e4,
    }
    whole = arch.whole_cores(n)
    txt = {k: shared.shown(NIC_OUT, o, k, "n") for k in ("packet_rate_mpps", "per_packet_ns", "cores")}
    return View(
        o,
        headline="[[link_gbit_s]] · 每帧 [[frame_wire_bytes]] 线时 · 单核 [[per_core_mpps]](示意)",
        blocks=[
            shared.diagram(
                "smartnic-cores",
                link=f"{p.link_gbit_s:g}",
                wire=p.frame_wire_bytes,
                frame=p.frame_wire_bytes - 20,
                mu=f"{p.per_core_mpps:g}",
                whole=whole,
                shown=min(whole, 64),
                max_icons=64,
                last_frac=n - (whole - 1) if whole else 0.0,
                **txt,
            )
        ],
        notes=shared.notes("smartnic-cores"),
    )


# ---- 图 1-17 · 一次远程访问要穿过几层 --------------------------------------------------------------------------------

LAYERS = CONTENT["remote_layers"]
SIDE = ["mpi", "buffer", "driver", "stack"]
PATHS = {"conventional": SIDE + ["wire"] + SIDE[::-1], "ub": ["ub", "wire", "ub"]}
PATH_NAMES = {"conventional": "常规路径", "ub": "UB 路径"}


def path_layers(path: str) -> list[str]:
    """Layer names crossed by one remote access on ``path`` (sender side, wire, receiver side)."""
    return [LAYERS[k][0] for k in PATHS[path]]


class Fig117Params(Params):
    path: Literal["conventional", "ub"] = choice(
        "conventional", {"conventional": "常规路径(跨主机边界)", "ub": "UB 路径"}, label="画哪条路径"
    )
    part: Literal["none", "mpi", "buffer", "driver", "stack", "wire", "ub"] = choice(
        "none", {"none": "不选", **{k: v[0] for k, v in LAYERS.items()}}, label="查看哪一层"
    )


@card(
    "fig-1-17",
    title="一次远程访问要穿过几层",
    label="图 1-17",
    section="1.4",
    kind="diagram",
    params=Fig117Params,
    outputs=outputs(
        layers=out("[[path_name]]穿过的层数", text=lambda v: str(len(v)), type=list[str]),
        layer_times=data("每层耗时(书中没有给出)", type=type(None)),
    ),
    lead="常规做法下,数据一跨出主机就要层层换手;UB 把这些层去掉,让设备直接访问另一台设备的内存。点任意一层,看它在做什么。",
)
def fig_1_17(p: Fig117Params) -> View:
    ribbons = [
        {"id": k, "title": PATH_NAMES[k], "layers": [{"id": x, "name": LAYERS[x][0]} for x in PATHS[k]]} for k in PATHS
    ]
    sel = {"id": p.part, "name": LAYERS[p.part][0], "role": LAYERS[p.part][1]} if p.part != "none" else None
    return View(
        {"layers": path_layers(p.path), "layer_times": None},
        ctx={"path_name": PATH_NAMES[p.path]},
        blocks=[
            shared.diagram(
                "fig-1-17",
                ribbons=ribbons,
                path=p.path,
                selected=p.part,
                sel=sel,
                n_conv=len(PATHS["conventional"]),
                n_ub=len(PATHS["ub"]),
                removed=SIDE,
            )
        ],
        notes=shared.notes("fig-1-17"),
    )


@card(
    "tab-three-step",
    title="容量 / 工作量 / 依赖",
    section="1.4",
    kind="table",
    outputs=outputs(rows=data("三步:step, question, how")),
    lead="不论模型多大、卡有多少,分析都按同一个顺序:先看放不放得下,再看各自要做多少,最后按执行顺序算等待。",
)
def tab_three_step(p: Params) -> View:
    steps = CONTENT["three_steps"]
    o = {"rows": [{k: r[k] for k in ("step", "question", "how")} for r in steps]}
    return shared.diagram_view("tab-three-step", o, rows=steps, timeline=CONTENT["two_card_timeline"])
