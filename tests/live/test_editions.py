"""Issue 37: a live class's phones each choose their own language, the projector keeps its own. The
class carries its words in every edition; a page or an API answer (``lang=en``) gets its edition's,
with the same numbers."""

from __future__ import annotations

import json
import re

from .conftest import from_

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def ask(client, k, key="b_star", query="batch=16") -> int:
    r = client.post(
        f"/api/live/{k.code}/questions", json={"card": "eg-1-1", "key": key, "query": query}, headers=k.auth
    )
    assert r.status_code == 201, r.text
    return r.json()["qid"]


def test_the_class_state_speaks_the_language_asked_with_the_same_numbers(client, klass):
    ask(client, klass)
    zh = client.get(f"/api/live/{klass.code}").json()["question"]
    en = client.get(f"/api/live/{klass.code}?lang=en").json()["question"]
    assert CJK.search(zh["prompt"]) and CJK.search(zh["conditions"] if "conditions" in zh else zh["prompt"])
    for field in ("prompt", "prompt_html", "label"):
        assert not CJK.search(en[field]), (field, en[field])
    assert "16" in en["prompt"]  # the condition the question is asked under: batch = 16
    assert NUMBER.findall(en["prompt"]) == NUMBER.findall(zh["prompt"])
    # the numbers and keys are the same bytes in both editions; only words differ
    for field in ("qid", "card", "key", "query", "unit", "kind", "status"):
        assert en[field] == zh[field]
    # the event every phone receives carries both editions' words
    assert zh["words"]["en"]["prompt"] == en["prompt"] and zh["words"]["zh"]["prompt"] == zh["prompt"]


def test_a_phone_s_page_and_the_projector_s_page_each_in_their_own_language(client, klass):
    ask(client, klass)
    pages = {
        "zh": client.get(f"/live/{klass.code}").text,
        "en": client.get(f"/en/live/{klass.code}").text,
        "en-control": client.get(f"/en/live/{klass.code}/control").text,
    }

    def block(html: str, id_: str) -> dict:
        m = re.search(rf'<script type="application/json" id="{id_}">(.*?)</script>', html, re.S)
        assert m, id_
        return json.loads(m.group(1))

    assert block(pages["zh"], "live-words")["correct"] == "正确"
    for name in ("en", "en-control"):
        words = block(pages[name], "live-words")
        assert words["correct"] == "Correct" and words["follow"] == "Follow the teacher"
        assert not [w for w in words.values() if CJK.search(w)]
        state = block(pages[name], "live-data")["state"]
        assert not CJK.search(state["question"]["prompt"])
    assert CJK.search(block(pages["zh"], "live-data")["state"]["question"]["prompt"])
    assert "Explore freely" in pages["en"] and "自由探索" in pages["zh"]
    assert "Close answers" in pages["en-control"]


def test_a_phone_s_own_verdict_and_slip_in_its_language(client, klass):
    qid = ask(client, klass)
    p = klass.who(client, "ann")
    r = client.post(f"/api/live/{klass.code}/questions/{qid}/answers", json={"participant": p, "value": 1})
    assert r.status_code == 200, r.text
    for path in ("close", "reveal"):
        assert client.post(f"/api/live/{klass.code}/questions/{qid}/{path}", headers=klass.auth).status_code == 200
    base = f"/api/live/{klass.code}/questions/{qid}/results?participant={p}"
    zh, en = client.get(base).json(), client.get(base + "&lang=en").json()
    assert zh["mine"]["verdict"] == en["mine"]["verdict"] == "incorrect"
    assert zh["true_value"] == en["true_value"] and zh["shares"] == en["shares"]
    assert not CJK.search(en["label"]) and CJK.search(zh["label"])
    if en["mine"]["diagnosis_text"]:
        assert not CJK.search(en["mine"]["diagnosis_text"])


def test_the_ended_summary_in_each_language(client, klass):
    qid = ask(client, klass)
    p = klass.who(client, "cy")
    assert client.post(
        f"/api/live/{klass.code}/questions/{qid}/answers", json={"participant": p, "value": 148}
    ).is_success
    assert client.post(f"/api/live/{klass.code}/questions/{qid}/reveal", headers=klass.auth).status_code == 200
    ask(client, klass, "t_mem_ms", query="")  # asked at the defaults, never revealed
    assert client.delete(f"/api/live/{klass.code}", headers=klass.auth).status_code == 204
    zh = client.get(f"/live/{klass.code}/ended").text
    en = client.get(f"/en/live/{klass.code}/ended").text
    assert "课堂已结束" in zh and "Class ended" in en
    assert "真值 <strong>147.7 请求</strong>" in zh and "正确 100%" in zh and "未公布" in zh
    assert "true value <strong>147.7 requests</strong>" in en and "Correct 100%" in en and "not revealed" in en
    main = re.search(r'<section class="live-ended-box".*?</section>', en, re.S)
    assert main and not CJK.search(main.group(0)), main.group(0) if main else en


def test_a_snapshot_label_for_the_projector_in_its_language(client, klass):
    p = klass.who(client, "bo")
    r = client.post(f"/api/live/{klass.code}/share", json={"participant": p, "card": "eg-1-1", "query": "batch=16"})
    assert r.status_code == 201, r.text
    zh = client.get(f"/api/live/{klass.code}/snapshots", headers=klass.auth).json()["snapshots"][0]
    en = client.get(f"/api/live/{klass.code}/snapshots?lang=en", headers=klass.auth).json()["snapshots"][0]
    assert CJK.search(zh["label"]) and not CJK.search(en["label"])
    # the card's title in English after the book's printed label (例题 1-1 / 图 1-9…), as on the card pages
    assert not CJK.search(en["title"].split(" · ", 1)[1]) and CJK.search(zh["title"].split(" · ", 1)[1])
    assert NUMBER.findall(zh["label"]) == NUMBER.findall(en["label"])


def test_a_sweep_s_prediction_label_in_each_language(client, klass):
    body = {
        "card": "eg-1-1",
        "query": "",
        "vary": {"batch": [4, 8]},
        "predict": "throughput_tok_s",
        "x": "t_step_ms",
        "x_better": "lower",
        "y": "throughput_tok_s",
        "y_better": "higher",
    }
    r = client.post(f"/api/live/{klass.code}/sweeps", json=body, headers=klass.auth)
    assert r.status_code == 201, r.text
    zh = client.get(f"/api/live/{klass.code}").json()["sweep"]
    en = client.get(f"/api/live/{klass.code}?lang=en").json()["sweep"]
    assert CJK.search(zh["label"]) and not CJK.search(en["label"]), (zh["label"], en["label"])
    assert en["npoints"] == zh["npoints"] == 2 and zh["words"]["en"]["label"] == en["label"]


def test_an_english_projector_s_qr_opens_the_english_phone_page(client, klass):
    """The QR and follow link of a projector in English lead to /en/live/CODE (before: the Chinese page,
    whatever the projector's edition); the Chinese projector's stay at the root."""

    def data(html: str) -> dict:
        return json.loads(re.search(r'<script type="application/json" id="live-data">(.*?)</script>', html, re.S)[1])

    en = data(client.get(f"/en/live/{klass.code}/control").text)["follow_url"]
    zh = data(client.get(f"/live/{klass.code}/control").text)["follow_url"]
    assert (en, zh) == (f"http://testserver/en/live/{klass.code}", f"http://testserver/live/{klass.code}")
    for prefix, lang, url in (("/en", "en", en), ("", "zh", zh)):
        assert client.get(f"{prefix}/live/{klass.code}/qr.svg").content == _svg_of(url, lang), prefix
    made = client.post("/api/live?lang=en", json={"card": "eg-1-1"}, headers=from_("203.0.113.99"))
    assert made.status_code == 201 and made.json()["follow_url"].endswith(f"/en/live/{made.json()['code']}")
    assert made.json()["control_url"].split("#")[0].endswith("/control") and "/en/live/" in made.json()["control_url"]


def _svg_of(url: str, lang: str) -> bytes:
    """The QR the route draws for ``url`` in ``lang`` (the same segno call and title, so the bytes match)."""
    import io

    import segno
    from app.live.pages import W
    from app.words import localize, speaking

    buf = io.BytesIO()
    with speaking(lang):
        title = str(localize(W["qr_svg.title"]))
    segno.make(url, error="m").save(buf, kind="svg", scale=8, border=2, title=title)
    return buf.getvalue()
