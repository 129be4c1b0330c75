"""Chapter 3 end matter, part B: records table, fallacy 3-4, summary, 练习 3-8 … 3-10."""

from . import check

CHECKS = [
    check("tab-workload-records", {}, {"n_rows": 3}, rel_tol=0, where="负载记录表 3 行"),
    check("fallacy-compute-optimal", {}, {"chinchilla_8b_btokens": 160}, rel_tol=1e-9, where="8B 约 160B token"),
    check("fallacy-compute-optimal", {}, {"qwen3_d_over_n": 4500}, rel_tol=1e-3, where="Qwen3 约 4,500"),
    check("ch3-summary", {}, {"n_takeaways": 3}, rel_tol=0, where="本章小结三条"),
    check("ch3-summary", {"part": "waiting"}, {"n_takeaways": 3}, rel_tol=0, source="derived"),
    check(
        "ex-3-8",
        {},
        {"n_mult_4x": 2, "d_mult_4x": 2, "n_mult_9x": 3, "d_mult_9x": 3},
        rel_tol=1e-9,
        source="derived",
        where="练习 3-8 (b)",
    ),
    check(
        "ex-3-8", {}, {"resid_h1": 0.009, "resid_h2": 0.026}, abs_tol=5e-4, rel_tol=0, where="练习 3-8 (c) 同例题 3-5"
    ),
    check(
        "ex-3-8",
        {},
        {"resid_h1": 0.0088, "resid_h2": 0.02585, "holdout_rmse": 0.01931},
        rel_tol=1e-3,
        source="derived",
        where="练习 3-8 (c)",
    ),
    check(
        "ex-3-9",
        {},
        {
            "row1_d_over_n": 149,
            "row2_d_over_n": 286,
            "row5_d_over_n": 4500,
            "row1_six_nd_flop": 4.02e22,
            "row5_six_nd_flop": 1.728e24,
        },
        rel_tol=2e-3,
        source="derived",
        where="练习 3-9 (a)",
    ),
    check(
        "ex-3-9",
        {},
        {"train_compute_mult": 4, "weight_capacity_mult": 1, "expert_param_mult": 2, "expert_train_flop_mult": 1},
        rel_tol=1e-9,
        source="derived",
        where="练习 3-9 (b)(c)",
    ),
    check("ex-3-10", {}, {"days_a": 20.80, "days_b": 41.60}, rel_tol=1e-3, source="derived", where="练习 3-10 (a)"),
    check(
        "ex-3-10",
        {},
        {
            "q_star_tasks": 5e8,
            "net_saving_2e8_gpu_h": -60000,
            "net_saving_1e9_gpu_h": 100000,
            "choose_small_2e8": False,
            "choose_small_1e9": True,
        },
        rel_tol=1e-9,
        source="derived",
        where="练习 3-10 (b)",
    ),
]
