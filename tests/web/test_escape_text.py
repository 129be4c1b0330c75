"""Filled numbers are escaped without the cache (esc_text); the result must be what the cached esc
gives: the same text, always a plain str (a Markup joined to HTML would escape the HTML instead)."""

from __future__ import annotations

import random

from app.web.parts import esc, esc_text
from markupsafe import Markup


def test_esc_text_escapes_as_esc_does():
    rnd = random.Random(3)
    alphabet = "0123456789.,≈ ×⁰¹²GBms/µ%<>&\"'—abc"
    texts = ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12))) for _ in range(2000)]
    texts += ["21.28 ms", "<b>", "a & b", '"q"', "'s'", "", Markup("<b>5</b>"), Markup("5"), Markup("a &amp; b")]
    for t in texts:
        got = esc_text(t)
        assert got == esc(t), t
        assert type(got) is str, t
    assert "<td>" + esc_text(Markup("5")) == "<td>5"  # joined as plain text: the HTML is left alone
