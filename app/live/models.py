"""Request bodies of the live API (unknown fields rejected; sizes bounded)."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr

from ..errors import ErrorBody
from ..words import words_for
from .limits import MAX_QUERY_LEN, MAX_SWEEP_POINTS, NICK_MAX, PARTICIPANT_MAX

W = words_for(__name__)

# Invisible characters a name could hide behind or use to spoof another on the projector: format
# characters (bidi embeddings/overrides/isolates U+202A–E, U+2066–9, marks U+200E/F, U+061C;
# zero-width U+200B–D, U+2060, U+FEFF; tags), line/paragraph separators, surrogates, private use
# and unassigned code points. They are removed; control characters are refused.
_DROPPED = frozenset({"Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def clean_nick(v: str | None) -> str | None:
    """Nicknames: NFC, no control characters (refused), no invisible ones (removed), runs of spaces
    made one; escaped wherever they are shown."""
    if v is None:
        return None
    v = unicodedata.normalize("NFC", v)
    if any(unicodedata.category(ch) == "Cc" for ch in v):
        raise ValueError(W["clean_nick.valueerror"])
    v = "".join(ch for ch in v if unicodedata.category(ch) not in _DROPPED)
    return " ".join(v.split()) or None


Nick = Annotated[
    str | None,
    Field(None, max_length=NICK_MAX, description=W.f("nick.description", nick_max=NICK_MAX)),
    AfterValidator(clean_nick),
]
Credential = Annotated[
    str | None,
    Field(None, max_length=PARTICIPANT_MAX, description=W["credential.description"]),
]


def _card_enum(schema: dict) -> None:
    """The schema lists the card ids and aliases, so generated clients send only cards that exist
    (the cards register first: request bodies' schemas are written when the routes are declared)."""
    from ..cards import ALIASES, REGISTRY
    from ..chapters import load_all

    load_all()
    schema["enum"] = sorted(REGISTRY) + sorted(ALIASES)


CardId = Annotated[
    str, Field(min_length=1, max_length=100, description=W["cardid.description"], json_schema_extra=_card_enum)
]
Query = Annotated[str, Field("", max_length=MAX_QUERY_LEN, description=W["query.description"])]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateIn(Strict):
    card: CardId | None = None
    query: Query = ""


class StateIn(Strict):
    card: CardId
    query: Query = ""
    frame: Annotated[
        str | None, Field(None, max_length=16, pattern=r"^[A-Za-z0-9_.-]+$", description="▶ 动画当前帧名")
    ] = None


class AskIn(Strict):
    card: CardId
    key: Annotated[str, Field(min_length=1, max_length=100)]
    query: Query = ""


class AnswerIn(Strict):
    participant: Credential = None
    value: float | bool | Annotated[str, Field(max_length=50)]
    unit: Annotated[str | None, Field(None, max_length=20)] = None
    nick: Nick = None


class JoinIn(Strict):
    participant: Credential = Field(None, description=W["joinin.participant.description"])
    nick: Nick = None


class SnapshotIn(Strict):
    participant: Credential = None
    nick: Nick = None
    card: CardId
    query: Query = ""


OutputKey = Annotated[str, Field(min_length=1, max_length=100, description=W["outputkey.description"])]
Better = Annotated[Literal["lower", "higher"], Field(description=W["better.description"])]
SweepValue = float | bool | Annotated[str, Field(max_length=100)]


class SweepIn(Strict):
    card: CardId
    query: Query = ""
    vary: Annotated[
        dict[Annotated[str, Field(max_length=100)], Annotated[list[SweepValue], Field(max_length=MAX_SWEEP_POINTS)]],
        Field(description="要改变的参数(1–3 个)→ 取值列表(卡片自己的选项,或滑块网格上的点)"),
    ]
    predict: OutputKey
    x: OutputKey
    x_better: Better
    y: OutputKey
    y_better: Better


class PredictIn(Strict):
    participant: Credential = None
    value: StrictFloat | StrictInt | Annotated[StrictStr, Field(max_length=50)]
    nick: Nick = None


# ------------------------------------------------------------------ responses (documented in /docs)


class Created(BaseModel):
    code: str = Field(description=W["created.code.description"])
    token: str = Field(description=W["created.token.description"])
    follow_url: str
    control_url: str


class StateOut(BaseModel):
    code: str
    card: str
    query: str
    frame: str | None
    seq: int
    locked: bool
    followers: int
    question: dict | None
    sweep: dict | None = None


class SeqOut(BaseModel):
    seq: int
    locked: bool | None = None
    status: str | None = None


class QidOut(BaseModel):
    qid: int
    seq: int


class Accepted(BaseModel):
    accepted: bool


class Joined(BaseModel):
    participant: str = Field(description=W["joined.participant.description"])
    followers: int = Field(description=W["joined.followers.description"])
    state: dict


class SidOut(BaseModel):
    sid: int


class Snapshots(BaseModel):
    snapshots: list[dict]


class Results(BaseModel):
    model_config = ConfigDict(extra="allow")
    qid: int
    status: str
    answered: int


class SweepCreated(BaseModel):
    sid: int = Field(description=W["sweepcreated.sid.description"])
    points: int = Field(description=W["sweepcreated.points.description"])
    seq: int


class SweepMine(BaseModel):
    model_config = ConfigDict(extra="allow")
    point: int = Field(description=W["sweepmine.point.description"])
    query: str = Field(description=W["sweepmine.query.description"])


class SweepResults(BaseModel):
    model_config = ConfigDict(extra="allow")
    sid: int
    status: str
    npoints: int
    predicted: int


class Sweepable(BaseModel):
    card: str
    params: list[dict]
    outputs: list[dict]


class CardRef(BaseModel):
    card: str


class Askables(BaseModel):
    card: str
    askable: list[dict]


ERROR_TEXT = {
    401: W["error_text.t"],
    403: W["error_text.t_2"],
    404: W["error_text.t_3"],
    408: W["error_text.t_4"],
    409: W["error_text.t_5"],
    410: W["error_text.t_6"],
    413: W["error_text.t_7"],
    415: W["error_text.t_8"],
    422: W["error_text.t_9"],
    429: W["error_text.t_10"],
    503: W["error_text.t_11"],
}


def errors(*codes: int) -> dict:
    """OpenAPI ``responses`` for these error statuses (all in the app's one error shape)."""
    return {c: {"model": ErrorBody, "description": ERROR_TEXT[c]} for c in codes}


def request_body(model: type[BaseModel], required: bool = True) -> dict:
    """``openapi_extra`` documenting a body that a dependency reads (size-capped)."""
    return {
        "requestBody": {"required": required, "content": {"application/json": {"schema": model.model_json_schema()}}}
    }
