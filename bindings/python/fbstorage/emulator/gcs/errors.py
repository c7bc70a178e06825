"""GCS JSON API errors: `{"error": {"code", "message", "errors": [{"domain", "reason", "message"}]}}`.

GCS handlers raise the emulator's ApiError like the v0 handlers; this renders it in the GCS shape
(in both flavors: the official emulator's plain-text bodies are a v0 matter).
"""

from __future__ import annotations

import json
from functools import wraps
from typing import Awaitable, Callable

from aiohttp import web

from ..errors import ApiError, html_page, json_for_html
from ..state import STATE

REASONS = {400: "invalid", 401: "required", 403: "forbidden", 404: "notFound", 405: "methodNotAllowed",
           409: "conflict", 410: "gone", 412: "conditionNotMet", 413: "uploadTooLarge", 429: "rateLimitExceeded",
           416: "requestedRangeNotSatisfiable", 499: "clientClosedRequest", 501: "notImplemented"}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


GCS_PRECONDITION_FAILED = "At least one of the pre-conditions you specified did not hold."


class PreconditionFailed(ApiError):
    """412; the message names the condition, production's (Flavor.words_preconditions_as_gcs) does not.
    `not_modified`: an `if…NotMatch` condition failed on a live object, which production answers
    304 Not Modified, with no body."""

    def __init__(self, what: str, *, not_modified: bool = False):
        super().__init__(412, f"{GCS_PRECONDITION_FAILED[:-1]}: {what}.")
        self.not_modified = not_modified


class InvalidLong(ApiError):
    """400 for a query parameter that must be an integer and is not; production words it as its
    parser does (Flavor.words_invalid_longs_as_gcs)."""

    def __init__(self, parameter: str, value: str):
        super().__init__(400, f"Invalid value for {parameter}: {value!r} is not an integer.", quirk_text="Bad Request")
        self.parameter = parameter
        self.value = value


class PageError(ApiError):
    """An error GCS answers as a text/html page holding its JSON error (an upload's refused name)."""


def gcs_page(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    reason = REASONS.get(status, "backendError")
    body = {"error": {"code": status, "message": message,
                      "errors": [{"message": message, "domain": "global", "reason": reason}]}}
    return html_page(status, json_for_html(body), headers)


def gcs_error(status: int, message: str, headers: dict[str, str] | None = None,
              reason: str | None = None, **detail: str) -> web.Response:
    """`detail`: more fields of the error item (production's `location` and `locationType`)."""
    body = {"error": {"code": status, "message": message,
                      "errors": [{"domain": "global", "reason": reason or REASONS.get(status, "backendError"),
                                  "message": message, **detail}]}}
    return web.Response(status=status, text=json.dumps(body), content_type="application/json", headers=headers)


def renders_gcs_errors(handler: Handler) -> Handler:
    @wraps(handler)
    async def wrapper(request: web.Request) -> web.StreamResponse:
        try:
            return await handler(request)
        except PreconditionFailed as error:
            if not request.app[STATE].flavor.words_preconditions_as_gcs:
                return gcs_error(error.status, error.message, error.headers)
            if error.not_modified:
                return web.Response(status=304, headers=error.headers)
            return gcs_error(412, GCS_PRECONDITION_FAILED, error.headers, location="If-Match",
                             locationType="header")
        except InvalidLong as error:
            if not request.app[STATE].flavor.words_invalid_longs_as_gcs:
                return gcs_error(error.status, error.message, error.headers)
            return gcs_error(400, f"Invalid long value: '{error.value}'.", error.headers, "invalidParameter",
                             location=error.parameter, locationType="parameter")
        except PageError as error:
            return gcs_page(error.status, error.message, error.headers)
        except ApiError as error:
            return gcs_error(error.status, error.message, error.headers, error.reason)
    return wrapper


def no_such_object(bucket: str, name: str) -> ApiError:
    return ApiError(404, f"No such object: {bucket}/{name}")


def not_implemented(method: str, path: str) -> ApiError:
    return ApiError(501, f"{method} {path} is not part of the emulator's GCS JSON API.")
