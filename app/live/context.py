"""One app's live class: the settings it was built from, the store chosen from them and the hub that
wakes its event streams. ``create_app`` puts one on ``app.state.live`` (see ``install``), so two apps
in one process never share a class, a store or a signing key; routes reach it through the
dependencies in ``app/live/deps.py`` (``LiveDep``, ``StoreDep``)."""

from __future__ import annotations

from collections.abc import Callable

from ..settings import Settings
from .credentials import Keys
from .hub import Hub
from .sqlite_store import SQLiteStore
from .store import Store


def open_store(settings: Settings, deliver: Callable[[dict], None]) -> Store:
    """The store ``settings`` name: Redis when ``redis_url`` is set (it fans out through its own
    subscriber), else SQLite at ``live_db``, which hands each change to ``deliver`` itself. Building
    it opens nothing (the first request does)."""
    if settings.redis_url:
        from .redis_store import RedisStore  # only a deployment with Redis imports its client

        return RedisStore(settings.redis_url)
    return SQLiteStore(settings.live_db, deliver)


class LiveContext:
    """What one app's live class runs on. The store is chosen on first use; a test may put its own
    (``live.store = SQLiteStore(...)``) or None to choose again from the settings."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.hub = Hub()
        self._store: Store | None = None
        self._keys: tuple[bytes, Keys] | None = None

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = open_store(self.settings, self.hub.deliver)
        return self._store

    @store.setter
    def store(self, store: Store | None) -> None:
        self._store = store

    @property
    def keepalive_s(self) -> float:
        """Seconds between keep-alive comments on the event streams (and presence beats)."""
        return self.settings.live_keepalive_s

    async def keys(self) -> Keys:
        """The keys of this app's secret: ``settings.secret``, else the one its store keeps."""
        configured = self.settings.secret
        secret = configured.get_secret_value().encode() if configured else await self.store.secret()
        if self._keys is None or self._keys[0] != secret:
            self._keys = (secret, Keys(secret))
        return self._keys[1]
