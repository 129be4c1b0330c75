"""Show the math in pages: tiles and summary numbers expand into derivations loaded on demand, no
template slot is left unfilled, prose numbers are live, questions' solutions are their derivations,
and glossary terms carry their definitions."""

from __future__ import annotations

import re

import pytest
from app.cards import REGISTRY
from app.chapters import CHAPTERS


def test_explain_fragment_has_every_numeric_output(client):
    body = client.get("/api/cards/eg-1-1", params={"batch": 16}).json()
    html = client.get("/cards/eg-1-1/explain", params={"batch": 16}).text
    numeric = [k for k, v in body["outputs"].items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    for key in numeric:
        assert f'<section class="deriv" data-key="{key}">' in html, key
    # the substituted values are the reader's state, not the defaults
    sec = html.split('data-key="f_gflop"')[1].split("</section>")[0]
    assert "2 × 16 请求 × 70×10⁹" in sec and "2,240 GFLOP" in sec


def test_explain_rejects_bad_state_with_field_named_422(client):
    r = client.get("/cards/eg-1-1/explain", params={"batch": "0"})
    assert r.status_code == 422 and "batch" in r.text


def test_tiles_are_buttons_that_name_their_output(client):
    html = client.get("/cards/eg-1-1/fragment").text
    assert re.search(
        r'<button type="button" class="v why" data-key="t_step_ms" aria-expanded="false"[^>]*>20\.90</button>', html
    )
    assert 'class="why-panel" id="why-eg-1-1" hidden' in html and 'data-explain="/cards/eg-1-1/explain"' in html
    # summary numbers are buttons too, formatted as the declaration says
    assert re.search(r'<button type="button" class="num why" data-key="t_mem_ms"[^>]*>20\.90 ms</button>', html)


@pytest.mark.parametrize("cid", sorted(REGISTRY))
def test_no_template_slot_left_unfilled(client, cid):
    html = client.get(f"/cards/{cid}/fragment").text
    assert not re.search(r"\[\[[A-Za-z_][A-Za-z0-9_]*(\|[a-z0-9,]+)?\]\]", html), cid


def _pages():
    for ch in CHAPTERS.values():
        for sec in ch.sections:
            yield sec.url


@pytest.mark.parametrize("url", list(_pages()))
def test_prose_slots_filled_and_terms_well_formed(client, url):
    html = client.get(url).text
    assert not re.search(r"\[\[[a-z0-9-]+\.[a-z_]", html), url
    # every term is described by a definition that exists on the page once, and ids are unique
    described = re.findall(
        r'class="term" tabindex="0" data-term="([^"]+)" data-def="[^"]+" aria-describedby="([^"]+)"', html
    )
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1][:5]
    for slug, tip in described:
        assert tip == f"def-{slug}" and html.count(f'id="{tip}"') == 1
    # never inside a link or a heading
    for m in re.finditer(r"<(a|h1|h2|h3)\b[^>]*>(.*?)</\1>", html, re.S):
        assert 'class="term"' not in m.group(2), m.group(0)[:120]


def test_glossary_page_and_json(client):
    from app.chapters.glossary import TERMS

    html = client.get("/glossary").text
    data = client.get("/glossary.json").json()["terms"]
    assert len(data) == len(TERMS) >= 40
    for e in data:
        assert f'id="{e["slug"]}"' in html and e["definition"] in html
        page = client.get(e["url"].split("#")[0])
        assert page.status_code == 200
        if "#" in e["url"]:  # the anchor exists where the section's prose introduces the term
            assert f'id="{e["url"].split("#")[1]}"' in page.text, e["url"]
    ttft = next(e for e in data if e["slug"] == "ttft")
    assert ttft["section"] == "3.1" and ttft["url"].startswith("/ch/3/3.1")


def test_term_definition_is_the_description(client):
    html = client.get("/ch/3/3.1").text
    m = re.search(r'data-term="ttft" data-def="([^"]+)" aria-describedby="([^"]+)"', html)
    assert m, "TTFT is marked in 3.1"
    tip = re.search(rf'id="{m.group(2)}">(.*?)</span>', html).group(1)
    assert "首 token" in tip and "排队" in tip and m.group(1) == tip
    # the prose's own text is untouched: the definition lives in attributes and one hidden list
    prose = re.sub(r"<[^>]+>", "", html.split('<div class="gl-defs"')[0])
    assert "首 token 时延" not in prose


def test_questions_solutions_are_derivations(client):
    """A worked solution is the answer's own derivation: the solution opens the very entry the
    expanded number shows (same data, loaded from the card's explain fragment at the same state)."""
    n = 0
    for cid in REGISTRY:
        body = client.get(f"/api/cards/{cid}").json()
        qs = [q for q in body.get("questions") or [] if q["kind"] == "numeric"]
        if not qs:
            continue
        html = client.get(f"/cards/{cid}/fragment?answers=shown").text  # the answers shown: practice first
        explained = client.get(f"/cards/{cid}/explain?answers=shown").text
        for q in qs:
            d = body["derivations"].get(q["key"])
            assert d is not None, (cid, q["key"])
            li = html.split(f'data-key="{q["key"]}" data-q=')[1].split("</li>\n")[0]
            assert f'class="deriv-solution" data-key="{q["key"]}" data-explain="/cards/{cid}/explain"' in li, (
                cid,
                q["key"],
            )
            sec = explained.split(f'<section class="deriv" data-key="{q["key"]}">')[1].split("</section>")[0]
            if not d.get("input"):
                assert html_unescape(d["substituted"]) in html_unescape(sec), (cid, q["key"])
            n += 1
    assert n >= 40


def html_unescape(s: str) -> str:
    import html

    return html.unescape(s)


def test_live_prose_values_follow_the_card(client):
    """The fragment ships the formatted values of the outputs the prose quotes; they change with the state."""
    from app.render.card import prose_slots

    slots = prose_slots()
    assert slots, "some section prose quotes a card"
    cid = sorted(slots)[0]
    frag = client.get(f"/cards/{cid}/fragment?prose=1").text
    assert f'class="livevals" data-card="{cid}"' in frag
