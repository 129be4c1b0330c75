"""Bad input answers clearly: live JSON routes take only application/json (415), nicknames lose
the invisible characters that could spoof a name on the projector, and the event stream's OpenAPI
entry says what it sends."""

from __future__ import annotations

import pytest
from app.live.models import clean_nick

from .conftest import start_class


def _json_routes(client, k):
    qid = client.post(
        f"/api/live/{k.code}/questions", json={"card": "eg-1-1", "key": "b_star", "query": ""}, headers=k.auth
    ).json()["qid"]
    cred = k.who(client, "me")
    return [
        ("POST", "/api/live", '{"card": "eg-1-1"}', {}),
        ("POST", f"/api/live/{k.code}/join", "{}", {}),
        ("POST", f"/api/live/{k.code}/questions/{qid}/answers", f'{{"participant": "{cred}", "value": 1}}', {}),
        ("POST", f"/api/live/{k.code}/share", f'{{"participant": "{cred}", "card": "eg-1-1"}}', {}),
        ("PUT", f"/api/live/{k.code}/state", '{"card": "eg-1-1"}', k.auth),
        ("POST", f"/api/live/{k.code}/questions", '{"card": "eg-1-1", "key": "b_star"}', k.auth),
    ]


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None])
def test_live_json_routes_take_only_json(client, klass, ctype):
    """A form or text/plain post from another site (no preflight) cannot join or answer for a visitor."""
    for method, path, body, auth in _json_routes(client, klass):
        headers = {**auth, **({"Content-Type": ctype} if ctype else {})}
        r = client.request(method, path, content=body.encode(), headers=headers)
        assert r.status_code == 415, (path, ctype, r.text)
        assert r.json()["detail"][0]["field"] == "content-type"
        assert r.json()["detail"][0]["msg"] == "content-type:须为 application/json"
    assert client.get(f"/api/live/{klass.code}").json()["seq"] == 2  # only the question above changed anything


def test_json_with_a_charset_is_json(client, klass):
    r = client.post(
        f"/api/live/{klass.code}/join", content=b"{}", headers={"Content-Type": "Application/JSON; charset=utf-8"}
    )
    assert r.status_code == 200


@pytest.mark.parametrize(
    "raw, kept",
    [
        ("\u202eevil\u202c", "evil"),  # right-to-left override and pop
        ("小\u200b明", "小明"),  # zero-width space
        ("a\u200cb\u200dc\u2060d\ufeff", "abcd"),  # zero-width (non-)joiner, word joiner, BOM
        ("\u2066名字\u2069", "名字"),  # isolates
        ("\u200e\u200fab\u061c", "ab"),  # marks
        ("  小   红  ", "小 红"),
        ("\u200b\u202e", None),  # nothing visible: anonymous
        ("e\u0301", "é"),  # NFC
    ],
)
def test_invisible_characters_leave_nicknames(raw, kept):
    assert clean_nick(raw) == kept


def test_nicknames_as_stored_and_shown(client, klass):
    qid = client.post(
        f"/api/live/{klass.code}/questions", json={"card": "eg-1-1", "key": "b_star", "query": ""}, headers=klass.auth
    ).json()["qid"]
    body = {"participant": klass.who(client, "me"), "value": 148, "nick": "\u202e小明\u200b"}
    assert client.post(f"/api/live/{klass.code}/questions/{qid}/answers", json=body).status_code == 200
    answers = client.get(f"/api/live/{klass.code}/questions/{qid}/results", headers=klass.auth).json()["answers"]
    assert answers[0]["nick"] == "小明"
    assert client.post(f"/api/live/{klass.code}/join", json={"nick": "a\nb"}).status_code == 422


def test_the_event_stream_is_documented_as_text_event_stream_with_its_events(client):
    op = client.get("/openapi.json").json()["paths"]["/api/live/{code}/events"]["get"]
    ok = op["responses"]["200"]
    assert list(ok["content"]) == ["text/event-stream"]
    events = ok["content"]["text/event-stream"]["x-events"]
    assert set(events) == {"message", "ended", "replaced", "status"}  # replaced: issue 39, streams per credential
    assert {"seq", "card", "query", "question"} <= set(events["message"]["properties"])
    assert events["message"]["properties"]["question"]["properties"]["status"]["enum"] == ["open", "closed", "revealed"]
    for word in ("message", "ended", "status", "Last-Event-ID"):
        assert word in ok["description"] + op["summary"], word
    assert {p["name"] for p in op["parameters"]} >= {"code", "participant"}


def test_question_numbers_are_documented_as_integers(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/live/{code}/questions/{qid}/answers", "/api/live/{code}/questions/{qid}/results"):
        op = next(iter(paths[path].values()))
        qid = next(p for p in op["parameters"] if p["name"] == "qid")
        assert qid["schema"]["type"] == "integer" and qid["schema"]["maximum"] == 200, path


def test_a_token_in_a_query_string_is_not_a_token(client):
    k = start_class(client)
    r = client.post(f"/api/live/{k.code}/lock?token={k.token}")
    assert r.status_code == 401
