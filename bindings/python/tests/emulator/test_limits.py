"""The emulator's bounds (docs/emulator.md, "Limits"): request bodies per route, decompressed
bodies, JSON nesting, object metadata, resumable sessions and rules evaluation. Hostile input gets
a 4xx at once, never a 500, a hang or unbounded memory."""

from __future__ import annotations

import base64
import gzip
import json
import socket
import time

import pytest

from auth_helpers import unsigned_jwt
from conftest import ADMIN, Emulator, assert_error, assert_json_error
from fbstorage.emulator.json_input import MAX_JSON_DEPTH
from fbstorage.emulator.limits import SMALL_BODY_BYTES
from fbstorage.emulator.metadata import MAX_CUSTOM_TOTAL_BYTES, MAX_CUSTOM_VALUE_BYTES, MAX_FIELD_BYTES
from fbstorage.emulator.rules.limits import MAX_CALL_DEPTH, MAX_EXPRESSIONS
from test_ui import UI

MIB = 1 << 20
TOKEN_PATH = "/oauth2.googleapis.com/token"
SIGN_UP = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"
TOO_DEEP = MAX_JSON_DEPTH + 1400  # 1,500 levels: deeper than Python's recursion limit too


def deep_object(depth: int = TOO_DEEP) -> str:
    """`{"a": {"a": … 1}}`, `depth` objects deep."""
    return '{"a":' * depth + "1" + "}" * depth


def deep_field(name: str, depth: int = TOO_DEEP) -> bytes:
    return ('{"' + name + '":' + deep_object(depth) + "}").encode()


def pieces(total: int, size: int = 256 * 1024):
    """A body of `total` bytes sent chunked (no Content-Length to refuse it by)."""
    for _ in range(total // size):
        yield b"x" * size


def timed(send):
    started = time.monotonic()
    response = send()
    return response, time.monotonic() - started


# Request bodies.

@pytest.mark.parametrize("path, limit", [(TOKEN_PATH, 64 * 1024), ("/batch/storage/v1", 10 * MIB),
                                         ("/storage/v1/b/b/o/x", SMALL_BODY_BYTES), (SIGN_UP, SMALL_BODY_BYTES)])
def test_a_declared_length_over_the_route_bound_is_a_413_before_the_body_is_read(emu, path, limit):
    # Only the headers are sent: the answer cannot wait for a body that never comes.
    with socket.create_connection(("127.0.0.1", emu.port), timeout=10) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {limit + 1}\r\n\r\n".encode())
        reply = sock.recv(65536)
    assert reply.startswith(b"HTTP/1.1 413 "), reply
    assert f"larger than {limit} bytes".encode() in reply


@pytest.mark.parametrize("path, limit", [(TOKEN_PATH, 64 * 1024), ("/batch/storage/v1", 10 * MIB),
                                         ("/v0/b/b/o/x", SMALL_BODY_BYTES)])
def test_a_chunked_body_over_the_route_bound_is_a_413(emu, path, limit):
    method = "PATCH" if path.startswith("/v0") else "POST"
    content_type = "multipart/mixed; boundary=B" if "batch" in path else "application/json"
    response = emu.http.request(method, emu.url(path), data=pieces(limit + 512 * 1024),
                                headers={"Content-Type": content_type}, timeout=30)
    assert_json_error(response, 413)


def test_gzip_bombs_stop_at_the_bound_without_growing_memory(start_emulator):
    emulator = start_emulator()
    bomb = gzip.compress(b"\0" * (256 * MIB), compresslevel=9)
    assert len(bomb) < 300 * 1024
    before = emulator.rss_bytes()
    for path in (TOKEN_PATH, "/batch/storage/v1", "/storage/v1/b"):
        response = emulator.http.post(emulator.url(path), data=bomb, timeout=30, headers={
            "Content-Encoding": "gzip", "Content-Type": "multipart/mixed; boundary=B", **ADMIN})
        assert_json_error(response, 413)
    assert emulator.rss_bytes("VmHWM") - before < 40 * MIB


def test_large_bodies_on_json_routes_do_not_grow_memory(start_emulator):
    emulator = start_emulator()
    before = emulator.rss_bytes()
    for path in (TOKEN_PATH, "/batch/storage/v1"):
        response = emulator.http.post(emulator.url(path), data=pieces(64 * MIB), timeout=60,
                                      headers={"Content-Type": "multipart/mixed; boundary=B"})
        assert_json_error(response, 413)
    assert emulator.rss_bytes("VmHWM") - before < 40 * MIB


def test_uploads_are_not_bounded_by_the_json_routes_bound(emu):
    data = b"u" * (3 * MIB)
    assert emu.upload_ok("big", data)["size"] == str(len(data))
    response = emu.http.post(emu.url("/upload/storage/v1/b/b/o"), params={"uploadType": "media", "name": "g"},
                             data=pieces(3 * MIB), headers=ADMIN)
    assert response.status_code == 200, response.text


# JSON nesting.

def test_deep_json_is_a_400_on_every_json_route(emu):
    emu.upload_ok("o")
    deep_metadata = deep_field("metadata")
    answers = {
        "v0 PATCH": emu.http.patch(emu.object_url("o"), data=deep_metadata),
        "v0 resumable start": emu.http.post(emu.bucket_url(), params={"name": "r"}, data=deep_metadata, headers={
            "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"}),
        "v0 multipart": emu.http.post(emu.bucket_url(), params={"name": "m"}, headers={
            "X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related; boundary=B"},
            data=b"--B\r\nContent-Type: application/json\r\n\r\n" + deep_metadata + b"\r\n--B\r\n\r\nx\r\n--B--"),
        "GCS PATCH": emu.http.patch(emu.url("/storage/v1/b/b/o/o"), data=deep_metadata, headers=ADMIN),
        "GCS resumable start": emu.http.post(emu.url("/upload/storage/v1/b/b/o"), data=deep_metadata, headers=ADMIN,
                                             params={"uploadType": "resumable", "name": "g"}),
        "GCS bucket insert": emu.http.post(emu.url("/storage/v1/b"), data=deep_field("labels"), headers=ADMIN),
        "Auth signUp": emu.http.post(emu.url(SIGN_UP), data=deep_field("email")),
        "Auth custom token": emu.http.post(emu.url("/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken"
                                                   "?key=k"), json={"token": deep_object()}),
        "setRules": emu.http.put(emu.url("/internal/setRules"), data=deep_field("rules")),
        "token endpoint": emu.http.post(emu.url(TOKEN_PATH), data=deep_field("grant_type"),
                                        headers={"Content-Type": "application/json"}),
        "faults": emu.http.post(emu.url("/_emulator/faults"), data=deep_field("action")),
    }
    for route, response in answers.items():
        assert response.status_code == 400, (route, response.status_code, response.text[:300])
    assert "nested deeper than" in answers["GCS PATCH"].text and "nested deeper than" in answers["Auth signUp"].text
    assert emu.get_metadata("r").status_code == 404 and emu.get_metadata("m").status_code == 404


def test_json_at_the_depth_bound_is_accepted(emu):
    emu.upload_ok("o")
    response = emu.http.patch(emu.url("/storage/v1/b/b/o/o"), headers=ADMIN,
                              json={"metadata": {"k": json.loads(deep_object(MAX_JSON_DEPTH - 2))}})
    assert response.status_code == 200, response.text


def test_a_token_with_a_deep_payload_is_an_invalid_token(emu):
    payload = '{"sub":' + "[" * TOO_DEEP + "]" * TOO_DEEP + "}"  # within a header line's 8 KiB
    deep = base64.urlsafe_b64encode(payload.encode()).rstrip(b"=").decode()
    token = unsigned_jwt({"sub": "x"}).split(".")[0] + "." + deep + "."
    emu.upload_ok("o")
    garbage = emu.get_metadata("o", headers={"Authorization": "Bearer a.b.c"})
    answer = emu.get_metadata("o", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == garbage.status_code != 500
    gcs = emu.http.get(emu.url("/storage/v1/b/b/o/o"), headers={"Authorization": f"Bearer {token}"})
    assert gcs.status_code in (200, 401), gcs.text
    claims = emu.http.post(emu.url("/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k"), json={})
    id_token = claims.json()["idToken"]
    update = emu.http.post(emu.url("/identitytoolkit.googleapis.com/v1/accounts:update?key=k"),
                           json={"idToken": id_token, "customAttributes": "[" * 400 + "]" * 400},
                           headers={"Authorization": "Bearer owner"})
    assert update.status_code == 400, update.text


def _export_holding(tmp_path, metadata_text: str):
    """An export directory with one object, `b/x`, whose metadata file holds `metadata_text`."""
    export = tmp_path / "export"
    metadata_dir = export / "storage_export" / "metadata" / "b"
    metadata_dir.mkdir(parents=True)
    (export / "storage_export" / "blobs" / "b").mkdir(parents=True)
    (export / "firebase-export-metadata.json").write_text(json.dumps({"storage": {"path": "storage_export"}}))
    (export / "storage_export" / "buckets.json").write_text(json.dumps({"buckets": [{"id": "b"}]}))
    (metadata_dir / "x.json").write_text(metadata_text)
    (export / "storage_export" / "blobs" / "b" / "x").write_bytes(b"x")
    return export, metadata_dir / "x.json"


def test_an_import_with_deep_json_names_the_file(tmp_path):
    export, bad = _export_holding(tmp_path, deep_object())
    with pytest.raises(RuntimeError) as raised:
        Emulator("--import", str(export))
    assert str(bad) in str(raised.value) and "nested deeper than" in str(raised.value)
    assert "Traceback" not in str(raised.value)


def test_an_import_with_metadata_no_upload_could_set_names_the_file(tmp_path):
    export, bad = _export_holding(tmp_path, json.dumps({
        "name": "x", "bucket": "b", "md5Hash": "nhB9nTcrtoJr2B01QqQZ1g==", "size": "1", "crc32c": "0",
        "customMetadata": _custom(MAX_CUSTOM_TOTAL_BYTES + 1)}))
    with pytest.raises(RuntimeError) as raised:
        Emulator("--import", str(export))
    assert str(bad) in str(raised.value) and str(MAX_CUSTOM_TOTAL_BYTES) in str(raised.value)


# Object metadata.

def _custom(total: int) -> dict:
    """Custom metadata of `total` bytes (keys and values) in values of at most 4 KiB."""
    custom, index = {}, 0
    while total > 0:
        key = f"k{index:03d}"
        size = min(MAX_CUSTOM_VALUE_BYTES, total - len(key))
        custom[key] = "v" * size
        total -= len(key) + size
        index += 1
    return custom


def test_custom_metadata_is_bounded_as_in_cloud_storage(emu):
    at_limit, over = _custom(MAX_CUSTOM_TOTAL_BYTES), _custom(MAX_CUSTOM_TOTAL_BYTES + 1)
    assert_error(emu, emu.start_resumable("over", {"metadata": over}), 400, "Bad Request")
    session = emu.session_url("ok", {"metadata": at_limit})
    assert emu.chunk(session, "upload, finalize", b"d", offset=0).status_code == 200
    assert emu.download("ok").content == b"d"  # served, its metadata in headers: within what clients accept
    assert_error(emu, emu.http.patch(emu.object_url("ok"), json={"metadata": {"one-more": "x"}}), 400, "Bad Request")
    assert emu.get_metadata("ok").json()["metadata"] == at_limit  # the refused PATCH changed nothing
    long_value = emu.start_resumable("v", {"metadata": {"k": "v" * (MAX_CUSTOM_VALUE_BYTES + 1)}})
    assert_error(emu, long_value, 400, "Bad Request")
    long_key = emu.start_resumable("k", {"metadata": {"k" * 1025: "v"}})
    assert_error(emu, long_key, 400, "Bad Request")
    gcs = emu.http.post(emu.url("/upload/storage/v1/b/b/o"), params={"uploadType": "resumable", "name": "g"},
                        json={"metadata": over}, headers=ADMIN)
    assert_json_error(gcs, 400)
    assert "8192" in gcs.json()["error"]["message"]


@pytest.mark.parametrize("field", ["contentType", "cacheControl", "contentDisposition", "contentLanguage",
                                   "contentEncoding"])
def test_header_served_fields_are_bounded(emu, field):
    long_value = "a" * (70 * 1000)
    assert_error(emu, emu.start_resumable("r", {field: long_value}), 400, "Bad Request")
    emu.upload_ok("p", b"kept")
    assert_error(emu, emu.http.patch(emu.object_url("p"), json={field: "a" * (MAX_FIELD_BYTES + 1)}), 400,
                 "Bad Request")
    gcs = emu.http.patch(emu.url("/storage/v1/b/b/o/p"), json={field: long_value}, headers=ADMIN)
    assert_json_error(gcs, 400)
    assert emu.download("p").content == b"kept"
    assert emu.http.patch(emu.object_url("p"), json={field: "a" * MAX_FIELD_BYTES}).status_code == 200


# Rules evaluation.

DOUBLING_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    function twice(s) { return s + s; }
    match /doubled/{name} {
      allow read: if twice(twice(twice(twice(twice(twice(twice(twice(twice(twice(twice(twice(twice(twice(twice(
          twice(twice(twice(twice(twice('0123456789abcdef')))))))))))))))))))).size() > 0 || true;
    }
    match /many/{name} {
      allow read: if %s;
    }
    match /split/{name} {
      allow read: if "%s".split('').toSet().size() > 0;
    }
    match /open/{name} {
      allow read: if true;
    }
  }
}
""" % (" || ".join(f"request.path[4] == 'f{index}'" for index in range(400)), "x" * 100_000)


@pytest.mark.parametrize("flavor", ["production", "firebase-tools"])
def test_rules_that_grow_a_string_are_denied_at_once(start_emulator, tmp_path, flavor):
    rules = tmp_path / "storage.rules"
    rules.write_text(DOUBLING_RULES)
    emulator = start_emulator("--rules", str(rules), flavor=flavor)
    ui = UI(emulator)
    for name in ("doubled/x", "many/f399", "many/f1", "open/x", "split/x"):
        emulator.upload_ok(name, b"1", headers=ADMIN)
    before = emulator.rss_bytes()
    response, seconds = timed(lambda: emulator.download("doubled/x"))
    assert response.status_code == 403 and seconds < 2
    response, seconds = timed(lambda: emulator.download("split/x"))  # 100,000 regular-expression matches
    assert response.status_code == 403 and seconds < 2
    assert emulator.rss_bytes("VmHWM") - before < 40 * MIB
    assert emulator.download("many/f1").status_code == 200  # decided by its first operands
    assert emulator.download("many/f399").status_code == 403  # ~2,000 expressions in
    assert emulator.download("open/x").status_code == 200
    played = ui.post("api/playground", {"bucket": "b", "method": "get", "path": "doubled/x"}).json()
    assert played["verdict"] == "denied" and "steps" in played["reason"], played
    played = ui.post("api/playground", {"bucket": "b", "method": "get", "path": "many/f399"}).json()
    assert f"more than {MAX_EXPRESSIONS} expressions" in played["reason"], played


def test_call_depth_over_the_language_limit_denies(start_emulator, tmp_path):
    calls = "".join(f"function f{index}(n) {{ return f{index + 1}(n); }}\n" for index in range(MAX_CALL_DEPTH + 1))
    rules = tmp_path / "storage.rules"
    rules.write_text(f"""rules_version = '2';
service firebase.storage {{
  match /b/{{bucket}}/o {{
    {calls}
    function f{MAX_CALL_DEPTH + 1}(n) {{ return true; }}
    match /deep/{{name}} {{ allow read: if f0(1) || true; }}
    match /shallow/{{name}} {{ allow read: if f{2}(1); }}
  }}
}}
""")
    emulator = start_emulator("--rules", str(rules))
    ui = UI(emulator)
    emulator.upload_ok("deep/x", b"1", headers=ADMIN)
    emulator.upload_ok("shallow/x", b"1", headers=ADMIN)
    assert emulator.download("deep/x").status_code == 403  # `|| true` does not absorb it
    assert emulator.download("shallow/x").status_code == 200
    played = ui.post("api/playground", {"bucket": "b", "method": "get", "path": "deep/x"}).json()
    assert f"nested deeper than {MAX_CALL_DEPTH}" in played["reason"], played



def test_custom_metadata_that_cannot_be_a_header_is_refused_or_not_sent(emu):
    """A control character in a custom metadata key or value is a 400 (it would be served as an
    x-goog-meta-* header, and the object would be undownloadable); a key that is no header name
    (a space) is kept in the metadata but not sent as a header."""
    emu.upload_ok("meta.txt", b"hello")
    for custom in ({"bad\nkey": "v"}, {"key": "line\nbreak"}, {"key": "nul\x00"}):
        answer = emu.http.patch(emu.object_url("meta.txt"), json={"metadata": custom})
        assert answer.status_code == 400, (custom, answer.text)
        resumable = emu.start_resumable("meta2.txt", {"name": "meta2.txt", "metadata": custom})
        assert resumable.status_code == 400, (custom, resumable.text)
    assert emu.http.patch(emu.object_url("meta.txt"), json={"metadata": {"sp ace": "kept", "ok": "sent"}}).status_code == 200
    download = emu.http.get(emu.object_url("meta.txt"), params={"alt": "media"})
    assert download.status_code == 200 and download.content == b"hello"
    if emu.flavor == "production":   # production's Firebase API sends custom metadata as headers
        assert download.headers.get("x-goog-meta-ok") == "sent"
    assert not [name for name in download.headers if " " in name]
    assert emu.get_metadata("meta.txt").json()["metadata"]["sp ace"] == "kept"
