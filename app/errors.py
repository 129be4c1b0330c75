"""The one shape of a refused request in the JSON API (cards, models, live class):
``{"detail": [{"loc", "field", "type", "msg", "input"}]}``, messages in Chinese, each naming its field."""

from __future__ import annotations

from pydantic import BaseModel

from .words import localize


class ErrorItem(BaseModel):
    """One refused field, as every 422/4xx of the JSON API spells it (cards, models, live class)."""

    loc: list[str]
    field: str
    type: str
    msg: str
    input: str | None = None


class ErrorBody(BaseModel):
    detail: list[ErrorItem]


def error_item(
    field: str, msg: str, kind: str = "value_error", loc: list[str] | None = None, input: object = None
) -> dict:
    """One refused field in the shape above (``loc`` defaults to ``["body", field]``)."""
    return {
        "loc": loc if loc is not None else ["body", field],
        "field": field,
        "type": kind,
        "msg": msg,
        "input": input,
    }


def error_body(items: list[dict]) -> dict:
    """The JSON body of a refused request: every item, in the one shape (its words in the edition served)."""
    return {"detail": [{**x, "msg": str(localize(x["msg"]))} if "msg" in x else x for x in items]}


def error_response(status: int, items: list[dict], headers: dict[str, str] | None = None):
    """A refused request as a JSON response (422 for bad fields, 404, 413, 503 …)."""
    from fastapi.responses import JSONResponse

    return JSONResponse(error_body(items), status_code=status, headers=headers)
