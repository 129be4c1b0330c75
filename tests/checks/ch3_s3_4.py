"""Book values for 3.4 (linear-3mm, 例题 3-3, 图 3-20, doc-split-8192, update-tokens, sft-tokens, 图 3-23)
and the end cards built from them (练习 3-6, the third fallacy)."""
from . import check

CHECKS = [
    # linear-3mm
    check("linear-3mm", {}, {"total_over_mkn": 6}, rel_tol=1e-9, where="3.4.1 合计 6mkn"),
    check("linear-3mm", {"freeze_w": "true"}, {"total_over_mkn": 4, "dw_gflop": 0}, rel_tol=1e-9, where="冻结 W 省 dW"),
    check("linear-3mm", {"freeze_w": "true", "need_input_grad": "false"}, {"total_over_mkn": 2}, rel_tol=1e-9,
          where="冻结的第一层"),
    check("linear-3mm", {}, {"fwd_gflop": 824.634, "dx_gflop": 824.634, "dw_gflop": 824.634, "total_gflop": 2473.90,
                             "dw_shape_elems": 50331648, "dx_shape_elems": 33554432}, rel_tol=1e-5, source="derived"),
    # 例题 3-3
    check("eg-3-3", {}, {"n_params": 8190735360, "bytes_per_param": 18, "ratio_vs_bf16": 9}, rel_tol=1e-12,
          where="例题 3-3"),
    check("eg-3-3", {}, {"total_gb": 147.43, "total_gib": 137.31, "weights_gb": 16.38, "grads_gb": 32.76,
                         "master_gb": 32.76, "adam_gb": 65.53, "bf16_weights_gb": 16.38, "per_gpu_gb": 147.43,
                         "fits_per_gpu": False, "min_gpus_state_only": 2}, rel_tol=5e-4, source="derived"),
    check("eg-3-3", {"n_gpus": 2}, {"per_gpu_gb": 73.72, "fits_per_gpu": True}, rel_tol=5e-4, source="derived",
          where="均分到 2 张"),
    check("eg-3-3", {"grad_bytes": 2}, {"total_gb": 131.05, "bytes_per_param": 16}, rel_tol=5e-4, source="derived",
          where="练习 3-6 BF16 梯度"),
    # 图 3-20
    check("fig-3-20", {}, {"peak_activation": 4, "total_time": 12, "passes": 1, "updates": 1, "peak_total": 8,
                           "peak_vs_full_batch": 1}, rel_tol=1e-9, source="derived"),
    check("fig-3-20", {"micro_batches": 2}, {"peak_activation": 2, "total_time": 12, "passes": 2, "updates": 1,
                                             "peak_vs_full_batch": 0.5}, rel_tol=1e-9, source="derived"),
    check("fig-3-20", {"micro_batches": 4}, {"peak_activation": 1, "total_time": 12}, rel_tol=1e-9, source="derived"),
    # doc-split-8192
    check("doc-split-8192", {}, {"second_doc_tokens": 4096, "pairs": 16781312, "pairs_single_doc": 33558528},
          rel_tol=1e-12, source="derived"),
    check("doc-split-8192", {}, {"attn_gflop": 274.95, "linear_gflop": 3161.10, "layer_gflop": 3436.04,
                                 "attn_share_pct": 8.0, "layer_vs_single_doc_pct": 92.6}, rel_tol=2e-3, source="derived"),
    check("doc-split-8192", {"first_doc_tokens": 8192}, {"pairs": 33558528, "attn_gflop": 549.82, "attn_share_pct": 14.8,
                                                         "layer_vs_single_doc_pct": 100}, rel_tol=3e-3, source="derived",
          where="一份文档"),
    # update-tokens
    check("update-tokens", {}, {"qwen3_general_tokens_min": 30e12, "qwen3_general_seq_len": 4096,
                                "qwen3_reasoning_tokens": 5e12, "qwen3_long_seq_len": 32768}, rel_tol=1e-12,
          where="3.4.2 Qwen3 阶段"),
    check("update-tokens", {}, {"input_tokens": 65536, "supervised_tokens": 16384, "loss_denominator": 16384,
                                "fwd_bwd_passes": 8, "sequences": 16}, rel_tol=1e-12, source="derived", where="练习 3-6"),
    # sft-tokens (示意 segments 300/200/1500/500)
    check("sft-tokens", {}, {"input_tokens": 2500, "supervised_tokens": 500, "lm_head_tflop": 9.3349,
                             "lm_head_waste_tflop": 7.4680}, rel_tol=1e-4, source="derived"),
    check("sft-tokens", {"vocab_proj": "supervised"}, {"lm_head_tflop": 1.8670, "lm_head_waste_tflop": 0},
          rel_tol=1e-4, source="derived"),
    # 图 3-23
    check("fig-3-23", {}, {"attention_tflop": 59.381}, rel_tol=1e-5, where="图 3-23 注意力"),
    check("fig-3-23", {}, {"over_6nd_pct": 7.15}, rel_tol=1e-3, where="图 3-23 高约 7.15%"),
    check("fig-3-23", {}, {"six_nd_tflop": 402.591, "qo_proj_tflop": 59.374, "kv_proj_tflop": 14.843,
                           "ffn_tflop": 267.181, "lm_head_tflop": 30.589, "embed_excluded_tflop": 30.589,
                           "norms_excluded_tflop": 0.01515, "recompute_tflop": 0, "itemized_tflop": 431.368,
                           "attention_share_pct": 13.766}, rel_tol=2e-4, source="derived"),
    check("fig-3-23", {"recompute": "true"}, {"recompute_tflop": 143.79}, rel_tol=1e-4, source="derived"),
    check("fig-3-23", {"batch": 2, "seq_len": 4096}, {"over_6nd_pct": -0.23}, rel_tol=0.02, source="derived",
          where="2 × 4096 低 0.23%"),
    # 练习 3-6
    check("ex-3-6", {}, {"state_gb": 147.43, "state_bf16_grad_gb": 131.05, "bf16_grad_saving_gb": 16.38,
                         "input_tokens": 65536, "supervised_tokens": 16384, "lm_head_saving_tflop": 183.53,
                         "lm_head_saving_fwd_tflop": 61.18, "update_train_tflop": 3213.45}, rel_tol=5e-4,
          source="derived", where="练习 3-6"),
    # 谬误:训练 token 总数相同
    check("fallacy-train-tokens", {}, {"attention_tflop": 59.381}, rel_tol=1e-5, where="谬误 3"),
    check("fallacy-train-tokens", {}, {"pairs_single_doc": 33558528, "pairs_split": 16781312}, rel_tol=1e-12,
          source="derived"),
]
