"""Section 1.4: the seed prints only givens here (40 Gbit/s, 84 B); everything else is derived from
the catalog's formulas or its 示意 constants (scale vs cost: C0 = 1, g = 1, d = 0.3; μ_core = 10 Mpps)."""

from . import check

ENGINE = [
    {"id": "host", "name": "主机接口"},
    {"id": "weights", "name": "权重缓冲"},
    {"id": "activations", "name": "激活缓冲"},
    {"id": "mac", "name": "乘加阵列"},
    {"id": "accumulators", "name": "累加器"},
]
NIC = [
    {"id": "vm", "name": "虚拟机"},
    {"id": "host-sw", "name": "主机软件(策略管理)"},
    {"id": "fpga", "name": "FPGA SmartNIC"},
    {"id": "port", "name": "网络端口"},
    {"id": "pcie", "name": "PCIe"},
]
CONV = ["消息传递接口", "缓冲区重排", "网卡驱动", "协议栈", "线路", "协议栈", "网卡驱动", "缓冲区重排", "消息传递接口"]
ROWS = [
    {"step": "容量", "question": "每个加速器放得下它要用的数据吗?", "how": "逐卡检查 $M \\le M_{cap}$"},
    {"step": "工作量", "question": "每个加速器要算多少、读写多少?", "how": "$F/\\Pi$、$R/\\beta$,再加上通信量"},
    {"step": "依赖", "question": "按执行顺序,哪些能重叠、哪些要等?", "how": "沿执行顺序累计重叠与等待,得到总时间"},
]

CHECKS = [
    # 规模与总成本 (示意 chart): break-even s* = C0/(g − d) = 1/0.7
    check(
        "tpu-scale-cost",
        {},
        {"break_even_scale": 1.43, "selected_scale": 0.5},
        rel_tol=0.005,
        source="derived",
        where="1.4.1 placeholder constants",
    ),
    check(
        "tpu-scale-cost",
        {"scale": 2.5},
        {"selected_scale": 2.5, "break_even_scale": 1.428571},
        rel_tol=1e-6,
        source="derived",
        where="marker moves, crossing does not",
    ),
    # 图 1-15: no numbers in the seed
    check("fig-1-15", {}, {"blocks": ENGINE}, source="derived", where="1.4.1 block diagram (names 示意)"),
    check("fig-1-15", {"part": "mac"}, {"blocks": ENGINE}, source="derived", where="clicked part"),
    # 包处理要占几个 CPU 核: 40 Gbit/s and 84 B are the seed's givens
    check(
        "smartnic-cores",
        {},
        {"packet_rate_mpps": 59.52, "per_packet_ns": 16.8},
        rel_tol=0.0005,
        source="derived",
        where="1.4.2 λ = 40e9/(84·8)",
    ),
    check("smartnic-cores", {}, {"cores": 5.95}, rel_tol=0.001, source="derived", where="μ_core = 10 Mpps (示意)"),
    check("smartnic-cores", {"per_core_mpps": 5}, {"cores": 11.90}, rel_tol=0.001, source="derived"),
    check(
        "smartnic-cores",
        {"link_gbit_s": 100},
        {"packet_rate_mpps": 148.81, "per_packet_ns": 6.72},
        rel_tol=0.0005,
        source="derived",
        where="100 GbE minimum frames",
    ),
    check(
        "smartnic-cores",
        {"frame_wire_bytes": 1538},
        {"packet_rate_mpps": 3.2510, "per_packet_ns": 307.6},
        rel_tol=0.0005,
        source="derived",
        where="1518 B max frame + 20 B",
    ),
    # 图 1-16: no numbers
    check("fig-1-16", {}, {"blocks": NIC}, source="derived", where="1.4.2 block diagram"),
    # 图 1-17: layer lists, no per-layer times
    check("fig-1-17", {}, {"layers": CONV, "layer_times": None}, source="derived", where="1.4.3 no per-layer times"),
    check("fig-1-17", {"part": "stack"}, {"layer_times": None}, source="derived", where="clicked layer"),
    check(
        "fig-1-17",
        {"path": "ub"},
        {"layers": ["UB 直接访问", "线路", "UB 直接访问"], "layer_times": None},
        source="derived",
        where="UB path",
    ),
    # 容量 / 工作量 / 依赖
    check(
        "tab-three-step",
        {},
        {"rows": ROWS},
        source="derived",
        where="1.4 end: the seed's three rows 容量/工作量/依赖, paraphrased",
    ),
]
