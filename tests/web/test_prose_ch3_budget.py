"""Live prose of 3.6 and of the chapter-3 end matter: at the cards' defaults the pages read as the
book does (the worked arithmetic of 3.6 with the book's numbers), every number the prose quotes
from a card is a live link bound to that card's output, and moving a card moves the number."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

LIVE = re.compile(
    r'<a class="live" href="#([a-z0-9-]+)" data-card="([a-z0-9-]+)" data-key="([a-z_0-9]+)"'
    r'(?: data-flag="([a-z0-9,]+)")?[^>]*>([^<]*)</a>'
)

# The worked arithmetic of 3.6 as the page reads it at the defaults (tags stripped).
SENTENCES_3_6 = [
    "卡片里现在的两个指数是 0.500 和 0.500,参数长 1.414 倍,数据长 1.414 倍。",
    "两个留出点实测 2.574 和 2.337 nats/token,卡片里的律预测 2.583 和 2.363,误差 +0.009 和 +0.026,留出 RMSE 约 0.0193。",
    "卡片里是 395.76 TFLOP/s(默认 H100 SXM、40% MFU):小模型要达到目标损失需约 298.6B 训练 token、约 125.7 GPU 小时,"
    "比大模型多花 73.5 GPU 小时;换来的是每次调用省约 0.00129 GPU 秒,两条线交在约 2.048×10⁸ 次调用。",
    "卡片默认取练习 3-10 的数字,现在的反转点是 5.00×10⁸ 项;按卡片的任务量,小模型的净节省是 -60,000 GPU·h,所以留用大模型。",
    "按 Chinchilla 每参数约 20 token 的基准,8B 模型大约 160B token 就算“计算最优”。",
    "Qwen3 每个参数约用 4,500 个 token,是这个基准的 225 倍。",
    "卡片里的模型(默认 DeepSeek-V4-Flash)每个 token 约 45.4495 GFLOPs,乘以 32T 训练 token,约 1.45438×10²⁴ FLOPs。",
    "H100 和 H800 的 BF16 稠密峰值都是 989.4 TFLOP/s,卡片里所选的卡是 A100 的约 3.17 倍。",
    "卡片默认取练习 3-10 的 1,022,362 GPU 小时和 2048 张卡,现在的设置要 499.2 小时,约 20.80 天。",
    # sentences that quote no card and read as before
    "六个小模型拟合,两个 N≥2×109 的模型留出检验,两个预测都略偏高。",
    "公开的 7B–8B 模型实际用了 1T 到 36T,多出一到两个数量级。",
]
SLOTS_3_6 = {
    ("budget-doubling", "n_exponent"),
    ("budget-doubling", "d_exponent"),
    ("budget-doubling", "n_mult"),
    ("budget-doubling", "d_mult"),
    ("eg-3-5", "obs_h1"),
    ("eg-3-5", "obs_h2"),
    ("eg-3-5", "pred_h1"),
    ("eg-3-5", "pred_h2"),
    ("eg-3-5", "resid_h1"),
    ("eg-3-5", "resid_h2"),
    ("eg-3-5", "holdout_rmse"),
    ("fig-3-28", "sustained_tflops"),
    ("fig-3-28", "d_small_btokens"),
    ("fig-3-28", "train_gpu_h_small"),
    ("fig-3-28", "delta_train_gpu_h"),
    ("fig-3-28", "saving_gpu_s_per_call"),
    ("fig-3-28", "q_star_calls"),
    ("lifetime-cost", "q_star_tasks"),
    ("lifetime-cost", "net_saving_gpu_h"),
    ("lifetime-cost", "choose_small"),
    ("tab-llama-qwen", "chinchilla_8b_btokens"),
    ("tab-llama-qwen", "row5_d_over_n"),
    ("tab-llama-qwen", "row5_x_chinchilla"),
    ("moe-flops", "gflop_per_token"),
    ("moe-flops", "train_tokens"),
    ("moe-flops", "total_flop"),
    ("fig-3-30", "a100_equiv_ratio"),
    ("gpu-hours-calendar", "wall_h"),
    ("gpu-hours-calendar", "wall_days"),
}
SENTENCES_END = [
    "本章每种负载都留下了一组“必须记下来”的字段。后面讲芯片、存储、通信、调度的章节,都要拿这些记录来估算资源。",
    "四个常见误区,每条都配了可以动手验证的卡片。",
    "练习 3-1 与 3.1 节的卡片合在一起:练习 3-1 · 总输出相同,请求数不同。其余练习按顺序排在下面,每道题都链接到可以直接试的卡片。",
]


def _prose(html: str) -> str:
    """The section's prose as a reader sees it: tags stripped, maths as its text."""
    prose = "".join(re.findall(r'<div class="prose">(.*?)</div>', html, re.S))
    return unescape(re.sub(r"<[^>]+>", "", prose))


def _livevals(client, cid: str, query: dict | None = None) -> dict[str, str]:
    frag = client.get(f"/cards/{cid}/fragment", params={**(query or {}), "prose": "1"}).text
    m = re.search(rf'<script type="application/json" class="livevals" data-card="{cid}">(.*?)</script>', frag, re.S)
    assert m, f"{cid} ships no live values"
    return json.loads(unescape(m.group(1)))


@pytest.fixture(scope="module")
def page_3_6(client) -> str:
    r = client.get("/ch/3/3.6")
    assert r.status_code == 200
    return r.text


@pytest.mark.parametrize("sentence", SENTENCES_3_6)
def test_3_6_reads_as_the_book_at_defaults(page_3_6, sentence):
    assert sentence in _prose(page_3_6)


def test_3_6_numbers_are_live_links_to_their_cards(client, page_3_6):
    found = LIVE.findall(page_3_6)
    assert SLOTS_3_6 <= {(card, key) for _, card, key, _, _ in found}, SLOTS_3_6 - {(c, k) for _, c, k, _, _ in found}
    assert not re.search(r"\[\[[a-z0-9-]+\.[a-z_]", page_3_6)  # no slot left unfilled
    # each live number links to its card on the page and equals what the card ships for it at the defaults
    shipped: dict[str, dict[str, str]] = {}
    for href, card, key, flag, text in found:
        assert href == card and f'id="{card}"' in page_3_6
        vals = shipped.setdefault(card, _livevals(client, card))
        assert vals[f"{key}|{flag}" if flag else key] == unescape(text), (card, key)


@pytest.mark.parametrize(
    "cid,query,key,default,moved",
    [
        ("fig-3-28", {"mfu_pct": 20}, "sustained_tflops", "395.76 TFLOP/s", "197.88 TFLOP/s"),
        ("eg-3-5", {"law": "fit"}, "pred_h1|n", "2.583", "2.539"),
        ("eg-3-5", {"law": "fit"}, "resid_h1|n", "+0.009", "-0.035"),
        ("lifetime-cost", {"tasks": 1e9}, "choose_small", "留用大模型", "选多训练的小模型"),
        ("lifetime-cost", {"tasks": 1e9}, "net_saving_gpu_h", "-60,000 GPU·h", "100,000 GPU·h"),
        ("budget-doubling", {"budget_mult": 9}, "n_mult|n", "1.414", "3.000"),
        ("moe-flops", {"model": "v4-pro"}, "total_flop|n", "1.45438×10²⁴", "5.58513×10²⁴"),
        ("fig-3-30", {"gpu": "a100-sxm"}, "a100_equiv_ratio|n", "3.17", "1.00"),
        ("gpu-hours-calendar", {"n_gpus": 1024}, "wall_days", "20.80 天", "41.60 天"),
    ],
)
def test_a_moved_card_moves_its_prose_number(client, cid, query, key, default, moved):
    assert _livevals(client, cid)[key] == default
    assert _livevals(client, cid, query)[key] == moved


def test_end_matter_reads_as_before(client):
    html = client.get("/ch/3/end").text
    text = _prose(html)
    for sentence in SENTENCES_END:
        assert sentence in text
    assert not re.search(r"\[\[[a-z0-9-]+\.[a-z_]", html)
    # the end matter's prose quotes no computed number: nothing there can go stale
    assert not LIVE.findall(html)
