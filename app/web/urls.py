"""Which URLs the edge cache keeps, under what key: a card's representations by the card's own
parameters and the view flags only (``?utm_source=…`` or any other unknown key makes no new entry),
pairs sorted by key (a list parameter keeps its order); the book's pages without their query; live
class, static files and anything unknown are not the edge's (passed by, to GZip)."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode

from ..cards import REGISTRY
from ..chapters.tools import TOOLS
from ..render import VIEW_FLAGS
from ..words import DEFAULT_LANG, prefixed
from .language import edition_of

CARD_PATH = re.compile(r"^/(?:cards|present|api/cards)/([^/]+)(?:/fragment|/explain|/figure/\d+\.(?:csv|html))?$")
TOOL_PATH = re.compile(r"^/tools/([^/]+)$")
QUERY_KEYS = {"/jump": ("q",), "/present/deck": ("c", "at", "cards")}  # pages that read their query
NO_QUERY = re.compile(
    r"^/(?:|ch/[^/]+(?:/[^/]+)?|glossary(?:\.json)?|docs|openapi\.json|api/cards|api/gpus|api/models)$"
)
NOT_OURS = ("/static/", "/live", "/api/live", "/healthz")


def _kept(query: bytes, keys) -> str:
    pairs = [(k, v) for k, v in parse_qsl(query.decode("latin-1"), keep_blank_values=True) if k in keys]
    return urlencode(sorted(pairs, key=lambda kv: kv[0]))


def cache_key(path: str, query: bytes) -> str | None:
    """The edge's key for a GET of ``path?query``; None: not the edge's to keep. An edition's page is
    kept under its own folder (``/en/ch/1``), an API answer in another language under ``lang=``."""
    lang, inner = edition_of(path)
    if lang != DEFAULT_LANG:
        key = _key(inner, query)
        return None if key is None else prefixed(key, lang)
    key = _key(path, query)
    if key is not None and path.startswith("/api/") and b"lang=" in query:
        asked = dict(parse_qsl(query.decode("latin-1"))).get("lang", DEFAULT_LANG)
        if asked != DEFAULT_LANG:
            key += ("&" if "?" in key else "?") + urlencode({"lang": asked})
    return key


def _key(path: str, query: bytes) -> str | None:
    if path.startswith(NOT_OURS):
        return None
    m = None if path in QUERY_KEYS else CARD_PATH.match(path) or TOOL_PATH.match(path)
    if m:
        name = m.group(1) if m.re is CARD_PATH else TOOLS.get(m.group(1), "")
        card = REGISTRY.get(name)
        if card is None:  # an alias (a redirect) or no such card: not kept, as the app answers it
            return None
        q = _kept(query, set(card.params.model_fields) | set(VIEW_FLAGS))
    elif path in QUERY_KEYS:
        q = _kept(query, QUERY_KEYS[path])
    elif NO_QUERY.match(path):
        q = ""
    else:
        return None
    return f"{path}?{q}" if q else path
