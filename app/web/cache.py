"""A small in-process cache of rendered bytes, safe to share between the threads that run sync
routes. Every card response is a pure function of its URL, so a URL seen before is answered from
here; ``make`` runs outside the lock (two threads may render the same state once each; the first
stored answer wins, and both are identical)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class LRU(Generic[V]):
    """At most ``size`` entries; the least recently used goes first."""

    def __init__(self, size: int):
        self.size = size
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, key: Hashable) -> V | None:
        """The stored value (marking it recently used), or None."""
        with self._lock:
            try:
                self._data.move_to_end(key)
            except KeyError:
                return None
            return self._data[key]

    def put(self, key: Hashable, value: V) -> V:
        """Store ``value`` unless another thread stored one first; return the stored one."""
        with self._lock:
            value = self._data.setdefault(key, value)
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)
            return value

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value for ``key``, made (outside the lock) and stored when missing."""
        hit = self.peek(key)
        return hit if hit is not None else self.put(key, make())

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
