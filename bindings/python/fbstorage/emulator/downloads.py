"""`?alt=media`: object bytes with the object headers of wire-protocol.md §1.2 and Range support."""

from __future__ import annotations

import base64
import logging
import re
from email.utils import formatdate
from xml.sax.saxutils import escape

from aiohttp import web

from .errors import ApiError, html_page
from .flavor import Flavor
from .metadata import TOKENS_KEY, ObjectMetadata
from .store import StoredObject

log = logging.getLogger(__name__)
_RANGE = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*(?:,.*)?$", re.IGNORECASE)


class UnsatisfiableRange(Exception):
    """The Range header is valid but selects no byte of the object."""


class SuffixOfEmpty(UnsatisfiableRange):
    """`bytes=-N` (N > 0) of an empty object: production's Firebase API sends the whole (empty)
    object, its JSON API a 206 `bytes 0-0/0`."""


# Production's 416 answers: the Firebase API's is an XML error, the JSON API's a text page.
INVALID_RANGE_XML = ("<?xml version='1.0' encoding='UTF-8'?><Error><Code>InvalidRange</Code>"
                     "<Message>The requested range cannot be satisfied.</Message><Details>{}</Details></Error>")
JSON_API_PREFIXES = ("/storage/v1/", "/download/storage/v1/")
# Object bytes are served with their stored type on the origin that also serves the UI and the
# control routes: an HTML object opened in a browser runs sandboxed, in an opaque origin (it
# sends `Origin: null`, which the cross-site policy refuses), and no type is sniffed.
SANDBOXED = {"Content-Security-Policy": "sandbox", "X-Content-Type-Options": "nosniff"}


#: RFC 9110's token: the characters a header field name may have.
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """(start, end exclusive) of the first range; None for no or a malformed Range (whole body)."""
    match = _RANGE.match(header or "")
    if not match or match.group(1) == match.group(2) == "":
        return None
    first, last = match.group(1), match.group(2)
    if first == "":  # suffix range: the last N bytes
        length = int(last)
        if not length:
            raise UnsatisfiableRange
        if not size:
            raise SuffixOfEmpty
        return size - min(length, size), size
    start = int(first)
    if last != "" and int(last) < start:
        return None  # syntactically invalid: ignored, as HTTP says
    if start >= size:
        raise UnsatisfiableRange
    return start, size if last == "" else min(int(last) + 1, size)


def object_headers(stored: StoredObject, flavor: Flavor, *, firebase: bool = True) -> dict[str, str]:
    """The object's headers on a download through the Firebase API (`firebase`) or the GCS APIs."""
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
    if flavor.production_headers:
        headers.update(_stored_object_headers(metadata, crc, firebase))
    headers.update({"Cache-Control": metadata.cache_control, "Content-Encoding": metadata.content_encoding,
                    "Content-Language": metadata.content_language})
    return {name: value for name, value in headers.items() if value}


def _stored_object_headers(metadata: ObjectMetadata, crc: str, firebase: bool) -> dict[str, str | None]:
    """Production's: Last-Modified, the stored length and encoding; through the GCS APIs the bytes
    are an attachment, whatever the stored disposition. The Firebase API sends the stored
    disposition as is (none when none), the custom metadata as x-goog-meta-*, the quoted MD5 in hex
    as ETag, and an x-goog-hash with a space after the comma."""
    headers = {
        "Content-Disposition": "attachment",
        "Last-Modified": formatdate(metadata.updated_us / 1e6, usegmt=True),
        "x-goog-stored-content-length": str(metadata.size),
        "x-goog-stored-content-encoding": metadata.content_encoding or "identity",
    }
    if firebase:
        headers["Content-Disposition"] = metadata.content_disposition  # None: not sent
        custom = dict(metadata.custom)
        if metadata.download_tokens:
            custom[TOKENS_KEY] = ",".join(metadata.download_tokens)
        # A key that cannot be a header name (a space, a colon, non-ASCII: the JSON APIs store
        # them) is not sent as one; its value stays in the object's metadata.
        headers.update({f"x-goog-meta-{key.lower()}": value for key, value in custom.items() if _HEADER_NAME.fullmatch(key)})
        headers["ETag"] = '"' + base64.b64decode(metadata.md5_hash).hex() + '"'
        headers["x-goog-hash"] = f"crc32c={crc}, md5={metadata.md5_hash}"
    return headers


async def download_response(request: web.Request, stored: StoredObject, flavor: Flavor,
                            extra_headers: dict[str, str] | None = None) -> web.StreamResponse:
    """`extra_headers` add to (or replace) the object headers: the XML API has its own ETag."""
    size = stored.blob.size
    firebase = request.path.startswith("/v0/")
    headers = {**object_headers(stored, flavor, firebase=firebase), **(extra_headers or {})}
    content_range = None
    try:
        span = parse_range(request.headers.get("Range"), size)
    except UnsatisfiableRange as unsatisfiable:
        suffix_of_empty = isinstance(unsatisfiable, SuffixOfEmpty)
        if not flavor.rejects_unsatisfiable_range or (suffix_of_empty and firebase):
            span = None
        elif suffix_of_empty:
            span, content_range = (0, 0), "bytes 0-0/0"
        else:
            return _unsatisfiable(request, headers, size, firebase)
    if span is None:
        start, end, status = 0, size, 200
    else:
        start, end = span
        status = 206
        headers["Content-Range"] = content_range or f"bytes {start}-{end - 1}/{size}"
        if flavor.production_headers and request.path.startswith(JSON_API_PREFIXES):
            # The JSON API vouches for a part with the crc32c alone, and only if the part is the whole.
            crc32c = headers.pop("x-goog-hash").split(",")[0]
            if (start, end) == (0, size):
                headers["x-goog-hash"] = crc32c
    return await stream_bytes(request, stored, start, end, status, headers)


def _unsatisfiable(request: web.Request, headers: dict[str, str], size: int, firebase: bool) -> web.Response:
    if firebase:  # with the object's headers: the size is in x-goog-stored-content-length (clients read it)
        headers = {name: value for name, value in headers.items() if name != "Content-Type"}
        return web.Response(status=416, text=INVALID_RANGE_XML.format(escape(request.headers["Range"])),
                            content_type="application/xml", headers=headers)
    unsatisfied = {"Content-Range": f"bytes */{size}"}
    if request.path.startswith(JSON_API_PREFIXES):
        return html_page(416, "Request range not satisfiable", unsatisfied)
    raise ApiError(416, f"Requested range not satisfiable for an object of {size} bytes.", headers=unsatisfied)


async def stream_bytes(request: web.Request, stored: StoredObject, start: int, end: int, status: int,
                       headers: dict[str, str]) -> web.StreamResponse:
    """Send bytes [start, end) of the object, a piece at a time, sandboxed."""
    pieces = stored.blob.pieces(start, end)  # opened before any await: see FileBlob.pieces
    response = web.StreamResponse(status=status, headers={**SANDBOXED, **headers})
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
