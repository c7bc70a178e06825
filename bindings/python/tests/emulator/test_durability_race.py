"""Every acknowledged write to one object survives restarts on --data-dir, in a serial order.

Clients race overwrites (v0 media upload, v0 resumable finalize, GCS copyTo and rewriteTo),
metadata changes (v0 and GCS PATCH) and deletes on one object name while the emulator is
stopped under them (SIGTERM or SIGKILL, alternately). After each restart the object must be what
some serial order of the operations, consistent with their real-time order, leaves: each write is
told apart by its bytes or its custom metadata, and an operation without an answer may or may not
have happened.
"""

from __future__ import annotations

import random
import signal
import threading
import time
from dataclasses import dataclass
from urllib.parse import quote

import requests

from conftest import Emulator

NAME = "raced"
SOURCE, SOURCE_BYTES = "copy-source", b"bytes of every copy"
CLIENTS = 6
ROUNDS = 8
ACKNOWLEDGED_PER_ROUND = 40  # the emulator is stopped once this many operations were answered
WRITES = ("upload", "resumable", "copy", "rewrite")
OPERATIONS = WRITES * 2 + ("v0-patch", "gcs-patch") * 3 + ("delete",)


@dataclass
class Operation:
    id: str
    kind: str
    start: float
    end: float = float("inf")
    acknowledged: bool = False  # a 2xx answer
    refused: bool = False  # an answer other than 2xx: it changed nothing

    def before(self, other: "Operation") -> bool:
        """Answered before `other` was sent: every serial order has it first."""
        return self.end < other.start

    @property
    def maybe(self) -> bool:
        return not self.refused


class Round:
    def __init__(self, emulator: Emulator, seed: int):
        self.emulator = emulator
        self.random = random.Random(seed)
        self.history: list[Operation] = []
        self.lock = threading.Lock()
        self.enough = threading.Event()
        self.stopped = threading.Event()

    def run_client(self, client: int) -> None:
        http = requests.Session()
        chooser = random.Random(self.random.random())
        sequence = 0
        while not self.stopped.is_set():
            sequence += 1
            operation = Operation(f"c{client}-{sequence}-{chooser.randrange(1 << 30)}",
                                  chooser.choice(OPERATIONS), 0.0)
            try:
                response = self.send(http, operation)
            except requests.RequestException:  # the emulator stopped under it: unknown
                break
            finally:
                with self.lock:
                    self.history.append(operation)
            operation.end = time.monotonic()
            operation.acknowledged = response.ok
            operation.refused = not response.ok
            if response.ok:
                with self.lock:
                    if sum(o.acknowledged for o in self.history) >= ACKNOWLEDGED_PER_ROUND:
                        self.enough.set()
        http.close()

    def send(self, http: requests.Session, operation: Operation) -> requests.Response:
        base, kind, id_ = self.emulator.base, operation.kind, operation.id
        object_url = self.emulator.object_url(NAME)
        timeout = 30
        if kind == "resumable":  # only the finalize changes the object
            started = http.post(self.emulator.bucket_url(), params={"name": NAME}, json={"name": NAME},
                                headers={"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"},
                                timeout=timeout)
            if not started.ok:
                operation.start = time.monotonic()
                return started
            operation.start = time.monotonic()
            return http.post(started.headers["X-Goog-Upload-URL"], data=id_.encode(), timeout=timeout,
                             headers={"X-Goog-Upload-Command": "upload, finalize", "X-Goog-Upload-Offset": "0"})
        operation.start = time.monotonic()
        if kind == "upload":
            return http.post(self.emulator.bucket_url(), params={"name": NAME}, data=id_.encode(), timeout=timeout)
        if kind in ("copy", "rewrite"):
            action = "copyTo" if kind == "copy" else "rewriteTo"
            return http.post(f"{base}/storage/v1/b/b/o/{quote(SOURCE, safe='')}/{action}/b/b/o/{NAME}",
                             json={"metadata": {"copy": id_}}, timeout=timeout)
        if kind == "v0-patch":
            return http.patch(object_url, json={"metadata": {"patch": id_}}, timeout=timeout)
        if kind == "gcs-patch":
            return http.patch(f"{base}/storage/v1/b/b/o/{NAME}", json={"metadata": {"patch": id_}}, timeout=timeout)
        return http.delete(object_url, timeout=timeout)


def observed_state(emulator: Emulator) -> tuple[str, str | None] | None:
    """The object as (the id of the write that made it, the id of the last patch kept), or None."""
    metadata = emulator.get_metadata(NAME)
    if metadata.status_code == 404:
        return None
    assert metadata.status_code == 200, metadata.text
    custom = metadata.json().get("metadata", {})
    content = emulator.download(NAME).content
    writer = custom["copy"] if content == SOURCE_BYTES else content.decode()
    return writer, custom.get("patch")


def check_serializable(history: list[Operation], state: tuple[str, str | None] | None) -> None:
    """`state` must be what some serial order of `history` leaves, the order keeping every
    operation answered before another was sent first."""
    writes = [o for o in history if o.kind in WRITES]
    deletes = [o for o in history if o.kind == "delete"]
    patches = [o for o in history if o.kind.endswith("patch")]
    acknowledged_changes = [o for o in writes + deletes if o.acknowledged]
    if state is None:  # a delete came last, or nothing was ever written
        assert not acknowledged_changes or any(
            not any(delete.before(change) for change in acknowledged_changes) for delete in deletes if delete.maybe), \
            "the object is gone though a write answered after every delete"
        return
    writer_id, patch_id = state
    [writer] = [o for o in writes if o.id == writer_id]
    assert writer.maybe, f"{writer_id} was refused, yet it is the object"
    later = [o for o in acknowledged_changes if writer.before(o)]
    assert not later, f"{writer_id} is the object though {later[0].id} ({later[0].kind}) answered after it"
    acknowledged_later_patches = [o for o in patches if o.acknowledged and writer.before(o)]
    if patch_id is None:
        assert not acknowledged_later_patches, f"{acknowledged_later_patches[0].id} is lost"
        return
    [patch] = [o for o in patches if o.id == patch_id]
    assert patch.maybe and not patch.before(writer), f"{patch_id} cannot be on {writer_id}"
    overtaken = [o for o in acknowledged_later_patches if patch.before(o)]
    assert not overtaken, f"{patch_id} is kept though {overtaken[0].id} answered after it"


def test_acknowledged_writes_survive_racing_clients_and_crashes(start_emulator, tmp_path):
    data_dir = str(tmp_path / "data")
    emulator = start_emulator("--data-dir", data_dir)
    emulator.upload_ok(SOURCE, SOURCE_BYTES)
    prior: list[Operation] = []  # what the previous round left, as operations before all others
    for number in range(ROUNDS):
        round_ = Round(emulator, seed=number)
        clients = [threading.Thread(target=round_.run_client, args=(client,)) for client in range(CLIENTS)]
        for client in clients:
            client.start()
        assert round_.enough.wait(60), "the clients got too few answers"
        emulator.stop(signal.SIGKILL if number % 2 else signal.SIGTERM)
        round_.stopped.set()
        for client in clients:
            client.join(60)
        emulator = start_emulator("--data-dir", data_dir)
        state = observed_state(emulator)
        check_serializable(prior + round_.history, state)
        past = float("-inf")
        prior = [] if state is None else [Operation(id_, kind, past, past, acknowledged=True)
                                          for id_, kind in zip(state, ("upload", "v0-patch")) if id_]
