"""Book values of section 3.2 and its end-matter cards (练习 3-3, 练习 3-4, 谬误 2)."""
from . import check

CHECKS = [
    # prefix-edit
    check("prefix-edit", {}, {"reused_tokens": 2000, "recompute_tokens": 200, "new_context_tokens": 2200},
          rel_tol=0, source="book", where="3.2.1 已有上下文 2,000 token(追加 200 为示意)"),
    check("prefix-edit", {}, {"reuse_pct": 90.9, "recompute_kv_mib": 28.1, "resident_kv_mib": 309.4},
          rel_tol=0.002, source="derived"),
    check("prefix-edit", {"edit": "replace_summary"}, {"reused_tokens": 600, "recompute_tokens": 750,
                                                      "new_context_tokens": 1350}, rel_tol=0, source="derived",
          where="摘要替换 600–1400"),
    check("prefix-edit", {"edit": "template_change"}, {"reused_tokens": 40, "recompute_tokens": 1960},
          rel_tol=0, source="derived", where="模板在第 40 token"),
    check("prefix-edit", {"edit": "template_change", "block_tokens": "16"}, {"reused_tokens": 32},
          rel_tol=0, source="derived", where="16-token 块"),
    # prefix-cache-4round
    check("prefix-cache-4round", {}, {"total_input_tokens": 5297, "total_hit_tokens": 4480, "total_miss_tokens": 817,
                                      "input_tokens": 1443, "hit_tokens": 1392, "restored_tokens": 1392,
                                      "new_tokens": 51}, rel_tol=0, where="3.2.1 四轮缓存收益"),
    check("prefix-cache-4round", {}, {"total_hit_pct": 84.6, "hit_pct": 96.5, "proj_rows_cached": 51,
                                      "proj_rows_full": 1443, "attn_pairs_cached": 72318,
                                      "attn_pairs_full": 1041846, "attn_pairs_pct": 6.9,
                                      "resident_kv_mib": 202.9, "recompute_kv_mib": 7.2},
          rel_tol=0.006, source="derived"),
    # fig-3-9
    check("fig-3-9", {}, {"total_cost_old": 100, "total_cost_new": 200, "successes_old": 50, "successes_new": 80,
                          "success_cost_old": 2.0, "success_cost_new": 2.5, "success_ratio": 1.6, "cost_ratio": 2.0,
                          "new_cheaper": False, "breakeven_success_new_pct": 100}, rel_tol=1e-9,
          source="derived", where="练习 3-3 数值"),
    check("fig-3-9", {"cost_new": 1.5}, {"breakeven_success_new_pct": 75, "new_cheaper": True}, rel_tol=1e-9,
          source="derived", where="练习 3-3 降到 1.5 单位"),
    check("fig-3-9", {"success_new_pct": 0}, {"success_cost_new": None, "successes_new": 0}, source="derived",
          where="零成功无 C_success"),
    # price-cut-paradox
    check("price-cut-paradox", {}, {"success_cost_ratio": 1.25}, rel_tol=1e-9, where="3.2.2 0.1×20×0.5/0.8"),
    check("price-cut-paradox", {}, {"attempt_cost_ratio": 2.0, "success_ratio": 1.6}, rel_tol=1e-9, source="derived"),
    # math-experiment-note
    check("math-experiment-note", {}, {"problems": 4, "cap_before_tokens": 1024, "cap_after_tokens": 4096,
                                       "rounds": 2, "passed": 0, "success_cost": None}, rel_tol=0,
          where="3.2.2 数学题实验"),
    check("math-experiment-note", {}, {"cap_ratio": 4}, rel_tol=0, source="derived"),
    # agent-trace
    check("agent-trace", {}, {"total_s": 76.510, "model_s": 76.294, "tools_s": 0.078, "control_s": 0.138,
                              "rounds": 4}, rel_tol=1e-6, where="3.2.3 轨迹表"),
    check("agent-trace", {}, {"model_pct": 99.72, "tools_pct": 0.1019, "round_model_s_sum": 76.294,
                              "round_tool_s_sum": 0.078, "round_control_s_sum": 0.138}, rel_tol=0.002,
          source="derived"),
    # agent-thinking-table
    check("agent-thinking-table", {}, {
        "model_rounds_off": 12, "model_rounds_on": 4, "output_tokens_off": 765, "output_tokens_on": 2733,
        "model_time_s_off": 13.156, "model_time_s_on": 76.294, "tool_time_s_off": 0.476, "tool_time_s_on": 0.078,
        "check_pass_off": 315, "check_pass_on": 1013, "check_total_off": 1013, "check_total_on": 1013,
        "alias_pass_off": 1, "alias_pass_on": 710, "alias_total_off": 1013, "alias_total_on": 1013,
        "off_read_file": 1, "off_rewrite": 5, "off_run_tests": 6, "off_rounds_sum": 12,
        "off_cache_hit_pct": 83.4, "alias_fail_on": 303}, rel_tol=1e-9, where="3.2.3 思考模式表"),
    check("agent-thinking-table", {}, {"ms_per_output_token_off": 17.2, "ms_per_output_token_on": 27.9,
                                       "check_pass_pct_off": 31.1, "alias_pass_pct_on": 70.1},
          rel_tol=0.003, source="derived"),
    # eg-3-2
    check("eg-3-2", {}, {"part_pct": 47.5, "rest_s": 40.1, "saved_pct": 23.8}, rel_tol=0.0015, where="例题 3-2"),
    check("eg-3-2", {}, {"part_s": 36.37, "new_total_s": 58.33, "overall_speedup": 1.312, "cap_speedup": 1.906},
          rel_tol=0.0005, source="derived"),
    check("eg-3-2", {"speedup": 4}, {"new_total_s": 49.23, "saved_pct": 35.65, "overall_speedup": 1.554},
          rel_tol=0.001, source="derived", where="练习 3-4 首轮 4×"),
    check("eg-3-2", {"target": "tools"}, {"new_total_s": 76.471, "saved_pct": 0.05}, rel_tol=0.02,
          source="derived", where="练习 3-4 工具 2×"),
    # fig-3-11
    check("fig-3-11", {}, {"serial_s": 21, "parallel_s": 15, "tool_work_s": 16}, rel_tol=1e-9,
          where="3.2.4 练习 3-4 设定"),
    check("fig-3-11", {}, {"critical_path_s": 15, "saved_s": 6, "wait_s": 10, "gib_s_serial": 16,
                           "gib_s_parallel": 10, "gib_s": 10, "peak_gib": 1}, rel_tol=1e-9, source="derived"),
    check("fig-3-11", {"tool_a_s": 10}, {"serial_s": 25, "parallel_s": 15, "gib_s_serial": 20, "gib_s_parallel": 10},
          rel_tol=1e-9, source="derived", where="10 s 编译"),
    check("fig-3-11", {"mode": "serial", "n_tasks": 3}, {"critical_path_s": 21, "wait_s": 16, "gib_s": 48, "peak_gib": 3},
          rel_tol=1e-9, source="derived", where="多任务累加"),
    # fig-3-13
    check("fig-3-13", {}, {"shared_tokens": 3500, "unshared_tokens": 7500}, rel_tol=0, source="derived"),
    check("fig-3-13", {}, {"shared_mib": 492.2, "unshared_mib": 1054.7, "saved_mib": 562.5, "serial_peak_mib": 351.6},
          rel_tol=0.0002, source="derived", where="c_KV = 144 KiB"),
    check("fig-3-13", {"running_branches": 1}, {"resident_now_mib": 351.6}, rel_tol=0.0002, source="derived"),
    # fig-3-14
    check("fig-3-14", {}, {"prompt_work_decoder_only": 327680, "prompt_work_ced": 166400, "decode_work_both": 10200},
          rel_tol=0, source="derived", where="40P 对 20P + 20·min(P,128)"),
    check("fig-3-14", {}, {"prompt_ratio": 0.508, "prompt_saved_pct": 49.2, "total_ratio": 0.523}, rel_tol=0.001,
          source="derived"),
    check("fig-3-14", {"input_tokens": 100}, {"prompt_ratio": 1.0}, rel_tol=1e-9, source="derived", where="P ≤ 128 重合"),
    # 练习 3-3
    check("ex-3-3", {}, {"success_cost_old": 2.0, "success_cost_new": 2.5, "new_vs_old_pct": 25,
                         "breakeven_at_cost_new_pct": 100, "breakeven_at_cheaper_pct": 75,
                         "success_cost_new_cheaper": 1.875}, rel_tol=1e-9, source="derived", where="练习 3-3"),
    # 练习 3-4
    check("ex-3-4", {}, {"serial_s": 21, "parallel_s": 15, "tool_work_s": 16}, rel_tol=1e-9, where="练习 3-4"),
    check("ex-3-4", {}, {"gib_s_serial": 16, "gib_s_parallel": 10, "first_round_new_total_s": 49.23,
                         "first_round_saved_pct": 35.65, "first_round_speedup_overall": 1.554,
                         "first_round_cap_speedup": 1.906, "tools_new_total_s": 76.471}, rel_tol=0.001,
          source="derived", where="练习 3-4 答案"),
    check("ex-3-4", {}, {"tools_saved_pct": 0.05}, rel_tol=0.02, source="derived"),
    # 谬误 2
    check("fallacy-token-price", {}, {"success_cost_ratio": 1.25}, rel_tol=1e-9, where="price-cut-paradox 默认值"),
]
