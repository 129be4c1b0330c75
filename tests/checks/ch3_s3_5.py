"""Book values for 3.5 (图 3-24, group-advantage, loss-average, 例题 3-4) and 练习 3-7."""

from . import check

CHECKS = [
    check("fig-3-24", {}, {"n_roles": 5, "overlap_allowed": False}, source="derived"),
    check("fig-3-24", {"mode": "async", "teacher": "true"}, {"n_roles": 6, "overlap_allowed": True}, source="derived"),
    # group-advantage
    check(
        "group-advantage",
        {"rewards": [1, 1, 1, 1]},
        {"all_zero": True, "advantage_1": 0, "sum_abs_advantage": 0},
        abs_tol=1e-12,
        where="3.5 四条全对",
    ),
    check(
        "group-advantage",
        {"rewards": [0, 0, 0, 0]},
        {"all_zero": True, "advantage_4": 0},
        abs_tol=1e-12,
        where="3.5 四条全错",
    ),
    check(
        "group-advantage",
        {},
        {
            "mean_reward": 0.5,
            "advantage_1": 0.5,
            "advantage_2": -0.5,
            "advantage_3": 0.5,
            "advantage_4": -0.5,
            "all_zero": False,
            "sum_abs_advantage": 2,
        },
        rel_tol=1e-12,
        source="derived",
    ),
    check(
        "group-advantage",
        {"rewards": [1, 0, 0, 0]},
        {"mean_reward": 0.25, "advantage_1": 0.75, "advantage_2": -0.25, "sum_abs_advantage": 1.5},
        rel_tol=1e-12,
        source="derived",
    ),
    # loss-average
    check(
        "loss-average",
        {},
        {
            "weight_global": 0.0025,
            "weight_mb1_mean_of_means": 0.005,
            "weight_mb2_mean_of_means": 0.0016667,
            "mb1_overweight": 2,
        },
        rel_tol=1e-4,
        source="derived",
    ),
    # 例题 3-4
    check(
        "eg-3-4",
        {},
        {
            "seq_tokens": 1279,
            "decode_steps_per_response": 255,
            "update_input_tokens": 20464,
            "update_supervised_tokens": 4096,
        },
        rel_tol=1e-12,
        where="例题 3-4",
    ),
    check("eg-3-4", {}, {"fg_plus_fr_tflop": 38.411, "f_u_tflop": 952.416}, rel_tol=2e-5, where="例题 3-4"),
    check(
        "eg-3-4",
        {},
        {
            "f_g_tflop": 18.569,
            "f_r_tflop": 19.842,
            "n_generate": 16,
            "teacher_tflop": 0,
            "f_cycle_tflop": 1566.99,
            "weight_sync_gb": 65.53,
        },
        rel_tol=1e-4,
        source="derived",
    ),
    check(
        "eg-3-4",
        {"keep_ratio": 0.5},
        {"n_generate": 32, "f_cycle_tflop": 2181.56},
        rel_tol=1e-5,
        source="derived",
        where="预设 ②",
    ),
    check(
        "eg-3-4",
        {"keep_ratio": 0.25},
        {"n_generate": 64, "f_cycle_tflop": 3410.70},
        rel_tol=1e-5,
        source="derived",
        where="预设 ③",
    ),
    check(
        "eg-3-4", {"keep_ratio": 0.05}, {"n_generate": 320}, rel_tol=1e-12, source="derived", where="16/0.05 不多算一条"
    ),
    check(
        "eg-3-4",
        {"n_generate": 48, "teacher": "true"},
        {"teacher_tflop": 952.416, "f_cycle_tflop": 3748.55},
        rel_tol=1e-5,
        source="derived",
        where="练习 3-7 教师",
    ),
    # 练习 3-7
    check(
        "ex-3-7",
        {},
        {
            "f_cycle_a_tflop": 2181.56,
            "f_cycle_b_tflop": 3410.70,
            "slope_tflop": 38.411,
            "intercept_tflop": 952.416,
            "f_cycle_pred_tflop": 2796.13,
            "teacher_tflop": 952.416,
            "weight_sync_gb": 65.53,
        },
        rel_tol=1e-4,
        source="derived",
        where="练习 3-7",
    ),
]
