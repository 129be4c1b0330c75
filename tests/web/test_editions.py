"""Two editions on one source of numbers (issue 37): Chinese at the root, English under /en/, `lang=en`
on the API; words change, numbers never do; translations record the Chinese they follow."""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path

import pytest
from app.cards import REGISTRY
from app.chapters import CHAPTERS
from fastapi.testclient import TestClient

from tests.apps import build_app
from tests.sampling import sample_and_rest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import words_check  # noqa: E402

sys.path.pop(0)

CJK = re.compile(r"[\u4e00-\u9fff]")
NUMBER = re.compile(r"[-+]?[\d.,]+(?:×10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)?")


def _numeric(outputs: dict) -> dict:
    """The outputs that are numbers (or lists of them): what must be the same bytes in every edition."""

    def number(v) -> bool:
        return isinstance(v, (int, float)) or v is None or (isinstance(v, list) and all(map(number, v)))

    return {k: v for k, v in outputs.items() if number(v)}


def _numbers(text: str | None) -> list[str]:
    """The numbers a derivation's text writes, in order (its unit words differ by edition)."""
    return NUMBER.findall(text or "")


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(build_app())


def test_english_lives_under_en_with_its_own_html_lang(client):
    zh, en = client.get("/ch/3/3.1"), client.get("/en/ch/3/3.1")
    assert zh.status_code == en.status_code == 200
    assert '<html lang="zh-CN"' in zh.text and '<html lang="en"' in en.text
    assert "<h1>3.1 " in en.text and not CJK.search(en.text[en.text.index("<h1>") : en.text.index("</h1>")])


def test_every_page_links_its_twin_and_the_switch_keeps_the_state(client):
    r = client.get("/en/cards/eg-1-1?batch=16&tp=2")
    alts = dict(re.findall(r'<link rel="alternate" hreflang="([^"]+)" href="([^"]+)">', r.text))
    assert alts == {"zh-CN": "/cards/eg-1-1?batch=16&amp;tp=2", "en": "/en/cards/eg-1-1?batch=16&amp;tp=2"}
    switch = re.search(r'data-edition="zh"[^>]*href="([^"]+)"', r.text)
    assert switch and switch.group(1) == "/cards/eg-1-1?batch=16&amp;tp=2"
    z = client.get("/cards/eg-1-1?batch=16")
    assert re.search(r'data-edition="en"[^>]*href="/en/cards/eg-1-1\?batch=16"', z.text)


def test_links_inside_an_english_page_stay_in_english(client):
    body = client.get("/en/ch/1/1.3").text
    links = re.findall(r'(?:href|hx-get|action)="(/[^"]*)"', body)
    site = [u for u in links if not u.startswith(("/static/", "/api/"))]
    assert site and all(u.startswith("/en/") or u.startswith("/cards/") is False for u in site)
    stray = [u for u in site if not u.startswith("/en/") and u not in ("/ch/1/1.3",)]  # the Chinese twin
    assert stray == []
    assert client.get("/en/cards/fig-1-11", follow_redirects=False).headers["location"].startswith("/en/cards/eg-1-1")


def test_api_words_follow_lang_and_numbers_stay_byte_identical(client):
    for cid in ("eg-1-1", "ex-3-2", "fig-3-24", "tab-llama-qwen"):
        zh, en = client.get(f"/api/cards/{cid}"), client.get(f"/api/cards/{cid}?lang=en")
        assert zh.status_code == en.status_code == 200
        a, b = zh.json(), en.json()
        assert json.dumps(a["outputs"], sort_keys=True) != "" and a["outputs"] == b["outputs"]
        assert a["params"] == b["params"]
        assert {k: _numbers(d.get("result")) for k, d in a["derivations"].items()} == {
            k: _numbers(d.get("result")) for k, d in b["derivations"].items()
        }
    assert CJK.search(client.get("/api/cards/eg-1-1").text)


def test_every_card_numbers_identical_between_editions(client):
    """Every card at its defaults: outputs and every derivation's value the same in both languages."""
    differ, compared = [], 0
    for cid in REGISTRY:
        a = client.get(f"/api/cards/{cid}").json()
        b = client.get(f"/api/cards/{cid}?lang=en").json()
        x, y = _numeric(a["outputs"]), _numeric(b["outputs"])
        compared += len(x)
        if x != y or a["params"] != b["params"] or set(a["outputs"]) != set(b["outputs"]):
            differ.append(cid)
    assert differ == [] and compared > 800


def test_a_bad_lang_is_a_field_named_422(client):
    r = client.get("/api/cards/eg-1-1?lang=fr")
    assert r.status_code == 422
    item = r.json()["detail"][0]
    assert item["field"] == "lang" and "zh" in item["msg"] and "en" in item["msg"]
    r = client.get("/api/cards/eg-1-1?lang=en&batch=0")
    assert r.status_code == 422 and not CJK.search(r.json()["detail"][0]["msg"])


def test_the_edge_keeps_each_edition_apart(client):
    zh = client.get("/cards/eg-1-1/fragment?batch=16")
    en = client.get("/en/cards/eg-1-1/fragment?batch=16")
    again = client.get("/en/cards/eg-1-1/fragment?batch=16")
    assert zh.text != en.text and en.text == again.text
    api_en = client.get("/api/cards/eg-1-1?lang=en")
    api_zh = client.get("/api/cards/eg-1-1")
    assert api_en.text != api_zh.text


def test_english_prose_is_the_english_file(client):
    body = client.get("/en/ch/1/1.3").text
    first = (ROOT / "app/chapters/ch1/1.3.en.md").read_text(encoding="utf-8").split("\n\n")[1][:40]
    assert first.split("**")[0].strip()[:20] in body


SECTIONS = [s.url for ch in CHAPTERS.values() for s in ch.sections]


@pytest.mark.parametrize("url", SECTIONS)
def test_english_section_prose_has_no_chinese(client, url):
    body = client.get("/en" + url).text
    prose = "".join(re.findall(r'<div class="prose">(.*?)</div>', body, re.S))
    visible = re.sub(r"<script\b.*?</script>", "", prose, flags=re.S)  # what a reader sees, not data blocks
    text = re.sub(r"<[^>]+>", " ", re.sub(r'<[^>]*lang="zh-CN"[^>]*>.*?</[a-z]+>', "", visible))
    assert prose and CJK.findall(text) == [], url


def test_translations_are_complete_and_consistent():
    """Every twin exists and is complete; a diagram's twin draws the same shapes at the same places."""
    problems: list[str] = []
    for src in words_check.sources():
        words_check.check(src, "en", problems)
    assert problems == []


def test_a_diagram_is_one_template_whose_words_are_in_both_catalogues():
    """No diagram has an English twin template; every word a diagram names is in its Chinese and its
    English catalogue (what replaced the twins' geometry check: one template cannot drift)."""
    diagrams = sorted(words_check.DIAGRAMS.glob("*.html"))
    assert len(diagrams) >= 43
    assert [p.name for p in diagrams if re.search(r"\.[a-z]{2}\.html$", p.name)] == []
    named = 0
    for d in diagrams:
        keys, dynamic = words_check.template_keys(d)
        assert dynamic == 0, d.name
        for lang in ("zh", "en"):
            cat = d.with_name(f"{d.stem}.{lang}.toml")
            table = tomllib.loads(cat.read_text("utf-8")) if cat.exists() else {}
            assert keys - table.keys() == set(), f"{cat.name} lacks words {d.name} names"
        named += len(keys)
    assert named > 400  # the ~460 words the 43 twins differed by


def test_translations_follow_the_chinese_they_were_written_for():
    assert words_check.drift("en", words_check.sources()) == []  # diagram templates too (a whole file each)


def test_drift_is_caught_when_the_chinese_changes(tmp_path):
    """A Chinese sentence edited after its English was written: the drift check names it."""
    app = tmp_path / "app"
    (app / "chapters").mkdir(parents=True)
    zh = app / "chapters" / "s.zh.toml"
    zh.write_text('"a" = "批大小"\n"b" = "吞吐"\n', "utf-8")
    (app / "chapters" / "s.en.toml").write_text('"a" = "batch size"\n"b" = "throughput"\n', "utf-8")
    assert words_check.stamp("en", [zh], app) == 2
    assert words_check.drift("en", [zh], app) == []
    zh.write_text('"a" = "批大小 B"\n"b" = "吞吐"\n', "utf-8")
    assert [d.split(":")[0] for d in words_check.drift("en", [zh], app)] == ["app/chapters/s.zh.toml"]
    assert "a: the Chinese changed" in words_check.drift("en", [zh], app)[0]


def test_the_jump_box_finds_a_card_by_its_label_or_title_in_either_language(client):
    for q in ("图 3-11", "Figure 3-11", "fig 3-11"):
        r = client.get("/en/jump", params={"q": q}, follow_redirects=False)
        assert r.status_code in (302, 303, 307) and "/en/cards/fig-3-11" in r.headers["location"], q
    from app.labels import search

    title_en = REGISTRY["eg-1-1"].title.localized("en")
    assert "eg-1-1" in search(" ".join(title_en.split()[:3]))


@pytest.mark.parametrize("group", sample_and_rest(REGISTRY))
def test_numbers_identical_between_editions_with_each_control_at_its_ends(group):
    """Every card at its defaults and with each control alone at its ends and choices (the 848 states of
    test_figure_numbers; sampled in ``make test``, the rest under ``--full``): the same numeric outputs and
    parameters in both editions."""
    from app.render import card_json
    from app.words import speaking

    from tests.web.test_figure_numbers import states

    assert sum(1 for card in REGISTRY.values() for _ in states(card)) > 800
    checked, differ = 0, []
    for cid in group:
        card = REGISTRY[cid]
        for params in states(card):
            with speaking("zh"):
                a = card_json(card, params)
            with speaking("en"):
                b = card_json(card, params)
            checked += 1
            if _numeric(a["outputs"]) != _numeric(b["outputs"]) or a["params"] != b["params"]:
                differ.append((cid, params))
    assert differ == [] and checked >= len(group)


@pytest.mark.parametrize("group", sample_and_rest(REGISTRY))
def test_figure_data_downloads_speak_the_edition_with_the_same_numbers(client, group):
    """A figure's CSV and its table alternative under /en/: trace names and categories in English (before:
    Chinese), every number the same as the Chinese download's."""
    import csv
    import io

    from app.cards import run

    def numbers(text: str) -> list[list[str]]:
        """Each row's plotted numbers (x, y, base; a category axis holds words, not numbers)."""
        rows = list(csv.reader(io.StringIO(text)))[1:]
        return [[c for c in r[1:] if _is_number(c)] for r in rows]

    seen = 0
    for cid in group:
        card = REGISTRY[cid]
        for i in range(len(run(card, card.defaults()).figures)):
            for ext in ("csv", "html"):
                zh = client.get(f"/cards/{cid}/figure/{i}.{ext}")
                en = client.get(f"/en/cards/{cid}/figure/{i}.{ext}")
                assert zh.status_code == en.status_code == 200, (cid, i, ext)
                assert not CJK.search(en.text), (cid, i, ext, CJK.search(en.text))
                if ext == "csv":
                    assert numbers(en.text) == numbers(zh.text), (cid, i)
            seen += 1
    assert seen >= 1


def chinese_in(text: str) -> list[str]:
    """Each run of Chinese characters in ``text`` with a little context, JSON's ``\\uXXXX`` escapes read too."""
    text = re.sub(r"\\u([4-9][0-9a-f]{3})", lambda m: chr(int(m[1], 16)), text)
    return [text[max(0, m.start() - 30) : m.end() + 10] for m in CJK.finditer(text)]


@pytest.mark.parametrize("flags", ["", "?answers=shown"])
def test_every_card_in_english_carries_no_chinese(client, flags):
    """Every card's English fragment at its defaults, practice answers held back and shown: words, table
    heads, units beside a held answer, slider-step labels, trace names and hovers in the figures' JSON
    (before: 15 cards carried Chinese, from f-strings and joins that dropped the words' other edition)."""
    found = {}
    for cid in sorted(REGISTRY):
        r = client.get(f"/en/cards/{cid}/fragment{flags}")
        assert r.status_code == 200, cid
        if hits := chinese_in(r.text):
            found[cid] = hits[:3]
    assert found == {}


def test_every_card_in_english_carries_no_chinese_with_each_control_moved(client):
    """The same, with each control alone at its ends and choices (the ~550 moved states of test_figure_numbers): a
    note or label that only appears away from the defaults (before: 图 3-4's "当前 n=320" bar, the fit
    card's fixes and link text)."""
    from urllib.parse import urlencode

    from tests.web.test_figure_numbers import states

    found, seen = {}, 0
    for cid in sorted(REGISTRY):
        card = REGISTRY[cid]
        d = card.defaults()
        for p in states(card):
            moved = {
                k: str(v).lower() if isinstance(v, bool) else v for k, v in p.model_dump().items() if getattr(d, k) != v
            }
            if not moved:
                continue
            seen += 1
            r = client.get(f"/en/cards/{cid}/fragment?{urlencode(moved, doseq=True)}")
            assert r.status_code == 200, (cid, moved)
            if hits := chinese_in(r.text):
                found[(cid, str(moved))] = hits[:2]
    assert found == {} and seen > 500


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
