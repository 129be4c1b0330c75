"""Response schemas for ``/openapi.json``: each card's JSON answer typed from its output
declaration (every key, its type, label and unit) plus the derivations it carries."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..cards import Card
from ..outputs import Out
from ..words import words_for

W = words_for(__name__)


class InputDerivation(BaseModel):
    """The value is an input: a slider, a 题设 value, a preset or a constant the book states."""

    input: Literal[True]
    source: str = Field(description=W["inputderivation.source.description"])


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

    formula: str = Field(description=W["formuladerivation.formula.description"])
    substituted: str = Field(description=W["formuladerivation.substituted.description"])
    result: str = Field(description=W["formuladerivation.result.description"])
    evaluated: str | None = Field(None, description=W["formuladerivation.evaluated.description"])
    check: str | None = Field(
        None,
        description=W["formuladerivation.check.description"],
    )
    steps: list[DerivationStep] = Field(default_factory=list, description=W["formuladerivation.steps.description"])
    inputs: list[DerivationInput] = Field(default_factory=list, description=W["formuladerivation.inputs.description"])


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
        desc = (decl.help or decl.label or key) + (W.f("result_model", unit=unit) if unit else "")
        fields[key] = (
            _type_of(decl, defaults_outputs.get(key)),
            Field(None, description=desc),
        )  # some states leave some out
    outputs = create_model(f"Outputs_{name}", __config__=ConfigDict(extra="forbid"), **fields)
    card_id: Any = Literal[card.id]  # a type made at run time: this card's id and no other
    return create_model(
        f"Result_{name}",
        card=(card_id, ...),
        params=(dict[str, Any], Field(..., description=W["result_model.description"])),
        outputs=(outputs, ...),
        derivations=(
            dict[str, Derivation],
            Field(..., description=W["result_model.description_2"]),
        ),
        questions=(list[QuestionInfo] | None, None),
    )
