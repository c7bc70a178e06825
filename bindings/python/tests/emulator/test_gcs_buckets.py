"""Buckets on the GCS JSON API: which exist, create, list, get, delete, and the versioning setting."""

import json

import pytest
import requests
from google.api_core import exceptions

from conftest import GCS_BUCKETS, assert_json_error

NO_BUCKET = "The specified bucket does not exist."


def gcs_url(emu, path: str) -> str:
    return emu.url("/storage/v1" + path)


def assert_no_bucket(response: requests.Response) -> None:
    error = assert_json_error(response, 404)
    assert error["message"] == NO_BUCKET and error["errors"][0]["reason"] == "notFound"


def test_a_bucket_never_created_does_not_exist(emu, gcs):
    assert not gcs.bucket("never-created").exists()
    assert_no_bucket(requests.get(gcs_url(emu, "/b/never-created")))
    assert_no_bucket(requests.delete(gcs_url(emu, "/b/never-created")))


def test_object_routes_of_a_missing_bucket(emu, gcs):
    """Production: 404 on every object route. firebase-tools creates a bucket any `/b/{b}/…` path names."""
    upload = requests.post(emu.url("/upload/storage/v1/b/not-yet/o"), params={"uploadType": "media", "name": "x"},
                           data=b"1")
    listing = requests.get(gcs_url(emu, "/b/also-not/o"))
    if emu.production:
        assert_no_bucket(upload)
        assert_no_bucket(listing)
        assert_no_bucket(requests.get(gcs_url(emu, "/b/also-not/o/x")))
        assert not gcs.bucket("not-yet").exists() and not gcs.bucket("also-not").exists()
    else:
        assert upload.status_code == 200 and listing.status_code == 200
        assert gcs.bucket("not-yet").exists() and gcs.bucket("also-not").exists()


def test_copy_to_a_missing_bucket(emu, gcs):
    source = gcs.bucket(GCS_BUCKETS[0]).blob("s")
    source.upload_from_string(b"s")
    if emu.production:
        with pytest.raises(exceptions.NotFound, match=NO_BUCKET):
            gcs.bucket(GCS_BUCKETS[0]).copy_blob(source, gcs.bucket("nowhere"), "d")
    else:
        gcs.bucket(GCS_BUCKETS[0]).copy_blob(source, gcs.bucket("nowhere"), "d")
        assert gcs.bucket("nowhere").blob("d").download_as_bytes() == b"s"


def test_a_bucket_used_through_v0_exists(emu, gcs):
    assert emu.upload("x", b"v0", bucket="app-bucket").status_code == 200
    assert gcs.bucket("app-bucket").blob("x").download_as_bytes() == b"v0"
    emu.list(bucket="listed-only")  # any v0 request naming the bucket
    assert emu.http.get(emu.url("/v0/b/listed-only/o")).status_code == 200
    assert gcs.bucket("listed-only").exists()


def test_create_get_and_conflict(emu, gcs):
    created = gcs.create_bucket("made-here")
    assert created.name == "made-here" and created.versioning_enabled is False
    fetched = gcs.get_bucket("made-here")
    assert fetched.time_created == created.time_created and fetched.metageneration == 1
    with pytest.raises(exceptions.Conflict):
        gcs.create_bucket("made-here")
    for name in ("UPPER", "ab", "-dash-first", "a" * 64, "bad/slash"):
        response = requests.post(gcs_url(emu, "/b"), params={"project": "p"}, json={"name": name})
        assert assert_json_error(response, 400)["message"] == f"Invalid bucket name: '{name}'"
    assert_json_error(requests.post(gcs_url(emu, "/b"), params={"project": "p"}, json={}), 400)


def test_delete_empty_full_and_missing(emu, gcs):
    bucket = gcs.create_bucket("to-delete")
    bucket.blob("o").upload_from_string(b"x")
    with pytest.raises(exceptions.Conflict):
        bucket.delete()
    response = requests.delete(gcs_url(emu, "/b/to-delete"))
    assert assert_json_error(response, 409)["message"] == "The bucket you tried to delete is not empty."
    bucket.blob("o").delete()
    assert requests.delete(gcs_url(emu, "/b/to-delete")).status_code == 204
    assert not bucket.exists()
    assert_no_bucket(requests.delete(gcs_url(emu, "/b/to-delete")))


def test_list_buckets_in_pages(emu, gcs):
    names = [f"list-{index:02d}" for index in range(7)]
    for name in names:
        gcs.create_bucket(name)
    everything = sorted([*names, *GCS_BUCKETS])
    assert [bucket.name for bucket in gcs.list_buckets()] == everything
    pages = list(gcs.list_buckets(page_size=3).pages)
    assert [[bucket.name for bucket in page] for page in pages] == [everything[i:i + 3] for i in range(0, 10, 3)]
    assert [bucket.name for bucket in gcs.list_buckets(prefix="list-0")] == names
    raw = requests.get(gcs_url(emu, "/b"), params={"project": "p", "maxResults": 2}).json()
    assert raw["kind"] == "storage#buckets" and [b["name"] for b in raw["items"]] == everything[:2]
    assert raw["items"][0]["kind"] == "storage#bucket" and raw["nextPageToken"]
    empty = requests.get(gcs_url(emu, "/b"), params={"project": "p", "prefix": "zzz"}).json()
    assert empty == {"kind": "storage#buckets"}
    assert [b["name"] for b in requests.get(gcs_url(emu, "/b")).json()["items"]] == everything  # any project
    assert_json_error(requests.get(gcs_url(emu, "/b"), params={"project": "p", "pageToken": "!!"}), 400)


def test_versioning_is_echoed_and_patched(emu, gcs):
    response = requests.post(gcs_url(emu, "/b"), params={"project": "p"},
                             json={"name": "versioned", "versioning": {"enabled": True}})
    assert response.status_code == 200 and response.json()["versioning"] == {"enabled": True}
    bucket = gcs.get_bucket("versioned")
    assert bucket.versioning_enabled
    bucket.versioning_enabled = False
    bucket.patch()
    fetched = gcs.get_bucket("versioned")
    assert not fetched.versioning_enabled and fetched.metageneration == 2
    bad = requests.patch(gcs_url(emu, "/b/versioned"), json={"versioning": {"enabled": "yes"}})
    assert_json_error(bad, 400)


def test_reset_forgets_created_buckets_but_not_configured_ones(start_emulator, tmp_path):
    (tmp_path / "storage.rules").write_text("rules_version = '2';\nservice firebase.storage {\n"
                                            "  match /b/{bucket}/o { match /{all=**} { allow read, write; } }\n}\n")
    (tmp_path / "firebase.json").write_text(json.dumps({"storage": [{"bucket": "from-config",
                                                                     "rules": "storage.rules"}]}))
    emu = start_emulator("--bucket", "from-flag", "--config", str(tmp_path / "firebase.json"))
    assert requests.post(gcs_url(emu, "/b"), params={"project": "p"}, json={"name": "made-here"}).status_code == 200

    def names():
        return [b["name"] for b in requests.get(gcs_url(emu, "/b"), params={"project": "p"}).json()["items"]]
    # The project's default bucket is there too, as in a real project.
    assert names() == ["demo-project.appspot.com", "from-config", "from-flag", "made-here"]
    emu.reset()
    assert names() == ["demo-project.appspot.com", "from-config", "from-flag"]


def test_buckets_persist_in_a_data_dir(start_emulator, tmp_path):
    emu = start_emulator("--data-dir", str(tmp_path))
    response = requests.post(gcs_url(emu, "/b"), params={"project": "p"},
                             json={"name": "kept", "versioning": {"enabled": True}})
    assert response.status_code == 200
    assert emu.stop() == 0
    again = start_emulator("--data-dir", str(tmp_path))
    assert requests.get(gcs_url(again, "/b/kept")).json()["versioning"] == {"enabled": True}
