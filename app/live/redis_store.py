"""The Redis store (``AIINFRA_REDIS_URL``): the store of record for every worker and instance, and
the fan-out. Each change runs as one Lua script that updates the session, bumps its seq and
PUBLISHes the new public state, so events leave Redis in seq order whoever wrote them. Each
process has ONE subscriber task feeding its hub (never a Redis connection per follower).
Keys expire after IDLE_TTL_S without writes."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, cast

import redis.asyncio as aioredis

from .hub import Hub
from .limits import IDLE_TTL_S, MAX_FOLLOWERS, MAX_SESSIONS, MAX_SNAPSHOTS, PRESENCE_TTL_S
from .store import AnswerOutcome, Full, Session, Store, public_question

P = "aiinfra:live:"
CHANNEL = P + "events"
NIL = "\x00nil"
SWEEP_EVERY_S = 300
POOL_SIZE = 32  # Redis connections per process (plus the one subscriber)

# Shared tail of every change: bump seq, touch, publish [code, seq, card, query, frame, locked,
# question, qstatus], return the session hash. KEYS[1] = session, KEYS[2] = sessions index;
# ARGV[1..4] = channel, code, now, ttl.
_BUMP = """
local function bump()
  local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  redis.call('HSET', KEYS[1], 'touched', ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
  local v = redis.call('HMGET', KEYS[1], 'card', 'query', 'frame', 'locked', 'question', 'qstatus')
  redis.call('PUBLISH', ARGV[1], cjson.encode({ARGV[2], seq, v[1], v[2], v[3], v[4], v[5], v[6]}))
  return redis.call('HGETALL', KEYS[1])
end
"""

CHANGE = (
    _BUMP
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
for i = 5, #ARGV, 2 do
  if ARGV[i + 1] == '\\0nil' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return bump()
"""
)

# KEYS[3] = questions (qid → record), KEYS[4] = statuses (qid → open/closed/revealed);
# ARGV[5], ARGV[6] = record and public JSON with "__QID__" where the new qid goes.
ASK = (
    _BUMP
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local cur = redis.call('HGET', KEYS[1], 'qid')
if cur and redis.call('HGET', KEYS[4], cur) == 'open' then redis.call('HSET', KEYS[4], cur, 'closed') end
local nq = redis.call('HINCRBY', KEYS[1], 'nq', 1)
local rec = string.gsub(ARGV[5], '"__QID__"', tostring(nq))
local pub = string.gsub(ARGV[6], '"__QID__"', tostring(nq))
redis.call('HSET', KEYS[3], nq, rec)
redis.call('HSET', KEYS[4], nq, 'open')
redis.call('EXPIRE', KEYS[3], ARGV[4])
redis.call('EXPIRE', KEYS[4], ARGV[4])
redis.call('HSET', KEYS[1], 'qid', nq, 'question', pub, 'qstatus', 'open')
return bump()
"""
)

# KEYS[3] = statuses; ARGV[5] = qid, ARGV[6] = new status (revealed stays revealed).
STATUS = (
    _BUMP
    + """
local st = redis.call('HGET', KEYS[3], ARGV[5])
if not st then return false end
if not (st == 'revealed' and ARGV[6] == 'closed') then redis.call('HSET', KEYS[3], ARGV[5], ARGV[6]); st = ARGV[6] end
if redis.call('HGET', KEYS[1], 'qid') == ARGV[5] then
  redis.call('HSET', KEYS[1], 'qstatus', st)
  return bump()
end
return redis.call('HGETALL', KEYS[1])
"""
)

# KEYS: statuses, answers of the question, session, sessions index; ARGV: qid, device, answer, ttl, now, code
ANSWER = """
local st = redis.call('HGET', KEYS[1], ARGV[1])
if not st then return 'missing' end
if st ~= 'open' then return 'closed' end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('HSET', KEYS[3], 'touched', ARGV[5])
redis.call('EXPIRE', KEYS[3], ARGV[4])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[6])
return 'ok'
"""

# KEYS: session, sessions index; ARGV: code, token hash, card, query, now, ttl, max sessions, cutoff
CREATE = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[8])
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[7]) then return -1 end
redis.call('HSET', KEYS[1], 'token_hash', ARGV[2], 'card', ARGV[3], 'query', ARGV[4], 'seq', 1, 'locked', 0,
           'created', ARGV[5], 'touched', ARGV[5], 'nq', 0)
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
return 1
"""

# KEYS: followers; ARGV: device, now, cutoff, max, ttl
JOIN = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  return redis.call('ZCARD', KEYS[1])
end
return -1
"""


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
    return Session(
        h["code"] if "code" in h else "",
        h["token_hash"],
        h["card"],
        h["query"],
        h.get("frame"),
        int(h["seq"]),
        h.get("locked") == "1",
        _question(h.get("question"), h.get("qstatus")),
        float(h["created"]),
        float(h["touched"]),
    )


def decode_event(raw: str) -> dict:
    code, seq, card, query, frame, locked, question, qstatus = json.loads(raw)
    return {
        "code": code,
        "card": card,
        "query": query,
        "frame": _opt(frame),
        "seq": int(seq),
        "locked": locked == "1",
        "question": _question(_opt(question), _opt(qstatus)),
    }


class RedisStore(Store):
    def __init__(self, url: str):
        self.url = url
        self._r: aioredis.Redis | None = None
        self._scripts: dict[str, Any] = {}
        self._swept: dict[str, float] = {}
        self._hub: Hub | None = None

    @property
    def r(self) -> aioredis.Redis:
        if self._r is None:
            # a bounded pool that waits for a free connection: a burst of joins queues up instead
            # of opening a Redis connection per follower
            pool = aioredis.BlockingConnectionPool.from_url(
                self.url, decode_responses=True, health_check_interval=30, max_connections=POOL_SIZE, timeout=20
            )
            self._r = aioredis.Redis(connection_pool=pool)
            for name, src in (
                ("change", CHANGE),
                ("ask", ASK),
                ("status", STATUS),
                ("answer", ANSWER),
                ("create", CREATE),
                ("join", JOIN),
            ):
                self._scripts[name] = self._r.register_script(src)
        return self._r

    def _run(self, name: str, keys: list[str], args: list[Any]):
        _ = self.r  # connect lazily
        return self._scripts[name](keys=keys, args=args)

    def _base(self, code: str) -> tuple[list[str], list[Any]]:
        return [_k("s", code), P + "sessions"], [CHANNEL, code, time.time(), IDLE_TTL_S]

    def _with_code(self, code: str, flat) -> Session | None:
        s = _session(flat)
        if s is not None:
            s.code = code
        return s

    # ------------------------------------------------------------------ sessions
    async def create(self, code: str, token_hash: str, card: str, query: str) -> Session | None:
        now = time.time()
        res = await self._run(
            "create",
            [_k("s", code), P + "sessions"],
            [code, token_hash, card, query, now, IDLE_TTL_S, MAX_SESSIONS, now - IDLE_TTL_S],
        )
        if res == -1:
            raise Full("sessions")
        return await self.get(code) if res == 1 else None

    async def get(self, code: str) -> Session | None:
        return self._with_code(code, await self.r.hgetall(_k("s", code)))

    async def change(self, code: str, **fields: Any) -> Session | None:
        keys, args = self._base(code)
        for k, v in fields.items():
            if k in ("card", "query", "frame", "locked"):
                args += [k, NIL if v is None else (int(v) if k == "locked" else v)]
        s = self._with_code(code, await self._run("change", keys, args))
        await self._sweep(code)
        return s

    async def ask(self, code: str, rec: dict) -> Session | None:
        keys, args = self._base(code)
        full = {**rec, "qid": "__QID__", "status": "open"}
        pub = {k: v for k, v in public_question(full).items() if k != "status"}
        args += [json.dumps(full, ensure_ascii=False), json.dumps(pub, ensure_ascii=False)]
        return self._with_code(code, await self._run("ask", keys + [_k("q", code), _k("qst", code)], args))

    async def set_status(self, code: str, qid: int, status: str) -> Session | None:
        keys, args = self._base(code)
        return self._with_code(code, await self._run("status", keys + [_k("qst", code)], args + [qid, status]))

    async def question(self, code: str, qid: int) -> dict | None:
        rec, st = await asyncio.gather(self.r.hget(_k("q", code), str(qid)), self.r.hget(_k("qst", code), str(qid)))
        return {**json.loads(rec), "qid": qid, "status": st} if rec and st else None

    async def answer(self, code: str, qid: int, device: str, ans: dict) -> AnswerOutcome:
        now = time.time()
        return await self._run(
            "answer",
            [_k("qst", code), _k("a", code, qid), _k("s", code), P + "sessions"],
            [qid, device, json.dumps(ans, ensure_ascii=False), IDLE_TTL_S, now, code],
        )

    async def answers(self, code: str, qid: int) -> dict[str, dict]:
        raw = cast(dict[str, str], await self.r.hgetall(_k("a", code, qid)))  # decode_responses=True: text
        return {d: json.loads(a) for d, a in raw.items()}

    async def count_answers(self, code: str, qid: int) -> int:
        return await self.r.hlen(_k("a", code, qid))

    # ------------------------------------------------------------------ snapshots
    async def add_snapshot(self, code: str, snap: dict) -> int:
        sid = await self.r.hincrby(_k("s", code), "snapn", 1)
        key = _k("snap", code)
        async with self.r.pipeline(transaction=True) as p:
            p.lpush(key, json.dumps({"sid": sid, **snap}, ensure_ascii=False))
            p.ltrim(key, 0, MAX_SNAPSHOTS - 1)
            p.expire(key, IDLE_TTL_S)
            await p.execute()
        return sid

    async def snapshots(self, code: str) -> list[dict]:
        return [json.loads(x) for x in await self.r.lrange(_k("snap", code), 0, -1)]

    # ------------------------------------------------------------------ presence and rates
    async def join(self, code: str, device: str) -> int | None:
        now = time.time()
        n = await self._run("join", [_k("f", code)], [device, now, now - PRESENCE_TTL_S, MAX_FOLLOWERS, IDLE_TTL_S])
        return None if n == -1 else int(n)

    async def leave(self, code: str, device: str) -> None:
        await self.r.zrem(_k("f", code), device)

    async def refresh(self, code: str, devices: list[str]) -> None:
        if devices:
            now = time.time()
            await self.r.zadd(_k("f", code), {d: now for d in devices})

    async def followers(self, code: str) -> int:
        return await self.r.zcount(_k("f", code), time.time() - PRESENCE_TTL_S, "+inf")

    async def allow(self, bucket: str, limit: int, window_s: int) -> bool:
        key = f"{P}rl:{bucket}:{int(time.time() // window_s)}"
        async with self.r.pipeline(transaction=True) as p:
            p.incr(key)
            p.expire(key, window_s * 2)
            n, _ = await p.execute()
        return n <= limit

    async def purge(self) -> int:
        """Session keys expire on their own (IDLE_TTL_S after the last write); drop the index entries."""
        return await self.r.zremrangebyscore(P + "sessions", "-inf", time.time() - IDLE_TTL_S)

    async def _sweep(self, code: str) -> None:
        """Every few minutes, push the expiry of all of a session's keys (old questions' answers
        too) out to IDLE_TTL_S from now, so a long class loses nothing."""
        now = time.time()
        if now - self._swept.get(code, 0) < SWEEP_EVERY_S:
            return
        self._swept[code] = now
        nq = int(await self.r.hget(_k("s", code), "nq") or 0)
        keys = [_k(k, code) for k in ("q", "qst", "snap", "f")] + [_k("a", code, i) for i in range(1, nq + 1)]
        async with self.r.pipeline(transaction=False) as p:
            for k in keys:
                p.expire(k, IDLE_TTL_S)
            await p.execute()

    # ------------------------------------------------------------------ the one subscriber of this process
    async def start(self, hub: Hub) -> None:
        self._hub = hub
        asyncio.get_running_loop().create_task(self._listen(hub))

    async def _listen(self, hub: Hub) -> None:
        backoff = 0.2
        while True:
            ps = self.r.pubsub(ignore_subscribe_messages=True)
            try:
                await ps.subscribe(CHANNEL)
                await self._resync(hub)
                backoff = 0.2
                async for msg in ps.listen():
                    if msg.get("type") == "message":
                        hub.deliver(decode_event(msg["data"]))
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis restarted or the network blinked: resubscribe, then catch up
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
            finally:
                try:
                    await ps.aclose()
                except Exception:
                    pass

    async def _resync(self, hub: Hub) -> None:
        """After (re)subscribing, hand every local session its current state: anything published
        while the subscriber was away is not lost, only coalesced."""
        for code in list(hub.conns):
            s = await self.get(code)
            if s is not None:
                hub.deliver(s.event())
