"""App Check from Python: fbstorage.AppCheck with its providers, Storage(app_check=) in both
APIs, the CLI, against emulators that enforce App Check (tokens living 3 s, so that they
expire during a test) in both flavors."""

from __future__ import annotations

import asyncio
import base64
import datetime
import json
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

import fbstorage
from fbstorage import aio
from fbstorage.cli import main as cli_main
from fbstorage.errors import StorageError, StorageErrorCode
from fbstorage.testing import EmulatorServer, run_emulator

from conftest import FLAVORS, SMALL_CHUNK, eventually, payload
from test_auth import Recorder

PROJECT = "fbs-test"
BUCKET = f"{PROJECT}.appspot.com"
APP_ID = "1:12345:web:pytest"
SECRET = "fbs-python-debug-secret"
TOKEN_TTL = 3


@pytest.fixture(scope="module", params=FLAVORS)
def enforcing(request: pytest.FixtureRequest) -> Iterator[EmulatorServer]:
    with run_emulator(request.param, "--project", PROJECT, "--app-check", "enforce", "--app-check-debug-token", SECRET,
                      "--app-check-token-ttl", str(TOKEN_TTL)) as server:
        yield server


def app_check_on(server: EmulatorServer, **options: Any) -> fbstorage.AppCheck:
    app_check = fbstorage.AppCheck(PROJECT, APP_ID, **options)
    app_check.use_emulator(server.host, server.port)
    return app_check


def storage_on(server: EmulatorServer, app_check: fbstorage.AppCheck | None) -> fbstorage.Storage:
    storage = fbstorage.Storage(BUCKET, app_check=app_check)
    storage.use_emulator(server.host, server.port)
    storage.max_operation_retry_time = storage.max_upload_retry_time = 10
    return storage


def verdicts(server: EmulatorServer) -> list[str | None]:
    server.wait_idle()
    return [entry.get("app_check") for entry in server.requests() if entry.get("path", "").startswith("/v0/")]


def minted(server: EmulatorServer, **fields: Any) -> dict[str, str]:
    """A token the emulator mints for this app (its control API: what a backend's createToken gives)."""
    body = json.dumps({"appId": APP_ID, **fields}).encode()
    request = urllib.request.Request(f"{server.url}/_emulator/app-check/tokens", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def claims(token: str) -> dict[str, Any]:
    segment = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))


def test_debug_provider_round_trip_and_chunks(enforcing: EmulatorServer) -> None:
    enforcing.reset()
    with app_check_on(enforcing, debug_token=SECRET) as app_check, storage_on(enforcing, app_check) as storage:
        storage.upload_chunk_size = SMALL_CHUNK
        data = payload(SMALL_CHUNK * 2 + 1000)   # resumable: the chunks need the token too
        ref = storage.reference("debug.bin")
        ref.put_data(data).wait(30)
        assert ref.get_data(len(data)) == data
    judged = verdicts(enforcing)
    assert len(judged) >= 5 and set(judged) == {"valid"}


def test_refusals_raise_their_codes(enforcing: EmulatorServer) -> None:
    enforcing.reset()
    with storage_on(enforcing, None) as storage:
        with pytest.raises(StorageError) as missing:
            storage.reference("x").put_data(b"x").wait(30)
        assert missing.value.code == StorageErrorCode.APP_CHECK_TOKEN_MISSING
        with app_check_on(enforcing, debug_token="unknown-secret") as app_check:
            storage.use_app_check(app_check)
            with pytest.raises(StorageError) as refused:
                storage.reference("x").put_data(b"x").wait(30)
            assert refused.value.code == StorageErrorCode.APP_CHECK_ATTESTATION_FAILED
            assert "unknown-secret" not in str(refused.value)
            foreign = minted(enforcing, ttlSeconds=600, project="another-project")["token"]
            app_check.set_token(foreign, time.time() + 600)
            enforcing.clear_requests()
            with pytest.raises(StorageError) as invalid:
                storage.reference("x").put_data(b"x").wait(30)
            assert invalid.value.code == StorageErrorCode.APP_CHECK_TOKEN_INVALID
            assert foreign not in str(invalid.value)
            assert verdicts(enforcing) == ["other project", "other project"]   # one retry, no more


def test_custom_provider_answers_later_from_a_thread(enforcing: EmulatorServer) -> None:
    enforcing.reset()
    asked: list[bool] = []
    destroyed = threading.Event()

    def provider(limited_use: bool, request: fbstorage.AppCheckTokenRequest) -> None:
        asked.append(limited_use)

        def backend() -> None:   # attests the device, mints, answers from its own thread
            answer = minted(enforcing, ttlSeconds=60, limitedUse=limited_use)
            request.complete(answer["token"], time.time() + 60)

        threading.Thread(target=backend).start()

    app_check = app_check_on(enforcing)
    app_check.set_custom_provider(provider)
    with storage_on(enforcing, app_check) as storage:
        ref = storage.reference("custom.txt")
        ref.put_data(b"hello").wait(30)
        assert ref.get_data(100) == b"hello"
        assert asked == [False]
        token = app_check.get_token()
        assert token.expire_time > datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=30)
        assert token.token not in repr(token)
        limited = app_check.get_limited_use_token()
        assert "jti" in claims(limited.token) and "jti" not in claims(token.token)
        assert asked == [False, True]
    app_check.close()
    assert set(verdicts(enforcing)) == {"valid"}


def test_provider_failure_and_exception(enforcing: EmulatorServer) -> None:
    with app_check_on(enforcing) as app_check:
        app_check.set_custom_provider(lambda limited, request: request.fail("no attestation here"))
        with pytest.raises(StorageError) as failed:
            app_check.get_token()
        assert failed.value.code == StorageErrorCode.APP_CHECK_PROVIDER_FAILED
        assert "no attestation here" in str(failed.value)

        def raising(limited: bool, request: fbstorage.AppCheckTokenRequest) -> None:
            raise RuntimeError("boom")

        app_check.set_custom_provider(raising)
        with pytest.raises(StorageError) as raised, pytest.warns(RuntimeWarning, match="boom"):
            app_check.get_token(force_refresh=True)
        assert raised.value.code == StorageErrorCode.APP_CHECK_PROVIDER_FAILED
        app_check.set_custom_provider(None)
        with pytest.raises(StorageError) as none:
            app_check.get_token()
        assert none.value.code == StorageErrorCode.APP_CHECK_NO_PROVIDER


def test_token_listeners_hear_each_kept_token(enforcing: EmulatorServer) -> None:
    enforcing.reset()
    with app_check_on(enforcing, debug_token=SECRET) as app_check:
        heard, later = Recorder(), Recorder()   # no token kept yet: neither is called at once
        handle = app_check.add_token_listener(heard)
        app_check.add_token_listener(later)
        first = app_check.get_token()
        assert heard.wait_for(1) == [first]
        limited = app_check.get_limited_use_token()
        forced = app_check.get_token(force_refresh=True)
        # Each renewal is heard, in order; the limited-use token never is.
        assert heard.wait_for(2) == [first, forced] and limited not in heard.calls

        app_check.remove_token_listener(handle)
        with pytest.raises(StorageError) as raised:
            app_check.remove_token_listener(handle)
        assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
        third = app_check.get_token(force_refresh=True)
        assert later.wait_for(3)[2] == third
        assert heard.calls == [first, forced]

        # A token given is heard at once, and a listener added while it is kept hears it now.
        expiry = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(minutes=10)
        app_check.set_token("minted-elsewhere", expiry)
        given = fbstorage.AppCheckToken("minted-elsewhere", expiry)
        assert later.wait_for(4)[3] == given
        registered = Recorder()
        app_check.add_token_listener(registered)
        assert registered.wait_for(1) == [given]
    # Closing the App Check removed its listeners: the library dropped them (destroy ran).
    assert all(kept is not registered and kept is not later for kept in fbstorage.app_check._token_listeners.values())


def test_auto_refresh_renews_the_token_in_the_background(enforcing: EmulatorServer) -> None:
    enforcing.reset()
    with app_check_on(enforcing, debug_token=SECRET) as app_check:
        assert app_check.token_auto_refresh_enabled is False   # the default: renewed when a request needs one
        app_check.token_auto_refresh_enabled = True
        assert app_check.token_auto_refresh_enabled is True
        with pytest.raises(TypeError):
            app_check.token_auto_refresh_enabled = 1  # type: ignore[assignment]
        heard = Recorder()
        app_check.add_token_listener(heard)
        first = app_check.get_token()
        # No request after the first: the token is renewed halfway through each life (1.5 s here).
        tokens = heard.wait_for(3)
        assert tokens[0] == first
        assert all(earlier.expire_time < later.expire_time for earlier, later in zip(tokens, tokens[1:]))
        assert app_check.get_token() in tokens  # a request finds a fresh token kept
        app_check.token_auto_refresh_enabled = False
        stopped_at = len(heard.wait_for(3))
    enforcing.wait_idle()
    exchanges = sum(":exchangeDebugToken" in entry["path"] for entry in enforcing.requests())
    assert exchanges >= 3 and exchanges <= stopped_at + 1   # one renewal may have been under way


def test_a_token_listener_that_raises_is_reported_and_the_others_go_on(enforcing: EmulatorServer) -> None:
    def broken(token: fbstorage.AppCheckToken) -> None:
        raise RuntimeError("token listener bug")

    after = Recorder()
    with app_check_on(enforcing, debug_token=SECRET) as app_check, pytest.warns(RuntimeWarning, match="token listener bug"):
        app_check.add_token_listener(broken)
        app_check.add_token_listener(after)
        token = app_check.get_token(force_refresh=True)
        assert after.wait_for(1) == [token]
    with pytest.raises(TypeError):
        app_check.add_token_listener("not callable")  # type: ignore[arg-type]


def test_tokens_renew_across_expiry_while_an_upload_runs(enforcing: EmulatorServer) -> None:
    enforcing.reset()
    with app_check_on(enforcing, debug_token=SECRET) as app_check, storage_on(enforcing, app_check) as storage:
        storage.upload_chunk_size = SMALL_CHUNK
        storage.max_upload_speed = 2 * SMALL_CHUNK   # 4 MiB: about 8 s, past two token lifetimes
        data = payload(16 * SMALL_CHUNK)
        started = time.monotonic()
        storage.reference("long.bin").put_data(data).wait(60)
        assert time.monotonic() - started > 2 * TOKEN_TTL
    enforcing.wait_idle()
    log = enforcing.requests()
    judged = [entry.get("app_check") for entry in log if entry["path"].startswith("/v0/")]
    assert len(judged) >= 17 and set(judged) == {"valid"}   # the start and 16 chunks at least
    assert sum(":exchangeDebugToken" in entry["path"] for entry in log) >= 3
    assert all(entry.get("status") != 401 for entry in log)


def test_a_cancelled_upload_tells_its_session_with_the_token(enforcing: EmulatorServer) -> None:
    """The cancel command ends the session only if the server takes it: App Check enforced,
    it carries the token the chunks carry."""
    enforcing.reset()
    with app_check_on(enforcing, debug_token=SECRET) as app_check, storage_on(enforcing, app_check) as storage:
        storage.upload_chunk_size = SMALL_CHUNK
        storage.max_upload_speed = 2 * SMALL_CHUNK   # 8 chunks: about 4 s, cancelled after the first
        task = storage.reference("cancelled.bin").put_data(payload(8 * SMALL_CHUNK))
        task.observe(fbstorage.TaskStatus.PROGRESS,
                     lambda snapshot: task.cancel() if snapshot.bytes_transferred > 0 else None)
        with pytest.raises(StorageError) as cancelled:
            task.wait(30)
        assert cancelled.value.code == StorageErrorCode.CANCELLED

        def cancel_commands() -> list[dict[str, Any]]:
            return [entry for entry in enforcing.requests()
                    if entry["headers"].get("X-Goog-Upload-Command", "").lower() == "cancel"]
        assert eventually(lambda: len(cancel_commands()) == 1)
        enforcing.wait_idle()
        [command] = cancel_commands()
        assert (command["app_check"], command["status"]) == ("valid", 200)


def test_environment_variables(enforcing: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> None:
    enforcing.reset()
    monkeypatch.setenv("FIREBASE_APP_CHECK_EMULATOR_HOST", f"{enforcing.host}:{enforcing.port}")
    monkeypatch.delenv("FIREBASE_APP_CHECK_DEBUG_TOKEN", raising=False)
    monkeypatch.setenv("FIRAAppCheckDebugToken", SECRET)   # the Apple SDK's name, as CI sets it
    with fbstorage.AppCheck(PROJECT, APP_ID, debug_token=True) as app_check, storage_on(enforcing, app_check) as storage:
        storage.reference("env.txt").put_data(b"e").wait(30)
    monkeypatch.delenv("FIRAAppCheckDebugToken")
    with fbstorage.AppCheck(PROJECT, APP_ID) as app_check:
        with pytest.raises(StorageError) as none:
            app_check.set_debug_provider()
        assert none.value.code == StorageErrorCode.INVALID_ARGUMENT
        assert "FIREBASE_APP_CHECK_DEBUG_TOKEN" in str(none.value)


def test_aio_storage_with_app_check(enforcing: EmulatorServer) -> None:
    enforcing.reset()

    async def main() -> bytes:
        with app_check_on(enforcing, debug_token=SECRET) as app_check:
            async with aio.Storage(BUCKET, app_check=app_check) as storage:
                storage.use_emulator(enforcing.host, enforcing.port)
                assert storage.app_check is app_check
                ref = storage.reference("aio.txt")
                await ref.put_data(b"async")
                return await ref.get_data(100)

    assert asyncio.run(main()) == b"async"
    assert set(verdicts(enforcing)) == {"valid"}


def test_aio_token_listeners_run_on_the_loop(enforcing: EmulatorServer) -> None:
    async def main() -> None:
        async with aio.AppCheck(PROJECT, APP_ID, debug_token=SECRET) as app_check:
            app_check.use_emulator(enforcing.host, enforcing.port)
            loop_thread = threading.get_ident()
            heard: asyncio.Queue[tuple[fbstorage.AppCheckToken, int]] = asyncio.Queue()
            later: asyncio.Queue[fbstorage.AppCheckToken] = asyncio.Queue()
            handle = app_check.add_token_listener(lambda token: heard.put_nowait((token, threading.get_ident())))
            app_check.add_token_listener(later.put_nowait)
            token = await app_check.get_token(force_refresh=True)
            assert await asyncio.wait_for(heard.get(), 10) == (token, loop_thread)
            assert await asyncio.wait_for(later.get(), 10) == token
            app_check.remove_token_listener(handle)
            renewed = await app_check.get_token(force_refresh=True)
            assert await asyncio.wait_for(later.get(), 10) == renewed   # told after the removed one would be
            assert heard.empty()

    asyncio.run(main())


def test_aio_app_check_with_a_coroutine_provider(enforcing: EmulatorServer) -> None:
    enforcing.reset()
    asked: list[bool] = []

    async def provider(limited_use: bool) -> tuple[str, float]:
        asked.append(limited_use)
        answer = await asyncio.to_thread(minted, enforcing, ttlSeconds=60, limitedUse=limited_use)   # the backend
        return answer["token"], time.time() + 60

    async def main() -> None:
        async with aio.AppCheck(PROJECT, APP_ID) as app_check:
            app_check.use_emulator(enforcing.host, enforcing.port)
            with pytest.raises(StorageError) as none:
                await app_check.get_token()
            assert none.value.code == StorageErrorCode.APP_CHECK_NO_PROVIDER
            app_check.set_custom_provider(provider)
            async with aio.Storage(BUCKET, app_check=app_check) as storage:
                storage.use_emulator(enforcing.host, enforcing.port)
                ref = storage.reference("aio-custom.txt")
                await ref.put_data(b"coroutine")
                assert await ref.get_data(100) == b"coroutine"
            token = await app_check.get_token()
            assert token.expire_time > datetime.datetime.now(datetime.timezone.utc)
            limited = await app_check.get_limited_use_token()
            assert "jti" in claims(limited.token)
            assert asked == [False, True]

            async def broken(limited_use: bool) -> tuple[str, float]:
                raise LookupError("no backend")

            app_check.set_custom_provider(broken)
            with pytest.raises(StorageError) as failed:
                await app_check.get_token(force_refresh=True)
            assert failed.value.code == StorageErrorCode.APP_CHECK_PROVIDER_FAILED
            assert "LookupError" in str(failed.value)

    asyncio.run(main())
    assert set(verdicts(enforcing)) == {"valid"}


def test_cli_debug_token(enforcing: EmulatorServer, tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str]) -> None:
    enforcing.reset()
    source = tmp_path / "cli.txt"
    source.write_bytes(b"from the CLI")
    emulator = f"{enforcing.host}:{enforcing.port}"
    target = f"gs://{BUCKET}/cli.txt"
    monkeypatch.delenv("FIREBASE_APP_CHECK_DEBUG_TOKEN", raising=False)
    assert cli_main(["--emulator", emulator, "cp", str(source), target]) == 1
    assert "App Check" in capsys.readouterr().err
    assert cli_main(["--emulator", emulator, "--app-check-app-id", APP_ID, "--app-check-debug-token", SECRET,
                     "cp", str(source), target]) == 0
    monkeypatch.setenv("FIREBASE_APP_CHECK_DEBUG_TOKEN", SECRET)
    monkeypatch.setenv("FBSTORAGE_APP_CHECK_APP_ID", APP_ID)
    assert cli_main(["--emulator", emulator, "cat", target]) == 0
    assert capsys.readouterr().out == "from the CLI"
    assert cli_main(["--emulator", emulator, "--app-check-debug-token", SECRET, "cat", target]) == 0
    monkeypatch.delenv("FBSTORAGE_APP_CHECK_APP_ID")
    assert cli_main(["--emulator", emulator, "--app-check-debug-token", SECRET, "cat", target]) == 2


def test_the_enforced_project_example(tmp_path: Path) -> None:
    """examples/python/enforced_project.py: a backend with a service account mints custom tokens,
    exchanges them, and the device's custom provider hands them to the storage."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    key_file = tmp_path / "key.json"
    key_file.write_text(json.dumps({"type": "service_account", "project_id": PROJECT, "private_key_id": "k1",
                                    "private_key": pem, "client_email": f"backend@{PROJECT}.iam.gserviceaccount.com",
                                    "client_id": "1", "token_uri": "https://oauth2.googleapis.com/token"}))
    example = Path(__file__).resolve().parents[3] / "examples" / "python" / "enforced_project.py"
    with run_emulator("production", "--project", PROJECT, "--app-check", "enforce",
                      "--service-account", str(key_file)) as server:
        done = subprocess.run([sys.executable, str(example), "--emulator", f"{server.host}:{server.port}",
                               "--service-account", str(key_file), "--project", PROJECT, "--app-id", APP_ID],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "uploaded and read back: attested by my backend" in done.stdout
        exchanged = [entry for entry in server.requests() if ":exchangeCustomToken" in entry["path"]]
        assert len(exchanged) == 1
        assert set(verdicts(server)) == {"valid"}
