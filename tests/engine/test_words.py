"""Words live in per-language catalogues, not in the code (issue 36 point 1; app/words.py).

Python holds keys (``W["fig_1_6.title"]``, ``W.f("…", name=…)``); the Chinese sits in ``<module>.zh.toml``
beside each module. These tests keep it that way: the Chinese left in string literals is counted and
listed, every key the code names exists, every word in a catalogue is used, and a second edition is a
second file with the same keys."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest
from app.words import Catalogue, Text

APP = Path(__file__).resolve().parents[2] / "app"
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
# what may stay in the code: dict keys that are the words themselves (a parameter breakdown's names) and a few values inside expressions
MAX_CJK_IN_CODE = 200


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body:
            first = n.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def cjk_in_code() -> dict[str, int]:
    """Chinese characters in the string literals (docstrings aside) of every app module, per file."""
    counts: dict[str, int] = {}
    for path in sorted(APP.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        n = sum(
            len(CJK.findall(c.value))
            for c in ast.walk(tree)
            if isinstance(c, ast.Constant) and isinstance(c.value, str) and id(c) not in docs
        )
        if n:
            counts[str(path.relative_to(APP.parent))] = n
    return counts


def test_chinese_left_in_code_is_counted_and_bounded():
    counts = cjk_in_code()
    listing = "\n".join(f"{n:6d}  {p}" for p, n in sorted(counts.items(), key=lambda x: -x[1]))
    assert sum(counts.values()) <= MAX_CJK_IN_CODE, f"Chinese in string literals of app/**/*.py:\n{listing}"
    # the chapters, charts and engine hold none (the live class and the planner follow)
    moved = [p for p in counts if p.startswith(("app/chapters/ch", "app/cards.py", "app/outputs.py", "app/render/"))]
    assert not moved, f"words back in the code: {moved}"


def _keys_named(path: Path) -> set[str]:
    """The keys a module asks its catalogue for: W["key"] and W.f("key", …)."""
    keys = set()
    for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(n, ast.Subscript)
            and isinstance(n.value, ast.Name)
            and n.value.id == "W"
            and isinstance(n.slice, ast.Constant)
        ):
            keys.add(n.slice.value)
        elif (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "W"
            and n.func.attr == "f"
            and n.args
            and isinstance(n.args[0], ast.Constant)
        ):
            keys.add(n.args[0].value)
    return keys


CATALOGUED = sorted(p for p in APP.rglob("*.py") if p.with_suffix(".zh.toml").exists())


def test_some_modules_have_catalogues():
    assert len(CATALOGUED) >= 60


@pytest.mark.parametrize("path", CATALOGUED, ids=lambda p: str(p.relative_to(APP)))
def test_every_key_exists_and_every_word_is_used(path: Path):
    table = tomllib.loads(path.with_suffix(".zh.toml").read_text(encoding="utf-8"))
    named = _keys_named(path)
    assert all(isinstance(v, str) and v for v in table.values()), "a catalogue maps keys to non-empty text"
    assert named - set(table) == set(), f"keys the code names but {path.stem}.zh.toml lacks"
    assert set(table) - named == set(), f"words in {path.stem}.zh.toml no code uses"


def test_a_second_edition_is_a_second_file(tmp_path: Path):
    stem = tmp_path / "mod"
    (tmp_path / "mod.zh.toml").write_text('"t" = "批大小"\n"s" = "{n} 个请求,{unit}"\n"u" = "每秒"\n', "utf-8")
    (tmp_path / "mod.en.toml").write_text(
        '"t" = "Batch size"\n"s" = "{n} requests, {unit}"\n"u" = "per second"\n', "utf-8"
    )
    W = Catalogue(stem)
    t = W["t"]
    assert t == "批大小" and isinstance(t, Text)
    assert t.localized("en") == "Batch size" and t.localized("zh") == "批大小"
    s = W.f("s", n=8, unit=W["u"])
    assert s == "8 个请求,每秒"
    assert isinstance(s, Text) and s.localized("en") == "8 requests, per second"  # arguments follow the edition
    (tmp_path / "mod.en.toml").unlink()
    assert Catalogue(stem)["t"].localized("en") == "批大小"  # no English yet: the Chinese, never a key


def test_format_specs_survive_the_move():
    """An f-string moved into a catalogue keeps its format specs (the extractor writes them as fields)."""
    import sys
    from importlib import import_module

    sys.path.insert(0, str(APP.parent / "scripts"))
    try:
        extract = import_module("words_extract")
    finally:
        sys.path.pop(0)
    src = 'x = 3.14159\nn = 2\ns = f"约 {x:.{n}f} 秒,{n!r} 次"\n'
    tree = ast.parse(src)
    node = tree.body[2].value
    args: list[tuple[str, str]] = []
    template = extract.template_of(node, src, args, set())
    ns: dict = {}
    exec(src, ns)
    assert template.format(**{name: eval(expr, ns) for name, expr in args}) == ns["s"]
