"""A small least-recently-used cache with counters that its debug log lines show."""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

_LOGGER = logging.getLogger(__name__)

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass
class CacheStats:
    """Running totals of cache traffic."""

    hits: int = 0
    misses: int = 0
    evictions: int = 0


class LruCache(Generic[K, V]):
    """At most `capacity` entries; a lookup refreshes an entry, a miss evicts the stalest.

    Not thread-safe on purpose: it lives on the engine thread, which is the only thread that
    touches it, so it needs no locks.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.stats = CacheStats()
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def get_or_create(self, key: K, create: Callable[[], V]) -> V:
        """The cached value for `key`, creating it (and evicting as needed) on a miss."""
        if key in self._entries:
            self._entries.move_to_end(key)
            self.stats.hits += 1
            _LOGGER.debug("Voice cache hit: %s (%s)", key, self.stats)
            return self._entries[key]
        self.stats.misses += 1
        _LOGGER.debug("Voice cache miss: %s (%s)", key, self.stats)
        value = create()
        while len(self._entries) >= self.capacity:
            evicted, _ = self._entries.popitem(last=False)
            self.stats.evictions += 1
            _LOGGER.debug("Voice cache evicted: %s (%s)", evicted, self.stats)
        self._entries[key] = value
        return value
