"""``GET /api/gpus``: every accelerator preset with its numbers, their units and the public sources they
were confirmed from (``data/gpus.json``, cited per part in ``data/README.md``). ``null`` = not confirmed."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from ..data import gpus

router = APIRouter(tags=["加速器"])

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
    book: bool = Field(description="书中的五种预设之一(书的卡片只列这些)")
    mem_gb: float = Field(description="标称显存(书中的卡片按它)")
    mem_bytes: int | None = Field(description="驱动/运行时报告的显存总量,字节;推理引擎按它分显存;null = 未找到")
    mem_source: str = Field(description="mem_bytes 从哪里读到的(工具与公开来源)")
    bw_tbps: float | None
    bf16_tflops: float | None
    fp8_tflops: float | None
    fp4_tflops: float | None
    int4_tops: float | None
    interconnect_gbps: float | None = Field(description="每卡、单方向")
    interconnect: str = Field(description="哪种链路,及厂商标的(常为双向)数字")
    topology: str | None = Field(description="switch:经交换机,任意 tp 每卡同一带宽;mesh:点对点,tp 张卡用 tp−1 条;pcie")
    link_peer_gbps: float | None = Field(description="mesh 时每条点对点链路的单向带宽")
    source: list[str] = Field(description="确认这些数值的公开来源(地址)")
    notes: str = Field(description="稀疏折半、口径、未收录的值及原因")


class GpuList(BaseModel):
    units: dict[str, str]
    gpus: list[GpuPreset]


@router.get("/api/gpus", response_model=GpuList, summary="加速器预设:显存、带宽、各精度稠密峰值、互连,附来源")
def list_gpus() -> GpuList:
    """The presets as ``data/gpus.json`` holds them (the model reads the same fields off each part)."""
    return GpuList(units=UNITS, gpus=[GpuPreset.model_validate(g, from_attributes=True) for g in gpus().values()])
