"""A first start without network: which load failures mean "no network yet", and how often to try.

After a power cut the board often boots before the router, so the first start of a new model
cannot reach Hugging Face (or the mirror `HF_ENDPOINT` names). That is no reason to exit: the
engine keeps the port open, refuses speech with `model-not-downloaded`, and tries again after
each delay of `retry_delays` until the download works or the server stops.

A missing network shows as the hub's `LocalEntryNotFoundError` ("cannot find the requested files
in the local cache", raised for a refused connection, a time-out, `HF_HUB_OFFLINE=1` or a hub
answering 5xx), or, for `http(s)://` sources, as a connection error of the HTTP library. A file
the hub says does not exist, a gated repository or a broken file is not a missing network: it
stops the start as before.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

FIRST_RETRY = 5.0
"""Seconds before the first new attempt."""

LONGEST_RETRY = 300.0
"""The delay doubles after each attempt up to this many seconds."""

_MISSING = (ConnectionError, socket.gaierror, TimeoutError)
"""What the standard library raises for a missing network (the hub's own error is added where
it is used: huggingface_hub reads HF_ENDPOINT and HF_HOME when imported, which the add-on sets
first, so this module does not import it)."""
_LIBRARIES = {"httpx", "httpx2", "requests", "urllib3"}
"""HTTP libraries whose connection errors mean the network is missing."""
_TRANSPORT = {"TransportError", "ConnectionError", "Timeout", "ProtocolError"}
"""Their connection error classes (by name: the libraries need not be installed)."""


def is_missing_network(error: BaseException) -> bool:
    """`error`, or an error it was raised from, says the download found no network."""
    from huggingface_hub.errors import LocalEntryNotFoundError

    missing = (LocalEntryNotFoundError, *_MISSING)
    return any(isinstance(cause, missing) or _transport_error(cause) for cause in _chain(error))


class VoiceNotDownloaded(Exception):
    """A voice's file could not be fetched for want of network (raised from the hub's error):
    what the start waits for is that voice, not its model."""

    def __init__(self, name: str) -> None:
        super().__init__(f"voice {name}")
        self.label = f"voice {name}"


def waiting_for(label: str, error: BaseException) -> str:
    """What the start waits for, in words: the model named by `label` (or the voice `error`
    names), where it comes from, the first reason."""
    from huggingface_hub import constants

    voice = next((e for e in _chain(error) if isinstance(e, VoiceNotDownloaded)), None)
    label = voice.label if voice is not None else label
    reason = str(_chain(error)[-1]) or type(error).__name__
    return (
        f"the network: {label} is not downloaded yet and {constants.ENDPOINT} cannot be "
        f"reached ({reason})"
    )


def _chain(error: BaseException) -> list[BaseException]:
    """`error` and the errors it was raised from, the first cause last (as a traceback shows
    them: a context hidden by `from None` is not a cause)."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not known for known in chain):
        chain.append(current)
        suppressed = current.__suppress_context__  # `raise ... from None`: not its reason
        current = current.__cause__ or (None if suppressed else current.__context__)
    return chain


def _transport_error(error: BaseException) -> bool:
    return any(
        kind.__module__.split(".")[0] in _LIBRARIES and kind.__name__ in _TRANSPORT
        for kind in type(error).__mro__
    )


def retry_delays() -> Iterator[float]:
    """Seconds to wait before each new attempt: FIRST_RETRY, doubling, at most LONGEST_RETRY."""
    delay = FIRST_RETRY
    while True:
        yield delay
        delay = min(delay * 2, LONGEST_RETRY)
