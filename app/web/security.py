"""Headers on every response: a strict CSP (no inline scripts anywhere), nosniff, referrer policy,
framing allowed only for the embed view, and one ``Vary`` header. A plain ASGI middleware (cheaper
than BaseHTTPMiddleware)."""

from __future__ import annotations

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
)
SELF_FRAME = "frame-ancestors 'self'"
ANY_FRAME = "frame-ancestors *"
CSP_PAGE, CSP_EMBED = (CSP + SELF_FRAME).encode(), (CSP + ANY_FRAME).encode()


def one_vary(headers) -> list[tuple[bytes, bytes]]:
    """All ``Vary`` values as one header, each name once (a route's ``Vary: Accept-Encoding`` and the
    one GZipMiddleware appends would otherwise be sent twice)."""
    names: dict[bytes, bytes] = {}  # lower-case name -> name as first sent
    for k, v in headers:
        if k == b"vary":
            for n in v.split(b","):
                if n.strip():
                    names.setdefault(n.strip().lower(), n.strip())
    return [(b"vary", b", ".join(names.values()))] if names else []


class SecurityHeaders:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_wrapper(message):
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k not in (b"x-frame-embed", b"vary")]
                headers += one_vary(message.get("headers", []))
                embed = any(k == b"x-frame-embed" for k, _ in message.get("headers", []))
                headers += [
                    (b"content-security-policy", CSP_EMBED if embed else CSP_PAGE),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"strict-origin-when-cross-origin"),
                ]
                if not embed:
                    headers.append((b"x-frame-options", b"SAMEORIGIN"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_wrapper)
