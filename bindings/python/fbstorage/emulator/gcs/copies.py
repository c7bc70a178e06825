"""Server-side copies: copyTo, rewriteTo (in steps, resumed by rewriteToken) and compose.

Bytes go from the source blob to a new writer piece by piece, so no object is ever held whole.
The destination's conditions are checked again under the store's commit lock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from aiohttp import web

from ..auth import ADMIN
from ..blobs import BlobWriter
from ..errors import ApiError, bad_request
from ..metadata import ObjectMetadata
from ..state import EmulatorState
from ..store import StoredObject
from ..uploads import ACTIVE, CANCELLED, FINAL, commit_upload
from .objects import read_json
from .preconditions import Preconditions, int_parameter, requested_object
from .resource import copied_resource, object_response, upload_resource

REWRITE_BYTES_PER_CALL = 8 << 20  # a larger object takes several rewriteTo calls, as in GCS
MAX_COMPOSE_SOURCES = 32


@dataclass(frozen=True)
class Rewrite:
    """What a rewrite session (an upload session fed from an object) remembers between calls."""

    source_bucket: str
    source_name: str
    source_generation: int
    destination_conditions: Preconditions


async def write_pieces(writer: BlobWriter, pieces: Iterator[bytes]) -> None:
    for piece in pieces:
        await writer.write(bytes(piece))  # an in-memory blob's pieces are views; the hashers take bytes


def _integer(value: Any, what: str) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise bad_request(f"{what} must be an integer, not {value!r}.") from None


def _source(state: EmulatorState, bucket: str, name: str, query: dict[str, str]) -> StoredObject:
    stored = requested_object(state.store, bucket, name, int_parameter(query, "sourceGeneration"))
    Preconditions.from_query(query, source=True).check(stored)
    return stored


async def write_object(state: EmulatorState, bucket: str, name: str, resource: dict[str, Any],
                        sources: list[Iterator[bytes]], conditions: Preconditions) -> ObjectMetadata:
    """`sources` are the source blobs' pieces, opened before any await: a concurrent overwrite
    or delete of a source cannot take its bytes away (see FileBlob.pieces)."""
    writer = state.store.new_writer()
    try:
        for pieces in sources:
            await write_pieces(writer, pieces)
        return await commit_upload(state.store, bucket, name, writer, resource, None, conditions.check,
                                   state.flavor.upload_defaults(name, firebase=False))
    except BaseException:
        await writer.discard()
        raise


async def copy_object(request: web.Request, state: EmulatorState, source: tuple[str, str],
                      destination: tuple[str, str], query: dict[str, str]) -> web.Response:
    changes = await read_json(request)
    stored = _source(state, *source, query)
    conditions = Preconditions.from_query(query)
    conditions.check(state.store.get(*destination))
    metadata = await write_object(state, *destination, upload_resource(stored.metadata, changes),
                                   [stored.blob.pieces(0, stored.metadata.size)], conditions)
    return object_response(request, metadata, copied_resource(request, metadata))


async def rewrite_object(request: web.Request, state: EmulatorState, source: tuple[str, str],
                         destination: tuple[str, str], query: dict[str, str]) -> web.Response:
    """Copies up to `maxBytesRewrittenPerCall` bytes per call; until done, the reply carries the
    `rewriteToken` that continues the rewrite (the id of an upload session)."""
    changes = await read_json(request)
    step = int_parameter(query, "maxBytesRewrittenPerCall")
    step = REWRITE_BYTES_PER_CALL if step is None else step
    if step <= 0 or step % (1 << 20):
        raise bad_request("maxBytesRewrittenPerCall must be a positive multiple of 1048576.")
    token = query.get("rewriteToken")
    if token:
        session = state.sessions.get(token)
        rewrite = session.protocol_state if session else None
        if (not isinstance(rewrite, Rewrite) or (rewrite.source_bucket, rewrite.source_name) != source
                or (session.bucket, session.name) != destination):
            raise bad_request("Invalid rewriteToken.")
    else:
        stored = _source(state, *source, query)
        conditions = Preconditions.from_query(query)
        conditions.check(state.store.get(*destination))
        session = await state.sessions.start(
            bucket=destination[0], name=destination[1], resource=upload_resource(stored.metadata, changes),
            declared_size=stored.metadata.size, declared_content_type=None, writer=state.store.new_writer(),
            principal=ADMIN, protocol_state=Rewrite(*source, stored.metadata.generation, conditions))
    async with session.lock:  # one call at a time; a finished, failed or reset rewrite takes no more
        if session.state != ACTIVE:
            raise bad_request("Invalid rewriteToken: the rewrite is over.")
        writer = session.writer
        try:  # any failure ends the rewrite and deletes its bytes
            stored = _source(state, *source, query)  # the live source now, its pieces opened before any await
            if stored.metadata.generation != session.protocol_state.source_generation:
                raise ApiError(412, "The source object changed during the rewrite.")
            size = stored.metadata.size
            await write_pieces(writer, stored.blob.pieces(writer.size, min(size, writer.size + step)))
            if writer.size == size:
                session.result = await commit_upload(state.store, session.bucket, session.name, writer,
                                                     session.resource, None,
                                                     session.protocol_state.destination_conditions.check,
                                                     state.flavor.upload_defaults(session.name, firebase=False))
                session.state = FINAL
        except BaseException:
            session.state = CANCELLED
            await writer.discard()
            raise
    reply: dict[str, Any] = {"kind": "storage#rewriteResponse", "totalBytesRewritten": str(writer.size),
                             "objectSize": str(size), "done": session.result is not None}
    if session.result is None:
        reply["rewriteToken"] = session.id
    else:
        reply["resource"] = copied_resource(request, session.result)
    return web.json_response(reply)


async def compose_object(request: web.Request, state: EmulatorState, bucket: str, name: str,
                         query: dict[str, str]) -> web.Response:
    body = await read_json(request)
    sources = body.get("sourceObjects")
    if not isinstance(sources, list) or not 1 <= len(sources) <= MAX_COMPOSE_SOURCES:
        raise bad_request(f"sourceObjects must list 1 to {MAX_COMPOSE_SOURCES} objects.")
    destination = body.get("destination") or {}
    if not isinstance(destination, dict):
        raise bad_request("destination must be an object resource.")
    pieces = []
    for source in sources:
        if not isinstance(source, dict) or not isinstance(source.get("name"), str):
            raise bad_request("Each source object needs a name.")
        conditions = source.get("objectPreconditions") or {}
        if not isinstance(conditions, dict):
            raise bad_request("objectPreconditions must be an object.")
        stored = requested_object(state.store, bucket, source["name"], _integer(source.get("generation"), "generation"))
        match = _integer(conditions.get("ifGenerationMatch"), "ifGenerationMatch")
        if match is not None and match != stored.metadata.generation:
            raise ApiError(412, f"Source {source['name']} does not match ifGenerationMatch={match}.")
        pieces.append(stored.blob.pieces(0, stored.metadata.size))
    conditions = Preconditions.from_query(query)
    conditions.check(state.store.get(bucket, name))
    resource = {key: value for key, value in destination.items() if key != "name"}
    metadata = await write_object(state, bucket, name, resource, pieces, conditions)
    return object_response(request, metadata)
