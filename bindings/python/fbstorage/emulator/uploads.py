"""Resumable upload sessions: in memory only (a restart forgets them), bytes in a staged temp file."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from aiohttp import web

from .auth import Principal
from .blobs import BlobWriter
from .bodies import BodyDropped, iter_body
from .errors import ApiError
from .flavor import UploadDefaults
from .metadata import ObjectMetadata
from .store import ObjectStore, StoredObject

ACTIVE, FINAL, CANCELLED = "active", "final", "cancelled"


@dataclass
class UploadSession:
    id: str
    bucket: str
    name: str
    resource: dict[str, Any]  # the JSON metadata sent with `start`
    declared_size: int | None  # X-Goog-Upload-Header-Content-Length, if sent
    declared_content_type: str | None  # X-Goog-Upload-Header-Content-Type, if sent
    writer: BlobWriter
    principal: Principal  # whose rules decide at finalize: the caller of `start`
    state: str = ACTIVE
    result: ObjectMetadata | None = None  # set once finalized
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one command at a time per session
    protocol_state: Any = None  # what the API that opened the session keeps with it (GCS: its preconditions)

    @property
    def received(self) -> int:
        return self.writer.size


# Called under the store's commit lock with the object about to be replaced (None if there is
# none) and the new object's metadata; it raises to refuse the upload (GCS preconditions, rules).
CommitCheck = Callable[[StoredObject | None, ObjectMetadata], None]


async def commit_upload(store: ObjectStore, bucket: str, name: str, writer: BlobWriter, resource: dict[str, Any],
                        default_content_type: str | None, check: CommitCheck | None = None,
                        defaults: UploadDefaults = UploadDefaults()) -> ObjectMetadata:
    """Turn a finished writer into the stored object `name`, replacing any previous one."""
    digest = await writer.finish()
    metadata = ObjectMetadata.for_upload(bucket, name, resource, digest, default_content_type, defaults)
    await store.put(writer, metadata, None if check is None else lambda existing: check(existing, metadata))
    return metadata


async def receive_chunk(request: web.Request, writer: BlobWriter, granularity: int, *, skip: int = 0,
                        check: Callable[[int, bool], None] | None = None) -> int:
    """Append the request body to `writer`, less its first `skip` bytes (already held), and return
    the body's length. `check(body bytes so far, whether the body is complete)` runs after each
    piece and at the end; an ApiError
    it (or anything) raises keeps none of the chunk. A dropped connection keeps the bytes up to the
    last granularity boundary, so the client can query the size and continue."""
    start = writer.size
    body_bytes = 0
    await writer.mark()
    try:
        async for piece in iter_body(request):
            body_bytes += len(piece)
            if skip < body_bytes:
                await writer.write(piece[max(0, skip - body_bytes + len(piece)):])
            if check is not None:
                check(body_bytes, False)
        if check is not None:
            check(body_bytes, True)
    except BodyDropped:
        await writer.truncate(max(start, writer.size // granularity * granularity))
        raise
    except ApiError:
        await writer.truncate(start)
        raise
    return body_bytes


class UploadSessions:
    def __init__(self) -> None:
        self._sessions: dict[str, UploadSession] = {}
        self._discarding: set[asyncio.Task] = set()

    def start(self, **fields: Any) -> UploadSession:
        session = UploadSession(id=uuid.uuid4().hex, **fields)
        self._sessions[session.id] = session
        return session

    def get(self, upload_id: str) -> UploadSession | None:
        return self._sessions.get(upload_id)

    def clear(self) -> None:
        """Forget every session; those still open are cancelled and their bytes deleted as soon
        as no chunk request is using them (without waiting for a stalled client)."""
        sessions, self._sessions = self._sessions, {}
        for session in sessions.values():
            if session.state == ACTIVE:
                session.state = CANCELLED
                task = asyncio.get_running_loop().create_task(self._discard(session))
                self._discarding.add(task)
                task.add_done_callback(self._discarding.discard)

    @staticmethod
    async def _discard(session: UploadSession) -> None:
        async with session.lock:
            await session.writer.discard()
