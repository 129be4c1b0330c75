"""The guide's worked example (tests/example_card.py) is a card that registers, renders and explains
itself, and docs/adding-cards.md shows exactly its code. The card is registered only inside these
tests: the rest of the suite is parametrised over the registry and holds it equal to the catalog."""

from __future__ import annotations

import importlib
import math
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from app.cards import REGISTRY, Card, unregister
from app.trace import evaluate
from fastapi.testclient import TestClient

from tests.apps import build_app
from tests.engine.test_trace_dependencies import lost_outputs

from .conftest import mypy_cache

ROOT = Path(__file__).resolve().parents[2]
MODULE, CARD = "tests.example_card", "kv-per-request"

# Qwen3-8B's public config: 36 layers, 8 KV heads of dimension 128; K and V in BF16 (2 B)
KV_PER_TOKEN = 2 * 36 * 8 * 128 * 2  # 147,456 B


@contextmanager
def example_registered() -> Iterator[Card]:
    """The example card registered (by importing its module), and gone again afterwards."""
    assert CARD not in REGISTRY, f"{CARD} is registered outside this test"
    try:
        importlib.import_module(MODULE)
        yield REGISTRY[CARD]
    finally:
        if CARD in REGISTRY:
            unregister(CARD)
        sys.modules.pop(MODULE, None)
        package = sys.modules["tests"]
        if hasattr(package, "example_card"):
            delattr(package, "example_card")


@pytest.fixture
def example() -> Iterator[Card]:
    with example_registered() as card:
        yield card


@pytest.fixture
def example_client(example: Card) -> TestClient:
    """An app built after the example registered (its routes are made from the registry)."""
    return TestClient(build_app())


def tile_texts(fragment: str) -> dict[str, str]:
    """Each tile's value as the reader sees it ("147,456 B"), by output key."""
    tiles = re.findall(r'<div class="stat[^"]*" data-key="(\w+)">.*?<dd>(.*?)</dd>', fragment, re.S)
    return {key: " ".join(re.sub(r"<[^>]+>", " ", dd).split()) for key, dd in tiles}


def test_the_example_renders_its_tiles(example_client):
    r = example_client.get(f"/cards/{CARD}/fragment")
    assert r.status_code == 200
    assert tile_texts(r.text) == {"kv_per_token_bytes": "147,456 B", "kv_request_gib": "0.56 GiB"}
    assert "S = 4,096 token 时每请求" in r.text  # the figure's summary, its slots filled


@pytest.mark.parametrize("context_tokens", [4096, 32768, 128])
def test_the_json_answer_is_the_hand_computation(example_client, context_tokens):
    body = example_client.get(f"/api/cards/{CARD}", params={"context_tokens": context_tokens}).json()
    assert body["outputs"]["kv_per_token_bytes"] == KV_PER_TOKEN
    assert math.isclose(body["outputs"]["kv_request_gib"], KV_PER_TOKEN * context_tokens / 2**30, rel_tol=1e-12)
    if context_tokens == 4096:
        assert body["outputs"]["kv_request_gib"] == 0.5625


def test_the_derivation_names_the_context_slider(example_client, example):
    assert lost_outputs(example, "context_tokens") == []
    d = example_client.get(f"/api/cards/{CARD}").json()["derivations"]["kv_request_gib"]
    assert {i["source"] for i in d["inputs"]} >= {"滑块:上下文长度 S"}
    assert "S" in d["formula"] and math.isclose(evaluate(d["check"]), 0.5625, rel_tol=1e-12)


def test_the_section_page_places_the_new_card(example_client):
    page = example_client.get("/ch/1/1.2")
    assert page.status_code == 200 and f'id="{CARD}"' in page.text


def test_the_example_leaves_the_registry_as_it_was():
    before = dict(REGISTRY)
    with example_registered():
        assert set(REGISTRY) == set(before) | {CARD}
    assert REGISTRY == before and MODULE not in sys.modules


def test_every_code_block_of_the_guide_is_in_the_example():
    guide = (ROOT / "docs" / "adding-cards.md").read_text(encoding="utf-8")
    module = (ROOT / "tests" / "example_card.py").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", guide, re.S)
    assert len(blocks) >= 3, "the guide shows the formula, the parameters/outputs and the card"
    for block in blocks:
        assert block in module, f"docs/adding-cards.md shows code that tests/example_card.py does not have:\n{block}"


def test_the_example_passes_mypy(tmp_path):
    """The example is code like any other: typed (ruff covers it with the rest of tests/)."""
    mypy = Path(sys.executable).with_name("mypy")
    done = subprocess.run(
        [str(mypy) if mypy.exists() else "mypy", "--cache-dir", str(mypy_cache(tmp_path / "mypy")), "-m", MODULE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
