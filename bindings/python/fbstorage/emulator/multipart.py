"""Streaming parser for `multipart/related` uploads: a JSON metadata part, then the data part.

Line breaks are CRLF or bare LF, as in Go's mime/multipart: the line break that ends the first
delimiter line decides the one before every later delimiter (gcsfs, for one, sends LF only, and
GCS accepts it). After a CRLF first line, `\n--boundary` is data, so a body that switches to bare
LF later has no closing delimiter and is refused.

The head (everything before the data) is parsed by plain functions over the bytes received so
far, again from its start whenever a piece ends inside it (`_NeedMore`): it is small, and it
usually comes whole in the first piece. The data part then goes straight to a BlobWriter piece
by piece, so a large multipart upload never sits in memory. Errors carry the official
emulator's plain-text messages.
"""

from __future__ import annotations

import re
from typing import Any, AsyncIterator, Awaitable, Callable, TypeVar

from aiohttp import web

from .bodies import iter_body
from .blobs import BlobWriter
from .errors import ApiError
from .json_input import JsonTooDeep, load_json

MAX_HEADER_BYTES = 64 * 1024
MAX_METADATA_BYTES = 1 << 20
T = TypeVar("T")
# Quoted with " as RFC 2046 has it, or with ' as Python's email package (gsutil's apitools) writes it.
_BOUNDARY = re.compile(r';\s*boundary=(?:"([^"]+)"|\'([^\']+)\'|([^;\s]+))', re.IGNORECASE)


class MultipartError(ApiError):
    """A body that is not a multipart upload."""

    def __init__(self, message: str):
        super().__init__(400, message, quirk_text=message)


def multipart_error(message: str) -> MultipartError:
    return MultipartError(message)


class MetadataError(MultipartError):
    """A first part that is no JSON object."""


class MetadataJsonError(MetadataError):
    """A metadata part that is not JSON; `text` is the part, as received."""

    def __init__(self, text: str):
        super().__init__("Failed to parse multipart request body part. Invalid JSON metadata.")
        self.text = text


class PartCountError(MultipartError):
    """A body that closes before its data part: `parts` is how many parts it had (0 or 1)."""

    def __init__(self, parts: int):
        super().__init__("Unexpected number of parts in request body")
        self.parts = parts


def _boundary(content_type: str | None) -> str:
    match = _BOUNDARY.search(content_type or "")
    if not (content_type or "").lower().startswith("multipart/related") or not match:
        raise multipart_error(f"Bad content type. {content_type or ''}")
    return match.group(1) or match.group(2) or match.group(3)


class _NeedMore(Exception):
    """The bytes so far end before the part being parsed does."""


class _Cursor:
    """A position in the body bytes received so far (all of them when `complete`)."""

    def __init__(self, data: bytes | bytearray, complete: bool):
        self.data, self.position, self.complete = data, 0, complete

    def read_until(self, marker: bytes, limit: int) -> bytes:
        """The bytes before `marker` (at most `limit` of them), consuming the marker too."""
        found = self.data.find(marker, self.position, self.position + limit + len(marker))
        if found < 0:
            if len(self.data) - self.position > limit + len(marker):
                raise multipart_error("Malformed multipart body: a part header or metadata is too large.")
            if self.complete:
                raise multipart_error("Malformed multipart body: it ends inside a part.")
            raise _NeedMore
        value = bytes(self.data[self.position:found])
        self.position = found + len(marker)
        return value

    def peek(self, size: int) -> bytes:
        """Up to `size` next bytes (fewer only at the end of the body), not consumed."""
        if len(self.data) - self.position < size and not self.complete:
            raise _NeedMore
        return bytes(self.data[self.position:self.position + size])


class _Buffer:
    """The body pieces received and not yet consumed."""

    def __init__(self, pieces: AsyncIterator[bytes]):
        self._pieces = pieces
        self.data = bytearray(b"\n")  # so the first delimiter looks like all the others
        self.eof = False

    async def fill(self) -> None:
        if self.eof:
            raise multipart_error("Malformed multipart body: it ends inside a part.")
        piece = await anext(self._pieces, None)
        if piece is None:
            self.eof = True
        else:
            self.data += piece

    async def parse(self, parser: Callable[[_Cursor], T]) -> T:
        """`parser`'s result on the bytes from here, once enough of them arrived; what it read is consumed."""
        while True:
            cursor = _Cursor(self.data, self.eof)
            try:
                result = parser(cursor)
            except _NeedMore:
                await self.fill()
                continue
            del self.data[:cursor.position]
            return result

    async def stream_until(self, marker: bytes, sink: Callable[[bytes], Awaitable[None]]) -> None:
        """Pass everything before `marker` to `sink` as it arrives, consuming the marker too."""
        while (found := self.data.find(marker)) < 0:
            safe = len(self.data) - len(marker) + 1  # a marker may straddle the next piece
            if safe > 0:
                await sink(bytes(self.data[:safe]))
                del self.data[:safe]
            await self.fill()
        if found:
            await sink(bytes(self.data[:found]))
        del self.data[:found + len(marker)]

    async def drain(self) -> None:
        async for _ in self._pieces:
            pass


async def receive_multipart(request: web.Request, writer: BlobWriter,
                            parts_need_content_type: bool = True) -> tuple[dict[str, Any], str | None]:
    """Parse the body into (metadata resource, data part content type); the data goes to `writer`.
    Without `parts_need_content_type` (the GCS JSON API, as GCS: rclone sends a data part with
    no header at all), a part may lack its Content-Type (None for the data part's)."""
    return await parse_multipart(request.headers.get("Content-Type"), iter_body(request), writer,
                                 parts_need_content_type)


async def parse_multipart(content_type: str | None, pieces: AsyncIterator[bytes], writer: BlobWriter,
                          parts_need_content_type: bool = True) -> tuple[dict[str, Any], str | None]:
    """receive_multipart on the body's pieces.

    Everything before the data (the metadata part and the data part's header) is parsed in one
    go once it has arrived, usually with the first piece of the body: a small upload's whole
    body is one piece, so it costs no more than a few awaits.
    """
    # aiohttp decoded the header as UTF-8 with surrogate escapes: this gives its bytes back.
    dash_boundary = b"--" + _boundary(content_type).encode("utf-8", "surrogateescape")
    body = _Buffer(pieces)
    await body.fill()  # a small body arrives in one piece: its head then parses at the first try
    resource, data_content_type, delimiter = await body.parse(
        lambda cursor: _head(cursor, dash_boundary, parts_need_content_type))
    await body.stream_until(delimiter, writer.write)
    if await body.parse(lambda cursor: cursor.peek(2)) != b"--":
        raise multipart_error("Unexpected number of parts in request body")
    await body.drain()
    return resource, data_content_type


def _head(body: _Cursor, dash_boundary: bytes, need_content_type: bool) -> tuple[dict[str, Any], str | None, bytes]:
    """The metadata resource, the data part's content type and the delimiter that ends the data
    part (the first delimiter's line break, then `--boundary`); `body` is left at the data."""
    body.read_until(b"\n" + dash_boundary, MAX_HEADER_BYTES)  # the preamble, if any, is ignored
    delimiter = (b"\r\n" if _open_part(body, 0).endswith(b"\r") else b"\n") + dash_boundary
    _part_content_type(body, need_content_type)
    part = body.read_until(delimiter, MAX_METADATA_BYTES)
    try:
        resource = load_json(part)
    except JsonTooDeep as error:
        raise MetadataError(f"Failed to parse multipart request body part. Invalid JSON metadata: {error}.") from None
    except ValueError:
        raise MetadataJsonError(part.decode("utf-8", "replace")) from None
    if not isinstance(resource, dict):
        raise MetadataError("Failed to parse multipart request body part. Metadata is not a JSON object.")
    _open_part(body, 1)
    return resource, _part_content_type(body, need_content_type), delimiter


def _open_part(body: _Cursor, parts_before: int) -> bytes:
    """After a delimiter: `--` closes the body (too early here), else the rest of the line is
    padding; returned without its LF."""
    if body.peek(2) == b"--":
        raise PartCountError(parts_before)
    return body.read_until(b"\n", MAX_HEADER_BYTES)


def _part_content_type(body: _Cursor, required: bool) -> str | None:
    """Read a part's header lines up to the blank line; its Content-Type, if `required`, must be there."""
    content_type = None
    while line := body.read_until(b"\n", MAX_HEADER_BYTES).rstrip(b"\r"):
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-type":
            content_type = value.strip()
    if not content_type and required:
        raise multipart_error("Failed to parse multipart request body part. Missing content type.")
    return content_type or None
