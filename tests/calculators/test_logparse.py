"""The lab-log parsers on real logs (tests/data/logs: each excerpt beside a sidecar naming its public source
and the fields it must parse to), and on the awkward inputs: separators, units, truncation, binary, noise."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from app.calculators import logparse, planner, reconcile
from app.calculators.model_config import shape_of
from app.data import gpu, model_config

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"
FIXTURES = sorted(
    p
    for p in LOGS.rglob("*")
    if p.is_file() and not p.name.endswith((".log.json", ".txt.json", ".md.json", ".json.json"))
)


def sidecar(p: Path) -> dict:
    return json.loads(p.with_name(p.name + ".json").read_text(encoding="utf-8"))


def test_enough_fixtures_from_the_world():
    formats = {f for p in FIXTURES for f in sidecar(p)["formats"]}
    assert len(FIXTURES) >= 15
    assert formats == set(logparse.FORMATS)
    for p in FIXTURES:
        assert sidecar(p)["source"].startswith("https://github.com/"), p


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_each_fixture_parses_exactly(path: Path):
    side = sidecar(path)
    got = logparse.parse(path.read_text(encoding="utf-8"))
    assert list(got.formats) == side["formats"]
    assert set(got.fields) == set(side["expected"])
    for k, v in side["expected"].items():
        if isinstance(v, str) or isinstance(v, int) and not isinstance(v, bool) and isinstance(got.fields[k], int):
            assert got.fields[k] == v, k
        else:
            assert got.fields[k] == pytest.approx(v, rel=1e-12), k


def fixture_setup(side: dict) -> reconcile.Setup:
    st = side["setup"]
    m = st.get("model", "qwen3-8b")
    cfg = json.loads((CONFIGS / f"{m[7:]}.json").read_text()) if m.startswith("config:") else model_config(m)
    g = gpu(st.get("gpu", "h100-sxm"))
    tp = st.get("tp", 1)
    from app.calculators import parallel

    link = parallel.link_for_tp(g.topology, g.interconnect_bytes_s, g.link_peer_bytes_s, tp)
    acc = planner.Accelerator(g.runtime_mem_bytes, g.bw_bytes_s, g.peaks_flops(), link)
    return reconcile.Setup(
        shape_of(cfg), acc, tp=tp, count=st.get("count", tp), mem_util=st.get("mem_util", 0.9),
        weight_format=st.get("weight_format", "bf16"),
    )  # fmt: skip


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_each_fixture_reconciles(path: Path):
    """Every fixture reconciles under its sidecar's setup (the page's defaults where the source says nothing)
    without error; every row's share is a finite positive number and names a card."""
    got = logparse.parse(path.read_text(encoding="utf-8"))
    rec = reconcile.reconcile(got.fields, fixture_setup(sidecar(path)))
    for r in rec.rows:
        assert r.card
        if r.pct is not None:
            assert 0 < r.pct < 100, r


def test_known_figures_of_three_fixtures():
    """Three reconciled fixtures, the numbers the closing note quotes."""
    p = LOGS / "vllm_startup" / "vllm-10517-llama31-8b-rtx3090.log"
    rec = reconcile.reconcile(logparse.parse(p.read_text()).fields, fixture_setup(sidecar(p)))
    rows = {r.key: r for r in rec.rows}
    assert rows["weights"].verdict == "weights_close"  # 14.9888 "GB" is GiB: 16.09 GB against 16.06 GB
    assert rows["weights"].pct == pytest.approx(1.0, abs=0.01)
    assert rows["kv_tokens"].measured == 23648
    p = LOGS / "vllm_bench" / "vllm-bench-yiliu30-pp-local.sh.txt"
    rec = reconcile.reconcile(logparse.parse(p.read_text()).fields, fixture_setup(sidecar(p)))
    assert rec.batch == 32 and rec.batch_source == "configured"
    p = LOGS / "llama_cpp" / "llama-bench-4766-rtx4090.md"
    rec = reconcile.reconcile(logparse.parse(p.read_text()).fields, fixture_setup(sidecar(p)))
    tg = {r.key: r for r in rec.rows}["llama_tg"]
    # RTX 4090: 1008 GB/s over the 12.55 GiB F16 file = 74.8 token/s; measured 61.03 → 82 %
    assert tg.bound == pytest.approx(gpu("rtx-4090").bw_bytes_s / (12.55 * 2**30))
    assert tg.pct == pytest.approx(61.03 / tg.bound)


def test_thousands_separators_and_units():
    f = logparse.parse("GPU KV cache size: 2,042,016 tokens\nAvailable KV cache memory: 8.11 GiB\n").fields
    assert f["kv_tokens"] == 2_042_016
    assert f["kv_cache_bytes"] == pytest.approx(8.11 * 2**30)


def test_mixed_units_each_line_in_its_own():
    """GB and GiB in one paste: V1's GiB as printed, V0's weights "GB" (bytes / 2**30) as GiB, MiB as MiB."""
    text = "Model loading took 11.55 GiB memory\nkv_cache_size=512MiB\nGPU KV cache size: 100 tokens\n"
    f = logparse.parse(text).fields
    assert f["weights_bytes"] == pytest.approx(11.55 * 2**30)
    assert f["kv_cache_bytes"] == pytest.approx(512 * 2**20)
    v0 = logparse.parse("Loading model weights took 14.9888 GB\n# GPU blocks: 10\n").fields
    assert v0["weights_bytes"] == pytest.approx(14.9888 * 2**30)
    sg = logparse.parse("KV Cache is allocated. #tokens: 10, K size: 1.00 GB, V size: 1.00 GB").fields
    assert sg["kv_cache_bytes"] == pytest.approx(2 * 2**30)


def test_case_and_variants():
    f = logparse.parse("gpu kv cache size: 7 TOKENS\n").fields
    assert f["kv_tokens"] == 7
    t = "============ Serving Benchmark Result ============\n  Median TPOT (ms):  12.5\n  p99 itl (ms): 3\n"
    g = logparse.parse(t).fields
    assert g["median_tpot_s"] == pytest.approx(0.0125) and g["p99_itl_s"] == pytest.approx(0.003)


def test_nothing_recognisable():
    with pytest.raises(logparse.LogError) as e:
        logparse.parse("hello\nthis is not a serving log, GPU is fine\n")
    assert e.value.kind == "nothing"


def test_truncated_tables():
    cut = "| model | size | params | backend | ngl | test | t/s |\n| --- | ---: | ---: | --- | --: | --- | ---: |\n| llama 7B Q4_0 | 3.56 GiB | 6.74 B | CUDA | 99 |"
    with pytest.raises(logparse.LogError) as e:
        logparse.parse(cut)
    assert e.value.kind == "truncated" and e.value.detail == "llama-bench"
    bb = "|    PP |     TG |    B |   N_KV |   T_PP s | S_PP t/s |   T_TG s | S_TG t/s |      T s |    S t/s |\n|   128 |    128 |    1 |"
    with pytest.raises(logparse.LogError) as e:
        logparse.parse(bb)
    assert e.value.kind == "truncated" and e.value.detail == "llama-batched-bench"


def test_binary_bytes():
    with pytest.raises(logparse.LogError) as e:
        logparse.parse(bytes(range(256)).decode("latin-1") * 10)
    assert e.value.kind == "not_text"
    with pytest.raises(logparse.LogError) as e:
        logparse.parse("GPU KV cache size: 5 tokens\x00")
    assert e.value.kind == "not_text"


def test_a_megabyte_of_noise_is_quick():
    """Close to the size limit, lines of noise: refused as unrecognised in well under a second."""
    noise = ("lorem ipsum: dolor | sit | amet 12,345.6 GiB x\n" * 20_000)[:990_000]
    t0 = time.perf_counter()
    with pytest.raises(logparse.LogError):
        logparse.parse(noise)
    assert time.perf_counter() - t0 < 2.0


def test_no_free_text_leaves_a_parser():
    """Hostnames, paths, tokens and model names never become fields: only numbers and closed vocabularies."""
    text = (
        "INFO host gpu-node-17.lab.example.com /home/alice/models/llama hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345\n"
        "GPU KV cache size: 1,000 tokens\nSUT name : alice-box\n"
    )
    f = logparse.parse(text).fields
    assert all(isinstance(v, int | float) for v in f.values())


def test_vllm_saved_json_keys():
    """vLLM's --save-result keys (vllm/benchmarks/serve.py result_json; no real file was found to commit):
    the same fields as the text, times in seconds, p99.9 kept apart from p99, null concurrency skipped."""
    obj = {
        "date": "20250101-000000", "backend": "vllm", "max_concurrency": None, "duration": 30.85, "completed": 1000,
        "failed": 0, "total_input_tokens": 229711, "total_output_tokens": 203068, "request_throughput": 32.42,
        "output_throughput": 6582.87, "total_token_throughput": 14029.44, "median_tpot_ms": 48.84,
        "p99_tpot_ms": 211.21, "p99.9_ttft_ms": 13000.0, "mean_e2el_ms": 25000.0,
    }  # fmt: skip
    got = logparse.parse(json.dumps(obj))
    assert got.formats == ("vllm_bench",)
    f = got.fields
    assert f["median_tpot_s"] == pytest.approx(0.04884) and f["p99_9_ttft_s"] == pytest.approx(13.0)
    assert f["mean_e2el_s"] == pytest.approx(25.0) and "max_concurrency" not in f and f["completed"] == 1000
