"""Storage triggers: CloudEvents delivered to a function run by Google's functions-framework
(data/triggers/recorder.py, served on a free port), for every write path of both APIs."""

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import FLAVORS, Emulator, wait_until

DATA = Path(__file__).parent / "data" / "triggers"
PREFIX = "google.cloud.storage.object.v1."
DENY_SECRET = ("rules_version = '2'; service firebase.storage { match /b/{b}/o { match /{name} { allow read, write; } "
               "match /{top}/{rest=**} { allow read, write: if top != 'secret'; } } }")


class EventSink:
    """The functions-framework process and what it recorded."""

    def __init__(self, directory: Path):
        self.file = directory / "events.jsonl"
        self.file.touch()
        self.process = subprocess.Popen([sys.executable, str(DATA / "serve_function.py")],
                                        env={**os.environ, "RECORDER_FILE": str(self.file)},
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.url = f"http://127.0.0.1:{int(self.process.stdout.readline())}/"

    def entries(self) -> list[dict]:
        return [json.loads(line) for line in self.file.read_text().splitlines()]

    def events(self) -> list[dict]:
        return [entry for entry in self.entries() if not entry.get("failed")]

    def clear(self) -> None:
        self.file.write_text("")

    def wait_for(self, kind: str, name: str, timeout: float = 10) -> dict:
        found: list[dict] = []

        def arrived() -> bool:
            found[:] = [e for e in self.events() if e["type"] == PREFIX + kind and e["data"]["name"] == name]
            return bool(found)

        wait_until(arrived, timeout)
        return found[0]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


@pytest.fixture(scope="module")
def sink(tmp_path_factory):
    sink = EventSink(tmp_path_factory.mktemp("sink"))
    yield sink
    sink.stop()


@pytest.fixture
def events(sink):
    sink.clear()
    return sink


def all_events(url: str) -> list[str]:
    return [arg for kind in ("finalized", "deleted", "metadataUpdated") for arg in ("--trigger", f"{kind}={url}")]


def gcs_object(emu: Emulator, name: str, bucket: str = "b") -> str:
    return emu.url(f"/storage/v1/b/{bucket}/o/{quote(name, safe='')}")


def multipart_upload(emu: Emulator, name: str, data: bytes) -> None:
    body = (b"--B\r\nContent-Type: application/json\r\n\r\n" + json.dumps({"name": name}).encode()
            + b"\r\n--B\r\nContent-Type: text/plain\r\n\r\n" + data + b"\r\n--B--")
    response = emu.http.post(emu.bucket_url(), params={"name": name}, data=body,
                             headers={"X-Goog-Upload-Protocol": "multipart",
                                      "Content-Type": "multipart/related; boundary=B"})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("flavor", FLAVORS)
def test_every_write_path_of_both_apis(start_emulator, events, flavor):
    emu = start_emulator(*all_events(events.url), "--rules", str(write_rules(events.file.parent)), flavor=flavor)
    uploaded = emu.upload_ok("v0/media.txt", b"media", content_type="text/plain")
    multipart_upload(emu, "v0/multipart.txt", b"multipart")
    session = emu.session_url("v0/resumable.bin", size=3)
    assert emu.chunk(session, "upload, finalize", b"abc", offset=0).status_code == 200
    overwritten = emu.upload_ok("v0/media.txt", b"media again", content_type="text/plain")
    gcs_upload = emu.http.post(emu.url("/upload/storage/v1/b/b/o"), params={"uploadType": "media", "name": "gcs/up"},
                               data=b"gcs", headers={"Content-Type": "text/csv"})
    assert gcs_upload.status_code == 200, gcs_upload.text
    copy = emu.http.post(gcs_object(emu, "gcs/up") + "/copyTo/b/b/o/" + quote("gcs/copy", safe=""), json={})
    assert copy.status_code == 200, copy.text
    compose = emu.http.post(gcs_object(emu, "gcs/composed") + "/compose",
                            json={"sourceObjects": [{"name": "gcs/up"}, {"name": "gcs/copy"}]})
    assert compose.status_code == 200, compose.text
    assert emu.http.patch(emu.object_url("v0/multipart.txt"), json={"metadata": {"k": "v"}}).status_code == 200
    assert emu.http.patch(gcs_object(emu, "gcs/copy"), json={"cacheControl": "no-store"}).status_code == 200
    assert emu.http.delete(emu.object_url("v0/resumable.bin")).status_code == 204
    assert emu.http.delete(gcs_object(emu, "gcs/up")).status_code == 204
    # Denied, or nothing to delete: no event.
    assert emu.upload("secret/x", b"no").status_code == 403
    assert emu.http.delete(emu.object_url("missing")).status_code == 404
    assert emu.http.delete(gcs_object(emu, "missing")).status_code == 404
    emu.upload_ok("zz-last", b"sentinel")
    events.wait_for("finalized", "zz-last")
    wait_until(lambda: len(events.events()) >= 12)

    seen = sorted((e["type"].removeprefix(PREFIX), e["data"]["name"]) for e in events.events())
    assert seen == sorted([
        ("finalized", "v0/media.txt"), ("finalized", "v0/multipart.txt"), ("finalized", "v0/resumable.bin"),
        ("finalized", "v0/media.txt"), ("finalized", "gcs/up"), ("finalized", "gcs/copy"), ("finalized", "gcs/composed"),
        ("metadataUpdated", "v0/multipart.txt"), ("metadataUpdated", "gcs/copy"),
        ("deleted", "v0/resumable.bin"), ("deleted", "gcs/up"), ("finalized", "zz-last")])
    media = sorted((e for e in events.events() if e["data"]["name"] == "v0/media.txt"),
                   key=lambda e: int(e["data"]["generation"]))
    assert [e["data"]["generation"] for e in media] == [uploaded["generation"], overwritten["generation"]]
    event = media[1]
    assert event["specversion"] == "1.0"
    assert event["source"] == "//storage.googleapis.com/projects/_/buckets/b"
    assert event["subject"] == "objects/v0/media.txt"
    assert event["time"] == overwritten["updated"]
    data = event["data"]
    assert data["kind"] == "storage#object" and data["bucket"] == "b" and data["size"] == "11"
    assert data["contentType"] == "text/plain" and data["md5Hash"] == overwritten["md5Hash"]
    assert data["metadata"]["firebaseStorageDownloadTokens"] == overwritten["downloadTokens"]
    assert data["id"] == f"b/v0/media.txt/{overwritten['generation']}"
    assert data["selfLink"].startswith(emu.base + "/storage/v1/b/b/o/")
    patched = events.wait_for("metadataUpdated", "v0/multipart.txt")
    assert patched["data"]["metadata"]["k"] == "v" and patched["data"]["metageneration"] == "2"
    assert len({e["id"] for e in events.events()}) == len(events.events())


def write_rules(directory: Path) -> Path:
    path = directory / "storage.rules"
    path.write_text(DENY_SECRET)
    return path


def test_two_hundred_concurrent_uploads_none_lost_or_duplicated(start_emulator, events):
    emu = start_emulator("--trigger", f"finalized={events.url}")
    names = [f"bulk/{index:03d}" for index in range(200)]

    def upload(name: str) -> int:
        return emu.http.post(emu.bucket_url(), params={"name": name}, data=name.encode()).status_code

    with ThreadPoolExecutor(32) as pool:
        assert set(pool.map(upload, names)) == {200}
    wait_until(lambda: len(events.events()) >= 200, timeout=30)
    emu.upload_ok("zz-last")
    events.wait_for("finalized", "zz-last")
    received = [e["data"]["name"] for e in events.events() if e["data"]["name"] != "zz-last"]
    assert sorted(received) == names  # each exactly once
    assert len({e["id"] for e in events.events()}) == 201


def test_failed_delivery_is_retried(start_emulator, events):
    emu = start_emulator("--trigger", f"finalized={events.url}")
    emu.upload_ok("flaky/one")
    delivered = events.wait_for("finalized", "flaky/one")
    failures = [e for e in events.entries() if e.get("failed")]
    assert [f["id"] for f in failures] == [delivered["id"]]  # the same event, sent again


def test_triggers_per_bucket_and_event(start_emulator, events):
    emu = start_emulator("--trigger", f"photos:finalized={events.url}", "--trigger", f"deleted={events.url}")
    emu.upload_ok("a", bucket="other")
    emu.upload_ok("a", bucket="photos")
    assert emu.http.patch(emu.object_url("a", "photos"), json={"metadata": {"x": "1"}}).status_code == 200
    assert emu.http.delete(emu.object_url("a", "other")).status_code == 204
    events.wait_for("deleted", "a")
    events.wait_for("finalized", "a")
    emu.upload_ok("zz-last", bucket="photos")
    events.wait_for("finalized", "zz-last")
    seen = sorted((e["type"].removeprefix(PREFIX), e["data"]["bucket"], e["data"]["name"]) for e in events.events())
    assert seen == [("deleted", "other", "a"), ("finalized", "photos", "a"), ("finalized", "photos", "zz-last")]


def test_unreachable_endpoint_never_blocks_storage(start_emulator, events):
    emu = start_emulator("--trigger", "finalized=http://127.0.0.1:9/", "--trigger", f"finalized={events.url}")
    started = time.monotonic()
    emu.upload_ok("x")
    assert time.monotonic() - started < 2
    events.wait_for("finalized", "x")
    wait_until(lambda: "gave up delivering google.cloud.storage.object.v1.finalized (objects/x) to http://127.0.0.1:9/"
               in emu.stderr(), timeout=15)


def test_triggers_from_firebase_json(start_emulator, events, tmp_path):
    write_rules(tmp_path)
    config = tmp_path / "firebase.json"
    config.write_text(json.dumps({"storage": {"rules": "storage.rules"}, "emulators": {"storage": {
        "triggers": [{"event": "finalized", "url": events.url},
                     {"event": "google.cloud.storage.object.v1.deleted", "bucket": "b", "url": events.url}]}}}))
    emu = start_emulator("--config", str(config))
    emu.upload_ok("x")
    assert emu.http.delete(emu.object_url("x")).status_code == 204
    events.wait_for("finalized", "x")
    events.wait_for("deleted", "x")


@pytest.mark.parametrize("arguments, message", [
    (["--trigger", "finalize=http://x/"], "must be one of finalized, deleted, metadataUpdated"),
    (["--trigger", "finalized"], "expected [BUCKET:]EVENT=URL"),
    (["--trigger", "finalized=ftp://x/"], "is not an http(s) URL"),
])
def test_bad_trigger_is_a_startup_error(arguments, message):
    with pytest.raises(RuntimeError) as failure:
        Emulator(*arguments)
    assert message in str(failure.value) and "Traceback" not in str(failure.value)

