"""The embedded store: one SQLite file (stdlib ``sqlite3``), created on the first live write, so a
server that never ran a class writes nothing. One process only (followers and rate limits are
counted in memory); a multi-worker start without Redis is refused (deploy/gunicorn.conf.py).
A locked or unreadable file raises StoreUnavailable (503), never a 500."""

from __future__ import annotations

import functools
import json
import math
import secrets
import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, overload

from .limits import (
    ENDED_KEEP_S,
    IDLE_TTL_S,
    MAX_CLASSES_PER_ADDRESS,
    MAX_CLASSES_PER_NETWORK,
    MAX_FOLLOWERS,
    MAX_FOLLOWERS_PER_ADDRESS,
    MAX_FOLLOWERS_PER_NETWORK,
    MAX_SESSIONS,
    MAX_SNAPSHOTS,
    PRESENCE_TTL_S,
    SLOT_IDLE_S,
    STORE_TIMEOUT_S,
)
from .store import AnswerOutcome, Full, Session, Store, StoreUnavailable, public_question, public_sweep
from .sweeps import owned

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions(code TEXT PRIMARY KEY, token_hash TEXT NOT NULL, card TEXT NOT NULL,
  query TEXT NOT NULL, frame TEXT, seq INTEGER NOT NULL, locked INTEGER NOT NULL, question TEXT,
  nq INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL, touched REAL NOT NULL,
  owner TEXT NOT NULL DEFAULT '', ended REAL, summary TEXT);
CREATE TABLE IF NOT EXISTS questions(code TEXT, qid INTEGER, rec TEXT NOT NULL, PRIMARY KEY(code, qid));
CREATE TABLE IF NOT EXISTS answers(code TEXT, qid INTEGER, participant TEXT, ans TEXT NOT NULL,
  PRIMARY KEY(code, qid, participant));
CREATE TABLE IF NOT EXISTS snapshots(sid INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT NOT NULL, snap TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS snapshots_code ON snapshots(code, sid);
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sweeps(code TEXT, sid INTEGER, rec TEXT NOT NULL, PRIMARY KEY(code, sid));
CREATE TABLE IF NOT EXISTS sweep_owners(code TEXT, sid INTEGER, participant TEXT, idx INTEGER NOT NULL,
  PRIMARY KEY(code, sid, participant));
CREATE TABLE IF NOT EXISTS predictions(code TEXT, sid INTEGER, participant TEXT, pred TEXT NOT NULL,
  PRIMARY KEY(code, sid, participant));
"""
# columns added since the first schema: an older file gains them on open (nothing in it is lost)
ADDED = {
    "owner": "TEXT NOT NULL DEFAULT ''",
    "ended": "REAL",
    "summary": "TEXT",
    "nsw": "INTEGER NOT NULL DEFAULT 0",
    "sweep": "TEXT",
    "network": "TEXT NOT NULL DEFAULT ''",
}
# a file written before the participant credentials named their column ``device``: renamed on open
RENAMED = {table: ("device", "participant") for table in ("answers", "sweep_owners", "predictions")}
COLS = "code, token_hash, card, query, frame, seq, locked, question, created, touched, owner, ended, summary, sweep"
TABLES = ("answers", "questions", "snapshots", "sweeps", "sweep_owners", "predictions", "sessions")


def _guarded(fn):
    """sqlite3 errors (a locked or unreadable file) become StoreUnavailable: 503, not 500."""

    @functools.wraps(fn)
    async def wrapper(*args, **kwargs):
        try:
            return await fn(*args, **kwargs)
        except sqlite3.OperationalError as e:
            raise StoreUnavailable(f"sqlite: {e}") from e

    return wrapper


class SQLiteStore(Store):
    def __init__(self, path: Path, publish: Callable[[dict], None]):
        self.path, self.publish = Path(path), publish
        self._db: sqlite3.Connection | None = None
        self._presence: dict[str, dict[str, tuple[float, str, str]]] = defaultdict(dict)
        self._hits: dict[tuple[str, int], int] = {}
        self._secret: bytes | None = None

    # ------------------------------------------------------------------ connection
    @overload
    def _conn(self, create: Literal[True]) -> sqlite3.Connection: ...
    @overload
    def _conn(self, create: bool) -> sqlite3.Connection | None: ...

    def _conn(self, create: bool) -> sqlite3.Connection | None:
        """The connection; the file is created only by a write (``create``)."""
        if self._db is None:
            if not create and not self.path.exists():
                return None
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=STORE_TIMEOUT_S)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            for table, (old, new) in RENAMED.items():
                if old in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
                    db.execute(f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")
            db.executescript(SCHEMA)
            have = {row[1] for row in db.execute("PRAGMA table_info(sessions)")}
            for col, decl in ADDED.items():
                if col not in have:
                    db.execute(f"ALTER TABLE sessions ADD COLUMN {col} {decl}")
            self._db = db
        return self._db

    def _write(self, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        db = self._conn(create=True)
        db.execute("BEGIN IMMEDIATE")
        try:
            out = fn(db)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return out

    @staticmethod
    def _session(row) -> Session | None:
        if row is None:
            return None
        code, th, card, query, frame, seq, locked, q, created, touched, owner, ended, summary, sweep = row
        return Session(
            code,
            th,
            card,
            query,
            frame,
            seq,
            bool(locked),
            json.loads(q) if q else None,
            created,
            touched,
            owner or "",
            ended,
            json.loads(summary) if summary else None,
            json.loads(sweep) if sweep else None,
        )

    def _read_session(self, db, code: str) -> Session | None:
        return self._session(db.execute(f"SELECT {COLS} FROM sessions WHERE code=?", (code,)).fetchone())

    @staticmethod
    def _open_clause() -> tuple[str, tuple]:
        """Classes that count: not ended, touched by their instructor within IDLE_TTL_S."""
        return "ended IS NULL AND touched >= ?", (time.time() - IDLE_TTL_S,)

    # ------------------------------------------------------------------ sessions
    def _followed(self, code: str) -> bool:
        """Has the class a follower whose stream was seen within PRESENCE_TTL_S?"""
        cut = time.time() - PRESENCE_TTL_S
        return any(t >= cut for t, *_ in self._presence.get(code, {}).values())

    @staticmethod
    def _frees_in(held: list[tuple[str, float]], followed) -> int:
        """Seconds until one of the ``held`` (code, touched) slots frees: the soonest to reach SLOT_IDLE_S
        among those without followers (a followed class holds on: then SLOT_IDLE_S as a guess)."""
        now = time.time()
        waits = [t + SLOT_IDLE_S - now for c, t in held if not followed(c)]
        return max(1, math.ceil(min(waits))) if waits else SLOT_IDLE_S

    @_guarded
    async def create(
        self, code: str, token_hash: str, card: str, query: str, owner: str, network: str = ""
    ) -> Session | None:
        await self.purge()
        now = time.time()
        network = network or owner
        where, args = self._open_clause()

        def tx(db):
            rows = db.execute(f"SELECT code, owner, network, touched FROM sessions WHERE {where}", args).fetchall()
            # a slot is held by a class its instructor touched within SLOT_IDLE_S or someone follows
            held = [(c, o, n or o, t) for c, o, n, t in rows if t >= now - SLOT_IDLE_S or self._followed(c)]
            for name, mine, cap in (
                ("sessions", held, MAX_SESSIONS),
                ("owner", [h for h in held if h[1] == owner], MAX_CLASSES_PER_ADDRESS),
                ("network", [h for h in held if h[2] == network], MAX_CLASSES_PER_NETWORK),
            ):
                if len(mine) >= cap:
                    raise Full(name, self._frees_in([(c, t) for c, _, _, t in mine], self._followed))
            if db.execute("SELECT 1 FROM sessions WHERE code=?", (code,)).fetchone():
                return None
            db.execute(
                "INSERT INTO sessions(code, token_hash, card, query, frame, seq, locked, question, created, touched, "
                "owner, network) VALUES(?,?,?,?,NULL,1,0,NULL,?,?,?,?)",
                (code, token_hash, card, query, now, now, owner, network),
            )
            return self._read_session(db, code)

        return self._write(tx)

    @_guarded
    async def get(self, code: str) -> Session | None:
        db = self._conn(create=False)
        if db is None:
            return None
        s = self._read_session(db, code)
        if s is None:
            return None
        if s.ended is not None:
            return s if s.ended >= time.time() - ENDED_KEEP_S else None
        return s if s.touched >= time.time() - IDLE_TTL_S else None

    def _bump(self, db, code: str, sets: dict[str, Any]) -> Session | None:
        """An instructor's change: seq + 1, touched = now (idle expiry counts from here)."""
        cols = "".join(f", {k}=?" for k in sets)
        cur = db.execute(
            f"UPDATE sessions SET seq=seq+1, touched=?{cols} WHERE code=? AND ended IS NULL",
            (time.time(), *sets.values(), code),
        )
        return self._read_session(db, code) if cur.rowcount else None

    def _changed(self, s: Session | None) -> Session | None:
        if s is not None:
            self.publish(s.event())
        return s

    @_guarded
    async def change(self, code: str, **fields: Any) -> Session | None:
        sets = {
            k: (int(v) if k == "locked" else v) for k, v in fields.items() if k in ("card", "query", "frame", "locked")
        }
        return self._changed(self._write(lambda db: self._bump(db, code, sets)))

    @_guarded
    async def end(self, code: str, summary: dict) -> Session | None:
        def tx(db):
            cur = db.execute(
                "UPDATE sessions SET seq=seq+1, ended=?, summary=? WHERE code=? AND ended IS NULL",
                (time.time(), json.dumps(summary, ensure_ascii=False), code),
            )
            return self._read_session(db, code) if cur.rowcount else None

        s = self._changed(self._write(tx))
        if s is not None:
            self._presence.pop(code, None)
        return s

    # ------------------------------------------------------------------ questions and answers
    @_guarded
    async def ask(self, code: str, rec: dict) -> Session | None:
        def tx(db):
            row = db.execute("SELECT nq, question FROM sessions WHERE code=? AND ended IS NULL", (code,)).fetchone()
            if row is None:
                return None
            if row[1]:
                self._set_rec_status(db, code, json.loads(row[1])["qid"], "closed", only_open=True)
            qid = row[0] + 1
            full = {**rec, "qid": qid, "status": "open"}
            db.execute("INSERT INTO questions VALUES(?,?,?)", (code, qid, json.dumps(full, ensure_ascii=False)))
            db.execute("UPDATE sessions SET nq=? WHERE code=?", (qid, code))
            return self._bump(db, code, {"question": json.dumps(public_question(full), ensure_ascii=False)})

        return self._changed(self._write(tx))

    @staticmethod
    def _set_rec_status(db, code: str, qid: int, status: str, only_open: bool = False) -> dict | None:
        row = db.execute("SELECT rec FROM questions WHERE code=? AND qid=?", (code, qid)).fetchone()
        if row is None:
            return None
        rec = json.loads(row[0])
        if only_open and rec["status"] != "open":
            return rec
        if not (rec["status"] == "revealed" and status == "closed"):
            rec["status"] = status
        db.execute(
            "UPDATE questions SET rec=? WHERE code=? AND qid=?", (json.dumps(rec, ensure_ascii=False), code, qid)
        )
        return rec

    @_guarded
    async def set_status(self, code: str, qid: int, status: str) -> Session | None:
        def tx(db):
            if db.execute("SELECT 1 FROM sessions WHERE code=? AND ended IS NULL", (code,)).fetchone() is None:
                return None
            rec = self._set_rec_status(db, code, qid, status)
            if rec is None:
                return None
            cur = self._read_session(db, code)
            if cur is not None and cur.question and cur.question["qid"] == qid:
                return self._bump(db, code, {"question": json.dumps(public_question(rec), ensure_ascii=False)})
            db.execute("UPDATE sessions SET touched=? WHERE code=?", (time.time(), code))  # an action all the same
            return cur

        return self._changed(self._write(tx))

    @_guarded
    async def question(self, code: str, qid: int) -> dict | None:
        db = self._conn(create=False)
        row = db and db.execute("SELECT rec FROM questions WHERE code=? AND qid=?", (code, qid)).fetchone()
        return json.loads(row[0]) if row else None

    @_guarded
    async def questions(self, code: str) -> list[dict]:
        db = self._conn(create=False)
        rows = db.execute("SELECT rec FROM questions WHERE code=? ORDER BY qid", (code,)).fetchall() if db else []
        return [json.loads(r[0]) for r in rows]

    @_guarded
    async def answer(self, code: str, qid: int, participant: str, ans: dict) -> AnswerOutcome:
        def tx(db):
            row = db.execute("SELECT rec FROM questions WHERE code=? AND qid=?", (code, qid)).fetchone()
            if row is None:
                return "missing"
            if json.loads(row[0])["status"] != "open":
                return "closed"
            db.execute(
                "INSERT OR REPLACE INTO answers VALUES(?,?,?,?)",
                (code, qid, participant, json.dumps(ans, ensure_ascii=False)),
            )
            return "ok"  # a student's answer is not the instructor's action: touched stays

        return self._write(tx)

    @_guarded
    async def answers(self, code: str, qid: int) -> dict[str, dict]:
        db = self._conn(create=False)
        rows = (
            db.execute("SELECT participant, ans FROM answers WHERE code=? AND qid=?", (code, qid)).fetchall()
            if db
            else []
        )
        return {d: json.loads(a) for d, a in rows}

    @_guarded
    async def count_answers(self, code: str, qid: int) -> int:
        db = self._conn(create=False)
        return db.execute("SELECT COUNT(*) FROM answers WHERE code=? AND qid=?", (code, qid)).fetchone()[0] if db else 0

    # ------------------------------------------------------------------ sweeps
    @_guarded
    async def add_sweep(self, code: str, rec: dict) -> Session | None:
        def tx(db):
            row = db.execute("SELECT nsw FROM sessions WHERE code=? AND ended IS NULL", (code,)).fetchone()
            if row is None:
                return None
            sid = row[0] + 1
            full = {**rec, "sid": sid, "status": "open"}
            db.execute("INSERT INTO sweeps VALUES(?,?,?)", (code, sid, json.dumps(full, ensure_ascii=False)))
            db.execute("UPDATE sessions SET nsw=? WHERE code=?", (sid, code))
            return self._bump(db, code, {"sweep": json.dumps(public_sweep(full), ensure_ascii=False)})

        return self._changed(self._write(tx))

    @_guarded
    async def sweep(self, code: str, sid: int) -> dict | None:
        db = self._conn(create=False)
        row = db and db.execute("SELECT rec FROM sweeps WHERE code=? AND sid=?", (code, sid)).fetchone()
        return json.loads(row[0]) if row else None

    @_guarded
    async def sweep_status(self, code: str, sid: int, status: str) -> Session | None:
        def tx(db):
            cur = self._read_session(db, code)
            row = db.execute("SELECT rec FROM sweeps WHERE code=? AND sid=?", (code, sid)).fetchone()
            if cur is None or cur.ended is not None or row is None:
                return None
            rec = {**json.loads(row[0]), "status": status}
            db.execute(
                "UPDATE sweeps SET rec=? WHERE code=? AND sid=?", (json.dumps(rec, ensure_ascii=False), code, sid)
            )
            if cur.sweep and cur.sweep["sid"] == sid:
                return self._bump(db, code, {"sweep": json.dumps(public_sweep(rec), ensure_ascii=False)})
            db.execute("UPDATE sessions SET touched=? WHERE code=?", (time.time(), code))
            return cur

        return self._changed(self._write(tx))

    @_guarded
    async def assign(self, code: str, sid: int, participant: str, npoints: int) -> int | None:
        def tx(db):
            if db.execute("SELECT 1 FROM sweeps WHERE code=? AND sid=?", (code, sid)).fetchone() is None:
                return None
            key = (code, sid, participant)
            row = db.execute("SELECT idx FROM sweep_owners WHERE code=? AND sid=? AND participant=?", key).fetchone()
            if row is not None:
                return row[0]
            n = db.execute("SELECT COUNT(*) FROM sweep_owners WHERE code=? AND sid=?", (code, sid)).fetchone()[0]
            idx = owned(n, npoints)
            db.execute("INSERT INTO sweep_owners VALUES(?,?,?,?)", (*key, idx))
            return idx

        return self._write(tx)

    @_guarded
    async def predict(self, code: str, sid: int, participant: str, pred: dict) -> AnswerOutcome:
        def tx(db):
            row = db.execute("SELECT rec FROM sweeps WHERE code=? AND sid=?", (code, sid)).fetchone()
            if row is None:
                return "missing"
            if json.loads(row[0])["status"] != "open":
                return "closed"
            db.execute(
                "INSERT OR REPLACE INTO predictions VALUES(?,?,?,?)",
                (code, sid, participant, json.dumps(pred, ensure_ascii=False)),
            )
            return "ok"

        return self._write(tx)

    @_guarded
    async def predictions(self, code: str, sid: int) -> dict[str, dict]:
        db = self._conn(create=False)
        rows = (
            db.execute("SELECT participant, pred FROM predictions WHERE code=? AND sid=?", (code, sid)).fetchall()
            if db
            else []
        )
        return {d: json.loads(p) for d, p in rows}

    @_guarded
    async def count_predictions(self, code: str, sid: int) -> int:
        db = self._conn(create=False)
        if db is None:
            return 0
        return db.execute("SELECT COUNT(*) FROM predictions WHERE code=? AND sid=?", (code, sid)).fetchone()[0]

    # ------------------------------------------------------------------ snapshots
    @_guarded
    async def add_snapshot(self, code: str, snap: dict) -> int:
        def tx(db):
            cur = db.execute(
                "INSERT INTO snapshots(code, snap) VALUES(?,?)", (code, json.dumps(snap, ensure_ascii=False))
            )
            db.execute(
                "DELETE FROM snapshots WHERE code=? AND sid NOT IN "
                "(SELECT sid FROM snapshots WHERE code=? ORDER BY sid DESC LIMIT ?)",
                (code, code, MAX_SNAPSHOTS),
            )
            return cur.lastrowid

        return self._write(tx)

    @_guarded
    async def snapshots(self, code: str) -> list[dict]:
        db = self._conn(create=False)
        rows = (
            db.execute("SELECT sid, snap FROM snapshots WHERE code=? ORDER BY sid DESC", (code,)).fetchall()
            if db
            else []
        )
        return [{"sid": sid, **json.loads(s)} for sid, s in rows]

    # ------------------------------------------------------------------ presence and rates (in memory: one process)
    def _live(self, code: str) -> dict[str, tuple[float, str, str]]:
        seen, cut = self._presence[code], time.time() - PRESENCE_TTL_S
        for p in [p for p, (t, *_) in seen.items() if t < cut]:
            del seen[p]
        return seen

    async def connect(self, code: str, participant: str, address: str, network: str = "") -> int:
        seen, network = self._live(code), network or address
        if participant not in seen:
            if len(seen) >= MAX_FOLLOWERS:
                raise Full("followers")
            if sum(1 for _, a, _ in seen.values() if a == address) >= MAX_FOLLOWERS_PER_ADDRESS:
                raise Full("address")
            if sum(1 for _, _, n in seen.values() if n == network) >= MAX_FOLLOWERS_PER_NETWORK:
                raise Full("network")
        seen[participant] = (time.time(), address, network)
        return len(seen)

    async def leave(self, code: str, participant: str, address: str, network: str = "") -> None:
        self._presence[code].pop(participant, None)

    async def refresh(self, code: str, present: list[tuple[str, str, str]]) -> None:
        now = time.time()
        self._presence[code].update({p: (now, a, n) for p, a, n in present})

    async def followers(self, code: str) -> int:
        return len(self._live(code))

    async def allow(self, bucket: str, limit: int, window_s: int) -> bool:
        win = int(time.time() // window_s)
        key = (bucket, win)
        self._hits[key] = n = self._hits.get(key, 0) + 1
        if len(self._hits) > 50_000:
            self._hits = {k: v for k, v in self._hits.items() if k[1] >= win - 1}
        return n <= limit

    # ------------------------------------------------------------------ the check route's view, the key, purging
    @_guarded
    async def pending(self, card: str) -> list[dict]:
        db = self._conn(create=False)
        if db is None:
            return []
        where, args = self._open_clause()
        rows = db.execute(f"SELECT question FROM sessions WHERE question IS NOT NULL AND {where}", args).fetchall()
        qs = [json.loads(r[0]) for r in rows]
        return [q for q in qs if q["card"] == card and q["status"] != "revealed"]

    @_guarded
    async def secret(self) -> bytes:
        if self._secret is None:

            def tx(db):
                db.execute("INSERT OR IGNORE INTO meta VALUES('secret', ?)", (secrets.token_hex(32),))
                return db.execute("SELECT v FROM meta WHERE k='secret'").fetchone()[0]

            self._secret = bytes.fromhex(self._write(tx))
        return self._secret

    @_guarded
    async def purge(self) -> int:
        now = time.time()
        if self._conn(create=False) is None:
            return 0

        def tx(db):
            old = [
                r[0]
                for r in db.execute(
                    "SELECT code FROM sessions WHERE (ended IS NULL AND touched < ?) OR ended < ?",
                    (now - IDLE_TTL_S, now - ENDED_KEEP_S),
                )
            ]
            for code in old:
                for table in TABLES:
                    db.execute(f"DELETE FROM {table} WHERE code=?", (code,))
                self._presence.pop(code, None)
            return len(old)

        return self._write(tx)

    async def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
