"""Streaming parser for `multipart/related` uploads: a JSON metadata part, then the data part.

The data part goes straight to a BlobWriter piece by piece, so a large multipart upload never
sits in memory. Errors carry the official emulator's plain-text messages.
"""

from __future__ import annotations

import json
import re
from typing import Any, AsyncIterator, Awaitable, Callable

from aiohttp import web

from .bodies import iter_body
from .blobs import BlobWriter
from .errors import ApiError

MAX_HEADER_BYTES = 64 * 1024
MAX_METADATA_BYTES = 1 << 20
_BOUNDARY = re.compile(r';\s*boundary=(?:"([^"]+)"|([^;\s]+))', re.IGNORECASE)


def multipart_error(message: str) -> ApiError:
    return ApiError(400, message, quirk_text=message)


def _boundary(content_type: str | None) -> str:
    match = _BOUNDARY.search(content_type or "")
    if not (content_type or "").lower().startswith("multipart/related") or not match:
        raise multipart_error(f"Bad content type. {content_type or ''}")
    return match.group(1) or match.group(2)


class _Buffer:
    """Just enough buffering over the body pieces to find delimiters."""

    def __init__(self, pieces: AsyncIterator[bytes]):
        self._pieces = pieces
        self._data = bytearray(b"\r\n")  # so the first delimiter looks like all the others
        self._eof = False

    async def _fill(self) -> None:
        if self._eof:
            raise multipart_error("Malformed multipart body: it ends inside a part.")
        piece = await anext(self._pieces, None)
        if piece is None:
            self._eof = True
        else:
            self._data += piece

    async def read_until(self, marker: bytes, limit: int) -> bytes:
        """The bytes before `marker`, consuming the marker too."""
        start = 0
        while (found := self._data.find(marker, start, limit + len(marker))) < 0:
            if len(self._data) > limit + len(marker):
                raise multipart_error("Malformed multipart body: a part header or metadata is too large.")
            start = max(0, len(self._data) - len(marker) + 1)
            await self._fill()
        value = bytes(self._data[:found])
        del self._data[:found + len(marker)]
        return value

    async def stream_until(self, marker: bytes, sink: Callable[[bytes], Awaitable[None]]) -> None:
        """Pass everything before `marker` to `sink` as it arrives, consuming the marker too."""
        while (found := self._data.find(marker)) < 0:
            safe = len(self._data) - len(marker) + 1  # a marker may straddle the next piece
            if safe > 0:
                await sink(bytes(self._data[:safe]))
                del self._data[:safe]
            await self._fill()
        if found:
            await sink(bytes(self._data[:found]))
        del self._data[:found + len(marker)]

    async def peek(self, size: int) -> bytes:
        """Up to `size` next bytes (fewer only at the end of the body), not consumed."""
        while len(self._data) < size and not self._eof:
            await self._fill()
        return bytes(self._data[:size])

    async def drain(self) -> None:
        async for _ in self._pieces:
            pass


async def receive_multipart(request: web.Request, writer: BlobWriter) -> tuple[dict[str, Any], str]:
    """Parse the body into (metadata resource, data part content type); the data goes to `writer`."""
    delimiter = b"\r\n--" + _boundary(request.headers.get("Content-Type")).encode("latin-1")
    body = _Buffer(iter_body(request))
    await body.read_until(delimiter, MAX_HEADER_BYTES)  # the preamble, if any, is ignored
    await _open_part(body)
    await _part_content_type(body)
    try:
        resource = json.loads(await body.read_until(delimiter, MAX_METADATA_BYTES))
    except (ValueError, UnicodeDecodeError):
        raise multipart_error("Failed to parse multipart request body part. Invalid JSON metadata.") from None
    if not isinstance(resource, dict):
        raise multipart_error("Failed to parse multipart request body part. Metadata is not a JSON object.")
    await _open_part(body)
    data_content_type = await _part_content_type(body)
    await body.stream_until(delimiter, writer.write)
    if await body.peek(2) != b"--":
        raise multipart_error("Unexpected number of parts in request body")
    await body.drain()
    return resource, data_content_type


async def _open_part(body: _Buffer) -> None:
    """After a delimiter: `--` closes the body (too early here), else the rest of the line is padding."""
    if await body.peek(2) == b"--":
        raise multipart_error("Unexpected number of parts in request body")
    await body.read_until(b"\n", MAX_HEADER_BYTES)


async def _part_content_type(body: _Buffer) -> str:
    """Read a part's header lines up to the blank line; its Content-Type is required."""
    content_type = None
    while line := (await body.read_until(b"\n", MAX_HEADER_BYTES)).rstrip(b"\r"):
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-type":
            content_type = value.strip()
    if not content_type:
        raise multipart_error("Failed to parse multipart request body part. Missing content type.")
    return content_type
