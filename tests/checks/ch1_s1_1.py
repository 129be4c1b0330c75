"""Chapter 1 opener (hero-read-vs-compute) and section 1.1 (图 1-1 ~ 1-5, 练习 1-1, …)."""

from . import check

CHECKS = [
    # ---- opener: 读权重 vs 矩阵计算
    check(
        "hero-read-vs-compute",
        {},
        {
            "weights_gb": 70,
            "flop_gflop": 140,
            "bw_tbps": 3.35,
            "peak_tflops": 989.4,
            "t_read_ms": 20.90,
            "t_compute_ms": 0.1415,
            "t_step_ms": 20.90,
            "bound": "memory",
        },
        rel_tol=0.0005,
        where="开篇 20.90 / 0.1415",
    ),
    check("hero-read-vs-compute", {}, {"t_compute_ms": 0.14}, rel_tol=0.02, where="开篇正文 0.14 ms"),
    check("hero-read-vs-compute", {}, {"read_to_compute_ratio": 148}, rel_tol=0.003, where="开篇 148×"),
    check(
        "hero-read-vs-compute",
        {"double_bandwidth": True},
        {"t_step_ms": 10.45},
        rel_tol=0.0005,
        where="带宽翻倍 10.45 ms",
    ),
    check(
        "hero-read-vs-compute",
        {"halve_weights": True},
        {"t_step_ms": 10.45, "weights_gb": 35},
        rel_tol=0.0005,
        where="权重减半 10.45 ms",
    ),
    check(
        "hero-read-vs-compute", {"double_compute": True}, {"t_step_ms": 20.90}, rel_tol=0.0005, where="算力翻倍几乎不变"
    ),
    check(
        "hero-read-vs-compute",
        {},
        {"read_to_compute_ratio": 147.67, "speedup_vs_baseline": 1.0},
        rel_tol=0.0005,
        source="derived",
    ),
    check(
        "hero-read-vs-compute",
        {"double_compute": True},
        {"speedup_vs_baseline": 1.0, "t_compute_ms": 0.07075, "peak_tflops": 1978.8, "bound": "memory"},
        rel_tol=0.0005,
        source="derived",
    ),
    check(
        "hero-read-vs-compute",
        {"double_bandwidth": True},
        {"speedup_vs_baseline": 2.0, "bw_tbps": 6.7},
        rel_tol=0.0005,
        source="derived",
    ),
    check(
        "hero-read-vs-compute",
        {"double_bandwidth": True, "halve_weights": True},
        {"t_step_ms": 5.224, "speedup_vs_baseline": 4.0},
        rel_tol=0.0005,
        source="derived",
    ),
    # ---- 1.1.1
    check("fig-1-1", {}, {"highlight": "none"}, source="derived", where="static diagram"),
    check("fig-1-1", {"highlight": "model-driven"}, {"highlight": "model-driven"}, source="derived"),
    check("agent-loop", {}, {"model_calls": 3, "tool_runs": 3}, rel_tol=0, source="derived", where="3 轮(示意)"),
    check("agent-loop", {"iterations": 7}, {"model_calls": 7, "tool_runs": 7}, rel_tol=0, source="derived"),
    check(
        "model-hw-interplay",
        {},
        {
            "boxes": {
                "model_to_hardware": ["压缩保存的状态", "改变注意力机制", "只激活部分参数(专家)"],
                "hardware_to_model": ["存储容量", "传输速度", "设备之间怎么连接"],
            }
        },
        source="book",
        where="1.1.1 two boxes, three items each",
    ),
    # ---- 1.1.2
    check("fig-1-2", {}, {"n_layers": 6, "selected": 0, "layer_names": None}, rel_tol=0, where="六层分工"),
    check("fig-1-2", {"layer": 4}, {"selected": 4}, rel_tol=0, source="derived"),
    # ---- 1.1.3 图 1-3 / 1-4
    check("fig-1-3", {}, {"kv_per_token_kib": 320}, rel_tol=0, where="每 token KV 320 KiB"),
    check(
        "fig-1-3",
        {},
        {"kv_tokens": 0, "tokens_emitted": 0, "kv_mib": 0, "frames": 9},
        rel_tol=0,
        source="derived",
        where="KV 读数为 — (帧 0)",
    ),
    check(
        "fig-1-3",
        {"frame": 1},
        {"kv_tokens": 2048, "tokens_emitted": 1, "kv_mib": 640},
        rel_tol=0,
        source="derived",
        where="prefill 之后",
    ),
    check(
        "fig-1-3",
        {"frame": 8},
        {"kv_tokens": 2055, "tokens_emitted": 8, "kv_mib": 642.1875},
        rel_tol=1e-9,
        source="derived",
        where="最后一帧",
    ),
    check(
        "fig-1-3",
        {"input_tokens": 8192, "frame": 1},
        {"kv_mib": 2560},
        rel_tol=0,
        where="8192 token 的 BF16 KV = 2.5 GiB",
    ),
    # ---- 练习 1-1 and its ledger
    check(
        "ex-1-1",
        {},
        {"weights_gb": 73.73, "kv_per_token_kib": 320, "weight_read_per_step_gb": 70},
        rel_tol=0.0005,
        where="账本表头 73.73 GB · 320 KiB · 70 GB",
    ),
    check(
        "ex-1-1",
        {},
        {
            "weights_total_gb": 73.73,
            "weight_loads": 1,
            "steps": 100,
            "decode_steps": 99,
            "weight_read_total_gb": 7000,
            "kv_append_per_step_kib": 320,
            "kv_final_tokens": 2147,
            "kv_final_gb": 0.7035,
            "kv_read_total_gb": 68.03,
            "inter_gpu_per_step_kib": 0,
            "router_choices": 1,
        },
        rel_tol=0.0005,
        source="derived",
        where="G = 100",
    ),
    check(
        "ex-1-1",
        {"output_tokens": 1000},
        {
            "steps": 1000,
            "weight_read_total_gb": 70000,
            "kv_final_tokens": 3047,
            "kv_final_gb": 0.9984,
            "kv_read_total_gb": 833.77,
        },
        rel_tol=0.0005,
        source="derived",
        where="G = 1000",
    ),
    check(
        "ex-1-1",
        {"instances": 2},
        {
            "weights_total_gb": 147.45,
            "weight_loads": 2,
            "router_choices": 2,
            "weight_read_total_gb": 7000,
            "kv_final_gb": 0.7035,
        },
        rel_tol=0.0005,
        source="derived",
        where="两个实例",
    ),
    check(
        "ex-1-1",
        {"gpus_per_instance": 2},
        {"inter_gpu_per_step_kib": 16},
        rel_tol=0,
        source="derived",
        where="两卡切分 16 KiB",
    ),
    # ---- 图 1-5 and its table
    check(
        "fig-1-5",
        {},
        {"nvl72_grace_cpus": 36, "nvl72_gpus": 72, "highlight": "none"},
        rel_tol=0,
        where="GB200 NVL72 36 + 72",
    ),
    check("fig-1-5", {"highlight": "intermediate"}, {"highlight": "intermediate"}, source="derived"),
    check(
        "tab-three-traffic",
        {},
        {"row_ids": ["request", "model-file", "intermediate"]},
        source="book",
        where="图 1-5 table: three kinds of traffic",
    ),
    check("two-threads", {}, {"thread_ids": ["decoder-only", "ced"]}, source="book", where="1.1.3 the two threads"),
]
