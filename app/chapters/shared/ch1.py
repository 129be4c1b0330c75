"""Declarations several sections share: parameter sets and the values they resolve to. Section
modules import from here (and from the layers below), never from each other."""
from __future__ import annotations

from ...cards import Params, slider
from ...data import compute_gpu_ids, gpu_options
from ...params_domain import gpu_choice, gpu_of, gpu_type

GpuId = gpu_type(compute_gpu_ids())          # a preset, or a reader's own card (custom:GB,TB/s,TFLOP/s)


class StepParams(Params):
    """例题 1-1's nine quantities (shared by 图 1-10, 练习 1-3 and the chapter-1 fallacies)."""

    gpu: GpuId = gpu_choice("h100-sxm", gpu_options(), label="加速器")
    params_billion: float = slider(70, ge=1, le=1000, step=1, label="参数量 N", unit="×10⁹")
    bytes_per_param: float = slider(1, ge=0.25, le=2, step=0.25, label="每参数字节 b_W", unit="B")
    batch: int = slider(1, ge=1, le=512, step=1, label="批大小 B", unit="请求", log=True)
    bw_tbps: float | None = slider(None, ge=0.1, le=10, step=0.001, label="带宽 β(覆盖)", unit="TB/s",
                                   placeholder="按加速器")
    peak_tflops: float | None = slider(None, ge=10, le=5000, step=0.1, label="算力 Π(覆盖)",
                                       unit="TFLOP/s", placeholder="按加速器")
    bw_eff_pct: float = slider(100, ge=10, le=100, step=5, label="带宽可用比例", unit="%", sym="η_β")
    compute_eff_pct: float = slider(100, ge=10, le=100, step=5, label="算力可用比例", unit="%", sym="η_Π")
    target_ms: float = slider(10, ge=1, le=100, step=1, label="每步目标", unit="ms", sym="T_{target}")


def effective_rates(p: StepParams) -> tuple[float, float]:
    """β and Π actually used (B/s, FLOP/s): the override or the GPU's, times the usable share."""
    g = gpu_of(p.gpu)
    bw = (p.bw_tbps if p.bw_tbps is not None else g.bw_tbps) * 1e12 * p.bw_eff_pct / 100
    peak = (p.peak_tflops if p.peak_tflops is not None else g.bf16_tflops) * 1e12 * p.compute_eff_pct / 100
    return bw, peak
