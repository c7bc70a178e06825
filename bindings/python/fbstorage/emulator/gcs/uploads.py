"""`/upload/storage/v1/b/{bucket}/o`: media, multipart and resumable uploads, GCS style.

A resumable session is an upload session of the shared kind (uploads.py), so its bytes stream to
a staged file and an emulator reset forgets it. The GCS protocol on its session URL:
- `PUT` with `Content-Range: bytes A-B/TOTAL` (TOTAL `*` while unknown) appends bytes A..B.
  Bytes the session already holds are skipped (a re-sent chunk is accepted, as GCS does); a gap,
  a body of another length or bytes past the total are a 400 that keeps nothing.
- The reply is 308 with `Range: bytes=0-N` (none while empty), or, once the bytes reach TOTAL,
  the object resource: the upload is final. Production's 308 also names the held bytes' CRC32C
  (X-Goog-Running-Hash) and MD5 (X-Range-MD5).
- `Content-Range: bytes */TOTAL` or `bytes */*` with no body asks for the status: 308 again. It
  finalizes only when TOTAL is given and every byte is there (how a client ends an upload of
  unknown size on a chunk boundary).
- `DELETE` cancels (499). A cut connection keeps the bytes up to the last 256 KiB boundary.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from aiohttp import web

from ..auth import ADMIN
from ..blobs import BlobWriter
from ..bodies import iter_body
from ..errors import ApiError, bad_request, html_page, upload_server_answer
from ..metadata import check_upload_resource
from ..multipart import MetadataJsonError, PartCountError, receive_multipart
from ..names import check_object_name, production_name_refusal
from ..session_journal import journaled_state
from ..state import EmulatorState
from ..uploads import ACTIVE, CANCELLED, FINAL, UploadSession, commit_upload, receive_chunk
from .errors import PageError
from .objects import read_json
from .preconditions import Preconditions
from .resource import base_url, object_response
from .json_parse_errors import error_page_text, parse_error
from .upload_checks import check_declared_digests, payload_size_error, verify_declared_digests

GRANULARITY = 256 * 1024
_CONTENT_RANGE = re.compile(r"^bytes\s+(?:(\d+)-(\d+)|\*)/(\d+|\*)$")


@journaled_state("gcs-resumable")
@dataclass(frozen=True)
class ResumableUpload:
    """What a GCS session keeps besides the shared session fields: the start's conditions."""

    conditions: Preconditions

    def to_journal(self) -> list[list[Any]]:
        return [list(condition) for condition in self.conditions.values]

    @classmethod
    def from_journal(cls, value: list[list[Any]]) -> "ResumableUpload":
        return cls(Preconditions(tuple((str(parameter), str(condition), int(number))
                                       for parameter, condition, number in value)))


@dataclass(frozen=True)
class ContentRange:
    first: int | None  # None: a status query (`bytes */…`)
    last: int | None
    total: int | None  # None: `*`, not known yet


def _upload_type(request: web.Request, query: dict[str, str]) -> str:
    return (query.get("uploadType") or request.headers.get("X-Goog-Upload-Protocol") or "media").strip().lower()


async def insert_object(request: web.Request, state: EmulatorState, bucket: str,
                        query: dict[str, str]) -> web.Response:
    upload_type = _upload_type(request, query)
    conditions = Preconditions.from_query(query)
    if upload_type == "resumable":
        return await _start_resumable(request, state, bucket, query, conditions)
    if upload_type not in ("media", "multipart"):
        raise bad_request(f"Unsupported uploadType {upload_type!r}: media, multipart or resumable.")
    if upload_type == "media":
        name = _new_name(query.get("name", ""), state)  # before the body: a media body has no name
    writer = state.store.new_writer(one_shot=True)
    try:
        if upload_type == "multipart":
            try:
                resource, content_type = await _receive_multipart(request, state, writer)
            except MetadataJsonError as error:
                if not state.flavor.checks_gcs_uploads or (message := parse_error(error.text)) is None:
                    raise
                await writer.discard()  # production's page: its JSON error, sent as text/html
                return html_page(400, error_page_text(message))
            name = _new_name(query.get("name") or _resource_name(resource), state)
        else:
            async for piece in iter_body(request):
                await writer.write(piece)
            resource = {key: query[key] for key in ("contentEncoding",) if key in query}
            content_type = request.headers.get("Content-Type")
        metadata = await commit_upload(state.store, bucket, name, writer, resource, content_type,
                                       _commit_check(state, resource, conditions),
                                       state.flavor.upload_defaults(name, firebase=False))
    except BaseException:
        await writer.discard()
        raise
    return object_response(request, metadata)


async def _receive_multipart(request: web.Request, state: EmulatorState, writer: BlobWriter) -> tuple[dict, str | None]:
    try:
        resource, content_type = await receive_multipart(request, writer, parts_need_content_type=False)
    except PartCountError as error:
        raise payload_size_error(error) if state.flavor.checks_gcs_uploads else error
    if state.flavor.checks_gcs_uploads:
        check_declared_digests(resource)
    return resource, content_type


def _commit_check(state: EmulatorState, resource: dict, conditions: Preconditions):
    """The conditions the upload commits under: its preconditions, after the digests it declares."""
    if not state.flavor.checks_gcs_uploads:
        return conditions.check

    def check(stored, new) -> None:
        verify_declared_digests(resource, new)
        conditions.check(stored, new)
    return check


def _new_name(name: str, state: EmulatorState) -> str:
    """The name of the object an upload creates; production refuses one it cannot have with a page."""
    refusal = production_name_refusal(name) if state.flavor.refuses_names_on_create_only else None
    if refusal:
        raise PageError(400, refusal)
    return check_object_name(name)


def _resource_name(resource: dict) -> str:
    name = resource.get("name", "")
    if not isinstance(name, str):
        raise bad_request("The object name must be a string.")
    return name


async def _start_resumable(request: web.Request, state: EmulatorState, bucket: str, query: dict[str, str],
                           conditions: Preconditions) -> web.Response:
    resource = await read_json(request)
    check_upload_resource(resource)  # what the commit would refuse, refused before any byte is sent
    if state.flavor.checks_gcs_uploads:
        check_declared_digests(resource)
    name = _new_name(query.get("name") or _resource_name(resource), state)
    declared = request.headers.get("X-Upload-Content-Length")
    if declared is not None and not declared.strip().isdigit():
        raise bad_request(f"Invalid X-Upload-Content-Length {declared!r}.")
    conditions.check(state.store.get(bucket, name))  # checked again when the upload completes
    session = await state.sessions.start(
        bucket=bucket, name=name, resource=resource, declared_size=int(declared) if declared else None,
        declared_content_type=request.headers.get("X-Upload-Content-Type"), writer=state.store.new_writer(),
        principal=ADMIN, protocol_state=ResumableUpload(conditions))
    path = f"{base_url(request)}/upload/storage/v1/b/{quote(bucket, safe='')}/o"
    if state.flavor.upload_server_answers:  # production's session URL keeps the start's query as sent
        location = f"{path}?{urlencode([*request.query.items(), ('upload_id', session.id)], quote_via=quote)}"
        return web.Response(text="", headers={"Location": location, "X-GUploader-UploadID": session.id})
    location = f"{path}?uploadType=resumable&name={quote(name, safe='')}&upload_id={session.id}"
    return web.Response(headers={"Location": location, "X-GUploader-UploadID": session.id})


def _session(state: EmulatorState, upload_id: str) -> UploadSession:
    session = state.sessions.get(upload_id)
    if session is None or not isinstance(session.protocol_state, ResumableUpload):
        raise ApiError(404, "No such upload session (it was never started, or the emulator was reset).")
    return session


def parse_content_range(header: str | None) -> ContentRange | None:
    if header is None:
        return None
    match = _CONTENT_RANGE.match(header.strip())
    if not match:
        raise bad_request(f"Invalid Content-Range {header!r}: expected 'bytes A-B/TOTAL' or 'bytes */TOTAL'.")
    first, last, total = match.groups()
    content_range = ContentRange(int(first) if first else None, int(last) if last else None,
                                 None if total == "*" else int(total))
    if first is not None and content_range.last < content_range.first:
        raise bad_request(f"Invalid Content-Range {header!r}: the range ends before it starts.")
    return content_range


async def continue_resumable(request: web.Request, state: EmulatorState, upload_id: str) -> web.Response:
    session = _session(state, upload_id)
    content_range = parse_content_range(request.headers.get("Content-Range"))
    async with session.lock:
        if session.state == FINAL:
            return object_response(request, session.result)
        if session.state == CANCELLED:
            raise ApiError(404, "The upload session was cancelled.")
        if content_range is None:  # the whole object in this one request
            length = request.content_length
            if session.received or length is None:
                raise bad_request("Content-Range is required, unless one request with a Content-Length "
                                  "sends the whole object.")
            content_range = ContentRange(0, length - 1, length) if length else ContentRange(None, None, 0)
        total = _checked_total(session, content_range.total)
        if content_range.first is not None:
            await _receive_range(request, session, content_range, total)
        if session.state != ACTIVE:  # a reset cancelled the session while the chunk arrived
            raise ApiError(404, "The upload session was reset.")
        if total is not None and session.received == total:
            return await _finalize(request, state, session)
        return await _incomplete(state, session)


async def _incomplete(state: EmulatorState, session: UploadSession) -> web.Response:
    """308: the bytes held so far, and in production their digests, from the upload server."""
    received = session.received
    headers = {"Range": f"bytes=0-{received - 1}"} if received else {}
    if not state.flavor.upload_server_answers:
        return web.Response(status=308, headers=headers)
    if received:
        md5, crc32c = await session.writer.digests()
        headers["X-Goog-Running-Hash"] = "crc32c=" + base64.b64encode(crc32c.to_bytes(4, "big")).decode("ascii")
        headers["X-Range-MD5"] = md5.hex()
    return upload_server_answer(web.Response(status=308, text="", headers=headers))


def _checked_total(session: UploadSession, total: int | None) -> int | None:
    """The upload's size as this request and the start declare it; a disagreement is a 400."""
    declared = session.declared_size
    if total is not None and declared is not None and total != declared:
        raise bad_request(f"The upload's size is {declared} bytes, not {total}.")
    total = declared if total is None else total
    if total is not None and session.received > total:
        raise bad_request(f"The upload already has {session.received} bytes, more than {total}.")
    return total


async def _receive_range(request: web.Request, session: UploadSession, content_range: ContentRange,
                         total: int | None) -> None:
    first, last = content_range.first, content_range.last
    length = last - first + 1
    if total is not None and last >= total:
        raise bad_request(f"Content-Range bytes {first}-{last} go past the upload's size of {total} bytes.")
    if first > session.received:
        raise bad_request(f"Content-Range starts at {first}, but the upload has only {session.received} bytes.")
    if request.content_length is not None and request.content_length != length:
        raise bad_request(f"Content-Range says {length} bytes, the body has {request.content_length}.")

    def check_length(received: int, complete: bool) -> None:
        if received > length or (complete and received != length):
            raise bad_request(f"Content-Range says {length} bytes, the body has {received}.")
    await receive_chunk(request, session.writer, GRANULARITY, skip=session.received - first, check=check_length)
    if total is not None:
        session.declared_size = total  # later requests must agree


async def _finalize(request: web.Request, state: EmulatorState, session: UploadSession) -> web.Response:
    try:
        session.result = await commit_upload(state.store, session.bucket, session.name, session.writer,
                                             session.resource, session.declared_content_type,
                                             _commit_check(state, session.resource, session.protocol_state.conditions),
                                             state.flavor.upload_defaults(session.name, firebase=False))
    except ApiError:
        session.state = CANCELLED  # a failed condition ends the upload, as in GCS
        await session.writer.discard()
        raise
    session.state = FINAL
    return object_response(request, session.result)


async def cancel_resumable(state: EmulatorState, upload_id: str) -> web.Response:
    session = _session(state, upload_id)
    async with session.lock:
        if session.state == ACTIVE:
            session.state = CANCELLED
            await session.writer.discard()
    return web.Response(status=499, reason="Client Closed Request")
