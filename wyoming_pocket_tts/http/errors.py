"""Every HTTP error as JSON in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`.

OpenAI clients read `error.message` to explain a failure; aiohttp's own errors (404, 405, 413 for
a body over the bound) would otherwise be plain text, so a middleware rewrites them too.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from ..errors import (
    BODY_TOO_LARGE,
    HTTP_ERROR,
    HTTP_STATUS,
    INTERNAL_ERROR,
    INVALID_TOKEN,
    METHOD_NOT_ALLOWED,
    NOT_FOUND,
    JobError,
)

__all__ = [
    "INVALID_TOKEN",
    "ApiError",
    "Handler",
    "StudioError",
    "json_errors",
]  # INVALID_TOKEN: for auth

_LOGGER = logging.getLogger(__name__)

INVALID_REQUEST = "invalid_request_error"
AUTHENTICATION = "authentication_error"
SERVER_ERROR = "server_error"
"""OpenAI's error `type`s (its own spelling); the `code` is one of `errors`."""
STUDIO_ERROR = "studio_error"
"""The `type` of the voice studio's own refusals."""


class ApiError(Exception):
    """A request the server refuses; becomes a JSON error response."""

    def __init__(
        self,
        status: int,
        message: str,
        code: str,
        param: str | None = None,
        kind: str = INVALID_REQUEST,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.param = param
        self.kind = kind

    @classmethod
    def of(cls, code: str, message: str, param: str | None = None) -> ApiError:
        """The refusal `code` (one of `errors`), with the status `errors.HTTP_STATUS` gives it."""
        status = HTTP_STATUS[code]
        kind = INVALID_REQUEST
        if status == 401:
            kind = AUTHENTICATION
        elif status >= 500 and status != 503:
            kind = SERVER_ERROR
        return cls(status, message, code, param, kind)

    @classmethod
    def refusing(cls, failure: JobError) -> ApiError:
        """The engine's failure, before any audio, under the engine's own code."""
        return cls.of(failure.code, failure.text)

    def response(self) -> web.Response:
        body = {
            "error": {
                "message": self.message,
                "type": self.kind,
                "param": self.param,
                "code": self.code,
            }
        }
        headers = {"WWW-Authenticate": "Bearer"} if self.status == 401 else None
        return web.json_response(body, status=self.status, headers=headers)


class StudioError(ApiError):
    """A refusal of the studio, as JSON through the app's error middleware: its own status,
    code and message reach the page (`{"error": {"message", "code", "type": "studio_error"}}`)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(HTTP_STATUS[code], message, code, kind=STUDIO_ERROR)


_AIOHTTP_CODES = {404: NOT_FOUND, 405: METHOD_NOT_ALLOWED, 413: BODY_TOO_LARGE}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def json_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Turn `ApiError`, aiohttp's HTTP errors and anything unexpected into OpenAI's JSON shape."""
    try:
        return await handler(request)
    except ApiError as error:
        _LOGGER.debug("%s %s: %d %s", request.method, request.path, error.status, error.message)
        return error.response()
    except web.HTTPException as error:
        if error.status < 400:
            raise
        code = _AIOHTTP_CODES.get(error.status, HTTP_ERROR)
        return ApiError(error.status, error.reason, code).response()
    except Exception:
        _LOGGER.exception("%s %s failed", request.method, request.path)
        return ApiError.of(INTERNAL_ERROR, "Internal server error").response()
