"""What the card check route (``POST /api/cards/{id}/check``) must not hand out while a class is
asking: the expected value of an output that an open, not yet revealed live question asks at that
card and state, in the app's own live class. The route reaches this through
``app.state.live_withheld`` (``install`` binds it to the app's live class), so the card routes do not
import the live class."""

from __future__ import annotations

import logging

from fastapi import HTTPException

from ..cards import REGISTRY
from .context import LiveContext
from .deps import card_state
from .store import StoreUnavailable

log = logging.getLogger("aiinfra.live")


async def withheld(live: LiveContext, card_id: str, params) -> frozenset[str]:
    """The output keys whose expected value stays unsaid for ``card_id`` at ``params`` while a class
    of ``live`` asks. When its store cannot say (down, hung), every question of the card is withheld:
    fail closed."""
    try:
        pending = await live.store.pending(card_id)
    except StoreUnavailable as e:
        log.warning("check route: live store unavailable (%s): withholding every expected value", e)
        card = REGISTRY.get(card_id)
        return frozenset(q.key for q in card.compute(params).questions) if card else frozenset()
    if not pending:
        return frozenset()
    mine = params.model_dump_json()
    out = set()
    for q in pending:
        try:
            _, asked = card_state(card_id, q.get("query", ""))
        except HTTPException:
            continue
        if asked.model_dump_json() == mine:
            out.add(q["key"])
    return frozenset(out)
