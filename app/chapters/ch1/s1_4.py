"""Section 1.4 需求如何推动架构设计: TPU (规模与总成本, 图 1-15), SmartNIC (包处理占几个核, 图 1-16),
Unified Bus (图 1-17) and the capacity / workload / dependency table."""
from __future__ import annotations

from typing import Literal

from ...calculators import architecture as arch
from ...cards import Block, Figure, Note, Params, Stat, View, card, choice, slider
from ...charts import axis, figure, layout, line, points, vline, with_refs

# ------------------------------------------------------------------------------------------------
# 规模与总成本 (示意: no scale; placeholder constants C0 = 1, g = 1, d = 0.3)
# ------------------------------------------------------------------------------------------------

COST = arch.CostModel(upfront=1.0, general_per_unit=1.0, dedicated_per_unit=0.3)
SCALE_MAX = 3.0


class ScaleParams(Params):
    scale: float = slider(0.5, ge=0, le=SCALE_MAX, step=0.05, label="服务规模(标记位置)", illustrative=True,
                          help="横轴没有刻度,只表示“规模更大”;数值本身是示意")


@card("tpu-scale-cost", title="规模与总成本", section="1.4", kind="chart", params=ScaleParams,
      lead="通用服务器随规模按比例花钱;专用处理器先付一笔开发成本,之后每单位规模更便宜。拖动标记,看它越过交点前后谁更省。")
def tpu_scale_cost(p: ScaleParams) -> View:
    s_star = arch.break_even_scale(COST)
    grid = [i * 0.25 for i in range(int(SCALE_MAX / 0.25) + 1)]
    gp = [arch.cost_general(s, COST) for s in grid]
    asic = [arch.cost_dedicated(s, COST) for s in grid]
    o = {"break_even_scale": s_star, "selected_scale": p.scale,
         "chart": {"scale": grid, "general_purpose": gp, "asic": asic}}

    c_gp, c_asic = arch.cost_general(p.scale, COST), arch.cost_dedicated(p.scale, COST)
    if abs(c_gp - c_asic) < 1e-9:
        verdict = "正好在交点:两种做法总成本相同"
    elif c_gp < c_asic:
        verdict = "通用服务器更省(节省还没抵上前期投入)"
    else:
        verdict = "专用处理器更省(累计节省已超过前期投入)"

    no_ticks = {"showticklabels": False, "ticks": "", "showgrid": False}
    ymax = arch.cost_general(SCALE_MAX, COST) * 1.05
    fig = figure([
        line(grid, gp, "通用服务器", "read"),
        line(grid, asic, "专用处理器", "compute"),
        points([s_star], [arch.cost_general(s_star, COST)], "交点", "ink", size=12, symbol="diamond"),
        points([p.scale, p.scale], [c_gp, c_asic], "当前规模", "accent", size=11),
    ], with_refs(
        layout(axis("服务规模 →", range_=(0, SCALE_MAX), **no_ticks),
               axis("总成本 →", range_=(0, ymax), **no_ticks), height=340, margin=(40, 16, 16, 40),
               annotations=[{"x": 0, "y": COST.upfront, "xref": "x", "yref": "y", "text": "前期开发成本",
                             "showarrow": True, "ax": 60, "ay": -30, "font": {"size": 14}},
                            {"x": s_star, "y": arch.cost_general(s_star, COST), "xref": "x", "yref": "y",
                             "text": "交点:累计节省抵上前期投入", "showarrow": True, "ax": 70, "ay": 50,
                             "xanchor": "left", "font": {"size": 14}}]),
        vline(s_star, "", "ink", "dot"),
        vline(p.scale, "", "accent", "dash")))
    fig["layout"]["hovermode"] = False

    v = View(outputs=o, headline=f"当前规模:{verdict}")
    v.stat("break_even_scale", "交点位置(占位常数下)", "", digits=2, approx=True, illustrative=True)
    v.stat("selected_scale", "标记位置", "", digits=2, illustrative=True)
    v.figures.append(Figure(fig, "规模与总成本", illustrative=True,
                            summary=f"示意图,无刻度。蓝线从原点出发、较陡;绿线从前期开发成本起步、较缓;"
                                    f"两线相交处(占位常数下约 {s_star:.2f})之后专用处理器更省。当前标记:{verdict}。"))
    v.notes = [
        Note("每日总需求 $=$ 请求量 $Q \\times$ 每请求计算量 $F_1$。$Q$ 一直涨,空闲算力迟早用完:要么继续加通用服务器,"
             "要么做专用处理器——后者先付开发成本,换来每个请求更少的设备时间和能耗。", "formula"),
        Note("Google 很早就讨论过 GPU、FPGA 和专用芯片,但那时空闲资源够用;2013 年的一项预测改变了判断:"
             "每位用户每天只用三分钟语音搜索,数据中心就可能要扩大一倍。TPU v1 于 2015 年进入数据中心,论文 2017 年发表。", "book"),
        Note("书中这张图本来就没有刻度。本页的直线用占位常数画出:前期成本 1、通用服务器每单位规模 1、专用处理器每单位规模 0.3,"
             "交点 $s^* = C_0/(g-d) \\approx 1.43$ 只是这组常数的结果,不是任何真实的规模或金额。", "illustrative"),
    ]
    return v


# ------------------------------------------------------------------------------------------------
# 图 1-15 · 矩阵运算引擎 (block names and sizes 示意; TPU v1 specifics in chapter 4)
# ------------------------------------------------------------------------------------------------

ENGINE_BLOCKS = [
    {"id": "host", "name": "主机接口",
     "role": "从主机接收指令和输入数据,把结果送回主机;专用处理器本身不跑通用程序,由主机告诉它算什么。"},
    {"id": "weights", "name": "权重缓冲",
     "role": "暂存即将用到的权重。同一块权重要和很多输入相乘,先放在片上、从上方依次送进阵列,就不必每次都从片外重新读。"},
    {"id": "activations", "name": "激活缓冲",
     "role": "存放当前层的输入(激活),从左侧一行行送进阵列;上一层的结果也写回这里,作为下一层的输入。"},
    {"id": "mac", "name": "乘加阵列",
     "role": "大量相同的乘加单元排成规则的网格。数据在相邻单元之间逐格传递,每个单元每拍做一次乘加,"
             "一个读进来的数被多次使用——这正是为反复出现的矩阵乘法而组织的结构。"},
    {"id": "accumulators", "name": "累加器",
     "role": "收集阵列每一列流出的部分和,累加成完整结果,再交给后续处理、写回激活缓冲。"},
]
ENGINE_IDS = ["none"] + [b["id"] for b in ENGINE_BLOCKS]


class EngineParams(Params):
    part: Literal["none", "host", "weights", "activations", "mac", "accumulators"] = choice(
        "none", {"none": "不选", **{b["id"]: b["name"] for b in ENGINE_BLOCKS}}, label="查看部件")


@card("fig-1-15", title="围绕反复出现的矩阵运算组织计算阵列和缓冲", label="图 1-15", section="1.4",
      kind="diagram", params=EngineParams,
      lead="专用处理器把同一种运算——矩阵乘加——做成规则的阵列,缓冲就放在阵列旁边。点一个部件,看它在数据流里做什么。")
def fig_1_15(p: EngineParams) -> View:
    blocks = [{"id": b["id"], "name": b["name"]} for b in ENGINE_BLOCKS]
    sel = next((b for b in ENGINE_BLOCKS if b["id"] == p.part), None)
    v = View(outputs={"blocks": blocks})
    v.blocks.append(Block("diagrams/fig-1-15.html", {"blocks": ENGINE_BLOCKS, "selected": p.part, "sel": sel}))
    v.notes.append(Note("书中这张图没有给部件尺寸或数量;方框名称、阵列画成 8×8 都只是示意。TPU v1 的具体结构在第 4 章展开。",
                        "illustrative"))
    return v


# ------------------------------------------------------------------------------------------------
# 包处理要占几个 CPU 核 (μ_core 示意)
# ------------------------------------------------------------------------------------------------


class NicParams(Params):
    link_gbit_s: float = slider(40, ge=1, le=400, step=1, label="线路速率", unit="Gbit/s")
    frame_wire_bytes: int = slider(84, ge=84, le=1538, step=1, label="每帧占用的线时", unit="B",
                                   help="最小帧 64 B + 前导码/SFD 8 B + 帧间隙 12 B = 84 B")
    per_core_mpps: float = slider(10, ge=0.5, le=50, step=0.5, label="单核处理能力 μ_core", unit="Mpps",
                                  illustrative=True, help="书中没有给出单核包处理速率,10 Mpps 是示意值")


MAX_CORE_ICONS = 64


@card("smartnic-cores", title="包处理要占几个 CPU 核", section="1.4", kind="calculator", params=NicParams,
      lead="线路跑满、全是最小帧时,每秒到达多少个包?每个核每秒处理得了多少个?两者一除,就是被包处理吃掉的核数。")
def smartnic_cores(p: NicParams) -> View:
    link = p.link_gbit_s * 1e9
    lam = arch.packet_rate(link, p.frame_wire_bytes)
    mu = p.per_core_mpps * 1e6
    n = arch.cores_needed(lam, mu)
    o = {"packet_rate_mpps": lam / 1e6, "per_packet_ns": arch.per_packet_time(link, p.frame_wire_bytes) * 1e9,
         "cores": n}
    whole = arch.whole_cores(n)
    mu_txt, link_txt = f"{p.per_core_mpps:g}", f"{p.link_gbit_s:g}"
    v = View(outputs=o, headline=f"{link_txt} Gbit/s · 每帧 {p.frame_wire_bytes} B 线时 · 单核 {mu_txt} Mpps(示意)")
    v.stat("packet_rate_mpps", "包到达率 λ", "Mpps", digits=2, emphasis=True)
    v.stat("per_packet_ns", "每帧线时 1/λ", "ns", sig=3)
    v.stat("cores", "需要的核数 λ/μ_core", "核", digits=2, illustrative=True, emphasis=True)
    v.blocks.append(Block("diagrams/smartnic-cores.html", {
        "link": link_txt, "wire": p.frame_wire_bytes, "frame": p.frame_wire_bytes - 20,
        "lam_mpps": o["packet_rate_mpps"], "per_ns": o["per_packet_ns"], "mu": mu_txt,
        "cores": n, "whole": whole, "shown": min(whole, MAX_CORE_ICONS), "max_icons": MAX_CORE_ICONS,
        "last_frac": n - (whole - 1) if whole else 0.0}))
    v.notes = [
        Note(f"$\\lambda = \\dfrac{{{link_txt}\\times10^9\\ \\text{{bit/s}}}}{{{p.frame_wire_bytes}\\ \\text{{B}}"
             f"\\times 8\\ \\text{{bit/B}}}} = {o['packet_rate_mpps']:.2f}\\ \\text{{Mpps}}$;"
             f"$n_{{core}} = \\lambda/\\mu_{{core}} = {o['packet_rate_mpps']:.2f} \\div {mu_txt} = {n:.2f}$", "formula"),
        Note("84 B = 最小以太网帧 64 B + 前导码与帧起始符 8 B + 帧间隙 12 B:链路上每个最小帧实际占这么多字节的时间。"),
        Note("书中没有给单核每秒能处理多少个包,所以核数只能示意:10 Mpps 是本页的占位值。策略越复杂(查更多规则、多层封装),"
             "单核越慢,核数越多。", "illustrative"),
        Note("2015 年 Azure 设计 40 Gbit/s 云服务器时,虚拟网络策略(识别数据归属、查转发规则、封装、维持隔离)越来越重,"
             "吃掉的正是本该卖给租户的 CPU 核。2015 年末起新服务器装上基于 FPGA 的 SmartNIC,2016 年对客户提供 Accelerated Networking。",
             "book"),
    ]
    return v


# ------------------------------------------------------------------------------------------------
# 图 1-16 · SmartNIC 软硬分工 (title is the catalog's, not the book's)
# ------------------------------------------------------------------------------------------------

NIC_BLOCKS = [
    {"id": "vm", "name": "虚拟机",
     "role": "租户的程序跑在这里。多台虚拟机共用同一块物理网卡和同一张物理网络,彼此必须隔离。"},
    {"id": "host-sw", "name": "主机软件(策略管理)",
     "role": "管理复杂、经常变化的虚拟网络策略:哪些流量归谁、按什么规则转发。它只负责制定和下发规则,不再逐包处理。"},
    {"id": "fpga", "name": "FPGA SmartNIC",
     "role": "站在每个包必经的位置,按下发的规则重复做逐包处理:识别归属、查转发规则、封装/解封装、维持隔离。"
             "FPGA 可以重新配置,策略更新时网络处理也能跟着改。"},
    {"id": "port", "name": "网络端口",
     "role": "连接数据中心网络。40 Gbit/s 下,最小帧每 16.8 ns 就到一个,软件逐包处理要占好几个核。"},
    {"id": "pcie", "name": "PCIe",
     "role": "网卡与主机内存之间的连接。网卡若还要读主机内存,每次读取都要跨一次 PCIe 往返:往返延迟和能同时发出的请求数"
             "决定读取速度(大致为 在途请求数 × 每次读取量 ÷ 往返延迟)。第 7 章的 KV-Direct 会展开。"},
]


class NicDiagramParams(Params):
    part: Literal["none", "vm", "host-sw", "fpga", "port", "pcie"] = choice(
        "none", {"none": "不选", **{b["id"]: b["name"] for b in NIC_BLOCKS}}, label="查看部件")


@card("fig-1-16", title="SmartNIC 软硬分工", label="图 1-16", section="1.4", kind="diagram",
      params=NicDiagramParams,
      lead="规则由主机软件来定,逐包执行交给网卡上的 FPGA。点一个部件,看它负责哪一段。")
def fig_1_16(p: NicDiagramParams) -> View:
    blocks = [{"id": b["id"], "name": b["name"]} for b in NIC_BLOCKS]
    sel = next((b for b in NIC_BLOCKS if b["id"] == p.part), None)
    v = View(outputs={"blocks": blocks})
    v.blocks.append(Block("diagrams/fig-1-16.html", {"blocks": NIC_BLOCKS, "selected": p.part, "sel": sel}))
    v.notes = [
        Note("设计的关键在于两头兼顾:保留软件随时改策略的能力,又拿到硬件逐包处理的速度。"),
        Note("书中图 1-16 没有标题,“SmartNIC 软硬分工”是本页起的;方框的位置和画几台虚拟机也是示意。", "illustrative"),
    ]
    return v


# ------------------------------------------------------------------------------------------------
# 图 1-17 · 一次远程访问要穿过几层 (layer list = the catalog's reading; no per-layer times)
# ------------------------------------------------------------------------------------------------

LAYER_INFO = {
    "mpi": ("消息传递接口",
            "数据一跨出主机边界,程序就不能再用普通读写去访问对方的内存,而要改用“发送 / 接收消息”的接口:"
            "双方约定谁发、谁收、发多少。"),
    "buffer": ("缓冲区重排",
               "要发的数据往往散在几处,或者排列方式不合网络的要求,得先拷贝、打包进发送缓冲区;接收方再拆包、拷回目标位置。"),
    "driver": ("网卡驱动",
               "操作系统里管理网卡的软件:把发送请求交给网卡,处理完成通知和中断。"),
    "stack": ("协议栈",
              "把数据切段、加包头、校验,负责重传和流量控制,保证数据在网络上可靠送达。"),
    "wire": ("线路",
             "信号在链路和交换机上传播、转发所花的时间,是一次远程访问的下限。拓扑决定访问要走多远、经过几跳、能分到多少带宽。"),
    "ub": ("UB 直接访问",
           "设备像访问本地内存那样,直接对另一台设备的内存发起读写;消息接口、缓冲区重排、驱动和协议栈这些层都不再经过,"
           "一次远程访问的耗时逼近线路时延决定的下限。"),
}
SIDE_LAYERS = ["mpi", "buffer", "driver", "stack"]
PATHS = {
    "conventional": SIDE_LAYERS + ["wire"] + SIDE_LAYERS[::-1],
    "ub": ["ub", "wire", "ub"],
}


class Fig117Params(Params):
    path: Literal["conventional", "ub"] = choice(
        "conventional", {"conventional": "常规路径(跨主机边界)", "ub": "UB 路径"}, label="画哪条路径")
    part: Literal["none", "mpi", "buffer", "driver", "stack", "wire", "ub"] = choice(
        "none", {"none": "不选", **{k: v[0] for k, v in LAYER_INFO.items()}}, label="查看哪一层")


def path_layers(path: str) -> list[str]:
    """Layer names crossed by one remote access on ``path`` (sender side, wire, receiver side)."""
    return [LAYER_INFO[k][0] for k in PATHS[path]]


@card("fig-1-17", title="一次远程访问要穿过几层", label="图 1-17", section="1.4", kind="diagram",
      params=Fig117Params,
      lead="常规做法下,数据一跨出主机就要层层换手;UB 把这些层去掉,让设备直接访问另一台设备的内存。点任意一层,看它在做什么。")
def fig_1_17(p: Fig117Params) -> View:
    o = {"layers": path_layers(p.path), "layer_times": None}
    ribbons = [
        {"id": pid, "title": "常规路径" if pid == "conventional" else "UB 路径",
         "layers": [{"id": k, "name": LAYER_INFO[k][0]} for k in PATHS[pid]]}
        for pid in ("conventional", "ub")]
    sel = {"id": p.part, "name": LAYER_INFO[p.part][0], "role": LAYER_INFO[p.part][1]} if p.part != "none" else None
    n_conv, n_ub = len(PATHS["conventional"]), len(PATHS["ub"])
    v = View(outputs=o)
    v.stats.append(Stat("layers", f"{'常规路径' if p.path == 'conventional' else 'UB 路径'}穿过的层数", len(o["layers"]), "层"))
    v.blocks.append(Block("diagrams/fig-1-17.html", {"ribbons": ribbons, "path": p.path, "selected": p.part,
                                                     "sel": sel, "n_conv": n_conv, "n_ub": n_ub,
                                                     "removed": SIDE_LAYERS}))
    v.notes = [
        Note("单卡放不下模型和状态,最直接的办法是加卡;可“总容量够了”离“任务跑得快”还隔着工作划分、数据交换和同步——"
             "一步计算要用另一张卡的结果,就得等交接。华为面向昇腾等异构设备推进 UB,相关研究在 GPT-3(2020)发布前就已开始。",
             "book"),
        Note("方块等宽,只表示“要经过这一层”,不代表各层耗时;书中没有给出每层的时间,第 7.3、7.4 节再推导。"
             "层的划分(消息传递接口、缓冲区重排、网卡驱动、协议栈)是本页对书中描述的归纳。", "illustrative"),
    ]
    return v


# ------------------------------------------------------------------------------------------------
# 容量 / 工作量 / 依赖
# ------------------------------------------------------------------------------------------------

THREE_STEPS = [
    {"step": "容量", "question": "每个加速器放得下它要用的数据吗?",
     "how": "逐卡检查 $M \\le M_{cap}$", "href": "/cards/fig-1-7?n_gpus=2", "link_text": "图 1-7 显存预算(两卡均分)"},
    {"step": "工作量", "question": "每个加速器要算多少、读写多少?",
     "how": "$F/\\Pi$、$R/\\beta$,再加上通信量", "href": "/cards/eg-1-1", "link_text": "例题 1-1 单步生成计算器"},
    {"step": "依赖", "question": "按执行顺序,哪些能重叠、哪些要等?",
     "how": "沿执行顺序累计重叠与等待,得到总时间", "href": "/cards/fig-1-10", "link_text": "图 1-10 读取与计算重叠"},
]

# 示意 two-card sketch (time units arbitrary): card 1 runs the first half of the layers, hands the
# intermediate result to card 2, then waits for the step's output before the next step.
TIMELINE = {
    "units": 20,
    "lanes": [
        {"name": "卡 1", "spans": [(0, 4, "compute", "前半层"), (4, 5, "read", "发送"), (5, 10, "waiting", "等待"),
                                  (10, 14, "compute", "前半层"), (14, 15, "read", "发送"), (15, 20, "waiting", "等待")]},
        {"name": "卡 2", "spans": [(0, 5, "waiting", "等待输入"), (5, 9, "compute", "后半层"), (9, 10, "read", "回传"),
                                  (10, 15, "waiting", "等待输入"), (15, 19, "compute", "后半层"), (19, 20, "read", "回传")]},
    ],
}


@card("tab-three-step", title="容量 / 工作量 / 依赖", section="1.4", kind="table",
      lead="不论模型多大、卡有多少,分析都按同一个顺序:先看放不放得下,再看各自要做多少,最后按执行顺序算等待。")
def tab_three_step(p: Params) -> View:
    rows = [{k: r[k] for k in ("step", "question", "how")} for r in THREE_STEPS]
    v = View(outputs={"rows": rows})
    v.blocks.append(Block("diagrams/tab-three-step.html", {"rows": THREE_STEPS, "timeline": TIMELINE}))
    v.notes.append(Note("两卡时间线只是示意:时间单位任意,没有对应任何实测;书中这一段没有给数字。", "illustrative"))
    return v
