"""The Redis store (``AIINFRA_REDIS_URL``): the store of record for every worker and instance, and
the fan-out. Each change runs as one Lua script that updates the class, bumps its seq and
PUBLISHes the new public state, so events leave Redis in seq order whoever wrote them. Each
process has ONE subscriber task feeding its hub (never a Redis connection per follower).
A class's keys expire IDLE_TTL_S after its instructor's last action (ENDED_KEEP_S after 下课).

Faults: every call is bounded (STORE_TIMEOUT_S) and a Redis that is down, hung or restarting raises
StoreUnavailable (503). Pooled connections are health-checked (PING when idle for
REDIS_HEALTH_CHECK_S) and a command that meets a dead connection is retried once on a fresh one,
so after a Redis restart the first requests succeed instead of meeting stale sockets."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import secrets
import time
from typing import Any, cast

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from .hub import Hub
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
    POOL_SIZE,
    PRESENCE_TTL_S,
    REDIS_HEALTH_CHECK_S,
    REDIS_POOL_WAIT_S,
    REDIS_SOCKET_TIMEOUT_S,
    SLOT_IDLE_S,
    STORE_TIMEOUT_S,
)
from .store import AnswerOutcome, Full, Session, Store, StoreUnavailable, public_question, public_sweep

log = logging.getLogger("aiinfra.live")
P = "aiinfra:live:"
CHANNEL = P + "events"
NIL = "\x00nil"
SWEEP_EVERY_S = 300
OWNER_TTL_S = 7 * 24 * 3600  # an address's index of its classes (cleaned at each create)

# Shared by the changes: publish [code, seq, card, query, frame, locked, question, qstatus, ended,
# summary, sweep]; bump = seq + 1, touched = now (the instructor's action), expiry pushed out, publish.
# KEYS[1] = session, KEYS[2] = open-sessions index; ARGV[1..4] = channel, code, now, ttl.
_BUMP = """
local function publish(seq)
  local v = redis.call('HMGET', KEYS[1], 'card', 'query', 'frame', 'locked', 'question', 'qstatus', 'ended', 'summary', 'sweep')
  redis.call('PUBLISH', ARGV[1], cjson.encode({ARGV[2], seq, v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]}))
end
local function bump()
  local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  redis.call('HSET', KEYS[1], 'touched', ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
  publish(seq)
  return redis.call('HGETALL', KEYS[1])
end
local function open()
  return redis.call('EXISTS', KEYS[1]) == 1 and redis.call('HEXISTS', KEYS[1], 'ended') == 0
end
"""

CHANGE = (
    _BUMP
    + """
if not open() then return false end
for i = 5, #ARGV, 2 do
  if ARGV[i + 1] == '\\0nil' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return bump()
"""
)

# KEYS[3] = questions (qid → record), KEYS[4] = statuses (qid → open/closed/revealed), KEYS[5] =
# pending (code → the current unrevealed question); ARGV[5], ARGV[6] = record and public JSON with
# "__QID__" where the new qid goes.
ASK = (
    _BUMP
    + """
if not open() then return false end
local cur = redis.call('HGET', KEYS[1], 'qid')
if cur and redis.call('HGET', KEYS[4], cur) == 'open' then redis.call('HSET', KEYS[4], cur, 'closed') end
local nq = redis.call('HINCRBY', KEYS[1], 'nq', 1)
local rec = string.gsub(ARGV[5], '"__QID__"', tostring(nq))
local pub = string.gsub(ARGV[6], '"__QID__"', tostring(nq))
redis.call('HSET', KEYS[3], nq, rec)
redis.call('HSET', KEYS[4], nq, 'open')
redis.call('EXPIRE', KEYS[3], ARGV[4])
redis.call('EXPIRE', KEYS[4], ARGV[4])
redis.call('HSET', KEYS[5], ARGV[2], pub)
redis.call('HSET', KEYS[1], 'qid', nq, 'question', pub, 'qstatus', 'open')
return bump()
"""
)

# KEYS[3] = statuses, KEYS[4] = pending; ARGV[5] = qid, ARGV[6] = new status (revealed stays revealed).
STATUS = (
    _BUMP
    + """
if not open() then return false end
local st = redis.call('HGET', KEYS[3], ARGV[5])
if not st then return false end
if not (st == 'revealed' and ARGV[6] == 'closed') then redis.call('HSET', KEYS[3], ARGV[5], ARGV[6]); st = ARGV[6] end
if redis.call('HGET', KEYS[1], 'qid') == ARGV[5] then
  if st == 'revealed' then redis.call('HDEL', KEYS[4], ARGV[2]) end
  redis.call('HSET', KEYS[1], 'qstatus', st)
  return bump()
end
redis.call('HSET', KEYS[1], 'touched', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
return redis.call('HGETALL', KEYS[1])
"""
)

# 下课. KEYS[3] = statuses, KEYS[4] = pending; ARGV[4] = the ended class's ttl, ARGV[5] = summary
# JSON, ARGV[6] = the owner index's key prefix.
END = (
    _BUMP
    + """
if not open() then return false end
local cur = redis.call('HGET', KEYS[1], 'qid')
if cur and redis.call('HGET', KEYS[3], cur) == 'open' then
  redis.call('HSET', KEYS[3], cur, 'closed')
  redis.call('HSET', KEYS[1], 'qstatus', 'closed')
end
redis.call('HSET', KEYS[1], 'ended', ARGV[3], 'summary', ARGV[5])
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[4], ARGV[2])
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner then redis.call('ZREM', ARGV[6] .. owner, ARGV[2]) end
publish(seq)
return redis.call('HGETALL', KEYS[1])
"""
)

# KEYS: statuses, answers of the question; ARGV: qid, participant, answer, ttl. A student's answer
# is not the instructor's action: the class's expiry is left alone.
ANSWER = """
local st = redis.call('HGET', KEYS[1], ARGV[1])
if not st then return 'missing' end
if st ~= 'open' then return 'closed' end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 'ok'
"""

# KEYS: session, open-sessions index (code → touched), the owner's classes, the network's classes;
# ARGV: code, token hash, card, query, now, ttl, max sessions, cutoff, owner, max per owner, index ttl,
# network, max per network, slot cutoff (now - SLOT_IDLE_S), presence cutoff, followers' key prefix,
# SLOT_IDLE_S. A class holds a slot while touched within SLOT_IDLE_S or followed; the answer is
# {1 created | 0 code taken | -1 sessions | -2 owner | -3 network, seconds until a held slot frees}.
CREATE = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[8])
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, 0} end
local slotcut, now, idle = tonumber(ARGV[14]), tonumber(ARGV[5]), tonumber(ARGV[17])
local function held(codes, index)
  local n, soon = 0, nil
  for _, c in ipairs(codes) do
    local t = redis.call('ZSCORE', KEYS[2], c)
    if not t then
      if index then redis.call('ZREM', index, c) end
    else
      t = tonumber(t)
      local followed = redis.call('ZCOUNT', ARGV[16] .. c, ARGV[15], '+inf') > 0
      if t >= slotcut or followed then
        n = n + 1
        if not followed and (not soon or t + idle - now < soon) then soon = t + idle - now end
      end
    end
  end
  return n, math.max(1, math.ceil(soon or idle))
end
local n, soon = held(redis.call('ZRANGE', KEYS[2], 0, -1), nil)
if n >= tonumber(ARGV[7]) then return {-1, soon} end
n, soon = held(redis.call('ZRANGE', KEYS[3], 0, -1), KEYS[3])
if n >= tonumber(ARGV[10]) then return {-2, soon} end
n, soon = held(redis.call('ZRANGE', KEYS[4], 0, -1), KEYS[4])
if n >= tonumber(ARGV[13]) then return {-3, soon} end
redis.call('HSET', KEYS[1], 'token_hash', ARGV[2], 'card', ARGV[3], 'query', ARGV[4], 'seq', 1, 'locked', 0,
           'created', ARGV[5], 'touched', ARGV[5], 'nq', 0, 'owner', ARGV[9], 'network', ARGV[12])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
for i = 3, 4 do
  redis.call('ZADD', KEYS[i], ARGV[5], ARGV[1])
  redis.call('EXPIRE', KEYS[i], ARGV[11])
end
return {1, 0}
"""

# KEYS: followers, followers from this address, from this network; ARGV: participant, now, cutoff, max,
# max per address, ttl, max per network
CONNECT = """
for i = 1, 3 do redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[3]) end
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return -1 end
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return -2 end
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[7]) then return -3 end
end
for i = 1, 3 do
  redis.call('ZADD', KEYS[i], ARGV[2], ARGV[1])
  redis.call('EXPIRE', KEYS[i], ARGV[6])
end
return redis.call('ZCARD', KEYS[1])
"""

# KEYS[3] = sweeps (sid → record), KEYS[4] = their statuses; ARGV[5], ARGV[6] = record and public
# JSON with "__SID__" where the new sid goes (the public one with status open).
ADD_SWEEP = (
    _BUMP
    + """
if not open() then return false end
local n = redis.call('HINCRBY', KEYS[1], 'nsw', 1)
local rec = string.gsub(ARGV[5], '"__SID__"', tostring(n))
local pub = string.gsub(ARGV[6], '"__SID__"', tostring(n))
redis.call('HSET', KEYS[3], n, rec)
redis.call('HSET', KEYS[4], n, 'open')
redis.call('EXPIRE', KEYS[3], ARGV[4])
redis.call('EXPIRE', KEYS[4], ARGV[4])
redis.call('HSET', KEYS[1], 'sweep', pub)
return bump()
"""
)

# KEYS[3] = sweep statuses; ARGV[5] = sid, ARGV[6] = status, ARGV[7] = the sweep's public JSON after it.
SWEEP_STATUS = (
    _BUMP
    + """
if not open() then return false end
if not redis.call('HGET', KEYS[3], ARGV[5]) then return false end
redis.call('HSET', KEYS[3], ARGV[5], ARGV[6])
local cur = redis.call('HGET', KEYS[1], 'sweep')
if cur and tostring(cjson.decode(cur)['sid']) == ARGV[5] then
  redis.call('HSET', KEYS[1], 'sweep', ARGV[7])
  return bump()
end
redis.call('HSET', KEYS[1], 'touched', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
return redis.call('HGETALL', KEYS[1])
"""
)

# KEYS: sweep statuses, the sweep's owners (participant → point); ARGV: sid, participant, points, ttl.
# The count of owners so far is the counter: one script at a time, so every worker agrees.
ASSIGN = """
if not redis.call('HGET', KEYS[1], ARGV[1]) then return -1 end
local i = redis.call('HGET', KEYS[2], ARGV[2])
if i then return tonumber(i) end
local idx = redis.call('HLEN', KEYS[2]) % tonumber(ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], idx)
redis.call('EXPIRE', KEYS[2], ARGV[4])
return idx
"""

# KEYS: sweep statuses, the sweep's predictions; ARGV: sid, participant, prediction, ttl.
PREDICT = """
local st = redis.call('HGET', KEYS[1], ARGV[1])
if not st then return 'missing' end
if st ~= 'open' then return 'closed' end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 'ok'
"""

SCRIPTS = {
    "add_sweep": ADD_SWEEP,
    "sweep_status": SWEEP_STATUS,
    "assign": ASSIGN,
    "predict": PREDICT,
    "change": CHANGE,
    "ask": ASK,
    "status": STATUS,
    "end": END,
    "answer": ANSWER,
    "create": CREATE,
    "connect": CONNECT,
}


def _k(kind: str, code: str, *rest: Any) -> str:
    return P + ":".join([kind, code, *map(str, rest)])


def _opt(v):
    """Lua turns a missing hash field into false (JSON false)."""
    return None if v is False or v is None else v


def _question(pub: str | None, status: str | None) -> dict | None:
    return {**json.loads(pub), "status": status} if pub else None


def _session(flat: list | dict | None) -> Session | None:
    if not flat:
        return None
    h = flat if isinstance(flat, dict) else dict(zip(flat[::2], flat[1::2]))
    if "token_hash" not in h:  # a hash some other write recreated (only after its expiry): not a class
        return None
    ended = h.get("ended")
    return Session(
        h.get("code", ""),
        h["token_hash"],
        h["card"],
        h["query"],
        h.get("frame"),
        int(h["seq"]),
        h.get("locked") == "1",
        _question(h.get("question"), h.get("qstatus")),
        float(h["created"]),
        float(h["touched"]),
        h.get("owner", ""),
        float(ended) if ended else None,
        json.loads(h["summary"]) if h.get("summary") else None,
        json.loads(h["sweep"]) if h.get("sweep") else None,
    )


def decode_event(raw: str) -> dict:
    code, seq, card, query, frame, locked, question, qstatus, ended, summary, *more = json.loads(raw)
    sweep = _opt(more[0]) if more else None
    out = {
        "code": code,
        "card": card,
        "query": query,
        "frame": _opt(frame),
        "seq": int(seq),
        "locked": locked == "1",
        "question": _question(_opt(question), _opt(qstatus)),
        "sweep": json.loads(sweep) if sweep else None,
    }
    if _opt(ended):
        out["ended"] = True
        out["summary"] = json.loads(summary) if _opt(summary) else None
    return out


def _drain(task: asyncio.Task) -> None:
    """A call given up on finishes (or fails) in the background: its outcome is read, not logged."""
    if not task.cancelled():
        task.exception()


def _guarded(fn):
    """Any Redis or socket failure, or no answer within STORE_TIMEOUT_S: StoreUnavailable. The
    deadline holds however long the abandoned call then takes to clean up (a hung Redis can keep a
    socket's close waiting): the caller gets its answer at the deadline, the call ends on its own."""

    @functools.wraps(fn)
    async def wrapper(*args, **kwargs):
        task = asyncio.ensure_future(fn(*args, **kwargs))
        try:
            done, _ = await asyncio.wait({task}, timeout=STORE_TIMEOUT_S)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if not done:
            task.cancel()
            task.add_done_callback(_drain)
            raise StoreUnavailable(f"redis: no answer within {STORE_TIMEOUT_S:g} s")
        try:
            return task.result()
        except (RedisError, OSError, TimeoutError) as e:
            raise StoreUnavailable(f"redis: {type(e).__name__}: {e}") from e

    return wrapper


class RedisStore(Store):
    def __init__(self, url: str):
        self.url = url
        self._r: aioredis.Redis | None = None
        self._scripts: dict[str, Any] = {}
        self._swept: dict[str, float] = {}
        self._hub: Hub | None = None
        self._secret: bytes | None = None
        self._task: asyncio.Task | None = None

    @property
    def r(self) -> aioredis.Redis:
        if self._r is None:
            # a bounded pool that waits (briefly) for a free connection: a burst of joins queues up
            # instead of opening a Redis connection per follower; sockets time out, an idle
            # connection is PINGed before use, and a dead one is replaced and the command retried once
            pool = aioredis.BlockingConnectionPool.from_url(
                self.url,
                decode_responses=True,
                max_connections=POOL_SIZE,
                timeout=REDIS_POOL_WAIT_S,
                socket_timeout=REDIS_SOCKET_TIMEOUT_S,
                socket_connect_timeout=REDIS_SOCKET_TIMEOUT_S,
                health_check_interval=REDIS_HEALTH_CHECK_S,
                retry=Retry(NoBackoff(), 1),
            )
            self._r = aioredis.Redis(connection_pool=pool)
            self._scripts = {name: self._r.register_script(src) for name, src in SCRIPTS.items()}
        return self._r

    def _run(self, name: str, keys: list[str], args: list[Any]):
        _ = self.r  # connect lazily
        return self._scripts[name](keys=keys, args=args)

    def _base(self, code: str, ttl: int = IDLE_TTL_S) -> tuple[list[str], list[Any]]:
        return [_k("s", code), P + "sessions"], [CHANNEL, code, time.time(), ttl]

    def _with_code(self, code: str, flat) -> Session | None:
        s = _session(flat)
        if s is not None:
            s.code = code
        return s

    # ------------------------------------------------------------------ sessions
    @_guarded
    async def create(
        self, code: str, token_hash: str, card: str, query: str, owner: str, network: str = ""
    ) -> Session | None:
        now, network = time.time(), network or owner
        res, frees = await self._run(
            "create",
            [_k("s", code), P + "sessions", P + "owner:" + owner, P + "net:" + network],
            [
                code,
                token_hash,
                card,
                query,
                now,
                IDLE_TTL_S,
                MAX_SESSIONS,
                now - IDLE_TTL_S,
                owner,
                MAX_CLASSES_PER_ADDRESS,
                OWNER_TTL_S,
                network,
                MAX_CLASSES_PER_NETWORK,
                now - SLOT_IDLE_S,
                now - PRESENCE_TTL_S,
                P + "f:",
                SLOT_IDLE_S,
            ],
        )
        if res < 0:
            raise Full({-1: "sessions", -2: "owner", -3: "network"}[int(res)], int(frees))
        return self._with_code(code, await self.r.hgetall(_k("s", code))) if res == 1 else None

    @_guarded
    async def get(self, code: str) -> Session | None:
        return self._with_code(code, await self.r.hgetall(_k("s", code)))

    @_guarded
    async def change(self, code: str, **fields: Any) -> Session | None:
        keys, args = self._base(code)
        for k, v in fields.items():
            if k in ("card", "query", "frame", "locked"):
                args += [k, NIL if v is None else (int(v) if k == "locked" else v)]
        s = self._with_code(code, await self._run("change", keys, args))
        if s is not None:
            await self._sweep(code)
        return s

    @_guarded
    async def ask(self, code: str, rec: dict) -> Session | None:
        keys, args = self._base(code)
        full = {**rec, "qid": "__QID__", "status": "open"}
        pub = {k: v for k, v in public_question(full).items() if k != "status"}
        args += [json.dumps(full, ensure_ascii=False), json.dumps(pub, ensure_ascii=False)]
        keys += [_k("q", code), _k("qst", code), P + "pending"]
        s = self._with_code(code, await self._run("ask", keys, args))
        if s is not None:
            await self._sweep(code)
        return s

    @_guarded
    async def set_status(self, code: str, qid: int, status: str) -> Session | None:
        keys, args = self._base(code)
        keys += [_k("qst", code), P + "pending"]
        return self._with_code(code, await self._run("status", keys, args + [qid, status]))

    @_guarded
    async def end(self, code: str, summary: dict) -> Session | None:
        keys, args = self._base(code, ENDED_KEEP_S)
        keys += [_k("qst", code), P + "pending"]
        args += [json.dumps(summary, ensure_ascii=False), P + "owner:"]
        s = self._with_code(code, await self._run("end", keys, args))
        if s is not None:  # what the CSV needs stays as long as the tombstone; presence goes now
            await self._expire_all(code, ENDED_KEEP_S)
            await self.r.delete(_k("f", code))
        return s

    @_guarded
    async def question(self, code: str, qid: int) -> dict | None:
        rec, st = await asyncio.gather(self.r.hget(_k("q", code), str(qid)), self.r.hget(_k("qst", code), str(qid)))
        return {**json.loads(rec), "qid": qid, "status": st} if rec and st else None

    @_guarded
    async def questions(self, code: str) -> list[dict]:
        recs, sts = await asyncio.gather(self.r.hgetall(_k("q", code)), self.r.hgetall(_k("qst", code)))
        out = [{**json.loads(r), "qid": int(q), "status": sts.get(q, "closed")} for q, r in recs.items()]
        return sorted(out, key=lambda r: r["qid"])

    @_guarded
    async def answer(self, code: str, qid: int, participant: str, ans: dict) -> AnswerOutcome:
        return await self._run(
            "answer",
            [_k("qst", code), _k("a", code, qid)],
            [qid, participant, json.dumps(ans, ensure_ascii=False), IDLE_TTL_S],
        )

    @_guarded
    async def answers(self, code: str, qid: int) -> dict[str, dict]:
        raw = cast(dict[str, str], await self.r.hgetall(_k("a", code, qid)))  # decode_responses=True: text
        return {d: json.loads(a) for d, a in raw.items()}

    @_guarded
    async def count_answers(self, code: str, qid: int) -> int:
        return await self.r.hlen(_k("a", code, qid))

    # ------------------------------------------------------------------ sweeps
    @_guarded
    async def add_sweep(self, code: str, rec: dict) -> Session | None:
        keys, args = self._base(code)
        full = {**rec, "sid": "__SID__", "status": "open"}
        args += [json.dumps(full, ensure_ascii=False), json.dumps(public_sweep(full), ensure_ascii=False)]
        keys += [_k("sw", code), _k("swst", code)]
        s = self._with_code(code, await self._run("add_sweep", keys, args))
        if s is not None:
            await self._sweep(code)
        return s

    @_guarded
    async def sweep(self, code: str, sid: int) -> dict | None:
        rec, st = await asyncio.gather(self.r.hget(_k("sw", code), str(sid)), self.r.hget(_k("swst", code), str(sid)))
        return {**json.loads(rec), "sid": sid, "status": st} if rec and st else None

    @_guarded
    async def sweep_status(self, code: str, sid: int, status: str) -> Session | None:
        rec = await self.r.hget(_k("sw", code), str(sid))
        if rec is None:
            return None
        pub = public_sweep({**json.loads(rec), "sid": sid, "status": status})
        keys, args = self._base(code)
        keys += [_k("swst", code)]
        args += [sid, status, json.dumps(pub, ensure_ascii=False)]
        return self._with_code(code, await self._run("sweep_status", keys, args))

    @_guarded
    async def assign(self, code: str, sid: int, participant: str, npoints: int) -> int | None:
        idx = await self._run(
            "assign", [_k("swst", code), _k("swo", code, sid)], [sid, participant, npoints, IDLE_TTL_S]
        )
        return None if int(idx) < 0 else int(idx)

    @_guarded
    async def predict(self, code: str, sid: int, participant: str, pred: dict) -> AnswerOutcome:
        return await self._run(
            "predict",
            [_k("swst", code), _k("swp", code, sid)],
            [sid, participant, json.dumps(pred, ensure_ascii=False), IDLE_TTL_S],
        )

    @_guarded
    async def predictions(self, code: str, sid: int) -> dict[str, dict]:
        raw = cast(dict[str, str], await self.r.hgetall(_k("swp", code, sid)))
        return {d: json.loads(p) for d, p in raw.items()}

    @_guarded
    async def count_predictions(self, code: str, sid: int) -> int:
        return await self.r.hlen(_k("swp", code, sid))

    # ------------------------------------------------------------------ snapshots
    @_guarded
    async def add_snapshot(self, code: str, snap: dict) -> int:
        sid = await self.r.hincrby(_k("s", code), "snapn", 1)
        key = _k("snap", code)
        async with self.r.pipeline(transaction=True) as p:
            p.lpush(key, json.dumps({"sid": sid, **snap}, ensure_ascii=False))
            p.ltrim(key, 0, MAX_SNAPSHOTS - 1)
            p.expire(key, IDLE_TTL_S)
            await p.execute()
        return sid

    @_guarded
    async def snapshots(self, code: str) -> list[dict]:
        return [json.loads(x) for x in await self.r.lrange(_k("snap", code), 0, -1)]

    # ------------------------------------------------------------------ presence and rates
    @_guarded
    async def connect(self, code: str, participant: str, address: str, network: str = "") -> int:
        now = time.time()
        n = await self._run(
            "connect",
            [_k("f", code), _k("fa", code, address), _k("fn", code, network or address)],
            [
                participant,
                now,
                now - PRESENCE_TTL_S,
                MAX_FOLLOWERS,
                MAX_FOLLOWERS_PER_ADDRESS,
                IDLE_TTL_S,
                MAX_FOLLOWERS_PER_NETWORK,
            ],
        )
        if n < 0:
            raise Full({-1: "followers", -2: "address", -3: "network"}[int(n)])
        return int(n)

    @_guarded
    async def leave(self, code: str, participant: str, address: str, network: str = "") -> None:
        async with self.r.pipeline(transaction=False) as p:
            p.zrem(_k("f", code), participant)
            p.zrem(_k("fa", code, address), participant)
            p.zrem(_k("fn", code, network or address), participant)
            await p.execute()

    @_guarded
    async def refresh(self, code: str, present: list[tuple[str, str, str]]) -> None:
        if not present:
            return
        now = time.time()
        groups: dict[str, dict[str, float]] = {}
        for pid, addr, net in present:
            groups.setdefault(_k("fa", code, addr), {})[pid] = now
            groups.setdefault(_k("fn", code, net or addr), {})[pid] = now
        async with self.r.pipeline(transaction=False) as p:
            p.zadd(_k("f", code), {pid: now for pid, _, _ in present})
            for key, members in groups.items():
                p.zadd(key, members)
            await p.execute()

    @_guarded
    async def followers(self, code: str) -> int:
        return await self.r.zcount(_k("f", code), time.time() - PRESENCE_TTL_S, "+inf")

    @_guarded
    async def allow(self, bucket: str, limit: int, window_s: int) -> bool:
        key = f"{P}rl:{bucket}:{int(time.time() // window_s)}"
        async with self.r.pipeline(transaction=True) as p:
            p.incr(key)
            p.expire(key, window_s * 2)
            n, _ = await p.execute()
        return n <= limit

    # ------------------------------------------------------------------ the check route's view, the key, purging
    @_guarded
    async def pending(self, card: str) -> list[dict]:
        raw = cast(dict[str, str], await self.r.hgetall(P + "pending"))
        out = []
        for code, pub in raw.items():
            q = json.loads(pub)
            if q.get("card") != card:
                continue
            if await self.r.zscore(P + "sessions", code) is None:  # expired meanwhile: forget it
                await self.r.hdel(P + "pending", code)
                continue
            out.append(q)
        return out

    @_guarded
    async def secret(self) -> bytes:
        if self._secret is None:
            await self.r.set(P + "secret", secrets.token_hex(32), nx=True)
            self._secret = bytes.fromhex(cast(str, await self.r.get(P + "secret")))
        return self._secret

    @_guarded
    async def purge(self) -> int:
        """Class keys expire on their own (IDLE_TTL_S after the last write); drop the index entries."""
        return await self.r.zremrangebyscore(P + "sessions", "-inf", time.time() - IDLE_TTL_S)

    async def _expire_all(self, code: str, ttl: int) -> None:
        nq, nsw = await self.r.hmget(_k("s", code), ["nq", "nsw"])
        keys = [_k(k, code) for k in ("q", "qst", "snap", "sw", "swst")]
        keys += [_k("a", code, i) for i in range(1, int(nq or 0) + 1)]
        keys += [_k(k, code, i) for i in range(1, int(nsw or 0) + 1) for k in ("swo", "swp")]
        async with self.r.pipeline(transaction=False) as p:
            for k in keys:
                p.expire(k, ttl)
            await p.execute()

    async def _sweep(self, code: str) -> None:
        """Every few minutes, push the expiry of all of a class's keys (old questions' answers
        too) out to IDLE_TTL_S from now, so a long class loses nothing."""
        now = time.time()
        if now - self._swept.get(code, 0) < SWEEP_EVERY_S:
            return
        self._swept[code] = now
        if len(self._swept) > 10_000:
            self._swept = {c: t for c, t in self._swept.items() if now - t < SWEEP_EVERY_S}
        await self._expire_all(code, IDLE_TTL_S)

    @_guarded
    async def persistence(self) -> dict[str, str]:
        """This Redis's ``appendonly``, ``appendfsync`` and ``save`` (CONFIG GET; a refusal raises)."""
        out: dict[str, str] = {}
        for name in ("appendonly", "appendfsync", "save"):
            out.update(cast(dict[str, str], await self.r.config_get(name)))
        return out

    # ------------------------------------------------------------------ the one subscriber of this process
    async def start(self, hub: Hub) -> None:
        self._hub = hub
        self._task = asyncio.get_running_loop().create_task(self._listen(hub))

    async def _listen(self, hub: Hub) -> None:
        backoff = 0.2
        while True:
            ps = self.r.pubsub(ignore_subscribe_messages=True)
            try:
                await ps.subscribe(CHANNEL)
                if self._secret is not None:  # a Redis that lost its data gets the key back (NX: never a second one)
                    await self.r.set(P + "secret", self._secret.hex(), nx=True)
                await self._resync(hub)
                hub.store_status(True)
                backoff = 0.2
                while True:
                    msg = await ps.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if msg and msg.get("type") == "message":
                        hub.deliver(decode_event(msg["data"]))
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis restarted or the network blinked: resubscribe, then catch up
                log.warning("live subscriber: %s: %s (retrying in %.1f s)", type(e).__name__, e, backoff)
                hub.store_status(False)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 1.0)
            finally:
                try:
                    await ps.aclose()
                except Exception:
                    pass

    async def _resync(self, hub: Hub) -> None:
        """After (re)subscribing, hand every local class its current state: anything published
        while the subscriber was away is not lost, only coalesced. A class Redis no longer has ends
        its streams (``event: ended``, ``lost: true``) before any ``status ok``."""
        for code in hub.codes():
            s = await self.get(code)
            if s is None:  # Redis came back without it (no persistence, or a crash lost it): over, not "ok"
                log.warning("live class %s: gone from Redis after a reconnect; its streams are ended", code)
                hub.lost(code)
            else:
                hub.deliver(s.event())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._r is not None:
            await self._r.aclose()
            self._r = None


def where(url: str) -> str:
    """A Redis URL as a log may show it: host, port and database, never a password."""
    from urllib.parse import urlsplit

    u = urlsplit(url)
    return f"{u.scheme}://{u.hostname or ''}:{u.port or 6379}{u.path}"


async def check_persistence(store: RedisStore) -> str:
    """Ask the Redis ``store`` is given how it persists (``CONFIG GET appendonly``, ``save``,
    ``appendfsync``) and log what a crash of it would lose: a WARNING when neither the append-only
    file nor snapshots are on (a restart loses every class and answer), or when it could not check
    (CONFIG refused, as managed services do, or Redis not reachable). Returns the verdict: "aof",
    "rdb", "none" or "unknown" (docs/live-class.md, "Redis persistence")."""
    at = where(store.url)
    try:
        conf = await store.persistence()
    except (StoreUnavailable, RedisError) as e:
        log.warning(
            "live class: could not check the persistence of Redis at %s (%s): make sure it runs with "
            "appendonly yes (deploy/redis.conf), or a crash loses every class and answer",
            at,
            str(e)[:200],
        )
        return "unknown"
    if conf.get("appendonly") == "yes":
        fsync = conf.get("appendfsync", "")
        log.info("live class: Redis at %s keeps an append-only file (appendfsync %s)", at, fsync)
        if fsync == "no":
            log.warning("live class: Redis at %s: appendfsync no leaves fsync to the OS (~30 s of answers)", at)
        return "aof"
    if conf.get("save", "").strip():
        log.warning(
            "live class: Redis at %s only snapshots (save %s, no append-only file): a crash loses every answer "
            "since the last snapshot; deploy/redis.conf turns on appendonly (about 1 s at most)",
            at,
            conf["save"],
        )
        return "rdb"
    log.warning(
        "live class: Redis at %s persists NOTHING (appendonly no, save ''): a Redis restart loses every class "
        "and every answer; run it with deploy/redis.conf (appendonly yes, appendfsync everysec)",
        at,
    )
    return "none"
