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

log = logging.getLogger("aiinfra.live")
router = APIRouter(tags=["课堂"])
_background: set[asyncio.Task] = set()

QUESTION_SCHEMA = {
    "type": ["object", "null"],
    "description": "当前题目(公开视图:没有真值,也没有任何人的答案)",
    "properties": {
        "qid": {"type": "integer"},
        "card": {"type": "string"},
        "key": {"type": "string", "description": "所问的输出键;未公布前,卡片里这个输出没有数值"},
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
    "description": "message 事件(默认类型)的 data:课堂公开状态",
    "required": ["code", "card", "query", "frame", "seq", "locked", "question"],
    "properties": {
        "code": {"type": "string"},
        "card": {"type": "string"},
        "query": {"type": "string"},
        "frame": {"type": ["string", "null"]},
        "seq": {"type": "integer", "description": "与事件 id 相同"},
        "locked": {"type": "boolean"},
        "question": QUESTION_SCHEMA,
        "sweep": {
            "type": ["object", "null"],
            "description": "当前扫参(公开视图:改变哪些参数、预测哪个输出、点数与状态;没有任何点的数值)",
            "properties": {
                "sid": {"type": "integer"},
                "card": {"type": "string"},
                "predict": {"type": "string", "description": "学生预测的输出键;公布前,卡片里这个输出没有数值"},
                "npoints": {"type": "integer"},
                "status": {"type": "string", "enum": ["open", "revealed"]},
            },
        },
    },
}
ENDED_SCHEMA = {
    "type": "object",
    "description": "ended 事件的 data:下课时的状态与小结;之后流关闭,课堂答 410",
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
    "description": f"replaced 事件的 data:同一参与凭证最多同时连 {STREAMS_PER_PARTICIPANT} 条流,"
    "更新的一条取代了这条;之后流关闭(不要重连)",
    "required": ["reason", "msg"],
    "properties": {"reason": {"const": "replaced"}, "msg": {"type": "string"}},
}
STATUS_SCHEMA = {
    "type": "object",
    "description": "status 事件的 data:课堂服务暂时不可用(ok=false,流保持,稍后自动恢复)或已恢复(ok=true)",
    "required": ["ok", "retry_ms"],
    "properties": {"ok": {"type": "boolean"}, "retry_ms": {"type": "integer"}},
}
STREAM_DESCRIPTION = (
    "text/event-stream。事件类型:\n"
    "- message(无 event: 行):id = seq,data = 课堂公开状态(JSON,见 x-events.message);\n"
    "- ended:下课,data = 小结(见 x-events.ended),随后流关闭;课堂数据丢失时 data 带 lost: true;\n"
    "- replaced:这条流被同一凭证更新的流取代(见 x-events.replaced),随后流关闭;\n"
    "- status:课堂服务不可用或恢复(见 x-events.status);\n"
    f"- 以冒号开头的注释行:保活(默认每 15 秒,AIINFRA_LIVE_KEEPALIVE_S)。首个事件带 retry: {RETRY_MS}(毫秒)。"
)
STREAM_DOC = {
    "description": STREAM_DESCRIPTION,
    "content": {
        "text/event-stream": {
            "schema": {"type": "string", "description": "SSE 事件流(UTF-8,CRLF 分行,空行分隔事件)"},
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
    summary="学生端事件流(text/event-stream;Last-Event-ID 续传;凭参与凭证)",
    description=f"在线人数只数连着此流的参与者:每课堂最多 {MAX_FOLLOWERS:,} 人,同一网络地址最多 "
    f"{MAX_FOLLOWERS_PER_ADDRESS:,} 人,同一网段(IPv4 /24、IPv6 /48)最多 {MAX_FOLLOWERS_PER_NETWORK:,} 人;"
    f"同一参与凭证最多同时 {STREAMS_PER_PARTICIPANT} 条流(新的取代最旧的);超出时 503 / 429,并带 Retry-After。",
)
async def events(
    request: Request,
    s: LiveSession,
    live: LiveDep,
    participant: str | None = Query(None, max_length=PARTICIPANT_MAX, description="加入课堂时得到的参与凭证"),
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
