"""What a figure plots and a table prints reads as the number it is: no floating-point residue
(a 1e-17 left by subtracting equal sums) stands for a zero anywhere, at every card's defaults."""

from __future__ import annotations

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
