"""Every limit of the live class in one place (each is tested in tests/live/test_limits.py and the
abuse suite tests/live/test_abuse_*.py, the server's in tests/live/test_serving.py). Counts are per
class unless they say otherwise. An "address" is the client as
:func:`app.live.address.client_address` resolves it (the socket peer, or X-Forwarded-For only when
the peer is a trusted proxy), counted per IPv4 address or per IPv6 /64 (one subscriber's prefix); a
"network" is the aggregate around it: the IPv4 /24 or the IPv6 /48 (one site: a /48 holds 65,536
/64s, so a per-/64 limit alone is 65,536 limits for one client). Each per-address ceiling is sized
for a lecture hall behind ONE NAT address; each per-network ceiling leaves the rest of the instance
(or class) to everyone else. docs/live-class.md gives the reason for every number."""

from __future__ import annotations

# ------------------------------------------------------------------ classes
MAX_SESSIONS = 200  # open (not ended, not expired) classes per instance / per Redis
MAX_CLASSES_PER_ADDRESS = 5  # open classes started from one address (429 beyond)
MAX_CLASSES_PER_NETWORK = 10  # …and from one /24 or /48 (5 % of MAX_SESSIONS: a campus behind one /24 runs
#                               10 classes at once; 40 /64s of one /48 once took all 200 slots, now 10)
SLOT_IDLE_S = 30 * 60  # an open class with no instructor action and no follower for this long no longer
#                        holds a slot (it is kept until IDLE_TTL_S; a touch or a follower takes one again)
IDLE_TTL_S = 3 * 3600  # a class the instructor has not touched for this long expires
ENDED_KEEP_S = 24 * 3600  # an ended class answers 410 (and its CSV stays) for this long, then is gone
MAX_QUESTIONS = 200  # asked per class

# ------------------------------------------------------------------ followers
MAX_FOLLOWERS = 1_000  # participants with an open event stream at once
MAX_FOLLOWERS_PER_ADDRESS = 450  # …of which from one address (45 %): a 450-seat hall behind one NAT fits,
#                                  two such addresses leave 100 places for everyone else
MAX_FOLLOWERS_PER_NETWORK = 600  # …and from one /24 or /48 (60 %): two halls of one campus NAT pool fit,
#                                  one network never takes more than this share of the class
JOINS_PER_ADDRESS = 600  # new participants one address may join per window (a hall behind one NAT)…
JOINS_PER_NETWORK = 900  # …and one /24 or /48 (the 40 /64s of one /48 joined 1,333 in 30 s)
JOIN_WINDOW_S = 60  # …of this many seconds; a phone refused waits Retry-After and tries again
REJOINS_PER_PARTICIPANT = 30  # a participant coming back (sleep, reload) per JOIN_WINDOW_S
PRESENCE_TTL_S = 45  # a follower whose stream has not been seen for this long no longer counts

# ------------------------------------------------------------------ the card check route while a class asks
CHECKS_PER_ADDRESS = 6  # verdicts on an output a live question asks, per address per window (a
CHECK_WINDOW_S = 60  #      three-way verdict binary-searches the value in ~130 tries: now ≥ 20 minutes)
CHECKS_PER_NETWORK = 30  # …and per /24 or /48 per window (a /48 holds 65,536 /64s)

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
STREAMS_PER_PARTICIPANT = 3  # open streams of one credential per process (a phone, a tab, a reload in
#                              flight); the next one replaces the oldest, which gets ``event: replaced``
STREAMS_PER_ADDRESS = 600  # open streams from one address per process: MAX_FOLLOWERS_PER_ADDRESS and a third
#                            more for phones reconnecting before their old stream is noticed gone
STREAMS_PER_NETWORK = 800  # …from one /24 or /48 (MAX_FOLLOWERS_PER_NETWORK and a third more)
FD_RESERVE = 256 + 128  # descriptors kept from streams: the Redis pool (POOL_SIZE), the SQLite file, logs,
#                         and 256 for pages, joins and answers while every stream slot is taken
FD_WANTED = 65_536  # the soft RLIMIT_NOFILE the server raises itself to at start (never above the hard one)
MIN_STREAMS = 16  # a server whose descriptor budget is below FD_RESERVE still serves this many streams

# ------------------------------------------------------------------ the HTTP server (app/live/serving.py)
MAX_HEADER_BYTES = 16 * 1024  # request line + headers of one request (431 beyond)
HEADER_TIMEOUT_S = 10.0  # a request's line and headers must arrive within this (then closed)
BODY_TIMEOUT_S = 30.0  # any request's body must arrive within this (the live routes': BODY_READ_TIMEOUT_S)
KEEPALIVE_S = 5  # an idle keep-alive connection is closed after this
