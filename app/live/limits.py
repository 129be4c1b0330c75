"""Every limit of the live class in one place (each is tested in tests/live/test_limits.py)."""

from __future__ import annotations

MAX_FOLLOWERS = 1_000  # devices following one session at once
MAX_SESSIONS = 200  # live (not yet expired) sessions per instance / per Redis
IDLE_TTL_S = 12 * 3600  # a session with no write for this long expires and is purged
MAX_BODY_BYTES = 64 * 1024  # any live request body (a full-length query, even \u-escaped, fits)
MAX_QUERY_LEN = 8_000  # the card query string of a state, question or snapshot
NICK_MAX = 24  # characters of the optional nickname
DEVICE_MIN, DEVICE_MAX = 8, 64  # a device id is random, kept in the follower's localStorage
ANSWERS_PER_WINDOW = 10  # answers per device per question window…
ANSWER_WINDOW_S = 10  # …of this many seconds
JOINS_PER_WINDOW = 30  # joins per device per window (reconnect loops stay cheap)
JOIN_WINDOW_S = 60
SNAPSHOTS_PER_WINDOW = 3  # 分享给老师 per device per window
SNAPSHOT_WINDOW_S = 60
MAX_SNAPSHOTS = 100  # kept per session (oldest dropped)
MAX_QUESTIONS = 200  # asked per session
PRESENCE_TTL_S = 45  # a follower not seen for this long no longer counts
RETRY_MS = 1_500  # EventSource reconnect delay sent to clients
QUEUE_DEPTH = 64  # events buffered per connection before it is reset to the latest
