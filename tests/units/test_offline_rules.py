"""Which load failures mean "no network yet" (`offline`), and the retry delays: pure rules; the
server's waiting is tested in test_offline_start.py."""

from __future__ import annotations

import itertools
import socket

import httpx2
import pytest
from huggingface_hub.errors import LocalEntryNotFoundError

from wyoming_pocket_tts import offline


def _raised(error: BaseException, cause: BaseException | None) -> BaseException:
    """`error` as raised `from cause`."""
    try:
        raise error from cause
    except BaseException as raised:
        return raised


@pytest.mark.parametrize(
    "error",
    [
        LocalEntryNotFoundError("cannot find the requested files in the local cache"),
        _raised(RuntimeError("model cannot be loaded"), LocalEntryNotFoundError("no cache")),
        _raised(RuntimeError("voice"), httpx2.ConnectError("refused")),
        _raised(RuntimeError("proxy"), httpx2.ProxyError("proxy refused")),
        ConnectionRefusedError(111, "Connection refused"),
        socket.gaierror(-2, "Name or service not known"),
        TimeoutError("timed out"),
    ],
)
def test_missing_network(error: BaseException) -> None:
    assert offline.is_missing_network(error)


class Timeout(Exception):
    """An error named as an HTTP library's connection errors are, of no HTTP library."""


def _hidden_context() -> BaseException:
    """A bad voice file whose fallback failed for the network, re-raised `from None`."""
    bad = ValueError("Format not recognised")
    try:
        try:
            raise LocalEntryNotFoundError("the fallback voice is not cached")
        except LocalEntryNotFoundError:
            raise bad from None
    except ValueError as raised:
        return raised


@pytest.mark.parametrize(
    "error",
    [
        ValueError("Format not recognised"),
        _raised(RuntimeError("model cannot be loaded"), FileNotFoundError("config.yaml")),
        _hidden_context(),
        _raised(RuntimeError("voice"), httpx2.DecodingError("a reply that is no gzip")),
        _raised(RuntimeError("voice"), Timeout("a library's own time-out, not the network's")),
    ],
)
def test_other_failures_are_not_a_missing_network(error: BaseException) -> None:
    assert not offline.is_missing_network(error)


def test_delays_double_up_to_the_longest() -> None:
    delays = list(itertools.islice(offline.retry_delays(), 8))
    assert delays == [5, 10, 20, 40, 80, 160, 300, 300]


def test_the_waiting_line_names_the_model_the_hub_and_the_first_cause() -> None:
    error = _raised(RuntimeError("pocket-tts x cannot be loaded"), OSError("Connection refused"))
    text = offline.waiting_for("pocket-tts x", error)
    assert text.startswith("the network: pocket-tts x is not downloaded yet and http")
    assert text.endswith("cannot be reached (Connection refused)")
