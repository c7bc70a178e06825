"""The emulator's service accounts, driven by Google's own clients: google-auth exchanges a key's
assertion at /oauth2.googleapis.com/token, its tokens are admin on both APIs (unknown Bearer
tokens get 401), and google-cloud-storage's V4 signed URLs are served, or refused as GCS does."""

import datetime
import json
import time

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from conftest import Emulator

BUCKET = "b"
EMAIL = "emu-admin@demo-project.iam.gserviceaccount.com"
DENY_ALL = "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n    match /{all=**} {\n      allow read, write: if false;\n    }\n  }\n}\n"


@pytest.fixture(scope="module")
def key():
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    return {"type": "service_account", "project_id": "demo-project", "private_key_id": "e1", "private_key": pem,
            "client_email": EMAIL, "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token"}


@pytest.fixture(scope="module", params=["production", "firebase-tools"])
def admin_emu(request, key, tmp_path_factory):
    folder = tmp_path_factory.mktemp("service-accounts")
    (folder / "key.json").write_text(json.dumps(key))
    (folder / "deny.rules").write_text(DENY_ALL)
    emu = Emulator("--service-account", str(folder / "key.json"), "--rules", str(folder / "deny.rules"),
                   flavor=request.param)
    yield emu
    assert emu.stop() == 0
    assert "Traceback" not in emu.stderr(), emu.stderr()


def credentials_for(emu, key):
    from google.oauth2 import service_account

    return service_account.Credentials.from_service_account_info(
        {**key, "token_uri": emu.url("/oauth2.googleapis.com/token")},
        scopes=["https://www.googleapis.com/auth/cloud-platform"])


def test_google_auth_gets_an_admin_token_on_both_apis(admin_emu, key):
    import google.auth.transport.requests

    credentials = credentials_for(admin_emu, key)
    credentials.refresh(google.auth.transport.requests.Request())
    admin = {"Authorization": f"Bearer {credentials.token}"}
    url = admin_emu.url(f"/v0/b/{BUCKET}/o?name=x.txt")
    assert requests.post(url, data=b"admin", headers=admin).status_code == 200  # rules deny every user
    assert requests.post(url, data=b"user").status_code == 403
    for headers in ({"Authorization": "Bearer ya29.forged"}, {"Authorization": "Bearer not-issued-here"}):
        refused = requests.get(admin_emu.url(f"/v0/b/{BUCKET}/o/x.txt"), headers=headers)
        assert refused.status_code == 401, refused.text
        refused = requests.get(admin_emu.url(f"/storage/v1/b/{BUCKET}/o/x.txt"), headers=headers)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == 401
    resource = requests.get(admin_emu.url(f"/storage/v1/b/{BUCKET}/o/x.txt"), headers=admin).json()
    assert resource["size"] == "5"


def test_the_token_endpoint_refuses_as_google_does(admin_emu, key):
    from google.auth import crypt, jwt

    signer = crypt.RSASigner.from_service_account_info(key)
    endpoint = admin_emu.url("/oauth2.googleapis.com/token")

    def post(claims, grant="urn:ietf:params:oauth:grant-type:jwt-bearer", sign_with=signer):
        assertion = jwt.encode(sign_with, claims).decode()
        return requests.post(endpoint, data={"grant_type": grant, "assertion": assertion})

    now = int(time.time())
    good = {"iss": EMAIL, "aud": "https://oauth2.googleapis.com/token", "scope": "x", "iat": now, "exp": now + 3600}
    answer = post(good).json()
    assert answer["access_token"].startswith("ya29.") and answer["expires_in"] == 3599
    for claims in ({**good, "iat": now - 7200, "exp": now - 3600}, {**good, "exp": now + 7200}):
        refused = post(claims)
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_grant"
        assert "iat and exp" in refused.json()["error_description"]
    refused = post({**good, "aud": "https://elsewhere.example/token"})
    assert refused.status_code == 400 and "audience" in refused.json()["error_description"]
    refused = post({**good, "iss": "stranger@demo-project.iam.gserviceaccount.com"})
    assert refused.status_code == 401 and refused.json()["error"] == "invalid_client"
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    refused = post(good, sign_with=crypt.RSASigner.from_string(other))
    assert refused.status_code == 400 and refused.json()["error_description"] == "Invalid JWT Signature."
    assert post(good, grant="password").json()["error"] == "unsupported_grant_type"
    assert requests.post(endpoint, data=b"\xff", headers={"Content-Type": "application/json"}).status_code == 400


def test_google_cloud_storage_signed_urls_are_served_and_checked(admin_emu, key, monkeypatch):
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    credentials = credentials_for(admin_emu, key)
    blob = storage.Client(project="p", credentials=AnonymousCredentials()).bucket(BUCKET).blob("s/a b.txt")

    def signed(method, expiration=datetime.timedelta(minutes=5), **extra):
        return blob.generate_signed_url(version="v4", credentials=credentials, api_access_endpoint=admin_emu.base,
                                        method=method, expiration=expiration, **extra)

    put = signed("PUT", content_type="text/plain")
    assert requests.put(put, data=b"signed", headers={"Content-Type": "text/plain"}).status_code == 200
    assert requests.get(signed("GET")).content == b"signed"
    head = requests.head(signed("HEAD"))
    assert head.status_code == 200 and head.headers["Content-Length"] == "6"
    # Uploaded through the XML API: no Firebase download token, as in production.
    resource = requests.get(admin_emu.url(f"/storage/v1/b/{BUCKET}/o/s%2Fa%20b.txt"), headers={"Authorization": "Bearer owner"}).json()
    assert "firebaseStorageDownloadTokens" not in resource.get("metadata", {})
    refused = requests.put(put, data=b"x", headers={"Content-Type": "image/png"})
    assert refused.status_code == 403 and "<Code>SignatureDoesNotMatch</Code>" in refused.text
    assert refused.headers["Content-Type"].startswith("application/xml")
    from google.cloud.storage import _signing

    with monkeypatch.context() as patched:  # signed 10 s ago, valid for 1 s
        past = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=10)
        patched.setattr(_signing, "get_v4_now_dtstamps",
                        lambda: (past.strftime("%Y%m%dT%H%M%SZ"), past.strftime("%Y%m%d")))
        expired = signed("GET", expiration=datetime.timedelta(seconds=1))
    refused = requests.get(expired)
    assert refused.status_code == 400 and "<Code>ExpiredToken</Code>" in refused.text
    refused = requests.get(signed("GET").replace("X-Goog-Expires=300", "X-Goog-Expires=301"))
    assert refused.status_code == 403
    refused = requests.get(signed("GET").replace("X-Goog-Algorithm=GOOG4-RSA-SHA256", "X-Goog-Algorithm=GOOG4-HMAC-SHA256"))
    assert refused.status_code == 400 and "AuthorizationQueryParametersError" in refused.text
    assert requests.delete(signed("DELETE")).status_code == 204
    assert requests.get(signed("GET")).status_code == 404


def test_a_foreign_page_may_use_a_signed_url_but_not_an_access_token(admin_emu, key):
    """The signature is the credential a page was given (docs/security.md); a service account's
    access token is an admin's, refused from another origin's page."""
    from google.auth.credentials import AnonymousCredentials
    from google.auth.transport.requests import Request
    from google.cloud import storage

    credentials = credentials_for(admin_emu, key)
    blob = storage.Client(project="p", credentials=AnonymousCredentials()).bucket(BUCKET).blob("page.txt")
    foreign = {"Origin": "http://localhost:8000"}
    put = blob.generate_signed_url(version="v4", credentials=credentials, api_access_endpoint=admin_emu.base,
                                   method="PUT", expiration=datetime.timedelta(minutes=5))
    answer = requests.put(put, data=b"from a page", headers=foreign)
    assert answer.status_code == 200 and answer.headers["Access-Control-Allow-Origin"] == foreign["Origin"]
    credentials.refresh(Request())
    admin = {"Authorization": f"Bearer {credentials.token}"}
    refused = requests.get(admin_emu.url(f"/v0/b/{BUCKET}/o/page.txt"), headers={**foreign, **admin})
    assert refused.status_code == 403 and "Access-Control-Allow-Origin" not in refused.headers
    assert requests.get(admin_emu.url(f"/v0/b/{BUCKET}/o/page.txt"), headers=admin).status_code == 200
