"""GET /api/gpus through the real app: every preset with units and sources; the book's five keep the book's
values; dense peaks (sparsity halved) and one-direction interconnect as data/README.md states."""

from __future__ import annotations

import json
from pathlib import Path

from app import data

README = (Path(__file__).resolve().parents[2] / "data" / "README.md").read_text(encoding="utf-8")
BOOK = {  # id: (mem_gb, bw_tbps, bf16_tflops) — the book's values, never changed
    "rtx-4090": (24, 1.008, 165.2),
    "a100-80gb-sxm": (80, 2.039, 312),
    "h100-sxm": (80, 3.35, 989.4),
    "rtx-pro-6000": (96, 1.792, 503.8),
    "rtx-a6000": (48, None, None),
}
ADDED = {
    "h20",
    "h800-sxm",
    "h200-sxm",
    "b200",
    "l40s",
    "l20",
    "a800-80gb-sxm",
    "rtx-5090",
    "rtx-3090",  # issue 38: capacity only, for the parity logs
    "mi300x",
    "mi325x",
    "ascend-910b3",
}


def _presets(client) -> dict[str, dict]:
    r = client.get("/api/gpus")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert "one direction" in body["units"]["interconnect_gbps"] and "dense" in body["units"]["fp8_tflops"]
    return {g["id"]: g for g in body["gpus"]}


def test_lists_every_preset_with_book_values(client):
    got = _presets(client)
    assert set(got) == set(BOOK) | ADDED
    for gid, (mem, bw, tf) in BOOK.items():
        assert (got[gid]["mem_gb"], got[gid]["bw_tbps"], got[gid]["bf16_tflops"]) == (mem, bw, tf)
        assert got[gid]["book"] is True
    assert not any(got[g]["book"] for g in ADDED)


def test_each_added_part_is_cited_and_in_the_readme_table(client):
    for gid, g in _presets(client).items():
        if gid == "rtx-a6000":
            continue  # the book's capacity-only card: no value beyond the book's
        assert g["source"] and all(u.startswith("http") for u in g["source"]), gid
        assert f"`{gid}`" in README, gid
        for url in g["source"]:
            assert url in README, (gid, url)


def test_dense_peaks_and_one_direction_links(client):
    got = _presets(client)
    # datasheets print 2:4-sparse figures; stored halved
    assert got["h100-sxm"]["fp8_tflops"] == 3958 / 2
    assert got["h200-sxm"]["bf16_tflops"] == 1979 / 2 and got["h200-sxm"]["fp8_tflops"] == 3958 / 2
    assert got["b200"]["fp4_tflops"] == 72_000 / 8 and got["b200"]["fp8_tflops"] == 72_000 / 8 / 2
    assert got["rtx-5090"]["fp4_tflops"] == 3352 / 2
    # NVLink / Infinity Fabric are printed bidirectional; stored per direction
    assert got["h100-sxm"]["interconnect_gbps"] == 900 / 2
    assert got["h800-sxm"]["interconnect_gbps"] == 400 / 2
    assert got["a800-80gb-sxm"]["interconnect_gbps"] == 400 / 2
    assert got["b200"]["interconnect_gbps"] == 1800 / 2
    assert got["mi300x"]["interconnect_gbps"] == 7 * 128 / 2 and got["mi300x"]["link_peer_gbps"] == 128 / 2
    assert got["mi300x"]["topology"] == "mesh" and got["h100-sxm"]["topology"] == "switch"
    assert got["rtx-4090"]["topology"] == "pcie"
    # a part without a feature, or an unconfirmed value, is null — never 0
    assert got["h100-sxm"]["fp4_tflops"] is None and got["a100-80gb-sxm"]["fp8_tflops"] is None
    assert got["mi325x"]["mem_bytes"] == 262128 * 2**20  # amd-smi on an MI325X (AMD's ROCm install docs)
    assert got["mi325x"]["topology"] == "mesh" and got["mi325x"]["link_peer_gbps"] == 64
    # dense FP8 / FP4 where public dense figures exist (issue 24): twice / four times the dense BF16 on Blackwell
    # workstation parts (FP32 accumulate), the Ada 2× ratio on L20; B200 as the shipping HGX datasheet
    assert got["rtx-pro-6000"]["fp8_tflops"] == 2 * 503.8 and got["rtx-pro-6000"]["fp4_tflops"] == 4 * 503.8
    assert got["rtx-5090"]["fp8_tflops"] == 419
    assert (got["l20"]["bf16_tflops"], got["l20"]["fp8_tflops"]) == (119.5, 239)
    assert got["b200"]["bw_tbps"] == 7.7


MiB = 2**20


def test_memory_as_the_driver_reports_it(client):
    """nvidia-smi / rocm-smi / amd-smi / npu-smi totals, or the engine's own log, for every preset; an "80 GB"
    H100 is 79.22 GiB to vLLM (PR #10511), more than 80 × 10⁹ B but less than 80 GiB."""
    got = _presets(client)
    reported = {
        "rtx-4090": round(23.55 * 2**30),  # issue 38: the runtime total (vllm#13061), not nvidia-smi's 24564 MiB
        "a100-80gb-sxm": 81920 * MiB,
        "h100-sxm": round(79.22 * 2**30),
        "rtx-pro-6000": 97887 * MiB,
        "h200-sxm": 143771 * MiB,
        "b200": 183359 * MiB,
        "mi300x": 205_822_885_888,
        "mi325x": 262128 * MiB,  # amd-smi "283/262128 MB" on an MI325X (AMD's ROCm install docs)
        "ascend-910b3": 65536 * MiB,
    }
    for gid, b in reported.items():
        assert got[gid]["mem_bytes"] == b, gid
    for gid, g in got.items():
        assert g["mem_source"], gid
        if g["mem_bytes"] is not None:
            assert 0.9 < g["mem_bytes"] / (g["mem_gb"] * 1e9) < 1.15, gid  # the same part, read by its driver


def test_matches_the_data_file_and_openapi(client):
    raw = json.loads((Path(data.DATA) / "gpus.json").read_text(encoding="utf-8"))["gpus"]
    got = _presets(client)
    for gid, v in raw.items():
        for k, val in v.items():
            if k not in ("book", "en"):  # "en": the record's English edition of its Chinese fields
                assert got[gid][k] == val, (gid, k)
    english = {p["id"]: p for p in client.get("/api/gpus?lang=en").json()["gpus"]}
    for gid, v in raw.items():
        for k, val in v.get("en", {}).items():
            assert english[gid][k] == val, (gid, k)  # ?lang=en answers the English edition of the same fields
    spec = client.get("/openapi.json").json()
    schema = spec["paths"]["/api/gpus"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema["$ref"].endswith("/GpuList")
    assert "interconnect_gbps" in spec["components"]["schemas"]["GpuPreset"]["properties"]


def test_book_cards_still_list_only_the_books_presets():
    assert data.compute_gpu_ids() == ["rtx-4090", "a100-80gb-sxm", "h100-sxm", "rtx-pro-6000"]
    assert list(data.gpu_options(compute_only=False)) == list(BOOK)
    ext = data.extended_gpu_ids()
    assert ext[:4] == data.compute_gpu_ids() and {"h20", "b200", "mi300x"} <= set(ext)
    assert "l20" in ext and "ascend-910b3" not in ext  # L20 now has a BF16 peak; 910B3 still no bandwidth
    assert set(data.extended_gpu_ids(compute_only=False)) == set(BOOK) | ADDED


def test_peak_accessors():
    h100 = data.gpu("h100-sxm")
    assert h100.peak_tflops("fp8") == 1979 and h100.peak_tflops("fp4") is None
    assert h100.peaks_flops() == {"bf16": 989.4e12, "fp8": 1979e12}
    assert h100.interconnect_bytes_s == 450e9
    assert data.gpu("custom:80,3.35,989.4").peaks_flops() == {"bf16": 989.4e12}


def test_runtime_memory_of_every_preset_is_cited_beside_the_marketed_figure(client):
    """Issue 38: mem_bytes is what the runtime sees (a vLLM log's total where one was found, else the smi total),
    with its source; the marketed mem_gb stays. MI325X: amd-smi's 262128 MiB (AMD's ROCm install docs)."""
    got = _presets(client)
    for gid, g in got.items():
        assert g["mem_gb"] > 0, gid
        assert g["mem_bytes"] and g["mem_source"], gid
        assert g["mem_bytes"] < g["mem_gb"] * 1e9 * 1.08, gid  # never above the marketed figure (GiB vs GB slack)
    gib = 2**30
    runtime = {"h100-sxm": 79.22, "rtx-4090": 23.55, "rtx-5090": 31.37, "rtx-3090": 23.58}
    for gid, total in runtime.items():
        assert got[gid]["mem_bytes"] == round(total * gib), gid
        assert "vllm" in got[gid]["mem_source"].lower(), gid
    assert "amd-smi" in got["mi325x"]["mem_source"] and "262128" in got["mi325x"]["mem_source"]
