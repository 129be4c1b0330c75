"""Chapter 1's prose quotes its cards through live numbers: at the defaults each section reads exactly
as the book (also without JavaScript: the numbers are rendered on the server), every quoted number is
a link bound to a card on the same page, and a moved card state changes the value the page shows."""

from __future__ import annotations

import html
import json
import re

import pytest

# The key sentences as the book prints them (whitespace aside), and the live numbers each page must carry.
PAGES = {
    "/ch/1": (
        [
            "每生成一个 token,都要先把大约 70 GB 的权重从显存搬到计算单元,这一趟要 20.90 ms;真正的矩阵乘加却只要 0.14 ms 左右。"
        ],
        [
            ("hero-read-vs-compute", "weights_gb"),
            ("hero-read-vs-compute", "t_read_ms"),
            ("hero-read-vs-compute", "t_compute_ms"),
        ],
    ),
    "/ch/1/1.1": (
        ["GB200 NVL72 把 36 个 Grace CPU 和 72 个 Blackwell GPU 装进一个机柜,72 个 GPU 通过 NVLink 连成同一个互联域"],
        [("fig-1-5", "nvl72_grace_cpus"), ("fig-1-5", "nvl72_gpus")],
    ),
    "/ch/1/1.2": (
        ["DeepSeek-R1-Distill-Llama-70B 是稠密模型,约 705.54 亿个参数,以 BF16 存储时超过一张 80 GB 的 H100。"],
        [("weight-bytes", "n_params_yi")],
    ),
    "/ch/1/1.3": (
        [
            "是权重在显存里占的地方,存一份就够,这里是 70 GB;",
            "是生成一个 token 时要搬过显存接口的字节数,也是 70 GB;",
            "代入 H100 SXM 的 3.35 TB/s 和 989.4 TFLOP/s,读取要 70 GB ÷ 3350 GB/s ≈ 20.90 ms,"
            "计算只要 140 GFLOP ÷ 989,400 GFLOP/s ≈ 0.1415 ms,相差约 148 倍。离 10 ms 的目标还差一倍多。",
            "另外,B* ≈ 148 只比较了矩阵运算和权重读取两项;H100 放下 73.73 GB 权重后只剩约 6.27 GB,148 个请求的 KV 根本放不下",
            "其中 F1 = 16.34 GFLOP、RW = 15.14 GB、Rstate,1 = 0.302 GB(2048 token 的上下文)。",
            "并发从 1 加到 64,吞吐约涨了 31 倍,每个请求的输出间隔却从 26.5 ms 变成 40.5 ms。",
            "单请求的 Qwen3-8B 在 RTX PRO 6000 上,下界是 8.62 ms,实测 26.5 ms,差了大约三倍。",
        ],
        [
            ("eg-1-1", k)
            for k in (
                "m_w_gb",
                "r_w_gb",
                "bw_eff_gbps",
                "t_mem_ms",
                "f_per_gpu_gflop",
                "peak_eff_gflops",
                "t_compute_ms",
                "read_to_compute_ratio",
                "b_star",
            )
        ]
        + [
            ("fig-1-13", k)
            for k in (
                "f1_gflop",
                "r_w_gb",
                "r_state_gb",
                "measured_throughput_ratio_b64",
                "measured_tpot_ms_b1",
                "measured_tpot_ms_b64",
            )
        ]
        + [("gap-analysis", "lb_ms"), ("gap-analysis", "measured_tpot_ms")],
    ),
    "/ch/1/1.4": (
        ["线路跑满、全是最小帧时,每帧在线上占 84 字节的时间,40 Gbit/s 下每秒约 5952 万个包,每 16.8 ns 就来一个。"],
        [("smartnic-cores", "packet_rate_wan"), ("smartnic-cores", "per_packet_ns")],
    ),
    "/ch/1/end": (
        ["默认是 RTX PRO 6000、2048 token 上下文;decode 的下界 8.62 ms 正是 1.3.4 里拿来和实测 26.5 ms 对比的那个数。"],
        [("quick-bounds", "decode_lb_ms")],
    ),
}
LIVE = re.compile(
    r'<a class="live" href="#([a-z0-9-]+)" data-card="([a-z0-9-]+)" data-key="([a-z_0-9]+)"'
    r'(?: data-flag="([a-z0-9,]+)")?[^>]*>([^<]*)</a>'
)


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def page_text(body: str) -> str:
    """What a reader reads: scripts dropped, tags (MathML included) stripped, entities decoded, no whitespace."""
    body = re.sub(r"<script.*?</script>", "", body, flags=re.S)
    return squeeze(html.unescape(re.sub(r"<[^>]+>", "", body)))


def livevals(client, cid: str, query: str = "") -> dict:
    frag = client.get(f"/cards/{cid}/fragment{query}{'&' if query else '?'}prose=1").text
    m = re.search(
        r'<script type="application/json" class="livevals" data-card="' + cid + r'">(.*?)</script>', frag, re.S
    )
    assert m, f"{cid} fragment ships no live values"
    return json.loads(m.group(1))


@pytest.mark.parametrize("path", sorted(PAGES))
def test_section_reads_as_the_book_at_the_defaults(client, path):
    r = client.get(path)
    assert r.status_code == 200
    text = page_text(r.text)
    for sentence in PAGES[path][0]:
        assert squeeze(sentence) in text, sentence
    assert "[[" not in text


@pytest.mark.parametrize("path", sorted(PAGES))
def test_quoted_numbers_are_live_and_bound_to_a_card_on_the_page(client, path):
    body = client.get(path).text
    found = {(card, key): (href, flag, shown) for href, card, key, flag, shown in LIVE.findall(body)}
    for card, key in PAGES[path][1]:
        assert (card, key) in found, f"{path}: no live number for {card}.{key}"
        href, flag, shown = found[card, key]
        assert href == card and f'id="{card}"' in body, f"{card} is not on {path}"
        assert livevals(client, card)[f"{key}|{flag}" if flag else key] == html.unescape(shown)


def test_a_moved_state_changes_the_live_values(client):
    """例题 1-1 at 50 % of the bandwidth: the 1.3 prose would read 70 GB ÷ 1675 GB/s ≈ 41.79 ms, ratio 295."""
    before, after = livevals(client, "eg-1-1"), livevals(client, "eg-1-1", "?bw_eff_pct=50")
    assert (before["bw_eff_gbps"], before["t_mem_ms"], before["read_to_compute_ratio|n"]) == (
        "3350 GB/s",
        "20.90 ms",
        "148",
    )
    assert (after["bw_eff_gbps"], after["t_mem_ms"], after["read_to_compute_ratio|n"]) == (
        "1675 GB/s",
        "41.79 ms",
        "295",
    )
    assert after["r_w_gb|c"] == before["r_w_gb|c"] == "70 GB"
    assert after["b_star|n"] == "295" and livevals(client, "eg-1-1", "?batch=64")["f_per_gpu_gflop|c"] == "8,960 GFLOP"
    # 1.4: a 100 Gbit/s link at minimum frames
    moved = livevals(client, "smartnic-cores", "?link_gbit_s=100")
    assert moved["packet_rate_wan|n"] == "14881" and moved["per_packet_ns"] == "6.72 ns"
    # the chapter opener with the bandwidth doubled
    assert livevals(client, "hero-read-vs-compute", "?double_bandwidth=true")["t_read_ms"] == "10.45 ms"
