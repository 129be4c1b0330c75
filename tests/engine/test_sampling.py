"""The sampled grids (tests/sampling.py): the full run checks every item exactly once, make test a sample."""

from __future__ import annotations

from collections import Counter

import pytest
from app.cards import REGISTRY

from tests.sampling import card_sample, sample_and_rest, spread


def _values(params) -> list[tuple]:
    return [(p.values, bool(p.marks)) for p in params]


def test_sample_and_rest_cover_every_card_once():
    (sample, s_full), (rest, r_full) = _values(sample_and_rest(REGISTRY))
    assert not s_full and r_full  # the sample always runs, the rest under --full
    assert sorted(sample[0] + rest[0]) == sorted(REGISTRY) and not set(sample[0]) & set(rest[0])


@pytest.mark.parametrize("variants", [["a", "b"], ["390x844", "768x1024", "1366x768"]])
def test_spread_deals_the_sample_and_the_full_run_covers_each_pair_once(variants):
    named = ("fig-3-30", "fig-1-6")
    params = _values(spread(variants, REGISTRY, every=named))
    pairs = Counter((v, c) for (v, cards), _ in params for c in cards)
    assert set(pairs.values()) == {1} and len(pairs) == len(variants) * len(REGISTRY)
    sampled = [(v, cards) for (v, cards), full in params if not full]
    assert [v for v, _ in sampled] == variants  # each variant runs in make test…
    dealt = Counter(c for _, cards in sampled for c in cards if c not in named)
    assert set(dealt) == set(card_sample(REGISTRY)) - set(named) and set(dealt.values()) == {1}  # …on a share
    assert all(set(named) <= set(cards) for _, cards in sampled)  # the named items at every variant
