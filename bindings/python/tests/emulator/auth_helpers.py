"""Talking to the bundled Auth emulator over HTTP, as a client would (shared by the Auth tests)."""

from __future__ import annotations

import base64
import json

import requests

IDENTITY = "/identitytoolkit.googleapis.com/v1"
SECURE_TOKEN = "/securetoken.googleapis.com/v1/token"
KEY = {"key": "any-api-key"}
ADMIN = {"Authorization": "Bearer owner"}


class AuthClient:
    """The REST calls of a Firebase client against one base URL (the Auth or the storage port)."""

    def __init__(self, base: str):
        self.base = base
        self.http = requests.Session()

    def call(self, operation: str, body: dict, **kwargs) -> requests.Response:
        return self.http.post(f"{self.base}{IDENTITY}/accounts:{operation}", params=KEY, json=body, **kwargs)

    def ok(self, operation: str, body: dict) -> dict:
        response = self.call(operation, body)
        assert response.status_code == 200, response.text
        return response.json()

    def anonymous(self) -> dict:
        return self.ok("signUp", {"returnSecureToken": True})

    def sign_up(self, email: str, password: str = "secret-1") -> dict:
        return self.ok("signUp", {"email": email, "password": password, "returnSecureToken": True})

    def sign_in(self, email: str, password: str = "secret-1") -> requests.Response:
        return self.call("signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})

    def refresh(self, refresh_token: str, *, form: bool = True) -> requests.Response:
        if form:
            return self.http.post(self.base + SECURE_TOKEN, params=KEY,
                                  data={"grant_type": "refresh_token", "refresh_token": refresh_token})
        return self.http.post(self.base + SECURE_TOKEN, params=KEY,
                              json={"grantType": "refresh_token", "refreshToken": refresh_token})

    def admin(self, project: str, operation: str, body: dict) -> requests.Response:
        suffix = f":{operation}" if operation else ""
        return self.http.post(f"{self.base}{IDENTITY}/projects/{project}/accounts{suffix}", json=body, headers=ADMIN)


def claims_of(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def header_of(token: str) -> dict:
    header = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))


def unsigned_jwt(payload: dict, header: dict | None = None) -> str:
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
    return f"{part(header or {'alg': 'none', 'typ': 'JWT'})}.{part(payload)}."


def assert_auth_error(response: requests.Response, message: str, status: int = 400) -> None:
    """Production's error body: code, message, errors[0] and status."""
    assert response.status_code == status, (response.status_code, response.text)
    error = response.json()["error"]
    assert error["code"] == status and error["message"] == message, error
    assert error["errors"][0]["domain"] == "global" and error["errors"][0]["reason"], error
    assert error["status"] == {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                               404: "NOT_FOUND"}[status], error
