"""扫参 (issue 27): the class explores a design space together. The instructor varies 1–3 of a
card's parameters; every phone owns one point (the first N participants N distinct points), sees the
card there with the predicted output held back, and predicts it; the projector draws the class's
points in the card's units with the frontier of the two stated outputs. The server computes every
point with the card's own compute (a phone never sends x or y); the values stay with the
instructor until 公布 (followers see counts)."""

from __future__ import annotations

import asyncio
import csv
import io
import math
import time
from typing import Annotated, Any, TypeAlias, TypeGuard

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse, Response

from ..cards import REGISTRY, Card, controls_of, resolve
from ..cards import run as compute
from ..state import query_string, wire
from ..words import localize, words_for
from . import cardinfo
from .api import NO_STORE, changed, ok, retry_after
from .deps import (
    AnySession,
    Instructor,
    LiveDep,
    LiveSession,
    StoreDep,
    card_state,
    check_token,
    fail,
    json_body,
    number_answer,
    participant_of,
    path_number,
)
from .limits import (
    MAX_SWEEP_PARAMS,
    MAX_SWEEP_POINTS,
    MAX_SWEEPS,
    PREDICTION_WINDOW_S,
    PREDICTIONS_PER_WINDOW,
    SWEEP_COMPUTE_S,
)
from .models import (
    Accepted,
    PredictIn,
    SeqOut,
    Sweepable,
    SweepCreated,
    SweepIn,
    SweepMine,
    SweepResults,
    errors,
    request_body,
)
from .results import VERDICT_TEXT, _cell
from .store import Session, Store
from .sweeps import Better, Plan, SweepError, axis_scale, frontier, grade, grid, plan, point_query, variable

W = words_for(__name__)

router = APIRouter(tags=[W["router.tags"]])
SweepBody: TypeAlias = Annotated[SweepIn, Depends(json_body(SweepIn))]
PredictBody: TypeAlias = Annotated[PredictIn, Depends(json_body(PredictIn))]
SID_SCHEMA = {"type": "integer", "minimum": 1, "maximum": MAX_SWEEPS}
SUGGESTED = 6  # values a slider offers to start from in the control view


def sid_param(
    sid: Annotated[
        str, Path(description=W.f("module.description", max_sweeps=MAX_SWEEPS), json_schema_extra=SID_SCHEMA)
    ],
) -> int:
    """A sweep number from the path: 1…MAX_SWEEPS, else 422 naming ``sid``."""
    return path_number(sid, "sid", MAX_SWEEPS, W["sid_param.path_number"])


Sid: TypeAlias = Annotated[int, Depends(sid_param)]


def _number(v: Any) -> TypeGuard[float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def numeric_outputs(card: Card, view) -> list[dict]:
    """The card's outputs that are a finite number in this state: what a sweep can predict and plot."""
    out = []
    for key, value in view.outputs.items():
        if not _number(value):
            continue
        decl = card.outputs.get(key)
        label = cardinfo._plain(str(localize(decl.label))) if decl is not None and decl.label else key
        out.append({"key": key, "label": label, "unit": decl.display_unit if decl is not None else ""})
    return out


def _suggest(spec, values: list) -> list:
    """A few grid values to start from: powers of two on a log slider, else evenly spread."""
    if spec.control != "slider" or len(values) <= SUGGESTED:
        return values
    if spec.log:
        pw = [v for v in values if v > 0 and math.log2(v).is_integer()]
        if len(pw) >= 3:
            return pw[:: max(1, math.ceil(len(pw) / SUGGESTED))][:SUGGESTED] if len(pw) > 10 else pw
    idx = sorted({round(i * (len(values) - 1) / (SUGGESTED - 1)) for i in range(SUGGESTED)})
    return [values[i] for i in idx]


@router.get(
    "/api/live/sweepable/{card}",
    response_model=Sweepable,
    responses=errors(404, 422),
    summary=W["api_live_sweepable_card.summary"],
)
async def sweepable(card: str, request: Request) -> JSONResponse:
    if resolve(card) is None:
        raise fail(404, "card", W.f("sweepable.fail", v=card[:40]), "not_found")
    c, params = card_state(card, request.url.query)
    view = compute(c, params)
    specs = []
    for spec in controls_of(c.params):
        if not variable(spec):
            continue
        values = grid(spec, MAX_SWEEP_POINTS + 1)
        item: dict[str, Any] = {
            "name": spec.name,
            "label": cardinfo._plain(spec.label),
            "control": spec.control,
            "unit": spec.unit,
            "current": getattr(params, spec.name, None),
        }
        if spec.control == "slider":
            item.update(min=spec.ge, max=spec.le, step=spec.step, log=spec.log, suggest=_suggest(spec, values))
        else:
            item["options"] = [{"value": v, "label": cardinfo._value(spec, v)} for v in values]
        specs.append(item)
    return ok({"card": c.id, "params": specs, "outputs": numeric_outputs(c, view)})


def _points(card: Card, base: str, p: Plan, keys_: tuple[str, str, str], better: tuple[Better, Better]) -> list[dict]:
    """Every point: its query, the varied values in words, and x, y and the predicted output's true
    value from the card's own compute (None where the card gives no finite number)."""
    specs = {s.name: s for s in controls_of(card.params)}
    deadline = time.monotonic() + SWEEP_COMPUTE_S
    out: list[dict[str, Any]] = []
    for combo in p.combos():
        if time.monotonic() > deadline:
            raise SweepError("vary", W.f("points.sweeperror", sweep_compute_s=SWEEP_COMPUTE_S), "too_slow")
        try:
            _, params = card_state(card.id, point_query(base, combo))
        except HTTPException as e:
            msg = e.detail[0]["msg"] if isinstance(e.detail, list) and e.detail else W["points"]
            raise SweepError(
                "vary",
                W.f(
                    "points.at",
                    at=str(localize(W["points.sweeperror_2"])).join(f"{k}={wire(v)}" for k, v in combo.items()),
                    msg=msg,
                ),
            ) from None
        view = compute(card, params)
        vals = [view.outputs.get(k) for k in keys_]
        out.append(
            {
                "query": query_string(card, params).removeprefix("?"),
                "values": {k: v for k, v in combo.items()},
                "label": " · ".join(
                    f"{cardinfo._plain(specs[k].label)} = {cardinfo._value(specs[k], v)}" for k, v in combo.items()
                ),
                "x": float(vals[0]) if _number(vals[0]) else None,
                "y": float(vals[1]) if _number(vals[1]) else None,
                "truth": float(vals[2]) if _number(vals[2]) else None,
            }
        )
    on = frontier([(pt["x"], pt["y"]) for pt in out], *better)
    for pt, f in zip(out, on):
        pt["frontier"] = f
    return out


def _axis(outputs: dict[str, dict], key: str, better: str) -> dict:
    o = outputs[key]
    return {"key": key, "label": o["label"], "unit": o["unit"], "better": better}


@router.post(
    "/api/live/{code}/sweeps",
    status_code=201,
    response_model=SweepCreated,
    responses=errors(401, 403, 404, 410, 413, 415, 422, 429, 503),
    openapi_extra=request_body(SweepIn),
    summary=W["api_live_code_sweeps.summary"],
    description=W.f(
        "api_live_code_sweeps.description", max_sweep_params=MAX_SWEEP_PARAMS, max_sweep_points=MAX_SWEEP_POINTS
    ),
)
async def start_sweep(s: Instructor, data: SweepBody, store: StoreDep) -> JSONResponse:
    card, params = card_state(data.card, data.query)
    if s.sweep and s.sweep["sid"] >= MAX_SWEEPS:
        raise fail(429, "card", W.f("start_sweep.fail", max_sweeps=MAX_SWEEPS), "too_many")
    view = compute(card, params)
    outputs = {o["key"]: o for o in numeric_outputs(card, view)}
    for field in ("predict", "x", "y"):
        key = getattr(data, field)
        if key not in outputs:
            some = W["points.sweeperror_2"].join(list(outputs)[:40])[:300]
            raise fail(422, field, W.f("start_sweep.fail_2", v=key[:40], some=some), "unknown_output")
    try:
        p = plan(card, data.vary, MAX_SWEEP_PARAMS, MAX_SWEEP_POINTS)
        keys_ = (data.x, data.y, data.predict)
        points = await asyncio.to_thread(_points, card, data.query, p, keys_, (data.x_better, data.y_better))
    except SweepError as e:
        raise fail(422, e.field, e.msg, e.kind) from None
    pred = outputs[data.predict]
    rec = {
        "card": card.id,
        "title": card.display_title,
        "query": data.query,
        "vary": {k: [wire(v) for v in vs] for k, vs in p.vary.items()},
        "predict": data.predict,
        "label": pred["label"],
        "unit": pred["unit"],
        "axes": {"x": _axis(outputs, data.x, data.x_better), "y": _axis(outputs, data.y, data.y_better)},
        "npoints": len(points),
        "points": points,
        "conditions": cardinfo.state_label(card, params),
        "started": time.time(),
        # what each phone shows, in its own language (the event carries every edition's)
        "words": cardinfo.in_each_edition(
            lambda: {"label": next(o["label"] for o in numeric_outputs(card, view) if o["key"] == data.predict)}
        ),
    }
    new = changed(await store.add_sweep(s.code, rec), s.code)
    assert new.sweep is not None  # Store.add_sweep makes the new sweep the current one
    return ok({"sid": new.sweep["sid"], "points": len(points), "seq": new.seq}, 201)


async def _sweep(store: Store, s: Session, sid: int) -> dict:
    rec = await store.sweep(s.code, sid)
    if rec is None:
        raise fail(404, "sid", W.f("sweep.fail", sid=sid), "not_found")
    return rec


@router.get(
    "/api/live/{code}/sweeps/{sid}/mine",
    response_model=SweepMine,
    responses=errors(403, 404, 410, 422, 503),
    summary=W["api_live_code_sweeps_sid_mine.summary"],
)
async def mine(
    s: LiveSession,
    sid: Sid,
    live: LiveDep,
    participant: Annotated[str | None, Query(max_length=200, description=W["module.description_2"])] = None,
) -> JSONResponse:
    store = live.store
    p = participant_of(await live.keys(), s, participant)
    rec = await _sweep(store, s, sid)
    idx = await store.assign(s.code, sid, p.pid, rec["npoints"])
    if idx is None:
        raise fail(404, "sid", W.f("mine.fail", sid=sid), "not_found")
    pt = rec["points"][idx]
    return ok(
        {
            "point": idx,
            "query": pt["query"],
            "card": rec["card"],
            "label": pt["label"],
            "predict": rec["predict"],
            "predict_label": rec["label"],
            "unit": rec["unit"],
            "status": rec["status"],
        }
    )


@router.post(
    "/api/live/{code}/sweeps/{sid}/predictions",
    response_model=Accepted,
    responses=errors(403, 404, 409, 410, 413, 415, 422, 429, 503),
    openapi_extra=request_body(PredictIn),
    summary=W["api_live_code_sweeps_sid_predictions.summary"],
)
async def predict(s: LiveSession, sid: Sid, data: PredictBody, live: LiveDep) -> JSONResponse:
    store = live.store
    p = participant_of(await live.keys(), s, data.participant)
    rec = await _sweep(store, s, sid)
    if rec["status"] != "open":
        raise fail(409, "sid", W["predict.fail"], "closed")
    value = number_answer(data.value)
    if not await store.allow(f"sw:{s.code}:{p.pid}", PREDICTIONS_PER_WINDOW, PREDICTION_WINDOW_S):
        raise fail(
            429,
            "participant",
            W.f(
                "predict.fail_2", prediction_window_s=PREDICTION_WINDOW_S, predictions_per_window=PREDICTIONS_PER_WINDOW
            ),
            "rate_limited",
            retry_after(PREDICTION_WINDOW_S),
        )
    idx = await store.assign(s.code, sid, p.pid, rec["npoints"])
    if idx is None:
        raise fail(404, "sid", W.f("predict.fail_3", sid=sid), "not_found")
    decl = REGISTRY[rec["card"]].outputs.get(rec["predict"])
    verdict = grade(value, rec["points"][idx]["truth"], decl)
    pred = {"value": value, "point": idx, "verdict": verdict, "nick": data.nick, "t": time.time()}
    outcome = await store.predict(s.code, sid, p.pid, pred)
    if outcome == "closed":
        raise fail(409, "sid", W["predict.fail"], "closed")
    if outcome == "missing":
        raise fail(404, "sid", W.f("predict.fail_4", sid=sid), "not_found")
    return ok({"accepted": True})


@router.post(
    "/api/live/{code}/sweeps/{sid}/reveal",
    response_model=SeqOut,
    responses=errors(401, 403, 404, 410, 422, 503),
    summary=W["api_live_code_sweeps_sid_reveal.summary"],
)
async def reveal_sweep(s: Instructor, sid: Sid, store: StoreDep) -> JSONResponse:
    await _sweep(store, s, sid)
    new = changed(await store.sweep_status(s.code, sid, "revealed"), s.code)
    return ok({"seq": new.seq, "status": "revealed"})


def sweep_points(rec: dict, preds: dict[str, dict]) -> list[dict]:
    """Each point with its latest prediction and that prediction's verdict (None: nobody predicted
    it yet), how many predicted it and their verdicts."""
    by_point: dict[int, list[dict]] = {}
    for pr in preds.values():
        by_point.setdefault(pr["point"], []).append(pr)
    out = []
    for i, pt in enumerate(rec["points"]):
        got = sorted(by_point.get(i, []), key=lambda pr: pr["t"])
        last = got[-1] if got else None
        out.append(
            {
                "i": i,
                "query": pt["query"],
                "label": pt["label"],
                "values": pt["values"],
                "x": pt["x"],
                "y": pt["y"],
                "truth": pt["truth"],
                "frontier": pt["frontier"],
                "prediction": last["value"] if last else None,
                "verdict": last["verdict"] if last else None,
                "predictions": len(got),
                "verdicts": {v: sum(1 for pr in got if pr["verdict"] == v) for v in VERDICT_TEXT},
            }
        )
    return out


@router.get(
    "/api/live/{code}/sweeps/{sid}.csv",
    responses={
        200: {
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "description": W["api_live_code_sweeps_sid_csv.description"],
        },
        **errors(401, 403, 404, 422, 503),
    },
    response_class=Response,
    summary=W["api_live_code_sweeps_sid_csv.summary"],
)
async def sweep_csv(request: Request, s: AnySession, sid: Sid, store: StoreDep) -> Response:
    check_token(request, s)
    rec = await _sweep(store, s, sid)
    preds = await store.predictions(s.code, sid)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    ax, ay = rec["axes"]["x"], rec["axes"]["y"]
    names = list(rec["vary"])
    unit = lambda u: f"({u})" if u else ""  # noqa: E731
    w.writerow(
        [
            W["sweep_csv.writerow"],
            *names,
            W["sweep_csv.writerow_2"],
            f"{ax['label']}{unit(ax['unit'])}",
            f"{ay['label']}{unit(ay['unit'])}",
            W["sweep_csv.writerow_3"],
        ]
        + [
            W.f("sweep_csv.writerow_4", v=rec["label"], unit=unit(rec["unit"])),
            W["sweep_csv.writerow_5"],
            W["sweep_csv.writerow_6"],
            W["sweep_csv.writerow_7"],
            W["sweep_csv.writerow_8"],
            W["sweep_csv.writerow_9"],
            W["sweep_csv.writerow_10"],
        ]
    )
    for pt in sweep_points(rec, preds):
        w.writerow(
            [pt["i"], *(_cell(wire(pt["values"][n])) for n in names), _cell(pt["query"])]
            + [
                "" if pt["x"] is None else pt["x"],
                "" if pt["y"] is None else pt["y"],
                W["sweep_csv.writerow_11"] if pt["frontier"] else W["sweep_csv.writerow_12"],
            ]
            + ["" if pt["truth"] is None else pt["truth"], pt["predictions"]]
            + [
                "" if pt["prediction"] is None else pt["prediction"],
                VERDICT_TEXT.get(pt["verdict"] or "", W["sweep_csv.get"]),
            ]
            + [pt["verdicts"][v] for v in ("correct", "close", "incorrect")]
        )
    return Response(
        buf.getvalue().encode("utf-8-sig"),
        media_type="text/csv; charset=utf-8",
        headers={**NO_STORE, "Content-Disposition": f'attachment; filename="live-{s.code}-sweep-{sid}.csv"'},
    )


@router.get(
    "/api/live/{code}/sweeps/{sid}",
    response_model=SweepResults,
    responses=errors(403, 404, 410, 422, 503),
    summary=W["api_live_code_sweeps_sid.summary"],
)
async def sweep_results(
    request: Request,
    s: LiveSession,
    sid: Sid,
    live: LiveDep,
    participant: Annotated[str | None, Query(max_length=200, description=W["module.description_3"])] = None,
) -> JSONResponse:
    store = live.store
    rec = await _sweep(store, s, sid)
    teacher = check_token(request, s, required=False)
    head = {"sid": sid, "status": rec["status"], "npoints": rec["npoints"]}
    if not (teacher or rec["status"] == "revealed"):
        return ok(head | {"predicted": await store.count_predictions(s.code, sid)})
    preds = await store.predictions(s.code, sid)
    out = head | {
        "predicted": len(preds),
        "card": rec["card"],
        "title": rec.get("title", ""),
        "predict": rec["predict"],
        "label": rec["label"],
        "unit": rec["unit"],
        "vary": rec["vary"],
        "axes": rec["axes"],
        "points": sweep_points(rec, preds),
        # how the scatter draws its axes: the cards' own rule for a log axis and its labels
        "scales": {a: axis_scale([pt[a] for pt in rec["points"]]) for a in ("x", "y")},
    }
    if participant:
        p = participant_of(await live.keys(), s, participant)
        mine_ = preds.get(p.pid)
        idx = mine_["point"] if mine_ else await store.assign(s.code, sid, p.pid, rec["npoints"])
        if idx is not None:
            out["mine"] = {
                "point": idx,
                "value": mine_["value"] if mine_ else None,
                "verdict": mine_["verdict"] if mine_ else None,
                "truth": rec["points"][idx]["truth"],
            }
    return ok(out)
