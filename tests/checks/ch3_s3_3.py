"""Book values of section 3.3 (and 练习 3-5), asserted through the JSON API."""

from . import check

CHECKS = [
    # 图 3-15 / 3-16
    check("fig-3-15", {}, {"ec_mib": 7.8125, "visual_kv_mib": 56.25}, rel_tol=1e-9, where="3.3.1 表 640×640"),
    check("fig-3-15", {}, {"vision_encode_tflop": 1.310}, rel_tol=0.0005, where="3.3.1 ≈1.310 TFLOPs"),
    check(
        "fig-3-15",
        {"n_images": 4, "text_tokens": 400},
        {"ec_mib": 31.25, "input_kv_mib": 281.25},
        rel_tol=1e-9,
        where="3.3.1 四张图 + 400 文本 token",
    ),
    check(
        "fig-3-15",
        {},
        {
            "patches_per_image": 1600,
            "vision_tokens": 400,
            "ec_bytes_per_token": 20480,
            "input_tokens": 400,
            "kv_to_ec_ratio": 7.2,
        },
        rel_tol=1e-9,
        source="derived",
    ),
    check(
        "fig-3-15", {}, {"vision_encode_tflop": 1.3103006}, rel_tol=1e-6, source="derived", where="catalog 1,310.30 G"
    ),
    check(
        "fig-3-15",
        {"n_images": 4, "text_tokens": 400},
        {"vision_tokens": 1600, "input_tokens": 2000, "visual_kv_mib": 225},
        rel_tol=1e-9,
        source="derived",
    ),
    check(
        "fig-3-15",
        {"img_h_px": 1280, "img_w_px": 1280},
        {"vision_tokens": 1600, "ec_mib": 31.25, "visual_kv_mib": 225, "vision_encode_tflop": 8.261},
        rel_tol=0.0005,
        source="derived",
        where="练习 3-5 preset ②",
    ),
    check(
        "fig-3-15",
        {"img_h_px": 650},
        {"vision_tokens": 400},
        rel_tol=1e-9,
        source="derived",
        where="sides snap to multiples of 32",
    ),
    # table
    check(
        "vision-reuse-table",
        {},
        {"screenshot_mb": 0.8, "ec_mib": 7.8125, "visual_kv_mib": 56.25, "visual_kv_reusable_on_new_question": True},
        rel_tol=1e-9,
        where="3.3.1 表",
    ),
    check(
        "vision-reuse-table",
        {"question_position": "before"},
        {"visual_kv_reusable_on_new_question": False},
        where="问题放在图片之前",
    ),
    # handoff strip
    check(
        "epd-handoff",
        {},
        {"receiver_stages": "P,D", "ec_mib": 7.8125, "kv_mib": 56.25, "handoff_mib": 7.8125},
        rel_tol=1e-9,
        where="3.3.1 交接",
    ),
    check(
        "epd-handoff",
        {"handoff": "image"},
        {"receiver_stages": "E,P,D", "handoff_mib": 0.7629},
        rel_tol=0.0005,
        source="derived",
    ),
    check("epd-handoff", {"handoff": "kv"}, {"receiver_stages": "D", "handoff_mib": 56.25}, rel_tol=1e-9),
    # speech
    check("speech-loop", {}, {"fast_forwards_per_frame": 10}, rel_tol=0, where="3.3.2 每帧 10 次快速前向"),
    check(
        "speech-loop",
        {},
        {"slow_forwards": 50, "fast_forwards": 500, "total_forwards": 550, "audio_s": 2.0},
        rel_tol=1e-9,
        source="derived",
    ),
    # image generation
    check(
        "image-gen-loop", {}, {"latent_positions": 4096, "dit_forwards": 100}, rel_tol=0, where="3.3.2 4096 / 100 次"
    ),
    check("image-gen-loop", {}, {"total_pflop": 7.830}, rel_tol=0.00006, where="3.3.2 ≈7.830×10¹⁵ (T = 512)"),
    check(
        "image-gen-loop",
        {},
        {"flop_per_forward": 7.8304e13, "attention_share_pct": 20.0},
        rel_tol=0.001,
        source="derived",
    ),
    check("image-gen-loop", {"text_tokens": 511}, {"total_pflop": 7.828}, rel_tol=0.00006, source="derived"),
    check("image-gen-loop", {"text_tokens": 513}, {"total_pflop": 7.832}, rel_tol=0.00006, source="derived"),
    check(
        "image-gen-loop",
        {"steps": 100},
        {"total_pflop": 15.661, "dit_forwards": 200},
        rel_tol=0.0001,
        source="derived",
        where="步数加倍运算量加倍",
    ),
    # jitter buffer and interruption
    check("fig-3-18", {}, {"chunk_bytes": 960, "first_arrival_ms": 38}, rel_tol=1e-9, where="3.3.3 960 B, 38 ms"),
    check(
        "fig-3-18",
        {},
        {"measured_first_chunk_ms_run1": 400, "measured_first_chunk_ms_run2": 370, "measured_chunk_gap_median_ms": 94},
        rel_tol=0,
        where="3.3.3 实测",
    ),
    check(
        "fig-3-18",
        {},
        {
            "play_start_ms": 78,
            "n_stalls": 1,
            "stall_total_ms": 10,
            "last_play_end_ms": 328,
            "mute_ms": 190,
            "mute_latency_ms": 7,
            "best_mute_latency_ms": 5,
            "worst_mute_latency_ms": 15,
            "backend_stop_ms": 188,
            "release_ms": 210,
            "discarded_audio_ms": 58,
        },
        rel_tol=1e-9,
        source="derived",
        where="示意 defaults",
    ),
    check(
        "fig-3-18",
        {"initial_buffer_ms": 60},
        {"play_start_ms": 98, "n_stalls": 0, "stall_total_ms": 0},
        rel_tol=1e-9,
        source="derived",
        where="练习 3-5 60 ms",
    ),
    check("fig-3-18", {"late_chunk": -1}, {"last_play_end_ms": 318, "n_stalls": 0}, rel_tol=1e-9, source="derived"),
    # drain
    check(
        "buffer-drain",
        {},
        {"drain_s": 3.0, "deficit_s_per_s": 0.1},
        rel_tol=1e-9,
        source="derived",
        where="练习 3-5 (c)",
    ),
    check("buffer-drain", {"arrival_rate_s_per_s": 1.0}, {"drain_s": None}, source="derived", where="r ≥ 1 never"),
    check("buffer-drain", {"initial_buffer_s": 0.6}, {"drain_s": 6.0}, rel_tol=1e-9, source="derived"),
    # AOI (all 示意)
    check(
        "aoi-observe",
        {},
        {"p_catch": 0.6, "observations_per_s": 2, "frames_kept_per_min": 120},
        rel_tol=1e-9,
        source="derived",
    ),
    check("aoi-observe", {"event_ms": 800}, {"p_catch": 1.0}, rel_tol=1e-9, source="derived"),
    # pipeline
    check("multimodal-pipeline", {}, {"n_stages": 4, "target": "ttft"}, where="3.3.3 四段"),
    check("multimodal-pipeline", {"target": "playback"}, {"target": "playback"}, source="derived"),
    # 练习 3-5
    check(
        "ex-3-5",
        {},
        {
            "vision_tokens": 1600,
            "ec_mib": 31.25,
            "visual_kv_mib": 225,
            "play_start_40_ms": 78,
            "play_start_60_ms": 98,
            "stall_40_ms": 10,
            "stall_60_ms": 0,
            "drain_s": 3.0,
        },
        rel_tol=1e-9,
        source="derived",
        where="练习 3-5",
    ),
    check("ex-3-5", {}, {"vision_encode_tflop": 8.261}, rel_tol=0.0005, source="derived", where="练习 3-5 (a) extra"),
]
