"""The JSON API: ``/api/cards`` lists the cards; ``/api/cards/{id}`` answers a card's outputs and
their derivations at a state (one OpenAPI operation per card, its parameters and its outputs typed
from the card's declarations); ``POST /api/cards/{id}/check`` checks answers for every card that
asks questions."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, create_model

from .. import answers, exercises
from ..cards import REGISTRY, Card, explain, run
from ..errors import ErrorBody, error_item, error_response
from ..render import card_json, dumps
from ..state import ParamError, validate
from ..trace import plain
from ..words import localize_deep, words_for
from .lookup import CardRef, reading_of, state_of
from .responses import NO_STORE, public
from .schemas import result_model

W = words_for(__name__)

router = APIRouter()


class CardInfo(BaseModel):
    id: str
    title: str
    label: str
    section: str
    kind: str
    aliases: list[str]
    url: str
    api: str


class CardList(BaseModel):
    cards: list[CardInfo]


class Verdict(BaseModel):
    verdict: str = Field(description=W["verdict.verdict.description"])
    text: str
    hint: str | None = None
    diagnosis: str | None = Field(None, description=W["verdict.diagnosis.description"])
    diagnosis_text: str | None = Field(None, description=W["verdict.diagnosis_text.description"])
    note: str | None = Field(None, description=W["verdict.note.description"])
    expected: float | bool | str | None = None


class CheckResult(BaseModel):
    card: str
    results: dict[str, Verdict]
    solutions: bool


@router.get("/api/cards", response_model=CardList, tags=["cards"], summary=W["api_cards.summary"])
def api_cards() -> dict:
    from ..chapters import reading_order

    return {
        "cards": [
            {
                "id": c.id,
                "title": c.title,
                "label": c.label,
                "section": c.section,
                "kind": c.kind,
                "aliases": list(c.aliases),
                "url": f"/cards/{c.id}",
                "api": f"/api/cards/{c.id}",
            }
            for c in (REGISTRY[i] for i in reading_order())
        ]
    }


_OPENAPI_ONLY = (
    "title",
    "control",
    "step",
    "unit",
    "label",
    "log",
    "illustrative",
    "placeholder",
    "options",
    "item_ge",
    "item_le",
    "custom",
    "sym",
)


def _openapi_params(card: Card) -> list[dict]:
    """The card's Params as query parameters (an optional override is just a number on the wire)."""
    out = []
    for name, prop in card.params.model_json_schema().get("properties", {}).items():
        if "anyOf" in prop:
            inner = [x for x in prop["anyOf"] if x.get("type") != "null"]
            if len(inner) == 1:
                prop = {**{k: v for k, v in prop.items() if k != "anyOf"}, **inner[0]}
                prop.pop("default", None)
        p = {k: v for k, v in prop.items() if k not in _OPENAPI_ONLY}
        param = {
            "name": name,
            "in": "query",
            "required": False,
            "schema": p,
            "description": prop.get("description", "")
            + (W.f("openapi_params.description", v=prop["unit"]) if prop.get("unit") else ""),
        }
        if p.get("type") == "array":
            param.update({"style": "form", "explode": True})
        out.append(param)
    return out


CROSS_FIELD = W["cross_field"]


def _api_description(card: Card) -> str:
    """The operation's description: the card's lead, and the rules between fields a schema cannot
    state (``Params.cross_field_rules``)."""
    rules = card.params.cross_field_rules
    return card.lead + (("\n\n" + CROSS_FIELD + ";".join(rules)) if rules else "")


def _api_endpoint(card: Card):
    async def endpoint(request: Request) -> Response:
        params = state_of(card, request)  # a rejected state: the field-named 422 (card_views)
        return public(dumps(card_json(card, params)), "application/json")

    endpoint.__name__ = "card_" + card.id.replace("-", "_")
    return endpoint


TypedAnswer = Annotated[str, Field(max_length=answers.MAX_TEXT * 4)]  # longer than MAX_TEXT: said in the verdict


def check_body_model(card: Card) -> type[BaseModel]:
    """The POST body for a card with questions, typed by them so the schema says exactly what is
    accepted: ``answers`` keyed by the numeric/yes-no question keys (of every state the card can
    ask), ``units`` by their units."""
    ans: dict[str, Any] = {}
    units: dict[str, Any] = {}
    for q in exercises.questions_of(card).values():
        if q.kind == "open":
            continue
        # a numeric answer: a number, or the text typed (read on the server: "4.02×10²²", "73.7 GB")
        typ = float | TypedAnswer if q.kind == "numeric" else (bool if q.kind == "bool" else str)
        ans[q.key] = (typ | None, Field(None, description=q.prompt[:80]))
        if q.units:
            units[q.key] = (Literal[tuple([q.unit, *q.units])] | None, None)
    strict = ConfigDict(extra="forbid", strict=True)
    name = card.id.replace("-", "_")
    answers = create_model(f"Answers_{name}", __config__=strict, **ans)
    unit_model = create_model(f"Units_{name}", __config__=strict, **units)
    return create_model(
        f"Check_{name}",
        __config__=strict,
        params=(dict[str, Any], Field(default_factory=dict, description=W["check_body_model.description"])),
        answers=(answers, Field(..., description=W["check_body_model.description_2"])),
        units=(unit_model, Field(default_factory=unit_model, description=W["check_body_model.description_3"])),
        reveal=(bool, Field(False, description=W["check_body_model.description_4"])),
    )


def _verdicts(
    card: Card, view: Any, answers: dict, units: dict, reveal: bool, withheld: frozenset[str] = frozenset()
) -> dict[str, dict]:
    qs = {q.key: q for q in view.questions}
    results = {}
    for k, v in answers.items():
        q = qs.get(k)
        if q is None:  # the question set changed with the parameters
            continue
        expected = view.outputs.get(q.key)
        r = exercises.check(q, expected, v, units.get(k), card.outputs.get(q.key))
        r["text"] = r.get("text") or exercises.VERDICT_TEXT.get(r["verdict"], r["verdict"])
        if reveal and k not in withheld:  # a live class is asking it: no answer before 公布
            r["expected"] = plain(expected)
        results[k] = r
    return results


def _check_endpoint(card: Card):
    body_model = check_body_model(card)

    async def endpoint(request: Request, body: Any) -> Response:
        answers = {k: v for k, v in body.answers.model_dump().items() if v is not None}
        units = {k: v for k, v in body.units.model_dump().items() if v is not None}
        try:
            params = validate(card, dict(body.params.items()))
        except ParamError as e:
            return error_response(422, [{**x, "loc": ["body", "params", x["field"]]} for x in e.errors])
        solutions = reading_of(request).solutions
        reveal = body.reveal and solutions
        held = getattr(request.app.state, "live_withheld", None)  # app/live/checks.py, set in create_app
        withheld = await held(request, card.id, answers, reveal) if held else frozenset()  # 429 past its budget
        view, _ = explain(card, params)  # traced: each answer is also held against its derivation's slips
        results = _verdicts(card, view, answers, units, reveal, withheld)
        body = localize_deep(
            {"card": card.id, "results": results, "solutions": solutions}
        )  # words in the edition asked
        return JSONResponse(body, headers={"Cache-Control": NO_STORE})

    endpoint.__annotations__["body"] = body_model
    endpoint.__name__ = "check_" + card.id.replace("-", "_")
    return endpoint


def _tag(card: Card) -> str:
    return W.f("tag", chapter=card.chapter) if card.chapter else W["tag_2"]


def register_card_routes(app: FastAPI) -> None:
    """One OpenAPI operation per card (typed parameters and outputs) so /docs documents every card;
    a check operation for each card with questions; alias redirects."""
    for cid in sorted(REGISTRY):
        card = REGISTRY[cid]
        defaults = run(card, card.defaults()).outputs
        app.add_api_route(
            f"/api/cards/{cid}",
            _api_endpoint(card),
            methods=["GET"],
            tags=[_tag(card)],
            summary=card.display_title,
            description=_api_description(card),
            response_model=result_model(card, defaults),
            responses={422: {"model": ErrorBody, "description": W["register_card_routes.description"]}},
            openapi_extra={"parameters": _openapi_params(card)},
        )
        if exercises.questions_of(card):  # checkable whatever its kind (练习 3-1 is a calculator)
            app.add_api_route(
                f"/api/cards/{cid}/check",
                _check_endpoint(card),
                methods=["POST"],
                tags=[W["register_card_routes.tags"]],
                summary=W.f("register_card_routes.summary", display_title=card.display_title),
                response_model=CheckResult,
                responses={422: {"model": ErrorBody, "description": W["register_card_routes.description_2"]}},
            )
    app.include_router(router)
    app.add_api_route("/api/cards/{name}", api_alias, methods=["GET"], include_in_schema=False)


def api_alias(card: CardRef) -> Response:
    """An alias or printed label redirects (the lookup does it); a registered id never gets here."""
    return error_response(404, [error_item("name", W.f("api_alias.msg", id=card.id), "not_found", ["path", "name"])])
