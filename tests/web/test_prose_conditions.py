"""Conditional prose (``{{if card: …}}…{{end}}``, app/text/cond.py): the grammar admits comparisons of a
card's values and nothing else, every section's conditionals name real values and read at the
defaults exactly as the pages read before they existed, and a card's fragment names the case that
holds at its state, which is the case the page shows and switches to."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from app.cards import REGISTRY, run
from app.chapters import CHAPTERS, prose
from app.render.card import CASE_KEY, live_values, prose_conditionals, state_lookup
from app.text import markdown
from app.text.cond import ProseError, condition, conditionals

SNAPSHOT = Path(__file__).resolve().parent.parent / "data" / "prose_at_defaults.json"
SECTIONS = [s for ch in CHAPTERS.values() for s in ch.sections]
ALL = [(s.key, c) for s in SECTIONS for c in conditionals(prose(s.key))]


def values(**kw):
    return lambda name: kw[name]


# --------------------------------------------------------------------------- the grammar


@pytest.mark.parametrize(
    "src,env,holds",
    [
        ("ratio >= 2", {"ratio": 148}, True),
        ("ratio >= 2", {"ratio": 1.99}, False),
        ("2 < r < 3", {"r": 2.09}, True),
        ("2 < r < 3", {"r": 3.0}, False),
        ('gpu == "h100-sxm" and b == 1', {"gpu": "h100-sxm", "b": 1}, True),
        ('gpu == "h100-sxm" and b == 1', {"gpu": "a100-80gb-sxm", "b": 1}, False),
        ("not fits or n > 1", {"fits": True, "n": 1}, False),
        ("not fits or n > 1", {"fits": False, "n": 1}, True),
        ("x == None", {"x": None}, True),
        ("x > 0", {"x": None}, False),  # an order with a missing value is false, not an error
        ("x < -1", {"x": -2}, True),
        ("flag", {"flag": False}, False),
    ],
)
def test_a_condition_compares_named_values(src, env, holds):
    assert condition(src).holds(values(**env)) is holds


@pytest.mark.parametrize(
    "src",
    [
        "a * 2 > b",  # arithmetic belongs in the card's outputs
        "a / b >= 2",
        "f(a) > 1",
        "a.b > 1",
        "a[0] > 1",
        "__import__('os')",
        "(lambda: 1)()",
        "a if b else c",
        "a in b",
        "a = 1",
    ],
)
def test_anything_but_comparisons_is_refused(src):
    with pytest.raises(ProseError):
        condition(src)


def test_the_first_holding_case_is_read_and_else_catches_the_rest():
    text = "{{if c: r >= 2}}A{{elif r <= 0.5}}B{{else}}C{{end}}"
    (c,) = conditionals(text)
    assert (c.card, c.texts) == ("c", ("A", "B", "C"))
    assert [c.choose(values(r=r)) for r in (3, 0.1, 1)] == [0, 1, 2]
    (no_else,) = conditionals("{{if c: r >= 2}}A{{end}}")
    assert no_else.choose(values(r=1)) == -1  # reads as nothing


@pytest.mark.parametrize(
    "text",
    ["{{if c: a}}x{{if c: b}}y{{end}}{{end}}", "{{if c: a}}x\n\ny{{end}}", "{{if c: a}}x{{else}}y{{elif b}}z{{end}}"],
)
def test_malformed_blocks_are_refused(text):
    with pytest.raises(ProseError):
        conditionals(text)


def test_markdown_renders_the_chosen_case_and_ships_every_case():
    """Without a chooser the first case reads (the one written for the defaults); each case's HTML,
    maths and Markdown included, travels in the page's prose-if block."""
    out = str(markdown("前文{{if c: r >= 2}}相差 **$N$** 倍{{else}}两项相近{{end}}。"))
    (c,) = conditionals("{{if c: r >= 2}}相差 **$N$** 倍{{else}}两项相近{{end}}")
    assert f'<span class="if" data-card="c" data-if="{c.id}" data-case="0">相差 <strong><math' in out
    cases = json.loads(re.search(r'<script type="application/json" class="prose-if">(.*?)</script>', out).group(1))
    assert cases[c.id][1] == "两项相近" and "<strong><math" in cases[c.id][0]
    assert "<" not in re.search(r'class="prose-if">(.*?)</script>', out).group(1)  # escaped inside the script


# --------------------------------------------------------------------------- the sections' conditionals


@pytest.mark.parametrize("sec,c", ALL, ids=[f"{k}:{c.card}:{c.id}" for k, c in ALL])
def test_each_conditional_reads_its_first_case_at_the_defaults(sec, c):
    """Its card exists, each name is one of the card's values, and the first case holds at the
    defaults (so a page rendered with or without a chooser reads the same)."""
    card = REGISTRY[c.card]
    p = card.defaults()
    get = state_lookup(card, run(card, p), p)
    for name in c.names:
        get(name)  # KeyError: a name the card does not have
    assert c.choose(get) == 0


def test_every_section_reads_at_the_defaults_as_before_the_conditionals(client):
    """The page text (tags and data blocks dropped) at the defaults is the text the pages had before
    any sentence became conditional (tests/data/prose_at_defaults.json, recorded from those pages)."""
    before = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    for sec in SECTIONS:
        body = client.get(sec.url).text
        text = "".join(re.findall(r'<div class="prose">(.*?)</div>', body, re.S))
        text = re.sub(
            r"\s+", "", html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"<script.*?</script>", "", text, flags=re.S)))
        )
        assert text == before[sec.key], sec.key
        assert "{{" not in text and "}}" not in text, sec.key


def test_the_page_carries_each_case_and_the_fragment_names_the_one_that_holds(client):
    """1.3 at B = 300: the page's span starts at case 0 and its prose-if block has every case; the
    fragment at B = 300 names compute-bound cases for the ratio and the target sentences."""
    body = client.get("/ch/1/1.3").text
    spans = re.findall(r'<span class="if" data-card="([a-z0-9-]+)" data-if="(\w+)" data-case="(-?\d+)">', body)
    cases: dict[str, list[str]] = {}
    for block in re.findall(r'<script type="application/json" class="prose-if">(.*?)</script>', body, re.S):
        cases |= json.loads(block)
    assert spans and all(k == "0" for _, _, k in spans)
    for c in prose_conditionals()["eg-1-1"]:
        assert ("eg-1-1", c.id, "0") in spans and len(cases[c.id]) == len(c.texts)
    frag = client.get("/cards/eg-1-1/fragment?batch=300&prose=1").text
    vals = json.loads(re.search(r'class="livevals" data-card="eg-1-1">(.*?)</script>', frag).group(1))
    chosen = {cases[k[len(CASE_KEY) :]][int(v)] for k, v in vals.items() if k.startswith(CASE_KEY)}
    text = html.unescape(re.sub(r"<[^>]+>", "", " ".join(chosen)))
    assert "反过来是读取的约" in text and "目标的约" in text and "相差约" not in text and "一倍多" not in text


def test_live_values_name_the_case_of_each_conditional_of_the_card():
    """The fragment's live values carry one ``if:<id>`` per conditional the card decides, equal to the
    case the condition picks at that state (worked out on the server)."""
    card = REGISTRY["gap-analysis"]
    for measured, want in ((26.5, "差了大约三倍"), (60, "差了约"), (10, "实测已接近下界")):
        p = card.parse({"measured_tpot_ms": measured})
        vals = live_values(card, run(card, p), p)
        picked = [c.texts[int(vals[CASE_KEY + c.id])] for c in prose_conditionals()["gap-analysis"]]
        assert any(t.startswith(want) for t in picked), (measured, picked)


def test_no_conditional_reads_a_value_its_card_asks():
    """A case choice travels in every fragment (and a live question hides only its asked value's
    number): no conditional may read an output that one of its card's questions asks."""
    for cid, conds in prose_conditionals().items():
        card = REGISTRY[cid]
        asked = {q.key for q in run(card, card.defaults()).questions}
        for c in conds:
            assert not (c.names & asked), (cid, c.id, c.names & asked)


def test_each_edition_has_its_own_conditionals_whichever_is_asked_first(client):
    """The conditionals and quoted slots are cached per edition: an English fragment asked first used to
    fill the one cache with the English prose, and every Chinese fragment then named English ids (the
    Chinese page's conditionals stopped following the sliders; the suite failed in some orders)."""
    from app.render import card as render_card
    from app.words import speaking

    render_card._prose_conditionals.cache_clear()
    render_card._prose_slots.cache_clear()
    assert client.get("/en/cards/gap-analysis/fragment?prose=1").status_code == 200  # English first
    with speaking("zh"):
        zh = {c.id for c in prose_conditionals()["gap-analysis"]}
        zh_text = "".join(prose(s.key) for s in SECTIONS)
    with speaking("en"):
        en = {c.id for c in prose_conditionals()["gap-analysis"]}
        en_text = "".join(prose(s.key) for s in SECTIONS)
    assert zh == {c.id for c in conditionals(zh_text) if c.card == "gap-analysis"} and zh
    assert en == {c.id for c in conditionals(en_text) if c.card == "gap-analysis"} and en
    assert zh != en  # the two editions' texts differ, so do their ids
    body = client.get("/cards/gap-analysis/fragment?prose=1").text
    assert all(f"if:{i}" in body for i in zh)
