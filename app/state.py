"""Turn a query string (or a JSON body) into a card's validated Params, with Chinese, field-named
errors. Unknown keys are ignored; a scalar key given twice is rejected; a blank value is rejected
(an optional override such as ``bw_tbps`` is simply left out to use the preset; the client drops
emptied boxes from its requests)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from .cards import Card, controls_of
from .errors import error_item
from .format import compact, num
from .words import localize, words_for

W = words_for(__name__)

MAX_VALUE_LEN = 200
_INT = re.compile(r"^[+-]?[0-9]+$")
MAX_MODEL_LEN = 6100  # a reader's own config.json, compressed into the URL
MAX_LIST = 256


class ParamError(Exception):
    def __init__(self, errors: list[dict[str, Any]]):
        super().__init__("; ".join(e["msg"] for e in errors))
        self.errors = errors


def _spec_map_of(model) -> dict:
    return {s.name: s for s in controls_of(model)}


def _spec_map(card: Card) -> dict:
    return _spec_map_of(card.params)


def parse_query(card: Card, items: Iterable[tuple[str, str]]):
    """Validate ``items`` (the query's key/value pairs in order) against the card's Params."""
    specs = _spec_map(card)
    data: dict[str, Any] = {}
    errors: list[dict[str, Any]] = []
    for k, v in items:
        s = specs.get(k)
        if s is None:
            continue
        if len(v) > (MAX_MODEL_LEN if s.custom == "model" else MAX_VALUE_LEN):
            errors.append(_err(card, k, "too_long", v[:40] + "…"))
            continue
        if s.control == "list":
            if s.is_int and not _INT.match(v.strip()):
                errors.append(_err(card, k, "int", v))
                continue
            data.setdefault(k, [])
            if len(data[k]) >= MAX_LIST:
                errors.append(_err(card, k, "list_too_long", ""))
                continue
            data[k].append(v)
        else:
            if k in data:
                errors.append(_err(card, k, "repeated", v))
                continue
            if s.control == "toggle" and v.strip() not in ("true", "false"):
                errors.append(_err(card, k, "bool", v))
                continue
            if s.is_int and s.control == "slider" and not _INT.match(v.strip()):
                errors.append(_err(card, k, "int", v))  # "1.0", "+0.0", "1e3": not integers on the wire
                continue
            data[k] = v.strip()
    if errors:
        raise ParamError(errors)
    return validate(card, data)


def validate(card: Card, data: dict[str, Any]):
    try:
        return card.parse(data)
    except ValidationError as e:
        raise ParamError([_from_pydantic(card, err) for err in e.errors()]) from None


def _label(card: Card, field: str) -> str:
    s = _spec_map(card).get(field)
    return W.f("label_of", field=field, label=s.label) if s else field


def _range(card: Card, field: str) -> str:
    s = _spec_map(card).get(field)
    if not s:
        return ""
    if s.options:
        return W.f("range_options", options=str(localize(W["range_2"])).join(wire(o) for o in s.options))
    if s.control == "toggle":
        return W["range_3"]
    if s.ge is not None and s.le is not None:
        kind = W["range_4"] if s.is_int else W["range_5"]
        unit = W.f("unit_after", unit=s.unit) if s.unit else ""
        return W.f("range_6", n=_n(s.ge), n2=_n(s.le), unit=unit, kind=kind)
    return ""


def _n(x: float) -> str:
    return num(x, 0) if float(x).is_integer() else compact(x)


def _err(card: Card, field: str, kind: str, got: Any) -> dict[str, Any]:
    rng = _range(card, field)
    text = {
        "repeated": W["err.repeated"],
        "too_long": W["err.too_long"],
        "list_too_long": W.f("err.list_too_long", max_list=MAX_LIST),
        "bool": W["err.bool"],
        "int": W["err.int"],
    }.get(kind, W["err.get"])
    msg = W.f("error", label=_label(card, field), where="", text=text, got="", rng=_range_part(rng))
    return error_item(field, msg, kind, ["query", field], str(got)[:60])


def _range_part(rng: str) -> str:
    return W.f("range_part", rng=rng) if rng else ""


_KIND = {
    "greater_than_equal": W["kind.greater_than_equal"],
    "greater_than": W["kind.greater_than_equal"],
    "less_than_equal": W["kind.less_than_equal"],
    "less_than": W["kind.less_than_equal"],
    "int_parsing": W["err.int"],
    "int_from_float": W["err.int"],
    "float_parsing": W["kind.float_parsing"],
    "finite_number": W["kind.finite_number"],
    "literal_error": W["kind.literal_error"],
    "enum": W["kind.literal_error"],
    "bool_parsing": W["err.bool"],
    "too_short": W["kind.too_short"],
    "too_long": W["kind.too_long"],
    "list_type": W["kind.list_type"],
    "missing": W["kind.missing"],
    "int_type": W["err.int"],
    "float_type": W["kind.float_parsing"],
    "string_type": W["kind.string_type"],
    "value_error": W["err.get"],
}


def _from_pydantic(card: Card, err: ErrorDetails) -> dict[str, Any]:
    loc = [str(x) for x in err.get("loc", ())]
    field = loc[0] if loc else "?"
    text = _KIND.get(err.get("type", ""), W["err.get"])
    if err.get("type") == "value_error" and err.get("ctx", {}).get("error"):
        cause = err["ctx"]["error"]
        text = cause.args[0] if getattr(cause, "args", None) and isinstance(cause.args[0], str) else str(cause)
    got = err.get("input")
    got_s = "" if isinstance(got, (dict, list)) else W.f("from_pydantic", v=str(got)[:40])
    rng = _range(card, field)
    where = W.f("from_pydantic_2", v=int(loc[1]) + 1) if len(loc) > 1 and loc[1].isdigit() else ""
    msg = W.f("error", label=_label(card, field), where=where, text=text, got=got_s, rng=_range_part(rng))
    got_text = None if isinstance(got, (dict, list)) else str(got)[:60]
    return error_item(field, msg, err.get("type", "value_error"), ["query", *loc], got_text)


def query_string(card: Card, params) -> str:
    """``?…`` for a state (only what differs from the defaults), or "" at the defaults."""
    q = to_query(card, params)
    return ("?" + urlencode(q)) if q else ""


def to_query(card: Card, params) -> list[tuple[str, str]]:
    """Params → query pairs, only those that differ from the defaults (short, canonical links)."""
    d = card.defaults()
    out: list[tuple[str, str]] = []
    for name in card.params.model_fields:
        v = getattr(params, name)
        if v == getattr(d, name):
            continue
        if isinstance(v, (list, tuple)):
            out += [(name, wire(x)) for x in v]
        elif v is not None:
            out.append((name, wire(v)))
    return out


def wire(v: Any) -> str:
    """A parameter value as a URL (and a number box) writes it: ``70``, not ``70.0``; ``true``."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)
