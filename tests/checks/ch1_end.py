from . import check

CHECKS = [
    # 谬误与陷阱
    check("fallacies", {}, {"free_after_weights_gb": 6.27}, rel_tol=0.001, where="误区二 / 1.3.2 约 6.27 GB"),
    check(
        "fallacies",
        {},
        {"compute_x2_t_step_ms": 20.90, "compute_x2_speedup": 1.0},
        rel_tol=0.001,
        source="derived",
        where="误区一",
    ),
    check(
        "fallacies",
        {},
        {"kv_per_request_gb": 0.671, "requests_fit": 6, "kv_for_b_star_gb": 99.3},
        rel_tol=0.001,
        source="derived",
        where="误区二 at 2048 (示意)",
    ),
    check(
        "fallacies",
        {"context_tokens": 8192},
        {"kv_per_request_gb": 2.684, "requests_fit": 1},
        rel_tol=0.001,
        source="derived",
        where="8192 tokens = 2.5 GiB",
    ),
    # Qwen3-8B 的关键数字
    check(
        "tab-qwen3-8b",
        {},
        {
            "weights_gb": 16.38,
            "kv_per_token_kib": 144,
            "kv_context_mib": 288,
            "kv_context_gb": 0.302,
            "prefill_tflop": 29.69,
            "decode_gflop": 16.34,
            "decode_weight_read_gb": 15.14,
            "decode_kv_read_gb": 0.302,
        },
        rel_tol=0.0005,
        where="本章数字速查",
    ),
    check("tab-qwen3-8b", {}, {"n_params": 8190735360}, rel_tol=0, source="derived", where="config"),
    # 用速查数字估下界
    check(
        "quick-bounds",
        {},
        {"prefill_tflop": 29.69, "decode_gflop": 16.34, "decode_lb_ms": 8.62, "fits": True},
        rel_tol=0.001,
        where="速查 / 1.3.4",
    ),
    check(
        "quick-bounds",
        {},
        {"prefill_compute_ms": 58.93, "decode_read_gb": 15.44, "decode_compute_ms": 0.0324, "decode_memory_ms": 8.62},
        rel_tol=0.002,
        source="derived",
    ),
    check(
        "quick-bounds",
        {"gpu": "h100-sxm"},
        {"decode_lb_ms": 4.61, "prefill_compute_ms": 30.0},
        rel_tol=0.002,
        source="derived",
        where="H100",
    ),
    check(
        "quick-bounds",
        {"context_tokens": 8192},
        {"decode_lb_ms": 9.12, "prefill_tflop": 29.69},
        rel_tol=0.002,
        source="derived",
        where="8192 context",
    ),
]
