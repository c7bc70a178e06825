"""Reading request bodies in large pieces, with client disconnects (real or injected) made explicit."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator

from aiohttp import ClientPayloadError, StreamReader, web
from aiohttp.http_exceptions import ContentEncodingError, HttpProcessingError

from .errors import bad_request
from .json_input import JsonTooDeep, load_json
from .limits import BODY_LIMIT, SMALL_BODY_BYTES, body_too_large

PIECE_BYTES = 1 << 20  # hand bodies on in ~1 MiB pieces: fewer, larger hash and write calls
# Request key set by fault injection: the connection drops after this many body bytes.
DROP_AFTER_BYTES = "fbstorage.emulator.drop_after_bytes"


class BodyDropped(Exception):
    """The connection ended before the whole request body arrived."""


_DISCONNECTS = (ConnectionError, ClientPayloadError, HttpProcessingError, web.RequestPayloadError,
                asyncio.IncompleteReadError)


def _salvage_buffered(content: StreamReader) -> bytes:
    """Bytes that arrived before the connection dropped but were not read yet.

    Once the connection is lost, readany() raises without returning the buffer, yet production
    keeps every byte it received. aiohttp has no public call for this, so use its internal
    reader; if that ever changes, the bytes are lost as they would be with readany().
    """
    read_buffer = getattr(content, "_read_nowait", None)
    try:
        return read_buffer(-1) if read_buffer is not None else b""
    except (RuntimeError, ValueError, *_DISCONNECTS):
        return b""


async def iter_body(request: web.Request) -> AsyncIterator[bytes]:
    """Yield the request body in pieces of about PIECE_BYTES; raise BodyDropped if it is cut short
    (after yielding every byte that did arrive), a 413 once it passes its route's bound (limits.py)."""
    limit = request.get(DROP_AFTER_BYTES)
    bound = request.get(BODY_LIMIT)
    received = 0
    buffered: list[bytes] = []
    buffered_bytes = 0
    dropped: BodyDropped | None = None
    while dropped is None:
        try:
            data = await request.content.readany()
        except _DISCONNECTS as error:  # aiohttp's ways of reporting a lost or garbled body
            if isinstance(error.__cause__, ContentEncodingError):
                raise bad_request(f"The request body is not valid {request.headers.get('Content-Encoding')} "
                                  "(its Content-Encoding).") from None
            data, dropped = _salvage_buffered(request.content), BodyDropped(str(error) or type(error).__name__)
            dropped.__cause__ = error
        if limit is not None and received + len(data) >= limit:
            data = data[:max(0, limit - received)]
            dropped = BodyDropped(f"fault injection dropped the connection after {limit} body bytes")
        received += len(data)
        if bound is not None and received > bound:
            raise body_too_large(bound)
        if data:
            buffered.append(data)
            buffered_bytes += len(data)
            if buffered_bytes < PIECE_BYTES and dropped is None:
                continue
        if buffered:
            yield buffered[0] if len(buffered) == 1 else b"".join(buffered)
            buffered, buffered_bytes = [], 0
        if not data and dropped is None:
            return
    raise dropped


async def read_small_body(request: web.Request) -> bytes:
    """The whole body of a request that carries JSON or other small data: at most its route's
    bound, or SMALL_BODY_BYTES on a route that streams larger bodies."""
    limit = request.get(BODY_LIMIT) or SMALL_BODY_BYTES
    body = bytearray()
    async for piece in iter_body(request):
        body += piece
        if len(body) > limit:
            raise body_too_large(limit)
    return bytes(body)


async def read_json_object(request: web.Request, what: str) -> dict[str, Any]:
    """A small body holding a JSON object (an empty body is `{}`); anything else is a 400 that
    says `what` the body is."""
    body = await read_small_body(request)
    try:
        value = load_json(body) if body.strip() else {}
    except JsonTooDeep as error:
        raise bad_request(f"{what}: {error}.") from None
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise bad_request(f"{what} must be a JSON object.")
    return value
