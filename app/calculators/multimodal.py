"""Multimodal workload: image → patches → vision tokens, the encoder output (EC) and language KV they
produce, matmul FLOPs of a Qwen3-VL-style vision tower, and of a Qwen-Image-style MMDiT denoiser.

Base units: pixels, tokens, bytes, FLOPs. Model shapes come from ``data/models/*.json`` through
``vision_shape`` / ``dit_shape``; nothing model-specific is typed in here. Only matrix
multiplications are counted (biases, norms, softmax and activations are not).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..trace import name

# ---------------------------------------------------------------------------------------------
# Pixels → patches → vision tokens → bytes
# ---------------------------------------------------------------------------------------------


def patches(h_px: int, w_px: int, patch_px: int) -> int:
    """Patches of one image: n_p = H·W / p² (sides are multiples of p)."""
    return (h_px // patch_px) * (w_px // patch_px)


def vision_tokens(h_px: int, w_px: int, patch_px: int, merge: int, n_images: int = 1) -> int:
    """Vision tokens: n_v = n_images · H·W / (p²·r²) (r×r neighbouring patches merge into one)."""
    return n_images * (h_px // (patch_px * merge)) * (w_px // (patch_px * merge))


def ec_bytes_per_token(levels: int, dim: int, bytes_per_value: float) -> float:
    """Encoder output per vision token: levels · dim · bytes (DeepStack concatenates levels)."""
    return levels * dim * bytes_per_value


def ec_bytes(n_tokens: int, levels: int, dim: int, bytes_per_value: float) -> float:
    """Full encoder output EC: n_v · levels · dim · bytes."""
    return n_tokens * ec_bytes_per_token(levels, dim, bytes_per_value)


def kv_bytes(n_tokens: int, kv_bytes_per_token: float) -> float:
    """Language KV of n tokens: n · KV-bytes-per-token."""
    return n_tokens * kv_bytes_per_token


# ---------------------------------------------------------------------------------------------
# Vision tower (Qwen3-VL ViT + patch mergers)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VisionShape:
    depth: int
    hidden: int
    mlp: int
    in_channels: int
    temporal_patch: int
    patch: int
    merge: int
    out_hidden: int
    mergers: int  # final merger + one per DeepStack level

    @property
    def patch_inputs(self) -> int:
        """Inputs of the patch-embedding Conv3d: C · T · p²."""
        return self.in_channels * self.temporal_patch * self.patch**2

    @property
    def feature_levels(self) -> int:
        """Feature levels concatenated per vision token (DeepStack intermediate levels + final)."""
        return self.mergers


def vision_shape(cfg: dict) -> VisionShape:
    """Read a Hugging Face Qwen3-VL ``vision_config``."""
    deep = cfg.get("deepstack_visual_indexes") or []
    return VisionShape(
        depth=int(cfg["depth"]),
        hidden=int(cfg["hidden_size"]),
        mlp=int(cfg["intermediate_size"]),
        in_channels=int(cfg["in_channels"]),
        temporal_patch=int(cfg["temporal_patch_size"]),
        patch=int(cfg["patch_size"]),
        merge=int(cfg["spatial_merge_size"]),
        out_hidden=int(cfg["out_hidden_size"]),
        mergers=1 + len(deep),
    )


@dataclass(frozen=True)
class VisionFlops:
    embed: float  # patch embedding
    linear: float  # qkv, proj, MLP of every block
    attention: float  # QKᵀ and AV of every block (full attention within the image)
    mergers: float  # every patch merger
    n_patches: int
    n_tokens: int

    @property
    def blocks(self) -> float:
        return self.linear + self.attention

    @property
    def total(self) -> float:
        return self.embed + self.blocks + self.mergers


def vision_tower_flops(s: VisionShape, h_px: int, w_px: int) -> VisionFlops:
    """One image: 2·n_p·(C·T·p²)·h + depth·[2·n_p·(4h² + 2h·f) + 4·n_p²·h] + mergers·2·n_v·((h·r²)² + h·r²·d_out)."""
    n_p = name(patches(h_px, w_px, s.patch), "n_p")
    n_v = n_p // (s.merge**2)
    h = s.hidden
    hm = h * s.merge**2
    embed = 2 * s.patch_inputs * h * n_p  # constants first: a ×1024 after a traced value reads as a unit change
    linear = s.depth * 2 * n_p * (4 * h * h + 2 * h * s.mlp)
    attention = s.depth * 4 * h * n_p**2
    mergers = s.mergers * 2 * n_v * (hm * hm + hm * s.out_hidden)
    return VisionFlops(embed, linear, attention, mergers, n_p, n_v)


@dataclass(frozen=True)
class VisionFacts:
    """What turns pixels into bytes: patch side p, merge factor r, feature levels, width, bytes per
    value, and the language model's KV bytes per token (numbers, traced or not, passed in)."""

    patch: int
    merge: int
    levels: int
    dim: int
    value_bytes: float
    kv_per_token: float


def vision_outputs(
    f: VisionFacts, tower: VisionShape, h_px: int, w_px: int, n_images: int = 1, text_tokens: int = 0
) -> dict:
    """fig-3-15's outputs (MiB = 2²⁰ B): patches, vision tokens n_v, EC = n_v·levels·dim·b, visual KV = n_v·kv,
    the input's KV with text, KV ÷ EC per token, and the tower's matmul TFLOP for ``n_images`` images."""
    n_v = name(vision_tokens(h_px, w_px, f.patch, f.merge, n_images), "n_v", "token")
    ec_tok = name(ec_bytes_per_token(f.levels, f.dim, f.value_bytes), "EC_{tok}", "B")
    fl = vision_tower_flops(tower, h_px, w_px)
    return {
        "patches_per_image": patches(h_px, w_px, f.patch),
        "vision_tokens": n_v,
        "ec_bytes_per_token": ec_tok,
        "ec_mib": n_v * ec_tok / 2**20,
        "visual_kv_mib": kv_bytes(n_v, f.kv_per_token) / 2**20,
        "input_tokens": n_v + text_tokens,
        "input_kv_mib": kv_bytes(n_v + text_tokens, f.kv_per_token) / 2**20,
        "kv_to_ec_ratio": f.kv_per_token / ec_tok,
        "vision_encode_tflop": n_images * fl.total / 1e12,
    }


# ---------------------------------------------------------------------------------------------
# Image generation: MMDiT denoiser (Qwen-Image)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiTShape:
    layers: int
    width: int
    mlp: int
    text_dim: int
    patch: int
    latent_in: int  # channels into img_in after 2×2 patching (16 · p²)
    latent_out: int  # channels out of proj_out (out_channels · p²)
    time_dim: int
    vae_factor: int

    @property
    def pixels_per_position(self) -> int:
        """Pixel side of one latent position: VAE down-sampling × patch size."""
        return self.vae_factor * self.patch


def dit_shape(cfg: dict) -> DiTShape:
    """Read a diffusers ``QwenImageTransformer2DModel`` config (plus vae_scale_factor, mlp_ratio, timestep_proj_dim)."""
    width = int(cfg["num_attention_heads"]) * int(cfg["attention_head_dim"])
    p = int(cfg["patch_size"])
    return DiTShape(
        layers=int(cfg["num_layers"]),
        width=width,
        mlp=int(cfg["mlp_ratio"]) * width,
        text_dim=int(cfg["joint_attention_dim"]),
        patch=p,
        latent_in=int(cfg["in_channels"]),
        latent_out=int(cfg["out_channels"]) * p * p,
        time_dim=int(cfg["timestep_proj_dim"]),
        vae_factor=int(cfg["vae_scale_factor"]),
    )


def latent_positions(h_px: int, w_px: int, s: DiTShape) -> int:
    """Latent positions the DiT sees: n_v = (H/(8·2))·(W/(8·2))."""
    return (h_px // s.pixels_per_position) * (w_px // s.pixels_per_position)


@dataclass(frozen=True)
class DiTFlops:
    linear: float  # q, k, v, o and MLP of both streams, every block, every row
    attention: float  # joint attention QKᵀ and AV over image + text rows
    modulation: float  # AdaLN Linear(w → 6w) per stream per block, once per sample
    io: float  # img_in, proj_out, txt_in
    small: float  # timestep MLP and final AdaLN

    @property
    def total(self) -> float:
        return self.linear + self.attention + self.modulation + self.io + self.small


def dit_forward_flops(s: DiTShape, n_v: int, text_tokens: int) -> DiTFlops:
    """One forward, n = n_v + T rows: L·[2n(4w² + 2wf) + 4wn²] + L·2·2w·6w + 2n_v(c_in + c_out)w + 2T·d_txt·w + 2(256w + w²) + 2w·2w."""
    w, L = s.width, s.layers
    n = n_v + text_tokens
    linear = L * 2 * n * (4 * w * w + 2 * w * s.mlp)
    attention = L * 4 * w * n * n
    modulation = L * 2 * 2 * w * (6 * w)
    io = 2 * n_v * s.latent_in * w + 2 * n_v * w * s.latent_out + 2 * text_tokens * s.text_dim * w
    small = 2 * (s.time_dim * w + w * w) + 2 * w * (2 * w)
    return DiTFlops(linear, attention, modulation, io, small)


def image_gen_flops(steps: int, branches: int, flop_per_forward: float) -> float:
    """Total denoising work: n_s · n_b · F_step (text encoder and VAE not counted)."""
    return steps * branches * flop_per_forward


def image_gen_outputs(s: DiTShape, h_px: int, w_px: int, steps: int, branches: int, text_tokens: int) -> dict:
    """image-gen-loop's outputs: latent positions n_v, DiT forwards n_s·n_b, F_step, F_total (PFLOP), attention share."""
    n_v = name(latent_positions(h_px, w_px, s), "n_v")
    f = dit_forward_flops(s, n_v, text_tokens)
    step = name(f.total, "F_{step}", "FLOP")
    return {
        "latent_positions": n_v,
        "dit_forwards": steps * branches,
        "flop_per_forward": step,
        "total_pflop": image_gen_flops(steps, branches, step) / 1e15,
        "attention_share_pct": 100 * f.attention / step,
    }
