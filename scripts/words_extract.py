"""Move a module's Chinese string literals into its words catalogue (``<module>.zh.toml``, app/words.py).

``python scripts/words_extract.py app/chapters/ch1/s1_2.py [more.py …]`` rewrites each literal holding
Chinese as ``W["key"]`` and each such f-string as ``W.f("key", name=expr, …)`` (the same text by
construction: the template is the f-string's own text with its fields named), appends the words to the
catalogue beside the module and adds ``W = words_for(__name__)`` after the imports. Keys name the place:
the enclosing function or assignment, then the keyword argument or dict key the words are given to.
Left alone: docstrings, ``Literal[...]`` arguments, dict keys (orjson writes ``str`` keys only) and
strings inside ``re.compile``/``re.sub``-style calls (patterns that read typed input). Run ``ruff format``
afterwards; the golden record (``tests/web/test_golden.py``) shows the served bytes did not change."""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import tomllib
from pathlib import Path

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
PATTERN_CALLS = {"compile", "sub", "match", "search", "fullmatch", "findall", "finditer", "split"}


def has_cjk(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(CJK.search(node.value))
    if isinstance(node, ast.JoinedStr):
        return any(has_cjk(v) for v in node.values if isinstance(v, ast.Constant))
    return False


def docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body:
            first = n.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def slug(s: str) -> str:
    s = re.sub(r"[^0-9A-Za-z_]+", "_", s).strip("_").lower()
    return s or "t"


class Finder(ast.NodeVisitor):
    """Every literal to move, with a key that names its place."""

    def __init__(self, docs: set[int]) -> None:
        self.docs = docs
        self.scope: list[str] = []
        self.role: list[str] = []
        self.found: list[tuple[ast.AST, str, bool]] = []  # node, key, inside an f-string
        self.in_fstring = 0

    def _scoped(self, name: str, node: ast.AST) -> None:
        self.scope.append(name)
        self.generic_visit(node) if isinstance(node, ast.Module) else self.visit(node)
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for d in node.decorator_list:  # @card("id", title=…): the card's id names its words
            if isinstance(d, ast.Call) and d.args and isinstance(d.args[0], ast.Constant):
                self.scope.append(slug(str(d.args[0].value)))
                self.visit(d)
                self.scope.pop()
        for part in (node.args, node.returns):
            if part is not None:
                self.visit(part)
        self._scoped(node.name, ast.Module(body=node.body, type_ignores=[]))

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scoped(node.name, ast.Module(body=node.body, type_ignores=[]))

    def visit_Assign(self, node: ast.Assign) -> None:
        t = node.targets[0]
        name = t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else None
        if name and not self.scope:
            self._scoped(name, node.value)
        else:
            self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        t = node.target
        name = t.id if isinstance(t, ast.Name) else None
        if node.value is None:
            return
        if name:
            self._scoped(name, node.value)
        else:
            self.visit(node.value)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        base = node.value
        if (isinstance(base, ast.Name) and base.id == "Literal") or (
            isinstance(base, ast.Attribute) and base.attr == "Literal"
        ):
            return
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if (
            isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and f.value.id == "re"
            and fname in PATTERN_CALLS
        ):
            return
        self.visit(f)
        for a in node.args:
            self.role.append("(" + (slug(fname) if fname else "t"))
            self.visit(a)
            self.role.pop()
        for kw in node.keywords:
            self.role.append(kw.arg or "kw")
            self.visit(kw.value)
            self.role.pop()

    def visit_Dict(self, node: ast.Dict) -> None:
        for k, v in zip(node.keys, node.values):
            if k is not None and not has_cjk(k):
                self.visit(k)
            is_name = isinstance(k, ast.Constant) and isinstance(k.value, str) and not has_cjk(k)
            self.role.append(slug(k.value) if is_name else "t")  # type: ignore[union-attr]
            self.visit(v)
            self.role.pop()

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        if has_cjk(node):
            self.found.append((node, self.key(), self.in_fstring > 0))
            return
        self.in_fstring += 1
        self.generic_visit(node)
        self.in_fstring -= 1

    def visit_Constant(self, node: ast.Constant) -> None:
        if id(node) not in self.docs and has_cjk(node):
            self.found.append((node, self.key(), self.in_fstring > 0))

    def key(self) -> str:
        """Scope, then the nearest keyword or dict key the words go to (else the call they are given to)."""
        parts = [slug(s) for s in self.scope] or ["module"]
        named = [r for r in self.role if not r.startswith("(")]
        if named:
            parts.append(named[-1])
        elif self.role:
            parts.append(self.role[-1][1:])
        return ".".join(parts)


def field_name(expr: ast.expr, used: set[str]) -> str:
    if isinstance(expr, ast.Name):
        base = expr.id
    elif isinstance(expr, ast.Attribute):
        base = expr.attr
    elif isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Name, ast.Attribute)):
        base = expr.func.id if isinstance(expr.func, ast.Name) else expr.func.attr
    else:
        base = "v"
    base = slug(base).lstrip("_") or "v"
    if base[0].isdigit() or base in ("key", "self"):
        base = "v_" + base
    name, i = base, 2
    while name in used:
        name, i = f"{base}{i}", i + 1
    used.add(name)
    return name


def template_of(node: ast.JoinedStr, src: str, args: list[tuple[str, str]], used: set[str]) -> str:
    out = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            out.append(str(v.value).replace("{", "{{").replace("}", "}}"))
        else:
            assert isinstance(v, ast.FormattedValue)
            name = field_name(v.value, used)
            args.append((name, ast.get_source_segment(src, v.value) or ""))
            conv = "" if v.conversion == -1 else "!" + chr(v.conversion)
            spec = ""
            if v.format_spec is not None:
                assert isinstance(v.format_spec, ast.JoinedStr)
                spec = ":" + template_of(v.format_spec, src, args, used)
            out.append("{" + name + conv + spec + "}")
    return "".join(out)


def offsets(src: str) -> list[int]:
    """Byte offset of each line's start (ast columns are UTF-8 byte offsets)."""
    starts, pos = [0], 0
    for line in src.encode("utf-8").splitlines(keepends=True):
        pos += len(line)
        starts.append(pos)
    return starts


def relative_import(path: Path) -> str:
    parts = path.resolve().relative_to(APP.parent).with_suffix("").parts  # ("app", "chapters", "ch1", "s1_2")
    return "." * (len(parts) - 1) + "words"


APP = Path(__file__).resolve().parent.parent / "app"


def extract(path: Path) -> int:
    src = path.read_text(encoding="utf-8")
    tree = ast.parse(src)
    finder = Finder(docstring_nodes(tree))
    finder.visit(tree)
    if not finder.found:
        return 0
    cat_path = path.with_name(path.stem + ".zh.toml")
    table: dict[str, str] = tomllib.loads(cat_path.read_text(encoding="utf-8")) if cat_path.exists() else {}
    by_text = {v: k for k, v in table.items()}
    new: dict[str, str] = {}
    edits: list[tuple[int, int, str]] = []
    starts = offsets(src)
    for node, key0, nested in finder.found:
        if isinstance(node, ast.Constant):
            text, call_args = str(node.value), []
        else:
            call_args: list[tuple[str, str]] = []  # type: ignore[no-redef]
            text = template_of(node, src, call_args, set())
        key = by_text.get(text) if not call_args else None
        if key is None:
            key, i = key0, 2
            while key in table or key in new:
                key, i = f"{key0}_{i}", i + 1
            new[key] = text
            if not call_args:
                by_text[text] = key
        quoted = repr(key) if nested else json.dumps(key)  # inside an f-string: the other quote
        if call_args:
            expr = f"W.f({quoted}, " + ", ".join(f"{n}={e}" for n, e in call_args) + ")"
        else:
            expr = f"W[{quoted}]"
        a = starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        b = starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        edits.append((a, b, expr))
    data = src.encode("utf-8")
    for a, b, expr in sorted(edits, reverse=True):
        data = data[:a] + expr.encode("utf-8") + data[b:]
    out = data.decode("utf-8")
    if "words_for(__name__)" not in out:
        out = add_catalogue(out, path)
    path.write_text(out, encoding="utf-8")
    with cat_path.open("a", encoding="utf-8") as f:
        if not table:
            f.write(f"# The words of {path.name} (app/words.py): key = text, Chinese edition.\n")
        for k, v in new.items():
            f.write(f"{json.dumps(k, ensure_ascii=False)} = {json.dumps(v, ensure_ascii=False)}\n")
    tomllib.loads(cat_path.read_text(encoding="utf-8"))  # still valid TOML
    return len(new)


def add_catalogue(src: str, path: Path) -> str:
    tree = ast.parse(src)
    last = 0
    for n in tree.body:
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            last = n.end_lineno or last
        elif last and not isinstance(n, ast.Expr):
            break
    lines = src.splitlines(keepends=True)
    imp = f"from {relative_import(path)} import words_for\n"
    lines.insert(last, imp + "\nW = words_for(__name__)\n")
    return "".join(lines)


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    for p in ap.parse_args(argv).files:
        print(f"{p}: {extract(p)} words moved")


if __name__ == "__main__":
    main(sys.argv[1:])
