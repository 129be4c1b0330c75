"""Grids that repeat one check over every card run on a sample in ``make test`` and whole in
``make test-full`` (``pytest --full``, which .ci/run also runs): the same assertions, on fewer items.

A grid is split into two parameters of one test: ``sample`` (run always) and ``rest`` (marked
``full``: deselected unless ``--full``), so the full run checks every item exactly once. The sample
takes one card of each kind in each chapter (a kind's cards share their templates and scripts, so
they share most of what a page-wide check looks at) and the cards named in ``ALWAYS``."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from app.cards import REGISTRY

# Whether this run is ``--full`` (set by tests/conftest.py before any test module is imported): a grid
# that is costly to build at collection (schemathesis's boundary cases) is built only when it runs
FULL = False

# 例题 1-1 (the slider the bench and drag test use) and 例题 3-1 (the one card with its own template)
ALWAYS = ("eg-1-1", "eg-3-1")


def card_sample(ids: Iterable[str]) -> list[str]:
    """The first card (by id) of each (chapter, kind) among ``ids``, and those of ``ALWAYS``."""
    ids = sorted(ids)
    first: dict[tuple[str, str], str] = {}
    for cid in ids:
        card = REGISTRY[cid]
        first.setdefault((card.chapter, card.kind), cid)
    return sorted(set(first.values()) | (set(ALWAYS) & set(ids)))


def sample_and_rest(ids: Iterable[str], sample: Iterable[str] | None = None) -> list:
    """Two parameters over ``ids``: ``sample`` (``card_sample`` unless given) and the ``rest``,
    marked ``full``. Each is a sorted list of ids."""
    ids = sorted(ids)
    picked = sorted(card_sample(ids) if sample is None else set(sample) & set(ids))
    rest = [cid for cid in ids if cid not in picked]
    return [pytest.param(picked, id="sample"), pytest.param(rest, id="rest", marks=pytest.mark.full)]


def each_card(ids: Iterable[str]) -> list:
    """One parameter per card of ``ids``: the sample's run always, the others are marked ``full`` (for a
    test that checks one card at a time)."""
    ids = sorted(ids)
    picked = set(card_sample(ids))
    return [pytest.param(cid, id=cid, marks=() if cid in picked else pytest.mark.full) for cid in ids]


def spread(
    variants: Iterable[str], ids: Iterable[str], sample: Iterable[str] | None = None, every: Iterable[str] = ()
) -> list:
    """One grid over (variant, items) — viewports, views, screen sizes — as ``(variant, items)``
    parameters: ``make test`` deals the sample out across the variants (each sampled item checked at one
    of them, each variant on a share; the ``every`` items at each variant), ``make test-full`` checks
    each variant on the rest too, so the full run covers every (variant, item) exactly once."""
    variants, ids = list(variants), sorted(ids)
    picked = sorted(card_sample(ids) if sample is None else set(sample) & set(ids))
    always = sorted(set(every) & set(ids))
    dealt = [c for c in picked if c not in always]
    out = []
    for i, v in enumerate(variants):
        share = sorted(set(dealt[i :: len(variants)]) | set(always))
        rest = [c for c in ids if c not in share]
        out += [pytest.param(v, share, id=f"{v}-sample"), pytest.param(v, rest, id=f"{v}-rest", marks=pytest.mark.full)]
    return out
