"""The HTTP server's own limits, for uvicorn exposed directly (a lecture hall's Wi-Fi is not a data
centre behind a proxy): uvicorn's httptools protocol with

- a header deadline: a request's line and headers must arrive within HEADER_TIMEOUT_S of its first
  byte (or of the connection opening), else 408 and the connection is closed — 200 slow clients no
  longer hold 200 connections open for as long as they like;
- a header size cap: more than MAX_HEADER_BYTES before the headers end is 431 and closed (the
  parser never buffers a 16 MB header);
- a body deadline: a request body not complete within BODY_TIMEOUT_S (a trickle too) is answered 408
  and the connection closed (the live routes answer their own 408 sooner, BODY_READ_TIMEOUT_S);
- keep-alive: idle connections close after KEEPALIVE_S (uvicorn's own timer, set explicitly).

``uvicorn --http app.live.serving:GuardedHttpTools --timeout-keep-alive 5`` (``make run``) and
``worker_class = "app.live.serving.GuardedWorker"`` (deploy/gunicorn.conf.py) use it.

The server's access log never holds a participant credential: an event stream can only carry it in
its URL (EventSource sends no headers), so :class:`CredentialsOutOfLogs` writes each ``participant=``
value in a logged request line as ``…`` (installed by ``create_app``)."""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .limits import BODY_TIMEOUT_S, HEADER_TIMEOUT_S, KEEPALIVE_S, MAX_HEADER_BYTES


def _response(status: bytes, msg: str) -> bytes:
    body = msg.encode()
    return (
        b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body
    )


class GuardedHttpTools(HttpToolsProtocol):
    """httptools with a header deadline, a header size cap and a body deadline (see the module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_open = True  # between a request's first byte (or the connection) and its headers' end
        self._head_bytes = 0  # raw bytes received while a head is open (a head spread over many reads)
        self._head_size = 0  # the parsed request line and headers of the current request
        self._refused = False
        self._timer: asyncio.TimerHandle | None = None

    # deadlines
    def _arm(self, seconds: float, why: str) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._expired, why)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self, why: str) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if why == "head":
            self.transport.write(_response(b"408 Request Timeout", "request headers not received in time\n"))
        elif why == "body" and not self._response_started():  # the client hears why, as the live routes say
            self.transport.write(_response(b"408 Request Timeout", "request body not received in time\n"))
        self.transport.close()

    def _response_started(self) -> bool:
        """Has the app begun its answer to the current request (then only closing is left)?"""
        cycle = getattr(self, "cycle", None)
        return bool(cycle is not None and cycle.response_started)

    # the protocol
    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(HEADER_TIMEOUT_S, "head")

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._head_open:
            self._head_bytes += len(data)
        super().data_received(data)
        # still inside a request's head after this much: the head alone is too large
        if self._head_open and self._head_bytes > MAX_HEADER_BYTES and not self.transport.is_closing():
            self._too_large()

    def _too_large(self) -> None:
        self._disarm()
        self.transport.write(_response(b"431 Request Header Fields Too Large", "request headers too large\n"))
        self.transport.close()

    def on_url(self, url: bytes) -> None:
        self._head_size += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_size += len(name) + len(value) + 4
        if self._head_size > MAX_HEADER_BYTES:
            self._refused = True
            raise ValueError("request headers too large")  # the parser stops here (uvicorn: send_400_response)
        super().on_header(name, value)

    def send_400_response(self, msg: str) -> None:
        if self._refused:
            self._too_large()
        else:
            super().send_400_response(msg)

    def on_message_begin(self) -> None:
        self._head_size = 0
        super().on_message_begin()
        if self._timer is None:  # a keep-alive connection's next request: its own deadline
            self._arm(HEADER_TIMEOUT_S, "head")

    def on_headers_complete(self) -> None:
        self._head_open = False
        self._head_bytes = 0
        self._arm(BODY_TIMEOUT_S, "body")
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()
        self._head_open = True  # a pipelined or keep-alive request may follow
        self._head_bytes = 0


try:  # gunicorn is the production server (deploy/gunicorn.conf.py); the app runs without it too
    from uvicorn.workers import UvicornWorker

    class GuardedWorker(UvicornWorker):
        """gunicorn's uvicorn worker with the guarded protocol and an explicit keep-alive."""

        CONFIG_KWARGS = {"loop": "auto", "http": "app.live.serving:GuardedHttpTools"}

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.config.timeout_keep_alive = KEEPALIVE_S

except ImportError:  # pragma: no cover
    pass


CREDENTIAL = re.compile(r"(?<=[?&])(participant=)[^&\s]*")
ACCESS_LOGGER = "uvicorn.access"  # uvicorn's, also under gunicorn's uvicorn workers


def redacted(path: str) -> str:
    """A logged request path with each participant credential replaced by ``…``."""
    return CREDENTIAL.sub(r"\1…", path)


class CredentialsOutOfLogs(logging.Filter):
    """Rewrites the request line of an access-log record (uvicorn's args: client, method, path, HTTP
    version, status) so that no participant credential reaches the log; every record is kept."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str) and "participant=" in args[2]:
            record.args = (*args[:2], redacted(args[2]), *args[3:])
        elif isinstance(record.msg, str) and "participant=" in record.msg:
            record.msg = redacted(record.msg)
        return True


def keep_credentials_out_of_logs() -> None:
    """Install :class:`CredentialsOutOfLogs` on the access logger (once, however many apps are built)."""
    log = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, CredentialsOutOfLogs) for f in log.filters):
        log.addFilter(CredentialsOutOfLogs())
