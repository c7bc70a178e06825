"""`--log-level debug`: one line per request with method, path, status, duration and principal,
and never a credential."""

import re

import pytest
import requests

from conftest import ADMIN, wait_until

LINE = re.compile(r"^fbstorage\.emulator: DEBUG (\S+) (\S+) (\d{3}|dropped) (\d+\.\d) ms (.+)$")


def request_lines(emu) -> list[tuple[str, ...]]:
    return [match.groups() for line in emu.stderr().splitlines() if (match := LINE.match(line))]


@pytest.mark.parametrize("flavor", ["production", "firebase-tools"])
def test_one_debug_line_per_request(start_emulator, flavor):
    emu = start_emulator("--log-level", "debug", "--bucket", "logged", flavor=flavor)
    token = emu.id_token("alice")
    emu.upload_ok("a/b", b"x", bucket="logged", headers=ADMIN)
    emu.http.get(emu.object_url("a/b", bucket="logged"), params={"alt": "media", "token": "secret-token"},
                 headers={"Authorization": f"Bearer {token}"})
    emu.http.get(emu.object_url("missing", bucket="logged"))
    requests.get(emu.url("/storage/v1/b/logged/o"), headers={"Authorization": "Bearer ya29.not-a-jwt"})
    requests.post(emu.url("/identitytoolkit.googleapis.com/v1/accounts:signUp"), params={"key": "fake-api-key"},
                  json={"returnSecureToken": True})
    requests.post(emu.url("/securetoken.googleapis.com/v1/token"), params={"key": "fake-api-key"},
                  data={"grant_type": "refresh_token", "refresh_token": "not-a-refresh-token"})
    requests.get(emu.url("/_emulator/requests"))  # control calls are not API requests: no line
    wait_until(lambda: len(request_lines(emu)) >= 6)
    lines = request_lines(emu)
    assert [(method, path, status, who) for method, path, status, _, who in lines] == [
        ("POST", "/v0/b/logged/o", "200", "admin"),
        ("GET", "/v0/b/logged/o/a%2Fb", "200", "uid=alice"),
        ("GET", "/v0/b/logged/o/missing", "404", "anonymous"),
        ("GET", "/storage/v1/b/logged/o", "401", "invalid token"),   # an access token it never issued
        ("POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp", "200", "Auth API"),
        ("POST", "/securetoken.googleapis.com/v1/token", "400", "Auth token refresh"),
    ]
    for secret in ("secret-token", token, "ya29"):
        assert secret not in emu.stderr()


def test_no_request_lines_above_debug(start_emulator):
    emu = start_emulator("--log-level", "info")
    emu.upload_ok("x", b"x")
    assert emu.http.get(emu.url("/_emulator/requests")).json()["requests"]  # the request was answered
    assert request_lines(emu) == []
