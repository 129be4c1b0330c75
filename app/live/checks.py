"""What the card check route (``POST /api/cards/{id}/check``) must not hand out while a class is
asking (issue 39, point 6): it is no oracle for an open, not yet revealed live question.

- The expected value of an asked output is withheld at EVERY parameter state of the card, not only
  at the asked one: an unrelated parameter changed used to give the asked value back.
- Verdicts on an asked output are rate-limited per client address (CHECKS_PER_ADDRESS) and per /24
  or /48 (CHECKS_PER_NETWORK) per CHECK_WINDOW_S: a three-way verdict (正确/接近/不对) found the
  exact value in ~130 requests; at 6 a minute that takes over 20 minutes, longer than a question
  stays open. Beyond it: 429 with Retry-After, naming the live class.

The check route takes no participant credential (a phone checks its card as any reader does), so a
participant cannot be told apart from anyone else: every caller is held to this while any class of
this app asks the output. With no class asking, nothing changes (no count, every value as before).
The route reaches this through ``app.state.live_withheld`` (``install`` binds it to the app's live
class), so the card routes do not import the live class."""

from __future__ import annotations

import logging
from collections.abc import Iterable

from starlette.requests import HTTPConnection

from .. import exercises
from ..cards import REGISTRY
from ..words import words_for
from .context import LiveContext
from .deps import address, fail, network
from .limits import CHECK_WINDOW_S, CHECKS_PER_ADDRESS, CHECKS_PER_NETWORK
from .store import StoreUnavailable

W = words_for(__name__)

log = logging.getLogger("aiinfra.live")


async def withheld(
    live: LiveContext, conn: HTTPConnection, card_id: str, answered: Iterable[str], reveal: bool
) -> frozenset[str]:
    """The output keys of ``card_id`` whose expected value stays unsaid (whatever the parameters) while
    a class of ``live`` asks them; a verdict on one of them (``answered``) counts against the caller's
    check budget (429 beyond). When the store cannot say (down, hung), every question of the card is
    withheld: fail closed (and nothing is counted)."""
    try:
        pending = await live.store.pending(card_id)
    except StoreUnavailable as e:
        if reveal:
            log.warning("check route: live store unavailable (%s): withholding every expected value", e)
        card = REGISTRY.get(card_id)
        return frozenset(q.key for q in exercises.questions_of(card).values()) if card else frozenset()
    asked = frozenset(q["key"] for q in pending)
    if asked & set(answered):
        await _count(live, conn, card_id)
    return asked


async def _count(live: LiveContext, conn: HTTPConnection, card_id: str) -> None:
    from .api import retry_after

    keys = await live.keys()
    where, net = keys.address(address(conn)), keys.address(network(conn))
    for bucket, limit in ((f"c:{card_id}:{where}", CHECKS_PER_ADDRESS), (f"cn:{card_id}:{net}", CHECKS_PER_NETWORK)):
        try:
            allowed = await live.store.allow(bucket, limit, CHECK_WINDOW_S)
        except StoreUnavailable:
            return  # the values are withheld anyway; a verdict alone is not worth a 503 to a reader
        if not allowed:
            raise fail(
                429,
                "answers",
                W.f("count.fail", check_window_s=CHECK_WINDOW_S, checks_per_address=CHECKS_PER_ADDRESS),
                "rate_limited",
                retry_after(CHECK_WINDOW_S),
            )
