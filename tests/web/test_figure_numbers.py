"""What a figure plots and a table prints reads as the number it is: no floating-point residue
(a 1e-17 left by subtracting equal sums) stands for a zero anywhere, at every card's defaults."""

from __future__ import annotations

import math

from app.cards import REGISTRY, run

RESIDUE = 1e-9  # figures and tables are in display units (ms, GB, token/s): nothing real is this small


def residues(obj) -> list[float]:
    if isinstance(obj, float):
        return [obj] if obj != 0 and abs(obj) < RESIDUE else []
    if isinstance(obj, dict):
        return [r for v in obj.values() for r in residues(v)]
    if isinstance(obj, (list, tuple)):
        return [r for v in obj for r in residues(v)]
    return []


def test_no_card_plots_or_prints_a_residue_for_zero():
    found = {}
    for cid, card in REGISTRY.items():
        view = run(card, card.defaults())
        hits = [r for f in view.figures for r in residues(f.fig)] + [r for t in view.tables for r in residues(t.rows)]
        if hits:
            found[cid] = hits[:3]
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
    """figure() rounds a figure's traces for the wire; an animation's frames are built apart, and go
    out rounded the same way (图 1-3 sent 4.857142857142857, 图 1-10 sent 1.74277 beside 1.7428)."""
    found = {}
    for cid, card in REGISTRY.items():
        for i, f in enumerate(run(card, card.defaults()).figures):
            for part in ("data", "frames"):
                long = [v for v in floats(f.fig.get(part, [])) if math.isfinite(v) and v != float(f"{v:.5g}")]
                if long:
                    found[(cid, i, part)] = long[:3]
    assert not found, found
