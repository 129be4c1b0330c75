"""Awaiting a coroutine from a plain (sync) test, whatever else runs in the worker process.

``asyncio.run`` refuses to start when the thread already has a running event loop, and one is
marked running for the rest of a worker process once the browser tests' fixture has opened
Playwright's sync API (tests/browser/conftest.py): a later ``asyncio.run`` in that process then fails
("cannot be called from a running event loop"), depending on how xdist deals out the tests. Here the
coroutine runs on a fresh event loop in a thread of its own, through anyio's blocking portal
(https://anyio.readthedocs.io/en/stable/threads.html, "Calling asynchronous code from an external
thread"; the
pattern from https://github.com/agronholm/anyio/discussions/341), so the caller's thread and its loop never matter."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

from anyio.from_thread import start_blocking_portal

T = TypeVar("T")


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """The result of ``coro``, run to completion on a new event loop in another thread."""

    async def wait() -> T:
        return await coro

    with start_blocking_portal(backend="asyncio") as portal:
        return portal.call(wait)
