"""What a figure plots and a table prints reads as the number it is, at every card's defaults and with
each control alone at its ends and choices: no floating-point residue (a 1e-17 left by subtracting equal
sums) stands for a zero, and every figure number goes out at the 5 significant digits of the wire."""

from __future__ import annotations

import math

from app.cards import REGISTRY, controls_of, run
from app.state import ParamError, parse_query

RESIDUE = 1e-9  # figures and tables are in display units (ms, GB, token/s): nothing real is this small


def residues(obj) -> list[float]:
    if isinstance(obj, float):
        return [obj] if obj != 0 and abs(obj) < RESIDUE else []
    if isinstance(obj, dict):
        return [r for v in obj.values() for r in residues(v)]
    if isinstance(obj, (list, tuple)):
        return [r for v in obj for r in residues(v)]
    return []


def states(card):
    """A card's defaults, and each control moved alone to its ends and to each of its choices."""
    yield card.defaults()
    for spec in controls_of(card.params):
        if spec.options:
            values = list(spec.options)
        elif spec.ge is not None and spec.le is not None:
            values = [spec.ge, spec.le]
        else:
            continue
        for v in values:
            try:
                yield parse_query(card, [(spec.name, str(v).lower() if isinstance(v, bool) else str(v))])
            except ParamError:  # a value another control's default rules out
                continue


def test_no_card_plots_prints_or_outputs_a_residue_for_zero():
    """图 3-18's tile read 到达却没播放的音频 0.000000000000014 ms at 4 chunks, its data table −1.3878e-14 ms."""
    found = {}
    for cid, card in REGISTRY.items():
        for params in states(card):
            view = run(card, params)
            hits = [r for f in view.figures for r in residues(f.fig)]
            hits += [r for t in view.tables for r in residues(t.rows)] + residues(view.outputs)
            if hits:
                found.setdefault(cid, (params.model_dump(), hits[:3]))
    assert not found, found


def floats(obj):
    if isinstance(obj, float):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from floats(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from floats(v)


def test_every_figure_number_goes_out_at_five_significant_digits_frames_too():
    """figure() rounds a figure's traces for the wire; what is built apart goes out rounded the same
    way: an animation's frames (图 1-3 sent 4.857142857142857, 图 1-10 1.74277 beside the bars'
    1.7428), a trace added to a finished figure (图 1-11's all-reduce line at tp > 1) and bar widths
    (例题 3-1's 0.40000000000000013)."""
    found = {}
    for cid, card in REGISTRY.items():
        for params in states(card):
            for i, f in enumerate(run(card, params).figures):
                for part in ("data", "frames"):
                    long = [v for v in floats(f.fig.get(part, [])) if math.isfinite(v) and v != float(f"{v:.5g}")]
                    if long:
                        found.setdefault((cid, i, part), (params.model_dump(), long[:3]))
    assert not found, found
