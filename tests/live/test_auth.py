"""A follower can never steer the class: every instructor endpoint answers 401 without the token
and 403 with a wrong one (one test per endpoint), and changes nothing. Individual answers and
snapshots are the instructor's alone."""

from __future__ import annotations

import pytest

from .conftest import start_class

WRONG = {"Authorization": "Bearer not-the-token-aaaaaaaaaaaaaaaa"}


@pytest.fixture
def setup(client, klass):
    r = client.post(
        f"/api/live/{klass.code}/questions", json={"card": "eg-1-1", "key": "b_star", "query": ""}, headers=klass.auth
    )
    qid = r.json()["qid"]
    me = klass.who(client, "小红")
    client.post(
        f"/api/live/{klass.code}/questions/{qid}/answers", json={"participant": me, "value": 148, "nick": "小红"}
    )
    client.post(f"/api/live/{klass.code}/share", json={"participant": me, "card": "eg-1-1", "query": "batch=8"})
    return klass, qid, client.get(f"/api/live/{klass.code}").json()


def _refused(client, method, url, klass, before, body=None):
    for headers, status in (({}, 401), (WRONG, 403), ({"Authorization": "Basic abc"}, 401)):
        r = client.request(method, url, json=body, headers=headers)
        assert r.status_code == status, (url, headers, r.text)
        assert r.json()["detail"][0]["field"] == "authorization"
        if status == 401:
            assert r.headers["www-authenticate"] == "Bearer"
    after = client.get(f"/api/live/{klass.code}").json()
    assert after == before, "a refused request changed the class"


def test_put_state_needs_the_token(client, setup):
    k, qid, before = setup
    _refused(client, "PUT", f"/api/live/{k.code}/state", k, before, {"card": "fig-1-10", "query": ""})


def test_lock_needs_the_token(client, setup):
    k, qid, before = setup
    _refused(client, "POST", f"/api/live/{k.code}/lock", k, before)


def test_unlock_needs_the_token(client, setup):
    k, qid, before = setup
    client.post(f"/api/live/{k.code}/lock", headers=k.auth)
    before = client.get(f"/api/live/{k.code}").json()
    _refused(client, "POST", f"/api/live/{k.code}/unlock", k, before)


def test_ask_needs_the_token(client, setup):
    k, qid, before = setup
    _refused(
        client, "POST", f"/api/live/{k.code}/questions", k, before, {"card": "eg-1-1", "key": "t_mem_ms", "query": ""}
    )


def test_close_needs_the_token(client, setup):
    k, qid, before = setup
    _refused(client, "POST", f"/api/live/{k.code}/questions/{qid}/close", k, before)


def test_reveal_needs_the_token(client, setup):
    k, qid, before = setup
    _refused(client, "POST", f"/api/live/{k.code}/questions/{qid}/reveal", k, before)


def test_end_needs_the_token(client, setup):
    k, qid, before = setup
    _refused(client, "DELETE", f"/api/live/{k.code}", k, before)


def test_results_csv_needs_the_token(client, setup):
    k, qid, before = setup
    _refused(client, "GET", f"/api/live/{k.code}/results.csv", k, before)


def test_snapshot_list_needs_the_token(client, setup):
    k, qid, before = setup
    _refused(client, "GET", f"/api/live/{k.code}/snapshots", k, before)


def test_individual_answers_need_the_token(client, setup):
    k, qid, before = setup
    url = f"/api/live/{k.code}/questions/{qid}/results"
    assert "answers" not in client.get(url).json()
    assert client.get(url + "?full=1").status_code == 403
    assert client.get(url, headers=WRONG).status_code == 403
    client.post(f"/api/live/{k.code}/questions/{qid}/reveal", headers=k.auth)
    public = client.get(url).json()
    assert "answers" not in public and "小红" not in str(public)
    assert client.get(url, headers=k.auth).json()["answers"][0]["nick"] == "小红"


def test_a_token_opens_only_its_own_class(client, setup):
    k, qid, before = setup
    other = start_class(client)
    r = client.put(f"/api/live/{k.code}/state", json={"card": "fig-1-10", "query": ""}, headers=other.auth)
    assert r.status_code == 403
    assert client.get(f"/api/live/{k.code}").json() == before
