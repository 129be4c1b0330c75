"""Request bodies of the live API (unknown fields rejected; sizes bounded)."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictFloat, StrictInt, StrictStr

from ..errors import ErrorBody
from .limits import MAX_QUERY_LEN, MAX_SWEEP_POINTS, NICK_MAX, PARTICIPANT_MAX

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
        raise ValueError("含有控制字符")
    v = "".join(ch for ch in v if unicodedata.category(ch) not in _DROPPED)
    return " ".join(v.split()) or None


Nick = Annotated[
    str | None,
    Field(None, max_length=NICK_MAX, description=f"可选昵称(≤ {NICK_MAX} 字;不可见字符会被去掉)"),
    AfterValidator(clean_nick),
]
Credential = Annotated[
    str | None,
    Field(None, max_length=PARTICIPANT_MAX, description="加入课堂时得到的参与凭证(存于浏览器 localStorage)"),
]


def _card_enum(schema: dict) -> None:
    """The schema lists the card ids and aliases, so generated clients send only cards that exist
    (the cards register first: request bodies' schemas are written when the routes are declared)."""
    from ..cards import ALIASES, REGISTRY
    from ..chapters import load_all

    load_all()
    schema["enum"] = sorted(REGISTRY) + sorted(ALIASES)


CardId = Annotated[str, Field(min_length=1, max_length=100, description="卡片编号或别名", json_schema_extra=_card_enum)]
Query = Annotated[str, Field("", max_length=MAX_QUERY_LEN, description="卡片的查询串,与 /cards/{id}?… 相同")]


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
    participant: Credential = Field(None, description="上次加入得到的凭证(重连时带上,保持同一身份);没有则新发一个")
    nick: Nick = None


class SnapshotIn(Strict):
    participant: Credential = None
    nick: Nick = None
    card: CardId
    query: Query = ""


OutputKey = Annotated[str, Field(min_length=1, max_length=100, description="卡片的一个数值输出键")]
Better = Annotated[Literal["lower", "higher"], Field(description="这个量越小越好(lower)还是越大越好(higher)")]
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
    code: str = Field(description="6 位课堂码")
    token: str = Field(description="教师令牌(只在控制链接的 #t= 片段里出现)")
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
    participant: str = Field(description="参与凭证:作答、预测与分享都要带上;一台设备一份,一题一票")
    followers: int = Field(description="此刻连着事件流的人数")
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
    sid: int = Field(description="扫参编号(本课堂内从 1 起)")
    points: int = Field(description="点数(各参数取值个数之积)")
    seq: int


class SweepMine(BaseModel):
    model_config = ConfigDict(extra="allow")
    point: int = Field(description="你负责的点(从 0 起的序号)")
    query: str = Field(description="这个点的卡片查询串")


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
    401: "缺少教师令牌",
    403: "教师令牌不对 / 参与凭证缺失、伪造或属于别的课堂 / 结果未公布",
    404: "没有这个课堂、题目或卡片",
    408: "请求体未按时收完",
    409: "已收卷",
    410: "课堂已结束(下课)",
    413: "请求体过大",
    415: "请求体须为 application/json",
    422: "参数或请求体不对(指明字段)",
    429: "太频繁,或同一地址的课堂数 / 在线人数已达上限(见 Retry-After)",
    503: "课堂已满 / 实例课堂数已满 / 课堂服务暂时不可用(见 Retry-After)",
}


def errors(*codes: int) -> dict:
    """OpenAPI ``responses`` for these error statuses (all in the app's one error shape)."""
    return {c: {"model": ErrorBody, "description": ERROR_TEXT[c]} for c in codes}


def request_body(model: type[BaseModel], required: bool = True) -> dict:
    """``openapi_extra`` documenting a body that a dependency reads (size-capped)."""
    return {
        "requestBody": {"required": required, "content": {"application/json": {"schema": model.model_json_schema()}}}
    }
