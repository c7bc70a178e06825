"""Resumable upload sessions: in memory only (a restart forgets them), bytes in a staged temp file."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

from .auth import Principal
from .blobs import BlobWriter
from .metadata import ObjectMetadata

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

    @property
    def received(self) -> int:
        return self.writer.size


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
