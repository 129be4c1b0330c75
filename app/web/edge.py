"""The edge cache: every public GET answer (card fragments, JSON, pages, derivations, figure data) is
a pure function of its URL, so the outermost middleware keeps it, with its headers, and answers the
next request for that URL without entering the app. Each representation is compressed once (gzip or
brotli, on the first request that asks for it) and kept beside the raw bytes; ``If-None-Match``
answers 304. A plain ASGI middleware on the event loop (no locks needed); memory is bounded in bytes.

Responses that say ``no-store``/``private`` or are not 200 (live class, checks, errors) pass through
untouched, and so does ``/static/`` (precompressed files, served by ``CachedStatic``)."""

from __future__ import annotations

import gzip
import hashlib
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache

import brotli

MIN_COMPRESS = 800  # bytes: smaller bodies go out as they are
BROTLI_FIRST = 1  # a never-seen state: ~0.07 ms per 15 kB (the slider is waiting)
BROTLI_KEPT = 5  # a URL asked for again: recompressed once, ~15 % smaller
REPEAT = 2  # hits before a body is recompressed at BROTLI_KEPT
GZIP_LEVEL = 6
SKIP_PREFIXES = ("/static/", "/api/live", "/live/")
DROP = {b"content-length", b"content-encoding", b"vary", b"etag"}


@dataclass
class Entry:
    status: int
    headers: list[tuple[bytes, bytes]]  # as the app sent them, minus length/encoding/vary/etag
    etag: bytes
    bodies: dict[str, bytes] = field(default_factory=dict)  # "identity" | "gzip" | "br" → bytes
    hits: int = 0
    final: bool = False  # compressed at the kept quality

    @property
    def size(self) -> int:
        return sum(len(b) for b in self.bodies.values()) + 200


@lru_cache(maxsize=256)
def negotiate(accept: bytes) -> str:
    """The best encoding the client takes (``br`` > ``gzip`` > identity); ``q=0`` refuses one.
    Kept per header value: browsers send a handful of them."""
    offered = {}
    for part in accept.decode("latin-1").lower().split(","):
        name, _, params = part.strip().partition(";")
        q = 1.0
        if "q=" in params:
            try:
                q = float(params.split("q=")[1])
            except ValueError:
                q = 0.0
        offered[name.strip()] = q
    for enc in ("br", "gzip"):
        if offered.get(enc, offered.get("*", 0)) > 0:
            return enc
    return "identity"


def compress(raw: bytes, encoding: str, quality: int = BROTLI_KEPT) -> bytes:
    if encoding == "br":
        return brotli.compress(raw, quality=quality)
    if encoding == "gzip":
        return gzip.compress(raw, GZIP_LEVEL if quality >= BROTLI_KEPT else 1, mtime=0)
    return raw


def _etag_matches(if_none_match: bytes, etag: bytes) -> bool:
    if not if_none_match:
        return False
    if if_none_match.strip() == b"*":
        return True
    ours = etag.removeprefix(b"W/")
    return any(t.strip().removeprefix(b"W/") == ours for t in if_none_match.split(b","))


class EdgeCache:
    """Outermost middleware: answers repeated public GETs from memory."""

    def __init__(self, app, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes
        self.entries: OrderedDict[tuple[str, bytes], Entry] = OrderedDict()
        self.bytes = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"].startswith(SKIP_PREFIXES):
            return await self.app(scope, receive, send)
        key = (scope["path"], scope.get("query_string", b""))
        headers = dict(scope.get("headers") or [])
        entry = self.entries.get(key)
        if entry is None:
            entry = await self._fill(scope, receive, send, key)
            if entry is None:
                return None
        else:
            self.entries.move_to_end(key)
        await self._answer(entry, headers, send)
        return None

    async def _fill(self, scope, receive, send, key) -> Entry | None:
        """Run the app without Accept-Encoding (raw bytes); keep a cacheable answer, else relay it."""
        inner = {**scope, "headers": [(k, v) for k, v in scope.get("headers") or [] if k != b"accept-encoding"]}
        start: dict = {}
        chunks: list[bytes] = []

        async def capture(message):
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(inner, receive, capture)
        raw = b"".join(chunks)
        if not self._cacheable(start):
            await self._relay(start, raw, dict(scope.get("headers") or []), send)
            return None
        got = dict(start.get("headers", []))
        etag = got.get(b"etag") or b'W/"' + hashlib.sha1(raw).hexdigest()[:20].encode() + b'"'
        entry = Entry(
            start["status"], [(k, v) for k, v in start.get("headers", []) if k not in DROP], etag, {"identity": raw}
        )
        self._store(key, entry)
        return entry

    @staticmethod
    async def _relay(start: dict, raw: bytes, req: dict, send) -> None:
        """An answer not kept: sent as the app made it, compressed for the client if it is large."""
        headers = list(start.get("headers", []))
        enc = negotiate(req.get(b"accept-encoding", b"")) if len(raw) >= MIN_COMPRESS else "identity"
        if enc != "identity" and not any(k == b"content-encoding" for k, _ in headers):
            raw = compress(raw, enc)
            headers = [(k, v) for k, v in headers if k not in (b"content-length", b"vary")]
            headers += [
                (b"content-length", str(len(raw)).encode()),
                (b"content-encoding", enc.encode()),
                (b"vary", b"Accept-Encoding"),
            ]
        await send({**start, "headers": headers})
        await send({"type": "http.response.body", "body": raw})

    @staticmethod
    def _cacheable(start: dict) -> bool:
        if start.get("status") != 200:
            return False
        h = dict(start.get("headers", []))
        cc = h.get(b"cache-control", b"").lower()
        return b"public" in cc and b"no-store" not in cc and b"content-encoding" not in h

    def _store(self, key, entry: Entry) -> None:
        self.entries[key] = entry
        self.bytes += entry.size
        while self.bytes > self.max_bytes and len(self.entries) > 1:
            _, old = self.entries.popitem(last=False)
            self.bytes -= old.size

    async def _answer(self, entry: Entry, req: dict, send) -> None:
        base = [*entry.headers, (b"etag", entry.etag), (b"vary", b"Accept-Encoding")]
        if _etag_matches(req.get(b"if-none-match", b""), entry.etag):
            await send({"type": "http.response.start", "status": 304, "headers": base})
            await send({"type": "http.response.body", "body": b""})
            return
        raw = entry.bodies["identity"]
        enc = negotiate(req.get(b"accept-encoding", b"")) if len(raw) >= MIN_COMPRESS else "identity"
        entry.hits += 1
        if entry.hits > REPEAT and not entry.final:  # asked for again and again: compress well, once
            self.bytes -= sum(len(b) for k, b in entry.bodies.items() if k != "identity")
            entry.bodies = {"identity": raw}
            entry.final = True
        body = entry.bodies.get(enc)
        if body is None:  # first request for this representation: compress once
            body = entry.bodies[enc] = compress(raw, enc, BROTLI_KEPT if entry.final else BROTLI_FIRST)
            self.bytes += len(body)
        out = base + [(b"content-length", str(len(body)).encode())]
        if enc != "identity":
            out.append((b"content-encoding", enc.encode()))
        await send({"type": "http.response.start", "status": entry.status, "headers": out})
        await send({"type": "http.response.body", "body": body})
