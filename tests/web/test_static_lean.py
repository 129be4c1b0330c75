"""The site's own scripts as a reader downloads them (scripts/precompress.py): their compressed copies
leave out whole-line ``//`` comments, and what is left is the same program (it parses, and only comment
lines went)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import brotli
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
from precompress import lean  # noqa: E402

OURS = sorted(p for p in (ROOT / "static").glob("*.js"))


@pytest.mark.parametrize("path", OURS, ids=[p.name for p in OURS])
def test_a_lean_script_is_the_same_program_without_its_comment_lines(path, tmp_path):
    raw = path.read_bytes()
    slim = lean(path, raw).decode()
    assert not any(x.lstrip().startswith("//") for x in slim.split("\n"))
    kept = [x for x in raw.decode().split("\n") if not x.lstrip().startswith("//")]
    assert slim.split("\n") == kept  # nothing but whole comment lines left out
    if shutil.which("node"):
        f = tmp_path / path.name
        f.write_text(slim)
        r = subprocess.run(["node", "--check", str(f)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_a_vendored_library_is_compressed_as_it_is(tmp_path):
    p = tmp_path / "vendor" / "lib.js"
    p.parent.mkdir()
    p.write_text("// licence\nvar x = 1;\n")
    assert lean(p, p.read_bytes()) == p.read_bytes()


def test_the_served_copy_is_the_lean_one(client):
    """The app serves app.js's brotli copy, and it is the lean script, smaller than the source's."""
    r = client.get("/static/app.js", headers={"Accept-Encoding": "br"})
    assert r.status_code == 200 and r.headers.get("content-encoding") == "br"
    src = (ROOT / "static" / "app.js").read_bytes()
    assert r.content == lean(ROOT / "static" / "app.js", src)  # httpx decodes br
    assert len(brotli.compress(r.content, quality=11)) < len(brotli.compress(src, quality=11)) - 1000
