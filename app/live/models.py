"""Request bodies of the live API (unknown fields rejected; sizes bounded)."""
from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from .limits import DEVICE_MAX, DEVICE_MIN, MAX_QUERY_LEN, NICK_MAX


def _clean_nick(v: str | None) -> str | None:
    """Nicknames: trimmed, no control characters; escaped wherever they are shown."""
    if v is None:
        return None
    v = v.strip()
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in v):
        raise ValueError("含有控制字符")
    return v or None


Device = Annotated[str, Field(min_length=DEVICE_MIN, max_length=DEVICE_MAX, pattern=r"^[A-Za-z0-9_-]+$",
                              description="随机设备号(存于浏览器 localStorage)")]
Nick = Annotated[str | None, Field(None, max_length=NICK_MAX, description=f"可选昵称(≤ {NICK_MAX} 字)"),
                 AfterValidator(_clean_nick)]
CardId = Annotated[str, Field(min_length=1, max_length=100)]
Query = Annotated[str, Field("", max_length=MAX_QUERY_LEN, description="卡片的查询串,与 /cards/{id}?… 相同")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateIn(Strict):
    card: CardId | None = None
    query: Query = ""


class StateIn(Strict):
    card: CardId
    query: Query = ""
    frame: Annotated[str | None, Field(None, max_length=16, pattern=r"^[A-Za-z0-9_.-]+$",
                                       description="▶ 动画当前帧名")] = None


class AskIn(Strict):
    card: CardId
    key: Annotated[str, Field(min_length=1, max_length=100)]
    query: Query = ""


class AnswerIn(Strict):
    device: Device
    value: float | bool | Annotated[str, Field(max_length=50)]
    unit: Annotated[str | None, Field(None, max_length=20)] = None
    nick: Nick = None


class JoinIn(Strict):
    device: Device
    nick: Nick = None


class SnapshotIn(Strict):
    device: Device
    nick: Nick = None
    card: CardId
    query: Query = ""
