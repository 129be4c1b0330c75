"""The editions: Chinese at the root, English under ``/en/`` (the Python docs' and the Hugging Face
course's shape: one URL prefix per language). A request under ``/en/`` is served by the same routes
with its prefix removed, in English (:data:`app.words.LANG`), and the links of its HTML keep the
prefix, so a reader stays in the edition they chose. The JSON API takes ``lang=en`` instead (numbers are
the same bytes in every edition; only words change)."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl

from ..errors import error_item, error_response
from ..words import DEFAULT_LANG, HERE, LANG, LANGS, words_for

W = words_for(__name__)

PREFIXES = {f"/{lang}": lang for lang in LANGS if lang != DEFAULT_LANG}
# site-internal links in an edition's HTML: pages, fragments and the live class keep the prefix;
# static files and the JSON API are the same for every edition; a link to the Chinese edition itself is
# written hreflang="zh-CN" href="/…" and stays at the root
LINK = re.compile(
    rb'(?<!hreflang="zh-CN" )((?:href|action|src|hx-get|hx-post|data-[a-z-]+)=")/(?=(?:cards|present|ch|glossary|tools|jump|live|docs)\b|")'
)


def edition_of(path: str) -> tuple[str, str]:
    """``("en", "/ch/1")`` for ``/en/ch/1``; ``("zh", path)`` for a path in no edition's folder."""
    for prefix, lang in PREFIXES.items():
        if path == prefix or path.startswith(prefix + "/"):
            return lang, path[len(prefix) :] or "/"
    return DEFAULT_LANG, path


class Editions:
    """ASGI middleware: serve ``/en/…`` as ``/…`` in English (and ``/api/…?lang=en``)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        lang, path = edition_of(scope["path"])
        HERE.set((path, scope.get("query_string", b"").decode("latin-1")))
        if lang == DEFAULT_LANG and path.startswith("/api/") and b"lang=" in scope.get("query_string", b""):
            asked = dict(parse_qsl(scope["query_string"].decode("latin-1"))).get("lang", DEFAULT_LANG)
            if asked not in LANGS:
                msg = W.f("lang_refused", langs=" / ".join(LANGS))
                return await error_response(422, [error_item("lang", msg, "literal_error", ["query", "lang"])])(
                    scope, receive, send
                )
            lang = asked
        if lang == DEFAULT_LANG:
            return await self.app(scope, receive, send)
        inner = dict(scope, path=path, raw_path=path.encode()) if path != scope["path"] else scope
        token = LANG.set(lang)
        try:
            await self.app(inner, receive, _linking(send, lang) if path != scope["path"] else send)
        finally:
            LANG.reset(token)


def _linking(send, lang: str):
    """``send`` that rewrites an HTML body's internal links (and a redirect's Location) into ``lang``'s folder."""
    start: dict = {}
    chunks: list[bytes] = []
    prefix = f"/{lang}".encode()

    async def wrapped(message) -> None:
        if message["type"] == "http.response.start":
            headers = [
                (k, prefix + v if k == b"location" and v.startswith(b"/") and not v.startswith(prefix + b"/") else v)
                for k, v in message.get("headers", [])
            ]
            message = dict(message, headers=headers)
            ctype = dict(headers).get(b"content-type", b"")
            if not ctype.startswith(b"text/html"):
                start["pass"] = True
                return await send(message)
            start["message"] = message
            return None
        if start.get("pass"):
            return await send(message)
        chunks.append(message.get("body", b""))
        if message.get("more_body"):
            return None
        body = LINK.sub(rb"\1" + prefix + b"/", b"".join(chunks))
        msg = start["message"]
        headers = [(k, str(len(body)).encode() if k == b"content-length" else v) for k, v in msg["headers"]]
        await send(dict(msg, headers=headers))
        await send({"type": "http.response.body", "body": body})

    return wrapped
