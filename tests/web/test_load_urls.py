"""The load test (`bench/load.py`, run by CI) counts every non-2xx as an error: each URL it sends must
be a state the card accepts. A new cross-field rule once turned one of its random URLs into a 422."""

from __future__ import annotations

from bench.load import mixed_paths


def test_every_load_url_is_a_valid_state(client):
    paths = mixed_paths()
    assert len(paths) == 603
    refused = {p: r.status_code for p in paths if (r := client.get(p)).status_code != 200}
    assert refused == {}
