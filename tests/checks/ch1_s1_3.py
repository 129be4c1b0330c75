from . import check

CHECKS = [
    check(
        "eg-1-1",
        {},
        {
            "m_w_gb": 70,
            "r_w_gb": 70,
            "f_gflop": 140,
            "bw_eff_tbps": 3.35,
            "peak_eff_tflops": 989.4,
            "t_mem_ms": 20.90,
            "t_compute_ms": 0.1415,
            "t_step_ms": 20.90,
            "bound": "memory",
            "throughput_tok_s": 47.9,
            "meets_target": False,
        },
        rel_tol=0.001,
        where="例题 1-1",
    ),
    check("eg-1-1", {}, {"read_to_compute_ratio": 148, "b_star": 148}, rel_tol=0.003, where="≈148×, B*≈148"),
    check(
        "eg-1-1",
        {},
        {"b_star": 147.67, "ridge_flop_per_byte": 295.3, "intensity_flop_per_byte": 2, "target_margin_ms": -10.90},
        rel_tol=0.001,
        source="derived",
    ),
    check(
        "eg-1-1",
        {"batch": 8},
        {"t_step_ms": 20.90, "per_output_ms": 2.61, "throughput_tok_s": 383},
        rel_tol=0.002,
        where="1.3.2 B=8",
    ),
    check("eg-1-1", {"bw_tbps": 6.7}, {"t_step_ms": 10.45}, rel_tol=0.001, where="β×2"),
    check("eg-1-1", {"bytes_per_param": 0.5}, {"t_step_ms": 10.45}, rel_tol=0.001, where="b_W=0.5"),
    check("eg-1-1", {"peak_tflops": 1978.8}, {"t_step_ms": 20.90}, rel_tol=0.001, where="Π×2 changes nothing"),
    check(
        "eg-1-1", {"batch": 64}, {"per_output_ms": 0.3265, "throughput_tok_s": 3063}, rel_tol=0.001, source="derived"
    ),
    check("eg-1-1", {"batch": 148}, {"t_step_ms": 20.94, "bound": "compute"}, rel_tol=0.001, source="derived"),
    check("eg-1-1", {"batch": 256}, {"throughput_tok_s": 7067}, rel_tol=0.001, source="derived"),
]
