"""Precompress the static assets once, at set-up: ``file.br`` (brotli, quality 11) and ``file.gz``
(gzip 9) beside each text asset, so the server never compresses them per request
(``CachedStatic`` serves them by negotiation, and only while they are newer than the file).

The compressed copies of the site's own scripts leave out their whole-line ``//`` comments: a reader
downloads the code, not its explanation (4 kB of a first page's 400 kB budget); the source keeps them,
and so does the uncompressed copy a client without gzip gets."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import brotli

SUFFIXES = {".js", ".css", ".svg", ".json", ".html", ".map", ".txt"}
MIN_BYTES = 800


def lean(p: Path, raw: bytes) -> bytes:
    """``raw`` as a reader downloads it: one of our scripts (not a vendored library) without its
    whole-line ``//`` comments (our scripts hold no template literal or multi-line string a line of
    which could start so: tests/web/test_static_lean.py checks the served copy runs the same)."""
    if p.suffix != ".js" or "vendor" in p.parts:
        return raw
    lines = raw.decode("utf-8").split("\n")
    return "\n".join(x for x in lines if not x.lstrip().startswith("//")).encode("utf-8")


def precompress(root: Path) -> int:
    n = 0
    for p in sorted(root.rglob("*")):
        if not p.is_file() or p.suffix not in SUFFIXES or p.stat().st_size < MIN_BYTES:
            continue
        raw = lean(p, p.read_bytes())
        for ext in (".br", ".gz"):
            out = p.with_name(p.name + ext)
            if not out.exists() or out.stat().st_mtime < p.stat().st_mtime:
                out.write_bytes(brotli.compress(raw, quality=11) if ext == ".br" else gzip.compress(raw, 9, mtime=0))
                n += 1
    return n


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "static")
    print(f"precompressed {precompress(root)} files under {root}")
