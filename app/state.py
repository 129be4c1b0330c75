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
    return f"{field}({s.label})" if s else field


def _range(card: Card, field: str) -> str:
    s = _spec_map(card).get(field)
    if not s:
        return ""
    if s.options:
        return "可选:" + "、".join(wire(o) for o in s.options)
    if s.control == "toggle":
        return "可选:true、false"
    if s.ge is not None and s.le is not None:
        kind = "整数" if s.is_int else "数"
        unit = f" {s.unit}" if s.unit else ""
        return f"允许范围 {_n(s.ge)}–{_n(s.le)}{unit} 的{kind}"
    return ""


def _n(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:g}"


def _err(card: Card, field: str, kind: str, got: Any) -> dict[str, Any]:
    rng = _range(card, field)
    text = {
        "repeated": "只能给一次",
        "too_long": "值过长",
        "list_too_long": f"列表最多 {MAX_LIST} 项",
        "bool": "须为 true 或 false",
        "int": "须为整数",
    }.get(kind, "取值无效")
    msg = f"{_label(card, field)}:{text}" + (f";{rng}" if rng else "")
    return {"loc": ["query", field], "field": field, "type": kind, "msg": msg, "input": str(got)[:60]}


_KIND = {
    "greater_than_equal": "太小",
    "greater_than": "太小",
    "less_than_equal": "太大",
    "less_than": "太大",
    "int_parsing": "须为整数",
    "int_from_float": "须为整数",
    "float_parsing": "须为数字",
    "finite_number": "须为有限数",
    "literal_error": "不是可选值",
    "enum": "不是可选值",
    "bool_parsing": "须为 true 或 false",
    "too_short": "项数太少",
    "too_long": "项数太多",
    "list_type": "须为列表",
    "missing": "缺少",
    "int_type": "须为整数",
    "float_type": "须为数字",
    "string_type": "须为文本",
    "value_error": "取值无效",
}


def _from_pydantic(card: Card, err: ErrorDetails) -> dict[str, Any]:
    loc = [str(x) for x in err.get("loc", ())]
    field = loc[0] if loc else "?"
    text = _KIND.get(err.get("type", ""), "取值无效")
    if err.get("type") == "value_error" and err.get("ctx", {}).get("error"):
        text = str(err["ctx"]["error"])
    got = err.get("input")
    got_s = "" if isinstance(got, (dict, list)) else f",收到 “{str(got)[:40]}”"
    rng = _range(card, field)
    where = f"第 {int(loc[1]) + 1} 项" if len(loc) > 1 and loc[1].isdigit() else ""
    msg = f"{_label(card, field)}{where}:{text}{got_s}" + (f";{rng}" if rng else "")
    return {
        "loc": ["query", *loc],
        "field": field,
        "type": err.get("type", "value_error"),
        "msg": msg,
        "input": None if isinstance(got, (dict, list)) else str(got)[:60],
    }


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
