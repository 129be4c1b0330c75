"""The golden record of what is served: every card's fragment and JSON at its defaults and at one
other state, kept in ``tests/golden/<card>.txt``. ``tests/web/test_golden.py`` compares the app's
answers with it, so any change to served bytes shows in review; ``make golden`` rewrites the
record after a deliberate change (read the diff before committing it).

The English edition is recorded at the defaults. The other state moves the card's first movable control: a slider half-way from its default towards
its top (on its step grid), a select to its next option, a toggle flipped. A card without a movable
control has one state."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from urllib.parse import urlencode

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def _slider_value(spec) -> float | int | None:
    lo, hi, step, d = spec.ge, spec.le, spec.step or 1, spec.default
    if lo is None or hi is None or d is None:
        return None
    target = hi if d < hi else lo
    v = d + (target - d) / 2
    v = lo + round((v - lo) / step) * step
    v = min(max(v, lo), hi)
    if spec.is_int:
        v = int(round(v))
    elif float(v).is_integer():
        v = int(v)
    else:
        v = float(f"{v:.6g}")
    return None if math.isclose(v, d) else v


def _candidates(spec):
    if spec.fixed or spec.optional:
        return []
    if spec.control == "slider":
        v = _slider_value(spec)
        return [] if v is None else [v]
    if spec.control == "select":
        opts = list(spec.options or {})
        if spec.default in opts:
            i = opts.index(spec.default)
            return opts[i + 1 :] + opts[:i]
        return opts
    if spec.control == "toggle":
        return [not spec.default]
    return []


def _wire(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def other_state(card) -> str | None:
    """The query of the card's second recorded state (None: nothing to move)."""
    from app.cards import controls_of

    for spec in controls_of(card.params):
        for v in _candidates(spec):
            try:
                card.parse({spec.name: v})
            except ValueError:
                continue
            return urlencode({spec.name: _wire(v)})
    return None


def states(card) -> list[str]:
    other = other_state(card)
    return [""] if other is None else ["", other]


def record(client, card) -> str:
    """The card's golden text: for each state, the fragment and the JSON as served; then the English
    edition's fragment and JSON at the defaults (words differ, numbers are the same)."""
    out = []
    for qs in states(card):
        q = f"?{qs}" if qs else ""
        frag = client.get(f"/cards/{card.id}/fragment{q}")
        api = client.get(f"/api/cards/{card.id}{q}")
        body = json.dumps(api.json(), ensure_ascii=False, indent=1)
        out += [
            f"=== {card.id} · {qs or 'defaults'}",
            f"--- GET /cards/{card.id}/fragment{q} → {frag.status_code} {frag.headers.get('content-type')}",
            frag.text,
            f"--- GET /api/cards/{card.id}{q} → {api.status_code} {api.headers.get('content-type')}",
            body,
            "",
        ]
    frag = client.get(f"/en/cards/{card.id}/fragment")
    api = client.get(f"/api/cards/{card.id}?lang=en")
    out += [
        f"=== {card.id} · defaults · English",
        f"--- GET /en/cards/{card.id}/fragment → {frag.status_code} {frag.headers.get('content-type')}",
        frag.text,
        f"--- GET /api/cards/{card.id}?lang=en → {api.status_code} {api.headers.get('content-type')}",
        json.dumps(api.json(), ensure_ascii=False, indent=1),
        "",
    ]
    return "\n".join(out)


def path_of(card_id: str) -> Path:
    return GOLDEN / f"{card_id}.txt"


def write_all() -> int:
    """``make golden``: rewrite every card's record; returns how many files changed."""
    from app.cards import REGISTRY
    from fastapi.testclient import TestClient

    from tests.apps import build_app

    client = TestClient(build_app())
    GOLDEN.mkdir(exist_ok=True)
    changed = 0
    for cid in sorted(REGISTRY):
        text = record(client, REGISTRY[cid])
        p = path_of(cid)
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
            changed += 1
    for stale in set(GOLDEN.glob("*.txt")) - {path_of(c) for c in REGISTRY}:
        stale.unlink()
        changed += 1
    return changed


if __name__ == "__main__":
    n = write_all()
    print(f"golden: {n} file(s) rewritten under {GOLDEN}", file=sys.stderr)
