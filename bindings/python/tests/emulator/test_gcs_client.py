"""google-cloud-storage and firebase-admin drive every GCS JSON API route against the emulator."""

import io
import os
import uuid

import firebase_admin
import pytest
import requests
from firebase_admin import credentials as admin_credentials
from firebase_admin import storage as admin_storage
from google.api_core import exceptions
from google.auth.credentials import AnonymousCredentials

from conftest import crc32c_value, md5_b64

BUCKET = "demo-project.appspot.com"
CHUNK = 256 * 1024


def crc32c_b64(data: bytes) -> str:
    import base64
    return base64.b64encode(crc32c_value(data).to_bytes(4, "big")).decode()


def gcs_requests(emu) -> list[dict]:
    return [entry for entry in emu.recorded() if "/storage/v1/" in entry["path"]]


def test_small_upload_is_multipart_and_reads_back(emu, gcs):
    blob = gcs.bucket(BUCKET).blob("dir/hello.txt")
    blob.metadata = {"owner": "ada"}
    blob.upload_from_string(b"hello gcs", content_type="text/plain")
    assert blob.size == 9 and blob.md5_hash == md5_b64(b"hello gcs") and blob.crc32c == crc32c_b64(b"hello gcs")
    assert blob.metageneration == 1 and blob.generation > 0 and blob.content_type == "text/plain"
    assert blob.metadata["owner"] == "ada"
    uploads = [e for e in emu.recorded() if e["path"].startswith("/upload/storage/v1/")]
    assert [e["query"].split("&")[0] for e in uploads] == ["uploadType=multipart"]
    fetched = gcs.bucket(BUCKET).get_blob("dir/hello.txt")
    assert (fetched.generation, fetched.metageneration, fetched.md5_hash, fetched.metadata) == (
        blob.generation, 1, blob.md5_hash, blob.metadata)
    assert fetched.download_as_bytes() == b"hello gcs"


def test_media_upload_takes_the_body_as_the_object(emu):
    response = requests.post(emu.url(f"/upload/storage/v1/b/{BUCKET}/o"), params={"uploadType": "media", "name": "m/x"},
                             data=b"raw bytes", headers={"Content-Type": "text/csv"})
    assert response.status_code == 200, response.text
    resource = response.json()
    assert (resource["name"], resource["size"], resource["contentType"]) == ("m/x", "9", "text/csv")
    assert resource["kind"] == "storage#object" and resource["id"] == f"{BUCKET}/m/x/{resource['generation']}"
    assert requests.get(resource["mediaLink"]).content == b"raw bytes"


def test_multi_chunk_resumable_upload_gets_308_and_range_per_chunk(emu, gcs):
    mib = 4 * CHUNK
    data = os.urandom(9 * mib + 1000)  # above the client's 8 MiB multipart limit
    blob = gcs.bucket(BUCKET).blob("big.bin", chunk_size=mib)
    blob.upload_from_string(data)
    chunks = [e for e in emu.recorded() if "upload_id=" in e["query"]]
    assert [e["status"] for e in chunks] == [308] * 9 + [200]
    assert chunks[-1]["headers"]["Content-Range"] == f"bytes {9 * mib}-{len(data) - 1}/{len(data)}"
    assert blob.size == len(data) and blob.md5_hash == md5_b64(data)
    assert gcs.bucket(BUCKET).blob("big.bin").download_as_bytes() == data


@pytest.mark.parametrize("size, last_range", [
    (2 * CHUNK + 17, f"bytes {2 * CHUNK}-{2 * CHUNK + 16}/{2 * CHUNK + 17}"),
    (2 * CHUNK, f"bytes */{2 * CHUNK}"),  # ends on a chunk boundary: an empty request gives the total
])
def test_resumable_upload_of_unknown_size(emu, gcs, size, last_range):
    data = os.urandom(size)
    blob = gcs.bucket(BUCKET).blob("stream.bin", chunk_size=CHUNK)
    with blob.open("wb", chunk_size=CHUNK) as writer:  # a stream: the size is known only at the end
        for offset in range(0, len(data), 100_000):
            writer.write(data[offset:offset + 100_000])
    ranges = [e["headers"]["Content-Range"] for e in emu.recorded() if "upload_id=" in e["query"]]
    assert ranges[0] == f"bytes 0-{CHUNK - 1}/*" and ranges[-1] == last_range
    assert blob.bucket.get_blob("stream.bin").download_as_bytes() == data


def test_downloads_carry_hash_generation_and_honour_range(emu, gcs):
    data = os.urandom(3 * 1024 * 1024 + 11)
    blob = gcs.bucket(BUCKET).blob("r.bin")
    blob.upload_from_string(data)
    assert blob.download_as_bytes(start=10, end=1_000_009) == data[10:1_000_010]
    assert blob.download_as_bytes(checksum="md5") == data
    for path in (f"/download/storage/v1/b/{BUCKET}/o/r.bin", f"/storage/v1/b/{BUCKET}/o/r.bin"):
        response = requests.get(emu.url(path), params={"alt": "media"}, headers={"Range": "bytes=5-9"})
        assert response.status_code == 206 and response.content == data[5:10]
        if emu.production:  # production vouches for no hash of a part of an object
            assert "x-goog-hash" not in response.headers
        else:
            assert response.headers["x-goog-hash"] == f"crc32c={crc32c_b64(data)},md5={md5_b64(data)}"
        assert response.headers["x-goog-generation"] == str(blob.generation)
        assert response.headers["Content-Range"] == f"bytes 5-9/{len(data)}"


def test_patch_merges_metadata_key_by_key_and_bumps_metageneration(gcs):
    blob = gcs.bucket(BUCKET).blob("p.txt")
    blob.metadata = {"keep": "1", "drop": "2"}
    blob.upload_from_string(b"x")
    blob.metadata = {"drop": None, "new": "3"}
    blob.content_type = "text/plain"
    blob.patch()
    assert blob.metageneration == 2 and blob.content_type == "text/plain"
    assert {k: v for k, v in blob.metadata.items() if k != "firebaseStorageDownloadTokens"} == {"keep": "1", "new": "3"}
    assert gcs.bucket(BUCKET).get_blob("p.txt").metageneration == 2


def test_put_update_replaces_the_writable_metadata(gcs):
    blob = gcs.bucket(BUCKET).blob("u.txt")
    blob.metadata = {"a": "1"}
    blob.cache_control = "no-cache"
    blob.upload_from_string(b"x", content_type="text/plain")
    fresh = gcs.bucket(BUCKET).blob("u.txt")
    fresh.metadata = {"b": "2"}
    fresh.update()
    assert fresh.metadata == {"b": "2"} and fresh.metageneration == 2
    assert fresh.cache_control is None and fresh.content_type is None


def test_listing_with_prefix_delimiter_offsets_and_pages(gcs):
    bucket = gcs.bucket(BUCKET)
    names = ["a/1", "a/2", "a/", "b/x/1", "b/y", "c", "d"]
    for name in names:
        bucket.blob(name).upload_from_string(name.encode())
    assert [b.name for b in gcs.list_blobs(BUCKET)] == sorted(names)
    assert [b.name for b in gcs.list_blobs(BUCKET, prefix="a/")] == ["a/", "a/1", "a/2"]
    top = gcs.list_blobs(BUCKET, delimiter="/")
    assert [b.name for b in top] == ["c", "d"] and top.prefixes == {"a/", "b/"}
    trailing = gcs.list_blobs(BUCKET, delimiter="/", include_trailing_delimiter=True)
    assert [b.name for b in trailing] == ["a/", "c", "d"] and trailing.prefixes == {"a/", "b/"}
    assert [b.name for b in gcs.list_blobs(BUCKET, start_offset="a/2", end_offset="c")] == ["a/2", "b/x/1", "b/y"]
    pages = gcs.list_blobs(BUCKET, max_results=None, page_size=2).pages
    assert [[b.name for b in page] for page in pages] == [sorted(names)[i:i + 2] for i in range(0, 7, 2)]
    page = next(iter(gcs.list_blobs(BUCKET, prefix="b/", delimiter="/").pages))
    assert [b.name for b in page] == ["b/y"] and page.prefixes == ("b/x/",)


def test_listing_with_match_glob(emu, gcs):
    bucket = gcs.bucket(BUCKET)
    names = ["a/1.txt", "a/3.md", "a/b/2.txt", "b.txt", "c9", "cx"]
    for name in names:
        bucket.blob("glob/" + name).upload_from_string(b"x")

    def matched(glob: str) -> list[str]:
        return [b.name.removeprefix("glob/") for b in gcs.list_blobs(BUCKET, prefix="glob/", match_glob="glob/" + glob)]
    if not emu.production:
        assert matched("a/*") == names  # the firebase-tools flavor ignores matchGlob
        return
    assert matched("a/*") == ["a/1.txt", "a/3.md"]  # `*` stops at "/"
    assert matched("a/**") == ["a/1.txt", "a/3.md", "a/b/2.txt"]
    assert matched("**.{md,txt}") == ["a/1.txt", "a/3.md", "a/b/2.txt", "b.txt"]
    assert matched("c[0-9]") == ["c9"] and matched("c[!0-9]") == ["cx"] and matched("?.txt") == ["b.txt"]


def test_delete(gcs):
    blob = gcs.bucket(BUCKET).blob("gone")
    blob.upload_from_string(b"x")
    blob.delete()
    assert gcs.bucket(BUCKET).get_blob("gone") is None and not blob.exists()
    with pytest.raises(exceptions.NotFound):
        blob.delete()


def test_copy_rewrite_and_compose(emu, gcs):
    bucket = gcs.bucket(BUCKET)
    source = bucket.blob("src")
    source.metadata = {"k": "v"}
    source.upload_from_string(b"0123456789", content_type="text/plain")
    copy = bucket.copy_blob(source, gcs.bucket("other-bucket"), "copied")
    assert copy.download_as_bytes() == b"0123456789" and copy.metadata["k"] == "v"
    assert copy.content_type == "text/plain" and copy.generation != source.generation

    large = bucket.blob("large")
    data = os.urandom(9 * 1024 * 1024 + 5)  # more than one rewrite step of 8 MiB
    large.upload_from_string(data)
    target = bucket.blob("rewritten")
    token, done, total = target.rewrite(large)
    assert token is not None and (done, total) == (8 * 1024 * 1024, len(data))
    token, done, total = target.rewrite(large, token=token)
    assert token is None and done == total == len(data)
    assert target.download_as_bytes() == data and target.md5_hash == md5_b64(data)

    composed = bucket.blob("composed")
    composed.content_type = "application/x-parts"
    composed.compose([source, source])
    assert composed.download_as_bytes() == b"01234567890123456789"
    assert composed.crc32c == crc32c_b64(b"01234567890123456789")
    assert composed.content_type == "application/x-parts"


def test_rewrite_token_steps_by_max_bytes_per_call(emu, gcs):
    data = os.urandom(3 * 1024 * 1024 + 1)
    gcs.bucket(BUCKET).blob("s").upload_from_string(data)
    url = emu.url(f"/storage/v1/b/{BUCKET}/o/s/rewriteTo/b/{BUCKET}/o/t")
    token, steps = None, []
    while True:
        params = {"maxBytesRewrittenPerCall": str(1 << 20), **({"rewriteToken": token} if token else {})}
        reply = requests.post(url, params=params, json={}).json()
        steps.append(int(reply["totalBytesRewritten"]))
        if reply["done"]:
            break
        token = reply["rewriteToken"]
    assert steps == [1 << 20, 2 << 20, 3 << 20, len(data)]
    assert reply["resource"]["md5Hash"] == md5_b64(data)
    bad = requests.post(url, params={"rewriteToken": "nope"}, json={})
    assert bad.status_code == 400 and bad.json()["error"]["errors"][0]["reason"] == "invalid"

    first = requests.post(url, params={"maxBytesRewrittenPerCall": str(1 << 20)}, json={}).json()
    gcs.bucket(BUCKET).blob("s").upload_from_string(b"changed")  # the source changes mid-rewrite
    params = {"maxBytesRewrittenPerCall": str(1 << 20), "rewriteToken": first["rewriteToken"]}
    assert requests.post(url, params=params, json={}).status_code == 412
    assert requests.post(url, params=params, json={}).status_code == 400  # that rewrite is over
    assert gcs.bucket(BUCKET).blob("t").download_as_bytes() == data  # the first rewrite's result stays


def test_preconditions_give_412(gcs, emu):
    # A failed if…NotMatch on a live object is production's 304 Not Modified (recorded in
    # data/production-replay/gcs--generation-preconditions.json); the official emulator's 412.
    not_match_failed = exceptions.NotModified if emu.production else exceptions.PreconditionFailed
    bucket = gcs.bucket(BUCKET)
    blob = bucket.blob("c")
    blob.upload_from_string(b"1", if_generation_match=0)
    with pytest.raises(exceptions.PreconditionFailed):
        bucket.blob("c").upload_from_string(b"2", if_generation_match=0)
    with pytest.raises(not_match_failed):
        bucket.blob("c").upload_from_string(b"2", if_generation_not_match=blob.generation)
    bucket.blob("c").upload_from_string(b"2", if_generation_match=blob.generation)
    current = bucket.get_blob("c")
    assert current.download_as_bytes() == b"2"
    current.metadata = {"x": "1"}
    with pytest.raises(exceptions.PreconditionFailed):
        current.patch(if_metageneration_match=5)
    current.patch(if_metageneration_match=1)
    with pytest.raises(not_match_failed):
        current.delete(if_metageneration_not_match=2)
    with pytest.raises(exceptions.PreconditionFailed):
        bucket.copy_blob(current, bucket, "c2", if_source_generation_match=1)
    with pytest.raises(exceptions.NotFound):  # only the live generation is kept
        bucket.blob("c", generation=blob.generation).download_as_bytes()
    assert bucket.get_blob("c").metageneration == 2 and bucket.get_blob("c2") is None


def test_errors_have_the_gcs_shape(emu):
    response = requests.get(emu.url(f"/storage/v1/b/{BUCKET}/o/missing"))
    assert response.status_code == 404 and response.headers["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == 404 and error["message"] == f"No such object: {BUCKET}/missing"
    assert error["errors"] == [{"domain": "global", "reason": "notFound", "message": error["message"]}]
    unserved = requests.post(emu.url(f"/storage/v1/b/{BUCKET}/o/x/acl"), json={})
    assert unserved.status_code == 501 and unserved.json()["error"]["errors"][0]["reason"] == "notImplemented"


class _NoNetworkCredential(admin_credentials.Base):
    """firebase-admin wants a credential; against the emulator it must not reach Google."""

    def get_credential(self):
        return AnonymousCredentials()


@pytest.fixture
def admin_bucket(emu, monkeypatch):
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emu.base)
    app = firebase_admin.initialize_app(_NoNetworkCredential(), {"storageBucket": BUCKET, "projectId": "demo-project"},
                                        name=f"gcs-test-{uuid.uuid4()}")
    yield admin_storage.bucket(app=app)
    firebase_admin.delete_app(app)


def test_firebase_admin_storage_round_trip(admin_bucket):
    assert admin_bucket.exists()
    data = os.urandom(9 * 1024 * 1024)  # above the 8 MiB multipart limit: a resumable upload
    blob = admin_bucket.blob("admin/big.bin")
    blob.upload_from_file(io.BytesIO(data), content_type="application/x-test")
    admin_bucket.blob("admin/small.txt").upload_from_string("hi")
    assert [b.name for b in admin_bucket.list_blobs(prefix="admin/")] == ["admin/big.bin", "admin/small.txt"]
    fetched = admin_bucket.get_blob("admin/big.bin")
    assert fetched.size == len(data) and fetched.content_type == "application/x-test"
    assert fetched.download_as_bytes() == data
    fetched.metadata = {"reviewed": "yes"}
    fetched.patch()
    assert admin_bucket.get_blob("admin/big.bin").metadata["reviewed"] == "yes"
    fetched.delete()
    assert admin_bucket.get_blob("admin/big.bin") is None
