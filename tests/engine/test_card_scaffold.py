"""``make card`` (scripts/new_card.py) scaffolds a card that registers and renders at once, in files
ruff accepts, with a book-value check that fails until the formula is written and passes once it is.
Everything runs in a copy of the tree (``--root``), so the project's files and registry stay as
they are."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.sampling import sample_and_rest

from .conftest import mypy_cache

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "new_card.py"
REAL_CATALOG = Path(os.environ.get("CARD_CATALOG", ROOT.parent / "shared" / "catalog"))

# a catalog entry in the catalog's format (shared/catalog/FORMAT.md), so the test needs no catalog
KV_ENTRY = """\
# Test chapter · card catalog

### `kv-per-request` · 每个请求的 KV  (section 1.2.3)
- kind: calculator
- aliases: `kv-one-request`
- shows: the KV cache one request holds, for a context length (Qwen3-8B, BF16).
- params: `context_tokens` | context length | tokens | 4096 | 128–131072 / 128 (log slider)
- outputs:

  | key | meaning | unit | formula | book value at defaults |
  |---|---|---|---|---|
  | `kv_per_token_bytes` | KV per token | B | 2·L·n_kv·d_h·2 B | 147,456 |
  | `kv_request_gib` | KV of one request | GiB | kv · S / 2³⁰ | 0.5625 |
"""

# the formulas a developer writes next (Qwen3-8B: 36 layers, 8 KV heads of 128, BF16)
KV_FORMULAS = '''
def kv_per_token_bytes(context_tokens: int) -> float:
    """kv = 2 · L · n_kv · d_h · 2 B."""
    return trace.given(2 * 36 * 8 * 128 * 2, "kv", "B", source="Qwen3-8B config.json")


def kv_request_gib(context_tokens: int) -> float:
    """KV_req = kv · S (in GiB)."""
    return trace.name(kv_per_token_bytes(context_tokens) * context_tokens, "KV_{req}", "B") / 2**30
'''

NEW_FILES = (
    "app/calculators/kv_per_request.py",
    "app/chapters/ch1/s1_2_kv_per_request.py",
    "tests/checks/ch1_s1_2_kv_per_request.py",
)


def copy_tree(dest: Path) -> Path:
    """The parts of the repository a card touches, copied (static assets linked)."""
    skip = shutil.ignore_patterns("__pycache__", "golden", "browser", "*.pyc")
    for part in ("app", "data", "tests", "scripts"):
        shutil.copytree(ROOT / part, dest / part, ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", dest)
    (dest / "static").symlink_to(ROOT / "static")
    return dest


def run(tree: Path, *args: str) -> subprocess.CompletedProcess:
    """A command in the copied tree, importing the copy's ``app`` and ``tests``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(args, cwd=tree, env=env, capture_output=True, text=True, timeout=600)


def scaffold(tree: Path, card_id: str, section: str, catalog: Path) -> subprocess.CompletedProcess:
    return run(tree, sys.executable, str(tree / "scripts" / "new_card.py"), card_id, section, "--catalog", str(catalog))


def tool(tree: Path, name: str, *args: str) -> subprocess.CompletedProcess:
    """ruff or mypy (the environment's) on files of the tree, with the tree's pyproject.toml."""
    exe = Path(sys.executable).with_name(name)
    return run(tree, str(exe) if exe.exists() else name, *args)


def lint(tree: Path, files: list[str], modules: list[str]) -> None:
    """``files`` pass ``ruff format --check`` and ``ruff check``; the app and ``modules`` pass mypy."""
    for args in (("format", "--check"), ("check",)):
        done = tool(tree, "ruff", *args, *files)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    targets = [a for m in modules for a in ("-m", m)]
    done = tool(tree, "mypy", "--cache-dir", str(mypy_cache(tree / ".mypy_cache")), "-p", "app", *targets)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr


def pytest_outcomes(tree: Path, *args: str) -> dict[str, str]:
    """Run pytest in the tree: test id → "passed" / "failed" / "skipped"."""
    report = tree / "report.xml"
    run(
        tree,
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        f"--junitxml={report}",
        *args,
    )
    outcomes = {}
    for case in ElementTree.parse(report).iter("testcase"):
        state = next((c.tag for c in case if c.tag in ("failure", "error", "skipped")), "passed")
        outcomes[case.get("name", "")] = {"failure": "failed", "error": "failed"}.get(state, state)
    return outcomes


RENDER = """
import json, re, sys
from fastapi.testclient import TestClient
from tests.apps import build_app
client = TestClient(build_app())
answers = {}
for cid in sys.argv[1:]:
    page, frag, api = (client.get(f"{p}{cid}{s}") for p, s in (("/cards/", ""), ("/cards/", "/fragment"), ("/api/cards/", "")))
    answers[cid] = {
        "status": [page.status_code, frag.status_code, api.status_code],
        "controls": re.findall(r' name="(\\w+)"', page.text),
        "fragment": frag.text,
        "outputs": api.json().get("outputs") if api.status_code == 200 else api.text,
        "params": api.json().get("params") if api.status_code == 200 else None,
    }
print(json.dumps(answers))
"""


def render(tree: Path, *ids: str) -> dict:
    """Each card's page, fragment and JSON answer, from an app built in the tree."""
    done = run(tree, sys.executable, "-c", RENDER, *ids)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def kv_tree(dest: Path) -> Path:
    """A copy of the tree with ``kv-per-request`` scaffolded from a catalog entry."""
    tree = copy_tree(dest)
    catalog = tree / "catalog"
    catalog.mkdir()
    (catalog / "test.md").write_text(KV_ENTRY, encoding="utf-8")
    done = scaffold(tree, "kv-per-request", "1.2", catalog)
    assert done.returncode == 0, done.stderr
    (tree / "scaffold.out").write_text(done.stdout, encoding="utf-8")
    return tree


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """One scaffolded copy for the tests that only read it (the others make their own)."""
    return kv_tree(tmp_path_factory.mktemp("tree"))


def changed(tree: Path) -> set[str]:
    """Files of app/ and tests/ that are new or differ from the repository's."""
    out = set()
    for part in ("app", "tests"):
        for path in (tree / part).rglob("*"):
            rel = path.relative_to(tree)
            if path.is_file() and "__pycache__" not in rel.parts and path.suffix != ".pyc":
                old = ROOT / rel
                if not old.exists() or old.read_bytes() != path.read_bytes():
                    out.add(str(rel))
    return out


def test_the_scaffold_writes_new_files_and_both_catalog_entries(tree):
    assert changed(tree) == {*NEW_FILES, "tests/data/catalog_ids.json", "tests/data/catalog_contract.json"}
    assert not any((ROOT / f).exists() for f in NEW_FILES)  # the repository itself is untouched
    ids = json.loads((tree / "tests/data/catalog_ids.json").read_text(encoding="utf-8"))
    contract = json.loads((tree / "tests/data/catalog_contract.json").read_text(encoding="utf-8"))["cards"]
    assert ids["kv-per-request"] == {
        "aliases": ["kv-one-request"],
        "file": "test.md",
        "head": "每个请求的 KV  (section 1.2.3)",
    }
    assert contract["kv-per-request"] == {
        "params": ["context_tokens"],
        "outputs": ["kv_per_token_bytes", "kv_request_gib"],
        "book": {"kv_per_token_bytes": "147,456", "kv_request_gib": "0.5625"},
    }
    old_ids = json.loads((ROOT / "tests/data/catalog_ids.json").read_text(encoding="utf-8"))
    assert {k: v for k, v in ids.items() if k != "kv-per-request"} == old_ids


def test_its_output_says_what_to_fill_in_next(tree):
    said = (tree / "scaffold.out").read_text(encoding="utf-8")
    assert "app/calculators/kv_per_request.py" in said and "test_book_values.py -k kv-per-request" in said
    assert "kv_per_token_bytes = 147,456" in said and "make golden" in said


def test_the_generated_files_pass_ruff_and_mypy(tree):
    lint(tree, list(NEW_FILES), ["tests.checks.ch1_s1_2_kv_per_request"])


def test_the_new_card_renders_with_its_catalog_controls(tree):
    got = render(tree, "kv-per-request")["kv-per-request"]
    assert got["status"] == [200, 200, 200]
    assert "context_tokens" in got["controls"]
    assert got["outputs"] == {"kv_per_token_bytes": None, "kv_request_gib": None}  # NaN until written
    assert "待填" in got["fragment"]


def test_the_suite_takes_the_card_and_its_check_fails_until_the_formula_is_written(tmp_path):
    tree = kv_tree(tmp_path)
    generic = [
        "tests/web/test_card_routes.py",
        "tests/web/test_catalog_contract.py",
        "tests/web/test_derivations.py",
        "tests/engine/test_trace_dependencies.py",
    ]
    checks = ["tests/web/test_book_values.py"]
    before = pytest_outcomes(tree, *generic, *checks, "-k", "kv-per-request or kv-one-request")
    book = {k: v for k, v in before.items() if k.startswith("test_book_value[")}
    assert book and set(book.values()) == {"failed"}, before
    assert {v for k, v in before.items() if k not in book} == {"passed"}, before

    stubs = tree / NEW_FILES[0]
    head = stubs.read_text(encoding="utf-8").split("\n\ndef ")[0]
    stubs.write_text(head + "\n" + KV_FORMULAS, encoding="utf-8")
    after = pytest_outcomes(tree, *checks, "-k", "kv-per-request")
    assert after.keys() == book.keys() and set(after.values()) == {"passed"}, after


def test_without_a_catalog_entry_it_writes_marked_placeholders(tmp_path):
    tree = copy_tree(tmp_path)
    done = scaffold(tree, "my-new-card", "3.end", tree / "no-such-catalog")
    assert done.returncode == 0, done.stderr
    assert "rename the placeholder parameter x and output y" in done.stdout
    decl = (tree / "app/chapters/ch3/s3_end_my_new_card.py").read_text(encoding="utf-8")
    assert 'label="待填:参数 x"' in decl and 'section="3.end"' in decl
    got = render(tree, "my-new-card")["my-new-card"]
    assert got["status"] == [200, 200, 200] and got["outputs"] == {"y": None}
    outcomes = pytest_outcomes(tree, "tests/web/test_book_values.py", "-k", "my-new-card")
    assert outcomes and set(outcomes.values()) == {"failed"}, outcomes


@pytest.mark.parametrize(
    ("card_id", "section", "why"),
    [
        ("eg-1-1", "1.3", "already in tests/data/catalog_ids.json"),
        ("Bad_Id", "1.2", "lower-case kebab case"),
        ("kv-other", "1.9", "not a section of the book"),
    ],
)
def test_it_refuses_what_would_break_the_tree(tree, card_id, section, why):
    done = scaffold(tree, card_id, section, tree / "catalog")
    assert done.returncode == 2 and why in done.stderr


def _script():
    spec = importlib.util.spec_from_file_location("new_card", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["new_card"] = module  # dataclasses resolve their module by name
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules["new_card"]
    return module


needs_catalog = pytest.mark.skipif(not REAL_CATALOG.is_dir(), reason=f"no card catalog at {REAL_CATALOG}")


@needs_catalog
def test_the_catalog_reader_finds_what_the_contract_was_extracted_from():
    """Every entry of the card catalog reads as tests/data holds it: the same aliases, file and
    heading, output keys and printed book values; its parameters include the contract's."""
    new_card = _script()
    catalog = new_card.read_catalog(REAL_CATALOG)
    ids = json.loads((ROOT / "tests/data/catalog_ids.json").read_text(encoding="utf-8"))
    contract = json.loads((ROOT / "tests/data/catalog_contract.json").read_text(encoding="utf-8"))["cards"]
    assert len(catalog) >= 99
    for cid, entry in catalog.items():
        assert {"aliases": entry.aliases, "file": entry.file, "head": entry.head} == ids[cid], cid
        assert entry.output_keys == contract[cid]["outputs"], cid
        assert entry.book() == contract[cid]["book"], cid
        assert set(contract[cid]["params"]) <= set(entry.param_keys), cid


CATALOG_IDS = sorted(  # the entries of the catalog's chapter files (fit-planner came from an issue)
    cid
    for cid, where in json.loads((ROOT / "tests/data/catalog_ids.json").read_text(encoding="utf-8")).items()
    if where["file"].startswith("ch")
)


@needs_catalog
@pytest.mark.parametrize("group", sample_and_rest(CATALOG_IDS))
def test_every_catalog_entry_scaffolds_a_card_that_renders(tmp_path, group):
    """The whole catalog, each entry under a new id (a card of each kind per chapter in ``make test``, the
    rest under ``--full``): every card registers, answers its fragment and JSON with the catalog's
    parameters and outputs, and every generated file passes ruff and mypy."""
    tree = copy_tree(tmp_path)
    catalog = tree / "catalog"
    catalog.mkdir()
    for path in REAL_CATALOG.glob("ch*.md"):  # the same entries under new ids, without aliases
        text = path.read_text(encoding="utf-8").replace("### `", "### `new-")
        text = "\n".join("- aliases: —" if line.startswith("- aliases:") else line for line in text.splitlines())
        (catalog / path.name).write_text(text, encoding="utf-8")
    new_card = _script()
    entries = {cid: e for cid, e in new_card.read_catalog(catalog).items() if cid.removeprefix("new-") in group}
    assert len(entries) == len(group)
    for cid, entry in entries.items():
        section = "1.2" if entry.file.startswith("ch1") else "3.1"
        assert new_card.main([cid, section, "--root", str(tree), "--catalog", str(catalog)]) == 0, cid
    written = [str(p.relative_to(tree)) for p in tree.glob("app/**/*new_*.py")] + [
        str(p.relative_to(tree)) for p in tree.glob("tests/checks/*new_*.py")
    ]
    assert len(written) == 3 * len(entries)
    lint(tree, written, [f"tests.checks.{Path(f).stem}" for f in written if f.startswith("tests/")])
    answers = render(tree, *entries)
    contract = json.loads((tree / "tests/data/catalog_contract.json").read_text(encoding="utf-8"))["cards"]
    for cid, got in answers.items():
        assert got["status"] == [200, 200, 200], (cid, got["outputs"])
        assert list(got["outputs"]) == (contract[cid]["outputs"] or ["y"]), cid
        assert list(got["params"]) == contract[cid]["params"], cid
