"""Fan-out inside one process: ONE source of events per process (the SQLite store's writes, or the
Redis subscriber task) wakes a small queue per SSE connection. Each event is serialised once."""

from __future__ import annotations

import asyncio
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .limits import QUEUE_DEPTH
from .store import keepalive_s


@dataclass(eq=False)
class Conn:
    """One follower connection: its session, device and pending events ``(seq, wire bytes)``."""

    code: str
    device: str
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(QUEUE_DEPTH))


def encode(event: dict) -> str:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def frame(event: dict) -> bytes:
    """The event as it goes on the wire (``id: {seq}`` + JSON data), built once for every
    connection of this process."""
    return f"id: {event['seq']}\r\ndata: {encode(event)}\r\n\r\n".encode()


class Hub:
    def __init__(self) -> None:
        self.conns: dict[str, set[Conn]] = defaultdict(set)
        self.devices: dict[str, Counter] = defaultdict(Counter)
        self._loops: set[int] = set()
        self._tasks: list[asyncio.Task] = []

    def subscribe(self, code: str, device: str) -> Conn:
        conn = Conn(code, device)
        self.conns[code].add(conn)
        self.devices[code][device] += 1
        return conn

    def unsubscribe(self, conn: Conn) -> int:
        """Forget ``conn``; how many connections its device still has in this process."""
        self.conns[conn.code].discard(conn)
        left = self.devices[conn.code][conn.device] = self.devices[conn.code][conn.device] - 1
        if left <= 0:
            del self.devices[conn.code][conn.device]
        if not self.conns[conn.code]:
            del self.conns[conn.code]
            self.devices.pop(conn.code, None)
        return max(left, 0)

    def deliver(self, event: dict) -> None:
        """Queue ``event`` for every local connection of its session. A connection too slow to
        keep QUEUE_DEPTH events is reset to just the latest (it sees a newer full state, not a gap
        it cannot recover from)."""
        conns = self.conns.get(event["code"])
        if not conns:
            return
        item = (event["seq"], frame(event))
        for c in conns:
            try:
                c.queue.put_nowait(item)
            except asyncio.QueueFull:
                while not c.queue.empty():
                    c.queue.get_nowait()
                c.queue.put_nowait(item)

    async def ensure_started(self, store) -> None:
        """Start, once per event loop, the store's subscriber and the presence heartbeat."""
        loop = asyncio.get_running_loop()
        if id(loop) in self._loops:
            return
        self._loops.add(id(loop))
        await store.start(self)
        self._tasks.append(loop.create_task(self._heartbeat(store)))

    async def _heartbeat(self, store) -> None:
        while True:
            await asyncio.sleep(keepalive_s())
            for code, devs in list(self.devices.items()):
                try:
                    await store.refresh(code, list(devs))
                except Exception:  # the store is briefly away: the next beat tries again
                    pass


HUB = Hub()
