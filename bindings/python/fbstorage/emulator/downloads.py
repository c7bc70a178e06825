"""`?alt=media`: object bytes with the object headers of wire-protocol.md §1.2 and Range support."""

from __future__ import annotations

import base64
import logging
import re

from aiohttp import web

from .errors import ApiError
from .flavor import Flavor
from .store import StoredObject

log = logging.getLogger(__name__)
_RANGE = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*(?:,.*)?$", re.IGNORECASE)


class UnsatisfiableRange(Exception):
    """The Range header is valid but selects no byte of the object."""


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """(start, end exclusive) of the first range; None for no or a malformed Range (whole body)."""
    match = _RANGE.match(header or "")
    if not match or match.group(1) == match.group(2) == "":
        return None
    first, last = match.group(1), match.group(2)
    if first == "":  # suffix range: the last N bytes
        length = int(last)
        if not length or not size:
            raise UnsatisfiableRange
        return size - min(length, size), size
    start = int(first)
    if last != "" and int(last) < start:
        return None  # syntactically invalid: ignored, as HTTP says
    if start >= size:
        raise UnsatisfiableRange
    return start, size if last == "" else min(int(last) + 1, size)


def object_headers(stored: StoredObject, flavor: Flavor) -> dict[str, str]:
    metadata = stored.metadata
    crc = base64.b64encode(metadata.crc32c.to_bytes(4, "big")).decode("ascii")
    basename = metadata.name.rsplit("/", 1)[-1]
    headers = {
        "Accept-Ranges": "bytes",
        "Content-Type": metadata.content_type or "application/octet-stream",
        "Content-Disposition": f"{metadata.content_disposition or 'attachment'}; {flavor.filename_parameter(basename)}",
        "ETag": metadata.etag,
        "x-goog-generation": str(metadata.generation),
        "x-goog-metageneration": str(metadata.metageneration),
        "x-goog-storage-class": "STANDARD",
        "x-goog-hash": f"crc32c={crc},md5={metadata.md5_hash}",
    }
    optional = {"Cache-Control": metadata.cache_control, "Content-Encoding": metadata.content_encoding,
                "Content-Language": metadata.content_language}
    headers.update({name: value for name, value in optional.items() if value})
    return headers


async def download_response(request: web.Request, stored: StoredObject, flavor: Flavor,
                            extra_headers: dict[str, str] | None = None) -> web.StreamResponse:
    """`extra_headers` add to (or replace) the object headers: the XML API has its own ETag."""
    size = stored.blob.size
    headers = {**object_headers(stored, flavor), **(extra_headers or {})}
    try:
        span = parse_range(request.headers.get("Range"), size)
    except UnsatisfiableRange:
        if flavor.rejects_unsatisfiable_range:
            raise ApiError(416, f"Requested range not satisfiable for an object of {size} bytes.",
                           headers={"Content-Range": f"bytes */{size}"}) from None
        span = None
    if span is None:
        start, end, status = 0, size, 200
    else:
        start, end = span
        status = 206
        headers["Content-Range"] = f"bytes {start}-{end - 1}/{size}"
    return await stream_bytes(request, stored, start, end, status, headers)


async def stream_bytes(request: web.Request, stored: StoredObject, start: int, end: int, status: int,
                       headers: dict[str, str]) -> web.StreamResponse:
    """Send bytes [start, end) of the object, a piece at a time."""
    pieces = stored.blob.pieces(start, end)  # opened before any await: see FileBlob.pieces
    response = web.StreamResponse(status=status, headers=headers)
    response.content_length = end - start
    await response.prepare(request)
    sent = 0
    try:
        if request.method != "HEAD":
            for piece in pieces:
                await response.write(piece)
                sent += len(piece)
        await response.write_eof()
    except ConnectionError:  # the client went away: routine for a cancelled or paused download
        log.info("client disconnected after %d of %d bytes of %s/%s", sent, end - start,
                 stored.metadata.bucket, stored.metadata.name)
    return response
