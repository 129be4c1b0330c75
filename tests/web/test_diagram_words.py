"""A diagram is one template; its words come from the catalogues beside it (``diagrams/X.zh.toml`` /
``X.en.toml``) through ``word("key", field=…)`` (markup: where the template's own text stood) and
``word_str("key")`` (a plain string: where the template had a string literal). The golden record
(tests/web/test_golden.py) proves the served bytes did not change; these tests pin the lookup's rules
and the check that keeps templates and catalogues in step."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest
from app.words import Catalogue, speaking

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import words_check  # noqa: E402

sys.path.pop(0)

env_module = importlib.import_module("app.render.env")  # the module (app.render exports its Environment as env)

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


@pytest.fixture
def words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A template catalogue in a temporary folder, served to every template rendered in the test."""
    (tmp_path / "d.zh.toml").write_text(
        '"n" = "共 {n} 个<tspan>批</tspan>"\n"s" = "批"\n"only_zh" = "仅中文"\n"sep" = "、"\n', "utf-8"
    )
    (tmp_path / "d.en.toml").write_text(
        '"n" = "{n} in all, the model\'s"\n"s" = "it\'s a <batch>"\n"sep" = ", "\n', "utf-8"
    )
    cat = Catalogue(tmp_path / "d")
    monkeypatch.setattr(env_module, "template_words", lambda name: cat)
    return tmp_path


def render(source: str, lang: str, **ctx: object) -> str:
    with speaking(lang):
        return env_module.env.from_string(source).render(**ctx)


def test_word_is_markup_in_the_edition_served_and_fields_are_escaped(words: Path):
    src = '<text>{{ word("n", n=x) }}</text>'
    assert render(src, "zh", x="<b>") == "<text>共 &lt;b&gt; 个<tspan>批</tspan></text>"
    # the words are written as the template held them (an apostrophe stays one), the value is escaped
    assert render(src, "en", x="<b>") == "<text>&lt;b&gt; in all, the model's</text>"


def test_word_str_is_a_plain_string_escaped_where_printed_as_a_literal_was(words: Path):
    assert render('{{ word_str("s") }}', "en") == "it&#39;s a &lt;batch&gt;"
    assert render('{{ "it\'s a <batch>" }}', "en") == "it&#39;s a &lt;batch&gt;"  # what the literal printed
    assert render('{{ ["a", "b"]|join(word_str("sep")) }}', "en") == "a, b"
    assert render('{{ ["a", "b"]|join(word_str("sep")) }}', "zh") == "a、b"


def test_a_field_that_is_a_word_of_a_module_follows_the_edition(words: Path):
    (words / "m.zh.toml").write_text('"b" = "批大小"\n', "utf-8")
    (words / "m.en.toml").write_text('"b" = "batch size"\n', "utf-8")
    size = Catalogue(words / "m")["b"]  # a word of a module's catalogue, as a card's context carries it
    assert render('{{ word("n", n=w) }}', "en", w=size) == "batch size in all, the model's"
    assert render('{{ word("n", n=w) }}', "zh", w=size) == "共 批大小 个<tspan>批</tspan>"


def test_a_word_the_english_lacks_is_the_chinese_never_a_key(words: Path):
    assert render('{{ word("only_zh") }}', "en") == "仅中文"


def test_a_real_diagram_says_its_words_in_each_edition(client):
    zh = client.get("/cards/fig-1-5").text
    en = client.get("/en/cards/fig-1-5").text
    assert "服务入口" in zh and "Gateway" not in zh
    assert "Gateway" in en and "服务入口" not in en


def test_diagram_templates_hold_no_chinese():
    """Words out of code: every Chinese word of a diagram is in its catalogue, none in the template."""
    found = {p.name: CJK.findall(p.read_text("utf-8")) for p in sorted(words_check.DIAGRAMS.glob("*.html"))}
    assert {k: v for k, v in found.items() if v} == {}


def _diagram(tmp_path: Path, template: str, zh: str, en: str) -> Path:
    d = tmp_path / "app" / "templates" / "diagrams"
    d.mkdir(parents=True, exist_ok=True)
    (d / "x.html").write_text(template, "utf-8")
    (d / "x.zh.toml").write_text(zh, "utf-8")
    (d / "x.en.toml").write_text(en, "utf-8")
    return d / "x.html"


def test_the_check_names_a_missing_word_an_unused_word_a_twin_and_a_key_it_cannot_follow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(words_check, "APP", tmp_path / "app")
    ok = '<text>{{ word("a") }}</text>{{ box(word_str("b")) }}'
    path = _diagram(tmp_path, ok, '"a" = "甲"\n"b" = "乙"\n', '"a" = "A"\n"b" = "B"\n')
    problems: list[str] = []
    words_check.check(path, "en", problems)
    assert problems == []

    _diagram(tmp_path, ok + '{{ word("c") }}{{ word(k) }}', '"a" = "甲"\n"b" = "乙"\n"d" = "丁"\n', '"a" = "A"\n')
    (path.with_name("x.en.html")).write_text("<text>A</text>", "utf-8")
    words_check.check(path, "en", problems)
    assert problems == [
        "app/templates/diagrams/x.en.html: a second template; its words go in x.en.toml",
        "app/templates/diagrams/x.html: 1 word(…) call(s) without a literal key (the check cannot follow them)",
        "app/templates/diagrams/x.zh.toml: key missing: c (named in x.html)",
        "app/templates/diagrams/x.zh.toml: word no template uses: d",
        "app/templates/diagrams/x.en.toml: key missing: b (named in x.html)",
        "app/templates/diagrams/x.en.toml: key missing: c (named in x.html)",
    ]


def test_stamping_forgets_a_diagram_templates_whole_file_unit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The lock held one unit per twin template; stamped again, the template holds none (its words are
    units of its catalogue) and the old unit goes, so the lock never lists what no source has."""
    monkeypatch.setattr(words_check, "APP", tmp_path / "app")
    path = _diagram(tmp_path, '{{ word("a") }}', '"a" = "甲"\n', '"a" = "A"\n')
    app = tmp_path / "app"
    lock = words_check.lock_path("en", app)
    lock.parent.mkdir(parents=True)
    lock.write_text('{"app/templates/diagrams/x.html::file": "0123456789ab"}', "utf-8")
    cat = path.with_name("x.zh.toml")
    assert words_check.stamp("en", [path, cat], app) == 1
    assert lock.read_text("utf-8").count("::") == 1 and "x.zh.toml::a" in lock.read_text("utf-8")
    assert words_check.drift("en", [path, cat], app) == []
