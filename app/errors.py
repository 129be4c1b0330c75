"""The one shape of a refused request in the JSON API (cards, models, live class):
``{"detail": [{"loc", "field", "type", "msg", "input"}]}``, messages in Chinese, each naming its field."""

from __future__ import annotations

from pydantic import BaseModel


class ErrorItem(BaseModel):
    """One refused field, as every 422/4xx of the JSON API spells it (cards, models, live class)."""

    loc: list[str]
    field: str
    type: str
    msg: str
    input: str | None = None


class ErrorBody(BaseModel):
    detail: list[ErrorItem]
