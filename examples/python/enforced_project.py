#!/usr/bin/env python3
"""An enforced project: a device whose App Check tokens come from its own backend.

The backend (here a small HTTP server in the same process, in life your server) attests the
device its own way, then mints a custom token signed by the project's service account and
exchanges it at App Check's `:exchangeCustomToken` for an App Check token. The device's
custom provider asks the backend and hands the token to fbstorage, which sends it on every
Storage request and asks again before it expires.

Against the bundled emulator, enforcing App Check and trusting the service account's key:

    python -m fbstorage.emulator --project demo-project --app-check enforce --service-account key.json
    python examples/python/enforced_project.py --emulator 127.0.0.1:9199 --service-account key.json \\
        --project demo-project --app-id 1:1234:web:abcd

Exits with status 1 when a step fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt  # PyJWT, with cryptography for RS256

import fbstorage

CUSTOM_TOKEN_AUDIENCE = "https://firebaseappcheck.googleapis.com/google.firebase.appcheck.v1.TokenExchangeService"


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--emulator", required=True, metavar="HOST:PORT", help="the emulator (Storage and App Check)")
    parser.add_argument("--service-account", required=True, metavar="KEY_JSON", help="the key the backend signs with")
    parser.add_argument("--project", required=True)
    parser.add_argument("--app-id", required=True, metavar="APP_ID")
    parser.add_argument("--bucket", help="default: PROJECT.appspot.com")
    return parser.parse_args()


def mint_app_check_token(key: dict, exchange_base: str, project: str, app_id: str) -> dict:
    """The backend's job once the device passed its attestation: a custom token (as
    firebase-admin's createToken signs it), exchanged for an App Check token {"token", "ttl"}."""
    now = int(time.time())
    custom_token = jwt.encode({"iss": key["client_email"], "sub": key["client_email"], "aud": CUSTOM_TOKEN_AUDIENCE,
                               "app_id": app_id, "iat": now, "exp": now + 300},
                              key["private_key"], algorithm="RS256", headers={"kid": key["private_key_id"]})
    request = urllib.request.Request(f"{exchange_base}/v1/projects/{project}/apps/{app_id}:exchangeCustomToken",
                                     data=json.dumps({"customToken": custom_token}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


def start_backend(key: dict, exchange_base: str, project: str, app_id: str) -> ThreadingHTTPServer:
    """POST /app-check-token → {"token", "expiresAt"}, for devices that pass the attestation."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            device = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if self.path != "/app-check-token" or device.get("device") != "demo-device":   # your attestation here
                self.send_error(403)
                return
            minted = mint_app_check_token(key, exchange_base, project, app_id)
            body = json.dumps({"token": minted["token"], "expiresAt": time.time() + float(minted["ttl"].rstrip("s"))})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *_: object) -> None:   # tokens stay out of the output
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def device_provider(backend_url: str):
    """The device's custom provider: asks the backend from a thread of its own, answers later."""

    def provider(limited_use: bool, request: fbstorage.AppCheckTokenRequest) -> None:
        def ask() -> None:
            try:
                call = urllib.request.Request(f"{backend_url}/app-check-token", method="POST",
                                              data=json.dumps({"device": "demo-device"}).encode())
                with urllib.request.urlopen(call, timeout=30) as answer:
                    minted = json.loads(answer.read())
                request.complete(minted["token"], minted["expiresAt"])
            except OSError as error:
                request.fail(f"the backend could not be reached: {error}")

        threading.Thread(target=ask).start()

    return provider


def main() -> int:
    options = parse_arguments()
    host, _, port = options.emulator.rpartition(":")
    with open(options.service_account, encoding="utf-8") as file:
        key = json.load(file)
    backend = start_backend(key, f"http://{options.emulator}/firebaseappcheck.googleapis.com", options.project, options.app_id)
    try:
        with fbstorage.AppCheck(options.project, options.app_id) as app_check, \
                fbstorage.Storage(options.bucket or f"{options.project}.appspot.com", app_check=app_check) as storage:
            app_check.use_emulator(host, int(port))
            app_check.set_custom_provider(device_provider(f"http://127.0.0.1:{backend.server_port}"))
            storage.use_emulator(host, int(port))
            ref = storage.reference("enforced/hello.txt")
            ref.put_data(b"attested by my backend").wait(60)
            print(f"uploaded and read back: {ref.get_data(1024).decode()}")
            print(f"App Check token valid until {app_check.get_token().expire_time:%H:%M:%S} UTC")
    except fbstorage.StorageError as error:
        print(f"failed: {error}", file=sys.stderr)
        return 1
    finally:
        backend.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
