"""`POST /batch/storage/v1`: a multipart/mixed body of JSON API calls, answered in one multipart/mixed.

Each part is an `application/http` request (`DELETE /storage/v1/b/…/o/… HTTP/1.1`, headers, body).
The parts are sent one after the other, in order, to this same server over loopback, so each is
answered exactly as if it had been sent alone (request log, faults and errors included).
google-cloud-storage's `with client.batch():` sends these, e.g. to delete many objects at once.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from email.message import Message
from email.parser import BytesParser
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web

from ..bodies import read_small_body
from ..errors import ApiError
from .errors import gcs_error, renders_gcs_errors

PATH = "/batch/storage/v1"
MAX_CALLS = 100  # as Cloud Storage
# Per-connection headers of a sub-request are not forwarded: the loopback request has its own.
HOP_HEADERS = {"host", "content-length", "connection", "transfer-encoding", "keep-alive"}


@dataclass(frozen=True)
class SubRequest:
    method: str
    target: str  # path and query
    headers: list[tuple[str, str]]
    body: bytes
    content_id: str | None


@renders_gcs_errors
async def handle_batch(request: web.Request) -> web.StreamResponse:
    content_type = request.headers.get("Content-Type", "")
    if not content_type.lower().startswith("multipart/mixed") or "boundary=" not in content_type.lower():
        raise ApiError(400, "A batch request must be multipart/mixed with a boundary.")
    body = await read_small_body(request)  # at most the route's bound (limits.py)
    calls = parse_batch(content_type, body)
    boundary = "batch_" + secrets.token_urlsafe(12)
    base, authorization, parts = _own_base(request), request.headers.get("Authorization"), []
    async with aiohttp.ClientSession(auto_decompress=False) as session:
        for call in calls:  # one after the other: a call sees what the ones before it did
            parts.append(await _answer(session, base, call, authorization))
    payload = b"".join(b"--" + boundary.encode() + b"\r\n" + part for part in parts) + b"--" + boundary.encode() + b"--\r\n"
    return web.Response(body=payload, headers={"Content-Type": f"multipart/mixed; boundary={boundary}"})


def parse_batch(content_type: str, body: bytes) -> list[SubRequest]:
    """The sub-requests, in order; a malformed batch is refused as a whole (nothing is run)."""
    # aiohttp decoded the header as UTF-8 with surrogate escapes: this gives its bytes back.
    head = b"Content-Type: " + content_type.encode("utf-8", "surrogateescape") + b"\r\n\r\n"
    message = BytesParser().parsebytes(head + body)
    parts = message.get_payload() if message.is_multipart() else None
    if not parts:
        raise ApiError(400, "A batch request needs at least one part.")
    if len(parts) > MAX_CALLS:
        raise ApiError(400, f"A batch request cannot contain more than {MAX_CALLS} calls.")
    return [_sub_request(index, part) for index, part in enumerate(parts, 1)]


def _sub_request(index: int, part: Message) -> SubRequest:
    if part.get_content_type() != "application/http":
        raise ApiError(400, f"Batch part {index} must be application/http, not {part.get_content_type()}.")
    raw = part.get_payload(decode=True) or b""
    ends = [(raw.find(end), end) for end in (b"\r\n\r\n", b"\n\n") if end in raw]
    head, _, body = raw.partition(min(ends)[1]) if ends else (raw, b"", b"")
    lines = head.decode("latin-1").splitlines()
    request_line = lines[0].split() if lines else []
    if len(request_line) not in (2, 3) or not request_line[1]:
        raise ApiError(400, f"Batch part {index} does not start with an HTTP request line.")
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise ApiError(400, f"Batch part {index} has a malformed header line.")
        headers.append((name.strip(), value.strip()))
    split = urlsplit(request_line[1])
    target = split.path + ("?" + split.query if split.query else "")
    return SubRequest(request_line[0].upper(), target, headers, body, part.get("Content-ID"))


def _own_base(request: web.Request) -> str:
    host, port = request.transport.get_extra_info("sockname")[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


async def _answer(session: aiohttp.ClientSession, base: str, call: SubRequest, authorization: str | None) -> bytes:
    """One part of the reply: `HTTP/1.1 <status>`, the sub-response's headers and body."""
    if not call.target.startswith("/storage/v1/"):
        refused = gcs_error(501, f"Only JSON API calls (/storage/v1/...) can be batched, not {call.method} "
                                 f"{call.target.split('?')[0]}.")
        status, reason, body = refused.status, refused.reason, refused.body
        headers = [("Content-Type", refused.headers["Content-Type"])]
    else:
        forwarded = [(name, value) for name, value in call.headers if name.lower() not in HOP_HEADERS]
        if authorization and not any(name.lower() == "authorization" for name, _ in forwarded):
            forwarded.append(("Authorization", authorization))  # the batch's credentials apply to its calls
        async with session.request(call.method, base + call.target, headers=forwarded, data=call.body or None,
                                   allow_redirects=False) as response:
            status, reason, body = response.status, response.reason or "", await response.read()
            headers = [(name, value) for name, value in response.headers.items() if name.lower() not in HOP_HEADERS]
    content_id = f"Content-ID: <response-{call.content_id.strip('<>')}>\r\n" if call.content_id else ""
    head = "".join(f"{name}: {value}\r\n" for name, value in headers)
    # aiohttp decoded the headers as UTF-8 with surrogate escapes: this gives their bytes back.
    return (f"Content-Type: application/http\r\n{content_id}\r\n"
            f"HTTP/1.1 {status} {reason}\r\n{head}Content-Length: {len(body)}\r\n\r\n").encode("utf-8", "surrogateescape") \
        + body + b"\r\n"


def add_batch_route(app: web.Application) -> None:
    app.router.add_post(PATH, handle_batch)
