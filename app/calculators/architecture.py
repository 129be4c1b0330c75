"""Section 1.4 (demand drives architecture): scale vs total cost, packet-processing cores.

Pure functions in base units (bytes, seconds, bit/s, packets/s); no FastAPI, Plotly or Jinja.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Ethernet wire time of one minimum frame: 64 B frame + 8 B preamble/SFD + 12 B inter-frame gap.
MIN_FRAME_BYTES = 64
PREAMBLE_SFD_BYTES = 8
INTER_FRAME_GAP_BYTES = 12


def wire_bytes(frame_bytes: float = MIN_FRAME_BYTES) -> float:
    """Wire time of one frame in bytes = frame + 8 B preamble/SFD + 12 B inter-frame gap (64 B → 84 B)."""
    return frame_bytes + PREAMBLE_SFD_BYTES + INTER_FRAME_GAP_BYTES


def packet_rate(link_bit_s: float, frame_wire_bytes: float) -> float:
    """λ = link rate / (wire bytes per frame · 8)  [packets/s]."""
    if link_bit_s <= 0 or frame_wire_bytes <= 0:
        raise ValueError("link rate and frame size must be positive")
    return link_bit_s / (frame_wire_bytes * 8)


def per_packet_time(link_bit_s: float, frame_wire_bytes: float) -> float:
    """Wire time of one frame = 1/λ = wire bytes · 8 / link rate  [s]."""
    return 1.0 / packet_rate(link_bit_s, frame_wire_bytes)


def cores_needed(packets_per_s: float, per_core_packets_per_s: float) -> float:
    """n_core = λ_packet / μ_core (fractional cores; round up to occupy whole cores)."""
    if per_core_packets_per_s <= 0:
        raise ValueError("per-core rate must be positive")
    return packets_per_s / per_core_packets_per_s


def whole_cores(cores: float) -> int:
    """Whole cores occupied = ⌈n_core⌉ (a tiny tolerance keeps 6.0000001 at 6)."""
    return max(0, math.ceil(cores - 1e-9))


# ----------------------------------------------------------------------------------------------
# Scale vs total cost (the book's chart is 示意: no scale, constants are placeholders)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostModel:
    """Linear total-cost model: general purpose = g·s; dedicated = C0 + d·s."""

    upfront: float = 1.0  # C0, dedicated processor's up-front development cost (示意)
    general_per_unit: float = 1.0  # g, general-purpose cost per unit of service scale (示意)
    dedicated_per_unit: float = 0.3  # d, dedicated cost per unit of service scale (示意)


def cost_general(scale: float, m: CostModel = CostModel()) -> float:
    """Total cost on general-purpose servers = g · s (a line through the origin)."""
    return m.general_per_unit * scale


def cost_dedicated(scale: float, m: CostModel = CostModel()) -> float:
    """Total cost with a dedicated processor = C0 + d · s (intercept, shallower slope)."""
    return m.upfront + m.dedicated_per_unit * scale


def break_even_scale(m: CostModel = CostModel()) -> float:
    """Scale where accumulated savings repay the up-front cost: s* = C0 / (g − d); inf if g ≤ d."""
    gap = m.general_per_unit - m.dedicated_per_unit
    return m.upfront / gap if gap > 0 else math.inf


def daily_demand(requests: float, flops_per_request: float) -> float:
    """Daily total demand = request count Q × work per request F1  [FLOPs/day]."""
    return requests * flops_per_request
