"""The one loader for ``data/``: GPU presets, model configs, measurement files. Read once, cached."""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True)
class Gpu:
    id: str
    name: str
    mem_gb: float
    bw_tbps: float | None
    bf16_tflops: float | None

    @property
    def mem_bytes(self) -> float:
        return self.mem_gb * 1e9

    @property
    def bw_bytes_s(self) -> float:
        return (self.bw_tbps or 0.0) * 1e12

    @property
    def flops(self) -> float:
        return (self.bf16_tflops or 0.0) * 1e12


@lru_cache(maxsize=None)
def gpus() -> dict[str, Gpu]:
    raw = json.loads((DATA / "gpus.json").read_text(encoding="utf-8"))["gpus"]
    return {k: Gpu(id=k, **v) for k, v in raw.items()}


def gpu(gid: str) -> Gpu:
    return gpus()[gid]


def compute_gpu_ids() -> list[str]:
    """GPUs with bandwidth and TFLOP/s (all but the capacity-only ones)."""
    return [k for k, g in gpus().items() if g.bw_tbps and g.bf16_tflops]


def gpu_options(compute_only: bool = True) -> dict[str, str]:
    return {k: g.name for k, g in gpus().items() if not compute_only or (g.bw_tbps and g.bf16_tflops)}


@lru_cache(maxsize=None)
def model_config(name: str) -> dict:
    cfg = json.loads((DATA / "models" / f"{name}.json").read_text(encoding="utf-8"))
    return {k: v for k, v in cfg.items() if not k.startswith("_")}


def model_ids() -> list[str]:
    return sorted(p.stem for p in (DATA / "models").glob("*.json"))


@lru_cache(maxsize=None)
def read_csv(name: str) -> list[dict[str, str]]:
    with open(DATA / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def read_json(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))
