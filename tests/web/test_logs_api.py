"""/api/logs/* and /tools/log: statuses, messages, the result address, the size limit, and privacy (the log
text never reaches a response, an address or the app's loggers)."""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from app.web.limits import MAX_BODY
from fastapi.testclient import TestClient

from tests.apps import build_app

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
BENCH = (LOGS / "vllm_bench" / "vllm-bench-yiliu30-pp-local.sh.txt").read_text()
SECRET_HOST = "gpu-node-17.lab.example.com"
SECRET_PATH = "/home/alice/private-models/llama"
SECRET_TOKEN = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345"
PRIVATE = f"INFO {SECRET_HOST} loading {SECRET_PATH} with token {SECRET_TOKEN}\n" + BENCH


@pytest.fixture(scope="module")
def client():
    return TestClient(build_app())


def test_parse_returns_fields(client):
    r = client.post("/api/logs/parse", json={"text": BENCH})
    assert r.status_code == 200
    j = r.json()
    assert j["formats"] == ["vllm_bench"]
    assert j["fields"]["max_concurrency"] == 32
    assert j["fields"]["median_tpot_s"] == pytest.approx(0.07023)


def test_reconcile_rows_with_bounds_cards_and_verdicts(client):
    r = client.post("/api/logs/reconcile", json={"text": BENCH, "settings": {"model": "qwen3-8b", "gpu": "h100-sxm"}})
    assert r.status_code == 200
    rows = {x["key"]: x for x in r.json()["rows"]}
    assert {"tpot", "throughput", "ttft", "little"} <= set(rows)
    t = rows["tpot"]
    assert t["bound"] > 0 and t["pct"] == pytest.approx(t["bound"] / t["measured"])
    assert t["card_url"].startswith("/cards/") and "下界" in t["verdict"] and t["derivation"]
    assert client.get(t["card_url"]).status_code in (200, 307)


def test_reconcile_from_fields_matches_text(client):
    a = client.post("/api/logs/reconcile", json={"text": BENCH}).json()
    b = client.post("/api/logs/reconcile", json={"fields": a["fields"]}).json()
    assert [r["pct"] for r in a["rows"]] == pytest.approx([r["pct"] for r in b["rows"]])


def test_the_address_reopens_the_same_result(client):
    j = client.post("/api/logs/reconcile", json={"text": BENCH, "settings": {"gpu": "a100-80gb-sxm"}}).json()
    q = dict(parse_qsl(urlsplit(j["address"]).query))
    assert q["s_gpu"] == "a100-80gb-sxm" and q["max_concurrency"] == "32"
    page = client.get(j["address"])
    assert page.status_code == 200
    for row in j["rows"]:
        assert row["verdict"] in page.text


def test_form_post_redirects_to_numbers_only(client):
    r = client.post("/tools/log", data={"log": PRIVATE, "model": "qwen3-8b", "gpu": "h100-sxm"}, follow_redirects=False)
    assert r.status_code == 303
    loc = r.headers["location"]
    assert loc.startswith("/tools/log?") and "median_tpot_s=" in loc
    for s in (SECRET_HOST, SECRET_PATH, SECRET_TOKEN, "alice", "hf_"):
        assert s not in loc
    page = client.get(loc)
    for s in (SECRET_HOST, SECRET_PATH, SECRET_TOKEN):
        assert s not in page.text


def test_private_strings_never_in_api_answers(client):
    for url in ("/api/logs/parse", "/api/logs/reconcile"):
        r = client.post(url, json={"text": PRIVATE})
        assert r.status_code == 200
        for s in (SECRET_HOST, SECRET_PATH, SECRET_TOKEN):
            assert s not in r.text


def test_log_text_never_reaches_a_logger(client, caplog):
    marker = "UNIQUE-MARKER-7f3a9c"
    with caplog.at_level(logging.DEBUG):
        client.post("/api/logs/parse", json={"text": f"{marker}\n" + BENCH})
        client.post("/api/logs/parse", json={"text": f"{marker} nothing here"})
        client.post("/tools/log", data={"log": f"{marker}\n" + BENCH}, follow_redirects=False)
    assert caplog.records, "the capture works: something was logged at DEBUG"
    assert marker not in caplog.text


@pytest.mark.parametrize(
    "text,kind",
    [
        ("just some words, no figures", "nothing"),
        ("", "empty"),
        ("| model | size | params | backend | ngl | test | t/s |\n| a | 1 GiB | 1 B | CUDA |", "truncated"),
        ("\x00\x01\x02binary" * 50, "not_text"),
    ],
)
def test_bad_input_is_a_clear_422(client, text, kind):
    r = client.post("/api/logs/parse", json={"text": text})
    assert r.status_code == 422
    d = r.json()["detail"][0]
    assert d["type"] == kind and d["field"] == "text" and d["msg"]
    if text:
        assert text[:20] not in d["msg"]


def test_nothing_message_names_what_was_expected(client):
    msg = client.post("/api/logs/parse", json={"text": "nope"}).json()["detail"][0]["msg"]
    for expected in ("GPU KV cache size", "Serving Benchmark Result", "llama-bench", "mlperf_log_summary.txt"):
        assert expected in msg


def test_size_limit_413(client):
    """The one limit (app.web.limits.MAX_BODY): 10 MB of noise is refused with 413, never read into the parser."""
    noise = "x" * (10 * 1_000_000)
    r = client.post(
        "/api/logs/parse", content=b'{"text": "' + noise.encode() + b'"}', headers={"content-type": "application/json"}
    )
    assert r.status_code == 413
    just_over = b'{"text": "' + b"y" * MAX_BODY + b'"}'
    assert (
        client.post("/api/logs/parse", content=just_over, headers={"content-type": "application/json"}).status_code
        == 413
    )
    r = client.post("/tools/log", data={"log": "z" * (MAX_BODY + 1)})
    assert r.status_code == 413


def test_under_the_limit_noise_is_422_not_500(client):
    r = client.post("/api/logs/parse", json={"text": ("noise: 1,234 | GiB\n" * 60_000)[: MAX_BODY // 2]})
    assert r.status_code == 422


def test_bad_settings_and_fields_are_422(client):
    r = client.post("/api/logs/reconcile", json={"text": BENCH, "settings": {"gpu": "no-such-gpu"}})
    assert r.status_code == 422
    r = client.post("/api/logs/reconcile", json={"fields": {"median_tpot_s": "-1"}})
    assert r.status_code == 422 and r.json()["detail"][0]["type"] == "bad_field"
    assert client.get("/tools/log?median_tpot_s=abc").status_code == 422
    assert client.get("/tools/log?median_tpot_s=nan").status_code == 422
    assert client.get("/tools/log?s_tp=0&median_tpot_s=0.1").status_code == 422
    assert client.get("/tools/log?scenario=<script>").status_code == 422


def test_page_without_result_and_header_link(client):
    r = client.get("/tools/log")
    assert r.status_code == 200 and 'id="log-form"' in r.text
    assert 'href="/tools/log"' in client.get("/").text


def test_form_errors_render_in_page_language(client):
    r = client.post("/tools/log", data={"log": "nothing to see"})
    assert r.status_code == 422 and "没有认出任何日志格式" in r.text


def test_a_result_page_is_not_kept_by_any_cache(client):
    """The empty page may be cached; a result (a reader's own figures) is answered no-store, so the edge
    cache keeps nothing of it."""
    assert client.get("/tools/log").headers["cache-control"].startswith("public")
    r = client.get("/tools/log?median_tpot_s=0.05&max_concurrency=8&completed=8")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"


def test_config_json_on_the_form_becomes_the_model(client):
    cfg = (Path(__file__).resolve().parents[1] / "data" / "configs" / "llama-3.1-8b.json").read_text()
    startup = (LOGS / "vllm_startup" / "vllm-10517-llama31-8b-rtx3090.log").read_text()
    r = client.post(
        "/tools/log", data={"log": startup, "config": cfg, "gpu": "custom:24,0.936,71"}, follow_redirects=False
    )
    assert r.status_code == 303
    q = dict(parse_qsl(urlsplit(r.headers["location"]).query))
    assert q["s_model"].startswith("cfg:") and q["s_gpu"] == "custom:24,0.936,71"
    page = client.get(r.headers["location"])
    assert page.status_code == 200 and 'data-key="weights"' in page.text
    bad = client.post("/tools/log", data={"log": startup, "config": "{not json"})
    assert bad.status_code == 422 and "config" in bad.text


def test_the_runtime_memory_in_the_log_wins_and_derivations_name_their_numbers(client):
    """vLLM's total_gpu_memory=23.58GiB (an RTX 3090 entered as custom 24 GB): the planner budgets from the
    runtime's 25.3 GB, so its KV capacity lands within 15 % of the engine's 23,648 tokens."""
    cfg = (Path(__file__).resolve().parents[1] / "data" / "configs" / "llama-3.1-8b.json").read_text()
    startup = (LOGS / "vllm_startup" / "vllm-10517-llama31-8b-rtx3090.log").read_text()
    loc = client.post(
        "/tools/log", data={"log": startup, "config": cfg, "gpu": "custom:24,0.936,71"}, follow_redirects=False
    ).headers["location"]
    q = dict(parse_qsl(urlsplit(loc).query))
    from app.calculators import reconcile
    from app.chapters.tools import log as page

    fields = {k: page.field_value(k, v) for k, v in q.items() if k != "fmt" and not k.startswith("s_")}
    st = page.LogSettings(model=q["s_model"], gpu=q["s_gpu"])
    rows = {r.key: r for r in reconcile.reconcile(fields, page.setup(st, fields)).rows}
    assert rows["kv_tokens"].verdict == "kv_tokens_close"
    assert rows["kv_tokens"].pct == pytest.approx(23648 / rows["kv_tokens"].bound)
    llama = (LOGS / "llama_cpp" / "llama-bench-4766-rtx4090.md").read_text()
    j = client.post("/api/logs/reconcile", json={"text": llama, "settings": {"gpu": "rtx-4090"}}).json()
    tg = next(r for r in j["rows"] if r["key"] == "llama_tg")
    assert "13.48 GB" in tg["derivation"] and "—" not in tg["derivation"]


EXTREME_FIELDS = [
    "kv_tokens", "kv_cache_bytes", "weights_bytes", "total_gpu_bytes", "completed", "max_concurrency",
    "total_input_tokens", "total_output_tokens", "request_throughput", "output_throughput", "median_tpot_s",
    "median_ttft_s", "mean_e2el_s", "tg_tokens_per_s", "pp_tokens_per_s", "model_bytes", "params", "batched_pp",
    "batched_tg", "batched_tg_tokens_per_s_b4", "tokens_per_s",
]  # fmt: skip


@pytest.mark.parametrize("value", ["0", "5e-324", "1e15"])
def test_extreme_figures_never_500(client, value):
    """Each field at zero, the smallest float or the largest figure allowed, the others at 1: an answer (200 or
    a 422 naming the range), never a 500; beyond the largest figure, the address is refused."""
    for name in EXTREME_FIELDS:
        q = "&".join(f"{m}={value if m == name else '1'}" for m in EXTREME_FIELDS)
        for st in ("", "&s_model=gpt-oss-120b&s_tp=8&s_gpu=b200", "&s_gpu=custom:1,0.01,1"):
            assert client.get("/tools/log?" + q + st).status_code in (200, 422), (name, st)
    assert client.get("/tools/log?median_tpot_s=1e16").status_code == 422


def test_too_many_form_fields_is_422(client):
    assert client.post("/tools/log", data={f"k{i}": "1" for i in range(40)}).status_code == 422


def test_the_english_result_page_reads_in_english(client):
    """A pasted vLLM bench output on /en/tools/log: every row, verdict, derivation and the chart in English."""
    import re

    r = client.post("/en/tools/log", data={"log": BENCH, "model": "qwen3-8b", "gpu": "h100-sxm"})
    assert r.status_code == 200 and "/en/tools/log?" in str(r.url)
    main = r.text[r.text.index("<main") : r.text.index("</main>")]
    shown = re.sub(r"<[^>]+>", " ", re.sub(r"<script\b.*?</script>", "", main, flags=re.S))
    assert re.findall(r"[\u4e00-\u9fff]+", shown) == []
    chart = re.search(r'<script type="application/json"[^>]*>(.*?)</script>', main, re.S)
    assert chart and not re.search(r"[\u4e00-\u9fff]", chart.group(1))
    zh = client.post("/tools/log", data={"log": BENCH, "model": "qwen3-8b", "gpu": "h100-sxm"})
    assert (
        re.findall(r"\d[\d,.]*", re.sub(r"<[^>]+>", " ", zh.text[zh.text.index("<table") :])[:400])[:6]
        == (re.findall(r"\d[\d,.]*", re.sub(r"<[^>]+>", " ", r.text[r.text.index("<table") :])[:400])[:6])
    )
