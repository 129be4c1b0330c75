"""Sections 3.3–3.5 quote their cards' numbers as live slots: at the defaults the prose reads exactly as
the book's text did before (no JavaScript needed), each quoted number is a live link to its card, and a
moved card state ships different values for those slots."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest


class _Page(HTMLParser):
    """The visible text of a page (scripts and styles dropped) and its live numbers."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.live: list[tuple[str, str, str]] = []  # (card, key, flags)
        self.scripts: list[tuple[dict, str]] = []
        self._skip = 0
        self._script: dict | None = None
        self.html = ""

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag in ("script", "style"):
            self._skip += 1
            self._script = a if tag == "script" else None
        if tag == "a" and "live" in (a.get("class") or "").split():
            self.live.append((a.get("data-card", ""), a.get("data-key", ""), a.get("data-flag", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if self._skip:
            if self._script is not None:
                self.scripts.append((self._script, data))
            return
        self.text.append(data)


def parse(html: str) -> _Page:
    p = _Page()
    p.feed(html)
    return p


# The sentences as the section prose read before it quoted live numbers (the book's values at the defaults).
SENTENCES = {
    "3.3": [
        "以 Qwen3-VL-4B 为例:每 16×16 像素切成一块,相邻 2×2 块再并成一个视觉 token,所以一张 640×640 的图是 1,600 块、400 个 token。",
        "Qwen-Image-2512 生成一张 1024² 的图,latent 是 4096 个位置;",
        "默认 50 步、每步 2 次,共 100 次前向,约 7.830×10¹⁵ FLOPs,不含文本编码器和 VAE。",
        "书中引用的两次语音实测:用户停止说话到第一块音频到达,分别约 400 ms 和 370 ms;之后各块到达间隔的中位数约 94 ms。",
        "下面的卡片按 20 ms 一块(24 kHz 单声道 16 位,每块 960 字节)模拟:每块采完后处理 12 ms、发送 1 ms、网络通常 5 ms,第一块在 38 ms 到达。",
    ],
    "3.4": [
        "以 Qwen3-8B 为例(参数量由公开配置推出:8,190,735,360),不分片的混合精度 Adam 训练每个参数要放 BF16 工作权重、FP32 梯度、"
        "FP32 主权重和 Adam 的两个矩估计,共 18 字节,是 BF16 推理权重的 9 倍。",
        "激活一个字节都还没算,一张 80 GB 的卡就已经装不下。",
        "合计 8,190,735,360 × 18 B = 147.43 GB,约 137.31 GiB。",  # worked arithmetic, live
        "默认值就是练习 3-6 的设置。",
        "当前设置下,每次更新读入 65,536 个 token,其中 16,384 个参与损失。",  # worked arithmetic, live
        "注意力里查询与上下文的矩阵乘不对应任何参数,前反向却要 59.381 TFLOPs,粗算把它漏了;",
        "两项相抵,逐项总量比 6ND 高约 7.15%。",
    ],
    "3.5": [
        "例题 3-4 用 Qwen3-8B 把这两个数算出来;注意页面上写明的词表投影假设,正是它让 38.411 与 952.416 两个数精确出现。",
    ],
}

LIVE = {
    "3.3": {
        ("fig-3-15", "patches_per_image"),
        ("fig-3-15", "vision_tokens"),
        ("image-gen-loop", "latent_positions"),
        ("image-gen-loop", "dit_forwards"),
        ("image-gen-loop", "total_pflop"),
        ("fig-3-18", "chunk_bytes"),
        ("fig-3-18", "first_arrival_ms"),
        ("fig-3-18", "measured_first_chunk_ms_run1"),
        ("fig-3-18", "measured_first_chunk_ms_run2"),
        ("fig-3-18", "measured_chunk_gap_median_ms"),
    },
    "3.4": {
        ("eg-3-3", "n_params"),
        ("eg-3-3", "bytes_per_param"),
        ("eg-3-3", "ratio_vs_bf16"),
        ("eg-3-3", "card_gb"),
        ("eg-3-3", "total_gb"),
        ("eg-3-3", "total_gib"),
        ("update-tokens", "input_tokens"),
        ("update-tokens", "supervised_tokens"),
        ("fig-3-23", "attention_tflop"),
        ("fig-3-23", "over_6nd_pct"),
    },
    "3.5": {("eg-3-4", "fg_plus_fr_tflop"), ("eg-3-4", "f_u_tflop")},
}


@pytest.fixture(scope="module")
def pages(client):
    out = {}
    for sec in SENTENCES:
        r = client.get(f"/ch/3/{sec}")
        assert r.status_code == 200, sec
        out[sec] = parse(r.text)
        out[sec].html = r.text
    return out


@pytest.mark.parametrize("sec", sorted(SENTENCES))
def test_prose_reads_as_the_book_at_the_defaults(pages, sec):
    text = "".join(pages[sec].text)
    for sentence in SENTENCES[sec]:
        assert sentence in text, sentence


@pytest.mark.parametrize("sec", sorted(LIVE))
def test_quoted_numbers_are_live_links_to_their_cards(pages, sec):
    found = {(c, k) for c, k, _ in pages[sec].live}
    assert LIVE[sec] <= found, sorted(LIVE[sec] - found)
    for card_id, _ in found:  # each live number links to a card on the same page
        assert f'id="{card_id}"' in pages[sec].html, card_id


def _livevals(client, cid: str, query: str = "") -> dict:
    r = client.get(f"/cards/{cid}/fragment{query}{'&' if query else '?'}prose=1")  # as a page that quotes it asks
    assert r.status_code == 200, r.text
    blocks = [
        json.loads(d)
        for a, d in parse(r.text).scripts
        if "livevals" in (a.get("class") or "") and a.get("data-card") == cid
    ]
    assert len(blocks) == 1, cid
    return blocks[0]


@pytest.mark.parametrize(
    "cid,query,expect_default,expect_moved",
    [
        (
            "eg-3-3",
            "?grad_bytes=2",
            {"total_gb": "147.43 GB", "bytes_per_param|n": "18"},
            {"total_gb": "131.05 GB", "bytes_per_param|n": "16"},
        ),
        (
            "fig-3-15",
            "?img_h_px=1280&img_w_px=1280",
            {"patches_per_image|n": "1,600", "vision_tokens|n": "400"},
            {"patches_per_image|n": "6,400", "vision_tokens|n": "1,600"},
        ),
        (
            "image-gen-loop",
            "?steps=100",
            {"dit_forwards|n": "100", "total_pflop|n": "7.830", "latent_positions|n,g0": "4096"},
            {"dit_forwards|n": "200", "total_pflop|n": "15.661", "latent_positions|n,g0": "4096"},
        ),
        (
            "fig-3-23",
            "?batch=2&seq_len=4096",
            {"attention_tflop|n": "59.381", "over_6nd_pct": "7.15%"},
            {"over_6nd_pct": "-0.23%"},
        ),
        ("eg-3-4", "?gen_tokens=512", {"fg_plus_fr_tflop|n": "38.411", "f_u_tflop|n": "952.416"}, {}),
        (
            "update-tokens",
            "?micro_batches=16",
            {"input_tokens|n": "65,536"},
            {"input_tokens|n": "131,072", "supervised_tokens|n": "32,768"},
        ),
    ],
)
def test_a_moved_state_moves_the_live_numbers(client, cid, query, expect_default, expect_moved):
    default, moved = _livevals(client, cid), _livevals(client, cid, query)
    for key, text in expect_default.items():
        assert default[key] == text, (key, default[key])
    for key, text in expect_moved.items():
        assert moved[key] == text, (key, moved[key])
    assert default != moved  # every card's slots follow its sliders
    assert set(default) == set(moved)


def test_page_live_text_equals_the_fragment_at_the_defaults(pages, client):
    """The number printed in the prose (no JavaScript) is the card's own slot value at its defaults."""
    html = client.get("/ch/3/3.4").text
    vals = _livevals(client, "eg-3-3")
    assert f'data-key="total_gb" title="随卡片 例题 3-3 的滑块变化">{vals["total_gb"]}</a>' in html
