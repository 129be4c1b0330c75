"""The one HTTP cache, in front of the app. Every public GET answer (card pages, fragments, JSON,
derivations, figure data, the book's pages) is a pure function of its URL, so the outermost
middleware keeps it with its headers and answers the next request for that URL without entering the
app. Generic: it knows HTTP, not cards. The app hands it ``key``, which normalises a URL (``None``:
not the edge's: streams, the live class, static files pass it by, to GZip); the card routes' key
keeps only the parameters a card knows, so ``?utm_source=…`` makes no new entry. Memory is bounded
in bytes (bodies, headers and keys), least recently used first.

For every answer it keeps: a weak ``ETag`` (a hash of the body) with ``If-None-Match`` answered 304,
and the body compressed for the client (brotli or gzip), each encoding once. Answers that say
``no-store``/``private`` or are not 200 (checks, errors, redirects) go out as the app made them,
compressed for the client when large. Requests that are not the edge's (streams, the live class, static
files, anything but GET) go to ``passthrough(app)`` (``create_app`` puts Starlette's GZip there), so each
answer meets one compressor: the edge's fills ask the app for identity bytes and get them directly."""

from __future__ import annotations

import gzip
import hashlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import brotli

MIN_COMPRESS = 800  # bytes: smaller bodies go out as they are
BROTLI_QUALITY = 1  # ~0.03 ms per 12 kB fragment (a slider is waiting); ~12 % larger than quality 5
GZIP_LEVEL = 6
ENTRY_OVERHEAD = 600  # bytes of Python objects per entry beyond its bodies, headers and key
DROP = {b"content-length", b"content-encoding", b"vary", b"etag"}

Key = Callable[[str, bytes], str | None]  # (path, raw query) → the entry's key; None: not the edge's


@dataclass
class Entry:
    status: int
    headers: list[tuple[bytes, bytes]]  # as the app sent them, minus length/encoding/vary/etag
    etag: bytes
    bodies: dict[str, bytes] = field(default_factory=dict)  # "identity" | "gzip" | "br" → bytes

    def size(self, key: str) -> int:
        heads = sum(len(k) + len(v) for k, v in self.headers)
        return ENTRY_OVERHEAD + len(key) + heads + len(self.etag) + sum(len(b) for b in self.bodies.values())


def negotiate(accept: bytes) -> str:
    """The best encoding the client takes (``br`` > ``gzip`` > identity); ``q=0`` refuses one."""
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


def compress(raw: bytes, encoding: str) -> bytes:
    if encoding == "br":
        return brotli.compress(raw, quality=BROTLI_QUALITY)
    if encoding == "gzip":
        return gzip.compress(raw, GZIP_LEVEL, mtime=0)
    return raw


def etag_of(body: bytes) -> bytes:
    """A weak validator: the identity and compressed bytes of one answer are one representation."""
    return b'W/"' + hashlib.sha1(body).hexdigest()[:20].encode() + b'"'


def etag_matches(if_none_match: bytes, etag: bytes) -> bool:
    """``If-None-Match`` by the weak comparison (RFC 9110 13.1.2): ``*``, or any listed tag equal to
    ours once ``W/`` is dropped."""
    if not if_none_match:
        return False
    if if_none_match.strip() == b"*":
        return True
    ours = etag.removeprefix(b"W/")
    return any(t.strip().removeprefix(b"W/") == ours for t in if_none_match.split(b","))


def _cacheable(start: dict) -> bool:
    if start.get("status") != 200:
        return False
    h = dict(start.get("headers", []))
    cc = h.get(b"cache-control", b"").lower()
    return b"public" in cc and b"no-store" not in cc and b"content-encoding" not in h


class EdgeCache:
    """Outermost middleware: answers repeated public GETs from memory (at most ``max_bytes``; 0 keeps
    nothing but still validates and compresses)."""

    def __init__(self, app, max_bytes: int, key: Key, passthrough: Callable | None = None):
        self.app, self.max_bytes, self.key = app, max_bytes, key
        self.passthrough = passthrough(app) if passthrough else app
        self.entries: OrderedDict[str, Entry] = OrderedDict()
        self.bytes = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "GET":
            return await self.passthrough(scope, receive, send)
        key = self.key(scope["path"], scope.get("query_string", b""))
        if key is None:  # not the edge's: passed by (streams, live class, static files)
            return await self.passthrough(scope, receive, send)
        entry = self.entries.get(key)
        if entry is None:
            entry = await self._fill(scope, receive, send)
            if entry is None:
                return None
            self._store(key, entry)
        else:
            self.entries.move_to_end(key)
        await self._answer(entry, dict(scope.get("headers") or []), send, key)
        return None

    async def _fill(self, scope, receive, send) -> Entry | None:
        """Run the app without Accept-Encoding (raw bytes); a cacheable answer becomes an entry, anything
        else is relayed as the app made it."""
        headers = [(k, v) for k, v in scope.get("headers") or [] if k != b"accept-encoding"]
        start: dict = {}
        chunks: list[bytes] = []

        async def capture(message):
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app({**scope, "headers": headers}, receive, capture)
        raw = b"".join(chunks)
        if not _cacheable(start):
            await self._relay(start, raw, dict(scope.get("headers") or []), send)
            return None
        kept = [(k, v) for k, v in start.get("headers", []) if k not in DROP]
        return Entry(start["status"], kept, etag_of(raw), {"identity": raw})

    @staticmethod
    async def _relay(start: dict, raw: bytes, req: dict, send) -> None:
        """An answer not kept, sent as the app made it (compressed for the client when it is large)."""
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

    def _store(self, key: str, entry: Entry) -> None:
        """Keep ``entry`` under ``key``, dropping the least recently used past the byte bound."""
        self.entries[key] = entry
        self._grow(entry.size(key))

    def _grow(self, n: int) -> None:
        self.bytes += n
        while self.bytes > self.max_bytes and self.entries:
            old_key, old = self.entries.popitem(last=False)
            self.bytes -= old.size(old_key)

    async def _answer(self, entry: Entry, req: dict, send, key: str) -> None:
        base = [*entry.headers, (b"etag", entry.etag), (b"vary", b"Accept-Encoding")]
        if etag_matches(req.get(b"if-none-match", b""), entry.etag):
            await send({"type": "http.response.start", "status": 304, "headers": base})
            await send({"type": "http.response.body", "body": b""})
            return
        raw = entry.bodies["identity"]
        enc = negotiate(req.get(b"accept-encoding", b"")) if len(raw) >= MIN_COMPRESS else "identity"
        body = entry.bodies.get(enc)
        if body is None:  # the first request for this encoding: compressed once
            body = compress(raw, enc)
            if self.entries.get(key) is entry:
                entry.bodies[enc] = body
                self._grow(len(body))
        out = base + [(b"content-length", str(len(body)).encode())]
        if enc != "identity":
            out.append((b"content-encoding", enc.encode()))
        await send({"type": "http.response.start", "status": entry.status, "headers": out})
        await send({"type": "http.response.body", "body": body})
