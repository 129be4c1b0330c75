"""The follower stream: ``GET /api/live/{code}/events`` (server-sent events). Each change is one
event, ``id: {seq}``, data = the session's public state. A client that reconnects with a
``Last-Event-ID`` older than the current seq gets the current state at once (one event, not a
replay); one that is up to date gets nothing until the next change."""

from __future__ import annotations

import asyncio
import secrets

from fastapi import APIRouter, Request
from sse_starlette.sse import EventSourceResponse, ServerSentEvent

from .deps import LiveSession, fail
from .hub import HUB, encode
from .ids import DEVICE_RE
from .limits import DEVICE_MAX, RETRY_MS
from .models import errors
from .store import get_store, keepalive_s

router = APIRouter(tags=["课堂"])
_background: set[asyncio.Task] = set()


def last_event_id(request: Request) -> int | None:
    raw = request.headers.get("last-event-id", "").strip()
    return int(raw) if raw.isdigit() and len(raw) < 19 else None


@router.get(
    "/api/live/{code}/events",
    response_class=EventSourceResponse,
    responses={
        200: {
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
            "description": "每次变化一个事件:id = seq,data = 课堂公开状态(JSON)",
        },
        **errors(404, 422, 503),
    },
    summary="学生端事件流(text/event-stream;Last-Event-ID 续传)",
)
async def events(request: Request, s: LiveSession, device: str | None = None) -> EventSourceResponse:
    if device is not None and not (len(device) <= DEVICE_MAX and DEVICE_RE.match(device)):
        raise fail(422, "device", "格式不对", "string_pattern_mismatch")
    store = get_store()
    await HUB.ensure_started(store)
    dev = device or "anon-" + secrets.token_hex(8)
    if await store.join(s.code, dev) is None:
        from .api import full_class

        raise full_class()
    return EventSourceResponse(
        _stream(s.code, dev, last_event_id(request)),
        ping=keepalive_s(),
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def _stream(code: str, device: str, last: int | None):
    """Subscribe first, then read the state: a change in between arrives through the queue."""
    store = get_store()
    conn = HUB.subscribe(code, device)
    try:
        cur = await store.get(code)
        sent = last if last is not None else -1
        if cur is not None and cur.seq != last:
            sent = cur.seq
            yield ServerSentEvent(data=encode(cur.event()), id=str(cur.seq), retry=RETRY_MS)
        while True:
            seq, wire = await conn.queue.get()
            if seq <= sent:
                continue
            sent = seq
            yield wire
    finally:
        if HUB.unsubscribe(conn) == 0:  # the device's last connection here: no longer a follower
            task = asyncio.get_running_loop().create_task(store.leave(code, device))
            _background.add(task)
            task.add_done_callback(_background.discard)
