"""Live prose numbers of the chapter-3 opener, 3.1 and 3.2: each page reads exactly as the book at the
defaults with the numbers coming from the cards (``[[card.key]]`` → ``a.live``), and a card's fragment
at another state carries the moved values its prose numbers follow."""

from __future__ import annotations

import html
import json
import re

import pytest

PAGES = {
    "/ch/3": [
        "两分钟里到达的请求一样多(480 条),平均到达率一样(每秒 4 条)",
        "同样的两张卡就欠下了约 11 万步 decode 工作。",
    ],
    "/ch/3/3.1": [
        "下面这张卡把同样 1,024 个输出 token 分给不同数量的请求",
        "按书中的数算一遍:两分钟共 480 条、552,480 步 decode,平均 4,604 步/s,低于两卡的 5,591.32 步/s,平均利用率只有 82.3%。",
        "可第二分钟换成 1:9,需求涨到 7,471.2 步/s,利用率 133.6%:",
        "= (7,471.2 − 5,591.32) × (120 − 60) s ≈ 112,792.8 步,书中取下整记作 112,792 步;"
        "到达停止后还要 112,792.8 ÷ 5,591.32 ≈ 20.17 s 才排空。",
        "每步 decode 至少读一遍 15.14 GB 的共享权重,再读 64 条序列的旧 KV,合计 41.02 GB;"
        "在 1.792 TB/s 下一步要 22.89 ms,一张卡约 2,795.63 步/s(书中取 2,795.66)。",
        "24 GiB 的池约装 174,763 个 token,按满长只够同时驻留 20 条长输入请求,远不到 64 条序列的上限。",
    ],
    "/ch/3/3.2": [
        "四轮累计输入 5,297 token,其中 4,480 命中。第二轮最典型:1,443 token 的输入里只有 51 个是新的",
        "一次数学题实验把输出上限放宽到 4 倍,两轮下来仍然没有一份答案通过评分",
    ],
}
LIVE = {
    "/ch/3": {("intro-two-minutes", "total_requests"), ("intro-two-minutes", "backlog_wan")},
    "/ch/3/3.1": {("ex-3-1", "total_output_tokens")}
    | {
        ("eg-3-1", k)
        for k in (
            "total_requests",
            "total_decode_steps",
            "avg_demand_steps_s",
            "capacity_steps_s",
            "util_avg_pct",
            "demand_after_steps_s",
            "util_after_pct",
            "duration_s",
            "split_s",
            "backlog_fluid_steps",
            "backlog_end_steps_display",
            "backlog_end_steps",
            "drain_s",
            "step_read_write_gb",
            "step_ms",
            "mu_bw_per_card",
        )
    }
    | {("real-replay", "kv_pool_tokens"), ("real-replay", "max_resident_long_input")},
    "/ch/3/3.2": {
        ("prefix-cache-4round", "total_input_tokens"),
        ("prefix-cache-4round", "total_hit_tokens"),
        ("math-experiment-note", "cap_ratio"),
    },
}


def prose_text(page: str) -> str:
    """The section's prose as a reader sees it without scripts: tags stripped, entities decoded."""
    blocks = re.findall(r'<div class="prose">(.*?)</div>', page, flags=re.S)
    assert blocks, "no prose on the page"
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", " ".join(blocks)))).replace("\n", "")


@pytest.mark.parametrize("url", list(PAGES))
def test_prose_reads_as_the_book_at_the_defaults(client, url):
    r = client.get(url)
    assert r.status_code == 200
    text = prose_text(r.text)
    for sentence in PAGES[url]:
        assert sentence in text, sentence


@pytest.mark.parametrize("url", list(LIVE))
def test_prose_numbers_are_live_links_to_their_cards(client, url):
    page = client.get(url).text
    found = set(re.findall(r'<a class="live" href="#([a-z0-9-]+)" data-card="\1" data-key="([a-z0-9_]+)"', page))
    assert LIVE[url] <= found, sorted(LIVE[url] - found)
    for cid, _ in found:  # every live number links to a card on the same page
        assert f'id="{cid}"' in page, cid


def _livevals(client, cid: str, query: dict) -> dict[str, str]:
    body = client.get(f"/cards/{cid}/fragment", params={**query, "prose": "1"}).text
    m = re.search(
        rf'<script type="application/json" class="livevals" data-card="{re.escape(cid)}">(.*?)</script>', body, re.S
    )
    assert m, f"{cid} fragment ships no live values"
    return json.loads(m.group(1))


def test_live_values_at_the_defaults_match_the_prose(client):
    vals = _livevals(client, "eg-3-1", {})
    assert vals["backlog_end_steps_display"] == "112,792 步" and vals["drain_s"] == "20.17 s"
    assert vals["capacity_steps_s|n,d2"] == "5,591.32" and vals["duration_s|n"] == "120"


def test_moved_state_moves_the_live_values(client):
    uniform = _livevals(client, "eg-3-1", {"preset": "uniform"})
    assert uniform["backlog_end_steps_display"] == "0 步" and uniform["drain_s"] == "0.00 s"
    assert uniform["util_after_pct"] == "82.3%" and uniform["demand_after_steps_s"] == "4,604.0 步/s"
    faster = _livevals(client, "eg-3-1", {"batch_seqs": 128})
    assert faster["step_read_write_gb"] != "41.02 GB" and faster["mu_bw_per_card"] != "2,795.63 步/s"
    three = _livevals(client, "intro-two-minutes", {"n_cards": 3})
    assert three["backlog_wan|n"] == "0" and three["total_requests"] == "480 条"
