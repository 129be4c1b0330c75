"""gunicorn settings for `make serve-prod`. Several worker processes share a live class only through
Redis: without AIINFRA_REDIS_URL a multi-worker start is refused (each worker would hold its own
followers and the class would silently split). The workers are uvicorn's with the server's own
limits (app/live/serving.py: headers within 10 s and 16 KB, bodies within 30 s); idle keep-alive
connections close after 5 s; X-Forwarded-For is believed only from AIINFRA_TRUSTED_PROXIES (the
app reads the same setting)."""
import os
import sys

worker_class = "app.live.serving.GuardedWorker"
workers = int(os.environ.get("WORKERS", "2"))
bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
graceful_timeout = 5          # SSE streams end on shutdown; do not wait long for them
timeout = 60
keepalive = 5                 # seconds an idle keep-alive connection stays open
forwarded_allow_ips = os.environ.get("AIINFRA_TRUSTED_PROXIES") or "127.0.0.1"

REFUSAL = ("serve-prod: {n} workers without AIINFRA_REDIS_URL would split a live class between "
           "processes (each would hold its own followers). Set AIINFRA_REDIS_URL=redis://… "
           "(Debian: apt-get install redis-server) or run one worker (WORKERS=1).")


def on_starting(server):
    """Refuse to start several workers without Redis, with the reason."""
    n = server.cfg.workers
    if n > 1 and not os.environ.get("AIINFRA_REDIS_URL"):
        sys.stderr.write(REFUSAL.format(n=n) + "\n")
        sys.stderr.flush()
        os._exit(3)
