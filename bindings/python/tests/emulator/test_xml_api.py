"""The GCS XML API with obstore (Rust's object_store) and Polars from PyPI, on the same store."""

import io
import json
import os
import xml.etree.ElementTree as ElementTree
from urllib.parse import unquote

import obstore
import polars
import pytest
import requests
from obstore.exceptions import AlreadyExistsError
from obstore.store import GCSStore

from conftest import GCS_BUCKETS

BUCKET = GCS_BUCKETS[1]
MIB = 1 << 20


@pytest.fixture
def service_account(emu, tmp_path):
    """object_store takes the emulator's URL from a service-account file, with OAuth off."""
    path = tmp_path / "service-account.json"
    path.write_text(json.dumps({"gcs_base_url": emu.base, "disable_oauth": True, "client_email": "",
                                "private_key": "", "private_key_id": ""}))
    return str(path)


@pytest.fixture
def store(service_account):
    return GCSStore(BUCKET, config={"google_service_account": service_account}, client_options={"allow_http": True})


def xml_paths(emu) -> list[tuple[str, str, str]]:
    return [(entry["method"], entry["path"], entry["query"]) for entry in emu.recorded()
            if unquote(entry["path"]).startswith(f"/{BUCKET}/")]  # object_store escapes every non-alphanumeric


def error_code(response: requests.Response) -> str:
    assert response.headers["Content-Type"].startswith("application/xml"), response.text
    return ElementTree.fromstring(response.content).findtext("Code")


def test_put_get_range_head_list_copy_delete(emu, store):
    put = obstore.put(store, "dir/a.txt", b"hello world", attributes={"Content-Type": "text/plain"})
    got = obstore.get(store, "dir/a.txt")
    assert bytes(got.bytes()) == b"hello world" and got.meta["e_tag"] == put["e_tag"]
    assert got.meta["version"] == put["version"]
    assert bytes(obstore.get_range(store, "dir/a.txt", start=2, end=5)) == b"llo"
    assert obstore.head(store, "dir/a.txt")["size"] == 11
    obstore.put(store, "dir/sub/b.bin", b"b")
    assert [meta["path"] for meta in obstore.list(store, prefix="dir").collect()] == ["dir/a.txt", "dir/sub/b.bin"]
    assert obstore.list_with_delimiter(store, prefix="dir") == {
        "common_prefixes": ["dir/sub"], "objects": [obstore.list_with_delimiter(store, prefix="dir")["objects"][0]]}
    obstore.copy(store, "dir/a.txt", "copied.txt")
    with pytest.raises(AlreadyExistsError):
        obstore.copy(store, "dir/a.txt", "copied.txt", overwrite=False)
    with pytest.raises(AlreadyExistsError):
        obstore.put(store, "copied.txt", b"x", mode="create")
    obstore.delete(store, "copied.txt")
    with pytest.raises(FileNotFoundError):
        obstore.get(store, "copied.txt")
    # The same objects through the v0 API and the JSON API.
    v0 = emu.http.get(emu.url(f"/v0/b/{BUCKET}/o/dir%2Fa.txt")).json()
    assert v0["contentType"] == "text/plain" and v0["generation"] == put["version"]
    assert [method for method, _, _ in xml_paths(emu)][:2] == ["PUT", "GET"]


def test_multipart_upload_in_parts(emu, store):
    data = os.urandom(12 * MIB + 5)
    result = obstore.put(store, "big.bin", data, chunk_size=5 * MIB, use_multipart=True)
    assert bytes(obstore.get(store, "big.bin").bytes()) == data
    queries = [query for method, _, query in xml_paths(emu) if method in ("POST", "PUT")]
    assert queries[0].startswith("uploads") and sum("partNumber=" in query for query in queries) == 3
    resource = requests.get(emu.url(f"/storage/v1/b/{BUCKET}/o/big.bin")).json()
    assert resource["size"] == str(len(data)) and resource["generation"] == result["version"]


def test_polars_reads_parquet(store, service_account):
    frame = polars.DataFrame({"x": [1, 2, 3], "y": ["a", "b", "c"]})
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    obstore.put(store, "t/frame.parquet", buffer.getvalue())
    options = {"google_service_account": service_account, "allow_http": "true"}
    assert polars.read_parquet(f"gs://{BUCKET}/t/frame.parquet", storage_options=options).equals(frame)


def test_xml_errors(emu):
    base = emu.url(f"/{BUCKET}")
    assert error_code(requests.get(f"{base}/missing")) == "NoSuchKey"
    assert error_code(requests.get(emu.url("/no-such-bucket/x"))) == "NoSuchBucket"
    assert requests.put(f"{base}/once", data=b"1").status_code == 200
    taken = requests.put(f"{base}/once", data=b"2", headers={"x-goog-if-generation-match": "0"})
    assert taken.status_code == 412 and error_code(taken) == "PreconditionFailed"
    assert error_code(requests.put(f"{base}/x", params={"partNumber": "1", "uploadId": "nope"})) == "NoSuchUpload"
    started = requests.post(f"{base}/mp", params={"uploads": ""})
    upload_id = ElementTree.fromstring(started.content).findtext("{*}UploadId")
    part = requests.put(f"{base}/mp", params={"partNumber": "1", "uploadId": upload_id}, data=b"part")
    bad = requests.post(f"{base}/mp", params={"uploadId": upload_id},
                        data=b"<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"x\"</ETag></Part>"
                             b"</CompleteMultipartUpload>")
    assert bad.status_code == 400 and error_code(bad) == "InvalidPart"
    assert error_code(requests.post(f"{base}/mp", params={"uploadId": upload_id}, data=b"<not xml")) == "MalformedXML"
    assert requests.delete(f"{base}/mp", params={"uploadId": upload_id}).status_code == 204
    done = requests.post(f"{base}/mp", params={"uploadId": upload_id},
                         data=f"<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>{part.headers['ETag']}"
                              f"</ETag></Part></CompleteMultipartUpload>")
    assert done.status_code == 404 and error_code(done) == "NoSuchUpload"  # aborted
    assert requests.get(f"{base}/mp").status_code == 404


def test_other_routes_come_first(emu):
    """A path that another API serves never reaches the XML API."""
    assert emu.http.get(emu.url("/v0/")).json() == {"emulator": "storage"}
    assert requests.get(emu.url("/storage/v1/b/never/o")).headers["Content-Type"].startswith("application/json")
