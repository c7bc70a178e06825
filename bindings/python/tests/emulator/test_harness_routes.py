"""firebase-tools' test-harness routes (/internal/setRules, /internal/reset, /internal/export,
/_admin/export), with the paths, bodies and answers of firebase-tools' storage server.ts and
hub.ts (firebase/firebase-tools at a786bda73b48196fce1df22fe2b1cbc9e463b2d0), as
@firebase/rules-unit-testing sends them."""

import json

import pytest

from conftest import ADMIN

OPEN = "rules_version = '2'; service firebase.storage { match /b/{b}/o { match /{p=**} { allow read, write; } } }"
CLOSED = "rules_version = '2'; service firebase.storage { match /b/{b}/o { match /{p=**} { allow read, write: if false; } } }"
READ_ONLY = "rules_version = '2'; service firebase.storage { match /b/{b}/o { match /{p=**} { allow read; } } }"


def set_rules(emu, *files):
    return emu.http.put(emu.url("/internal/setRules"), json={"rules": {"files": list(files)}})


def test_set_rules_applies_to_every_bucket(emu):
    response = set_rules(emu, {"name": "storage.rules", "content": CLOSED})
    assert (response.status_code, response.json()) == (200, {"message": "Rules updated successfully"})
    for bucket in ("b", "other"):
        assert emu.upload("x", b"1", bucket=bucket).status_code == 403
    assert set_rules(emu, {"name": "storage.rules", "content": OPEN}).status_code == 200
    emu.upload_ok("x")


def test_set_rules_per_resource(emu):
    response = set_rules(emu, {"name": "a.rules", "content": OPEN, "resource": "open-bucket"},
                         {"name": "b.rules", "content": READ_ONLY, "resource": "read-only-bucket"})
    assert response.status_code == 200, response.text
    emu.upload_ok("x", bucket="open-bucket")
    assert emu.upload("x", b"1", bucket="read-only-bucket").status_code == 403
    # A bucket no file names has no ruleset: denied, as firebase-tools' resource-based manager does.
    assert emu.upload("x", b"1", bucket="unnamed").status_code == 403


def test_rules_that_do_not_compile_keep_the_old_ones(emu):
    assert set_rules(emu, {"name": "storage.rules", "content": READ_ONLY}).status_code == 200
    response = set_rules(emu, {"name": "storage.rules", "content": "rules_version = '2'; service firebase.storage {"})
    assert response.status_code == 400
    assert response.json() == {"message": "There was an error updating rules, see logs for more details"}
    assert emu.upload("x", b"1").status_code == 403  # still read-only
    assert emu.upload("x", b"1", headers=ADMIN).status_code == 200


@pytest.mark.parametrize("body, message", [
    ({}, "Request body must include 'rules.files' array"),
    ({"rules": {"files": []}}, "Request body must include 'rules.files' array"),
    ({"rules": {"files": [{"name": "storage.rules"}]}},
     "Each member of 'rules.files' array must contain 'name' and 'content'"),
    ({"rules": {"files": [{"name": "a", "content": OPEN}, {"name": "b", "content": OPEN}]}},
     "Each member of 'rules.files' array must contain 'name', 'content', and 'resource'"),
    ("not json", "Request body must include 'rules.files' array"),
])
def test_set_rules_bad_bodies(emu, body, message):
    data = body if isinstance(body, str) else json.dumps(body)
    response = emu.http.put(emu.url("/internal/setRules"), data=data, headers={"Content-Type": "application/json"})
    assert (response.status_code, response.json()) == (400, {"message": message})


def test_reset_clears_every_bucket_and_keeps_the_rules(emu):
    assert set_rules(emu, {"name": "storage.rules", "content": OPEN}).status_code == 200
    emu.upload_ok("x", bucket="one")
    emu.upload_ok("y", bucket="two")
    session = emu.session_url("z")
    response = emu.http.post(emu.url("/internal/reset"))
    assert (response.status_code, response.text) == (200, "OK")
    for bucket, name in (("one", "x"), ("two", "y")):
        assert emu.http.get(emu.object_url(name, bucket)).status_code == 404
    assert emu.chunk(session, "query").status_code == 404
    emu.upload_ok("again")  # the rules set before the reset still apply (open)


def test_internal_export_writes_the_storage_folder(emu, tmp_path):
    emu.upload_ok("dir/file.txt", b"hello", content_type="text/plain")
    response = emu.http.post(emu.url("/internal/export"), json={"path": str(tmp_path / "storage_export"),
                                                                  "initiatedBy": "test"})
    assert (response.status_code, response.text) == (200, "OK")
    folder = tmp_path / "storage_export"
    assert json.loads((folder / "buckets.json").read_text()) == {"buckets": [{"id": "b"}]}
    [metadata_file] = (folder / "metadata").iterdir()
    metadata = json.loads(metadata_file.read_text())
    assert (metadata["name"], metadata["contentType"], metadata["size"]) == ("dir/file.txt", "text/plain", 5)
    assert (folder / "blobs" / metadata_file.name.removesuffix(".json")).read_bytes() == b"hello"


def test_internal_export_needs_a_path(emu):
    response = emu.http.post(emu.url("/internal/export"), json={"initiatedBy": "test"})
    assert (response.status_code, response.text) == (400, "Export request body must include 'path'.")


def test_internal_export_to_an_unusable_path_is_an_error(emu, tmp_path):
    (tmp_path / "file").write_text("not a directory")
    response = emu.http.post(emu.url("/internal/export"), json={"path": str(tmp_path / "file" / "below")})
    assert response.status_code == 500 and response.text.startswith("Export failed: ")


def test_hub_export_refuses_browsers_and_writes_a_directory(emu, tmp_path):
    emu.upload_ok("x", b"1")
    target = tmp_path / "export"
    refused = emu.http.post(emu.url("/_admin/export"), json={"path": str(target)}, headers={"Origin": "http://evil"})
    assert refused.status_code == 403 and not target.exists()
    response = emu.http.post(emu.url("/_admin/export"), json={"path": str(target)})
    assert (response.status_code, response.json()) == (200, {"message": "OK"})
    assert json.loads((target / "firebase-export-metadata.json").read_text())["storage"]["path"] == "storage_export"


def test_harness_routes_are_not_recorded(emu):
    emu.http.post(emu.url("/internal/reset"))
    assert emu.recorded() == []
