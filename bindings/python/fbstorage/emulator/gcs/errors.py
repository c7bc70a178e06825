"""GCS JSON API errors: `{"error": {"code", "message", "errors": [{"domain", "reason", "message"}]}}`.

GCS handlers raise the emulator's ApiError like the v0 handlers; this renders it in the GCS shape
(in both flavors: the official emulator's plain-text bodies are a v0 matter).
"""

from __future__ import annotations

import json
from functools import wraps
from typing import Awaitable, Callable

from aiohttp import web

from ..errors import ApiError

REASONS = {400: "invalid", 401: "required", 403: "forbidden", 404: "notFound", 405: "methodNotAllowed",
           409: "conflict", 410: "gone", 412: "conditionNotMet", 413: "uploadTooLarge",
           416: "requestedRangeNotSatisfiable", 499: "clientClosedRequest", 501: "notImplemented"}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class PageError(ApiError):
    """An error GCS answers as a text/html page holding its JSON error (an upload's refused name)."""


def gcs_page(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    reason = REASONS.get(status, "backendError")
    body = {"error": {"code": status, "message": message,
                      "errors": [{"message": message, "domain": "global", "reason": reason}]}}
    return web.Response(status=status, text=json.dumps(body, separators=(",", ":")), content_type="text/html",
                        headers=headers)


def gcs_error(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    body = {"error": {"code": status, "message": message,
                      "errors": [{"domain": "global", "reason": REASONS.get(status, "backendError"),
                                  "message": message}]}}
    return web.Response(status=status, text=json.dumps(body), content_type="application/json", headers=headers)


def renders_gcs_errors(handler: Handler) -> Handler:
    @wraps(handler)
    async def wrapper(request: web.Request) -> web.StreamResponse:
        try:
            return await handler(request)
        except PageError as error:
            return gcs_page(error.status, error.message, error.headers)
        except ApiError as error:
            return gcs_error(error.status, error.message, error.headers)
    return wrapper


def no_such_object(bucket: str, name: str) -> ApiError:
    return ApiError(404, f"No such object: {bucket}/{name}")


def precondition_failed(what: str) -> ApiError:
    return ApiError(412, f"At least one of the pre-conditions you specified did not hold: {what}.")


def not_implemented(method: str, path: str) -> ApiError:
    return ApiError(501, f"{method} {path} is not part of the emulator's GCS JSON API.")
