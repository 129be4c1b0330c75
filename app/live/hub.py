"""Fan-out inside one app: ONE source of events (the SQLite store's writes, or the Redis subscriber
task) wakes a small queue per SSE connection. Each event is serialised once. Each app has its own hub
(``app.state.live.hub``); a server process runs one app, so that is one hub per process."""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .limits import QUEUE_DEPTH, RETRY_MS
from .store import Store

log = logging.getLogger("aiinfra.live")


@dataclass(eq=False)
class Conn:
    """One follower connection: its class, participant, address and pending ``(seq, wire bytes)``
    (seq None: a status line that is always sent)."""

    code: str
    participant: str
    address: str
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(QUEUE_DEPTH))


def encode(event: dict) -> str:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def frame(event: dict) -> bytes:
    """The event as it goes on the wire (``id: {seq}`` + JSON data; ``event: ended`` for 下课), built
    once for every connection of this process."""
    kind = "event: ended\r\n" if event.get("ended") else ""
    return f"{kind}id: {event['seq']}\r\ndata: {encode(event)}\r\n\r\n".encode()


def status_frame(ok: bool) -> bytes:
    """``event: status``: the store went away (the phone says so and keeps its stream) or is back."""
    body = encode({"ok": ok, "retry_ms": RETRY_MS})
    return f"event: status\r\ndata: {body}\r\n\r\n".encode()


class Hub:
    def __init__(self) -> None:
        self.conns: dict[str, set[Conn]] = defaultdict(set)
        self.present: dict[str, Counter] = defaultdict(Counter)  # code → (participant, address) → connections
        self.store_ok = True
        self._loops: set[int] = set()
        self._tasks: list[asyncio.Task] = []

    def subscribe(self, code: str, participant: str, address: str) -> Conn:
        conn = Conn(code, participant, address)
        self.conns[code].add(conn)
        self.present[code][(participant, address)] += 1
        return conn

    def unsubscribe(self, conn: Conn) -> int:
        """Forget ``conn``; how many connections its participant still has on this hub."""
        self.conns[conn.code].discard(conn)
        who = (conn.participant, conn.address)
        left = self.present[conn.code][who] = self.present[conn.code][who] - 1
        if left <= 0:
            del self.present[conn.code][who]
        if not self.conns[conn.code]:
            del self.conns[conn.code]
            self.present.pop(conn.code, None)
        return max(left, 0)

    def _put(self, c: Conn, item: tuple[int | None, bytes]) -> None:
        try:
            c.queue.put_nowait(item)
        except asyncio.QueueFull:  # too slow for QUEUE_DEPTH events: reset to just the latest
            while not c.queue.empty():
                c.queue.get_nowait()
            c.queue.put_nowait(item)

    def deliver(self, event: dict) -> None:
        """Queue ``event`` for every local connection of its class. A connection too slow to
        keep QUEUE_DEPTH events is reset to just the latest (it sees a newer full state, not a gap
        it cannot recover from)."""
        conns = self.conns.get(event["code"])
        if not conns:
            return
        item = (event["seq"], frame(event))
        for c in conns:
            self._put(c, item)

    def store_status(self, ok: bool) -> None:
        """Tell every stream on this hub when the store goes away or comes back (once each)."""
        if ok == self.store_ok:
            return
        self.store_ok = ok
        item = (None, status_frame(ok))
        for conns in self.conns.values():
            for c in conns:
                self._put(c, item)

    async def ensure_started(self, store: Store, keepalive_s: float) -> None:
        """Start, once per event loop, ``store``'s subscriber and the presence heartbeat, which tells
        ``store`` every ``keepalive_s`` seconds who still has a stream here (the app hands both in)."""
        loop = asyncio.get_running_loop()
        if id(loop) in self._loops:
            return
        self._loops.add(id(loop))
        await store.start(self)
        self._tasks.append(loop.create_task(self._heartbeat(store, keepalive_s)))

    async def _heartbeat(self, store: Store, keepalive_s: float) -> None:
        while True:
            await asyncio.sleep(keepalive_s)
            for code, who in list(self.present.items()):
                try:
                    await store.refresh(code, list(who))
                except Exception as e:  # the store is briefly away: the next beat tries again
                    log.debug("presence beat for %s: %s", code, e)
