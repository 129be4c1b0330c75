"""Classes end: 下课 (DELETE with the token → 204) ends the class for everyone; followers get 课堂已结束
and a summary; the class then answers 410 and its slot is free; the instructor's CSV holds every
question, its true value and every answer (anonymous unless nicknamed)."""

from __future__ import annotations

import csv
import io

from app.live import limits

from .conftest import start_class


def _ask(client, k, key="b_star", card="eg-1-1", query=""):
    r = client.post(f"/api/live/{k.code}/questions", json={"card": card, "key": key, "query": query}, headers=k.auth)
    assert r.status_code == 201
    return r.json()["qid"]


def _answer(client, k, qid, who, value, nick=None):
    body = {"participant": k.who(client, who), "value": value, **({"nick": nick} if nick else {})}
    r = client.post(f"/api/live/{k.code}/questions/{qid}/answers", json=body)
    assert r.status_code == 200, r.text
    return r


def test_end_is_204_and_then_every_route_is_410(client, klass):
    qid = _ask(client, klass)
    cred = klass.who(client, "me")
    r = client.delete(f"/api/live/{klass.code}", headers=klass.auth)
    assert r.status_code == 204 and r.content == b""
    gone = [
        ("GET", f"/api/live/{klass.code}", None),
        ("DELETE", f"/api/live/{klass.code}", None),
        ("POST", f"/api/live/{klass.code}/join", {}),
        ("POST", f"/api/live/{klass.code}/questions/{qid}/answers", {"participant": cred, "value": 1}),
        ("PUT", f"/api/live/{klass.code}/state", {"card": "eg-1-1"}),
        ("POST", f"/api/live/{klass.code}/lock", None),
        ("POST", f"/api/live/{klass.code}/questions", {"card": "eg-1-1", "key": "b_star"}),
        ("GET", f"/api/live/{klass.code}/questions/{qid}/results", None),
        ("POST", f"/api/live/{klass.code}/share", {"participant": cred, "card": "eg-1-1"}),
        ("GET", f"/api/live/{klass.code}/events?participant={cred}", None),
    ]
    for method, path, body in gone:
        r = client.request(method, path, json=body, headers=klass.auth)
        assert r.status_code == 410, (method, path, r.text)
        assert r.json()["detail"][0]["type"] == "ended"


def test_the_ended_page_shows_the_summary(client, klass):
    q1 = _ask(client, klass)
    for who, v in (("a", 148), ("b", 147.9), ("c", 30)):
        _answer(client, klass, q1, who, v)
    client.post(f"/api/live/{klass.code}/questions/{q1}/reveal", headers=klass.auth)
    q2 = _ask(client, klass, "t_mem_ms")
    _answer(client, klass, q2, "a", 20)
    client.delete(f"/api/live/{klass.code}", headers=klass.auth)
    r = client.get(f"/live/{klass.code}")
    assert r.status_code == 410 and r.headers["cache-control"] == "no-store"
    text = r.text
    assert "课堂已结束" in text and "共 2 题" in text and "3 人作答" in text
    assert "真值 <strong>147.7 请求</strong>" in text and "正确 67%" in text
    second = text[text.rindex("<li>") : text.rindex("</li>")]  # the last question's item (not the page's words)
    assert "未公布" in second and "真值" not in second  # the unrevealed question's value stays unsaid
    control = client.get(f"/live/{klass.code}/control")
    assert control.status_code == 410 and 'class="live-csv"' in control.text and klass.token not in control.text


def test_ending_frees_the_slot_and_does_not_count_as_open(client, store):
    k = start_class(client)
    client.delete(f"/api/live/{k.code}", headers=k.auth)
    db = store._conn(create=False)
    open_ = db.execute("SELECT COUNT(*) FROM sessions WHERE ended IS NULL").fetchone()[0]
    assert open_ == 0
    for _ in range(limits.MAX_SESSIONS):
        start_class(client)  # the ended class takes none of the 200


def test_results_csv(client, klass):
    q1 = _ask(client, klass, query="batch=8")
    _answer(client, klass, q1, "a", 148, nick="小明")
    _answer(client, klass, q1, "b", 152)  # 3 % off: 接近
    _answer(client, klass, q1, "c", 1, nick='=HYPERLINK("x")')
    q2 = _ask(client, klass, "one_h100_bf16_fits", card="ex-1-2")
    r = client.get(f"/api/live/{klass.code}/results.csv", headers=klass.auth)
    assert r.status_code == 200 and r.headers["content-type"] == "text/csv; charset=utf-8"
    assert r.headers["content-disposition"] == f'attachment; filename="live-{klass.code}-results.csv"'
    assert r.headers["cache-control"] == "no-store"
    assert r.content.startswith("\ufeff".encode())  # spreadsheet programs read UTF-8
    rows = list(csv.DictReader(io.StringIO(r.content.decode("utf-8-sig"))))
    first = [x for x in rows if x["题号"] == str(q1)]
    assert len(first) == 3 and {x["作答人数"] for x in first} == {"3"}
    assert first[0]["条件"] == "批大小 B = 8 请求" and first[0]["查询串"] == "batch=8" and first[0]["单位"] == "请求"
    assert abs(float(first[0]["真值"]) - 147.67) < 0.01
    assert [x["昵称"] for x in first] == ["小明", "匿名", '\'=HYPERLINK("x")']  # no formula from a nickname
    assert [x["判定"] for x in first] == ["正确", "接近", "不对"]
    second = [x for x in rows if x["题号"] == str(q2)]
    assert len(second) == 1 and second[0]["真值"] == "否" and second[0]["答案"] == "" and second[0]["作答人数"] == "0"
    assert klass.who(client, "a").split(".")[3] not in r.text  # no participant id
    # after 下课 it is still there for the instructor, and only for them
    client.delete(f"/api/live/{klass.code}", headers=klass.auth)
    assert client.get(f"/api/live/{klass.code}/results.csv", headers=klass.auth).text == r.text
    assert client.get(f"/api/live/{klass.code}/results.csv").status_code == 401
