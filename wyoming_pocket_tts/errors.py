"""Every error code a client may receive, in one place and one spelling (lower-case words joined
by `-`), with the HTTP status each is answered with (`HTTP_STATUS`). The README's error tables
mirror its groups below (tests/units/test_errors.py checks them).

A Wyoming request can collect more than one: a *warning* says part of it was not spoken as asked
(text cut at the limit, a stream that went quiet) while the rest was; a *failure* says it could not
be served. A failure outranks a warning, and where both apply the client gets both, failure first.
"""

from __future__ import annotations

from dataclasses import dataclass

# Warnings: what was accepted is spoken, then this.
TEXT_TOO_LONG = "text-too-long"
STREAM_TIMEOUT = "stream-timeout"

# Failures of a request (on HTTP too, before any audio).
BUSY = "busy"
SHUTDOWN = "shutdown"
MODEL_UNAVAILABLE = "model-unavailable"
MODEL_NOT_DOWNLOADED = "model-not-downloaded"
SYNTHESIS_FAILED = "synthesis-failed"
BAD_REQUEST = "bad-request"

# Failures of the Wyoming protocol, outside any request.
BAD_EVENT = "bad-event"
NO_STREAM = "no-stream"
UNSUPPORTED_EVENT = "unsupported-event"
TOO_MANY_CONNECTIONS = "too-many-connections"

# Refusals of the HTTP API (OpenAI's speech API), listed in its README table.
UNKNOWN_VOICE = "unknown-voice"
EMPTY_INPUT = "empty-input"
INPUT_TOO_LONG = "input-too-long"
UNSUPPORTED_FORMAT = "unsupported-response-format"
UNSUPPORTED_SPEED = "unsupported-speed"
INVALID_JSON = "invalid-json"
INVALID_VALUE = "invalid-value"
WRONG_CONTENT_TYPE = "unsupported-media-type"
BODY_TOO_LARGE = "body-too-large"
INVALID_TOKEN = "invalid-api-key"
API_OFF = "api-off"
ORIGIN_NOT_ALLOWED = "origin-not-allowed"

# Answers of the HTTP server itself (an unknown path or method, and what aiohttp reports), left
# out of the HTTP API's README table.
NOT_FOUND = "not-found"
METHOD_NOT_ALLOWED = "method-not-allowed"
HTTP_ERROR = "http-error"
INTERNAL_ERROR = "internal-error"

# Refusals of the voice studio (its security checks, its voice and sample edits).
INGRESS_ONLY = "ingress-only"
STUDIO_READ_ONLY = "studio-read-only"
BAD_TOKEN = "bad-token"
CROSS_ORIGIN = "cross-origin"
BAD_CSRF = "bad-csrf"
BAD_JSON = "bad-json"
BAD_CONTENT_TYPE = "bad-content-type"
BAD_TEXT = "bad-text"
BAD_TRIM = "bad-trim"
BAD_PRONUNCIATION = "bad-pronunciation"
UNKNOWN_LANGUAGE = "unknown-language"
INVALID_NAME = "invalid-name"
NAME_TAKEN = "name-taken"
NO_VOICES_FOLDER = "no-voices-folder"
WRONG_LANGUAGE = "wrong-language"
READ_ONLY_VOICE = "read-only-voice"
READ_ONLY_FOLDER = "read-only-folder"
POOR_SAMPLE = "poor-sample"
NO_AUDIO = "no-audio"
NOT_AUDIO = "not-audio"
TOO_LARGE = "too-large"
TOO_LONG = "too-long"

WARNINGS = frozenset({TEXT_TOO_LONG, STREAM_TIMEOUT})

HTTP_STATUS: dict[str, int] = {
    BUSY: 503,
    SHUTDOWN: 503,
    MODEL_UNAVAILABLE: 500,
    MODEL_NOT_DOWNLOADED: 503,
    SYNTHESIS_FAILED: 500,
    UNKNOWN_VOICE: 400,
    EMPTY_INPUT: 400,
    INPUT_TOO_LONG: 400,
    UNSUPPORTED_FORMAT: 400,
    UNSUPPORTED_SPEED: 400,
    INVALID_JSON: 400,
    INVALID_VALUE: 400,
    WRONG_CONTENT_TYPE: 415,
    BODY_TOO_LARGE: 413,
    INVALID_TOKEN: 401,
    API_OFF: 403,
    ORIGIN_NOT_ALLOWED: 403,
    NOT_FOUND: 404,
    METHOD_NOT_ALLOWED: 405,
    HTTP_ERROR: 400,
    INTERNAL_ERROR: 500,
    INGRESS_ONLY: 403,
    STUDIO_READ_ONLY: 403,
    BAD_TOKEN: 401,
    CROSS_ORIGIN: 403,
    BAD_CSRF: 403,
    BAD_JSON: 400,
    BAD_CONTENT_TYPE: 415,
    BAD_TEXT: 400,
    BAD_TRIM: 400,
    BAD_PRONUNCIATION: 400,
    UNKNOWN_LANGUAGE: 400,
    INVALID_NAME: 400,
    NAME_TAKEN: 409,
    NO_VOICES_FOLDER: 400,
    WRONG_LANGUAGE: 400,
    READ_ONLY_VOICE: 400,
    READ_ONLY_FOLDER: 409,
    POOR_SAMPLE: 422,
    NO_AUDIO: 400,
    NOT_AUDIO: 415,
    TOO_LARGE: 413,
    TOO_LONG: 413,
}
"""The HTTP status of each code an HTTP client (API or studio) may receive."""


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
