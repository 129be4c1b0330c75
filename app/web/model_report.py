"""The words that explain a ``config.json`` count (``POST /api/models/derive``'s ``steps``). Every number
comes from ``model_config.derivation``: each step there carries the values it shows, computed once in
the calculator; this module only says them in Chinese (no arithmetic here, so what is shown is what was
computed — tests/web/test_model_report.py checks every number of every line against its step)."""

from __future__ import annotations

from collections.abc import Callable

from ..calculators.model_config import Analysis, Step, derivation
from ..format import num
from ..words import words_for

W = words_for(__name__)

V = dict  # a step's values


def _n(x: object) -> str:
    if isinstance(x, bool) or x is None:
        return str(x)
    if isinstance(x, float):
        return num(x, 2)
    if isinstance(x, int):
        return num(x)
    return str(x)


def _mats(mats: list) -> str:
    return " + ".join(f"{name.split('.')[-1]} {_n(r)}×{_n(c)}" for name, r, c, _ in mats)


def _others(other: list) -> str:
    return W["others"].join(f"{label} {_n(n)}" for label, n in other)


def _model(v: V) -> str:
    return W.f("model", v=v["model_type"], v2=v["L"], n=_n(v["h"]), v3=v["nh"], n2=_n(v["V"]))


def _wrapper(v: V) -> str:
    return W.f("wrapper", v=v["wrapper"], v2=v["text_model"])


def _filled(v: V) -> str:
    val = v["value"]
    shown = "null" if val is None else str(val).lower() if isinstance(val, bool) else _n(val)
    return W.f("filled", v=v["field"], shown=shown, v2=v["source"])


def _rule(v: V) -> str:
    return W.f("rule", v=v["rule"])


def _mixer(title: str) -> Callable[[V], str]:
    def line(v: V) -> str:
        extra = W.f("mixer.line", others=_others(v["other"]), n=_n(v["other_params"])) if v["other"] else ""
        return W.f("mixer.line_2", title=title, mats=_mats(v["matrices"]), n=_n(v["params"]), extra=extra)

    return line


def _kv_gqa(v: V) -> str:
    return W.f(
        "kv_gqa",
        v=v["kv_pair"],
        v2=v["nkv"],
        v3=v["hd"],
        n=_n(v["kv_values"]),
        v4=v["value_bytes"],
        n2=_n(v["kv_bytes"]),
    )


def _kv_mla(v: V) -> str:
    idx = W.f("kv_mla", v=v["index_dim"]) if "index_dim" in v else ""
    return W.f(
        "kv_mla_2",
        v=v["kv_rank"],
        v2=v["rope"],
        idx=idx,
        n=_n(v["kv_values"]),
        v3=v["value_bytes"],
        n2=_n(v["kv_bytes"]),
    )


def _state(v: V) -> str:
    if v.get("mamba"):
        return W.f(
            "state",
            n=_n(v["conv_dim"]),
            v=v["kernel_minus_1"],
            n2=_n(v["conv_values"]),
            v2=v["conv_value_bytes"],
            n3=_n(v["conv_bytes"]),
            v3=v["nv"],
            v4=v["dk"],
            v5=v["dv"],
            n4=_n(v["rec_values"]),
            v6=v["ssm_bytes"],
            n5=_n(v["rec_bytes"]),
            n6=_n(v["state_bytes"]),
            v7=v["rule"],
        )
    return W.f(
        "state_2",
        n=_n(v["conv_dim"]),
        v=v["kernel_minus_1"],
        v2=v["kernel"],
        v3=v["kernel_minus_1"],
        n2=_n(v["conv_values"]),
        v4=v["conv_value_bytes"],
        n3=_n(v["conv_bytes"]),
        v5=v["nv"],
        v6=v["dk"],
        v7=v["dv"],
        n4=_n(v["rec_values"]),
        v8=v["ssm_bytes"],
        n5=_n(v["rec_bytes"]),
        n6=_n(v["state_bytes"]),
        v9=v["rule"],
    )


def _ffn_dense(v: V) -> str:
    bias = W.f("ffn_dense", n=_n(v["bias"])) if v["bias"] else ""
    if v["n_mats"] == 2:
        return W.f("ffn_dense_2", v=v["n_mats"], n=_n(v["h"]), n2=_n(v["ff"]), n3=_n(v["params"]), bias=bias)
    return W.f("ffn_dense_3", v=v["n_mats"], n=_n(v["h"]), n2=_n(v["ff"]), n3=_n(v["params"]), bias=bias)


def _ffn_moe(v: V) -> str:
    shared = W.f("ffn_moe", n=_n(v["shared_params"])) if v["shared_params"] else ""
    other = f" + {_others(v['other'])}" if v["other"] else ""
    return (
        W.f(
            "ffn_moe_2",
            v=v["E"],
            n=_n(v["expert_params"]),
            n2=_n(v["ffe"]),
            n3=_n(v["experts_params"]),
            shared=shared,
            n4=_n(v["router_params"]),
            other=other,
            n5=_n(v["total_params"]),
            v2=v["k"],
        )
        + (W["ffn_moe_3"] if v["shared_params"] else "")
        + W.f("ffn_moe_4", n=_n(v["active_params"]))
    )


def _moe_layers(v: V) -> str:
    return W.f("moe_layers", v=v["L"], v2=v["moe"], v3=v["dense"])


def _hybrid(v: V) -> str:
    if v.get("mamba"):
        return W.f("hybrid", v=v["L"], v2=v["linear"], v3=v["attn"], v4=v["mlp"])
    return W.f("hybrid_2", v=v["L"], v2=v["linear"], v3=v["attn"])


def _norms(v: V) -> str:
    return W.f("norms", v=v["n"], v2=v["n"], n=_n(v["h"]), n2=_n(v["params"]))


_MIXER_NAMES = {
    "gqa": W["mixer_names.gqa"],
    "mla": W["mixer_names.mla"],
    "gdn": W["mixer_names.gdn"],
    "mamba": W["mixer_names.mamba"],
    "none": W["mixer_names.none"],
}


def _group(v: V) -> str:
    if v["mixer"] == "none" or not v.get("ffn", True):
        kind = _MIXER_NAMES[v["mixer"]]  # a Mamba-2 hybrid's block holds one part
    else:
        kind = _MIXER_NAMES[v["mixer"]] + (" + MoE" if v["moe"] else W["group"])
    if v["window"]:
        kind += W.f("group_2", n=_n(v["window"]))
    act = W.f("group_3", n=_n(v["active"])) if v["active"] != v["params"] else ""
    return W.f("group_4", kind=kind, v=v["count"], n=_n(v["params"]), act=act, n2=_n(v["total"]))


def _embedding(v: V) -> str:
    head = W["embedding"] if v["tied"] else W.f("embedding_2", n=_n(v["head"]))
    return W.f("embedding_3", n=_n(v["V"]), n2=_n(v["h"]), n3=_n(v["emb"]), head=head)


def _total(v: V) -> str:
    act = W.f("total", n=_n(v["active"])) if v["active"] != v["total"] else ""
    if v.get("moe"):
        act += W.f("total_2", n=_n(v["active_excl_emb"]))
    return W.f("total_3", n=_n(v["layers"]), n2=_n(v["emb_head"]), n3=_n(v["final_norm"]), n4=_n(v["total"]), act=act)


def _mtp(v: V) -> str:
    return W.f("mtp", v=v["n"])


def _kv_total(v: V) -> str:
    per = f" {v['layers']} × {_n(v['per_layer'])} B =" if v["per_layer"] is not None else ""
    return W.f("kv_total", v=v["value_bits"], v2=v["layers"], per=per, n=_n(v["bytes"]), n2=_n(v["kib"]))


_RULE_WORDS = {
    "alternate": W["rule_words.alternate"],
    "all": W["rule_words.all"],
    "layer_types": W["rule_words.layer_types"],
}


def _window(v: V) -> str:
    rule = str(v["rule"])
    where = _RULE_WORDS.get(rule) or (
        W.f("window", v=rule.split(":")[1])
        if rule.startswith("every:")
        else W.f("window_2", v=rule.split(":")[1])
        if rule.startswith("from:")
        else W.f("window_3", v=rule.split(":")[1], v2=rule.split(":")[2])
        if rule.startswith("nope:")
        else rule
    )
    what = W["window_4"] if v["chunked"] else W["window_5"]
    return W.f(
        "window_6",
        what=what,
        n=_n(v["window"]),
        where=where,
        v=v["n_window_layers"],
        n2=_n(v["window"]),
        v2=v["n_full_layers"],
        n3=_n(v["full_bytes"]),
        n4=_n(v["full_bytes"]),
        n5=_n(v["window_bytes"]),
        n6=_n(v["window"]),
    )


def _state_total(v: V) -> str:
    return W.f("state_total", v=v["layers"], n=_n(v["per_layer"]), n2=_n(v["bytes"]), n3=_n(v["mib"]))


def _storage(v: V) -> str:
    parts = ";".join(W.f("storage.join", label=label, n=_n(p), n2=_n(b), rule=rule) for label, p, b, rule in v["parts"])
    head = W.f("storage", v=v.get("source") or "quantization_config") if v["method"] else W["storage_2"]
    return W.f(
        "storage_3",
        head=head,
        parts=parts,
        n=_n(v["total"]),
        n2=_n(v["gb"]),
        n3=_n(v["bits"]),
        n4=_n(v["bf16"]),
        n5=_n(v["bf16_gb"]),
    )


def _read(v: V) -> str:
    emb = W.f("read", n=_n(v["emb_read"])) if v["tied"] else W.f("read_2", n=_n(v["emb_read"]))
    return W.f("read_3", v=v["bytes_per_param"], n=_n(v["active"]), n2=_n(v["emb"]), emb=emb, n3=_n(v["bytes"]))


def _flops(v: V) -> str:
    return W.f("flops", v=v["per_mac"], n=_n(v["linear"]), n2=_n(v["head"]), n3=_n(v["flops"]))


LINES: dict[str, Callable[[V], str]] = {
    "model": _model,
    "wrapper": _wrapper,
    "filled": _filled,
    "rule": _rule,
    "mixer-gqa": _mixer(W["mixer_names.gqa"]),
    "mixer-mla": _mixer(W["mixer_names.mla"]),
    "mixer-gdn": _mixer(W["mixer_names.gdn"]),
    "mixer-mamba": _mixer(W["mixer_names.mamba"]),
    "kv-gqa": _kv_gqa,
    "kv-mla": _kv_mla,
    "state": _state,
    "ffn-dense": _ffn_dense,
    "ffn-moe": _ffn_moe,
    "moe-layers": _moe_layers,
    "hybrid": _hybrid,
    "norms": _norms,
    "group": _group,
    "embedding": _embedding,
    "total": _total,
    "mtp": _mtp,
    "kv-total": _kv_total,
    "window": _window,
    "state-total": _state_total,
    "storage": _storage,
    "read": _read,
    "flops": _flops,
}


def line(step: Step) -> str:
    """One step in words."""
    return LINES[step.kind](step.values)


def steps(a: Analysis) -> list[str]:
    """The derivation of a config's counts, step by step, numbers filled in."""
    return [line(s) for s in derivation(a)]
