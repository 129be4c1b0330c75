"""Fan-out inside one app: ONE source of events (the SQLite store's writes, or the Redis subscriber
task) wakes a small queue per SSE connection. Each event is serialised once. Each app has its own hub
(``app.state.live.hub``); a server process runs one app, so that is one hub per process.

The hub also bounds the streams of its process (app/live/limits.py): STREAMS_PER_PARTICIPANT per
credential (the newest replaces the oldest, which receives ``event: replaced`` and closes),
STREAMS_PER_ADDRESS per address, STREAMS_PER_NETWORK per /24 or /48, and ``max_streams`` in all,
below the process's file-descriptor budget (:func:`stream_budget`, from RLIMIT_NOFILE at start)."""

from __future__ import annotations

import asyncio
import json
import logging
import resource
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ..words import words_for
from .limits import (
    FD_RESERVE,
    FD_WANTED,
    MIN_STREAMS,
    QUEUE_DEPTH,
    RETRY_MS,
    STREAMS_PER_ADDRESS,
    STREAMS_PER_NETWORK,
    STREAMS_PER_PARTICIPANT,
)
from .store import Full, Store

W = words_for(__name__)

log = logging.getLogger("aiinfra.live")


def stream_budget() -> int:
    """How many event streams this process may hold: its soft RLIMIT_NOFILE (raised first towards
    FD_WANTED, never above the hard limit) less FD_RESERVE descriptors for everything else, and at
    least MIN_STREAMS. Under ``ulimit -n 1024`` that is 640: one client can no longer take every
    descriptor, so pages, joins and other streams still get theirs."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = FD_WANTED if hard == resource.RLIM_INFINITY else min(FD_WANTED, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError) as e:  # a container may forbid it: keep the soft limit
            log.info("RLIMIT_NOFILE stays %s: %s", soft, e)
    if soft == resource.RLIM_INFINITY:
        soft = FD_WANTED
    return max(MIN_STREAMS, soft - FD_RESERVE)


@dataclass(eq=False)
class Conn:
    """One follower connection: its class, participant, address, network and pending
    ``(seq, wire bytes)`` (seq None: a status line that is always sent)."""

    code: str
    participant: str
    address: str
    network: str = ""
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(QUEUE_DEPTH))
    active: bool = True  # False once it is unsubscribed or replaced (its counts are given back once)


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


REPLACED = "event: replaced\r\ndata: {}\r\n\r\n"
ENDED_PREFIX = (b"event: ended", b"event: replaced")  # a stream closes after either


def replaced_frame() -> bytes:
    """The last event of a stream its credential opened again elsewhere (STREAMS_PER_PARTICIPANT)."""
    why = W.f("replaced_frame", streams_per_participant=STREAMS_PER_PARTICIPANT)
    return REPLACED.format(encode({"reason": "replaced", "msg": why})).encode()


def lost_frame(code: str) -> bytes:
    """``event: ended`` for a class the store no longer has (Redis restarted without it): the phone
    shows the class as over instead of a stream that says ok and never moves again."""
    body = encode({"code": code, "seq": 0, "ended": True, "lost": True, "summary": None})
    return f"event: ended\r\ndata: {body}\r\n\r\n".encode()


class Hub:
    def __init__(self, max_streams: int | None = None) -> None:
        self.conns: dict[str, set[Conn]] = defaultdict(set)
        self.present: dict[str, Counter] = defaultdict(Counter)  # code → (participant, address, net) → connections
        self.by_participant: dict[tuple[str, str], list[Conn]] = {}  # (code, participant) → oldest first
        self.per_address: Counter = Counter()
        self.per_network: Counter = Counter()
        self.open_streams = 0
        self.max_streams = stream_budget() if max_streams is None else max_streams
        self.store_ok = True
        self._loops: set[int] = set()
        self._tasks: list[asyncio.Task] = []

    def admit(self, code: str, participant: str, address: str, network: str) -> None:
        """Raise Full("streams" | "stream_address" | "stream_network") when one more stream of this
        participant would pass a limit of this process. A participant at STREAMS_PER_PARTICIPANT is
        always admitted: its new stream replaces its oldest (no count grows)."""
        if len(self.by_participant.get((code, participant), ())) >= STREAMS_PER_PARTICIPANT:
            return
        if self.open_streams >= self.max_streams:
            raise Full("streams")
        if self.per_address[address] >= STREAMS_PER_ADDRESS:
            raise Full("stream_address")
        if self.per_network[network or address] >= STREAMS_PER_NETWORK:
            raise Full("stream_network")

    def subscribe(self, code: str, participant: str, address: str, network: str = "") -> Conn:
        """A new stream; past STREAMS_PER_PARTICIPANT the participant's oldest stream is told it was
        replaced (its last event) and stops counting at once."""
        mine = self.by_participant.setdefault((code, participant), [])
        while len(mine) >= STREAMS_PER_PARTICIPANT:
            old = mine[0]
            self._drop(old)
            self._force(old, (None, replaced_frame()))
        conn = Conn(code, participant, address, network or address)
        mine.append(conn)
        self.conns[code].add(conn)
        self.present[code][(participant, address, conn.network)] += 1
        self.per_address[address] += 1
        self.per_network[conn.network] += 1
        self.open_streams += 1
        return conn

    def _drop(self, conn: Conn) -> None:
        """Give back ``conn``'s counts (once)."""
        if not conn.active:
            return
        conn.active = False
        self.open_streams -= 1
        for counter, k in ((self.per_address, conn.address), (self.per_network, conn.network)):
            counter[k] -= 1
            if counter[k] <= 0:
                del counter[k]
        mine = self.by_participant.get((conn.code, conn.participant), [])
        if conn in mine:
            mine.remove(conn)
        if not mine:
            self.by_participant.pop((conn.code, conn.participant), None)
        conns = self.conns.get(conn.code)
        if conns is not None:
            conns.discard(conn)
        who = (conn.participant, conn.address, conn.network)
        present = self.present.get(conn.code)
        if present is not None:
            present[who] -= 1
            if present[who] <= 0:
                del present[who]
        if conns is not None and not conns:
            del self.conns[conn.code]
            self.present.pop(conn.code, None)

    def unsubscribe(self, conn: Conn) -> int:
        """Forget ``conn``; how many connections its participant still has on this hub."""
        self._drop(conn)
        return len(self.by_participant.get((conn.code, conn.participant), ()))

    def lost(self, code: str) -> None:
        """The store no longer has class ``code``: every local stream of it gets ``event: ended``."""
        for c in list(self.conns.get(code, ())):
            self._force(c, (None, lost_frame(code)))

    def _force(self, c: Conn, item: tuple[int | None, bytes]) -> None:
        """``item`` as the only thing left in ``c``'s queue (a last event, never dropped)."""
        while not c.queue.empty():
            c.queue.get_nowait()
        c.queue.put_nowait(item)

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

    def codes(self) -> list[str]:
        """The classes with a stream on this hub."""
        return list(self.conns)

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
