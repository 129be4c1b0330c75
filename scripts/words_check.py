"""Check an edition's words against the Chinese they translate: ``python scripts/words_check.py en [FILE …]``;
``--stamp`` records that the English of FILEs follows their Chinese as it is now; ``--drift`` lists what changed since.

For each Chinese source (``x.zh.toml`` catalogues, among them a diagram's ``diagrams/fig-1-1.zh.toml``,
the nested ``content.toml``-style word files, section prose ``N.M.md``) it finds the edition's twin
(``x.en.toml``, ``content.en.toml``, ``N.M.en.md``) and reports what would break or mislead a reader: a
missing twin, missing or extra keys, a string left empty or still Chinese, and any machinery that must
pass through unchanged — ``[[slots]]``, ``{fields}``, ``$tex$``, ``{{if …}}`` conditions, ``{{card:…}}``
markers, Jinja ``{{ … }}`` / ``{% … %}`` — differing from the Chinese. A diagram template (one for every
edition) must name only words its catalogues hold, in both languages, and use every word of them; a
second template in the edition's language (``fig-1-1.en.html``) is reported. Exit 1 when anything is
reported. Without FILEs it checks every source under app/."""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tomllib
from collections import Counter
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
MACHINERY = [
    ("slot", re.compile(r"\[\[[^\]]+\]\]")),
    ("field", re.compile(r"(?<!\{)\{[A-Za-z_][A-Za-z_0-9]*(?:![rsa])?(?::[^{}]*)?\}(?!\})")),
    ("condition", re.compile(r"\{\{(?:if|elif)\b[^}]*\}\}|\{\{(?:else|end)\}\}")),
    ("card", re.compile(r"\{\{card:[a-z0-9-]+\}\}")),
    ("jinja", re.compile(r"\{\{(?!card:|if\b|elif\b|else\}|end\})[^}]*\}\}|\{%.*?%\}", re.S)),
]
TEX = re.compile(r"\$[^$]+\$")


def machinery(text: str) -> Counter:
    c: Counter = Counter()
    for kind, pat in MACHINERY:
        for m in pat.findall(text):
            c[(kind, m)] += 1
    c[("tex count", "")] = len(TEX.findall(text))
    return c


def compare(where: str, zh: str, other: str, problems: list[str]) -> None:
    if not other.strip():
        problems.append(f"{where}: empty")
        return
    if CJK.search(other):
        problems.append(f"{where}: Chinese left: {other[:60]!r}")
    a, b = machinery(zh), machinery(other)
    if a != b:
        missing, extra = a - b, b - a
        problems.append(f"{where}: machinery differs; missing {dict(missing)} extra {dict(extra)}")


def flatten(data, prefix: str = "") -> dict[str, object]:
    out: dict[str, object] = {}
    if isinstance(data, dict):
        for k, v in data.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.update(flatten(v, f"{prefix}.{i}"))
    else:
        out[prefix] = data
    return out


def twin(path: Path, lang: str) -> Path:
    name = path.name
    if name.endswith(".zh.toml"):
        return path.with_name(name[: -len(".zh.toml")] + f".{lang}.toml")
    return path.with_name(f"{path.stem}.{lang}{path.suffix}")


def check_toml(src: Path, lang: str, problems: list[str]) -> None:
    dst = twin(src, lang)
    if not dst.exists():
        problems.append(f"{dst.relative_to(APP.parent)}: missing")
        return
    a = flatten(tomllib.loads(src.read_text(encoding="utf-8")))
    b = flatten(tomllib.loads(dst.read_text(encoding="utf-8")))
    rel = dst.relative_to(APP.parent)
    for k in a.keys() - b.keys():
        problems.append(f"{rel}: key missing: {k}")
    for k in b.keys() - a.keys():
        problems.append(f"{rel}: key not in the Chinese: {k}")
    for k in a.keys() & b.keys():
        va, vb = a[k], b[k]
        if isinstance(va, str) and isinstance(vb, str):
            if CJK.search(va):
                compare(f"{rel} [{k}]", va, vb, problems)
            elif va != vb and not k.endswith((".label", "title", "name", "zh", "en")):
                pass  # a non-Chinese value may be reworded (an English sentence, say)
        elif va != vb:
            problems.append(f"{rel} [{k}]: non-text value differs: {va!r} vs {vb!r}")


def blocks(text: str) -> list[str]:
    return [b for b in re.split(r"\n\s*\n", text.strip()) if b.strip()]


def check_blocks(src: Path, lang: str, problems: list[str]) -> None:
    dst = twin(src, lang)
    rel = dst.relative_to(APP.parent)
    if not dst.exists():
        problems.append(f"{rel}: missing")
        return
    a, b = blocks(src.read_text(encoding="utf-8")), blocks(dst.read_text(encoding="utf-8"))
    if len(a) != len(b):
        problems.append(f"{rel}: {len(b)} blocks, the Chinese has {len(a)} (keep them one to one)")
        return
    for i, (x, y) in enumerate(zip(a, b)):
        if CJK.search(x):
            compare(f"{rel} block {i + 1}", x, y, problems)
        elif x != y and x.startswith("{{card:"):
            problems.append(f"{rel} block {i + 1}: card marker changed")


DIAGRAMS = APP / "templates" / "diagrams"
# a diagram template's words: word("key", field=…) for its text and attributes, word_str("key") for a string literal
WORD_CALL = re.compile(r"\bword(?:_str)?\(\s*(?:\"([^\"]*)\"|'([^']*)')?")


def template_keys(path: Path) -> tuple[set[str], int]:
    """The keys a template names in word(…) / word_str(…) calls, and how many calls name none literally."""
    keys: set[str] = set()
    dynamic = 0
    for m in WORD_CALL.finditer(path.read_text(encoding="utf-8")):
        if m.group(1) is None and m.group(2) is None:
            dynamic += 1
        else:
            keys.add(m.group(1) if m.group(1) is not None else m.group(2))
    return keys, dynamic


def check_template(path: Path, lang: str, problems: list[str]) -> None:
    """One diagram template for every edition: no twin in ``lang``; every word it names in both
    catalogues beside it (``fig-1-1.zh.toml``, ``fig-1-1.<lang>.toml``); every Chinese word used."""
    rel = path.relative_to(APP.parent)
    twin_html = twin(path, lang)
    if twin_html.exists():
        problems.append(
            f"{twin_html.relative_to(APP.parent)}: a second template; its words go in {path.stem}.{lang}.toml"
        )
    used, dynamic = template_keys(path)
    if dynamic:
        problems.append(f"{rel}: {dynamic} word(…) call(s) without a literal key (the check cannot follow them)")
    for code in ("zh", lang):
        cat = path.with_name(f"{path.stem}.{code}.toml")
        table = tomllib.loads(cat.read_text(encoding="utf-8")) if cat.exists() else {}
        for k in sorted(used - table.keys()):
            problems.append(f"{cat.relative_to(APP.parent)}: key missing: {k} (named in {path.name})")
        if code == "zh":
            for k in sorted(table.keys() - used):
                problems.append(f"{cat.relative_to(APP.parent)}: word no template uses: {k}")


def sources() -> list[Path]:
    out = sorted(APP.rglob("*.zh.toml"))
    out += sorted(p for p in (APP / "chapters").rglob("*.toml") if not re.search(r"\.[a-z]{2}\.toml$", p.name))
    out += sorted(p for p in (APP / "chapters").rglob("*.md") if not re.search(r"\.[a-z]{2}\.md$", p.name))
    out += sorted(p for p in DIAGRAMS.glob("*.html") if not re.search(r"\.[a-z]{2}\.html$", p.name))
    return out


def check(path: Path, lang: str, problems: list[str]) -> None:
    if path.suffix == ".html":
        check_template(path, lang, problems)
        return
    if path.suffix == ".toml":
        check_toml(path, lang, problems)
    else:
        check_blocks(path, lang, problems)


# ---------------------------------------------------------------- drift: the Chinese changed, the English did not


def lock_path(lang: str, root: Path = APP) -> Path:
    """Where edition ``lang`` records the Chinese each of its strings translates (a hash per unit)."""
    return root / "editions" / f"{lang}.lock.json"


def units(src: Path, root: Path = APP) -> dict[str, str]:
    """The translatable units of a Chinese source, by id: a catalogue's keys, a prose file's blocks."""
    rel = src.relative_to(root.parent).as_posix()
    if src.suffix == ".toml":
        flat = flatten(tomllib.loads(src.read_text(encoding="utf-8")))
        return {f"{rel}::{k}": v for k, v in flat.items() if isinstance(v, str) and CJK.search(v)}
    if src.suffix == ".html":  # a diagram template: its words are units of its catalogue
        return {}
    return {f"{rel}::block {i + 1}": b for i, b in enumerate(blocks(src.read_text(encoding="utf-8"))) if CJK.search(b)}


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def stamp(lang: str, files: list[Path], root: Path = APP) -> int:
    """Record that the ``lang`` twins of ``files`` follow their Chinese as it reads now, and forget
    what they no longer hold (a key or block removed; a diagram template's whole-file unit from before
    its words moved to a catalogue) and the units of source files that are gone."""
    path = lock_path(lang, root)
    lock = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    stamped = {f.relative_to(root.parent).as_posix() for f in files}
    for uid in [u for u in lock if u.split("::", 1)[0] in stamped or not (root.parent / u.split("::", 1)[0]).exists()]:
        del lock[uid]
    n = 0
    for f in files:
        for uid, text in units(f, root).items():
            lock[uid] = digest(text)
            n += 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(sorted(lock.items())), ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    return n


def drift(lang: str, files: list[Path], root: Path = APP) -> list[str]:
    """Units whose Chinese changed (or appeared) since the ``lang`` twin was stamped."""
    path = lock_path(lang, root)
    lock = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    out = []
    for f in files:
        for uid, text in units(f, root).items():
            if lock.get(uid) != digest(text):
                why = "new since the English was written" if uid not in lock else "the Chinese changed"
                out.append(f"{uid}: {why}; update the {lang} twin, then stamp it")
    return out


def section_of(rel: Path) -> str:
    """The book section a words file belongs to (``ch1/s1_3b.zh.toml`` and ``ch1/1.3.md`` → ``1.3``);
    files outside the chapters group by their folder (charts, templates, engine)."""
    m = re.match(r"s(\d+)_([a-z0-9]+?)(?:b|_[a-e])?\.", rel.name) or re.match(r"(\d+)\.([a-z0-9]+)\.", rel.name)
    if rel.parts[0] == "chapters" and m:
        return f"{m.group(1)}.{m.group(2)}"
    if rel.parts[0] == "chapters":
        return "/".join(rel.parts[:-1]) or "chapters"
    return rel.parts[0] if len(rel.parts) > 1 else "engine"


def completeness(lang: str) -> list[tuple[str, int, int]]:
    """Per chapter folder (and the rest of the app): translatable units, and how many have a stamped,
    current twin in ``lang`` — the figure ``make test`` prints."""
    path = lock_path(lang)
    lock = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    groups: dict[str, list[int]] = {}
    for src in sources():
        group = section_of(src.relative_to(APP))
        tally = groups.setdefault(group, [0, 0])
        has_twin = twin(src, lang).exists()
        for uid, text in units(src).items():
            tally[0] += 1
            tally[1] += has_twin and lock.get(uid) == digest(text)
    return [(g, n, ok) for g, (n, ok) in sorted(groups.items())]


def main(argv: list[str]) -> int:
    flags = {a for a in argv if a.startswith("--")}
    args = [a for a in argv if not a.startswith("--")]
    lang, files = args[0], [Path(a).resolve() for a in args[1:]] or sources()
    if "--report" in flags:
        rows = completeness(lang)
        print(f"{lang} edition, units translated and current: " + ", ".join(f"{g} {ok}/{n}" for g, n, ok in rows))
        return 0
    if "--stamp" in flags:
        print(f"stamped {stamp(lang, files)} units of {len(files)} files")
        return 0
    problems: list[str] = drift(lang, files) if "--drift" in flags else []
    if "--drift" not in flags:
        for f in files:
            check(f, lang, problems)
    print("\n".join(problems) or f"{len(files)} files: every {lang} twin complete and consistent")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
