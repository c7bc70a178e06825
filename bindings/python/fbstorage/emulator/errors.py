"""The one exception type handlers raise for a client-visible error, and how it is rendered."""

from __future__ import annotations

import html
import json
from typing import Mapping

from aiohttp import web

from .flavor import Flavor


# A response key: the answer is the upload server's own (production_headers.py adds nothing to it).
UPLOAD_SERVER = "fbstorage.upload_server"


class ApiError(Exception):
    """An HTTP error reply.

    `quirk_text` is the plain-text body the official emulator sends for this error (for example
    `Not Found`); None means it sends the JSON body too. `reason` is the GCS JSON API's reason when
    it is not the one of the status (gcs/errors.py). `upload_page` is the text page production's
    upload server answers instead (Flavor.upload_server_answers).
    """

    def __init__(self, status: int, message: str, *, quirk_text: str | None = None,
                 upload_page: str | None = None, headers: Mapping[str, str] | None = None,
                 reason: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.quirk_text = quirk_text
        self.upload_page = upload_page
        self.headers = dict(headers or {})
        self.reason = reason

    def response(self, flavor: Flavor) -> web.Response:
        if self.upload_page is not None and flavor.upload_server_answers:
            return upload_server_answer(web.Response(status=self.status, text=self.upload_page, headers=self.headers))
        if self.quirk_text is not None and not flavor.json_errors:
            return web.Response(status=self.status, text=self.quirk_text, headers=self.headers)
        return json_error(self.status, self.message, self.headers)


def upload_server_answer(response: web.Response) -> web.Response:
    """Mark an answer as the upload server's: text answers are `text/plain; charset=utf-8`, spelled
    so, and none of the APIs' headers are added."""
    response[UPLOAD_SERVER] = True
    return response


def json_error(status: int, message: str, headers: Mapping[str, str] | None = None) -> web.Response:
    body = json.dumps({"error": {"code": status, "message": message}})
    return web.Response(status=status, text=body, content_type="application/json", headers=headers)


def html_page(status: int, text: str, headers: Mapping[str, str] | None = None) -> web.Response:
    """An error production answers as text/html: `<`, `>` and `&` escaped, so nothing a client
    sent (an object name) can be markup on the origin that also serves the UI."""
    return web.Response(status=status, text=html.escape(text, quote=False), content_type="text/html", headers=headers)


def json_for_html(value: object) -> str:
    """Compact JSON whose `<`, `>` and `&` are \\u escapes: the same value, and no markup (nor
    anything html_page would change) when production sends it as a text/html page."""
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def bad_request(message: str, **kwargs) -> ApiError:
    return ApiError(400, message, quirk_text="Bad Request", **kwargs)


def not_found(message: str = "Not Found.", **kwargs) -> ApiError:
    return ApiError(404, message, quirk_text="Not Found", **kwargs)
