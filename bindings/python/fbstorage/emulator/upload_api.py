"""The three upload protocols of `POST|PUT /v0/b/{bucket}/o[/{name}]`: media, multipart, resumable."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from aiohttp import web

from .auth import Principal
from .blobs import BlobWriter
from .bodies import iter_body, read_json_object
from .errors import ApiError, bad_request, not_found, upload_server_answer
from .metadata import Digest, ObjectMetadata, check_upload_resource
from .multipart import MetadataError, PartCountError, receive_multipart
from .names import check_object_name, production_name_refusal
from .rules.access import authorize, needs_documents, prefetch_documents
from .state import EmulatorState
from .store import StoredObject
from .uploads import ACTIVE, CANCELLED, FINAL, UploadSession, commit_upload, receive_chunk

COMMANDS = ({"upload"}, {"upload", "finalize"}, {"finalize"}, {"query"}, {"cancel"})
# The upload server's CORS headers on its refusal of a multipart body.
UPLOAD_SERVER_CORS = {"Access-Control-Allow-Origin": "*",
                      "Access-Control-Expose-Headers": "Content-Length, Content-Type, Date, Server, Transfer-Encoding, "
                                                       "X-GUploader-UploadID, X-Google-Trace"}


async def handle_upload(request: web.Request, state: EmulatorState, bucket: str, path_name: str | None,
                        query: dict[str, str], principal: Principal) -> web.StreamResponse:
    """Pick the protocol from the headers (the `uploadType` query parameter is ignored, as in v0)."""
    if "upload_id" in query:
        return await _continue_resumable(request, state, query["upload_id"])
    name = _new_name(path_name if path_name is not None else query.get("name", ""), state)
    protocol = request.headers.get("X-Goog-Upload-Protocol", "").strip().lower()
    command = request.headers.get("X-Goog-Upload-Command")
    if query.get("uploadType") == "resumable" and not protocol and command is None and state.flavor.refuses_gcs_resumable_start:
        # The GCS JSON API's resumable start, sent to the v0 path by some clients: production's
        # answer is unknown, and taking it as a media upload would store the JSON start body as
        # the object's bytes (the firebase-tools flavor does that, as the official emulator).
        raise bad_request("uploadType=resumable is the GCS JSON API's protocol (served at /upload/storage/v1/b/"
                          f"{bucket}/o); a v0 resumable upload starts with X-Goog-Upload-Protocol: resumable and "
                          "X-Goog-Upload-Command: start.")
    if protocol == "resumable" or command is not None:
        if (command or "").strip().lower() != "start":
            raise bad_request("A resumable upload must begin with X-Goog-Upload-Command: start.")
        return await _start_resumable(request, state, bucket, name, principal)
    writer = state.store.new_writer(one_shot=True)
    try:
        if protocol == "multipart":
            resource, part_type = await _receive_multipart(request, state, writer)
            metadata = await _commit(state, bucket, name, writer, resource, part_type, principal)
        else:
            async for piece in iter_body(request):
                await writer.write(piece)
            metadata = await _commit(state, bucket, name, writer, {}, request.headers.get("Content-Type"),
                                     principal)
    except BaseException:
        await writer.discard()
        raise
    return metadata_response(metadata, state)


async def _receive_multipart(request: web.Request, state: EmulatorState, writer: BlobWriter) -> tuple[dict, str]:
    """Production refuses metadata it cannot read as "Invalid metadata input.", and a body without
    its parts with the upload server's page."""
    try:
        return await receive_multipart(request, writer)
    except MetadataError:
        if state.flavor.upload_server_answers:
            raise bad_request("Invalid metadata input.") from None
        raise
    except PartCountError as error:
        if state.flavor.upload_server_answers:
            raise ApiError(400, error.message, upload_page="Multipart body does not contain 2 or 3 parts.",
                           headers=UPLOAD_SERVER_CORS) from None
        raise


def _new_name(name: str, state: EmulatorState) -> str:
    """The name of the object an upload creates; production refuses one it cannot have (a reserved
    one too) with a bare "Bad Request."."""
    try:
        check_object_name(name)
    except ApiError:
        if state.flavor.refuses_names_on_create_only:
            raise bad_request("Bad Request.") from None
        raise
    if state.flavor.refuses_names_on_create_only and production_name_refusal(name):
        raise bad_request("Bad Request.")
    return name


def metadata_response(metadata: ObjectMetadata, state: EmulatorState,
                      headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(metadata.to_resource(state.flavor), headers=headers)


async def _commit(state: EmulatorState, bucket: str, name: str, writer: BlobWriter, resource: dict[str, Any],
                  default_content_type: str | None, principal: Principal) -> ObjectMetadata:
    """Turn a finished writer into the stored object `name`, replacing any previous one, if the
    rules allow `create` (also for an overwrite, as in the official emulator); they decide under
    the store's commit lock, so no other write comes between."""
    defaults = state.flavor.upload_defaults(name, firebase=True)
    if needs_documents(state.rules, bucket, principal):  # fetched now: the decision under the lock cannot wait
        existing = state.store.get(bucket, name)
        provisional = ObjectMetadata.for_upload(bucket, name, resource, Digest(writer.size, "", 0), default_content_type,
                                                defaults)
        await prefetch_documents(state.rules, state.flavor, "create", bucket, name, principal,
                                 resource=existing.metadata if existing else None, request_resource=provisional)

    def allowed(existing: StoredObject | None, metadata: ObjectMetadata) -> None:
        authorize(state.rules, state.flavor, "create", bucket, name, principal,
                  resource=existing.metadata if existing else None, request_resource=metadata,
                  deny_headers={"X-Goog-Upload-Status": FINAL})
    return await commit_upload(state.store, bucket, name, writer, resource, default_content_type, allowed, defaults)


# Resumable uploads.

async def _start_resumable(request: web.Request, state: EmulatorState, bucket: str, name: str,
                           principal: Principal) -> web.Response:
    """No rules yet: they decide at finalize, with this caller's credentials. The session URL is
    the capability for the chunk requests, which carry none."""
    resource = await read_json_object(request, "The resumable upload start body")
    check_upload_resource(resource)
    declared = request.headers.get("X-Goog-Upload-Header-Content-Length")
    if declared is not None and not declared.strip().isdigit():
        raise bad_request(f"Invalid X-Goog-Upload-Header-Content-Length {declared!r}.")
    session = await state.sessions.start(
        bucket=bucket, name=name, resource=resource,
        declared_size=int(declared) if declared is not None else None,
        declared_content_type=request.headers.get("X-Goog-Upload-Header-Content-Type"),
        writer=state.store.new_writer(), principal=principal)
    upload_url = (f"{request.scheme}://{request.host}/v0/b/{quote(bucket, safe='')}/o?name={quote(name, safe='')}"
                  f"&upload_id={session.id}&upload_protocol=resumable")
    production = state.flavor.upload_server_answers
    headers = {
        "X-Goog-Upload-Status": ACTIVE,
        "X-Goog-Upload-URL": upload_url,
        "X-Goog-Upload-Chunk-Granularity": str(state.flavor.chunk_granularity),
        "X-GUploader-UploadID": session.id,
        "X-Goog-Upload-Control-URL": upload_url if production else "",
    }
    return upload_server_answer(web.Response(text="", headers=headers)) if production else web.Response(headers=headers)


async def _continue_resumable(request: web.Request, state: EmulatorState, upload_id: str) -> web.Response:
    session = state.sessions.get(upload_id)
    if session is None:
        raise not_found("Upload session not found.")
    header = request.headers.get("X-Goog-Upload-Command", "")
    commands = {command.strip().lower() for command in header.split(",") if command.strip()}
    if commands not in COMMANDS:
        raise bad_request(f"Unsupported X-Goog-Upload-Command {header!r}.",
                          headers=_session_headers(session, state, with_size=True))
    async with session.lock:
        if commands == {"query"}:
            return _query_answer(session, state)
        if commands == {"cancel"}:
            return await _cancel(state, session)
        if session.state == FINAL and commands == {"finalize"}:
            return metadata_response(session.result, state, _session_headers(session, state, with_size=True))
        if session.state != ACTIVE:
            raise bad_request(f"The upload is {session.state}.", headers=_session_headers(session, state, with_size=True))
        if "upload" in commands:
            await _receive_chunk(request, state, session, last="finalize" in commands)
            if session.state != ACTIVE:  # a reset cancelled the session while the chunk arrived
                raise not_found("The upload session was reset.")
        if "finalize" in commands:
            return await _finalize(state, session)
        reports_size = state.flavor.reports_size_on_chunks
        response = web.Response(text="" if reports_size else "OK",
                                headers=_session_headers(session, state, with_size=reports_size))
        return upload_server_answer(response) if state.flavor.upload_server_answers else response


def _query_answer(session: UploadSession, state: EmulatorState) -> web.Response:
    """Production answers an active session's size and chunk granularity, an ended one's status only."""
    if not state.flavor.upload_server_answers:
        return web.Response(headers=_session_headers(session, state, with_size=True))
    headers = _session_headers(session, state, with_size=session.state == ACTIVE)
    if session.state == ACTIVE:
        headers["X-Goog-Upload-Chunk-Granularity"] = str(state.flavor.chunk_granularity)
    return upload_server_answer(web.Response(text="", headers=headers))


def _session_headers(session: UploadSession, state: EmulatorState, *, with_size: bool) -> dict[str, str]:
    headers = {"X-Goog-Upload-Status": session.state}
    if with_size:
        headers["X-Goog-Upload-Size-Received"] = str(session.received)
    return headers


def _chunk_error(message: str, session: UploadSession, state: EmulatorState) -> ApiError:
    """A rejected chunk; production replies carry the session status and size."""
    return bad_request(message, headers=_chunk_error_headers(session, state))


def _chunk_error_headers(session: UploadSession, state: EmulatorState) -> dict[str, str]:
    return _session_headers(session, state, with_size=state.flavor.reports_size_on_chunks)


async def _cancel(state: EmulatorState, session: UploadSession) -> web.Response:
    if session.state == FINAL:
        raise bad_request("The upload is already final.", headers=_session_headers(session, state, with_size=True))
    if session.state == ACTIVE:
        session.state = CANCELLED
        await session.writer.discard()
    if state.flavor.upload_server_answers:
        return upload_server_answer(web.Response(text="", headers=_session_headers(session, state, with_size=False)))
    return web.Response(headers=_session_headers(session, state, with_size=True))


async def _receive_chunk(request: web.Request, state: EmulatorState, session: UploadSession, *, last: bool) -> None:
    """Append the body. A dropped connection keeps the bytes up to the last granularity boundary
    (so `query` then resuming works); a rejected chunk keeps none of them."""
    checks = state.flavor.checks_upload_offsets
    start = session.writer.size
    if checks:
        offset = request.headers.get("X-Goog-Upload-Offset")
        if offset is not None and (not offset.strip().isdigit() or int(offset) != start):
            raise ApiError(400, f"Uploading at wrong offset: {offset!r}, expected {start}.", quirk_text="Bad Request",
                           upload_page=f"Client uploaded to the wrong offset ({offset.strip()} instead of {start}).",
                           headers={} if state.flavor.upload_server_answers else _chunk_error_headers(session, state))
        if request.content_length is not None:
            _check_chunk_size(session, state, start, request.content_length, last)

    def check_chunk(received: int, complete: bool) -> None:
        if session.declared_size is not None and start + received > session.declared_size:
            raise _chunk_error(f"Too many bytes: the upload was declared as {session.declared_size} bytes.",
                               session, state)
        if complete:
            _check_chunk_size(session, state, start, received, last)
    try:
        await receive_chunk(request, session.writer, state.flavor.chunk_granularity,
                            check=check_chunk if checks else None)
    except ApiError as error:
        error.headers.update(_session_headers(session, state, with_size=state.flavor.reports_size_on_chunks))
        raise


def _check_chunk_size(session: UploadSession, state: EmulatorState, start: int, length: int, last: bool) -> None:
    granularity = state.flavor.chunk_granularity
    if session.declared_size is not None and start + length > session.declared_size:
        raise _chunk_error(f"Too many bytes: the upload was declared as {session.declared_size} bytes.", session, state)
    if not last and length % granularity:
        raise _chunk_error(f"A chunk that does not finalize must be a multiple of {granularity} bytes, not {length}.",
                           session, state)


async def _finalize(state: EmulatorState, session: UploadSession) -> web.Response:
    declared = session.declared_size
    if state.flavor.checks_upload_offsets and declared is not None and session.received != declared:
        raise bad_request(f"The upload has {session.received} bytes but {declared} were declared.",
                          headers=_session_headers(session, state, with_size=True))
    try:
        session.result = await _commit(state, session.bucket, session.name, session.writer, session.resource,
                                       session.declared_content_type, session.principal)
    except ApiError as error:
        if error.status in (401, 403):  # denied by the rules: the staged bytes go, the session is over
            session.state = CANCELLED
            await session.writer.discard()
        raise
    session.state = FINAL
    return metadata_response(session.result, state, _session_headers(session, state, with_size=True))
