"""Admin access: service accounts (assertions, access tokens, Bearer), signed URLs, download tokens.

Keys are generated per test session (never committed). A second emulator process trusts the key
(`--service-account`), and its rules deny every user."""

from __future__ import annotations

import base64
import datetime
import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

import fbstorage
from fbstorage import StorageError, StorageErrorCode

BUCKET = "demo-bucket"
DATA = Path(__file__).parent / "data" / "conformance"
VECTORS = json.loads((DATA / "v4_signatures.json").read_text())["signingV4Tests"]
CLIENT_CONFIG_KEYS = {"hostname", "clientEndpoint", "emulatorHostname", "universeDomain"}
DENY_ALL = "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n    match /{all=**} {\n      allow read, write: if false;\n    }\n  }\n}\n"


def make_key(email: str, token_uri: str) -> dict:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    return {"type": "service_account", "project_id": "demo-project", "private_key_id": "k1", "private_key": pem,
            "client_email": email, "client_id": "1", "token_uri": token_uri}


def public_pem(key: dict) -> bytes:
    private = serialization.load_pem_private_key(key["private_key"].encode(), None)
    return private.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


@pytest.fixture(scope="module")
def admin_emulator(tmp_path_factory):
    """An emulator whose rules deny everyone, trusting a fresh key; yields (url, key file for clients, key)."""
    folder = tmp_path_factory.mktemp("admin")
    key = make_key("uploader@demo-project.iam.gserviceaccount.com", "unused")
    (folder / "trusted.json").write_text(json.dumps(key))
    (folder / "deny.rules").write_text(DENY_ALL)
    process = subprocess.Popen([sys.executable, "-m", "fbstorage.emulator", "--host", "127.0.0.1", "--port", "0",
                                "--no-auth", "--rules", str(folder / "deny.rules"),
                                "--service-account", str(folder / "trusted.json")],
                               stdout=subprocess.PIPE, text=True)
    url = process.stdout.readline().split()[1]
    client_key = {**key, "token_uri": f"{url}/oauth2.googleapis.com/token"}
    (folder / "client.json").write_text(json.dumps(client_key))
    yield url, folder / "client.json", client_key
    process.terminate()
    process.wait(10)


@pytest.fixture
def admin_storage(admin_emulator):
    url, key_path, _ = admin_emulator
    host, port = urlsplit(url).hostname, urlsplit(url).port
    with fbstorage.ServiceAccount(key_path) as account, fbstorage.Storage(BUCKET) as storage:
        storage.use_emulator(host, port)
        storage.use_service_account(account)
        yield storage


class TokenEndpoint(BaseHTTPRequestHandler):
    """Records the form it is posted and answers a token, as oauth2.googleapis.com does."""
    posted: list[dict] = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        TokenEndpoint.posted.append({k: v[0] for k, v in parse_qs(body).items()})
        answer = json.dumps({"access_token": "ya29.test", "expires_in": 3599, "token_type": "Bearer"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def test_the_assertion_verifies_with_google_auth_and_has_its_claims():
    from google.auth import jwt as google_jwt
    from google.oauth2 import service_account

    server = HTTPServer(("127.0.0.1", 0), TokenEndpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        key = make_key("sa@demo-project.iam.gserviceaccount.com", f"http://127.0.0.1:{server.server_port}/token")
        with fbstorage.ServiceAccount.from_json(json.dumps(key)) as account:
            assert account.email == key["client_email"] and account.project_id == "demo-project"
            assert account.access_token() == "ya29.test" and account.access_token() == "ya29.test"
            assert len(TokenEndpoint.posted) == 1  # the token is kept
            account.set_scopes(["https://www.googleapis.com/auth/devstorage.full_control"])
            account.access_token()
    finally:
        server.shutdown()
    form = TokenEndpoint.posted[-1]
    assert form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
    google_endpoint = "https://oauth2.googleapis.com/token"  # google-auth's aud, whatever token_uri says
    ours = google_jwt.decode(form["assertion"], certs=public_pem(key), audience=google_endpoint)
    theirs_creds = service_account.Credentials.from_service_account_info(
        key, scopes=["https://www.googleapis.com/auth/devstorage.full_control"])
    theirs = google_jwt.decode(theirs_creds._make_authorization_grant_assertion(), certs=public_pem(key),
                               audience=google_endpoint)
    assert set(ours) == set(theirs)
    assert {k: v for k, v in ours.items() if k not in ("iat", "exp")} == \
        {k: v for k, v in theirs.items() if k not in ("iat", "exp")}
    assert abs(ours["iat"] - time.time()) < 60 and ours["exp"] - ours["iat"] == 3600
    header = json.loads(base64.urlsafe_b64decode(form["assertion"].split(".")[0] + "=="))
    assert header == {"alg": "RS256", "typ": "JWT", "kid": "k1"}


def test_bad_keys_fail_at_once_with_a_clear_code_and_no_key_material(tmp_path, monkeypatch):
    key = make_key("sa@p.iam.gserviceaccount.com", "https://oauth2.googleapis.com/token")
    cases = [json.dumps({**key, "type": "authorized_user"}), json.dumps({**key, "private_key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"}),
             "not json", json.dumps({k: v for k, v in key.items() if k != "client_email"}),
             json.dumps({**key, "token_uri": "http://example.com/token"})]
    for text in cases:
        with pytest.raises(StorageError) as caught:
            fbstorage.ServiceAccount.from_json(text)
        assert caught.value.code == StorageErrorCode.CREDENTIAL_INVALID
        assert "BEGIN" not in str(caught.value) and key["private_key"][40:80] not in str(caught.value)
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    with pytest.raises(StorageError) as caught:
        fbstorage.ServiceAccount.from_environment()
    assert caught.value.code == StorageErrorCode.CREDENTIAL_INVALID
    (tmp_path / "key.json").write_text(json.dumps(key))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "key.json"))
    with fbstorage.ServiceAccount.from_environment() as account:
        assert account.email == key["client_email"]


def test_the_token_endpoint_refusals_are_clear_codes(admin_emulator):
    url, _, trusted = admin_emulator
    stranger = make_key("stranger@demo-project.iam.gserviceaccount.com", f"{url}/oauth2.googleapis.com/token")
    with fbstorage.ServiceAccount.from_json(json.dumps(stranger)) as account:
        with pytest.raises(StorageError) as caught:
            account.access_token()
    assert caught.value.code == StorageErrorCode.CREDENTIAL_REJECTED and caught.value.http_status == 401
    # The same email with another key: the signature does not verify.
    impostor = {**make_key(trusted["client_email"], trusted["token_uri"])}
    with fbstorage.ServiceAccount.from_json(json.dumps(impostor)) as account:
        with pytest.raises(StorageError) as caught:
            account.access_token()
    assert caught.value.code == StorageErrorCode.CREDENTIAL_REJECTED


def test_a_service_account_upload_passes_rules_that_deny_every_user(admin_emulator, admin_storage):
    url, _, _ = admin_emulator
    data = b"admin bytes" * 1000
    admin_storage.reference("admin/one.bin").put_data(data).wait()
    assert admin_storage.reference("admin/one.bin").get_data() == data
    with fbstorage.Storage(BUCKET) as anonymous:
        anonymous.use_emulator(urlsplit(url).hostname, urlsplit(url).port)
        with pytest.raises(StorageError) as caught:
            anonymous.reference("admin/one.bin").get_data()
        assert caught.value.code == StorageErrorCode.UNAUTHORIZED
        anonymous.set_access_token("ya29.unknown-token")
        with pytest.raises(StorageError) as caught:
            anonymous.reference("admin/one.bin").get_data()
        assert caught.value.code == StorageErrorCode.UNAUTHENTICATED


def test_a_caller_access_token_is_sent_as_bearer(admin_emulator):
    url, key_path, _ = admin_emulator
    with fbstorage.ServiceAccount(key_path) as account, fbstorage.Storage(BUCKET) as storage:
        storage.use_emulator(urlsplit(url).hostname, urlsplit(url).port)
        token = account.access_token()
        storage.set_access_token(token)
        storage.reference("admin/token.txt").put_data(b"t").wait()
        asked = []
        storage.set_access_token_provider(lambda force: asked.append(force) or token)
        assert storage.reference("admin/token.txt").get_data() == b"t" and asked == [False]


def test_google_cloud_storage_with_the_same_key_shares_the_store(admin_emulator, admin_storage):
    from google.cloud import storage as gcs
    from google.oauth2 import service_account

    url, key_path, _ = admin_emulator
    credentials = service_account.Credentials.from_service_account_file(str(key_path))
    client = gcs.Client(project="demo-project", credentials=credentials, client_options={"api_endpoint": url})
    admin_storage.reference("shared/ours.txt").put_data(b"from fbstorage").wait()
    assert client.bucket(BUCKET).blob("shared/ours.txt").download_as_bytes() == b"from fbstorage"
    client.bucket(BUCKET).blob("shared/theirs.txt").upload_from_string(b"from gcs")
    assert admin_storage.reference("shared/theirs.txt").get_data() == b"from gcs"


def test_download_tokens_are_created_revoked_and_open_urls(admin_emulator, admin_storage):
    ref = admin_storage.reference("tokens/file.txt")
    ref.put_data(b"shared").wait()
    first = ref.download_tokens()
    created = ref.create_download_token()
    assert created not in first and ref.download_tokens() == [created] + first  # production lists it first
    url = ref.download_url_for_token(created)
    assert url.endswith(f"?alt=media&token={created}") and requests.get(url).content == b"shared"
    ref.revoke_download_token(created)
    assert created not in ref.download_tokens() and requests.get(url).status_code == 403


def gcs_signed_url(account_key: dict, stamp: datetime.datetime, monkeypatch, bucket: str, name: str | None,
                   **arguments) -> str:
    """google-cloud-storage's V4 URL at `stamp`."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage as gcs
    from google.cloud.storage import _signing
    from google.oauth2 import service_account

    monkeypatch.setattr(_signing, "get_v4_now_dtstamps",
                        lambda: (stamp.strftime("%Y%m%dT%H%M%SZ"), stamp.strftime("%Y%m%d")))
    monkeypatch.setattr(_signing, "_NOW", lambda tz=None: stamp)
    credentials = service_account.Credentials.from_service_account_info(account_key)
    target = gcs.Client(project="p", credentials=AnonymousCredentials()).bucket(bucket)
    if name is not None:
        target = target.blob(name)
    return target.generate_signed_url(version="v4", credentials=credentials, **arguments)


def vector_cases():
    return [pytest.param(vector, id=vector["description"]) for vector in VECTORS
            if not CLIENT_CONFIG_KEYS & set(vector)]


@pytest.fixture(scope="module")
def vector_key():
    return make_key("test-iam-credentials@dummy-project-id.iam.gserviceaccount.com", "https://oauth2.googleapis.com/token")


@pytest.mark.parametrize("vector", vector_cases())
def test_conformance_vectors(vector, vector_key, monkeypatch):
    stamp = datetime.datetime.strptime(vector["timestamp"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    style = {"VIRTUAL_HOSTED_STYLE": "virtual-hosted", "BUCKET_BOUND_HOSTNAME": "bucket-bound-hostname"}.get(
        vector.get("urlStyle"), "path")
    hostname = vector.get("bucketBoundHostname")
    if hostname and vector.get("scheme") == "http":
        hostname = "http://" + hostname
    with fbstorage.ServiceAccount.from_json(json.dumps(vector_key)) as account:
        ours = account.signed_url(vector["bucket"], vector.get("object"), expiration=vector["expiration"],
                                  method=vector["method"], headers=vector.get("headers"),
                                  query_parameters=vector.get("queryParameters"), url_style=style,
                                  bucket_bound_hostname=hostname, timestamp=stamp)
    unsigned, _, signature = ours.partition("&X-Goog-Signature=")
    assert unsigned == vector["expectedUrl"].partition("&X-Goog-Signature=")[0]
    # Our signature is over exactly Google's string to sign; theirs verifies with their key's public half.
    ours_key = serialization.load_pem_private_key(vector_key["private_key"].encode(), None).public_key()
    ours_key.verify(bytes.fromhex(signature), vector["expectedStringToSign"].encode(), padding.PKCS1v15(), hashes.SHA256())
    google = serialization.load_pem_public_key((DATA / "test_service_account.public.pem").read_bytes())
    google.verify(bytes.fromhex(vector["expectedUrl"].partition("&X-Goog-Signature=")[2]),
                  vector["expectedStringToSign"].encode(), padding.PKCS1v15(), hashes.SHA256())
    if vector.get("object") and style == "path":
        theirs = gcs_signed_url(vector_key, stamp, monkeypatch, vector["bucket"], vector["object"],
                                expiration=datetime.timedelta(seconds=vector["expiration"]), method=vector["method"],
                                headers=vector.get("headers"), query_parameters=vector.get("queryParameters"))
        assert ours == theirs


@pytest.mark.parametrize("method, extra", [
    ("GET", {}), ("HEAD", {}), ("DELETE", {}),
    ("PUT", {"headers": {"Content-Type": "text/plain", "X-Goog-Meta-Owner": "  a   b "}}),
    ("GET", {"query_parameters": {"response-content-disposition": "attachment; filename=\"a b.txt\"", "generation": "1"}}),
])
def test_signed_urls_equal_google_cloud_storage(method, extra, admin_emulator, monkeypatch):
    url, key_path, key = admin_emulator
    stamp = datetime.datetime(2026, 3, 4, 5, 6, 7, tzinfo=datetime.timezone.utc)
    with fbstorage.ServiceAccount(key_path) as account:
        for name in ("a/b c+d~é.txt", "plain"):
            ours = account.signed_url(BUCKET, name, expiration=600, method=method, api_access_endpoint=url,
                                      timestamp=stamp, **extra)
            theirs = gcs_signed_url(key, stamp, monkeypatch, BUCKET, name, expiration=datetime.timedelta(seconds=600),
                                    method=method, api_access_endpoint=url, **extra)
            assert ours == theirs


def test_the_emulator_serves_signed_urls_and_refuses_expired_or_altered_ones(admin_emulator):
    url, key_path, _ = admin_emulator
    with fbstorage.ServiceAccount(key_path) as account:
        def sign(method, **extra):
            return account.signed_url(BUCKET, "signed/x y.txt", expiration=300, method=method, api_access_endpoint=url,
                                      **extra)
        put = sign("PUT", headers={"Content-Type": "text/plain"})
        assert requests.put(put, data=b"signed bytes", headers={"Content-Type": "text/plain"}).status_code == 200
        assert requests.put(put, data=b"x", headers={"Content-Type": "image/png"}).status_code == 403
        get = sign("GET")
        assert requests.get(get).content == b"signed bytes"
        assert requests.head(sign("HEAD")).headers["Content-Length"] == "12"
        assert requests.delete(get).status_code == 403  # signed for GET
        altered = get.replace("x%20y.txt", "z.txt")
        refused = requests.get(altered)
        assert refused.status_code == 403 and "<Code>SignatureDoesNotMatch</Code>" in refused.text
        expired = account.signed_url(BUCKET, "signed/x y.txt", expiration=1, api_access_endpoint=url,
                                     timestamp=datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=5))
        refused = requests.get(expired)
        assert refused.status_code == 400 and "<Code>ExpiredToken</Code>" in refused.text
        assert requests.delete(sign("DELETE")).status_code == 204
        assert requests.get(get).status_code == 404
        with pytest.raises(StorageError) as caught:
            account.signed_url(BUCKET, "x", expiration=604801)
        assert caught.value.code == StorageErrorCode.INVALID_ARGUMENT


def test_pages_list_with_each_items_metadata_in_one_request(admin_emulator, admin_storage):
    url, _, _ = admin_emulator
    for index in range(5):
        admin_storage.reference(f"listed/f{index}.txt").put_data(b"x" * index, fbstorage.StorageMetadata(
            content_type="text/plain")).wait()
    admin_storage.reference("listed/sub/deep.txt").put_data(b"deep").wait()
    requests.delete(f"{url}/_emulator/requests")
    first = admin_storage.reference("listed").list_with_metadata(max_results=3)
    second = admin_storage.reference("listed").list_with_metadata(max_results=3, page_token=first.page_token)
    items = first.items + second.items
    metadata = (first.item_metadata or []) + (second.item_metadata or [])
    assert [item.full_path for item in items] == [f"listed/f{index}.txt" for index in range(5)]
    assert [m.size for m in metadata] == list(range(5)) and {m.content_type for m in metadata} == {"text/plain"}
    assert all(m.md5_hash and m.generation and m.updated for m in metadata)
    assert "listed/sub" in {prefix.full_path for prefix in first.prefixes + second.prefixes}
    logged = requests.get(f"{url}/_emulator/requests").json()["requests"]
    assert [entry["path"] for entry in logged] == [f"/storage/v1/b/{BUCKET}/o"] * 2


def test_a_server_side_copy_moves_no_object_bytes_through_the_client(admin_emulator, admin_storage):
    url, _, _ = admin_emulator
    data = bytes(range(256)) * (96 * 1024)  # 24 MiB: three rewriteTo calls of 8 MiB
    source = admin_storage.reference("big/source.bin")
    source.put_data(data).wait()
    requests.delete(f"{url}/_emulator/requests")
    copied = source.copy_to(admin_storage.reference("big/copy.bin"))
    logged = requests.get(f"{url}/_emulator/requests").json()["requests"]
    assert copied.size == len(data) and copied.full_path == "big/copy.bin"
    assert len(logged) == 3 and all("/rewriteTo/" in entry["path"] for entry in logged)
    assert sum(entry["body_size"] for entry in logged) < 64  # "{}" each: no object bytes sent
    moved = admin_storage.reference("big/copy.bin").move_to(admin_storage.reference("big/moved.bin"))
    assert moved.md5_hash == copied.md5_hash
    with pytest.raises(StorageError) as caught:
        admin_storage.reference("big/copy.bin").get_metadata()
    assert caught.value.code == StorageErrorCode.OBJECT_NOT_FOUND


def test_cli_and_fsspec_use_admin_listing_and_server_copies(admin_emulator, admin_storage):
    from fbstorage.fsspec import FirebaseStorageFileSystem

    url, key_path, _ = admin_emulator
    admin_storage.reference("tools/a.txt").put_data(b"alpha").wait()
    admin_storage.reference("tools/b.txt").put_data(b"beta!").wait()
    requests.delete(f"{url}/_emulator/requests")
    command = [sys.executable, "-m", "fbstorage", "--emulator", url.removeprefix("http://"),
               "--service-account", str(key_path)]
    listing = subprocess.run(command + ["ls", "-l", f"gs://{BUCKET}/tools"], capture_output=True, text=True,
                             timeout=60)
    assert listing.returncode == 0, listing.stderr
    assert "TOTAL: 2 objects, 10 bytes" in listing.stdout
    copied = subprocess.run(command + ["cp", f"gs://{BUCKET}/tools/a.txt", f"gs://{BUCKET}/tools/c.txt"],
                            capture_output=True, text=True, timeout=60)
    assert copied.returncode == 0, copied.stderr
    logged = [(entry["method"], entry["path"]) for entry in requests.get(f"{url}/_emulator/requests").json()["requests"]]
    assert ("GET", f"/storage/v1/b/{BUCKET}/o") in logged
    assert not any("alt=media" in path or method in ("PUT",) for method, path in logged)
    assert any("/rewriteTo/" in path for _, path in logged)
    assert admin_storage.reference("tools/c.txt").get_data() == b"alpha"

    fs = FirebaseStorageFileSystem(emulator_host=url.removeprefix("http://"), service_account=str(key_path),
                                   skip_instance_cache=True)
    requests.delete(f"{url}/_emulator/requests")
    entries = fs.ls(f"{BUCKET}/tools", detail=True)
    assert {entry["name"]: entry["size"] for entry in entries} == {
        f"{BUCKET}/tools/a.txt": 5, f"{BUCKET}/tools/b.txt": 5, f"{BUCKET}/tools/c.txt": 5}
    storage_requests = [entry for entry in requests.get(f"{url}/_emulator/requests").json()["requests"]
                        if not entry["path"].startswith("/oauth2.")]
    assert len(storage_requests) == 1
    fs.mv(f"{BUCKET}/tools/b.txt", f"{BUCKET}/tools/d.txt")
    assert fs.cat_file(f"{BUCKET}/tools/d.txt") == b"beta!" and not fs.exists(f"{BUCKET}/tools/b.txt")


def test_the_asyncio_api_lists_with_metadata_and_copies_on_the_server(admin_emulator):
    import asyncio

    from fbstorage import aio

    url, key_path, _ = admin_emulator

    async def scenario() -> None:
        with fbstorage.ServiceAccount(key_path) as account:
            async with aio.Storage(BUCKET) as storage:
                storage.use_emulator(urlsplit(url).hostname, urlsplit(url).port)
                storage.use_service_account(account)
                await storage.reference("aio/one.txt").put_data(b"one")
                page = await storage.reference("aio").list_with_metadata()
                assert [item.full_path for item in page.items] == ["aio/one.txt"]
                assert isinstance(page.items[0], aio.StorageReference)
                assert [m.size for m in page.item_metadata] == [3]
                moved = await storage.reference("aio/one.txt").move_to(storage.reference("aio/two.txt"))
                assert moved.full_path == "aio/two.txt"
                assert await storage.reference("aio/two.txt").get_data() == b"one"

    asyncio.run(scenario())


def test_download_tokens_signed_urls_from_the_cli_aio_and_fsspec(admin_emulator, admin_storage):
    import asyncio

    from fbstorage import aio
    from fbstorage.fsspec import FirebaseStorageFileSystem

    url, key_path, _ = admin_emulator
    admin_storage.reference("urls/f.txt").put_data(b"signed text").wait()
    command = [sys.executable, "-m", "fbstorage", "--emulator", url.removeprefix("http://"),
               "--service-account", str(key_path), "signurl", "-d", "10m"]
    signed = subprocess.run(command + [f"gs://{BUCKET}/urls/f.txt"], capture_output=True, text=True, timeout=60)
    assert signed.returncode == 0, signed.stderr
    assert "X-Goog-Expires=600&" in signed.stdout and requests.get(signed.stdout.strip()).content == b"signed text"
    unsigned = subprocess.run(command[:4] + ["signurl", f"gs://{BUCKET}/urls/f.txt"], capture_output=True, text=True,
                              timeout=60)
    assert unsigned.returncode == 2 and "--service-account" in unsigned.stderr

    fs = FirebaseStorageFileSystem(emulator_host=url.removeprefix("http://"), service_account=str(key_path),
                                   skip_instance_cache=True)
    assert requests.get(fs.sign(f"{BUCKET}/urls/f.txt", expiration=60)).content == b"signed text"
    keyless = FirebaseStorageFileSystem(emulator_host=url.removeprefix("http://"), skip_instance_cache=True)
    with pytest.raises(StorageError) as refused:
        keyless.sign(f"{BUCKET}/urls/f.txt")
    assert refused.value.code == StorageErrorCode.INVALID_ARGUMENT and "service_account" in refused.value.message

    async def tokens() -> None:
        with fbstorage.ServiceAccount(key_path) as account:
            async with aio.Storage(BUCKET) as storage:
                storage.use_emulator(urlsplit(url).hostname, urlsplit(url).port)
                storage.use_service_account(account)
                ref = storage.reference("urls/f.txt")
                before = await ref.download_tokens()
                created = await ref.create_download_token()
                assert created not in before and await ref.download_tokens() == [created] + before
                assert requests.get(ref.download_url_for_token(created)).content == b"signed text"
                await ref.revoke_download_token(created)
                assert created not in await ref.download_tokens()

    asyncio.run(tokens())


def test_a_storage_keeps_using_a_closed_service_account(admin_emulator):
    url, key_path, _ = admin_emulator
    account = fbstorage.ServiceAccount(key_path)
    with fbstorage.Storage(BUCKET) as storage:
        storage.use_emulator(urlsplit(url).hostname, urlsplit(url).port)
        storage.use_service_account(account)
        account.close()
        assert storage.auth is None
        storage.reference("kept/alive.txt").put_data(b"still admin").wait()
        with pytest.raises(StorageError) as caught:
            account.access_token()
        assert caught.value.code == StorageErrorCode.INVALID_ARGUMENT
