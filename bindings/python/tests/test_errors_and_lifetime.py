"""Server errors, authentication, retries, argument checking, and closing."""

from __future__ import annotations

import math
import threading

import pytest

import fbstorage
from fbstorage import StorageError, StorageErrorCode, TaskStatus
from conftest import SMALL_CHUNK, EventRecorder, header, payload, slow_chunks

def storage_rules(condition: str) -> str:
    """A storage.rules source granting everything when `condition` holds."""
    return ("rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o/{path=**} {\n"
            f"    allow read, write: if {condition};\n  }}\n}}\n")


SIGNED_IN_ONLY = storage_rules("request.auth != null")
NOBODY = storage_rules("false")


# -- server errors ---------------------------------------------------------------------------
def test_forbidden_is_unauthorized(storage: fbstorage.Storage, emulator) -> None:
    storage.reference("secret").put_data(b"x").wait()
    emulator.set_rules(NOBODY)
    with pytest.raises(StorageError) as raised:
        storage.reference("secret").get_metadata()
    error = raised.value
    assert error.code == StorageErrorCode.UNAUTHORIZED
    assert error.http_status == 403
    assert error.server_response is not None and "Permission denied" in error.server_response
    assert "403" in str(error) and error.message
    with pytest.raises(StorageError) as raised:
        storage.reference("secret2").put_data(b"x").wait()
    assert raised.value.code == StorageErrorCode.UNAUTHORIZED


def test_missing_or_unreadable_token_is_unauthorized_and_an_expired_one_unauthenticated_in_production(
        storage: fbstorage.Storage, emulator) -> None:
    emulator.set_rules(SIGNED_IN_ONLY)
    with pytest.raises(StorageError) as raised:
        storage.reference("private").put_data(b"x").wait()
    assert raised.value.code == StorageErrorCode.UNAUTHORIZED  # request.auth == null: denied, as both servers do
    storage.set_auth_token("not-a-jwt")  # no user either, in both servers
    with pytest.raises(StorageError) as raised:
        storage.reference("private").get_metadata()
    assert (raised.value.code, raised.value.http_status) == (StorageErrorCode.UNAUTHORIZED, 403)
    storage.set_auth_token(emulator.id_token("bob", exp=1))  # expired
    with pytest.raises(StorageError) as raised:
        storage.reference("private").get_metadata()
    if emulator.flavor == "production":  # production verifies ID tokens
        assert (raised.value.code, raised.value.http_status) == (StorageErrorCode.UNAUTHENTICATED, 401)
    else:  # the official emulator accepts any token it can decode
        assert (raised.value.code, raised.value.http_status) == (StorageErrorCode.OBJECT_NOT_FOUND, 404)


def test_rules_file_given_at_startup(tmp_path, emulator) -> None:
    from fbstorage.testing import run_emulator

    rules = tmp_path / "storage.rules"
    rules.write_text("""rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{path=**} {
      allow read, write: if request.auth != null && request.auth.uid == uid;
    }
    match /public/{path=**} {
      allow read;
      allow write: if request.auth != null;
    }
  }
}
""")
    with run_emulator(emulator.flavor, "--rules", str(rules)) as guarded, guarded.storage() as storage:
        with pytest.raises(StorageError) as raised:
            storage.reference("public/a").put_data(b"x").wait()
        assert raised.value.code == StorageErrorCode.UNAUTHORIZED
        storage.set_auth_token(guarded.id_token("carol"))
        storage.reference("public/a").put_data(b"x").wait()
        storage.reference("users/carol/b").put_data(b"mine").wait()
        with pytest.raises(StorageError) as raised:
            storage.reference("users/dave/b").put_data(b"not mine").wait()
        assert raised.value.code == StorageErrorCode.UNAUTHORIZED
        storage.set_auth_token(None)
        assert storage.reference("public/a").get_data() == b"x"
        with pytest.raises(StorageError) as raised:
            storage.reference("users/carol/b").get_data()
        assert raised.value.code == StorageErrorCode.UNAUTHORIZED


def test_fixed_auth_and_app_check_tokens_are_sent(storage: fbstorage.Storage, emulator) -> None:
    emulator.set_rules(SIGNED_IN_ONLY)
    token = emulator.id_token("alice")
    storage.set_auth_token(token)
    storage.set_app_check_token("app-check-token")
    storage.reference("private").put_data(b"x").wait()
    sent = emulator.requests()[-1]
    assert header(sent, "Authorization") == f"Firebase {token}"
    assert header(sent, "X-Firebase-AppCheck") == "app-check-token"
    storage.set_auth_token(None)
    storage.set_app_check_token(None)
    with pytest.raises(StorageError) as raised:
        storage.reference("private").get_metadata()
    assert raised.value.code == StorageErrorCode.UNAUTHORIZED
    assert header(emulator.requests()[-1], "X-Firebase-AppCheck") is None


def test_token_provider_is_asked_again_after_a_401(storage: fbstorage.Storage, emulator) -> None:
    emulator.set_rules(SIGNED_IN_ONLY)
    calls: list[bool] = []
    fresh, expired = emulator.id_token("bob"), emulator.id_token("bob", exp=1)

    def provider(force_refresh: bool) -> str | None:
        calls.append(force_refresh)
        return fresh if force_refresh else expired

    storage.set_auth_token_provider(provider)
    if emulator.flavor != "production":  # the official emulator accepts expired tokens: no refresh
        storage.reference("private").put_data(b"x").wait()
        assert calls == [False]
        return
    storage.reference("private").put_data(b"x").wait()
    assert calls[:2] == [False, True]
    storage.set_auth_token_provider(None)
    with pytest.raises(StorageError):
        storage.reference("private").get_metadata()
    assert len(calls) == 2


def test_token_provider_exception_is_reported_and_means_no_token(storage: fbstorage.Storage, emulator) -> None:
    emulator.set_rules(SIGNED_IN_ONLY)

    def broken(force_refresh: bool) -> str:
        raise KeyError("no token today")

    storage.set_auth_token_provider(broken)
    with pytest.warns(RuntimeWarning, match="(?s)auth token provider.*no token today"):
        with pytest.raises(StorageError) as raised:
            storage.reference("private").get_metadata()
    assert raised.value.code == StorageErrorCode.UNAUTHORIZED
    storage.set_auth_token_provider(lambda force: 42)  # type: ignore[arg-type,return-value]
    with pytest.warns(RuntimeWarning, match="must be a str"):
        with pytest.raises(StorageError):
            storage.reference("private").get_metadata()


def test_503_is_retried(storage: fbstorage.Storage, emulator) -> None:
    storage.reference("flaky").put_data(b"x").wait()
    emulator.clear_requests()
    emulator.add_fault({"match": {"method": "GET"}, "times": 2, "action": {"status": 503}})
    assert storage.reference("flaky").get_metadata().size == 1
    statuses = [entry["status"] for entry in emulator.requests()]
    assert statuses == [503, 503, 200]


def test_retries_end_at_the_deadline(storage: fbstorage.Storage, emulator) -> None:
    storage.max_operation_retry_time = 1.0
    emulator.add_fault({"match": {"method": "GET"}, "times": 1000, "action": {"status": 503}})
    with pytest.raises(StorageError) as raised:
        storage.reference("flaky").get_metadata()
    assert raised.value.code == StorageErrorCode.RETRY_LIMIT_EXCEEDED
    assert "503" in raised.value.message


def test_upload_chunk_failure_is_retried(storage: fbstorage.Storage, emulator) -> None:
    storage.upload_chunk_size = SMALL_CHUNK
    emulator.add_fault({"match": {"header": {"X-Goog-Upload-Command": "upload"}}, "times": 1,
                        "action": {"status": 503}})
    data = payload(SMALL_CHUNK * 3)
    ref = storage.reference("retried-upload")
    ref.put_data(data).wait()
    assert ref.get_data() == data
    assert 503 in [entry["status"] for entry in emulator.requests()]


# -- settings --------------------------------------------------------------------------------
def test_settings_round_trip(offline_storage: fbstorage.Storage, tmp_path) -> None:
    assert offline_storage.max_upload_retry_time == 600
    assert offline_storage.max_download_retry_time == 600
    assert offline_storage.max_operation_retry_time == 120
    assert offline_storage.connect_timeout == 30
    assert offline_storage.upload_chunk_size == 128 * 1024 * 1024
    assert offline_storage.verify_md5 is False and offline_storage.ca_file is None
    offline_storage.max_upload_retry_time = 5
    offline_storage.max_download_retry_time = 6.5
    offline_storage.max_operation_retry_time = 7
    offline_storage.connect_timeout = 2.5
    offline_storage.upload_chunk_size = 1024 * 1024
    offline_storage.verify_md5 = True
    pem = tmp_path / "ca.pem"
    pem.write_text("")
    offline_storage.ca_file = pem
    assert (offline_storage.max_upload_retry_time, offline_storage.max_download_retry_time,
            offline_storage.max_operation_retry_time, offline_storage.connect_timeout) == (5, 6.5, 7, 2.5)
    assert offline_storage.upload_chunk_size == 1024 * 1024
    assert offline_storage.verify_md5 is True and offline_storage.ca_file == str(pem)
    offline_storage.ca_file = None
    assert offline_storage.ca_file is None


@pytest.mark.parametrize("setting", ["max_upload_retry_time", "max_download_retry_time",
                                     "max_operation_retry_time", "connect_timeout"])
@pytest.mark.parametrize("value", [0, -1, math.nan, math.inf])
def test_bad_durations_are_invalid_arguments(offline_storage: fbstorage.Storage, setting: str, value: float) -> None:
    before = getattr(offline_storage, setting)
    with pytest.raises(StorageError) as raised:
        setattr(offline_storage, setting, value)
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
    assert getattr(offline_storage, setting) == before


@pytest.mark.parametrize("size", [0, 1, 256 * 1024 - 1, 2**30 + 1, -5])
def test_bad_chunk_sizes_are_invalid_arguments(offline_storage: fbstorage.Storage, size: int) -> None:
    with pytest.raises(StorageError) as raised:
        offline_storage.upload_chunk_size = size
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT


@pytest.mark.parametrize("host, port", [("", 9199), ("127.0.0.1", 0), ("127.0.0.1", 65536), ("127.0.0.1", -1)])
def test_bad_emulator_addresses_are_invalid_arguments(offline_storage: fbstorage.Storage, host: str, port: int) -> None:
    with pytest.raises(StorageError) as raised:
        offline_storage.use_emulator(host, port)
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT


def test_emulator_host_from_the_environment(emulator, monkeypatch) -> None:
    emulator.reset()
    monkeypatch.setenv("FIREBASE_STORAGE_EMULATOR_HOST", f"{emulator.host}:{emulator.port}")
    with fbstorage.Storage("test-bucket") as storage:
        storage.reference("from-env").put_data(b"env").wait()
        assert storage.reference("from-env").get_data() == b"env"
    assert emulator.requests()


# -- wrong Python types and values -----------------------------------------------------------
def test_wrong_types_raise_type_error(offline_storage: fbstorage.Storage) -> None:
    ref = offline_storage.reference("x")
    calls = [
        lambda: fbstorage.Storage(None),  # type: ignore[arg-type]
        lambda: fbstorage.Storage(b"bucket"),  # type: ignore[arg-type]
        lambda: offline_storage.reference(5),  # type: ignore[arg-type]
        lambda: offline_storage.reference_for_url(None),  # type: ignore[arg-type]
        lambda: ref.child(None),  # type: ignore[arg-type]
        lambda: ref.put_data("text is not bytes"),
        lambda: ref.put_data(5),
        lambda: ref.put_data(None),
        lambda: ref.put_data(b"x", metadata={"content_type": "a/b"}),  # type: ignore[arg-type]
        lambda: ref.put_file(5),  # type: ignore[arg-type]
        lambda: ref.put_file(None),  # type: ignore[arg-type]
        lambda: ref.put_file_resuming("f", None),  # type: ignore[arg-type]
        lambda: ref.write_to_file(3.5),  # type: ignore[arg-type]
        lambda: offline_storage.use_emulator("127.0.0.1", "9199"),  # type: ignore[arg-type]
        lambda: offline_storage.use_emulator(None, 9199),  # type: ignore[arg-type]
        lambda: offline_storage.set_auth_token(5),  # type: ignore[arg-type]
        lambda: offline_storage.set_app_check_token(b"t"),  # type: ignore[arg-type]
        lambda: offline_storage.set_auth_token_provider("not callable"),  # type: ignore[arg-type]
        lambda: setattr(offline_storage, "max_upload_retry_time", "10"),
        lambda: setattr(offline_storage, "upload_chunk_size", 1.5),
        lambda: setattr(offline_storage, "verify_md5", 1),
        lambda: setattr(offline_storage, "ca_file", 5),
        lambda: fbstorage.StorageMetadata(content_type=5),  # type: ignore[arg-type]
    ]
    for index, call in enumerate(calls):
        with pytest.raises(TypeError):
            call()
            pytest.fail(f"call {index} did not raise")


def test_nul_characters_are_refused(offline_storage: fbstorage.Storage) -> None:
    with pytest.raises(ValueError):
        offline_storage.reference("a\0b")
    with pytest.raises(ValueError):
        offline_storage.reference("a").put_file("file\0name")


def test_invalid_utf8_is_refused_by_the_library(offline_storage: fbstorage.Storage) -> None:
    with pytest.raises(StorageError) as raised:
        offline_storage.reference_for_url("gs://test-bucket/\ud800")
    assert raised.value.code == StorageErrorCode.PATH_ERROR
    with pytest.raises(StorageError) as raised:
        offline_storage.use_emulator("host\udc80", 80)
    assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT
    with pytest.raises(StorageError) as raised:
        fbstorage.Storage("bucket\udc80")
    assert raised.value.code == StorageErrorCode.PATH_ERROR


# -- closing ---------------------------------------------------------------------------------
def test_everything_obtained_from_a_closed_storage_refuses_work(emulator) -> None:
    emulator.reset()
    storage = emulator.storage()
    ref = storage.reference("closed/x")
    task = ref.put_data(b"x")
    task.wait()
    storage.close()
    storage.close()  # idempotent
    assert storage.closed and repr(storage) == "<Storage gs://test-bucket (closed)>"
    assert str(ref) == "gs://test-bucket/closed/x" and ref.name == "x"  # plain values stay
    operations = [
        storage.reference,
        lambda: storage.reference_for_url("gs://test-bucket/x"),
        lambda: storage.use_emulator("127.0.0.1", 1),
        lambda: storage.set_auth_token("t"),
        lambda: storage.max_upload_retry_time,
        lambda: setattr(storage, "upload_chunk_size", SMALL_CHUNK),
        ref.get_metadata,
        ref.get_data,
        ref.delete,
        lambda: ref.child("y"),
        lambda: ref.parent,
        lambda: ref.put_data(b"x"),
        ref.list_all,
        task.pause,
        task.cancel,
        lambda: task.snapshot,
        task.wait,
        lambda: task.observe(TaskStatus.SUCCESS, lambda snapshot: None),
    ]
    for index, operation in enumerate(operations):
        with pytest.raises(StorageError) as raised:
            operation()
            pytest.fail(f"operation {index} did not raise")
        assert raised.value.code == StorageErrorCode.INVALID_ARGUMENT, index


def test_close_cancels_running_tasks_and_waits_for_their_callbacks(emulator) -> None:
    emulator.reset()
    slow_chunks(emulator, delay_ms=300)
    storage = emulator.storage()
    storage.upload_chunk_size = SMALL_CHUNK
    task = storage.reference("closing/big").put_data(payload(SMALL_CHUNK * 8))
    failures = EventRecorder()
    finished = threading.Event()

    def slow_failure_observer(snapshot: fbstorage.TaskSnapshot) -> None:
        threading.Event().wait(0.3)
        failures(snapshot)
        finished.set()

    task.observe(TaskStatus.FAILURE, slow_failure_observer)
    with storage:
        pass  # closes
    assert finished.is_set()  # close() returned after the callback
    assert failures.snapshots[0].error is not None
    assert failures.snapshots[0].error.code == StorageErrorCode.CANCELLED


def test_close_from_an_observer(emulator) -> None:
    emulator.reset()
    storage = emulator.storage()
    closed = threading.Event()

    def close_storage(snapshot: fbstorage.TaskSnapshot) -> None:
        storage.close()
        closed.set()

    task = storage.reference("closing/inside").put_data(b"x")
    task.observe(TaskStatus.SUCCESS, close_storage)
    assert closed.wait(30)
    assert storage.closed


def test_a_forked_child_dropping_a_storage_neither_frees_nor_hangs(emulator) -> None:
    import os

    storage = emulator.storage()
    storage.reference("fork/x").put_data(b"x").wait(30)
    child = os.fork()
    if child == 0:  # the child only drops its copy (freeing would wait for the parent's threads)
        del storage
        os._exit(0)
    assert os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]) == 0
    assert storage.reference("fork/x").get_data() == b"x"  # the parent's storage still works
    storage.close()


def test_storage_is_closed_when_collected(emulator) -> None:
    import gc
    import weakref

    storage = emulator.storage()
    collected = weakref.ref(storage)
    finalizer = storage._finalizer
    del storage
    gc.collect()
    assert collected() is None and not finalizer.alive
