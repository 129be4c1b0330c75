"""The live-class contract (issue 16), driven through the app in-process on a fresh SQLite file."""

from __future__ import annotations

import re

from app.live.ids import ALPHABET, CODE_LEN

from .conftest import start_class

STATE_KEYS = {"code", "card", "query", "seq", "locked", "followers", "question"}


def test_create_returns_code_token_and_links(client):
    r = client.post("/api/live", json={"card": "eg-1-1", "query": "batch=4"})
    assert r.status_code == 201
    body = r.json()
    assert set(body) == {"code", "token", "follow_url", "control_url"}
    assert re.fullmatch(f"[{ALPHABET}]{{{CODE_LEN}}}", body["code"])
    assert not set("0O1IL") & set(ALPHABET)
    assert len(body["token"]) >= 22  # token_urlsafe: ≥ 16 bytes = 128 bits
    assert body["follow_url"] == f"http://testserver/live/{body['code']}"
    assert body["control_url"] == f"http://testserver/live/{body['code']}/control#t={body['token']}"
    assert r.headers["cache-control"] == "no-store"


def test_create_with_an_empty_object_starts_on_the_first_card(client):
    from app.chapters import reading_order

    r = client.post("/api/live", json={})
    assert r.status_code == 201
    assert client.get(f"/api/live/{r.json()['code']}").json()["card"] == reading_order()[0]


def test_codes_are_unique_among_live_sessions(client):
    codes = {start_class(client).code for _ in range(40)}
    assert len(codes) == 40


def test_state_has_the_contract_keys(client):
    k = start_class(client, "eg-1-1", "batch=4")
    st = client.get(f"/api/live/{k.code}").json()
    assert STATE_KEYS <= set(st)
    assert (st["card"], st["query"], st["seq"], st["locked"], st["question"], st["followers"]) == (
        "eg-1-1",
        "batch=4",
        1,
        False,
        None,
        0,
    )


def test_codes_are_case_insensitive_and_unknown_codes_404(client, klass):
    assert client.get(f"/api/live/{klass.code.lower()}").json()["code"] == klass.code
    r = client.get("/api/live/ZZZZZZ")
    assert r.status_code == 404 and "ZZZZZZ" in r.json()["detail"][0]["msg"]
    assert client.get("/api/live/not-a-code").status_code == 404


def test_put_state_bumps_seq_and_changes_state(client, klass):
    r = client.put(f"/api/live/{klass.code}/state", json={"card": "eg-1-1", "query": "batch=16"}, headers=klass.auth)
    assert r.status_code == 200 and r.json() == {"seq": 2}
    r = client.put(f"/api/live/{klass.code}/state", json={"card": "fig-1-10", "query": ""}, headers=klass.auth)
    assert r.json() == {"seq": 3}
    st = client.get(f"/api/live/{klass.code}").json()
    assert (st["card"], st["query"], st["seq"]) == ("fig-1-10", "", 3)


def test_put_state_resolves_aliases_to_the_card_id(client, klass):
    client.put(f"/api/live/{klass.code}/state", json={"card": "fig-1-11", "query": "batch=8"}, headers=klass.auth)
    assert client.get(f"/api/live/{klass.code}").json()["card"] == "eg-1-1"


def test_put_state_rejects_unknown_card_and_bad_query_with_the_card_routes_messages(client, klass):
    r = client.put(f"/api/live/{klass.code}/state", json={"card": "no-such-card", "query": ""}, headers=klass.auth)
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "card"
    r = client.put(f"/api/live/{klass.code}/state", json={"card": "eg-1-1", "query": "batch=9999"}, headers=klass.auth)
    assert r.status_code == 422
    card_route = client.get("/api/cards/eg-1-1?batch=9999")
    assert card_route.status_code == 422
    assert r.json()["detail"] == card_route.json()["detail"]
    assert "batch" in r.json()["detail"][0]["msg"] and "512" in r.json()["detail"][0]["msg"]
    assert client.get(f"/api/live/{klass.code}").json()["seq"] == 1  # nothing changed


def test_malformed_bodies_are_field_named_422(client, klass):
    r = client.put(
        f"/api/live/{klass.code}/state",
        content=b"{not json",
        headers={**klass.auth, "Content-Type": "application/json"},
    )
    assert r.status_code == 422
    r = client.put(f"/api/live/{klass.code}/state", json={"query": "batch=2"}, headers=klass.auth)
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "card"
    r = client.put(f"/api/live/{klass.code}/state", json={"card": "eg-1-1", "extra": 1}, headers=klass.auth)
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "extra"


def test_lock_and_unlock(client, klass):
    r = client.post(f"/api/live/{klass.code}/lock", headers=klass.auth)
    assert r.json() == {"seq": 2, "locked": True}
    assert client.get(f"/api/live/{klass.code}").json()["locked"] is True
    r = client.post(f"/api/live/{klass.code}/unlock", headers=klass.auth)
    assert r.json() == {"seq": 3, "locked": False}


def ask(client, k, key="b_star", card="eg-1-1", query=""):
    r = client.post(f"/api/live/{k.code}/questions", json={"card": card, "key": key, "query": query}, headers=k.auth)
    assert r.status_code == 201, r.text
    return r.json()["qid"]


def answer(client, k, qid, who, value, unit=None, **extra):
    """``who`` names a student: they join once (getting their participant credential) and answer with it."""
    body = {"participant": k.who(client, who), "value": value, **({"unit": unit} if unit else {}), **extra}
    return client.post(f"/api/live/{k.code}/questions/{qid}/answers", json=body)


def test_ask_a_tile_question_and_it_becomes_the_current_question(client, klass):
    qid = ask(client, klass, "b_star", query="batch=16")
    assert qid == 1
    q = client.get(f"/api/live/{klass.code}").json()["question"]
    assert (q["qid"], q["key"], q["status"], q["unit"], q["kind"]) == (1, "b_star", "open", "请求", "numeric")
    assert "B*" in q["prompt"]
    assert "expected" not in q and "true_value" not in q  # followers never see the answer


def test_ask_an_exercise_question_with_unit_alternatives(client, klass):
    from app.cards import REGISTRY

    view = REGISTRY["ex-1-3"].compute(REGISTRY["ex-1-3"].defaults())
    q = next(q for q in view.questions if q.kind == "numeric")
    qid = ask(client, klass, q.key, card="ex-1-3")
    pub = client.get(f"/api/live/{klass.code}").json()["question"]
    assert pub["key"] == q.key and pub["unit"] == q.unit
    assert answer(client, klass, qid, "student-0001", view.outputs[q.key]).json() == {"accepted": True}
    res = client.get(f"/api/live/{klass.code}/questions/{qid}/results", headers=klass.auth).json()
    assert res["verdicts"]["correct"] == 1 and res["true_value"] == view.outputs[q.key]


def test_ask_rejects_a_key_the_card_cannot_ask(client, klass):
    r = client.post(
        f"/api/live/{klass.code}/questions", json={"card": "eg-1-1", "key": "nope", "query": ""}, headers=klass.auth
    )
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "key" and "b_star" in r.json()["detail"][0]["msg"]
    r = client.post(
        f"/api/live/{klass.code}/questions", json={"card": "eg-1-1", "key": "bound", "query": ""}, headers=klass.auth
    )
    assert r.status_code == 422  # a text tile (主导项) is not a number to predict
    r = client.post(
        f"/api/live/{klass.code}/questions",
        json={"card": "eg-1-1", "key": "b_star", "query": "batch=0"},
        headers=klass.auth,
    )
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "batch"


def test_one_answer_per_participant_the_latest_replaces(client, klass):
    qid = ask(client, klass)
    truth = client.get(f"/api/live/{klass.code}/questions/{qid}/results", headers=klass.auth).json()["true_value"]
    assert answer(client, klass, qid, "student-0001", truth * 3).json() == {"accepted": True}
    assert answer(client, klass, qid, "student-0001", truth).json() == {"accepted": True}
    assert answer(client, klass, qid, "student-0002", truth * 1.03).status_code == 200
    res = client.get(f"/api/live/{klass.code}/questions/{qid}/results", headers=klass.auth).json()
    assert res["answered"] == 2
    assert res["verdicts"] == {"correct": 1, "close": 1, "incorrect": 0}
    assert res["shares"] == {"correct": 0.5, "close": 0.5, "incorrect": 0.0}


def test_closed_questions_refuse_answers_with_409(client, klass):
    qid = ask(client, klass)
    assert answer(client, klass, qid, "student-0001", 100).status_code == 200
    r = client.post(f"/api/live/{klass.code}/questions/{qid}/close", headers=klass.auth)
    assert r.status_code == 200 and r.json()["status"] == "closed"
    r = answer(client, klass, qid, "student-0001", 148)
    assert r.status_code == 409 and "收卷" in r.json()["detail"][0]["msg"]
    res = client.get(f"/api/live/{klass.code}/questions/{qid}/results", headers=klass.auth).json()
    assert res["answers"][0]["value"] == 100  # the accepted answer stays as it was


def test_asking_again_closes_the_open_question(client, klass):
    q1 = ask(client, klass, "b_star")
    q2 = ask(client, klass, "t_mem_ms")
    assert q2 == q1 + 1
    assert answer(client, klass, q1, "student-0001", 1).status_code == 409
    assert answer(client, klass, q2, "student-0001", 20.9).status_code == 200


def test_results_hidden_until_reveal(client, klass):
    qid = ask(client, klass)
    for i, v in enumerate([148, 150, 300, 20]):
        assert answer(client, klass, qid, f"student-{i:04d}", v).status_code == 200
    url = f"/api/live/{klass.code}/questions/{qid}/results"
    public = client.get(url)
    assert public.status_code == 200 and public.json() == {"qid": qid, "status": "open", "answered": 4}
    assert client.get(url + "?full=true").status_code == 403
    teacher = client.get(url, headers=klass.auth).json()
    assert teacher["answered"] == 4 and "histogram" in teacher and "answers" in teacher
    client.post(f"/api/live/{klass.code}/questions/{qid}/reveal", headers=klass.auth)
    after = client.get(url).json()
    assert after["status"] == "revealed"
    assert {"histogram", "true_value", "shares", "verdicts"} <= set(after)
    assert "answers" not in after  # individual answers: instructor only
    assert sum(after["histogram"]["counts"]) + after["histogram"]["below"] + after["histogram"]["above"] == 4


def test_revealed_results_values(client, klass):
    from app.cards import REGISTRY

    view = REGISTRY["eg-1-1"].compute(REGISTRY["eg-1-1"].defaults())
    truth = view.outputs["b_star"]
    qid = ask(client, klass, "b_star")
    for i, v in enumerate([truth, truth * 1.005, truth * 1.04, truth * 2, truth * 10]):
        answer(client, klass, qid, f"student-{i:04d}", v)
    client.post(f"/api/live/{klass.code}/questions/{qid}/reveal", headers=klass.auth)
    res = client.get(f"/api/live/{klass.code}/questions/{qid}/results").json()
    assert res["true_value"] == truth
    assert res["verdicts"] == {"correct": 2, "close": 1, "incorrect": 2}  # the grading rule: ×2 is 不对
    assert res["axis"] == {"figure": 0, "axis": "x", "log": True, "title": res["axis"]["title"]}
    h = res["histogram"]
    # the answers span one decade (×1 … ×10): linear bins, whatever the card's axis is
    assert h["log"] is False and h["edges"][0] <= truth <= h["edges"][-1]
    assert sum(h["counts"]) == 5 and h["below"] == h["above"] == 0


def test_answer_with_an_alternative_unit_is_converted(client, klass):
    from app.cards import REGISTRY

    card = next(
        c
        for c in REGISTRY.values()
        if c.kind == "exercise" and any(q.units for q in c.compute(c.defaults()).questions if q.kind == "numeric")
    )
    view = card.compute(card.defaults())
    q = next(q for q in view.questions if q.units)
    alt, factor = next(iter(q.units.items()))
    qid = ask(client, klass, q.key, card=card.id)
    assert answer(client, klass, qid, "student-0001", view.outputs[q.key] / factor, alt).status_code == 200
    r = answer(client, klass, qid, "student-0002", 1, "furlongs")
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "unit"
    res = client.get(f"/api/live/{klass.code}/questions/{qid}/results", headers=klass.auth).json()
    assert res["verdicts"]["correct"] == 1


def test_answer_values_are_validated(client, klass):
    qid = ask(client, klass)
    assert answer(client, klass, qid, "student-0001", "lots").status_code == 422
    assert answer(client, klass, qid, "student-0001", True).status_code == 422
    assert (
        client.post(
            f"/api/live/{klass.code}/questions/99/answers",
            json={"participant": klass.who(client, "student-0001"), "value": 1},
        ).status_code
        == 404
    )


def test_snapshots_shared_by_followers_listed_for_the_instructor(client, klass):
    me = klass.who(client, "student-0001")
    r = client.post(
        f"/api/live/{klass.code}/share",
        json={"participant": me, "nick": "<b>小明</b>", "card": "eg-1-1", "query": "batch=64"},
    )
    assert r.status_code == 201 and r.json()["sid"] >= 1
    snaps = client.get(f"/api/live/{klass.code}/snapshots", headers=klass.auth).json()["snapshots"]
    assert [(s["nick"], s["card"], s["query"]) for s in snaps] == [("<b>小明</b>", "eg-1-1", "batch=64")]
    assert snaps[0]["label"] == "批大小 B = 64 请求"  # the parameter's own label and value, whole
    assert "participant" not in snaps[0] and me.split(".")[3] not in str(snaps)  # no personal data beyond the nickname
    bad = client.post(
        f"/api/live/{klass.code}/share",
        json={"participant": klass.who(client, "student-0002"), "card": "eg-1-1", "query": "batch=-1"},
    )
    assert bad.status_code == 422


def test_join_hands_out_a_participant_and_a_rejoin_keeps_it(client, klass):
    url = f"/api/live/{klass.code}/join"
    first = client.post(url, json={})
    assert first.status_code == 200 and first.headers["cache-control"] == "no-store"
    cred = first.json()["participant"]
    assert cred.startswith(f"p1.{klass.code}.") and first.json()["state"]["code"] == klass.code
    again = client.post(url, json={"participant": cred, "nick": "小红"})
    assert again.json()["participant"] == cred  # the same phone, the same participant
    other = client.post(url, json={}).json()["participant"]
    assert other != cred
    # joining counts nobody: only a connected event stream makes a follower (tests/live/test_sse.py)
    assert first.json()["followers"] == again.json()["followers"] == 0
    assert client.get(f"/api/live/{klass.code}").json()["followers"] == 0


def test_a_forged_or_foreign_credential_at_join_is_replaced(client, klass):
    url = f"/api/live/{klass.code}/join"
    cred = client.post(url, json={}).json()["participant"]
    forged = cred[:-4] + ("AAAA" if not cred.endswith("AAAA") else "BBBB")
    other = start_class(client)
    foreign = client.post(f"/api/live/{other.code}/join", json={}).json()["participant"]
    for bad in (forged, foreign, "p1.x.y.z.w", "garbage"):
        got = client.post(url, json={"participant": bad}).json()["participant"]
        assert got not in (bad, cred) and got.startswith(f"p1.{klass.code}.")


def test_askable_lists_exercises_and_tiles(client):
    r = client.get("/api/live/askable/eg-1-1?batch=16").json()
    keys = {a["key"]: a for a in r["askable"]}
    assert keys["b_star"]["source"] == "tile" and keys["b_star"]["on_axis"] is True
    assert "bound" not in keys
    ex = client.get("/api/live/askable/ex-1-3").json()["askable"]
    assert ex and all(a["source"] == "exercise" for a in ex)
    assert client.get("/api/live/askable/eg-1-1?batch=x").status_code == 422


def test_resolve_printed_labels(client):
    assert client.get("/api/live/resolve", params={"q": "图 1-11"}).json() == {"card": "eg-1-1"}
    assert client.get("/api/live/resolve", params={"q": "练习 1-3"}).json() == {"card": "ex-1-3"}
    assert client.get("/api/live/resolve", params={"q": "zzzz-nothing"}).status_code == 404


def test_state_survives_a_new_store_on_the_same_file(client, klass, store):
    """A restarted server (a fresh store on the same SQLite file) resumes at the current state."""
    from app.live.sqlite_store import SQLiteStore

    live = client.app.state.live
    client.put(f"/api/live/{klass.code}/state", json={"card": "fig-1-10", "query": ""}, headers=klass.auth)
    live.store = SQLiteStore(store.path, live.hub.deliver)
    st = client.get(f"/api/live/{klass.code}").json()
    assert (st["card"], st["seq"]) == ("fig-1-10", 2)
    assert live.store is not store


def test_yes_no_and_choice_questions(client, klass):
    qid = ask(client, klass, "one_h100_bf16_fits", card="ex-1-2")  # the book: 放不下 (False)
    pub = client.get(f"/api/live/{klass.code}").json()["question"]
    assert pub["kind"] == "bool" and pub["options"] == {"true": "放得下", "false": "放不下"}
    assert answer(client, klass, qid, "student-0001", False).status_code == 200
    assert answer(client, klass, qid, "student-0002", "true").status_code == 200
    assert answer(client, klass, qid, "student-0003", True).status_code == 200
    assert answer(client, klass, qid, "student-0004", "maybe").status_code == 422
    res = client.get(f"/api/live/{klass.code}/questions/{qid}/results", headers=klass.auth).json()
    assert res["options"] == {"true": 2, "false": 1} and res["verdicts"]["correct"] == 1
    assert res["true_value"] is False and "histogram" not in res
    qid = ask(client, klass, "bound_b64_half", card="ex-1-3")
    assert answer(client, klass, qid, "student-0001", "compute").status_code == 200
    r = answer(client, klass, qid, "student-0002", "network")
    assert r.status_code == 422 and "memory" in r.json()["detail"][0]["msg"]
    res = client.get(f"/api/live/{klass.code}/questions/{qid}/results", headers=klass.auth).json()
    assert res["options"] == {"memory": 0, "compute": 1} and res["verdicts"]["correct"] == 1


def test_animation_frame_travels_with_the_state(client, klass):
    r = client.put(
        f"/api/live/{klass.code}/state", json={"card": "fig-1-10", "query": "", "frame": "5"}, headers=klass.auth
    )
    assert r.status_code == 200
    assert client.get(f"/api/live/{klass.code}").json()["frame"] == "5"
    client.put(f"/api/live/{klass.code}/state", json={"card": "fig-1-10", "query": ""}, headers=klass.auth)
    assert client.get(f"/api/live/{klass.code}").json()["frame"] is None
    r = client.put(f"/api/live/{klass.code}/state", json={"card": "fig-1-10", "frame": "<script>"}, headers=klass.auth)
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "frame"


def test_a_session_purged_mid_request_is_410_not_a_crash(client, store, monkeypatch):
    """The lookup found the class, then it went (idle purge) before the change: 410 on ``code``."""
    real_get = store.get

    async def get_then_purge(code):
        s = await real_get(code)
        store._conn(create=True).execute("DELETE FROM sessions WHERE code=?", (code,))
        return s

    monkeypatch.setattr(store, "get", get_then_purge)
    for method, path, body in (
        ("POST", "lock", None),
        ("PUT", "state", {"card": "eg-1-1", "query": ""}),
        ("POST", "questions", {"card": "eg-1-1", "query": "", "key": "b_star"}),
    ):
        k = start_class(client)
        r = client.request(method, f"/api/live/{k.code}/{path}", json=body, headers=k.auth)
        assert r.status_code == 410, (path, r.text)
        assert r.json()["detail"][0]["field"] == "code" and r.json()["detail"][0]["type"] == "ended"


def test_live_answers_follow_the_pages_rule_and_name_the_slip(client, klass):
    """One rule for page, API and live class: the same answers get the same verdict and the same named
    slip as the card's own check; the revealed results count each slip ("forgot ×B": 47.9 for 383)."""
    from app.cards import REGISTRY

    card = REGISTRY["ex-1-3"]
    view = card.compute(card.defaults())
    q = next(q for q in view.questions if q.kind == "numeric")
    truth = float(view.outputs[q.key])
    values = [truth, truth * 1.004, truth * 1.03, truth * 2, truth / 1000, truth * 7]
    qid = ask(client, klass, q.key, card=card.id)
    page = client.post(f"/api/cards/{card.id}/check", json={"params": {}, "answers": {q.key: values[0]}}).json()
    assert page["results"][q.key]["verdict"] == "correct"
    for i, v in enumerate(values):
        assert answer(client, klass, qid, f"rule-{i}", v).status_code == 200
    client.post(f"/api/live/{klass.code}/questions/{qid}/reveal", headers=klass.auth)
    res = client.get(f"/api/live/{klass.code}/questions/{qid}/results?full=1", headers=klass.auth).json()
    live = {a["nick"] or i: a for i, a in enumerate(res["answers"])}
    for i, v in enumerate(values):
        mine = client.post(f"/api/cards/{card.id}/check", json={"params": {}, "answers": {q.key: v}}).json()["results"][
            q.key
        ]
        assert (live[i]["verdict"], live[i]["diagnosis"]) == (mine["verdict"], mine.get("diagnosis")), v

    qid = ask(client, klass, "throughput_tok_s", query="batch=8")
    truth = REGISTRY["eg-1-1"].compute(REGISTRY["eg-1-1"].parse({"batch": 8})).outputs["throughput_tok_s"]
    for i in range(3):
        answer(client, klass, qid, f"slip-{i}", truth / 8)  # the throughput of one request: ×B forgotten
    answer(client, klass, qid, "right", truth)
    client.post(f"/api/live/{klass.code}/questions/{qid}/reveal", headers=klass.auth)
    res = client.get(f"/api/live/{klass.code}/questions/{qid}/results").json()
    assert res["verdicts"] == {"correct": 1, "close": 0, "incorrect": 3}
    top = res["diagnoses"][0]
    assert top["count"] == 3 and "B" in top["id"] and top["text"]
