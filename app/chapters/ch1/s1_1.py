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
from ...words import words_for
from ..shared import ch1 as shared
from ..shared.ch1 import CONTENT

W = words_for(__name__)

# ---- 图 1-1 · Agent 循环 · 模型影响硬件 / 硬件影响模型 · 图 1-2 ----------------------------------------------------------


class Fig11Params(Params):
    highlight: Literal["none", "code-driven", "model-driven"] = choice(
        "none",
        {
            "none": W["fig11params.highlight.none"],
            "code-driven": W["fig11params.highlight.code_driven"],
            "model-driven": W["fig11params.highlight.model_driven"],
        },
        label=W["fig11params.highlight.label"],
    )


@card(
    "fig-1-1",
    title=W["fig_1_1.title"],
    label=W["fig_1_1.label"],
    section="1.1",
    kind="diagram",
    params=Fig11Params,
    outputs=outputs(
        highlight=out(W["fig11params.highlight.label"], tile=False),
        stacks=data(W["fig_1_1.stacks"]),
        edges=data(W["fig_1_1.edges"]),
    ),
    lead=W["fig_1_1.lead"],
)
def fig_1_1(p: Fig11Params) -> View:
    o = {"highlight": p.highlight, "stacks": CONTENT["stacks"], "edges": CONTENT["edges"]}
    return shared.diagram_view("fig-1-1", o, highlight=p.highlight)


class AgentParams(Params):
    iterations: int = slider(
        3,
        ge=1,
        le=10,
        step=1,
        label=W["agentparams.iterations.label"],
        unit=W["agentparams.iterations.unit"],
        illustrative=True,
    )


@card(
    "agent-loop",
    title=W["agent_loop.title"],
    section="1.1",
    kind="diagram",
    params=AgentParams,
    outputs=outputs(
        model_calls=out(W["agent_loop.model_calls"], unit=W["agent_loop.unit"], ill=True),
        tool_runs=out(W["agent_loop.tool_runs"], unit=W["agent_loop.unit"], ill=True),
        steps=data(W["agent_loop.steps"]),
    ),
    lead=W["agent_loop.lead"],
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
    title=W["model_hw_interplay.title"],
    section="1.1",
    kind="diagram",
    outputs=outputs(boxes=data(W["model_hw_interplay.boxes"], type=dict)),
    lead=W["model_hw_interplay.lead"],
)
def model_hw_interplay(p: Params) -> View:
    return shared.diagram_view("model-hw-interplay", {"boxes": CONTENT["boxes"]}, boxes=CONTENT["boxes"])


SIX = CONTENT["six_layers"]


class Fig12Params(Params):
    layer: int = slider(0, ge=0, le=6, step=1, label=W["fig12params.layer.label"], help=W["fig12params.layer.help"])


@card(
    "fig-1-2",
    title=W["fig_1_2.title"],
    label=W["fig_1_2.label"],
    section="1.1",
    kind="diagram",
    params=Fig12Params,
    outputs=outputs(
        n_layers=out(W["fig_1_2.n_layers"], tile=False),
        selected=out(W["fig_1_2.selected"], tile=False),
        cross_cutting=data(W["fig_1_2.cross_cutting"]),
        interfaces=data(W["fig_1_2.interfaces"]),
        layer_names=data(W["fig_1_2.layer_names"], type=type(None)),
    ),
    lead=W["fig_1_2.lead"],
)
def fig_1_2(p: Fig12Params) -> View:
    o = {
        "n_layers": given(len(SIX["layers"]), W["fig_1_2.n_layers"], source=W["fig_1_2.source"]),
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
        2048,
        ge=1,
        le=32768,
        step=1,
        label=W["fig13params.input_tokens.label"],
        unit="token",
        log=True,
        illustrative=True,
    )
    output_tokens: int = slider(
        8, ge=1, le=64, step=1, label=W["fig13params.output_tokens.label"], unit="token", illustrative=True
    )
    frame: int = slider(
        0,
        ge=0,
        le=64,
        step=1,
        label=W["fig13params.frame.label"],
        help=W["fig13params.frame.help"],
    )


FIG13 = outputs(
    kv_tokens=shared.shown_out(W["fig13.kv_tokens"], lambda v: "—" if v == 0 else None, unit="", ill=True),
    kv_mib=out(W["fig13.kv_mib"], digits=0, ill=True),
    tokens_emitted=out(W["fig13.tokens_emitted"], unit="token", ill=True),
    kv_per_token_kib=out(W["fig13.kv_per_token_kib"], digits=0, sym="kv"),
    frames=out(W["fig13.frames"], tile=False),
    kv_last_tokens=out(W["fig13.kv_last_tokens"], unit="token", tile=False),
)


@card(
    "fig-1-3",
    title=W["fig_1_3.title"],
    label=W["fig_1_3.label"],
    section="1.1",
    kind="animation",
    params=Fig13Params,
    aliases=("fig-1-4",),
    badges=((W["fig_1_3.badges"], "ex-1-1"),),
    outputs=FIG13,
    lead=W["fig_1_3.lead"],
)
def fig_1_3(p: Fig13Params) -> View:
    kvb = shared.model(shared.LLAMA_70B).kv_bytes_per_token_bf16
    frame = min(p.frame, p.output_tokens)
    kv_tok, emitted = rp.frame_state(p.input_tokens, p.output_tokens, frame)
    kv_tok = kv_tok or given(0, "S_{KV}", "token", source=W["fig_1_3.source"])
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
        headline=W["fig_1_3.headline"],
        ctx={"frame_no": frame, "caption": caption},
        figures=[
            Figure(
                request_animation(p.input_tokens, p.output_tokens, frame, kvb),
                W["fig_1_3.figures"],
                illustrative=True,
                animated=True,
                summary=W["fig_1_3.summary"],
                draws=frozenset({"kv_mib", "kv_tokens", "tokens_emitted"}),
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
        2048,
        ge=1,
        le=32768,
        step=1,
        label=W["fig13params.input_tokens.label"],
        unit="token",
        log=True,
        illustrative=True,
    )
    output_tokens: int = slider(
        100, ge=1, le=4096, step=1, label=W["ex11params.output_tokens.label"], unit="token", log=True
    )
    instances: int = slider(
        1, ge=1, le=4, step=1, label=W["ex11params.instances.label"], unit=W["ex11params.instances.unit"]
    )
    gpus_per_instance: int = slider(
        1,
        ge=1,
        le=2,
        step=1,
        label=W["ex11params.gpus_per_instance.label"],
        unit=W["ex11params.gpus_per_instance.unit"],
        illustrative=True,
        sym="g",
    )


EX11 = outputs(
    weights_gb=out(W["ex11.weights_gb"], digits=2, sym="M_W"),
    weights_total_gb=out(W["ex11.weights_total_gb"], digits=2),
    kv_per_token_kib=out(W["fig13.kv_per_token_kib"], digits=0, sym="kv"),
    weight_read_per_step_gb=out(W["ex11.weight_read_per_step_gb"], digits=0, sym="R_W"),
    steps=out(W["ex11.steps"], unit=W["ex11.unit"]),
    weight_read_total_gb=out(W["ex11.weight_read_total_gb"], sig=4, em=True),
    kv_final_tokens=out(W["ex11.kv_final_tokens"], unit="token"),
    kv_final_gb=out(W["ex11.kv_final_gb"], digits=4),
    kv_read_total_gb=out(W["ex11.kv_read_total_gb"], digits=2),
    inter_gpu_per_step_kib=out(W["ex11.inter_gpu_per_step_kib"], digits=0),
    router_choices=out(W["ex11.router_choices"], unit=W["ex11params.instances.unit"]),
    weight_loads=out(W["ex11.weight_loads"], unit=W["agent_loop.unit"], tile=False),
    decode_steps=out(W["ex11.decode_steps"], unit=W["ex11.unit_2"], tile=False),
    kv_append_per_step_kib=out(W["ex11.kv_append_per_step_kib"], digits=0, tile=False),
    inter_gpu_total_mib=out(W["ex11.inter_gpu_total_mib"], sig=3, tile=False),
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
    title=W["ex_1_1.title"],
    label=W["ex_1_1.label"],
    section="1.1",
    kind="exercise",
    params=Ex11Params,
    badges=((W["fig_1_3.label"], "fig-1-3"), (W["ex_1_1.badges"], "fig-1-5")),
    outputs=EX11,
    lead=W["ex_1_1.lead"],
)
def ex_1_1(p: Ex11Params) -> View:
    o, base = ledger_outputs(p), ledger_outputs(Ex11Params(input_tokens=p.input_tokens))
    v = View(
        o,
        headline=W["ex_1_1.headline"],
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
NVL72 = W["nvl72"]


class Fig15Params(Params):
    highlight: Literal["none", "request", "model-file", "intermediate"] = choice(
        "none",
        {
            "none": W["fig15params.highlight.none"],
            "request": W["fig15params.highlight.request"],
            "model-file": W["fig15params.highlight.model_file"],
            "intermediate": W["fig15params.highlight.intermediate"],
        },
        label=W["fig15params.highlight.label"],
    )


@card(
    "fig-1-5",
    title=W["fig_1_5.title"],
    label=W["ex_1_1.badges"],
    section="1.1",
    kind="diagram",
    params=Fig15Params,
    badges=((W["fig_1_5.badges"], "tab-three-traffic"),),
    outputs=outputs(
        nvl72_grace_cpus=out("GB200 NVL72 · Grace CPU", unit=W["ex11params.instances.unit"]),
        nvl72_gpus=out(W["fig_1_5.nvl72_gpus"], unit=W["ex11params.instances.unit"]),
        levels=data(W["fig_1_5.levels"]),
        highlight=out(W["fig15params.highlight.label"], tile=False),
    ),
    lead=W["fig_1_5.lead"],
)
def fig_1_5(p: Fig15Params) -> View:
    o = {
        "nvl72_grace_cpus": given(36, "n_{CPU}", W["ex11params.instances.unit"], source=NVL72),
        "nvl72_gpus": given(72, "n_{GPU}", W["ex11params.instances.unit"], source=NVL72),
        "levels": CONTENT["links"]["levels"],
        "highlight": p.highlight,
    }
    return shared.diagram_view("fig-1-5", o, traffic=TRAFFIC, highlight=p.highlight)


@card(
    "tab-three-traffic",
    title=W["tab_three_traffic.title"],
    section="1.1",
    kind="table",
    outputs=outputs(rows=data("id, path, when, timing")),
    lead=W["tab_three_traffic.lead"],
)
def tab_three_traffic(p: Params) -> View:
    o = {"rows": [{k: t[k] for k in ("id", "path", "when", "timing")} for t in TRAFFIC]}
    return shared.diagram_view("tab-three-traffic", o, traffic=TRAFFIC)


@card(
    "two-threads",
    title=W["two_threads.title"],
    section="1.1",
    kind="diagram",
    outputs=outputs(
        threads=data(W["two_threads.threads"]),
        models=data(W["two_threads.models"]),
        chapters=data(W["two_threads.chapters"]),
    ),
    lead=W["two_threads.lead"],
)
def two_threads(p: Params) -> View:
    t = CONTENT["threads"]
    return shared.diagram_view("two-threads", dict(t), **t)
