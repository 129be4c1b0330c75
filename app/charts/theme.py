"""The site's one chart theme and small builders for plain Plotly figure dicts.

Colour roles (chosen once for the whole site, legible on light and dark backgrounds):
chapter 1 — read/bandwidth blue, compute green, capacity/resident purple, waiting/overhead gray,
over-limit/bottleneck red (图 1-6 adds orange for storage and reuses blue for network);
chapter 3 — prefill orange, decode blue, state residency purple, tools/environment teal,
waiting/idle gray, backlog/over-limit red.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from ..format import compact, hover_number, num, round_sig
from ..words import words_for

W = words_for(__name__)

COLORS: dict[str, str] = {
    # chapter 1
    "read": "#2f7fd8",
    "bandwidth": "#2f7fd8",
    "compute": "#1f9d55",
    "capacity": "#8a5cf5",
    "resident": "#8a5cf5",
    "waiting": "#8c96a3",
    "overhead": "#8c96a3",
    "over": "#e0413a",
    "storage": "#e8890c",
    "network": "#2f7fd8",
    "sync": "#8c96a3",
    # chapter 3
    "prefill": "#e8890c",
    "decode": "#2f7fd8",
    "state": "#8a5cf5",
    "tools": "#0f9f8f",
    "idle": "#8c96a3",
    "backlog": "#e0413a",
    # neutral
    "ink": "#444b55",
    "accent": "#c2410c",
    "target": "#b45309",
    # ch3a (chapter-3 opener, 3.1, 3.2 and their end matter): translucent fills of the roles above
    "decode_fill": "rgba(47,127,216,0.35)",
    "state_fill": "rgba(138,92,245,0.25)",
    "state_fill_light": "rgba(138,92,245,0.18)",
    "backlog_fill": "rgba(224,65,58,0.15)",
    "on_fill": "#ffffff",
    # chapter 3 · 3.3–3.5 (group ch3b): outlines, label backgrounds and washes of figures and diagrams
    "outline": "rgba(0,0,0,0.3)",
    "label_bg": "rgba(255,255,255,0.6)",
    "paper": "#ffffff",
    "accent_wash": "rgba(194,65,12,0.08)",
    "rule_line": "rgba(127,127,127,0.3)",
    "sequential": "Viridis",  # a Plotly colour scale
    # chapter 1 (ch1 group): the request traffic of 图 1-5, 示意 remarks in diagrams, text on a filled
    # block, the over-limit fill of 图 1-7
    "request": "#0f9f8f",
    "note": "#a16207",
    "over_fill": "rgba(224,65,58,0.35)",
}

ROLE_LABELS = {
    1: [
        ("read", W["role_labels.t"]),
        ("compute", W["role_labels.t_2"]),
        ("capacity", W["role_labels.t_3"]),
        ("waiting", W["role_labels.t_4"]),
        ("over", W["role_labels.t_5"]),
    ],
    3: [
        ("prefill", "prefill"),
        ("decode", "decode"),
        ("state", W["role_labels.t_6"]),
        ("tools", W["role_labels.t_7"]),
        ("idle", W["role_labels.t_8"]),
        ("backlog", W["role_labels.t_9"]),
    ],
}


def _one(v: float, sig: int) -> float | None:
    return round_sig(v, sig) if math.isfinite(v) else None


def _round_floats(values: list[float], sig: int) -> list[float | None]:
    """Floats to ``sig`` significant digits (the double ``float(format(v, ".5g"))`` gives); infinities
    and NaN become null."""
    return [_one(v, sig) for v in values]


def _all_floats(x: list) -> bool:
    return set(map(type, x)) == {float}


def r_many(lists: list[list[float]], sig: int = 5) -> list[list[float | None]]:
    """Several lists of floats rounded as :func:`r` rounds each, in one pass (a figure's traces)."""
    flat = _round_floats([v for xs in lists for v in xs], sig)
    out, at = [], 0
    for xs in lists:
        out.append(flat[at : at + len(xs)])
        at += len(xs)
    return out


def r(x: Any, sig: int = 5) -> Any:
    """Round for the wire: figures need ~5 significant digits, not 17 (lists and arrays item by item;
    infinities and NaN become null)."""
    if isinstance(x, float):
        return _one(x, sig)
    if hasattr(x, "tolist"):
        x = x.tolist()
    if isinstance(x, tuple):
        x = list(x)
    if isinstance(x, list):
        if _all_floats(x):
            return _round_floats(x, sig)
        return [_one(v, sig) if type(v) is float else r(v, sig) for v in x]
    return x


def _as_list(x: Iterable) -> list:
    """A trace's values as a plain list (an array's items as Python numbers); :func:`figure` rounds them."""
    return x.tolist() if hasattr(x, "tolist") else list(x)


TRACE_NUMBERS = ("x", "y", "base", "width", "customdata")  # a trace's number lists that go out rounded


def rounded(traces: list[dict]) -> list[dict]:
    """``traces`` with their numbers under :data:`TRACE_NUMBERS` rounded as :func:`r` does; the lists of
    floats all in one pass (the builders above leave them as given: one vectorised pass per figure,
    not one per list), any other list item by item."""
    floats = []
    for t in traces:
        for k in TRACE_NUMBERS:
            v = t.get(k)
            if isinstance(v, list):
                if _all_floats(v):
                    floats.append((t, k))
                else:
                    t[k] = r(v)
    for (t, k), xs in zip(floats, r_many([t[k] for t, k in floats])):
        t[k] = xs
    return traces


def color(role: str) -> str:
    return COLORS.get(role, role)


def axis(
    title: str = "",
    *,
    log: bool = False,
    range_: Sequence[float] | None = None,
    ticks: Sequence[float] | None = None,
    ticktext: Sequence[str] | None = None,
    **kw: Any,
) -> dict:
    a: dict[str, Any] = {"title": {"text": title}, "zeroline": False, "automargin": False}
    if log:
        a["type"] = "log"
    if range_ is not None:
        a["range"] = list(range_)
    if ticks is not None:
        a["tickvals"] = list(ticks)
        if ticktext is not None:
            a["ticktext"] = list(ticktext)
    a.update(kw)
    return a


def layout(
    x: dict | None = None,
    y: dict | None = None,
    *,
    height: int = 320,
    legend: bool = True,
    margin: tuple[int, int, int, int] = (56, 16, 16, 48),
    **kw: Any,
) -> dict:
    """Fixed margins (l, r, t, b) so Plotly skips auto-margin passes on every redraw."""
    left, right, top, bottom = margin
    lay: dict[str, Any] = {
        "height": height,
        "margin": {"l": left, "r": right, "t": top, "b": bottom},
        "xaxis": x or axis(),
        "yaxis": y or axis(),
        "showlegend": legend,
        "legend": {"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0, "font": {"size": 12}},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "font": {"size": 13},
        "hovermode": "closest",
    }
    lay.update(kw)
    return lay


def line(
    x: Iterable,
    y: Iterable,
    name: str,
    role: str,
    *,
    dash: str | None = None,
    mode: str = "lines",
    width: float = 2.5,
    **kw: Any,
) -> dict:
    t: dict[str, Any] = {
        "type": "scatter",
        "mode": mode,
        "x": _as_list(x),
        "y": _as_list(y),
        "name": name,
        "line": {"color": color(role), "width": width},
    }
    if dash:
        t["line"]["dash"] = dash
    if "markers" in mode:
        t["marker"] = {"color": color(role), "size": 9}
    t.update(kw)
    return t


def points(
    x: Iterable, y: Iterable, name: str, role: str, *, size: int = 10, symbol: str = "circle", **kw: Any
) -> dict:
    t = {
        "type": "scatter",
        "mode": "markers",
        "x": _as_list(x),
        "y": _as_list(y),
        "name": name,
        "marker": {"color": color(role), "size": size, "symbol": symbol},
    }
    t.update(kw)
    return t


def bar(
    x: Iterable,
    y: Iterable,
    name: str,
    role: str | Sequence[str],
    *,
    horizontal: bool = False,
    text: Sequence[str] | None = None,
    **kw: Any,
) -> dict:
    colors = color(role) if isinstance(role, str) else [color(c) for c in role]
    t: dict[str, Any] = {"type": "bar", "name": name, "marker": {"color": colors}}
    if horizontal:
        t.update({"orientation": "h", "x": _as_list(y), "y": list(x)})
    else:
        t.update({"x": list(x), "y": _as_list(y)})
    if text is not None:
        t.update({"text": list(text), "textposition": "auto"})
    t.update(kw)
    return t


def _ann(v: float, log: bool) -> float:
    # Plotly places annotations on log axes by log10 of the value (shapes take the value itself)
    return r(math.log10(v)) if log and v > 0 else r(v)


def vline(
    x: float, text: str = "", role: str = "ink", dash: str = "dash", *, log: bool = False
) -> tuple[dict, dict | None]:
    """A vertical reference line across the plot (shape) and its label (annotation).
    ``log``: the x axis is logarithmic."""
    shape = {
        "type": "line",
        "xref": "x",
        "yref": "paper",
        "x0": r(x),
        "x1": r(x),
        "y0": 0,
        "y1": 1,
        "line": {"color": color(role), "dash": dash, "width": 1.5},
    }
    ann = (
        {
            "x": _ann(x, log),
            "y": 1,
            "xref": "x",
            "yref": "paper",
            "text": text,
            "showarrow": False,
            "yanchor": "bottom",
            "font": {"color": color(role), "size": 12},
        }
        if text
        else None
    )
    return shape, ann


def hline(
    y: float, text: str = "", role: str = "ink", dash: str = "dot", *, log: bool = False
) -> tuple[dict, dict | None]:
    shape = {
        "type": "line",
        "xref": "paper",
        "yref": "y",
        "x0": 0,
        "x1": 1,
        "y0": r(y),
        "y1": r(y),
        "line": {"color": color(role), "dash": dash, "width": 1.5},
    }
    ann = (
        {
            "x": 1,
            "y": _ann(y, log),
            "xref": "paper",
            "yref": "y",
            "text": text,
            "showarrow": False,
            "xanchor": "right",
            "yanchor": "bottom",
            "font": {"color": color(role), "size": 12},
        }
        if text
        else None
    )
    return shape, ann


def with_refs(lay: dict, *refs: tuple[dict, dict | None]) -> dict:
    lay.setdefault("shapes", [])
    lay.setdefault("annotations", [])
    for shape, ann in refs:
        lay["shapes"].append(shape)
        if ann:
            lay["annotations"].append(ann)
    return lay


def gantt_trace(
    lane: str,
    starts: Sequence[float],
    ends: Sequence[float],
    name: str,
    role: str,
    text: Sequence[str] | None = None,
    **kw: Any,
) -> dict:
    """Horizontal blocks on one lane: a bar trace with ``base`` = start."""
    t = {
        "type": "bar",
        "orientation": "h",
        "name": name,
        "y": [lane] * len(starts),
        "base": _as_list(starts),
        "x": [e - s for s, e in zip(starts, ends)],
        "marker": {"color": color(role), "line": {"width": 1, "color": "rgba(0,0,0,0.25)"}},
        "hovertemplate": hover_number("base", sig=4)
        + " → "
        + hover_number("customdata", sig=4)
        + "<extra>"
        + name
        + "</extra>",
        "customdata": _as_list(ends),
    }
    if text is not None:
        t.update({"text": list(text), "textposition": "inside", "insidetextanchor": "middle"})
    t.update(kw)
    return t


def frame(**updates: dict) -> dict:
    """One animation frame addressing traces by their ``name`` (never by position):
    ``frame(**{"积压 Q(t)": {"x": xs, "y": ys}})``; :func:`animate` resolves the names."""
    return {"by_name": updates}


def _resolve_frame(index: dict[str, int], f: dict) -> dict:
    """A :func:`frame` with its trace names turned into positions (``index``: name → position)."""
    if "by_name" not in f:
        return f
    missing = [n for n in f["by_name"] if n not in index]
    if missing:
        raise KeyError(f"animation frame names unknown traces: {missing}")
    names = list(f["by_name"])
    out = {"data": [f["by_name"][n] for n in names], "traces": [index[n] for n in names]}
    if "layout" in f:
        out["layout"] = f["layout"]
    return out


def animate(fig: dict, frames: list[dict], labels: Sequence[str], *, duration: int = 300, prefix: str = "") -> dict:
    """Attach frames with ▶/❚❚ buttons and a time slider. ``frames[i]`` is a :func:`frame`
    (traces by name) or ``{"data": [...], "traces": [...]}``."""
    index = {t.get("name"): i for i, t in enumerate(fig["data"]) if t.get("name")}
    frames = [_resolve_frame(index, f) for f in frames]
    named = [
        {
            "name": str(i),
            "data": f["data"],
            **({"traces": f["traces"]} if "traces" in f else {}),
            **({"layout": f["layout"]} if "layout" in f else {}),
        }
        for i, f in enumerate(frames)
    ]
    fig["frames"] = named
    lay = fig["layout"]
    lay["updatemenus"] = [
        {
            "type": "buttons",
            "showactive": False,
            "x": 0,
            "y": -0.04,
            "xanchor": "left",
            "yanchor": "top",
            "direction": "left",
            "pad": {"t": 30, "r": 8},
            "buttons": [
                {
                    "label": W["animate.label"],
                    "method": "animate",
                    "args": [
                        None,
                        {
                            "frame": {"duration": duration, "redraw": False},
                            "fromcurrent": True,
                            "transition": {"duration": 0},
                            "mode": "immediate",
                        },
                    ],
                },
                {
                    "label": W["animate.label_2"],
                    "method": "animate",
                    "args": [
                        [None],
                        {"frame": {"duration": 0, "redraw": False}, "mode": "immediate", "transition": {"duration": 0}},
                    ],
                },
            ],
        }
    ]
    lay["sliders"] = [
        {
            "active": len(frames) - 1,
            "x": 0,
            "len": 1,
            "y": -0.04,
            "yanchor": "top",
            "pad": {"t": 70},
            "currentvalue": {"prefix": prefix, "font": {"size": 12}, "xanchor": "right"},
            "steps": [
                {
                    "label": lbl if isinstance(lbl, str) else str(lbl),  # words stay words (edition served)
                    "method": "animate",
                    "args": [
                        [str(i)],
                        {"frame": {"duration": 0, "redraw": False}, "mode": "immediate", "transition": {"duration": 0}},
                    ],
                }
                for i, lbl in enumerate(labels)
            ],
        }
    ]
    lay["margin"]["b"] = max(lay["margin"]["b"], 150)
    lay["height"] = lay.get("height", 320) + 100
    return fig


def figure(data: list[dict], lay: dict) -> dict:
    """A Plotly figure of ``data`` (its numbers rounded for the wire, :func:`rounded`) and ``lay``."""
    return {"data": rounded(data), "layout": lay}


# ---------------------------------------------------------------- log axes: which ticks carry a label
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def log_tick_text(v: float) -> str:
    """A log axis's tick label as its full value: ``20``, ``0.05``, ``2,000``; from a million up (and
    below a thousandth) ``2×10⁶``, never a bare mantissa ``2`` beside a decade."""
    e = math.floor(math.log10(v) + 1e-9)
    return _tick_label(v, round(v / 10**e, 6), e)


def _tick_label(v: float, m: float, e: int) -> str:
    """The label of the tick ``v`` = m·10^e (1 ≤ m < 10): see :func:`log_tick_text`."""
    if -3 <= e < 6:
        return num(round(v, max(0, -e)), max(0, -e))
    power = "10" + str(e).translate(SUPERSCRIPT)
    return power if m == 1 else f"{compact(m)}×{power}"


def log_ticks(lo: float, hi: float) -> tuple[list[float], list[str]]:
    """Tick values and labels for a log axis showing ``lo``…``hi`` (the values, not their logs): every
    decade; 2 and 5 times each decade as well when the range spans at most about two decades; every
    1–9 multiple within one decade or less; every k-th decade when the range spans more than eight.
    The list runs a decade past each end (Plotly draws only the ticks inside its range). A tick's value
    is the double nearest m·10^e (integer arithmetic: a product, or one correctly rounded division)."""
    if not (lo > 0 and hi > 0 and math.isfinite(lo) and math.isfinite(hi)):
        return [], []
    lo, hi = min(lo, hi), max(lo, hi)
    span = math.log10(hi / lo)
    first, last = math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1
    if span <= 0.9:
        mults: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9)
    elif span <= 2.3:
        mults = (1, 2, 5)
    else:
        mults = (1,)
    k = max(1, math.ceil(span / 8))
    ticks = [(m, e) for e in range(first, last + 1) if mults != (1,) or e % k == 0 for m in mults]
    vals = [float(m * 10**e) if e >= 0 else m / 10**-e for m, e in ticks]
    return vals, [_tick_label(v, m, e) for v, (m, e) in zip(vals, ticks)]


def _axis_values(fig: dict, key: str) -> list[float]:
    """The positive values plotted along layout axis ``key`` (``xaxis``, ``yaxis2`` …): its traces'
    coordinates (bars from their base to their end), frames included, and its shapes' ends."""
    letter, ref = key[0], key[0] + key[5:]  # "yaxis2" → "y", "y2"
    out: list[float] = []

    def take(seq: Any) -> None:
        if isinstance(seq, (list, tuple)):
            out.extend(v for v in seq if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0)
        elif isinstance(seq, (int, float)) and not isinstance(seq, bool) and seq > 0:
            out.append(seq)

    data = fig.get("data", [])
    mine = {i for i, t in enumerate(data) if t.get(letter + "axis", letter) == ref}

    def trace_values(t: dict, like: dict) -> None:
        horizontal = like.get("orientation") == "h"
        along = letter if not horizontal or like.get("type") != "bar" else ("y" if letter == "x" else "x")
        take(t.get(along))
        base = t.get("base")
        if like.get("type") == "bar" and (letter == "x") == horizontal:
            vals, bases = t.get(along) or [], base if isinstance(base, list) else [base or 0] * len(t.get(along) or [])
            take([b + v for b, v in zip(bases, vals) if isinstance(b, (int, float)) and isinstance(v, (int, float))])
            take(base)

    for i in mine:
        trace_values(data[i], data[i])
    for fr in fig.get("frames", []) or []:
        idx = fr.get("traces") or list(range(len(fr.get("data", []))))
        for i, t in zip(idx, fr.get("data", [])):
            if i in mine:
                trace_values(t, data[i])
    for s in fig.get("layout", {}).get("shapes", []) or []:
        if s.get(letter + "ref") == ref:
            take([s.get(letter + "0"), s.get(letter + "1")])
    return out


def with_log_ticks(fig: dict) -> dict:
    """``fig`` with explicit ticks (:func:`log_ticks`) on every log axis that names none of its own,
    for the range it shows (its fixed range, else what it plots). A new dict when anything changes;
    ``fig`` itself is never modified (figures are shared between renders)."""
    lay = fig.get("layout", {})
    changed: dict[str, dict] = {}
    for key, ax in lay.items():
        if not (isinstance(ax, dict) and key[1:5] == "axis" and key[0] in "xy" and ax.get("type") == "log"):
            continue
        if "tickvals" in ax or "dtick" in ax or ax.get("tickmode"):
            continue
        rng = ax.get("range")
        if rng and len(rng) == 2 and all(isinstance(v, (int, float)) for v in rng):
            lo, hi = 10.0 ** rng[0], 10.0 ** rng[1]
        else:
            vals = _axis_values(fig, key)
            if not vals:
                continue
            lo, hi = min(vals), max(vals)
        ticks, text = log_ticks(lo, hi)
        if ticks:
            changed[key] = {**ax, "tickvals": ticks, "ticktext": text}
    return {**fig, "layout": {**lay, **changed}} if changed else fig
