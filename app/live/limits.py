"""Every limit of the live class in one place (each is tested in tests/live/test_limits.py, the
server's in tests/live/test_serving.py). Counts are per class unless they say otherwise; an
"address" is the client's address as :func:`app.live.address.client_address` resolves it (the
socket peer, or X-Forwarded-For only when the peer is a trusted proxy)."""

from __future__ import annotations

# ------------------------------------------------------------------ classes
MAX_SESSIONS = 200  # open (not ended, not expired) classes per instance / per Redis
MAX_CLASSES_PER_ADDRESS = 5  # open classes started from one address (429 beyond)
IDLE_TTL_S = 3 * 3600  # a class the instructor has not touched for this long expires
ENDED_KEEP_S = 24 * 3600  # an ended class answers 410 (and its CSV stays) for this long, then is gone
MAX_QUESTIONS = 200  # asked per class

# ------------------------------------------------------------------ followers
MAX_FOLLOWERS = 1_000  # participants with an open event stream at once
MAX_FOLLOWERS_PER_ADDRESS = 600  # …of which from one address: a 600-seat hall behind one NAT fits,
#                                  one client alone cannot fill the class
JOINS_PER_ADDRESS = 600  # new participants one address may join per window (a hall behind one NAT)…
JOIN_WINDOW_S = 60  # …of this many seconds; a phone refused waits Retry-After and tries again
REJOINS_PER_PARTICIPANT = 30  # a participant coming back (sleep, reload) per JOIN_WINDOW_S
PRESENCE_TTL_S = 45  # a follower whose stream has not been seen for this long no longer counts

# ------------------------------------------------------------------ answers and snapshots
ANSWERS_PER_WINDOW = 10  # answers per participant per window…
ANSWER_WINDOW_S = 10  # …of this many seconds
SNAPSHOTS_PER_WINDOW = 3  # 分享给老师 per participant per window
SNAPSHOT_WINDOW_S = 60
MAX_SNAPSHOTS = 100  # kept per class (oldest dropped)
MAX_ANSWER = 1e100  # |a numeric answer| (every quantity in the book is far below; charts stay finite)

# ------------------------------------------------------------------ sweeps (the class explores a design space)
MAX_SWEEPS = 50  # started per class
MAX_SWEEP_PARAMS = 3  # parameters one sweep varies
MAX_SWEEP_POINTS = 1_000  # points of one sweep (the product of the values' counts)
SWEEP_COMPUTE_S = 20.0  # the card's compute at every point must finish within this (422 beyond)
PREDICTIONS_PER_WINDOW = 10  # predictions per participant per window…
PREDICTION_WINDOW_S = 10  # …of this many seconds

# ------------------------------------------------------------------ request sizes
MAX_BODY_BYTES = 64 * 1024  # any live request body (a full-length query, even \u-escaped, fits)
BODY_READ_TIMEOUT_S = 10.0  # a live request body not fully received by then: 408
MAX_QUERY_LEN = 8_000  # the card query string of a state, question or snapshot
NICK_MAX = 24  # characters of the optional nickname
PARTICIPANT_MAX = 120  # characters of a participant credential (a real one has 62)

# ------------------------------------------------------------------ the store
STORE_TIMEOUT_S = 1.2  # one store call, however it fails (Redis down or hung): 503 by then
STORE_RETRY_AFTER_S = 2  # what a 503 of an unavailable store tells the client (Retry-After)
REDIS_SOCKET_TIMEOUT_S = 0.5  # connect / read on a Redis socket (one retry on a fresh connection)
REDIS_POOL_WAIT_S = 1.0  # waiting for a free pooled connection (a hall connecting at once queues here)
REDIS_HEALTH_CHECK_S = 1  # a pooled connection idle this long is PINGed before use
POOL_SIZE = 128  # Redis connections per process (the subscriber holds one of them)

# ------------------------------------------------------------------ the event stream
RETRY_MS = 1_500  # EventSource reconnect delay sent to clients
QUEUE_DEPTH = 64  # events buffered per connection before it is reset to the latest

# ------------------------------------------------------------------ the HTTP server (app/live/serving.py)
MAX_HEADER_BYTES = 16 * 1024  # request line + headers of one request (431 beyond)
HEADER_TIMEOUT_S = 10.0  # a request's line and headers must arrive within this (then closed)
BODY_TIMEOUT_S = 30.0  # any request's body must arrive within this (the live routes': BODY_READ_TIMEOUT_S)
KEEPALIVE_S = 5  # an idle keep-alive connection is closed after this
