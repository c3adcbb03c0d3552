"""The voice-state LRU: eviction order and counters (pure logic, no model)."""

import pytest

from wyoming_pocket_tts.engine.voice_states.lru import LruCache


def test_evicts_least_recently_used_first() -> None:
    cache: LruCache[str, int] = LruCache(2)
    created: list[str] = []

    def make(key: str):
        return lambda: created.append(key) or len(created)

    cache.get_or_create("a", make("a"))
    cache.get_or_create("b", make("b"))
    cache.get_or_create("a", make("a"))  # refreshes a: b is now the stalest
    cache.get_or_create("c", make("c"))  # evicts b

    assert "a" in cache and "c" in cache and "b" not in cache
    assert created == ["a", "b", "c"]
    assert (cache.stats.hits, cache.stats.misses, cache.stats.evictions) == (1, 3, 1)

    cache.get_or_create("b", make("b"))  # evicts a
    assert "a" not in cache and "c" in cache and "b" in cache
    assert cache.stats.evictions == 2


def test_alternating_between_two_voices_never_recreates() -> None:
    cache: LruCache[str, str] = LruCache(2)
    calls = 0

    def create() -> str:
        nonlocal calls
        calls += 1
        return "state"

    for key in ["a", "b"] * 10:
        cache.get_or_create(key, create)
    assert calls == 2
    assert cache.stats.hits == 18


def test_failed_creation_caches_nothing() -> None:
    cache: LruCache[str, int] = LruCache(1)
    cache.get_or_create("a", lambda: 1)

    def broken() -> int:
        raise OSError("unreadable")

    with pytest.raises(OSError):
        cache.get_or_create("b", broken)
    assert "a" in cache and "b" not in cache


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError):
        LruCache(0)
