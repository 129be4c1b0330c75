"""No test starts an event loop with ``asyncio.run``: once the browser tests' fixture has opened
Playwright's sync API, a loop is marked running in that worker process for good, and any later
``asyncio.run`` there fails ("cannot be called from a running event loop"), depending on how the tests
are dealt out. Tests await coroutines through tests/aio.py instead."""

from __future__ import annotations

import ast
import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.aio import run_async

TESTS = Path(__file__).resolve().parent


def asyncio_run_calls(source: str) -> list[int]:
    """Line numbers of ``asyncio.run(...)`` calls in ``source``."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "run"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "asyncio"
    ]


def test_the_finder_sees_a_call():
    assert asyncio_run_calls("import asyncio\nx = 1\nasyncio.run(main())\n") == [3]
    assert asyncio_run_calls("anyio.run(main)\nrun_async(main())\n") == []


def test_no_test_calls_asyncio_run():
    found = {
        str(path.relative_to(TESTS)): lines
        for path in sorted(TESTS.rglob("*.py"))
        if (lines := asyncio_run_calls(path.read_text(encoding="utf-8")))
    }
    assert not found, f"use tests.aio.run_async instead of asyncio.run: {found}"


def test_run_async_works_inside_a_running_loop():
    """Where asyncio.run refuses (a loop already running in the calling thread), run_async answers.
    The loop runs in a thread of its own here: this worker's main thread may already hold one that
    is marked running (Playwright's), where even ``run_until_complete`` of a new loop is refused."""

    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    async def outer() -> int:
        return run_async(answer())  # blocks this loop's thread while a loop of its own runs `answer`

    def in_a_running_loop() -> int:
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(outer())
        finally:
            loop.close()

    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(in_a_running_loop).result() == 42


def test_one_playwright_per_process():
    """The same cause the other way round: a test that opens ``sync_playwright()`` itself fails when the
    shared ``browser`` fixture already holds one in that worker. Only tests/conftest.py opens it."""
    opened = sorted(
        str(path.relative_to(TESTS))
        for path in TESTS.rglob("*.py")
        if path.name != "test_no_asyncio_run.py"
        and any(
            isinstance(node, ast.Call) and getattr(node.func, "id", None) == "sync_playwright"
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        )
    )
    assert opened == ["conftest.py"], f"use the browser fixture (tests/chromium.py): {opened}"
