"""One phone, one vote: the participant credential join hands out is server-signed, bound to its
class, stateless (valid on any worker, instance or restart sharing the key), and every answer,
prediction and share needs it; one counted answer per participant per question."""

from __future__ import annotations

import pytest
from app.live.credentials import Keys
from app.live.hub import Hub
from app.live.sqlite_store import SQLiteStore
from fastapi.testclient import TestClient
from pydantic import SecretStr

from tests.aio import run_async

from .conftest import PROXY, start_class


def _ask(client, k, key="b_star"):
    r = client.post(f"/api/live/{k.code}/questions", json={"card": "eg-1-1", "key": key, "query": ""}, headers=k.auth)
    assert r.status_code == 201
    return r.json()["qid"]


def _answer(client, k, qid, cred, value=148, **extra):
    body = {"value": value, **({"participant": cred} if cred is not None else {}), **extra}
    return client.post(f"/api/live/{k.code}/questions/{qid}/answers", json=body)


def _counted(client, k, qid):
    return client.get(f"/api/live/{k.code}/questions/{qid}/results", headers=k.auth).json()["answered"]


def test_the_credential_names_its_class_and_a_random_participant():
    keys = Keys(b"k" * 32)
    cred, p = keys.issue("ABCDEF", "0badf00d")
    assert cred.split(".")[:3] == ["p1", "ABCDEF", "0badf00d"] and len(cred) < 70
    assert keys.open(cred) == p and p.code == "ABCDEF" and len(p.pid) == 16
    assert keys.issue("ABCDEF", "0badf00d")[1].pid != p.pid
    assert Keys(b"other key" * 4).open(cred) is None  # another deployment's key: not ours


@pytest.mark.parametrize(
    "tamper",
    [
        lambda c: c[:-1] + ("A" if c[-1] != "A" else "B"),  # the MAC
        lambda c: c.replace(c.split(".")[3], "A" * 16),  # another participant id
        lambda c: c.replace(c.split(".")[2], "00000000"),  # another class epoch
        lambda c: c.replace(c.split(".")[1], "ZZZZZZ"),  # another class code
        lambda c: c.rsplit(".", 1)[0],  # truncated
        lambda c: "p2" + c[2:],  # another version
        lambda c: c + ".x",
        lambda c: "",
    ],
)
def test_any_change_to_a_credential_is_refused(tamper):
    keys = Keys(b"s" * 32)
    cred, _ = keys.issue("ABCDEF", "0badf00d")
    assert keys.open(tamper(cred)) is None


def test_answers_without_with_forged_or_with_another_classes_credential_are_403_and_count_nothing(client):
    k, other = start_class(client), start_class(client)
    qid = _ask(client, k)
    mine = k.who(client, "me")
    foreign = other.who(client, "them")
    for bad in (None, "", mine[:-2] + "zz", foreign, "p1.AAAAAA.00000000.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA"):
        r = _answer(client, k, qid, bad)
        assert r.status_code == 403, (bad, r.text)
        assert r.json()["detail"][0]["field"] == "participant" and r.json()["detail"][0]["type"] == "forbidden"
    assert _counted(client, k, qid) == 0
    for bad in (None, foreign):  # shares too
        r = client.post(f"/api/live/{k.code}/share", json={"card": "eg-1-1", **({"participant": bad} if bad else {})})
        assert r.status_code == 403
    assert client.get(f"/api/live/{k.code}/snapshots", headers=k.auth).json()["snapshots"] == []


def test_invented_identities_cannot_stuff_the_ballot(client):
    """The issue's attack: thousands of answers, each under a new made-up identity — none counts."""
    k = start_class(client)
    qid = _ask(client, k)
    assert _answer(client, k, qid, k.who(client, "honest")).status_code == 200
    keys = Keys(b"not the server's key, made up by an attacker")
    refused = 0
    for i in range(300):
        fake, _ = keys.issue(k.code, f"{i:08x}")
        refused += _answer(client, k, qid, fake, value=1).status_code == 403
    assert refused == 300 and _counted(client, k, qid) == 1


def test_one_counted_answer_per_participant_per_question_the_latest_replaces(client):
    k = start_class(client)
    qid = _ask(client, k)
    me = k.who(client, "me")
    for v in (10, 20, 148):
        assert _answer(client, k, qid, me, v).status_code == 200
    # rejoining (a reload, a phone waking up) keeps the same participant: still one answer
    again = client.post(f"/api/live/{k.code}/join", json={"participant": me}).json()["participant"]
    assert again == me and _answer(client, k, qid, again, 150).status_code == 200
    res = client.get(f"/api/live/{k.code}/questions/{qid}/results", headers=k.auth).json()
    assert res["answered"] == 1 and [a["value"] for a in res["answers"]] == [150.0]
    q2 = _ask(client, k, "t_mem_ms")
    assert _answer(client, k, q2, me, 20.9).status_code == 200 and _counted(client, k, q2) == 1


def test_a_later_class_with_the_same_code_does_not_take_an_old_credential(client, store):
    """The epoch in the credential comes from the class itself: a new class that happens to get
    the code of an ended one refuses the old phones' credentials (and join hands out new ones)."""
    k = start_class(client)
    old = k.who(client, "me")
    assert client.delete(f"/api/live/{k.code}", headers=k.auth).status_code == 204
    db = store._conn(create=False)
    db.execute("DELETE FROM sessions WHERE code=?", (k.code,))  # gone (past ENDED_KEEP_S)
    run_async(store.create(k.code, "another-token-hash", "eg-1-1", "", "someone"))
    r = client.post(f"/api/live/{k.code}/join", json={"participant": old})
    assert r.status_code == 200 and r.json()["participant"] != old


def test_the_credential_outlives_a_restart_with_the_key_kept_in_the_store(app, tmp_path):
    """No AIINFRA_SECRET: the key is made once and kept in the store's file, so a restarted server
    (a new store on the same file) takes the credentials it issued before."""
    path, live = tmp_path / "live.db", app.state.live
    live.store = SQLiteStore(path, live.hub.deliver)
    try:
        with TestClient(app, client=PROXY) as c:
            k = start_class(c)
            qid = _ask(c, k)
            cred = k.who(c, "me")
        live.store = SQLiteStore(path, live.hub.deliver)  # the restart
        with TestClient(app, client=PROXY) as c:
            assert _answer(c, k, qid, cred).status_code == 200
            assert c.post(f"/api/live/{k.code}/join", json={"participant": cred}).json()["participant"] == cred
        # another deployment's key
        assert run_async(SQLiteStore(path, Hub().deliver).secret()) != run_async(
            SQLiteStore(tmp_path / "elsewhere.db", Hub().deliver).secret()
        )
    finally:
        live.store = None


def test_a_configured_secret_signs_instead(tmp_path):
    from tests.apps import build_app

    app = build_app(secret=SecretStr("x" * 40), live_db=tmp_path / "live.db")
    with TestClient(app, client=PROXY) as c:
        k = start_class(c)
        cred = k.who(c, "me")
    assert Keys(b"x" * 40).open(cred) is not None  # signed with AIINFRA_SECRET…
    assert Keys(run_async(app.state.live.store.secret())).open(cred) is None  # …not with a key the store made


def test_the_secret_must_be_long_enough():
    from pydantic import ValidationError

    from tests.apps import settings_for_tests

    with pytest.raises(ValidationError):
        settings_for_tests(secret=SecretStr("short"))
    assert settings_for_tests(secret="").secret is None  # blank: unset
