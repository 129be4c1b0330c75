"""The request-body limit, for every route: a body over ``MAX_BODY`` answers 413 with the app's JSON
error shape. The oversized body is read and dropped first (up to ``DRAIN_CAP``), so a client that
sends the whole body before reading (Python's ``urllib``) gets the answer instead of a connection
reset; the connection is closed after the answer. A plain ASGI middleware."""

from __future__ import annotations

import json

from ..errors import error_body, error_item
from ..words import words_for

W = words_for(__name__)

MAX_BODY = 1_000_000  # bytes (1 MB): the largest body any route takes (a config.json is a few KB)
DRAIN_CAP = 64 * 1024 * 1024  # bytes read and dropped at most before answering; beyond it, answer and close


def too_large(size: int | None) -> bytes:
    """The 413 body, in the same shape as the 422 parameter errors."""
    got = W.f("too_large", size=size) if size is not None else W["too_large_2"]
    msg = W.f("too_large_3", got=got, max_body=MAX_BODY)
    return json.dumps(error_body([error_item("body", msg, "too_large", ["body"])]), ensure_ascii=False).encode()


class BodyLimit:
    def __init__(self, app, max_body: int = MAX_BODY, drain_cap: int = DRAIN_CAP):
        self.app, self.max_body, self.drain_cap = app, max_body, drain_cap

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None and length.isdigit():
            if int(length) <= self.max_body:  # the server never delivers more than Content-Length
                return await self.app(scope, receive, send)
            await self._drain(receive, 0)
            return await self._answer(send, int(length))
        if b"chunked" not in headers.get(b"transfer-encoding", b"").lower():
            return await self.app(scope, receive, send)
        await self._buffered(scope, receive, send)

    async def _buffered(self, scope, receive, send):
        """A chunked body: read it up to the limit, then hand it on (or answer 413)."""
        chunks, size, more = [], 0, True
        while more:
            msg = await receive()
            if msg["type"] != "http.request":
                return  # the client went away
            chunks.append(msg.get("body", b""))
            size += len(chunks[-1])
            more = msg.get("more_body", False)
            if size > self.max_body:
                if more:
                    await self._drain(receive, size)
                return await self._answer(send, None)
        body = b"".join(chunks)
        sent = False

        async def replay():
            nonlocal sent
            if sent:
                return await receive()  # after the body: wait for a disconnect as usual
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _drain(self, receive, already: int) -> None:
        """Read and drop the rest of the body, up to ``drain_cap`` bytes in all."""
        size = already
        while size <= self.drain_cap:
            msg = await receive()
            if msg["type"] != "http.request":
                return
            size += len(msg.get("body", b""))
            if not msg.get("more_body", False):
                return

    async def _answer(self, send, size: int | None) -> None:
        body = too_large(size)
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
