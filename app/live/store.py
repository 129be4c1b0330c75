"""The live-class storage interface and the one store of this process.

Two implementations: SQLite (embedded default, one process; ``Settings.live_db`` sets the file) and
Redis (``Settings.redis_url``: the store of record *and* the fan-out across workers and instances).
Every change bumps the session's ``seq`` and is published as one event (the session's public state)
to the process hub, which wakes the SSE connections of that session.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal

from ..settings import Settings, from_environment

AnswerOutcome = Literal["ok", "closed", "missing"]


class Full(Exception):
    """A limit is reached (sessions per instance, followers per session)."""


@dataclass
class Session:
    code: str
    token_hash: str
    card: str
    query: str
    frame: str | None
    seq: int
    locked: bool
    question: dict | None  # public view of the current question (see public_question)
    created: float
    touched: float

    def event(self) -> dict[str, Any]:
        """What every follower receives on each change (never the token, never answers)."""
        return {
            "code": self.code,
            "card": self.card,
            "query": self.query,
            "frame": self.frame,
            "seq": self.seq,
            "locked": self.locked,
            "question": self.question,
        }


def public_question(rec: dict) -> dict:
    """A question as followers see it: no expected value, no answers."""
    keys = ("qid", "card", "key", "query", "prompt", "prompt_html", "unit", "kind", "options", "status", "label")
    out = {k: rec.get(k) for k in keys}
    out["units"] = [rec["unit"], *rec.get("units", {})] if rec.get("units") else []
    return out


class Store(ABC):
    """What the routes need from live-class state. All methods are coroutines; a change returns the
    session after it (with its new seq) or None when the session does not exist."""

    @abstractmethod
    async def create(self, code: str, token_hash: str, card: str, query: str) -> Session | None:
        """A new session; None when ``code`` is taken. Raises Full past MAX_SESSIONS."""

    @abstractmethod
    async def get(self, code: str) -> Session | None: ...

    @abstractmethod
    async def change(self, code: str, **fields: Any) -> Session | None:
        """Set any of card, query, frame, locked; bump seq; publish."""

    @abstractmethod
    async def ask(self, code: str, rec: dict) -> Session | None:
        """Store question ``rec`` (its ``qid`` assigned here), close any open one, make it current."""

    @abstractmethod
    async def set_status(self, code: str, qid: int, status: str) -> Session | None:
        """closed / revealed; publishes when it is the current question."""

    @abstractmethod
    async def question(self, code: str, qid: int) -> dict | None: ...

    @abstractmethod
    async def answer(self, code: str, qid: int, device: str, ans: dict) -> AnswerOutcome:
        """One answer per device (the latest replaces), only while the question is open."""

    @abstractmethod
    async def answers(self, code: str, qid: int) -> dict[str, dict]: ...

    @abstractmethod
    async def count_answers(self, code: str, qid: int) -> int: ...

    @abstractmethod
    async def add_snapshot(self, code: str, snap: dict) -> int: ...

    @abstractmethod
    async def snapshots(self, code: str) -> list[dict]: ...

    @abstractmethod
    async def join(self, code: str, device: str) -> int | None:
        """Count ``device`` as a follower; the follower count, or None when the session is full."""

    @abstractmethod
    async def leave(self, code: str, device: str) -> None: ...

    @abstractmethod
    async def refresh(self, code: str, devices: list[str]) -> None:
        """Devices with a connection in this process are still here."""

    @abstractmethod
    async def followers(self, code: str) -> int: ...

    @abstractmethod
    async def allow(self, bucket: str, limit: int, window_s: int) -> bool:
        """Fixed-window rate limit: False once ``bucket`` was hit ``limit`` times in this window."""

    @abstractmethod
    async def purge(self) -> int:
        """Drop sessions idle longer than IDLE_TTL_S; how many went."""

    async def start(self, hub) -> None:  # noqa: B027  (a hook: most stores deliver in-process)
        """Begin delivering published events to ``hub`` (Redis: the one subscriber task)."""

    async def current_seq(self, code: str) -> int | None:
        s = await self.get(code)
        return s.seq if s else None


_store: Store | None = None
_settings: Settings | None = None


def configure(settings: Settings) -> None:
    """Choose the store from ``settings`` (``create_app`` calls this; nothing opens until first use)."""
    global _store, _settings
    if settings != _settings:
        _settings, _store = settings, None


def get_store() -> Store:
    """The process's store, chosen once from the settings (nothing is opened until first use)."""
    global _store
    if _store is None:
        from .hub import HUB

        s = _settings or from_environment()
        if s.redis_url:
            from .redis_store import RedisStore

            _store = RedisStore(s.redis_url)
        else:
            from .sqlite_store import SQLiteStore

            _store = SQLiteStore(s.live_db, HUB.deliver)
    return _store


def keepalive_s() -> float:
    """Seconds between keep-alive comments on the event streams (and presence beats)."""
    return (_settings or from_environment()).live_keepalive_s


def set_store(store: Store | None) -> None:
    """Tests swap in a fresh store (or None to choose again from the environment)."""
    global _store
    _store = store
