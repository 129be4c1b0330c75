"""Every ``wait_for_function`` a browser test makes is given a function, never a bare expression:
Playwright polls an expression with ``eval`` inside the page, which the site's CSP (no 'unsafe-eval')
refuses, so such a wait passed only when its condition already held at the first look (a function is
called as it is). One failed that way under load (test_log_browser's upload)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
FUNCTION = re.compile(r"^\s*(async\s+)?(\([^)]*\)|\w+)\s*=>|^\s*(async\s+)?function\b")


def expression_waits(source: str) -> list[int]:
    """Lines of ``….wait_for_function(x)`` whose ``x`` (a string, or a module constant holding one) is no function."""
    tree = ast.parse(source)
    constants = {
        t.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "wait_for_function"
        ):
            arg = node.args[0] if node.args else None
            text = (
                arg.value
                if isinstance(arg, ast.Constant)
                else constants.get(arg.id)
                if isinstance(arg, ast.Name)
                else None
            )
            if isinstance(text, str) and not FUNCTION.match(text):
                out.append(node.lineno)
    return out


def test_the_check_finds_an_expression_and_passes_functions():
    assert expression_waits("page.wait_for_function(\"document.title == 'x'\")") == [1]
    assert expression_waits("R = 'el.ready'\npage.wait_for_function(R)") == [2]
    assert expression_waits("page.wait_for_function('() => 1')\npage.wait_for_function('([a, b]) => a')") == []
    assert expression_waits("page.wait_for_function('async (c) => c')\npage.wait_for_function('card => 1')") == []


def test_every_browser_wait_is_given_a_function():
    found = {
        str(p.relative_to(TESTS)): lines
        for p in sorted(TESTS.rglob("*.py"))
        if p.name != Path(__file__).name and (lines := expression_waits(p.read_text(encoding="utf-8")))
    }
    assert not found, found
