"""Resumable upload sessions: bytes in a staged file; in a data directory, kept across restarts
(session_journal.py), else in memory only.

A session holds no open file between its requests, expires a week after it started (as Cloud
Storage's session URIs), and at most MAX_OPEN_SESSIONS are open at once (limits.py)."""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from aiohttp import web

from .auth import Principal
from .blobs import BlobWriter
from .bodies import BodyDropped, iter_body
from .errors import ApiError
from .flavor import UploadDefaults
from .limits import MAX_OPEN_SESSIONS, SESSION_LIFETIME_SECONDS
from .metadata import ObjectMetadata
from .session_journal import SessionJournal
from .store import ObjectStore, StoredObject

ACTIVE, FINAL, CANCELLED = "active", "final", "cancelled"


class _Turn:
    """One command at a time per session (`async with session.lock`), settled when it ends."""

    def __init__(self, session: "UploadSession"):
        self._lock = asyncio.Lock()
        self._session = session

    async def __aenter__(self) -> None:
        await self._lock.acquire()

    async def __aexit__(self, *exception: Any) -> None:
        try:
            await self._session.settle()
        finally:
            self._lock.release()


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
    protocol_state: Any = None  # what the API that opened the session keeps with it (GCS: its preconditions)
    started: float = 0.0  # time.monotonic() at start
    journal: SessionJournal | None = None  # where the session is kept across restarts, if it is
    lock: _Turn = field(init=False)

    def __post_init__(self) -> None:
        self.lock = _Turn(self)

    @property
    def received(self) -> int:
        return self.writer.size

    async def settle(self) -> None:
        """After a command: the file closed (synced first when kept across restarts, so an
        acknowledged chunk survives a crash) and a session that ended forgotten by the journal."""
        await self.writer.park(sync=self.journal is not None)
        if self.journal is not None and self.state != ACTIVE:
            self.journal.remove(self.id)
            self.journal = None


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
    def __init__(self, clock: Callable[[], float] = time.monotonic, journal: SessionJournal | None = None) -> None:
        self._sessions: dict[str, UploadSession] = {}  # in start order
        self._discarding: set[asyncio.Task] = set()
        self._clock = clock
        self._journal = journal
        if journal is not None:
            for session in journal.load(UploadSession, clock, SESSION_LIFETIME_SECONDS):
                session.journal = journal
                self._sessions[session.id] = session

    async def start(self, **fields: Any) -> UploadSession:
        """A new session (its file closed until its first chunk), kept by the journal if there
        is one and it keeps this API's sessions; a 429 while MAX_OPEN_SESSIONS are open."""
        if len(self._sessions) >= MAX_OPEN_SESSIONS:
            self._sweep()
        if len(self._sessions) >= MAX_OPEN_SESSIONS:
            self._in_background(fields["writer"].discard())
            raise ApiError(429, f"Too many open resumable upload sessions ({MAX_OPEN_SESSIONS}): finish or "
                                "cancel some (an abandoned one expires a week after it started).")
        session = UploadSession(id=uuid.uuid4().hex, started=self._clock(), **fields)
        session.writer.park_now()
        if self._journal is not None and self._journal.keeps(session):
            await asyncio.get_running_loop().run_in_executor(None, self._journal.save, session)
            session.journal = self._journal
        self._sessions[session.id] = session
        return session

    def get(self, upload_id: str) -> UploadSession | None:
        session = self._sessions.get(upload_id)
        if session is not None and self._expired(session):
            self._cancel(self._sessions.pop(upload_id))
            return None
        return session

    def clear(self) -> None:
        """Forget every session; those still open are cancelled and their bytes deleted as soon
        as no chunk request is using them (without waiting for a stalled client)."""
        sessions, self._sessions = self._sessions, {}
        for session in sessions.values():
            self._cancel(session)

    def _expired(self, session: UploadSession) -> bool:
        return self._clock() - session.started > SESSION_LIFETIME_SECONDS

    def _sweep(self) -> None:
        """Forget the expired sessions and the finished ones (kept only to answer status queries)."""
        for session in list(self._sessions.values()):
            if session.state != ACTIVE or self._expired(session):
                self._cancel(self._sessions.pop(session.id))

    def _cancel(self, session: UploadSession) -> None:
        if session.state == ACTIVE:
            session.state = CANCELLED
            if session.journal is not None:  # at once: a crash before the discard must not bring it back
                session.journal.remove(session.id)
            self._in_background(self._discard(session))

    def _in_background(self, discard: Awaitable[None]) -> None:
        task = asyncio.get_running_loop().create_task(discard)
        self._discarding.add(task)
        task.add_done_callback(self._discarding.discard)

    @staticmethod
    async def _discard(session: UploadSession) -> None:
        async with session.lock:
            await session.writer.discard()
