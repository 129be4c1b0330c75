"""The live-class storage interface.

Two implementations: SQLite (embedded default, one process; ``Settings.live_db`` sets the file) and
Redis (``Settings.redis_url``: the store of record *and* the fan-out across workers and instances).
Every change bumps the class's ``seq`` and is published as one event (the class's public state) to
the app's hub, which wakes the SSE connections of that class; each app chooses its own store from
its own settings (``app/live/context.py``). A store that cannot answer (Redis down or hung, SQLite
locked) raises :class:`StoreUnavailable` within ``STORE_TIMEOUT_S``: the routes answer 503 with the
app's error body (``app/live/errors.py``), never a 500.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal

from ..words import current_lang

AnswerOutcome = Literal["ok", "closed", "missing"]


class Full(Exception):
    """A limit is reached; ``args[0]`` names it: sessions, owner, network (classes), followers, address,
    network (followers); ``args[1]``, where given, is the seconds until a class slot frees."""


class StoreUnavailable(Exception):
    """The store did not answer in time or refused the connection (503, retry shortly)."""


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
    touched: float  # the instructor's last action: idle expiry counts from here
    owner: str = ""  # the hashed address that started the class (open classes per address)
    ended: float | None = None  # 下课: the class answers 410 from then on
    summary: dict | None = None  # what followers see once it ended
    sweep: dict | None = None  # public view of the current sweep (see public_sweep)

    def event(self) -> dict[str, Any]:
        """What every follower receives on each change (never the token, never answers, never the
        asked output's value)."""
        out: dict[str, Any] = {
            "code": self.code,
            "card": self.card,
            "query": self.query,
            "frame": self.frame,
            "seq": self.seq,
            "locked": self.locked,
            "question": self.question,
            "sweep": self.sweep,
        }
        if self.ended is not None:
            out["ended"] = True
            out["summary"] = self.summary
        return out


PUBLIC_KEYS = (
    "qid",
    "card",
    "key",
    "query",
    "prompt",
    "prompt_html",
    "unit",
    "kind",
    "options",
    "status",
    "label",
    "words",
)


def in_edition(value: Any, lang: str | None = None) -> Any:
    """``value`` with the words of edition ``lang`` (the one being served by default) in place: every
    dict that carries ``words`` (``{"zh": {...}, "en": {...}}``: a question, a snapshot, a summary's
    question) gets that edition's entries over its own. The SSE events carry every edition's words and
    each phone picks its own; a page or an API answer (``lang=en``) is given its edition's here."""
    lang = lang or current_lang()
    if isinstance(value, list):
        return [in_edition(v, lang) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: in_edition(v, lang) if k != "words" else v for k, v in value.items()}
    words = value.get("words")
    if isinstance(words, dict) and isinstance(words.get(lang), dict):
        out.update(words[lang])
    return out


def slip_text(rec: dict, slip: str | None, text: str | None) -> str | None:
    """The name of slip ``slip`` of question ``rec`` in the edition being served (``text``, as the
    answer recorded it, where the question has no such word)."""
    if not slip:
        return text
    return rec.get("slip_words", {}).get(current_lang(), {}).get(slip, text)


def public_question(rec: dict) -> dict:
    """A question as followers see it: no expected value, no answers, no axis (which would say
    where the true value lies)."""
    out = {k: rec.get(k) for k in PUBLIC_KEYS}
    out["units"] = [rec["unit"], *rec.get("units", {})] if rec.get("units") else []
    return out


SWEEP_PUBLIC_KEYS = ("sid", "card", "query", "vary", "predict", "label", "unit", "npoints", "status", "words")


def public_sweep(rec: dict) -> dict:
    """A sweep as followers see it: what is varied and what to predict, never a point's value
    (no x, y, truth or frontier until 公布, and those only through the results route)."""
    return {k: rec.get(k) for k in SWEEP_PUBLIC_KEYS}


class Store(ABC):
    """What the routes need from live-class state. All methods are coroutines; a change returns the
    class after it (with its new seq) or None when the class does not exist or has ended."""

    @abstractmethod
    async def create(
        self, code: str, token_hash: str, card: str, query: str, owner: str, network: str = ""
    ) -> Session | None:
        """A new class; None when ``code`` is taken. Counts the classes that hold a slot (touched by
        their instructor within SLOT_IDLE_S, or followed): Full("sessions", s) past MAX_SESSIONS,
        Full("owner", s) past MAX_CLASSES_PER_ADDRESS of the hashed address ``owner``, Full("network", s)
        past MAX_CLASSES_PER_NETWORK of its hashed /24 or /48 ``network`` (blank: the owner); ``s`` is
        the seconds until one of those slots frees."""

    @abstractmethod
    async def get(self, code: str) -> Session | None:
        """The class (an ended one too, until ENDED_KEEP_S), or None."""

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
    async def end(self, code: str, summary: dict) -> Session | None:
        """下课: the class is ended (its slot freed, its owner's count down), followers get one last
        event with ``summary``; it answers 410 until ENDED_KEEP_S, then is gone."""

    @abstractmethod
    async def question(self, code: str, qid: int) -> dict | None: ...

    @abstractmethod
    async def questions(self, code: str) -> list[dict]:
        """Every question of the class, in order (full records: the instructor's export)."""

    @abstractmethod
    async def answer(self, code: str, qid: int, participant: str, ans: dict) -> AnswerOutcome:
        """One answer per participant (the latest replaces), only while the question is open."""

    @abstractmethod
    async def answers(self, code: str, qid: int) -> dict[str, dict]: ...

    @abstractmethod
    async def count_answers(self, code: str, qid: int) -> int: ...

    @abstractmethod
    async def add_sweep(self, code: str, rec: dict) -> Session | None:
        """Store sweep ``rec`` (its ``sid`` assigned here, status open), make it the class's current
        sweep, bump and publish."""

    @abstractmethod
    async def sweep(self, code: str, sid: int) -> dict | None:
        """The full record (points with their values) and its status, or None."""

    @abstractmethod
    async def sweep_status(self, code: str, sid: int, status: str) -> Session | None:
        """revealed; publishes when it is the current sweep."""

    @abstractmethod
    async def assign(self, code: str, sid: int, participant: str, npoints: int) -> int | None:
        """The point ``participant`` owns: the one given before, else (atomically, across workers)
        the next by :func:`app.live.sweeps.owned` of how many were assigned before. None: no sweep."""

    @abstractmethod
    async def predict(self, code: str, sid: int, participant: str, pred: dict) -> AnswerOutcome:
        """One prediction per participant (the latest replaces), only until 公布."""

    @abstractmethod
    async def predictions(self, code: str, sid: int) -> dict[str, dict]: ...

    @abstractmethod
    async def count_predictions(self, code: str, sid: int) -> int: ...

    @abstractmethod
    async def add_snapshot(self, code: str, snap: dict) -> int: ...

    @abstractmethod
    async def snapshots(self, code: str) -> list[dict]: ...

    @abstractmethod
    async def connect(self, code: str, participant: str, address: str, network: str = "") -> int:
        """``participant`` has an open stream: the count of connected followers. Raises
        Full("followers") at MAX_FOLLOWERS, Full("address") at MAX_FOLLOWERS_PER_ADDRESS and
        Full("network") at MAX_FOLLOWERS_PER_NETWORK (``network`` blank: the address); someone already
        connected always comes back."""

    @abstractmethod
    async def leave(self, code: str, participant: str, address: str, network: str = "") -> None: ...

    @abstractmethod
    async def refresh(self, code: str, present: list[tuple[str, str, str]]) -> None:
        """(participant, address, network) triples with a stream in this process are still here."""

    @abstractmethod
    async def followers(self, code: str) -> int: ...

    @abstractmethod
    async def allow(self, bucket: str, limit: int, window_s: int) -> bool:
        """Fixed-window rate limit: False once ``bucket`` was hit ``limit`` times in this window."""

    @abstractmethod
    async def pending(self, card: str) -> list[dict]:
        """The current, not yet revealed questions of open classes on ``card`` (public views)."""

    @abstractmethod
    async def secret(self) -> bytes:
        """This deployment's signing key when none is configured: made once, kept in the store
        (so every worker, instance and restart shares it)."""

    @abstractmethod
    async def purge(self) -> int:
        """Drop classes idle longer than IDLE_TTL_S and ended ones past ENDED_KEEP_S; how many went."""

    async def start(self, hub) -> None:  # noqa: B027  (a hook: most stores deliver in-process)
        """Begin delivering published events to ``hub`` (Redis: the one subscriber task)."""

    async def close(self) -> None:  # noqa: B027
        """Release connections (tests, shutdown)."""
