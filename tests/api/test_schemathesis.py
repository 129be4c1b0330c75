"""Property-based API testing: schemathesis generates requests from /openapi.json for every card
route, every check route and the model API, and runs every check: no 5xx, responses as declared,
out-of-schema input rejected (negative data: 422, or 413 for a body over the size limit) and
schema-valid input accepted (positive data). The
only operations spared the positive-data check are those whose description names a rule between
fields that a schema cannot state (``跨字段规则``), e.g. supervised tokens ≤ sequence length."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import schemathesis
from app.cards import REGISTRY
from app.data import encode_config
from app.params_domain import MODEL_CONFIG_FORMAT
from app.web.api import CROSS_FIELD
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests import sampling
from tests.apps import build_app
from tests.sampling import card_sample

app = build_app()

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted((ROOT / "tests" / "data" / "configs").glob("*.json")) + [ROOT / "data" / "models" / "qwen3-8b.json"]
# a cfg: value is a compressed config.json (the format the schema names): generate real ones
schemathesis.openapi.format(
    MODEL_CONFIG_FORMAT, st.sampled_from([encode_config(json.loads(p.read_text())) for p in CONFIGS])
)


def _model_config_paths() -> list[str]:
    """Operations with a parameter of format model-config."""
    spec = app.openapi()
    return sorted(
        p
        for p, ops in spec["paths"].items()
        for op in ops.values()
        if MODEL_CONFIG_FORMAT in json.dumps(op.get("parameters", []))
    )


MODEL_PATHS = "^(" + "|".join(_model_config_paths()) + ")$"
schema = schemathesis.openapi.from_asgi("/openapi.json", app).exclude(path_regex=MODEL_PATHS)
# schemathesis's coverage phase builds boundary strings from a pattern and ignores custom formats
# ("cfg:00000000" is not a compressed config); these operations run the other phases, which do
# use the format's strategy.
model_schema = schemathesis.openapi.from_asgi("/openapi.json", app).include(path_regex=MODEL_PATHS)
model_schema.config.phases.coverage.enabled = False
# A generated body over the API's 64 KB limit (an 8,001-character query written as \u escapes is
# ~96 KB) is refused with 413 before its fields are read: out-of-schema input rejected, as 422 would be.
for _s in (schema, model_schema):
    _ndr = _s.config.checks.negative_data_rejection
    _s.config.checks.negative_data_rejection = type(_ndr)(expected_statuses=[*_ndr.expected_statuses, "413"])


def cross_field(case) -> bool:
    return CROSS_FIELD in (case.operation.definition.raw.get("description") or "")


# Each card's JSON route (and check route) is the same check on that card's own schema: make test runs
# it on a sample of the cards (tests/sampling.py) and every other route; make test-full on the rest too
OTHER_CARDS = (
    "^/api/cards/(?!(" + "|".join(re.escape(c) for c in card_sample(REGISTRY)) + r")(/check)?$)[^/]+(/check)?$"
)
sampled_schema, other_cards_schema = schema.exclude(path_regex=OTHER_CARDS), schema.include(path_regex=OTHER_CARDS)


@sampled_schema.parametrize()
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms(case):
    case.call_and_validate(excluded_checks=[positive_data_acceptance] if cross_field(case) else [])


if sampling.FULL:  # its ~80 operations' boundary cases are built at collection: only when it runs

    @pytest.mark.full
    @other_cards_schema.parametrize()
    @settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
    def test_api_conforms_on_the_other_cards(case):
        case.call_and_validate(excluded_checks=[positive_data_acceptance] if cross_field(case) else [])


def test_the_sample_and_the_other_cards_cover_every_operation_once():
    spec_paths = set(app.openapi()["paths"])
    paths = [re.fullmatch(OTHER_CARDS, p) is not None for p in spec_paths if not re.fullmatch(MODEL_PATHS, p)]
    assert 80 <= sum(paths) < len(paths) - 25  # most card routes are left to make test-full; every other route stays
    other = next(c for c in sorted(REGISTRY) if c not in card_sample(REGISTRY))
    assert re.fullmatch(OTHER_CARDS, "/api/cards/eg-1-1") is None and re.fullmatch(OTHER_CARDS, f"/api/cards/{other}")


@model_schema.parametrize()
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_with_own_models(case):
    case.call_and_validate(excluded_checks=[positive_data_acceptance] if cross_field(case) else [])


def test_model_config_operations_are_tested():
    assert {"/api/cards/eg-1-1", "/api/cards/fig-1-7", "/api/cards/weight-bytes"} <= set(_model_config_paths())


def test_only_named_cross_field_rules_are_spared():
    spec = app.openapi()
    spared = {
        f"{m.upper()} {p}"
        for p, ops in spec["paths"].items()
        for m, op in ops.items()
        if CROSS_FIELD in (op.get("description") or "")
    }
    cards = {f"GET /api/cards/{cid}" for cid, c in REGISTRY.items() if c.params.cross_field_rules}
    assert spared == cards | {"POST /api/models/derive"}
    assert "GET /api/cards/update-tokens" in spared
    for p, ops in spec["paths"].items():
        for op in ops.values():
            d = op.get("description") or ""
            if CROSS_FIELD in d:
                assert d.split(CROSS_FIELD, 1)[1].strip(), p  # each spared operation names its rules
