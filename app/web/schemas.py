"""Response schemas for ``/openapi.json``: each card's JSON answer typed from its output
declaration (every key, its type, label and unit) plus the derivations it carries."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..cards import Card
from ..outputs import Out


class InputDerivation(BaseModel):
    """The value is an input: a slider, a 题设 value, a preset or a constant the book states."""

    input: Literal[True]
    source: str = Field(description="它从哪里来,例如「滑块:批大小 B」「H100 SXM 预设(data/gpus.json)」")


class DerivationStep(BaseModel):
    sym: str
    formula: str
    substituted: str
    result: str


class DerivationInput(BaseModel):
    sym: str
    value: str
    source: str


class FormulaDerivation(BaseModel):
    """How the value is computed: the formula in the book's symbols, the same formula with the
    reader's values and units, the result at the card's rounding and, for arithmetic, a check."""

    formula: str = Field(description="书中符号写的公式;模拟、搜索、拟合得到的值用文字写规则")
    substituted: str = Field(description="代入当前取值与单位后的同一公式")
    result: str = Field(description="按卡片的舍入显示的结果")
    evaluated: str | None = Field(None, description="取 max/min 的公式:各项先算出的值,如 max(0.1415 ms, 20.9 ms)")
    check: str | None = Field(
        None,
        description="只含十进制数、+ - * / **、括号与 min max abs sqrt log log2 log10 exp "
        "ceil floor 的算式,按输出键自己的单位求值等于该输出(相对误差 ≤ 1e-6);规则得到的值没有",
    )
    steps: list[DerivationStep] = Field(default_factory=list, description="链上有名字的中间量")
    inputs: list[DerivationInput] = Field(default_factory=list, description="用到的输入及其来源")


Derivation = InputDerivation | FormulaDerivation


class QuestionInfo(BaseModel):
    key: str
    prompt: str
    unit: str
    kind: str


def _type_of(decl: Out, value: Any) -> Any:
    if decl.type is not None:
        return decl.type | None
    # any output may be null in some state (no answer, not defined there, NaN/inf on the wire)
    if isinstance(value, bool):
        return bool | None
    if isinstance(value, (int, float)):
        return float | None
    if isinstance(value, str):
        return str | None
    if isinstance(value, (list, tuple)):
        return list[Any] | None
    if isinstance(value, dict):
        return dict[str, Any] | None
    return Any


def result_model(card: Card, defaults_outputs: dict[str, Any]) -> type[BaseModel]:
    """``{"card", "params", "outputs", "derivations", "questions"?}`` with ``outputs`` typed key by key."""
    name = card.id.replace("-", "_")
    fields: dict[str, Any] = {}
    for key, decl in card.outputs.items():
        unit = decl.display_unit
        desc = (decl.help or decl.label or key) + (f"(单位 {unit})" if unit else "")
        fields[key] = (
            _type_of(decl, defaults_outputs.get(key)),
            Field(None, description=desc),
        )  # some states leave some out
    outputs = create_model(f"Outputs_{name}", __config__=ConfigDict(extra="forbid"), **fields)
    card_id: Any = Literal[card.id]  # a type made at run time: this card's id and no other
    return create_model(
        f"Result_{name}",
        card=(card_id, ...),
        params=(dict[str, Any], Field(..., description="校验后的参数(含默认值)")),
        outputs=(outputs, ...),
        derivations=(
            dict[str, Derivation],
            Field(..., description="每个数值输出(int/float,非 bool)一条:输入来源,或公式、代入与可校验的算式"),
        ),
        questions=(list[QuestionInfo] | None, None),
    )
