"""Section 1.4 需求如何推动架构设计: TPU (规模与总成本, 图 1-15), SmartNIC (包处理占几个核, 图 1-16),
Unified Bus (图 1-17) and the capacity / workload / dependency table."""

from __future__ import annotations

from typing import Literal

from ...calculators import architecture as arch
from ...cards import Figure, Params, View, card, choice, slider
from ...charts.scaling import cost_vs_scale
from ...format import compact
from ...outputs import data, out, outputs
from ...trace import given
from ...words import words_for
from ..shared import ch1 as shared
from ..shared.ch1 import CONTENT

W = words_for(__name__)

# 规模与总成本: 示意 — the book's chart has no scale; the constants are placeholders.
PLACEHOLDER = W["placeholder"]
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
        label=W["scaleparams.scale.label"],
        illustrative=True,
        help=W["scaleparams.scale.help"],
    )


@card(
    "tpu-scale-cost",
    title=W["tpu_scale_cost.title"],
    section="1.4",
    kind="chart",
    params=ScaleParams,
    outputs=outputs(
        break_even_scale=out(W["tpu_scale_cost.break_even_scale"], digits=2, approx=True, ill=True, sym="s^*"),
        selected_scale=out(W["tpu_scale_cost.selected_scale"], digits=2, ill=True),
        chart=data(W["tpu_scale_cost.chart"], type=dict),
    ),
    lead=W["tpu_scale_cost.lead"],
)
def tpu_scale_cost(p: ScaleParams) -> View:
    s_star = arch.break_even_scale(COST)
    grid = [i * 0.25 for i in range(int(SCALE_MAX / 0.25) + 1)]
    gp, asic = [arch.cost_general(s, COST) for s in grid], [arch.cost_dedicated(s, COST) for s in grid]
    at = arch.cost_general(p.scale, COST), arch.cost_dedicated(p.scale, COST)
    verdict = (
        W["tpu_scale_cost"]
        if abs(at[0] - at[1]) < 1e-9
        else W["tpu_scale_cost_2"]
        if at[0] < at[1]
        else W["tpu_scale_cost_3"]
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
        headline=W["tpu_scale_cost.headline"],
        ctx={"verdict": verdict},
        figures=[
            Figure(
                fig,
                W["tpu_scale_cost.title"],
                illustrative=True,
                summary=W["tpu_scale_cost.summary"],
                draws=frozenset({"break_even_scale", "selected_scale"}),
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
PARTS_OUT = outputs(blocks=data(W["parts_out.blocks"]))


class EngineParams(Params):
    part: Literal["none", "host", "weights", "activations", "mac", "accumulators"] = choice(
        "none",
        {"none": W["engineparams.part.none"], **{b["id"]: b["name"] for b in ENGINE}},
        label=W["engineparams.part.label"],
    )


@card(
    "fig-1-15",
    title=W["fig_1_15.title"],
    label=W["fig_1_15.label"],
    section="1.4",
    kind="diagram",
    params=EngineParams,
    outputs=PARTS_OUT,
    lead=W["fig_1_15.lead"],
)
def fig_1_15(p: EngineParams) -> View:
    return part_card("fig-1-15", p.part, ENGINE)


class NicDiagramParams(Params):
    part: Literal["none", "vm", "host-sw", "fpga", "port", "pcie"] = choice(
        "none",
        {"none": W["engineparams.part.none"], **{b["id"]: b["name"] for b in NIC}},
        label=W["engineparams.part.label"],
    )


@card(
    "fig-1-16",
    title=W["fig_1_16.title"],
    label=W["fig_1_16.label"],
    section="1.4",
    kind="diagram",
    params=NicDiagramParams,
    outputs=PARTS_OUT,
    lead=W["fig_1_16.lead"],
)
def fig_1_16(p: NicDiagramParams) -> View:
    return part_card("fig-1-16", p.part, NIC)


# ---- 包处理要占几个 CPU 核 (μ_core 示意) ---------------------------------------------------------------------------


class NicParams(Params):
    link_gbit_s: float = slider(40, ge=1, le=400, step=1, label=W["nicparams.link_gbit_s.label"], unit="Gbit/s")
    frame_wire_bytes: int = slider(
        84,
        ge=84,
        le=1538,
        step=1,
        label=W["nicparams.frame_wire_bytes.label"],
        unit="B",
        help=W["nicparams.frame_wire_bytes.help"],
    )
    per_core_mpps: float = slider(
        10,
        ge=0.5,
        le=50,
        step=0.5,
        label=W["nicparams.per_core_mpps.label"],
        unit="Mpps",
        illustrative=True,
        help=W["nicparams.per_core_mpps.help"],
    )


NIC_OUT = outputs(
    packet_rate_mpps=out(W["nic_out.packet_rate_mpps"], unit="Mpps", digits=2, em=True, sym="λ"),
    per_packet_ns=out(W["nic_out.per_packet_ns"], unit="ns", sig=3),
    cores=out(W["nic_out.cores"], unit=W["nic_out.unit"], digits=2, ill=True, em=True, sym="n_{core}"),
    packet_rate_wan=shared.plain_out(
        W["nic_out.packet_rate_wan"], unit=W["nic_out.unit_2"], digits=0, tile=False, sym="λ"
    ),
)


@card(
    "smartnic-cores",
    title=W["smartnic_cores.title"],
    section="1.4",
    kind="calculator",
    params=NicParams,
    outputs=NIC_OUT,
    lead=W["smartnic_cores.lead"],
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
        headline=W["smartnic_cores.headline"],
        blocks=[
            shared.diagram(
                "smartnic-cores",
                link=compact(p.link_gbit_s),
                wire=p.frame_wire_bytes,
                frame=p.frame_wire_bytes - 20,
                mu=compact(p.per_core_mpps),
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
PATH_NAMES = {"conventional": W["path_names.conventional"], "ub": W["path_names.ub"]}


def path_layers(path: str) -> list[str]:
    """Layer names crossed by one remote access on ``path`` (sender side, wire, receiver side)."""
    return [LAYERS[k][0] for k in PATHS[path]]


class Fig117Params(Params):
    path: Literal["conventional", "ub"] = choice(
        "conventional",
        {"conventional": W["fig117params.path.conventional"], "ub": W["path_names.ub"]},
        label=W["fig117params.path.label"],
    )
    part: Literal["none", "mpi", "buffer", "driver", "stack", "wire", "ub"] = choice(
        "none",
        {"none": W["engineparams.part.none"], **{k: v[0] for k, v in LAYERS.items()}},
        label=W["fig117params.part.label"],
    )


@card(
    "fig-1-17",
    title=W["fig_1_17.title"],
    label=W["fig_1_17.label"],
    section="1.4",
    kind="diagram",
    params=Fig117Params,
    outputs=outputs(
        layers=out(W["fig_1_17.layers"], text=lambda v: str(len(v)), type=list[str]),
        layer_times=data(W["fig_1_17.layer_times"], type=type(None)),
    ),
    lead=W["fig_1_17.lead"],
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
    title=W["tab_three_step.title"],
    section="1.4",
    kind="table",
    outputs=outputs(rows=data(W["tab_three_step.rows"])),
    lead=W["tab_three_step.lead"],
)
def tab_three_step(p: Params) -> View:
    steps = CONTENT["three_steps"]
    o = {"rows": [{k: r[k] for k in ("step", "question", "how")} for r in steps]}
    return shared.diagram_view("tab-three-step", o, rows=steps, timeline=CONTENT["two_card_timeline"])
