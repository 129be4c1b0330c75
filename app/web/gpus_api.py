"""``GET /api/gpus``: every accelerator preset with its numbers, their units and the public sources they
were confirmed from (``data/gpus.json``, cited per part in ``data/README.md``). ``null`` = not confirmed."""

from __future__ import annotations

import dataclasses

from fastapi import APIRouter
from pydantic import BaseModel, Field

from ..data import gpus
from ..words import localize, localize_deep, words_for

W = words_for(__name__)

router = APIRouter(tags=[W["router.tags"]])

UNITS = {
    "mem_gb": "GB (10^9 B), marketed",
    "mem_bytes": "B, the total the driver / runtime reports (nvidia-smi, rocm-smi, npu-smi or an engine log)",
    "bw_tbps": "TB/s (10^12 B/s)",
    "bf16_tflops": "TFLOP/s, dense (no 2:4 sparsity)",
    "fp8_tflops": "TFLOP/s, dense (no 2:4 sparsity)",
    "fp4_tflops": "TFLOP/s, dense (no 2:4 sparsity)",
    "int4_tops": "TOP/s, dense (no 2:4 sparsity)",
    "interconnect_gbps": "GB/s per GPU, one direction (scale-up link: NVLink / Infinity Fabric / PCIe)",
    "link_peer_gbps": "GB/s, one point-to-point link, one direction (topology mesh: tp ranks use tp − 1 of them)",
}


class GpuPreset(BaseModel):
    id: str
    name: str
    vendor: str
    book: bool = Field(description=W["gpupreset.book.description"])
    mem_gb: float = Field(description=W["gpupreset.mem_gb.description"])
    mem_bytes: int | None = Field(description=W["gpupreset.mem_bytes.description"])
    mem_source: str = Field(description=W["gpupreset.mem_source.description"])
    bw_tbps: float | None
    bf16_tflops: float | None
    fp8_tflops: float | None
    fp4_tflops: float | None
    int4_tops: float | None
    interconnect_gbps: float | None = Field(description=W["gpupreset.interconnect_gbps.description"])
    interconnect: str = Field(description=W["gpupreset.interconnect.description"])
    topology: str | None = Field(description=W["gpupreset.topology.description"])
    link_peer_gbps: float | None = Field(description=W["gpupreset.link_peer_gbps.description"])
    source: list[str] = Field(description=W["gpupreset.source.description"])
    notes: str = Field(description=W["gpupreset.notes.description"])


class GpuList(BaseModel):
    units: dict[str, str]
    gpus: list[GpuPreset]


@router.get("/api/gpus", response_model=GpuList, summary=W["api_gpus.summary"])
def list_gpus() -> GpuList:
    """The presets as ``data/gpus.json`` holds them (the model reads the same fields off each part)."""
    presets = [{f.name: localize(getattr(g, f.name)) for f in dataclasses.fields(g)} for g in gpus().values()]
    return GpuList(units=localize_deep(UNITS), gpus=[GpuPreset.model_validate(p) for p in presets])
