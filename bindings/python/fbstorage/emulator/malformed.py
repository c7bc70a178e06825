"""Requests aiohttp rejects before any handler runs (a malformed request line or header) get the
JSON error every other 4xx has, instead of aiohttp's plain text: header fields over the limit a
431 (Request Header Fields Too Large), a request line over it a 414, the rest a 400."""

from __future__ import annotations

from typing import Any

from aiohttp import web_protocol
from aiohttp.http_exceptions import HttpProcessingError, LineTooLong

from .errors import json_error

#: aiohttp's limits, told apart by value: a header field may be longer than the request line.
MAX_LINE_BYTES = 8190
MAX_FIELD_BYTES = 8192
HANDLER_LIMITS = {"max_line_size": MAX_LINE_BYTES, "max_field_size": MAX_FIELD_BYTES}


def _status_and_message(error: HttpProcessingError) -> tuple[int, str]:
    if isinstance(error, LineTooLong):
        if error.args[1] == MAX_FIELD_BYTES:
            return 431, f"A request header field is longer than {MAX_FIELD_BYTES} bytes."
        return 414, f"The request line is longer than {MAX_LINE_BYTES} bytes."
    if "Too many headers" in str(error):
        return 431, "The request has too many header fields."
    return 400, f"Malformed HTTP request: {error.message or 'bad request'}."


def install() -> None:
    """Makes aiohttp's request handler answer parse errors in JSON (once per process)."""
    if getattr(web_protocol.RequestHandler.handle_error, "_fbstorage_json", False):
        return
    plain = web_protocol.RequestHandler.handle_error

    def handle_error(self: Any, request: Any, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> Any:
        if not isinstance(exc, HttpProcessingError) or status != 400:
            return plain(self, request, status, exc, message)
        self.log_exception("Error handling request from %s", request.remote, exc_info=exc)
        code, text = _status_and_message(exc)
        response = json_error(code, text)
        response.force_close()
        return response

    handle_error._fbstorage_json = True  # type: ignore[attr-defined]
    web_protocol.RequestHandler.handle_error = handle_error  # type: ignore[method-assign]
