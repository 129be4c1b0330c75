"""The one loader for ``data/``: GPU presets, model configs, measurement files. Read once, cached."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from .words import said, words_for

W = words_for(__name__)

DATA = Path(__file__).resolve().parent.parent / "data"


PEAK_FIELDS = {"bf16": "bf16_tflops", "fp8": "fp8_tflops", "fp4": "fp4_tflops"}  # compute format → field


@dataclass(frozen=True)
class Gpu:
    """One accelerator. Units: GB (10⁹ B), TB/s, dense TFLOP/s (no 2:4 sparsity), interconnect GB/s one
    direction. ``None`` = not confirmed (or the part lacks it; ``notes`` says which). ``mem_gb`` is the marketed
    capacity (what the book's cards use); ``mem_bytes`` what the driver / runtime reports (``mem_source`` says
    where it was read), which a serving engine sizes its KV cache from. ``topology``: ``switch`` (NVLink via
    NVSwitch: the per-GPU link at any tp), ``mesh`` (point-to-point: tp − 1 links of ``link_peer_gbps``) or
    ``pcie``."""

    id: str
    name: str
    mem_gb: float
    bw_tbps: float | None
    bf16_tflops: float | None
    fp8_tflops: float | None = None
    fp4_tflops: float | None = None
    int4_tops: float | None = None
    interconnect_gbps: float | None = None  # scale-up (NVLink / Infinity Fabric / PCIe), per GPU, one direction
    interconnect: str = ""  # which link, as printed
    vendor: str = ""
    source: tuple[str, ...] = ()
    notes: str = ""
    book: bool = False  # one of the book's five presets
    mem_bytes: int | None = None  # driver-reported total (bytes); None = not found
    mem_source: str = ""
    topology: str | None = None  # switch | mesh | pcie
    link_peer_gbps: float | None = None  # mesh: one peer link, one direction

    @property
    def marketed_mem_bytes(self) -> float:
        return self.mem_gb * 1e9

    @property
    def runtime_mem_bytes(self) -> float:
        """What a serving engine sees: the driver-reported total, else the marketed capacity."""
        return float(self.mem_bytes) if self.mem_bytes else self.mem_gb * 1e9

    @property
    def link_peer_bytes_s(self) -> float | None:
        return None if self.link_peer_gbps is None else self.link_peer_gbps * 1e9

    @property
    def bw_bytes_s(self) -> float:
        return (self.bw_tbps or 0.0) * 1e12

    @property
    def flops(self) -> float:
        return (self.bf16_tflops or 0.0) * 1e12

    @property
    def interconnect_bytes_s(self) -> float | None:
        return None if self.interconnect_gbps is None else self.interconnect_gbps * 1e9

    def peak_tflops(self, fmt: str) -> float | None:
        """Dense peak of compute format ``bf16``/``fp8``/``fp4`` in TFLOP/s, ``None`` where not recorded."""
        return getattr(self, PEAK_FIELDS[fmt])

    def peaks_flops(self) -> dict[str, float]:
        """The recorded dense peaks in FLOP/s, by compute format (what the calculators take)."""
        return {f: t * 1e12 for f in PEAK_FIELDS if (t := self.peak_tflops(f)) is not None}


@cache
def gpus() -> dict[str, Gpu]:
    raw = json.loads((DATA / "gpus.json").read_text(encoding="utf-8"))["gpus"]
    return {k: Gpu(id=k, **{**_worded(v), "source": tuple(v.get("source", ()))}) for k, v in raw.items()}


def _worded(record: dict) -> dict:
    """A data record whose Chinese fields say themselves in another edition where it sits beside them
    (``"en": {field: …}``); the ``en`` object itself is not a field."""
    other = record.get("en", {})
    return {k: said(v, {"en": other[k]} if k in other else None) for k, v in record.items() if k != "en"}


CUSTOM_GPU = "custom:"
CUSTOM_MODEL = "cfg:"
GPU_LIMITS = {"mem_gb": (1, 2000), "bw_tbps": (0.01, 100), "bf16_tflops": (1, 100000)}


def parse_custom_gpu(ref: str) -> Gpu:
    """``custom:MEM_GB,BW_TBPS,TFLOPS`` → a Gpu (a reader's own card, carried in the URL). Each part is a
    plain decimal (no sign, exponent or leading zeros) within ``GPU_LIMITS``, compared exactly, so the
    published pattern (``app.numpattern.decimal_range``) accepts exactly these strings."""
    from decimal import Decimal

    from .numpattern import is_decimal

    parts = ref[len(CUSTOM_GPU) :].split(",")
    if len(parts) != len(GPU_LIMITS) or not all(is_decimal(x) for x in parts):
        raise ValueError(W["parse_custom_gpu.valueerror"])
    for (name, (lo, hi)), x in zip(GPU_LIMITS.items(), parts):
        if not (Decimal(str(lo)) <= Decimal(x) <= Decimal(str(hi))):
            raise ValueError(W.f("parse_custom_gpu.valueerror_2", name=name, lo=lo, hi=hi, v=x[:20]))
    mem, bw, tf = (float(x) for x in parts)
    return Gpu(id=ref, name=W.f("parse_custom_gpu.name", mem=mem, bw=bw, tf=tf), mem_gb=mem, bw_tbps=bw, bf16_tflops=tf)


def gpu(gid: str) -> Gpu:
    if gid.startswith(CUSTOM_GPU):
        return parse_custom_gpu(gid)
    return gpus()[gid]


def compute_gpu_ids() -> list[str]:
    """The book's GPUs with bandwidth and TFLOP/s (all but the capacity-only ones)."""
    return [k for k, g in gpus().items() if g.book and g.bw_tbps and g.bf16_tflops]


def gpu_options(compute_only: bool = True) -> dict[str, str]:
    """The book's presets (what the book's cards list)."""
    return {k: g.name for k, g in gpus().items() if g.book and (not compute_only or (g.bw_tbps and g.bf16_tflops))}


def extended_gpu_ids(compute_only: bool = True) -> list[str]:
    """Every preset, the book's first; ``compute_only`` keeps those with bandwidth and a BF16 peak."""
    return [
        k
        for k, g in sorted(gpus().items(), key=lambda kv: not kv[1].book)
        if not compute_only or (g.bw_tbps and g.bf16_tflops)
    ]


def extended_gpu_options(compute_only: bool = True) -> dict[str, str]:
    """Every preset's display name (for cards that offer today's hardware, e.g. the planner)."""
    return {k: gpus()[k].name for k in extended_gpu_ids(compute_only)}


MAX_CONFIG_BYTES = 1_000_000


def encode_config(cfg: dict) -> str:
    """A config.json → ``cfg:<base64url(zlib(minified JSON))>``, compact enough for a URL."""
    import base64
    import zlib

    raw = json.dumps(
        {k: v for k, v in cfg.items() if not k.startswith("_")}, separators=(",", ":"), ensure_ascii=False
    ).encode()
    return CUSTOM_MODEL + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def decode_config(ref: str) -> dict:
    import base64
    import zlib

    body = ref[len(CUSTOM_MODEL) :]
    try:
        data = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        d = zlib.decompressobj()
        raw = d.decompress(data, MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES or d.unconsumed_tail:
            raise ValueError(W["decode_config.valueerror"])
        cfg = json.loads(raw)
    except ValueError as e:
        if W["decode_config"] in str(e):
            raise
        raise ValueError(W["decode_config.valueerror_2"]) from None
    except Exception:
        raise ValueError(W["decode_config.valueerror_2"]) from None
    if not isinstance(cfg, dict):
        raise ValueError(W["decode_config.valueerror_3"])
    return cfg


@lru_cache(maxsize=256)
def model_config(name: str) -> dict:
    """A preset's config (``data/models/NAME.json``) or a reader's own (``cfg:…`` from the URL)."""
    if name.startswith(CUSTOM_MODEL):
        return decode_config(name)
    cfg = json.loads((DATA / "models" / f"{name}.json").read_text(encoding="utf-8"))
    return {k: v for k, v in cfg.items() if not k.startswith("_")}


def model_ids() -> list[str]:
    return sorted(p.stem for p in (DATA / "models").glob("*.json"))


@cache
def read_csv(name: str) -> list[dict[str, str]]:
    with open(DATA / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@cache
def measured_decode() -> tuple[dict, ...]:
    """Public decode-step measurements with their setups (``data/measured_decode.json``)."""
    points = read_json("measured_decode.json")["points"]
    return tuple(
        {k: said(v, p.get("en", {}).get(k) and {"en": p["en"][k]}) for k, v in p.items() if k != "en"} for p in points
    )


def read_json(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


@cache
def c4_points() -> tuple[dict[str, str], ...]:
    """The datablations C4 runs (``data/datablations_c4_points.csv``; its '#' lines are the citation)."""
    with open(DATA / "datablations_c4_points.csv", newline="", encoding="utf-8") as f:
        return tuple(csv.DictReader(line for line in f if not line.startswith("#")))
