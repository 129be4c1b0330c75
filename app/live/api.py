"""The live-class JSON API (the contract in issues 16 and 25). Writes that steer the class need the
instructor's token; followers may only join, answer and share, each with the participant credential
that join hands out (one phone, one vote). Limits are counted per client address (app/live/limits.py)."""

from __future__ import annotations

import math
import time
from typing import Annotated, Any, TypeAlias

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import answers, exercises
from ..cards import REGISTRY, Question, explain, resolve
from ..cards import run as compute
from ..chapters import reading_order
from ..labels import label_to_id, search
from ..text import rich
from ..words import current_lang, localize, prefixed, words_for
from . import cardinfo
from .deps import (
    AnySession,
    Instructor,
    LiveDep,
    LiveSession,
    StoreDep,
    address,
    card_state,
    check_token,
    fail,
    json_body,
    network,
    number_answer,
    participant_of,
    qid_param,
)
from .ids import new_code, new_token, token_hash
from .limits import (
    ANSWER_WINDOW_S,
    ANSWERS_PER_WINDOW,
    IDLE_TTL_S,
    JOIN_WINDOW_S,
    JOINS_PER_ADDRESS,
    JOINS_PER_NETWORK,
    MAX_CLASSES_PER_ADDRESS,
    MAX_CLASSES_PER_NETWORK,
    MAX_FOLLOWERS,
    MAX_FOLLOWERS_PER_ADDRESS,
    MAX_FOLLOWERS_PER_NETWORK,
    MAX_QUESTIONS,
    MAX_SESSIONS,
    REJOINS_PER_PARTICIPANT,
    SLOT_IDLE_S,
    SNAPSHOT_WINDOW_S,
    SNAPSHOTS_PER_WINDOW,
    STREAMS_PER_ADDRESS,
    STREAMS_PER_NETWORK,
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
from .results import class_summary, results_csv, summary, to_question_unit
from .store import Full, Session, Store, in_edition, slip_text

W = words_for(__name__)

router = APIRouter(tags=[W["router.tags"]])
CreateBody: TypeAlias = Annotated[CreateIn, Depends(json_body(CreateIn))]
StateBody: TypeAlias = Annotated[StateIn, Depends(json_body(StateIn))]
AskBody: TypeAlias = Annotated[AskIn, Depends(json_body(AskIn))]
AnswerBody: TypeAlias = Annotated[AnswerIn, Depends(json_body(AnswerIn))]
JoinBody: TypeAlias = Annotated[JoinIn, Depends(json_body(JoinIn))]
SnapshotBody: TypeAlias = Annotated[SnapshotIn, Depends(json_body(SnapshotIn))]
Qid: TypeAlias = Annotated[int, Depends(qid_param)]
NO_STORE = {"Cache-Control": "no-store"}


def ok(data: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers=NO_STORE)


FULL_STREAM = {
    "address": W.f("full_stream.address", max_followers_per_address=MAX_FOLLOWERS_PER_ADDRESS),
    "network": W.f("full_stream.network", max_followers_per_network=MAX_FOLLOWERS_PER_NETWORK),
    "stream_address": W.f("full_stream.stream_address", streams_per_address=STREAMS_PER_ADDRESS),
    "stream_network": W.f("full_stream.stream_network", streams_per_network=STREAMS_PER_NETWORK),
}


def full_class(why: str = "followers") -> HTTPException:
    """The class cannot take one more connected follower: the whole class or the whole server (503),
    or this address's or network's share of it (429); the phone retries after Retry-After. The
    connection closes with the answer (a refused stream holds no descriptor)."""
    headers = {"Retry-After": "30", "Connection": "close"}
    if why in FULL_STREAM:
        return fail(429, "code", FULL_STREAM[why], "too_many", headers)
    if why == "streams":
        return fail(503, "code", W["full_class.fail"], "full", headers)
    return fail(503, "code", W.f("full_class.fail_2", max_followers=MAX_FOLLOWERS), "full", headers)


def slot_frees(seconds: int) -> str:
    """When a class slot frees, as the cap's message says it."""
    minutes = max(1, math.ceil(seconds / 60))
    return W.f("slot_frees", minutes=minutes, v=SLOT_IDLE_S // 60)


def retry_after(window_s: int) -> dict:
    """Retry-After for a fixed window: the seconds until the next one starts."""
    return {"Retry-After": str(max(1, math.ceil(window_s - time.time() % window_s)))}


def public_state(s: Session, followers: int) -> dict:
    return {**in_edition(s.event()), "followers": followers}


def changed(new: Session | None, code: str) -> Session:
    """The class after a store change; None means it ended or expired meanwhile: 410 / 404, as the
    lookup would say."""
    if new is None:
        raise fail(410, "code", W.f("changed.fail", code=code), "ended")
    return new


# ------------------------------------------------------------------ helpers pages share


@router.get(
    "/api/live/resolve",
    response_model=CardRef,
    responses=errors(404, 422),
    summary=W["api_live_resolve.summary"],
)
async def resolve_card(q: str = "") -> JSONResponse:
    q = q[:100]
    cid = label_to_id(q) if q else None
    hits = [] if cid else search(q, limit=2)
    cid = cid or (hits[0] if len(hits) == 1 else None)
    if cid is None:
        raise fail(404, "q", W.f("resolve_card.fail", q=q), "not_found")
    return ok({"card": cid})


@router.get(
    "/api/live/askable/{card}",
    response_model=Askables,
    responses=errors(404, 422),
    summary=W["api_live_askable_card.summary"],
)
async def askable(card: str, request: Request) -> JSONResponse:
    if resolve(card) is None:  # a path names a resource: an unknown card is not found
        raise fail(404, "card", W.f("askable.fail", v=card[:40]), "not_found")
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


# ------------------------------------------------------------------ classes and their state


@router.post(
    "/api/live",
    status_code=201,
    response_model=Created,
    responses=errors(413, 415, 422, 429, 503),
    openapi_extra=request_body(CreateIn),
    summary=W["api_live.summary"],
    description=W.f(
        "api_live.description",
        max_classes_per_address=MAX_CLASSES_PER_ADDRESS,
        max_classes_per_network=MAX_CLASSES_PER_NETWORK,
        v=SLOT_IDLE_S // 60,
        v2=IDLE_TTL_S // 3600,
    ),
)
async def create(request: Request, data: CreateBody, live: LiveDep) -> JSONResponse:
    card, params = card_state(data.card or reading_order()[0], data.query)
    k = await live.keys()
    owner, net = k.address(address(request)), k.address(network(request))
    token, store = new_token(), live.store
    for _ in range(20):
        try:
            s = await store.create(new_code(), token_hash(token), card.id, data.query, owner, net)
        except Full as e:
            why = e.args[0] if e.args else "sessions"
            wait = int(e.args[1]) if len(e.args) > 1 else SLOT_IDLE_S
            headers = {"Retry-After": str(wait)}
            if why == "owner":
                msg = W.f("create", max_classes_per_address=MAX_CLASSES_PER_ADDRESS)
                raise fail(429, "code", msg + slot_frees(wait), "too_many", headers) from None
            if why == "network":
                msg = W.f("create_2", max_classes_per_network=MAX_CLASSES_PER_NETWORK)
                raise fail(429, "code", msg + slot_frees(wait), "too_many", headers) from None
            msg = W.f("create_3", max_sessions=MAX_SESSIONS)
            raise fail(503, "code", msg + slot_frees(wait), "full", headers) from None
        if s is not None:
            break
    else:
        raise fail(503, "code", W["create.fail"], "busy")
    base = str(request.base_url).rstrip("/")
    here = prefixed(f"/live/{s.code}", current_lang())  # ?lang=en: the English pages
    return ok(
        {
            "code": s.code,
            "token": token,
            "follow_url": f"{base}{here}",
            "control_url": f"{base}{here}/control#t={token}",
        },
        201,
    )


class ClassRoute(APIRoute):
    """``/api/live/{code}`` is two routes (GET the state, DELETE = 下课): a 405 there names both."""

    async def handle(self, scope, receive, send) -> None:
        if self.methods and scope["method"] not in self.methods:
            raise StarletteHTTPException(405, headers={"Allow": "GET, DELETE"})
        await super().handle(scope, receive, send)


async def state(s: LiveSession, store: StoreDep) -> JSONResponse:
    """课堂的当前状态 (followers = connected event streams)."""
    return ok(public_state(s, await store.followers(s.code)))


router.add_api_route(
    "/api/live/{code}",
    state,
    methods=["GET"],
    response_model=StateOut,
    responses=errors(404, 410, 422, 503),
    summary=W["module.summary"],
    route_class_override=ClassRoute,
)


@router.delete(
    "/api/live/{code}",
    status_code=204,
    responses=errors(401, 403, 404, 410, 503),
    summary=W["api_live_code.summary"],
)
async def end_class(s: Instructor, store: StoreDep) -> Response:
    questions = await store.questions(s.code)
    answers = {q["qid"]: await store.answers(s.code, q["qid"]) for q in questions}
    changed(await store.end(s.code, class_summary(s, questions, answers)), s.code)
    return Response(status_code=204, headers=NO_STORE)


@router.put(
    "/api/live/{code}/state",
    response_model=SeqOut,
    responses=errors(401, 403, 404, 410, 413, 415, 422, 503),
    openapi_extra=request_body(StateIn),
    summary=W["api_live_code_state.summary"],
)
async def put_state(s: Instructor, data: StateBody, store: StoreDep) -> JSONResponse:
    card, _ = card_state(data.card, data.query)
    new = changed(await store.change(s.code, card=card.id, query=data.query, frame=data.frame), s.code)
    return ok({"seq": new.seq})


async def _lock(store: Store, s: Session, locked: bool) -> JSONResponse:
    new = changed(await store.change(s.code, locked=locked), s.code)
    return ok({"seq": new.seq, "locked": new.locked})


@router.post(
    "/api/live/{code}/lock",
    response_model=SeqOut,
    responses=errors(401, 403, 404, 410, 422, 503),
    summary=W["api_live_code_lock.summary"],
)
async def lock(s: Instructor, store: StoreDep) -> JSONResponse:
    return await _lock(store, s, True)


@router.post(
    "/api/live/{code}/unlock",
    response_model=SeqOut,
    responses=errors(401, 403, 404, 410, 422, 503),
    summary=W["api_live_code_unlock.summary"],
)
async def unlock(s: Instructor, store: StoreDep) -> JSONResponse:
    return await _lock(store, s, False)


@router.post(
    "/api/live/{code}/join",
    response_model=Joined,
    responses=errors(404, 410, 413, 415, 422, 429, 503),
    openapi_extra=request_body(JoinIn),
    summary=W["api_live_code_join.summary"],
    description=W.f(
        "api_live_code_join.description",
        join_window_s=JOIN_WINDOW_S,
        joins_per_address=JOINS_PER_ADDRESS,
        joins_per_network=JOINS_PER_NETWORK,
        join_window_s2=JOIN_WINDOW_S,
        rejoins_per_participant=REJOINS_PER_PARTICIPANT,
    ),
)
async def join(request: Request, s: LiveSession, data: JoinBody, live: LiveDep) -> JSONResponse:
    store, k = live.store, await live.keys()
    epoch = k.epoch(s.code, s.token_hash)
    p = k.open(data.participant) if data.participant else None
    if p is not None and p.code == s.code and p.epoch == epoch:
        if not await store.allow(f"r:{s.code}:{p.pid}", REJOINS_PER_PARTICIPANT, JOIN_WINDOW_S):
            raise fail(429, "participant", W["join.fail"], "rate_limited", retry_after(JOIN_WINDOW_S))
        credential = data.participant
    else:
        bucket = f"j:{s.code}:{k.address(address(request))}"
        if not await store.allow(bucket, JOINS_PER_ADDRESS, JOIN_WINDOW_S):
            raise fail(
                429,
                "code",
                W.f("join.fail_2", joins_per_address=JOINS_PER_ADDRESS),
                "rate_limited",
                retry_after(JOIN_WINDOW_S),
            )
        if not await store.allow(f"jn:{s.code}:{k.address(network(request))}", JOINS_PER_NETWORK, JOIN_WINDOW_S):
            raise fail(
                429,
                "code",
                W.f("join.fail_3", joins_per_network=JOINS_PER_NETWORK),
                "rate_limited",
                retry_after(JOIN_WINDOW_S),
            )
        credential, p = k.issue(s.code, epoch)
    return ok({"participant": credential, "followers": await store.followers(s.code), "state": in_edition(s.event())})


# ------------------------------------------------------------------ questions


def _question_record(card, params, query: str, key: str) -> dict:
    view = compute(card, params)
    item = cardinfo.find(card, params, view, key)
    if item is None:
        keys_ = W["question_record"].join(a.key for a in cardinfo.askables(card, params, view))[:300]
        raise fail(422, "key", W.f("question_record.fail", keys=keys_), "unknown_key")
    q, expected = item.question, cardinfo.expected(view, key)
    if isinstance(expected, float) and not math.isfinite(expected):
        raise fail(422, "key", W["question_record.fail_2"], "not_finite")
    slips = []  # the slips of the number's own derivation, worked out once (traced) for every answer
    slip_words: dict[str, dict] = {}  # each slip's name in every edition (a phone shows its own)
    if q.kind == "numeric":
        traced = explain(card, params)[0].outputs.get(key, expected)
        found = [s for s in exercises.slips_of(q, traced) if s.value]
        slips = [[s.id, s.text, float(s.value)] for s in found]
        slip_words = cardinfo.in_each_edition(lambda: {s.id: s.text for s in found})
    return {
        "card": card.id,
        "key": key,
        "query": query,
        "label": item.label,
        "source": item.source,
        "prompt": q.prompt,
        "prompt_html": str(rich(q.prompt)),
        "conditions": cardinfo.state_label(card, params),
        "unit": q.unit,
        "units": dict(q.units),
        "kind": q.kind,
        "options": dict(q.options),
        "tolerance": q.tolerance,
        "expected": expected if isinstance(expected, (bool, str)) else float(expected),
        "slips": slips,
        "axis": cardinfo.axis_of(card, view, key),
        "asked": time.time(),
        "words": cardinfo.question_words(card, params, view, key),
        "slip_words": slip_words,
    }


@router.post(
    "/api/live/{code}/questions",
    status_code=201,
    response_model=QidOut,
    responses=errors(401, 403, 404, 410, 413, 415, 422, 429, 503),
    openapi_extra=request_body(AskIn),
    summary=W["api_live_code_questions.summary"],
)
async def ask(s: Instructor, data: AskBody, store: StoreDep) -> JSONResponse:
    card, params = card_state(data.card, data.query)
    rec = _question_record(card, params, data.query, data.key)
    if s.question and s.question["qid"] >= MAX_QUESTIONS:
        raise fail(429, "key", W.f("ask.fail", max_questions=MAX_QUESTIONS), "too_many")
    new = changed(await store.ask(s.code, rec), s.code)
    assert new.question is not None  # Store.ask makes the new question the current one
    return ok({"qid": new.question["qid"], "seq": new.seq}, 201)


async def _question(store: Store, s: Session, qid: int) -> dict:
    rec = await store.question(s.code, qid)
    if rec is None:
        raise fail(404, "qid", W.f("question.fail", qid=qid), "not_found")
    return rec


def _checked_answer(rec: dict, data: AnswerIn) -> dict:
    """The answer in the exercise checker's terms (units, 正确/接近/不对), or 422."""
    value: Any = data.value
    unit = data.unit
    if rec["kind"] == "numeric":
        allowed = [rec["unit"], *rec.get("units", {})]
        if isinstance(value, str):  # typed text, read as the page's answers are (a unit typed with it wins)
            read = answers.read(value, rec["unit"], allowed)
            if read.error:
                raise fail(422, "value", read.error, "float_parsing")
            value, unit = read.value, read.unit or unit
            if unit is not None and unit not in allowed:  # a sibling (GiB for GB): converted
                value, unit = value * answers.factor(unit, rec["unit"]), None
        value = number_answer(value)
        if unit is not None and unit not in allowed:
            raise fail(
                422,
                "unit",
                W["checked_answer.fail"] + W["question_record"].join(u for u in allowed if u),
                "literal_error",
            )
    elif rec["kind"] == "bool":
        if str(value).lower() not in ("true", "false"):
            raise fail(422, "value", W["checked_answer.fail_2"], "bool_parsing")
        value = str(value).lower() == "true"
    elif rec["kind"] == "choice" and str(value) not in rec.get("options", {}):
        raise fail(
            422, "value", W["checked_answer.fail_3"] + W["question_record"].join(rec["options"]), "literal_error"
        )
    q = Question(
        rec["key"],
        rec["prompt"],
        rec["unit"],
        kind=rec["kind"],
        units=rec.get("units", {}),
        options=rec.get("options", {}),
        tolerance=rec.get("tolerance"),
    )
    # the rule of the card's own check (its display rounding, the slips of its derivation)
    card = REGISTRY.get(rec["card"])
    decl = card.outputs.get(rec["key"]) if card else None
    slips = [exercises.Slip(*s) for s in rec["slips"]] if "slips" in rec else None
    r = exercises.check(q, rec["expected"], value, unit, decl, slips)
    norm = to_question_unit(rec, value, unit) if rec["kind"] == "numeric" else None
    return {
        "value": value,
        "unit": unit,
        "norm": norm,
        "verdict": r["verdict"],
        "diagnosis": r.get("diagnosis"),
        "diagnosis_text": r.get("diagnosis_text"),
        "nick": data.nick,
        "t": time.time(),
    }


@router.post(
    "/api/live/{code}/questions/{qid}/answers",
    response_model=Accepted,
    responses=errors(403, 404, 409, 410, 413, 415, 422, 429, 503),
    openapi_extra=request_body(AnswerIn),
    summary=W["api_live_code_questions_qid_answers.summary"],
)
async def answer(s: LiveSession, qid: Qid, data: AnswerBody, live: LiveDep) -> JSONResponse:
    store = live.store
    p = participant_of(await live.keys(), s, data.participant)
    rec = await _question(store, s, qid)
    if rec["status"] != "open":
        raise fail(409, "qid", W["answer.fail"], "closed")
    ans = _checked_answer(rec, data)
    if not await store.allow(f"a:{s.code}:{p.pid}", ANSWERS_PER_WINDOW, ANSWER_WINDOW_S):
        raise fail(
            429,
            "participant",
            W.f("answer.fail_2", answer_window_s=ANSWER_WINDOW_S, answers_per_window=ANSWERS_PER_WINDOW),
            "rate_limited",
            retry_after(ANSWER_WINDOW_S),
        )
    outcome = await store.answer(s.code, qid, p.pid, ans)
    if outcome == "closed":
        raise fail(409, "qid", W["answer.fail"], "closed")
    return ok({"accepted": True})


async def _status(store: Store, s: Session, qid: int, status: str) -> JSONResponse:
    await _question(store, s, qid)
    new = changed(await store.set_status(s.code, qid, status), s.code)
    rec = await _question(store, s, qid)
    return ok({"seq": new.seq, "status": rec["status"]})


@router.post(
    "/api/live/{code}/questions/{qid}/close",
    response_model=SeqOut,
    responses=errors(401, 403, 404, 410, 422, 503),
    summary=W["api_live_code_questions_qid_close.summary"],
)
async def close(s: Instructor, qid: Qid, store: StoreDep) -> JSONResponse:
    return await _status(store, s, qid, "closed")


@router.post(
    "/api/live/{code}/questions/{qid}/reveal",
    response_model=SeqOut,
    responses=errors(401, 403, 404, 410, 422, 503),
    summary=W["api_live_code_questions_qid_reveal.summary"],
)
async def reveal(s: Instructor, qid: Qid, store: StoreDep) -> JSONResponse:
    return await _status(store, s, qid, "revealed")


@router.get(
    "/api/live/{code}/questions/{qid}/results",
    response_model=Results,
    responses=errors(403, 404, 410, 422, 503),
    summary=W["api_live_code_questions_qid_results.summary"],
)
async def results(
    request: Request,
    s: LiveSession,
    qid: Qid,
    live: LiveDep,
    participant: Annotated[str | None, Query(description=W["module.description"])] = None,
    full: Annotated[str, Query(description=W["module.description_2"])] = "",
) -> JSONResponse:
    store = live.store
    rec = in_edition(await _question(store, s, qid))  # its label in the edition asked for (lang=en)
    teacher = check_token(request, s, required=False)
    shown = teacher or rec["status"] == "revealed"
    if full.lower() in ("1", "true", "yes") and not shown:
        raise fail(403, "qid", W["results.fail"], "forbidden")
    if not shown:
        return ok(summary(rec, {}, full=False) | {"answered": await store.count_answers(s.code, qid)})
    answers = await store.answers(s.code, qid)
    out = summary(rec, answers, full=True, names=teacher)
    out["unit_text"] = rec.get("unit_names", {}).get(rec["unit"], rec["unit"])  # the unit in the edition asked for
    for d in out.get("diagnoses", []):
        d["text"] = slip_text(rec, d["id"], d["text"])
    if participant:
        p = participant_of(await live.keys(), s, participant[:200])
        if p.pid in answers:
            a = answers[p.pid]  # the phone's own verdict and, after 公布, its own named slip (issue 39)
            out["mine"] = {
                "verdict": a["verdict"],
                "value": a["value"],
                "diagnosis": a.get("diagnosis"),
                "diagnosis_text": slip_text(rec, a.get("diagnosis"), a.get("diagnosis_text")),
            }
    return ok(out)


@router.get(
    "/api/live/{code}/results.csv",
    responses={
        200: {
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "description": W["api_live_code_results_csv.description"],
        },
        **errors(401, 403, 404, 503),
    },
    response_class=Response,
    summary=W["api_live_code_results_csv.summary"],
)
async def export_csv(request: Request, s: AnySession, store: StoreDep) -> Response:
    check_token(request, s)
    questions = await store.questions(s.code)
    answers = {q["qid"]: await store.answers(s.code, q["qid"]) for q in questions}
    return Response(
        results_csv(questions, answers).encode("utf-8-sig"),  # the BOM: spreadsheet programs read it as UTF-8
        media_type="text/csv; charset=utf-8",
        headers={**NO_STORE, "Content-Disposition": f'attachment; filename="live-{s.code}-results.csv"'},
    )


# ------------------------------------------------------------------ snapshots


@router.post(
    "/api/live/{code}/share",
    status_code=201,
    response_model=SidOut,
    responses=errors(403, 404, 410, 413, 415, 422, 429, 503),
    openapi_extra=request_body(SnapshotIn),
    summary=W["api_live_code_share.summary"],
)
async def share(s: LiveSession, data: SnapshotBody, live: LiveDep) -> JSONResponse:
    p = participant_of(await live.keys(), s, data.participant)
    card, params = card_state(data.card, data.query)
    store = live.store
    if not await store.allow(f"s:{s.code}:{p.pid}", SNAPSHOTS_PER_WINDOW, SNAPSHOT_WINDOW_S):
        raise fail(
            429,
            "participant",
            W.f("share.fail", snapshot_window_s=SNAPSHOT_WINDOW_S, snapshots_per_window=SNAPSHOTS_PER_WINDOW),
            "rate_limited",
            retry_after(SNAPSHOT_WINDOW_S),
        )
    sid = await store.add_snapshot(
        s.code,
        {
            "nick": data.nick or "",
            "card": card.id,
            "query": data.query,
            "title": card.display_title,
            "label": cardinfo.state_label(card, params),
            "words": cardinfo.in_each_edition(
                # the book's printed label (例题 1-1) stays as printed, as on the card pages of every edition
                lambda: {
                    "title": f"{card.label} · {localize(card.title)}" if card.label else localize(card.title),
                    "label": cardinfo.state_label(card, params),
                }
            ),
            "t": time.time(),
        },
    )
    return ok({"sid": sid}, 201)


@router.get(
    "/api/live/{code}/snapshots",
    response_model=Snapshots,
    responses=errors(401, 403, 404, 410, 422, 503),
    summary=W["api_live_code_snapshots.summary"],
)
async def snapshots(s: Instructor, store: StoreDep) -> JSONResponse:
    return ok({"snapshots": [in_edition(x) for x in await store.snapshots(s.code)]})
