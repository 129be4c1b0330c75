"""The follower stream: ``GET /api/live/{code}/events?participant=…`` (server-sent events). Each
change is one event, ``id: {seq}``, data = the class's public state. A client that reconnects with
a ``Last-Event-ID`` older than the current seq gets the current state at once (one event, not a
replay); one that is up to date gets nothing until the next change. 下课 is one ``event: ended``
and the stream closes (so does a class the store lost: ``event: ended`` with ``lost: true``). A
credential has at most STREAMS_PER_PARTICIPANT streams in a process: the next replaces the oldest,
whose last event is ``event: replaced``. Every stream response says ``Connection: close``: a stream
that ends gives its descriptor back at once instead of idling as a keep-alive connection. When the store goes away the stream stays open and says so
(``event: status``); a stream that cannot start (store down, class full) is refused with a
Retry-After the phone waits before trying again."""

from __future__ import annotations

import asyncio
import logging

from fastapi import APIRouter, Query, Request
from sse_starlette.sse import EventSourceResponse, ServerSentEvent

from ..words import words_for
from .context import LiveContext
from .deps import LiveDep, LiveSession, address, network, participant_of
from .hub import ENDED_PREFIX, encode, status_frame
from .limits import (
    MAX_FOLLOWERS,
    MAX_FOLLOWERS_PER_ADDRESS,
    MAX_FOLLOWERS_PER_NETWORK,
    PARTICIPANT_MAX,
    RETRY_MS,
    STREAMS_PER_PARTICIPANT,
)
from .models import errors
from .store import Full, Store, StoreUnavailable

W = words_for(__name__)

log = logging.getLogger("aiinfra.live")
router = APIRouter(tags=[W["router.tags"]])
_background: set[asyncio.Task] = set()

QUESTION_SCHEMA = {
    "type": ["object", "null"],
    "description": W["question_schema.description"],
    "properties": {
        "qid": {"type": "integer"},
        "card": {"type": "string"},
        "key": {"type": "string", "description": W["question_schema.description_2"]},
        "query": {"type": "string"},
        "prompt": {"type": "string"},
        "prompt_html": {"type": "string"},
        "label": {"type": "string"},
        "unit": {"type": "string"},
        "units": {"type": "array", "items": {"type": "string"}},
        "kind": {"type": "string", "enum": ["numeric", "bool", "choice"]},
        "options": {"type": "object", "additionalProperties": {"type": "string"}},
        "status": {"type": "string", "enum": ["open", "closed", "revealed"]},
    },
}
STATE_SCHEMA = {
    "type": "object",
    "description": W["state_schema.description"],
    "required": ["code", "card", "query", "frame", "seq", "locked", "question"],
    "properties": {
        "code": {"type": "string"},
        "card": {"type": "string"},
        "query": {"type": "string"},
        "frame": {"type": ["string", "null"]},
        "seq": {"type": "integer", "description": W["state_schema.description_2"]},
        "locked": {"type": "boolean"},
        "question": QUESTION_SCHEMA,
        "sweep": {
            "type": ["object", "null"],
            "description": W["state_schema.description_3"],
            "properties": {
                "sid": {"type": "integer"},
                "card": {"type": "string"},
                "predict": {"type": "string", "description": W["state_schema.description_4"]},
                "npoints": {"type": "integer"},
                "status": {"type": "string", "enum": ["open", "revealed"]},
            },
        },
    },
}
ENDED_SCHEMA = {
    "type": "object",
    "description": W["ended_schema.description"],
    "required": ["code", "seq", "ended", "summary"],
    "properties": {
        "code": {"type": "string"},
        "seq": {"type": "integer"},
        "ended": {"const": True},
        "summary": {
            "type": "object",
            "properties": {
                "asked": {"type": "integer"},
                "participants": {"type": "integer"},
                "minutes": {"type": "integer"},
                "questions": {"type": "array", "items": {"type": "object"}},
            },
        },
    },
}
REPLACED_SCHEMA = {
    "type": "object",
    "description": W.f("replaced_schema.description", streams_per_participant=STREAMS_PER_PARTICIPANT),
    "required": ["reason", "msg"],
    "properties": {"reason": {"const": "replaced"}, "msg": {"type": "string"}},
}
STATUS_SCHEMA = {
    "type": "object",
    "description": W["status_schema.description"],
    "required": ["ok", "retry_ms"],
    "properties": {"ok": {"type": "boolean"}, "retry_ms": {"type": "integer"}},
}
STREAM_DESCRIPTION = W.f("stream_description", retry_ms=RETRY_MS)
STREAM_DOC = {
    "description": STREAM_DESCRIPTION,
    "content": {
        "text/event-stream": {
            "schema": {"type": "string", "description": W["stream_doc.description"]},
            "example": 'id: 3\r\ndata: {"code":"ABC234","card":"eg-1-1","query":"batch=8","frame":null,'
            '"seq":3,"locked":false,"question":null}\r\n\r\n',
            "x-events": {
                "message": STATE_SCHEMA,
                "ended": ENDED_SCHEMA,
                "replaced": REPLACED_SCHEMA,
                "status": STATUS_SCHEMA,
            },
        }
    },
}


def last_event_id(request: Request) -> int | None:
    raw = request.headers.get("last-event-id", "").strip()
    return int(raw) if raw.isdigit() and len(raw) < 19 else None


@router.get(
    "/api/live/{code}/events",
    response_class=EventSourceResponse,
    responses={200: STREAM_DOC, **errors(403, 404, 410, 422, 429, 503)},
    summary=W["api_live_code_events.summary"],
    description=W.f(
        "api_live_code_events.description",
        max_followers=MAX_FOLLOWERS,
        max_followers_per_address=MAX_FOLLOWERS_PER_ADDRESS,
        max_followers_per_network=MAX_FOLLOWERS_PER_NETWORK,
        streams_per_participant=STREAMS_PER_PARTICIPANT,
    ),
)
async def events(
    request: Request,
    s: LiveSession,
    live: LiveDep,
    participant: str | None = Query(None, max_length=PARTICIPANT_MAX, description=W["module.description"]),
) -> EventSourceResponse:
    keys = await live.keys()
    p = participant_of(keys, s, participant)
    store = live.store
    await live.hub.ensure_started(store, live.keepalive_s)
    where = address(request)
    addr, net = keys.address(where), keys.address(network(request))
    from .api import full_class

    try:
        live.hub.admit(s.code, p.pid, addr, net)  # this process's streams (descriptors), before the store
        await store.connect(s.code, p.pid, addr, net)
    except Full as e:
        raise full_class(e.args[0] if e.args else "followers") from None
    return EventSourceResponse(
        _stream(live, s.code, p.pid, addr, net, last_event_id(request)),
        ping=live.keepalive_s,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no", "Connection": "close"},
    )


async def _stream(live: LiveContext, code: str, participant: str, where: str, net: str, last: int | None):
    """Subscribe first, then read the state: a change in between arrives through the queue."""
    store = live.store
    conn = live.hub.subscribe(code, participant, where, net)
    try:
        try:
            cur = await store.get(code)
        except StoreUnavailable:  # went away between the connect and now: say so, keep waiting
            cur = None
            yield status_frame(False)
        sent = last if last is not None else -1
        if cur is not None and cur.seq != last:
            sent = cur.seq
            ev = cur.event()
            yield ServerSentEvent(
                data=encode(ev), id=str(cur.seq), retry=RETRY_MS, event="ended" if cur.ended else None
            )
            if cur.ended:
                return
        while True:
            seq, wire = await conn.queue.get()
            if seq is not None:
                if seq <= sent:
                    continue
                sent = seq
            yield wire
            if wire.startswith(ENDED_PREFIX):
                return  # 下课 (or the class lost, or this stream replaced): the last event
    finally:
        if live.hub.unsubscribe(conn) == 0:  # the participant's last connection here: no longer a follower
            task = asyncio.get_running_loop().create_task(_leave(store, code, participant, where, net))
            _background.add(task)
            task.add_done_callback(_background.discard)


async def _leave(store: Store, code: str, participant: str, where: str, net: str) -> None:
    try:
        await store.leave(code, participant, where, net)
    except StoreUnavailable as e:  # presence expires on its own (PRESENCE_TTL_S)
        log.debug("leave %s: %s", code, e)
