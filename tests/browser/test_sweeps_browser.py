"""扫参 in a browser: the control view starts a sweep of 例题 1-1's batch; three phones each get a
distinct point, see the card there with the predicted output held back, and predict; 公布 draws the
class's points on the projector (frontier line, verdict colours) and each phone highlights its own
point against the truth. Also: N/P keep each card's state, and 显示答案 shows the answers on the
instructor's screen only."""

from __future__ import annotations

import pytest
from app import format as fmt
from app.cards import REGISTRY
from bench.live_cluster import call, free_port, start_uvicorn

from .conftest import Watch

BATCHES = [1, 64, 512]
BATCH = "#eg-1-1-batch"


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    d = tmp_path_factory.mktemp("live-sweeps-browser")
    port = free_port()
    env = {"AIINFRA_LIVE_DB": str(d / "live.db"), "AIINFRA_REDIS_URL": "", "AIINFRA_WARM": "0"}
    proc = start_uvicorn(port, env)
    yield f"http://127.0.0.1:{port}"
    proc.stop()


def _page(browser, contexts, w=1400, h=1000):
    ctx = browser.new_context(viewport={"width": w, "height": h}, service_workers="block")
    contexts.append(ctx)
    pg = ctx.new_page()
    pg.watch = Watch(pg)
    return pg


@pytest.fixture
def contexts():
    out: list = []
    yield out
    for c in out:
        c.close()


def _control(browser, base, contexts, card="eg-1-1", query=""):
    status, k = call(base, "POST", "/api/live", {"card": card, "query": query})
    assert status == 201, k
    teacher = _page(browser, contexts)
    teacher.goto(k["control_url"])
    teacher.wait_for_function("() => document.querySelector('.live-auth').textContent === '已授权'")
    if card == "eg-1-1":
        teacher.wait_for_function("() => { const e = document.getElementById('plot-eg-1-1-0'); return e && e.data; }")
    return teacher, k


def _truth(batch: int, key="throughput_tok_s") -> float:
    c = REGISTRY["eg-1-1"]
    return c.compute(c.parse({"batch": batch})).outputs[key]


def test_control_view_and_three_phones_sweep_batch(browser, live_server, contexts):
    teacher, k = _control(browser, live_server, contexts)
    teacher.wait_for_selector(".live-sweep-vary[value=batch]")
    teacher.check(".live-sweep-vary[value=batch]")
    row = teacher.locator(".live-sweep-param", has=teacher.locator(".live-sweep-vary[value=batch]"))
    row.locator(".live-sweep-list").fill(", ".join(map(str, BATCHES)))
    teacher.select_option(".live-sweep-predict", "throughput_tok_s")
    teacher.select_option(".live-sweep-x", "t_step_ms")
    teacher.select_option(".live-sweep-xb", "lower")
    teacher.select_option(".live-sweep-y", "throughput_tok_s")
    teacher.select_option(".live-sweep-yb", "higher")
    teacher.click(".live-sweep-go")
    teacher.wait_for_function("() => document.querySelector('.live-sweep-msg').textContent === '已开始:3 个点'")
    teacher.wait_for_selector(".live-sweep-status:not([hidden])")
    # the projector's own stage is masked too (its state, batch 1, is one of the points)
    teacher.wait_for_function(
        "() => document.querySelector('#live-stage .live-card').dataset.hide === 'throughput_tok_s'"
    )

    phones, points = [], []
    for _ in range(3):
        s = _page(browser, contexts, 420, 900)
        s.goto(k["follow_url"])
        s.wait_for_selector(".live-sweep:not([hidden])")
        s.wait_for_function("() => document.querySelector('.live-sweep').dataset.point !== undefined")
        point = int(s.get_attribute(".live-sweep", "data-point"))
        batch = BATCHES[point]
        s.wait_for_function(
            f"() => document.querySelector('{BATCH}') && document.querySelector('{BATCH}').value === '{batch}'"
        )
        s.wait_for_function(
            "() => document.querySelector('#live-stage .live-card').dataset.hide === 'throughput_tok_s'"
        )
        stage = s.inner_html("#live-stage")
        for shown in {fmt.num(_truth(batch)), f"{_truth(batch):.2f}", repr(_truth(batch))}:
            assert shown not in stage, shown  # absent from the page, not just hidden
        assert not any(ch.isdigit() for ch in s.inner_text('#live-stage .stat[data-key="throughput_tok_s"] dd'))
        assert str(batch) in s.inner_text(".live-sweep-point")
        phones.append(s)
        points.append(point)
    assert sorted(points) == [0, 1, 2]  # three phones, three distinct points

    factors = [1.0, 1.03, 3.0]  # 正确, 接近, 不对
    expected = ["correct", "close", "incorrect"]
    for s, point, f in zip(phones, points, factors, strict=True):
        s.fill("#live-sweep-value", f"{_truth(BATCHES[point]) * f:.4f}")
        s.click(".live-sweep-form button[type=submit]")
        s.wait_for_function("() => document.querySelector('.live-sweep-msg').textContent.startsWith('已提交')")
    teacher.wait_for_function("() => document.querySelector('.live-sweep-count').textContent === '3'", timeout=10000)
    assert teacher.locator(".live-sweep-results").is_hidden()  # nothing drawn on the projector until 公布

    teacher.click(".live-sweep-reveal")
    teacher.wait_for_selector(".live-sweep-results:not([hidden])")
    plot = "document.querySelector('.live-sweep-results .live-sweep-plot')"
    teacher.wait_for_function(f"() => {plot}.data && {plot}.data.length")
    traces = teacher.evaluate(
        f"{plot}.data.map(t => ({{v: t.liveVerdict || null, f: !!t.liveFrontier, x: t.x, y: t.y}}))"
    )
    by_verdict = {t["v"]: t for t in traces if t["v"]}
    assert {v: len(t["x"]) for v, t in by_verdict.items()} == {"correct": 1, "close": 1, "incorrect": 1}
    for point, v in zip(points, expected, strict=True):
        assert by_verdict[v]["x"][0] == pytest.approx(_truth(BATCHES[point], "t_step_ms"))
        assert by_verdict[v]["y"][0] == pytest.approx(_truth(BATCHES[point]))
    front = next(t for t in traces if t["f"])
    # batch 64 beats batch 1 (same step time, more throughput); 512 trades step time for throughput
    assert front["y"] == pytest.approx([_truth(64), _truth(512)])
    caption = teacher.inner_text(".live-sweep-caption")
    assert "3 人预测" in caption and "前沿 2 个点" in caption
    xtitle = teacher.evaluate(f"{plot}.layout.xaxis.title.text")
    assert "ms" in xtitle and "越小越好" in xtitle
    # throughput spans ~150× here: a log axis whose labels are full values (50, 100, 200 … 5,000), never a bare 2 or 5
    assert teacher.evaluate(f"{plot}.layout.yaxis.type") == "log"
    yticks = teacher.evaluate(f"Array.from({plot}.querySelectorAll('.ytick text')).map(t => t.textContent)")
    assert "1,000" in yticks and "5,000" in yticks, yticks
    assert not {"2", "5"} & set(yticks), yticks

    for s, point, v in zip(phones, points, expected, strict=True):
        s.wait_for_selector(".live-sweep-mine:not([hidden])")
        assert s.get_attribute(".live-sweep-mine", "data-verdict") == v
        text = s.inner_text(".live-sweep-mine")
        assert "真值" in text and {"correct": "正确", "close": "接近", "incorrect": "不对"}[v] in text
        mplot = "document.querySelector('.live-sweep .live-sweep-plot')"
        s.wait_for_function(f"() => {mplot}.data && {mplot}.data.some(t => t.liveMine !== undefined)")
        mine = s.evaluate(f"{mplot}.data.find(t => t.liveMine !== undefined)")
        assert mine["liveMine"] == point and mine["y"][0] == pytest.approx(_truth(BATCHES[point]))
        # the stage is back with the class (batch 1), no longer masked
        s.wait_for_function("() => document.querySelector('#live-stage .live-card').dataset.hide === ''")
        s.wait_for_function(f"() => document.querySelector('{BATCH}').value === '1'")
    for pg in (teacher, *phones):
        pg.watch.assert_clean()


def test_n_and_p_come_back_to_the_cards_last_state(browser, live_server, contexts):
    teacher, _ = _control(browser, live_server, contexts)
    teacher.fill(BATCH, "32")
    teacher.dispatch_event(BATCH, "input")
    teacher.wait_for_function("() => document.getElementById('plot-eg-1-1-0').data.some(t => (t.x || []).includes(32))")
    teacher.locator(".present-bar").click(position={"x": 5, "y": 5})
    teacher.keyboard.press("n")
    teacher.wait_for_function("() => document.querySelector('#live-stage .live-card').dataset.card !== 'eg-1-1'")
    teacher.keyboard.press("p")
    teacher.wait_for_function("() => document.querySelector('#live-stage .live-card').dataset.card === 'eg-1-1'")
    teacher.wait_for_function(f"() => document.querySelector('{BATCH}').value === '32'")
    teacher.watch.assert_clean()


def test_show_answers_on_the_instructors_screen_only(browser, live_server, contexts):
    teacher, k = _control(browser, live_server, contexts, card="ex-1-3")
    phone = _page(browser, contexts, 420, 900)
    phone.goto(k["follow_url"])
    phone.wait_for_function("() => document.querySelector('.live-status').textContent === '已连接'")
    assert teacher.locator("#live-stage >> text=先作答").count() > 0  # practice first: held back
    teacher.check(".live-answers-shown")
    teacher.wait_for_selector("#live-stage form.controls input[name=answers][value=shown]", state="attached")
    teacher.wait_for_function("() => !document.querySelector('#live-stage').textContent.includes('先作答')")
    phone.wait_for_timeout(800)
    assert phone.locator("#live-stage input[name=answers]").count() == 0
    assert phone.locator("#live-stage >> text=先作答").count() > 0  # the class still tries first
    status, state = call(k["follow_url"].replace("/live/", "/api/live/"), "GET", "")
    assert status == 200 and "answers" not in state["query"]
    teacher.uncheck(".live-answers-shown")
    teacher.wait_for_function("() => document.querySelector('#live-stage').textContent.includes('先作答')")
    for pg in (teacher, phone):
        pg.watch.assert_clean()
