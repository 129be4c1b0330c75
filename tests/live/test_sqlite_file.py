"""The SQLite file of the live class across versions: a file written before the participant
credential's column was named ``participant`` (it was ``device``) opens with its answers, sweep points
and predictions intact, under the new name."""

from __future__ import annotations

import json
import sqlite3

from app.live.sqlite_store import SQLiteStore

from tests.aio import run_async

OLD = """
CREATE TABLE answers(code TEXT, qid INTEGER, device TEXT, ans TEXT NOT NULL, PRIMARY KEY(code, qid, device));
CREATE TABLE sweeps(code TEXT, sid INTEGER, rec TEXT NOT NULL, PRIMARY KEY(code, sid));
CREATE TABLE sweep_owners(code TEXT, sid INTEGER, device TEXT, idx INTEGER NOT NULL, PRIMARY KEY(code, sid, device));
CREATE TABLE predictions(code TEXT, sid INTEGER, device TEXT, pred TEXT NOT NULL, PRIMARY KEY(code, sid, device));
"""


def columns(path, table: str) -> list[str]:
    with sqlite3.connect(path) as db:
        return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


def test_a_file_with_device_columns_opens_with_everything_in_it(tmp_path):
    path = tmp_path / "live.db"
    with sqlite3.connect(path) as db:
        db.executescript(OLD)
        db.execute("INSERT INTO answers VALUES('ABCD', 1, 'p-1', ?)", (json.dumps({"value": 42}),))
        db.execute("INSERT INTO sweeps VALUES('ABCD', 1, ?)", (json.dumps({"status": "open"}),))
        db.execute("INSERT INTO sweep_owners VALUES('ABCD', 1, 'p-1', 3)")
        db.execute("INSERT INTO predictions VALUES('ABCD', 1, 'p-1', ?)", (json.dumps({"value": 7}),))
    store = SQLiteStore(path, lambda event: None)

    async def read():
        return (
            await store.answers("ABCD", 1),
            await store.predictions("ABCD", 1),
            await store.assign("ABCD", 1, "p-1", 12),  # already owns point 3
            await store.assign("ABCD", 1, "p-2", 12),  # the second owner: point 1
        )

    answers, predictions, kept, second = run_async(read())
    assert answers == {"p-1": {"value": 42}} and predictions == {"p-1": {"value": 7}}
    assert (kept, second) == (3, 1)
    for table in ("answers", "sweep_owners", "predictions"):
        assert "participant" in columns(path, table) and "device" not in columns(path, table), table
    store2 = SQLiteStore(path, lambda event: None)  # opened again: nothing left to rename, nothing lost
    assert run_async(store2.answers("ABCD", 1)) == {"p-1": {"value": 42}}
