"""One formatter, one error shape (issue 36 point 4).

Number-to-text happens in app/format.py only: an AST scan of every other app module finds each place
that writes a number with a format spec of its own — an f-string field with a numeric spec
(``f"{x:.3f} s"``), ``%``-formatting of a number (``"%.1f" % x``, a log call's ``"%.1f s"``),
``str.format`` / ``format(x, spec)`` with a numeric spec (or a ``"{:,.1f} MiB"`` template handed on),
and a Plotly/d3 hover spec (``"%{x:.4g}"``) — and lists it as ``file:line``, unless it is one of the
few non-reader conversions allowed below, each with its reason. And the JSON error body
``{"detail": [...]}`` and its items are built by app/errors.py alone."""

from __future__ import annotations

import ast
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from app import format as fmt
from app.words import speaking

from tests.engine.test_words import _docstrings  # the words test's: which constants are docstrings

APP = Path(__file__).resolve().parents[2] / "app"
ROOT = APP.parent

# A format spec that writes a number: grouping (``,`` / ``_``), a precision, a sign or a numeric type.
# (Alignment or width alone, ``{name:>8}``, is text layout, not a number's digits.)
_NUMERIC_SPEC = re.compile(
    r"^(?:.?[<>=^])?(?P<sign>[-+ ])?z?#?0?\d*(?P<group>[,_])?(?:\.(?P<prec>\d+))?(?P<type>[bcdeEfFgGnoxX%])?$"
)
_PERCENT_SPEC = re.compile(r"%[-+ #0]*\d*(?:\.\d+)?[diouxXeEfFgG]")  # printf-style: %d, %.1f, %5.2e
_BRACE_FIELD = re.compile(r"(?<!%)\{[A-Za-z0-9_\[\].]*:(?P<spec>[^{}]*)\}")  # "{:,.1f} MiB", "{x:.2f}"
_D3_SPEC = re.compile(r"%\{[^{}:]*:[^{}]*\}")  # Plotly's d3 number format inside a template: "%{x:.4g}"
_LOG_CALLS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}

# What stays, each with its reason: not text for a reader (an operator's log line, a developer's exception,
# a regular expression, the masking probes of render/card.py), matched by file and the conversion's text.
ALLOWED: dict[tuple[str, str], str] = {
    ("app/live/redis_store.py", "%.1f s"): "a log line for the operator, not reader text",
    ("app/live/redis_store.py", "{STORE_TIMEOUT_S:g}"): "an exception message for the developer/log",
    ("app/numpattern.py", 'format(f, "f")'): "a Decimal's digits inside a regular expression, not reader text",
    (
        "app/cards.py",
        "{abs(v):.4e}",
    ): "counting a value's significant digits: is a worked value equal to an answer telling",
}


def _spec_text(spec: ast.JoinedStr) -> str:
    """A field's format spec as text, nested fields (``{x:,.{d}f}``) read as one digit."""
    return "".join(v.value if isinstance(v, ast.Constant) else "1" for v in spec.values)


def _is_numeric_spec(spec: str) -> bool:
    m = _NUMERIC_SPEC.match(spec)
    return bool(m and (m["sign"] or m["group"] or m["prec"] or m["type"]))


def _strftime_or_strptime(parent: ast.AST | None) -> bool:
    return (
        isinstance(parent, ast.Call)
        and isinstance(parent.func, ast.Attribute)
        and parent.func.attr in ("strftime", "strptime")
    )


def format_specs(path: Path) -> list[tuple[int, str, str]]:
    """Every number written with a spec of its own in one module: (line, kind, source text)."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    docs = _docstrings(tree)
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    found: list[tuple[int, str, str]] = []

    def seg(node: ast.AST) -> str:
        return ast.get_source_segment(source, node) or ast.dump(node)

    for n in ast.walk(tree):
        if isinstance(n, ast.FormattedValue) and n.format_spec is not None:
            if _is_numeric_spec(_spec_text(n.format_spec)):  # type: ignore[arg-type]
                found.append((n.lineno, "f-string", "{" + seg(n.value) + ":" + _spec_text(n.format_spec) + "}"))  # type: ignore[arg-type]
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) and isinstance(n.left, ast.Constant):
            if isinstance(n.left.value, str) and _PERCENT_SPEC.search(n.left.value):
                found.append((n.lineno, "%-format", n.left.value))
        elif isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Name) and f.id == "format" and len(n.args) == 2:
                spec = n.args[1]
                if not isinstance(spec, ast.Constant) or _is_numeric_spec(str(spec.value)):
                    found.append((n.lineno, "format()", seg(n)))
            elif isinstance(f, ast.Attribute) and f.attr in _LOG_CALLS and n.args:
                first = n.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    for m in _PERCENT_SPEC.finditer(first.value):
                        if m.group()[-1] not in "di":  # %d of a count in a log line is no formatting choice
                            found.append((n.lineno, "log %-format", m.group() + first.value[m.end() : m.end() + 2]))
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            if _strftime_or_strptime(parents.get(id(n))):
                continue  # a date format (%d is the day)
            text = n.value
            for m in _D3_SPEC.finditer(text):
                found.append((n.lineno, "d3 hover spec", m.group()))
            for m in _BRACE_FIELD.finditer(text):
                if _is_numeric_spec(m["spec"]):
                    found.append((n.lineno, "str.format spec", m.group()))
    return found


def _all_specs() -> list[tuple[str, int, str, str]]:
    out = []
    for path in sorted(APP.rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        if rel == "app/format.py":
            continue
        out += [(rel, line, kind, text) for line, kind, text in format_specs(path)]
    return out


def test_numbers_are_written_by_app_format_only():
    """No module but app/format.py writes a number with a format spec of its own (reader text goes
    through num / with_unit / fixed / hover_number …); the few non-reader conversions left are listed."""
    stray = [s for s in _all_specs() if (s[0], s[3]) not in ALLOWED]
    listing = "\n".join(f"{p}:{line}: {kind}: {text}" for p, line, kind, text in stray)
    assert not stray, f"{len(stray)} format specs outside app/format.py:\n{listing}"


def test_allow_list_is_short_and_each_entry_is_still_there():
    """The allow-list stays short (≤ 10) and each entry matches exactly one conversion: none stale, and a
    second spec with the same text in the same file is not let through by it."""
    assert len(ALLOWED) <= 10
    seen = Counter((p, text) for p, _, _, text in _all_specs())
    assert {k: seen[k] for k in ALLOWED} == dict.fromkeys(ALLOWED, 1)


def test_the_new_forms_write_what_the_specs_they_replace_wrote():
    """decimals / compact / hover_number / round_sig give exactly the text of the f-string specs they
    replaced (served bytes unchanged), in either edition (digits never depend on the language)."""
    rnd = random.Random(36)
    values = [0.0, 1.0, 0.5, 2.0, 1e6, 123456.789, 1e-5, -3.25] + [
        rnd.choice([1, -1]) * rnd.random() * 10 ** rnd.randint(-6, 9) for _ in range(2000)
    ]
    for lang in ("zh", "en"):
        with speaking(lang):
            for x in values:
                for d in (0, 1, 2, 3, 4):
                    assert fmt.decimals(x, d) == f"{x:.{d}f}"
                    assert fmt.decimals(x, d, "ms") == f"{x:.{d}f} ms"
                    assert fmt.decimals(x, d, "%") == f"{x:.{d}f}%"
                    assert fmt.decimals(x, d, sep=True) == f"{x:,.{d}f}" == fmt.num(x, d)
                for sig in (2, 3, 6, 10, 12):
                    assert fmt.compact(x, sig) == f"{x:.{sig}g}"
                    assert fmt.round_sig(x, sig) == float(f"{x:.{sig}g}")
                assert fmt.compact(x) == f"{x:g}"
                assert fmt.compact(x, unit="GB") == f"{x:g} GB"
    assert fmt.hover_number("x", sig=4) == "%{x:.4g}"
    assert fmt.hover_number("base", digits=3) == "%{base:.3f}"
    assert fmt.hover_number("y", digits=3, sep=True) == "%{y:,.3f}"
    with pytest.raises(ValueError):
        fmt.hover_number("x")


def test_the_scan_finds_every_kind_of_spec(tmp_path):
    """The scanner itself: each kind of numeric spec is found, and text layout or a date format is not."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import logging\n"
        "x = 1.5\n"
        'a = f"{x:.3f} s"\n'  # 3
        'b = f"{x:,}"\n'  # 4
        'c = f"{x:,.{2}f}"\n'  # 5
        'd = "%.2f" % x\n'  # 6
        'e = "{:,.1f} MiB".format(x)\n'  # 7
        'g = format(x, ".2e")\n'  # 8
        'h = "%{x:.4g} ms<extra></extra>"\n'  # 9
        'logging.warning("took %.1f s", x)\n'  # 10
        'i = f"{x:+}"\n'  # 11
        'ok1 = f"{x:>8}|{x}|{x!r}|{x: >5}|{x:*^9}"\n'
        'ok2 = __import__("datetime").datetime.now().strftime("%Y-%m-%d %H:%M")\n'
        'ok3 = "{name} and {{literal}}"\n'
        'ok4 = "%{y}: %{text}"\n',
        encoding="utf-8",
    )
    lines = sorted(line for line, _, _ in format_specs(probe))
    assert lines == [3, 4, 5, 6, 7, 8, 9, 10, 11], lines


ITEM_KEYS = {"loc", "field", "type", "msg"}  # one refused field, as app/errors.py's error_item writes it


def _detail_dicts(path: Path) -> list[int]:
    """Lines of every dict literal that is an error body (a ``"detail"`` key) or an error item written
    by hand (``loc``, ``field``, ``type`` and ``msg`` keys)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Dict):
            keys = {k.value for k in n.keys if isinstance(k, ast.Constant)}
            if "detail" in keys or ITEM_KEYS <= keys:
                lines.append(n.lineno)
    return lines


def test_the_json_error_body_is_built_by_app_errors_only():
    """``{"detail": [...]}`` and its items are written in app/errors.py alone; everyone else calls
    error_item / error_body / error_response (one shape on the wire)."""
    stray = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted(APP.rglob("*.py"))
        if path.relative_to(ROOT).as_posix() != "app/errors.py"
        for line in _detail_dicts(path)
    ]
    assert not stray, "JSON error bodies built by hand:\n" + "\n".join(stray)


def test_a_refused_body_is_the_one_shape_in_the_edition_asked():
    """/api/models/derive's refusal through error_response: the same bytes as the hand-built body it
    replaced (Chinese edition), and its words in English under ``lang=en`` (the hand-built one sent
    Chinese there)."""
    import json

    from app.web import models_api

    words = models_api.W["derive_config.error"]
    zh = models_api._error("json_invalid", words).body
    item = {"loc": ["body"], "field": "body", "type": "json_invalid", "msg": str(words), "input": None}
    assert zh == json.dumps({"detail": [item]}, ensure_ascii=False, separators=(",", ":")).encode()
    with speaking("en"):
        en = json.loads(models_api._error("json_invalid", words).body)
    assert en["detail"][0]["msg"] == words.localized("en") != str(words)
    assert list(en["detail"][0]) == ["loc", "field", "type", "msg", "input"]
