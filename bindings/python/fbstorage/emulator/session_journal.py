"""Resumable upload sessions that outlive the process, in a data directory (--data-dir):

    sessions/<id>.json   what the session's next commands need: bucket, name, the start's
                         resource, declared size and type, the caller whose rules decide at
                         finalize, the API's own state (the JSON API's preconditions), when it
                         started (its week runs across restarts)
    sessions/<id>.bin    the bytes received so far, synced before a chunk is acknowledged

The record is written (to a temp name, synced, renamed) before `start` answers, and deleted
once the session is final or cancelled; its bytes go with the commit (renamed into blobs/) or
the cancel. At start every record with its bytes is a session again, its hashes recomputed
from the bytes; an expired or unreadable record, a record whose bytes are gone (committed just
before a crash) and bytes without a record are deleted. An API keeps its sessions here only if
its session state is registered with `journaled_state`; the others (XML API multipart uploads,
rewrite tokens) are forgotten by a restart, and their clients start them again."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TypeVar

from .auth import Principal
from .blobs import BlobWriter
from .directory_swap import fsync_directory
from .json_input import load_json_file

if TYPE_CHECKING:
    from .uploads import UploadSession

log = logging.getLogger(__name__)


_KINDS: dict[str, type] = {}
State = TypeVar("State", bound=type)


def journaled_state(kind: str) -> Callable[[State], State]:
    """Registers an API's session-state class under `kind`: its `to_journal()` gives a JSON
    value, its class method `from_journal(value)` makes the state again."""
    def register(cls: State) -> State:
        cls.journal_kind = kind
        _KINDS[kind] = cls
        return cls
    return register


class SessionJournal:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def keeps(session: UploadSession) -> bool:
        state = session.protocol_state
        return state is None or getattr(type(state), "journal_kind", None) in _KINDS

    def save(self, session: UploadSession) -> None:
        """Moves the (new, empty) session's bytes here and writes its record, durably."""
        session.writer.move(str(self._bytes(session.id)))
        state = session.protocol_state
        record = {
            "bucket": session.bucket, "name": session.name, "resource": session.resource,
            "declared_size": session.declared_size, "declared_content_type": session.declared_content_type,
            "principal": dataclasses.asdict(session.principal),
            "state": None if state is None else {"kind": state.journal_kind, "value": state.to_journal()},
            "started_at": time.time(),
        }
        temporary = self.directory / f"{session.id}.json.tmp"
        with open(temporary, "w", encoding="utf-8", opener=_private) as file:
            json.dump(record, file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self._record(session.id))
        fsync_directory(self.directory)

    def remove(self, session_id: str) -> None:
        """Forgets the session (its bytes are the commit's or the cancel's to remove)."""
        self._record(session_id).unlink(missing_ok=True)

    def load(self, new_session: Callable[..., UploadSession], clock: Callable[[], float],
             lifetime: float) -> list[UploadSession]:
        """The sessions kept here, oldest first; what cannot be one is deleted."""
        sessions = []
        for record_path in self.directory.glob("*.json"):
            session_id = record_path.stem
            bytes_path = self._bytes(session_id)
            try:
                record = load_json_file(record_path)
                age = max(0.0, time.time() - float(record["started_at"]))
                if age > lifetime or not bytes_path.exists():
                    raise LookupError("expired" if age > lifetime else "its bytes were committed or cancelled")
                state = record["state"]
                sessions.append(new_session(
                    id=session_id, bucket=record["bucket"], name=record["name"], resource=record["resource"],
                    declared_size=record["declared_size"], declared_content_type=record["declared_content_type"],
                    principal=Principal(**record["principal"]), started=clock() - age,
                    protocol_state=None if state is None else _KINDS[state["kind"]].from_journal(state["value"]),
                    writer=BlobWriter.reopen(str(bytes_path))))
            except Exception as error:  # noqa: BLE001 — a session that cannot come back is dropped, never fatal
                log.info("upload session %s not resumed: %s", session_id, error)
                record_path.unlink(missing_ok=True)
                bytes_path.unlink(missing_ok=True)
        kept = {session.id for session in sessions}
        for leftover in self.directory.iterdir():
            if leftover.name.split(".")[0] not in kept:
                leftover.unlink(missing_ok=True)
        return sorted(sessions, key=lambda session: session.started)

    def _record(self, session_id: str) -> Path:
        return self.directory / f"{session_id}.json"

    def _bytes(self, session_id: str) -> Path:
        return self.directory / f"{session_id}.bin"


def _private(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)
