"""The live-class JSON API (the contract in issue 16). Writes that steer the class need the
instructor's token; followers may only join, answer and share snapshots."""

from __future__ import annotations

import math
import time
from typing import Annotated, Any, TypeAlias

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse

from .. import exercises
from ..cards import Question, resolve
from ..cards import run as compute
from ..chapters import reading_order
from ..labels import label_to_id, search
from ..text import rich
from . import cardinfo
from .deps import Instructor, LiveSession, card_state, check_token, fail, json_body
from .ids import new_code, new_token, token_hash
from .limits import (
    ANSWER_WINDOW_S,
    ANSWERS_PER_WINDOW,
    JOIN_WINDOW_S,
    JOINS_PER_WINDOW,
    MAX_FOLLOWERS,
    MAX_QUESTIONS,
    MAX_SESSIONS,
    SNAPSHOT_WINDOW_S,
    SNAPSHOTS_PER_WINDOW,
)
from .models import (
    Accepted,
    AnswerIn,
    Askables,
    AskIn,
    CardRef,
    Created,
    CreateIn,
    Joined,
    JoinIn,
    QidOut,
    Results,
    SeqOut,
    SidOut,
    SnapshotIn,
    Snapshots,
    StateIn,
    StateOut,
    errors,
    request_body,
)
from .results import summary, to_question_unit
from .store import Full, Session, get_store

router = APIRouter(tags=["课堂"])
CreateBody: TypeAlias = Annotated[CreateIn, Depends(json_body(CreateIn, optional=True))]
StateBody: TypeAlias = Annotated[StateIn, Depends(json_body(StateIn))]
AskBody: TypeAlias = Annotated[AskIn, Depends(json_body(AskIn))]
AnswerBody: TypeAlias = Annotated[AnswerIn, Depends(json_body(AnswerIn))]
JoinBody: TypeAlias = Annotated[JoinIn, Depends(json_body(JoinIn))]
SnapshotBody: TypeAlias = Annotated[SnapshotIn, Depends(json_body(SnapshotIn))]
NO_STORE = {"Cache-Control": "no-store"}


def ok(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers=NO_STORE)


def full_class() -> HTTPException:
    return fail(503, "code", f"本课堂已满:最多 {MAX_FOLLOWERS:,} 人同时跟随", "full")


def public_state(s: Session, followers: int) -> dict:
    return {**s.event(), "followers": followers}


def changed(new: Session | None, code: str) -> Session:
    """The session after a store change; None means it was purged meanwhile: 404, as the lookup says."""
    if new is None:
        raise fail(404, "code", f"没有课堂码为 {code[:12]} 的课堂(可能已结束或过期)", "not_found")
    return new


# ------------------------------------------------------------------ helpers pages share


@router.get(
    "/api/live/resolve",
    response_model=CardRef,
    responses=errors(404, 422),
    summary="跳转框:图号、例题号或标题词 → 卡片编号",
)
async def resolve_card(q: str = "") -> JSONResponse:
    q = q[:100]
    cid = label_to_id(q) if q else None
    hits = [] if cid else search(q, limit=2)
    cid = cid or (hits[0] if len(hits) == 1 else None)
    if cid is None:
        raise fail(404, "q", f"找不到 “{q}” 对应的唯一卡片", "not_found")
    return ok({"card": cid})


@router.get(
    "/api/live/askable/{card}",
    response_model=Askables,
    responses=errors(404, 422),
    summary="这张卡片在此状态下可以问全班的题目",
)
async def askable(card: str, request: Request) -> JSONResponse:
    if resolve(card) is None:  # a path names a resource: an unknown card is not found
        raise fail(404, "card", f"没有编号为 “{card[:40]}” 的卡片", "not_found")
    c, params = card_state(card, request.url.query)
    view = compute(c, params)
    return ok(
        {
            "card": c.id,
            "askable": [
                {
                    "key": a.key,
                    "label": a.label,
                    "source": a.source,
                    "unit": a.question.unit,
                    "kind": a.question.kind,
                    "on_axis": cardinfo.axis_of(c, view, a.key) is not None,
                }
                for a in cardinfo.askables(c, params, view)
            ],
        }
    )


# ------------------------------------------------------------------ sessions and state


@router.post(
    "/api/live",
    status_code=201,
    response_model=Created,
    responses=errors(413, 422, 503),
    openapi_extra=request_body(CreateIn, required=False),
    summary="开课:新建课堂,返回课堂码与教师令牌",
)
async def create(request: Request, data: CreateBody) -> JSONResponse:
    card, params = card_state(data.card or reading_order()[0], data.query)
    token, store = new_token(), get_store()
    for _ in range(20):
        try:
            s = await store.create(new_code(), token_hash(token), card.id, data.query)
        except Full:
            raise fail(503, "code", f"本实例同时开课的课堂已达上限({MAX_SESSIONS} 个),请稍后再试", "full") from None
        if s is not None:
            break
    else:
        raise fail(503, "code", "暂时无法分配课堂码,请重试", "busy")
    base = str(request.base_url).rstrip("/")
    return ok(
        {
            "code": s.code,
            "token": token,
            "follow_url": f"{base}/live/{s.code}",
            "control_url": f"{base}/live/{s.code}/control#t={token}",
        },
        201,
    )


@router.get("/api/live/{code}", response_model=StateOut, responses=errors(404, 422), summary="课堂的当前状态")
async def state(s: LiveSession) -> JSONResponse:
    return ok(public_state(s, await get_store().followers(s.code)))


@router.put(
    "/api/live/{code}/state",
    response_model=SeqOut,
    responses=errors(401, 403, 404, 413, 422),
    openapi_extra=request_body(StateIn),
    summary="教师:切换卡片或参数(全班跟随)",
)
async def put_state(s: Instructor, data: StateBody) -> JSONResponse:
    card, _ = card_state(data.card, data.query)
    new = changed(await get_store().change(s.code, card=card.id, query=data.query, frame=data.frame), s.code)
    return ok({"seq": new.seq})


async def _lock(s: Session, locked: bool) -> JSONResponse:
    new = changed(await get_store().change(s.code, locked=locked), s.code)
    return ok({"seq": new.seq, "locked": new.locked})


@router.post(
    "/api/live/{code}/lock",
    response_model=SeqOut,
    responses=errors(401, 403, 404, 422),
    summary="教师:锁定全班在当前卡片与状态",
)
async def lock(s: Instructor) -> JSONResponse:
    return await _lock(s, True)


@router.post(
    "/api/live/{code}/unlock", response_model=SeqOut, responses=errors(401, 403, 404, 422), summary="教师:解除锁定"
)
async def unlock(s: Instructor) -> JSONResponse:
    return await _lock(s, False)


@router.post(
    "/api/live/{code}/join",
    response_model=Joined,
    responses=errors(404, 413, 422, 429, 503),
    openapi_extra=request_body(JoinIn),
    summary="学生:加入课堂(可选昵称)",
)
async def join(s: LiveSession, data: JoinBody) -> JSONResponse:
    store = get_store()
    if not await store.allow(f"j:{s.code}:{data.device}", JOINS_PER_WINDOW, JOIN_WINDOW_S):
        raise fail(429, "device", "加入太频繁,请稍候", "rate_limited")
    n = await store.join(s.code, data.device)
    if n is None:
        raise full_class()
    return ok({"followers": n, "state": s.event()})


# ------------------------------------------------------------------ questions


def _question_record(card, params, query: str, key: str) -> dict:
    view = compute(card, params)
    item = cardinfo.find(card, params, view, key)
    if item is None:
        keys = "、".join(a.key for a in cardinfo.askables(card, params, view))[:300]
        raise fail(422, "key", f"不是这张卡片可问的题目;可选:{keys}", "unknown_key")
    q, expected = item.question, cardinfo.expected(view, key)
    if isinstance(expected, float) and not math.isfinite(expected):
        raise fail(422, "key", "这个量在当前参数下没有有限值", "not_finite")
    return {
        "card": card.id,
        "key": key,
        "query": query,
        "label": item.label,
        "source": item.source,
        "prompt": q.prompt,
        "prompt_html": str(rich(q.prompt)),
        "unit": q.unit,
        "units": dict(q.units),
        "kind": q.kind,
        "options": dict(q.options),
        "expected": expected if isinstance(expected, (bool, str)) else float(expected),
        "axis": cardinfo.axis_of(card, view, key),
        "asked": time.time(),
    }


@router.post(
    "/api/live/{code}/questions",
    status_code=201,
    response_model=QidOut,
    responses=errors(401, 403, 404, 413, 422, 429),
    openapi_extra=request_body(AskIn),
    summary="教师:向全班提问(练习题或“预测这个数”)",
)
async def ask(s: Instructor, data: AskBody) -> JSONResponse:
    card, params = card_state(data.card, data.query)
    rec = _question_record(card, params, data.query, data.key)
    if s.question and s.question["qid"] >= MAX_QUESTIONS:
        raise fail(429, "key", f"每个课堂最多提问 {MAX_QUESTIONS} 次", "too_many")
    new = changed(await get_store().ask(s.code, rec), s.code)
    assert new.question is not None  # Store.ask makes the new question the current one
    return ok({"qid": new.question["qid"], "seq": new.seq}, 201)


async def _question(s: Session, qid: int) -> dict:
    rec = await get_store().question(s.code, qid)
    if rec is None:
        raise fail(404, "qid", f"没有第 {qid} 题", "not_found")
    return rec


def _checked_answer(rec: dict, data: AnswerIn) -> dict:
    """The answer in the exercise checker's terms (units, 正确/接近/不对), or 422."""
    value: Any = data.value
    if rec["kind"] == "numeric":
        if isinstance(value, bool):
            raise fail(422, "value", "须为数字", "float_parsing")
        try:
            value = float(str(value).replace(",", "")) if isinstance(value, str) else float(value)
        except ValueError:
            raise fail(422, "value", "须为数字", "float_parsing") from None
        if not math.isfinite(value):
            raise fail(422, "value", "须为有限数", "finite_number")
        allowed = [rec["unit"], *rec.get("units", {})]
        if data.unit is not None and data.unit not in allowed:
            raise fail(422, "unit", "不是可选单位;可选:" + "、".join(u for u in allowed if u), "literal_error")
    elif rec["kind"] == "bool":
        if str(value).lower() not in ("true", "false"):
            raise fail(422, "value", "须为 true 或 false", "bool_parsing")
        value = str(value).lower() == "true"
    elif rec["kind"] == "choice" and str(value) not in rec.get("options", {}):
        raise fail(422, "value", "不是可选项;可选:" + "、".join(rec["options"]), "literal_error")
    q = Question(
        rec["key"],
        rec["prompt"],
        rec["unit"],
        kind=rec["kind"],
        units=rec.get("units", {}),
        options=rec.get("options", {}),
    )
    verdict = exercises.check(q, rec["expected"], value, data.unit)["verdict"]
    norm = to_question_unit(rec, value, data.unit) if rec["kind"] == "numeric" else None
    return {"value": value, "unit": data.unit, "norm": norm, "verdict": verdict, "nick": data.nick, "t": time.time()}


@router.post(
    "/api/live/{code}/questions/{qid}/answers",
    response_model=Accepted,
    responses=errors(404, 409, 413, 422, 429),
    openapi_extra=request_body(AnswerIn),
    summary="学生:作答(每台设备一份,收卷前可改)",
)
async def answer(s: LiveSession, qid: int, data: AnswerBody) -> JSONResponse:
    rec = await _question(s, qid)
    if rec["status"] != "open":
        raise fail(409, "qid", "已收卷,不能再作答", "closed")
    ans = _checked_answer(rec, data)
    store = get_store()
    if not await store.allow(f"a:{s.code}:{data.device}", ANSWERS_PER_WINDOW, ANSWER_WINDOW_S):
        raise fail(429, "device", f"作答太频繁:每 {ANSWER_WINDOW_S} 秒最多 {ANSWERS_PER_WINDOW} 次", "rate_limited")
    outcome = await store.answer(s.code, qid, data.device, ans)
    if outcome == "closed":
        raise fail(409, "qid", "已收卷,不能再作答", "closed")
    return ok({"accepted": True})


async def _status(s: Session, qid: int, status: str) -> JSONResponse:
    await _question(s, qid)
    new = changed(await get_store().set_status(s.code, qid, status), s.code)
    rec = await _question(s, qid)
    return ok({"seq": new.seq, "status": rec["status"]})


@router.post(
    "/api/live/{code}/questions/{qid}/close",
    response_model=SeqOut,
    responses=errors(401, 403, 404, 422),
    summary="教师:收卷",
)
async def close(s: Instructor, qid: int) -> JSONResponse:
    return await _status(s, qid, "closed")


@router.post(
    "/api/live/{code}/questions/{qid}/reveal",
    response_model=SeqOut,
    responses=errors(401, 403, 404, 422),
    summary="教师:公布结果",
)
async def reveal(s: Instructor, qid: int) -> JSONResponse:
    return await _status(s, qid, "revealed")


@router.get(
    "/api/live/{code}/questions/{qid}/results",
    response_model=Results,
    responses=errors(403, 404, 422),
    summary="作答结果:人数总是可见;分布与真值需令牌或公布后",
)
async def results(
    request: Request, s: LiveSession, qid: int, full: bool = False, device: str | None = None
) -> JSONResponse:
    rec = await _question(s, qid)
    teacher = check_token(request, s, required=False)
    shown = teacher or rec["status"] == "revealed"
    if full and not shown:
        raise fail(403, "qid", "结果在老师公布前不可见", "forbidden")
    store = get_store()
    if not shown:
        return ok(summary(rec, {}, full=False) | {"answered": await store.count_answers(s.code, qid)})
    answers = await store.answers(s.code, qid)
    out = summary(rec, answers, full=True, names=teacher)
    if device and device in answers:
        out["mine"] = {"verdict": answers[device]["verdict"], "value": answers[device]["value"]}
    return ok(out)


# ------------------------------------------------------------------ snapshots


@router.post(
    "/api/live/{code}/share",
    status_code=201,
    response_model=SidOut,
    responses=errors(404, 413, 422, 429),
    openapi_extra=request_body(SnapshotIn),
    summary="学生:把自己的卡片状态分享给老师",
)
async def share(s: LiveSession, data: SnapshotBody) -> JSONResponse:
    card, _ = card_state(data.card, data.query)
    store = get_store()
    if not await store.allow(f"s:{s.code}:{data.device}", SNAPSHOTS_PER_WINDOW, SNAPSHOT_WINDOW_S):
        raise fail(429, "device", f"分享太频繁:每 {SNAPSHOT_WINDOW_S} 秒最多 {SNAPSHOTS_PER_WINDOW} 次", "rate_limited")
    sid = await store.add_snapshot(
        s.code,
        {"nick": data.nick or "", "card": card.id, "query": data.query, "title": card.display_title, "t": time.time()},
    )
    return ok({"sid": sid}, 201)


@router.get(
    "/api/live/{code}/snapshots",
    response_model=Snapshots,
    responses=errors(401, 403, 404, 422),
    summary="教师:学生分享的快照",
)
async def snapshots(s: Instructor) -> JSONResponse:
    return ok({"snapshots": await get_store().snapshots(s.code)})
