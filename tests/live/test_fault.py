"""The fault test (issue 16 acceptance): two instances behind nginx with Redis; one is killed
mid-class; its followers reconnect through nginx to the other and converge on the current state,
and no answer accepted before the kill is lost. redis-server and nginx are started here."""

from __future__ import annotations

from .conftest import need


def test_kill_one_instance_followers_converge_and_no_answer_is_lost():
    need("redis-server", "nginx")
    from bench.live_fault import run

    r = run(n_followers=40, n_answers=30)
    assert r["moved"] > 0, "no follower was on the killed instance: the test proved nothing"
    assert r["converged"] == r["followers"] == 40
    assert r["converge_s"] is not None and r["converge_s"] < 15
    assert r["answers_accepted_before_kill"] == 30 and r["answers_lost"] == 0
    assert r["answers_after_kill_ok"] == 10
    assert r["out_of_order"] == 0
