"""Every error code a client may receive, in one place (the README's error table mirrors it).

A request can collect more than one: a *warning* says part of it was not spoken as asked (text cut
at the limit, a stream that went quiet) while the rest was; a *failure* says it could not be
served. A failure outranks a warning, and where both apply the client gets both, failure first.
"""

from __future__ import annotations

from dataclasses import dataclass

# Warnings: what was accepted is spoken, then this.
TEXT_TOO_LONG = "text-too-long"
STREAM_TIMEOUT = "stream-timeout"

# Failures of a request.
BUSY = "busy"
SHUTDOWN = "shutdown"
MODEL_UNAVAILABLE = "model-unavailable"
SYNTHESIS_FAILED = "synthesis-failed"
BAD_REQUEST = "bad-request"

# Failures of the protocol, outside any request.
BAD_EVENT = "bad-event"
NO_STREAM = "no-stream"
UNSUPPORTED_EVENT = "unsupported-event"
TOO_MANY_CONNECTIONS = "too-many-connections"

WARNINGS = frozenset({TEXT_TOO_LONG, STREAM_TIMEOUT})


@dataclass(frozen=True)
class JobError:
    """A reason to report to the client: a Wyoming `error` event, or an HTTP error body."""

    code: str
    text: str

    @property
    def is_failure(self) -> bool:
        """The request could not be served (as opposed to served in part)."""
        return self.code not in WARNINGS


def in_precedence(errors: list[JobError]) -> list[JobError]:
    """Failures before warnings, each kind in the order it happened."""
    return sorted(errors, key=lambda error: not error.is_failure)
