"""Sign-in and token refresh over DNS outages, by name (identitytoolkit.test)."""

from __future__ import annotations

import base64
import json
import threading
import time

import fbstorage
from conftest import Lab
from netlab.dns import AUTH_HOST
from netlab.emulator import AUTH_PORT, TOKEN_LIFETIME
from transfers import header

OUTAGE = 10.0


def token_expiry(entry: dict) -> float:
    """The `exp` of the bearer token a recorded request carried."""
    authorization = header(entry, "Authorization") or ""
    token = authorization.split()[-1]
    claims = token.split(".")[1]
    return float(json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))["exp"])


def test_sign_in_and_refresh_ride_out_dns_outages(network: Lab) -> None:
    with fbstorage.Auth("netlab-api-key", "demo-project") as auth:
        auth.use_emulator(AUTH_HOST, AUTH_PORT)
        # Sign-in started while DNS is down completes once it is back.
        network.dns.stop()
        signed_in: list[object] = []
        signing_in = threading.Thread(target=lambda: signed_in.append(auth.sign_in_anonymously()))
        signing_in.start()
        time.sleep(OUTAGE)  # the outage itself
        assert signing_in.is_alive() and not signed_in, "sign-in ended while DNS was down"
        network.dns.start()
        signing_in.join(60)
        assert signed_in, "sign-in did not finish after DNS came back"

        # A new storage's first uploads while DNS is down again, for longer than the token
        # lives: once DNS is back they go with a refreshed token, never the expired one.
        network.dns.stop()
        storage = network.storage()
        storage.use_auth(auth)
        with storage:
            tasks = [storage.reference(f"auth/during-{number}").put_data(b"x" * number) for number in range(5)]
            time.sleep(TOKEN_LIFETIME)  # the outage itself
            assert not any(task.snapshot.status == fbstorage.TaskStatus.SUCCESS for task in tasks)
            network.dns.start()
            for task in tasks:
                task.wait(60)
            # Then uploads for another token lifetime: refreshed again on the way.
            started, uploads = time.monotonic(), len(tasks)
            while time.monotonic() - started < TOKEN_LIFETIME:
                storage.reference(f"auth/after-{uploads}").put_data(b"x").wait(60)
                uploads += 1
    entries = [entry for entry in network.emulator.control.requests() if header(entry, "Authorization")]
    statuses = {entry["status"] for entry in entries}
    stale = [entry for entry in entries if token_expiry(entry) < entry["time"]]
    tokens = {header(entry, "Authorization") for entry in entries}
    print(f"\nsign-in across a {OUTAGE:.0f} s DNS outage; {uploads} uploads with {TOKEN_LIFETIME} s tokens, the "
          f"first 5 across a {TOKEN_LIFETIME} s DNS outage: {len(tokens)} tokens used, statuses {statuses}")
    assert not stale, f"{len(stale)} requests carried an expired token"
    assert 401 not in statuses
    assert len(tokens) >= 2  # refreshed at least once
