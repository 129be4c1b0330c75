"""The embedded store: one SQLite file (stdlib ``sqlite3``), created on the first live write, so a
server that never ran a class writes nothing. One process only (followers and rate limits are
counted in memory); a multi-worker start without Redis is refused (deploy/gunicorn.conf.py)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, overload

from .limits import IDLE_TTL_S, MAX_FOLLOWERS, MAX_SESSIONS, MAX_SNAPSHOTS, PRESENCE_TTL_S
from .store import AnswerOutcome, Full, Session, Store, public_question

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions(code TEXT PRIMARY KEY, token_hash TEXT NOT NULL, card TEXT NOT NULL,
  query TEXT NOT NULL, frame TEXT, seq INTEGER NOT NULL, locked INTEGER NOT NULL, question TEXT,
  nq INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL, touched REAL NOT NULL);
CREATE TABLE IF NOT EXISTS questions(code TEXT, qid INTEGER, rec TEXT NOT NULL, PRIMARY KEY(code, qid));
CREATE TABLE IF NOT EXISTS answers(code TEXT, qid INTEGER, device TEXT, ans TEXT NOT NULL,
  PRIMARY KEY(code, qid, device));
CREATE TABLE IF NOT EXISTS snapshots(sid INTEGER PRIMARY KEY AUTOINCREMENT, code TEXT NOT NULL, snap TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS snapshots_code ON snapshots(code, sid);
"""
COLS = "code, token_hash, card, query, frame, seq, locked, question, created, touched"


class SQLiteStore(Store):
    def __init__(self, path: Path, publish: Callable[[dict], None]):
        self.path, self.publish = Path(path), publish
        self._db: sqlite3.Connection | None = None
        self._presence: dict[str, dict[str, float]] = defaultdict(dict)
        self._hits: dict[tuple[str, int], int] = {}

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
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=5)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(SCHEMA)
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
        code, th, card, query, frame, seq, locked, q, created, touched = row
        return Session(code, th, card, query, frame, seq, bool(locked), json.loads(q) if q else None, created, touched)

    def _read_session(self, db, code: str) -> Session | None:
        return self._session(db.execute(f"SELECT {COLS} FROM sessions WHERE code=?", (code,)).fetchone())

    # ------------------------------------------------------------------ sessions
    async def create(self, code: str, token_hash: str, card: str, query: str) -> Session | None:
        await self.purge()
        now = time.time()

        def tx(db):
            n = db.execute("SELECT COUNT(*) FROM sessions WHERE touched >= ?", (now - IDLE_TTL_S,)).fetchone()[0]
            if n >= MAX_SESSIONS:
                raise Full("sessions")
            if db.execute("SELECT 1 FROM sessions WHERE code=?", (code,)).fetchone():
                return None
            db.execute(
                f"INSERT INTO sessions({COLS}) VALUES(?,?,?,?,NULL,1,0,NULL,?,?)",
                (code, token_hash, card, query, now, now),
            )
            return self._read_session(db, code)

        return self._write(tx)

    async def get(self, code: str) -> Session | None:
        db = self._conn(create=False)
        if db is None:
            return None
        s = self._read_session(db, code)
        return s if s and s.touched >= time.time() - IDLE_TTL_S else None

    def _bump(self, db, code: str, sets: dict[str, Any]) -> Session | None:
        cols = "".join(f", {k}=?" for k in sets)
        cur = db.execute(
            f"UPDATE sessions SET seq=seq+1, touched=?{cols} WHERE code=?", (time.time(), *sets.values(), code)
        )
        return self._read_session(db, code) if cur.rowcount else None

    def _changed(self, s: Session | None) -> Session | None:
        if s is not None:
            self.publish(s.event())
        return s

    async def change(self, code: str, **fields: Any) -> Session | None:
        sets = {
            k: (int(v) if k == "locked" else v) for k, v in fields.items() if k in ("card", "query", "frame", "locked")
        }
        return self._changed(self._write(lambda db: self._bump(db, code, sets)))

    # ------------------------------------------------------------------ questions and answers
    async def ask(self, code: str, rec: dict) -> Session | None:
        def tx(db):
            row = db.execute("SELECT nq, question FROM sessions WHERE code=?", (code,)).fetchone()
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

    async def set_status(self, code: str, qid: int, status: str) -> Session | None:
        def tx(db):
            rec = self._set_rec_status(db, code, qid, status)
            if rec is None:
                return None
            cur = self._read_session(db, code)
            if cur is not None and cur.question and cur.question["qid"] == qid:
                return self._bump(db, code, {"question": json.dumps(public_question(rec), ensure_ascii=False)})
            return cur

        return self._changed(self._write(tx))

    async def question(self, code: str, qid: int) -> dict | None:
        db = self._conn(create=False)
        row = db and db.execute("SELECT rec FROM questions WHERE code=? AND qid=?", (code, qid)).fetchone()
        return json.loads(row[0]) if row else None

    async def answer(self, code: str, qid: int, device: str, ans: dict) -> AnswerOutcome:
        def tx(db):
            row = db.execute("SELECT rec FROM questions WHERE code=? AND qid=?", (code, qid)).fetchone()
            if row is None:
                return "missing"
            if json.loads(row[0])["status"] != "open":
                return "closed"
            db.execute(
                "INSERT OR REPLACE INTO answers VALUES(?,?,?,?)",
                (code, qid, device, json.dumps(ans, ensure_ascii=False)),
            )
            db.execute("UPDATE sessions SET touched=? WHERE code=?", (time.time(), code))
            return "ok"

        return self._write(tx)

    async def answers(self, code: str, qid: int) -> dict[str, dict]:
        db = self._conn(create=False)
        rows = (
            db.execute("SELECT device, ans FROM answers WHERE code=? AND qid=?", (code, qid)).fetchall() if db else []
        )
        return {d: json.loads(a) for d, a in rows}

    async def count_answers(self, code: str, qid: int) -> int:
        db = self._conn(create=False)
        return db.execute("SELECT COUNT(*) FROM answers WHERE code=? AND qid=?", (code, qid)).fetchone()[0] if db else 0

    # ------------------------------------------------------------------ snapshots
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
            db.execute("UPDATE sessions SET touched=? WHERE code=?", (time.time(), code))
            return cur.lastrowid

        return self._write(tx)

    async def snapshots(self, code: str) -> list[dict]:
        db = self._conn(create=False)
        rows = (
            db.execute("SELECT sid, snap FROM snapshots WHERE code=? ORDER BY sid DESC", (code,)).fetchall()
            if db
            else []
        )
        return [{"sid": sid, **json.loads(s)} for sid, s in rows]

    # ------------------------------------------------------------------ presence and rates (in memory: one process)
    def _live(self, code: str) -> dict[str, float]:
        seen, cut = self._presence[code], time.time() - PRESENCE_TTL_S
        for d in [d for d, t in seen.items() if t < cut]:
            del seen[d]
        return seen

    async def join(self, code: str, device: str) -> int | None:
        seen = self._live(code)
        if device not in seen and len(seen) >= MAX_FOLLOWERS:
            return None
        seen[device] = time.time()
        return len(seen)

    async def leave(self, code: str, device: str) -> None:
        self._presence[code].pop(device, None)

    async def refresh(self, code: str, devices: list[str]) -> None:
        now = time.time()
        self._presence[code].update({d: now for d in devices})

    async def followers(self, code: str) -> int:
        return len(self._live(code))

    async def allow(self, bucket: str, limit: int, window_s: int) -> bool:
        win = int(time.time() // window_s)
        key = (bucket, win)
        self._hits[key] = n = self._hits.get(key, 0) + 1
        if len(self._hits) > 50_000:
            self._hits = {k: v for k, v in self._hits.items() if k[1] >= win - 1}
        return n <= limit

    async def purge(self) -> int:
        now = time.time()
        if self._conn(create=False) is None:
            return 0

        def tx(db):
            old = [r[0] for r in db.execute("SELECT code FROM sessions WHERE touched < ?", (now - IDLE_TTL_S,))]
            for code in old:
                for table in ("answers", "questions", "snapshots", "sessions"):
                    db.execute(f"DELETE FROM {table} WHERE code=?", (code,))
                self._presence.pop(code, None)
            return len(old)

        return self._write(tx)
