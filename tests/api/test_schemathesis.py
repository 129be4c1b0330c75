"""Property-based API testing: schemathesis generates requests from /openapi.json for every card
route (and every exercise's check route) and finds no 5xx and no response that breaks the declared
schema. Out-of-schema input must be rejected (negative data). Schema-valid input may still get a
422 where a card has a cross-field rule (e.g. supervised tokens ≤ sequence length), so the
"positive data accepted" check is the one left out."""
from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from app.main import app

schema = schemathesis.openapi.from_asgi("/openapi.json", app)


@schema.parametrize()
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms(case):
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
