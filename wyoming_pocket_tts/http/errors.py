"""Every HTTP error as JSON in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`.

OpenAI clients read `error.message` to explain a failure; aiohttp's own errors (404, 405, 413 for
a body over the bound) would otherwise be plain text, so a middleware rewrites them too.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

_LOGGER = logging.getLogger(__name__)

INVALID_REQUEST = "invalid_request_error"
AUTHENTICATION = "authentication_error"
SERVER_ERROR = "server_error"

# Stable machine-readable codes (the README's table mirrors them); an engine failure keeps the
# engine's own code (`busy`, `synthesis-failed`, ...), as a Wyoming `error` would.
UNKNOWN_VOICE = "unknown_voice"
EMPTY_INPUT = "empty_input"
INPUT_TOO_LONG = "input_too_long"
UNSUPPORTED_FORMAT = "unsupported_response_format"
UNSUPPORTED_SPEED = "unsupported_speed"
INVALID_JSON = "invalid_json"
INVALID_VALUE = "invalid_value"
WRONG_CONTENT_TYPE = "unsupported_media_type"
BODY_TOO_LARGE = "body_too_large"
INVALID_TOKEN = "invalid_api_key"
API_OFF = "api_off"
NOT_FOUND = "not_found"
METHOD_NOT_ALLOWED = "method_not_allowed"


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
        code = _AIOHTTP_CODES.get(error.status, "http_error")
        return ApiError(error.status, error.reason, code).response()
    except Exception:
        _LOGGER.exception("%s %s failed", request.method, request.path)
        return ApiError(
            500, "Internal server error", "internal_error", kind=SERVER_ERROR
        ).response()
