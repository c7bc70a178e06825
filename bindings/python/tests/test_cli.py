"""The fbstorage command, run as a subprocess against the emulator (both flavors)."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import pty
import re
import signal
import socket
import stat
import subprocess
import struct
import sys
import time
import termios
import urllib.parse
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import pytest

from conftest import SMALL_CHUNK, eventually, header, payload, upload_chunk_requests

if TYPE_CHECKING:
    from fbstorage.testing import EmulatorServer

BUCKET = "gs://test-bucket"
COMMAND_TIMEOUT = 120


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    """The command's environment: its own cache and config folders (no session of the person
    running the tests), no emulator, token or sign-in variables, and none that would make rich
    draw on a pipe."""
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    for name in ("FIREBASE_STORAGE_EMULATOR_HOST", "FBSTORAGE_TOKEN", "FORCE_COLOR",
                 "TTY_COMPATIBLE", "TTY_INTERACTIVE", "FIREBASE_AUTH_EMULATOR_HOST",
                 "FIREBASE_API_KEY", "FBSTORAGE_PASSWORD"):
        env.pop(name, None)
    return env


@pytest.fixture
def fbstorage_cli(emulator: EmulatorServer, cli_env: dict[str, str]):
    """Runs ``python -m fbstorage --emulator HOST:PORT ARGS…`` on the reset emulator."""
    emulator.reset()

    def run(*arguments: str, env: dict[str, str] | None = None,
            stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "fbstorage", "--emulator", f"{emulator.host}:{emulator.port}",
             *arguments],
            env=env or cli_env, capture_output=True, timeout=COMMAND_TIMEOUT, input=stdin)

    return run


def text(output: bytes) -> str:
    return output.decode()


def stored(emulator: EmulatorServer, name: str) -> bytes:
    escaped = urllib.parse.quote(name, safe="")
    with urllib.request.urlopen(f"{emulator.url}/_emulator/objects/test-bucket/{escaped}") as response:
        return bytes(response.read())


def faults(emulator: EmulatorServer) -> list[dict]:
    with urllib.request.urlopen(f"{emulator.url}/_emulator/faults") as response:
        return list(json.load(response)["faults"])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """photos/{a.txt, b.bin, sub/c.json}."""
    root = tmp_path / "photos"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("hello\n")
    (root / "b.bin").write_bytes(payload(3 * SMALL_CHUNK + 11))
    (root / "sub" / "c.json").write_text('{"k": 1}')
    return root


def test_copy_a_folder_up_list_it_and_inspect_an_object(fbstorage_cli, emulator, folder) -> None:
    copied = fbstorage_cli("cp", "-r", "-j", "2", "--metadata", "album=moon", str(folder),
                           f"{BUCKET}/backup/")
    assert copied.returncode == 0, copied.stderr
    assert copied.stdout == b"" and copied.stderr == b""  # quiet: not a terminal
    for name in ("a.txt", "b.bin", "sub/c.json"):
        assert stored(emulator, f"backup/photos/{name}") == (folder / name).read_bytes()

    listing = fbstorage_cli("ls", f"{BUCKET}/backup/photos")
    assert text(listing.stdout).splitlines() == [
        f"{BUCKET}/backup/photos/sub/", f"{BUCKET}/backup/photos/a.txt",
        f"{BUCKET}/backup/photos/b.bin"]
    recursive = fbstorage_cli("ls", "-r", f"{BUCKET}/backup")
    assert text(recursive.stdout).splitlines() == [
        f"{BUCKET}/backup/photos/a.txt", f"{BUCKET}/backup/photos/b.bin",
        f"{BUCKET}/backup/photos/sub/c.json"]

    long = text(fbstorage_cli("ls", "-l", f"{BUCKET}/backup/photos").stdout).splitlines()
    assert long[0].split() == [f"{BUCKET}/backup/photos/sub/"]
    size, time, content_type, name = long[1].split()
    assert (size, content_type, name) == ("6", "text/plain", f"{BUCKET}/backup/photos/a.txt")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", time)
    assert long[-1] == f"TOTAL: 2 objects, {6 + 3 * SMALL_CHUNK + 11} bytes"

    stat = text(fbstorage_cli("stat", f"{BUCKET}/backup/photos/sub/c.json").stdout)
    assert stat.splitlines()[0] == f"{BUCKET}/backup/photos/sub/c.json"
    assert re.search(r"^ +Size: +8$", stat, re.M)
    assert re.search(r"^ +Content-Type: +application/json$", stat, re.M)
    assert re.search(r"^ +album: moon$", stat, re.M)


def test_cat_and_url(fbstorage_cli, emulator, tmp_path) -> None:
    (tmp_path / "note.txt").write_text("note\n")
    assert fbstorage_cli("cp", str(tmp_path / "note.txt"), f"{BUCKET}/n.txt").returncode == 0
    assert fbstorage_cli("cat", f"{BUCKET}/n.txt", f"{BUCKET}/n.txt").stdout == b"note\nnote\n"
    url = text(fbstorage_cli("url", f"{BUCKET}/n.txt").stdout).strip()
    with urllib.request.urlopen(url) as response:
        assert response.read() == b"note\n"


def test_stdin_stdout_and_cat_ranges(fbstorage_cli, emulator) -> None:
    data = os.urandom(700_000)
    uploaded = fbstorage_cli("--chunk-size", "262144", "cp", "-", "gs://test-bucket/piped/in.bin", stdin=data)
    assert uploaded.returncode == 0, uploaded.stderr
    assert stored(emulator, "piped/in.bin") == data
    downloaded = fbstorage_cli("cp", "gs://test-bucket/piped/in.bin", "-")
    assert downloaded.returncode == 0 and downloaded.stdout == data
    for given, expected in (("0-9", data[:10]), ("699990-", data[699_990:]), ("-5", data[-5:]),
                            ("100-100", data[100:101])):
        ranged = fbstorage_cli("cat", "--range", given, "gs://test-bucket/piped/in.bin")
        assert ranged.returncode == 0 and ranged.stdout == expected, (given, ranged.stderr)
    # As gsutil's cat -r (the server answers the Range): a range running past the end gives the bytes
    # that exist, one starting past it fails.
    short = os.urandom(17)
    assert fbstorage_cli("cp", "-", "gs://test-bucket/short.bin", stdin=short).returncode == 0
    for given, expected in (("15-40", short[15:]), ("0-16", short), ("16-16", short[16:]), ("-40", short),
                            ("-17", short), ("3-", short[3:])):
        ranged = fbstorage_cli("cat", "--range", given, "gs://test-bucket/short.bin")
        assert ranged.returncode == 0 and ranged.stdout == expected, (given, ranged.stderr)
    for beyond in ("17-20", "40-50", "20-"):
        failed = fbstorage_cli("cat", "-r", beyond, "gs://test-bucket/short.bin")
        assert failed.returncode == 1 and failed.stdout == b"", beyond
        assert b"RANGE_NOT_SATISFIABLE" in failed.stderr and b"past the end" in failed.stderr, beyond
    past = fbstorage_cli("cat", "-r", "700000-700001", "gs://test-bucket/piped/in.bin")
    assert past.returncode == 1 and b"past the end" in past.stderr
    assert fbstorage_cli("cat", "-r", "9-3", "gs://test-bucket/piped/in.bin").returncode == 2
    assert fbstorage_cli("cp", "-", "local.bin", stdin=b"x").returncode == 2


def test_copy_down_and_between_objects(fbstorage_cli, emulator, folder, tmp_path) -> None:
    assert fbstorage_cli("cp", "-r", str(folder), f"{BUCKET}/p").returncode == 0
    # A remote folder down into a new local folder, and one object into an existing folder.
    down = tmp_path / "down"
    assert fbstorage_cli("cp", "-r", f"{BUCKET}/p", str(down)).returncode == 0
    assert sorted(str(p.relative_to(down)) for p in down.rglob("*") if p.is_file()) == [
        "a.txt", "b.bin", "sub/c.json"]
    assert (down / "b.bin").read_bytes() == (folder / "b.bin").read_bytes()
    assert fbstorage_cli("cp", f"{BUCKET}/p/a.txt", str(down / "sub")).returncode == 0
    assert (down / "sub" / "a.txt").read_text() == "hello\n"
    # Remote to remote keeps the metadata, with the flags over it.
    copied = fbstorage_cli("cp", "--content-type", "text/x-note", "--metadata", "k=v",
                           f"{BUCKET}/p/a.txt", f"{BUCKET}/copy/a.txt")
    assert copied.returncode == 0, copied.stderr
    assert stored(emulator, "copy/a.txt") == b"hello\n"
    stat = text(fbstorage_cli("stat", f"{BUCKET}/copy/a.txt").stdout)
    assert re.search(r"Content-Type: +text/x-note$", stat, re.M) and "k: v" in stat


def test_mv_and_rm(fbstorage_cli, emulator, folder) -> None:
    moved = fbstorage_cli("mv", str(folder / "a.txt"), f"{BUCKET}/m/a.txt")
    assert moved.returncode == 0 and not (folder / "a.txt").exists()
    assert fbstorage_cli("mv", f"{BUCKET}/m/a.txt", f"{BUCKET}/m/renamed.txt").returncode == 0
    assert text(fbstorage_cli("ls", f"{BUCKET}/m").stdout).split() == [f"{BUCKET}/m/renamed.txt"]
    assert fbstorage_cli("cp", "-r", str(folder), f"{BUCKET}/m/").returncode == 0
    assert fbstorage_cli("rm", f"{BUCKET}/m/renamed.txt").returncode == 0
    assert fbstorage_cli("rm", "-r", f"{BUCKET}/m").returncode == 0
    assert fbstorage_cli("ls", "-r", BUCKET).stdout == b""


def test_failures_name_the_object_and_the_code(fbstorage_cli, emulator, folder) -> None:
    missing = fbstorage_cli("cp", str(folder / "nope.txt"), str(folder / "a.txt"), f"{BUCKET}/x/")
    assert missing.returncode == 1
    errors = text(missing.stderr).splitlines()
    assert errors == [f"fbstorage: {folder / 'nope.txt'}: No such file or directory",
                      "fbstorage: cp: 1 failed, 1 succeeded"]
    assert stored(emulator, "x/a.txt") == b"hello\n"  # the other source was copied

    not_found = fbstorage_cli("stat", f"{BUCKET}/absent")
    assert not_found.returncode == 1 and not_found.stdout == b""
    first = text(not_found.stderr).splitlines()[0]
    assert first.startswith(f"fbstorage: {BUCKET}/absent: OBJECT_NOT_FOUND: ")
    for command in (["cat"], ["rm"], ["url"], ["ls", "-l"]):
        failed = fbstorage_cli(*command, f"{BUCKET}/absent")
        assert failed.returncode == 1 and "OBJECT_NOT_FOUND" in text(failed.stderr)
    directory = fbstorage_cli("cp", str(folder), f"{BUCKET}/y")
    assert directory.returncode == 1 and "use -r" in text(directory.stderr)


@pytest.mark.parametrize("arguments", [
    [], ["cp", "only-one"], ["ls", "/tmp"], ["cp", "a", "b"], ["--emulator", "nowhere", "ls", BUCKET],
    ["cp", "--metadata", "novalue", "a", BUCKET], ["rm", "-j", "0", f"{BUCKET}/a"], ["frobnicate"],
    ["--retry-time", "0", "ls", BUCKET], ["--chunk-size", "8X", "ls", BUCKET],
])
def test_usage_errors_exit_2(cli_env, arguments) -> None:
    result = subprocess.run([sys.executable, "-m", "fbstorage", *arguments], env=cli_env,
                            capture_output=True, timeout=COMMAND_TIMEOUT)
    assert result.returncode == 2, result.stderr
    assert b"usage: fbstorage" in result.stderr


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A loopback port where nothing listens (bound, so nobody else takes it meanwhile)."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield bound.getsockname()[1]


def test_emulator_down(cli_env, refusing_port, tmp_path) -> None:
    (tmp_path / "f.txt").write_text("x")
    # Nothing listening on a loopback address fails within seconds, whatever the retry time.
    for arguments in (["ls", BUCKET], ["cp", str(tmp_path / "f.txt"), f"{BUCKET}/f.txt"]):
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "fbstorage", *arguments],
            env=dict(cli_env, FIREBASE_STORAGE_EMULATOR_HOST=f"127.0.0.1:{refusing_port}"),
            capture_output=True, timeout=COMMAND_TIMEOUT)
        assert result.returncode == 1 and time.monotonic() - started < 10
        error = text(result.stderr).splitlines()[0]
        assert re.match(rf"fbstorage: (.* -> )?{BUCKET}/(f\.txt)?: RETRY_LIMIT_EXCEEDED: .*"
                        rf"Nothing is listening on 127\.0\.0\.1:{refusing_port} \(the address comes from "
                        r"FIREBASE_STORAGE_EMULATOR_HOST\)", error), error


def test_the_token_is_sent_and_never_shown(fbstorage_cli, emulator, cli_env, tmp_path) -> None:
    (tmp_path / "f.txt").write_text("x")
    secret = "secret-id-token"
    assert fbstorage_cli("--token", secret, "cp", str(tmp_path / "f.txt"), f"{BUCKET}/f").returncode == 0
    failed = fbstorage_cli("stat", f"{BUCKET}/absent", env=dict(cli_env, FBSTORAGE_TOKEN=secret))
    assert failed.returncode == 1
    assert secret.encode() not in failed.stdout + failed.stderr
    tokens = {header(entry, "Authorization") for entry in emulator.requests()}
    assert tokens == {f"Firebase {secret}"}


def first_chunk_size(emulator: EmulatorServer) -> int:
    """The bytes of a 256K-chunk upload's first chunk: 256 KiB rounded down to the flavor's
    granularity."""
    with emulator.storage() as storage:
        storage.upload_chunk_size = SMALL_CHUNK
        storage.reference("probe").put_data(payload(2 * SMALL_CHUNK)).wait()
    size = int(upload_chunk_requests(emulator)[0]["body_size"])
    emulator.reset()
    return size


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("stop", "status", "said"), [
    (signal.SIGINT, 130, b"interrupted"),  # Ctrl-C
    (signal.SIGTERM, 143, b"terminated by SIGTERM"),  # kill, a service manager
    (signal.SIGHUP, 129, b"terminated by SIGHUP"),  # the terminal closed
])
def test_interrupted_upload_continues_where_it_stopped(
        fbstorage_cli, emulator, cli_env, tmp_path, stop, status, said) -> None:
    data = payload(16 * SMALL_CHUNK)
    source = tmp_path / "large.bin"
    source.write_bytes(data)
    # The second chunk stalls on the server for a second: the upload is interrupted while
    # the server holds the first chunk and the second is on its way.
    chunk = first_chunk_size(emulator)
    second_chunk = {"header": {"X-Goog-Upload-Offset": str(chunk)}}
    emulator.add_fault({"match": second_chunk, "action": {"delay_ms": 1000}})
    arguments = [sys.executable, "-m", "fbstorage", "--emulator", f"{emulator.host}:{emulator.port}",
                 "--chunk-size", "256K", "cp", str(source), f"{BUCKET}/large.bin"]
    sessions = Path(cli_env["XDG_CACHE_HOME"]) / "fbstorage" / "uploads"
    first = subprocess.Popen(arguments, env=cli_env, stderr=subprocess.PIPE)
    try:
        # The fault is used up once the second chunk arrived; the session is saved by then.
        assert eventually(lambda: not faults(emulator) and any(sessions.glob("*.json")),
                          timeout=60)
        first.send_signal(stop)
        _, error = first.communicate(timeout=COMMAND_TIMEOUT)
    finally:
        first.kill()
    assert first.returncode == status
    assert error == b"fbstorage: " + said + b"; 1 upload session kept: run the same command again to resume\n"
    assert len(list(sessions.glob("*.json"))) == 1

    # The server is done with the interrupted request once it is logged.
    assert eventually(lambda: any(header(entry, "X-Goog-Upload-Offset") == str(chunk)
                                  for entry in emulator.requests()), timeout=60)
    emulator.clear_requests()
    rerun = subprocess.run(arguments, env=cli_env, capture_output=True, timeout=COMMAND_TIMEOUT)
    assert rerun.returncode == 0, rerun.stderr
    assert stored(emulator, "large.bin") == data
    commands = [header(entry, "X-Goog-Upload-Command") for entry in emulator.requests()]
    assert commands[0] == "query" and "start" not in commands
    offsets = [int(header(entry, "X-Goog-Upload-Offset") or -1)
               for entry in upload_chunk_requests(emulator)]
    # Continued from what the server holds (the first chunk at least), not started over.
    assert chunk <= offsets[0] < len(data)
    assert not any(sessions.glob("*.json"))  # forgotten once done


@pytest.mark.timeout(300)  # the reading loop ends only when the command does
def read_until_closed(terminal: int, until: bytes | None = None) -> bytes:
    """What the child writes on its pseudo-terminal: until it closes it (then closed here
    too), or until ``until`` appears."""
    output = b""
    while until is None or until not in output:
        try:
            chunk = os.read(terminal, 65536)
        except OSError:  # EIO: the child closed the terminal
            chunk = b""
        if not chunk:
            os.close(terminal)
            break
        output += chunk
    return output


def test_progress_bar_on_a_terminal(emulator, cli_env, tmp_path) -> None:
    emulator.reset()
    source = tmp_path / "shown.bin"
    source.write_bytes(payload(6 * SMALL_CHUNK))
    pid, terminal = pty.fork()
    if pid == 0:  # the child: the command on a 120-column pseudo-terminal (fds 0, 1, 2)
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
            os.execve(sys.executable, [sys.executable, "-m", "fbstorage", "--emulator",
                                       f"{emulator.host}:{emulator.port}", "--chunk-size", "256K",
                                       "cp", str(source), f"{BUCKET}/shown.bin"],
                      dict(cli_env, TERM="xterm"))
        finally:
            os._exit(127)  # never back into pytest
    output = read_until_closed(terminal)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, output
    screen = re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]", b"", output).decode()
    frames = [frame for frame in re.split(r"[\r\n]+", screen) if "shown.bin" in frame]
    assert len(frames) > 1 and all(re.search(r" \d+%", frame) for frame in frames)  # redrawn
    assert re.search(r"shown\.bin .* 100% 1\.6/1\.6 MB", frames[-1]), frames[-1]
    assert stored(emulator, "shown.bin") == source.read_bytes()


# -- login, whoami, logout -------------------------------------------------------------------
OWNER_ONLY_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /users/{uid}/{file=**} {
      allow read, write: if request.auth.uid == uid;
    }
  }
}
"""
SIGN_IN_APP = ("--api-key", "test-api-key", "--project", "demo-project")


def whoami_fields(output: bytes) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in text(output).splitlines())


def session_secrets(config: Path, uid: str) -> list[str]:
    """The long strings of the saved session but the uid (the refresh token among them)."""
    saved = json.loads((config / "session.json").read_text())

    def strings(value: object) -> list[str]:
        if isinstance(value, dict):
            return [s for item in value.values() for s in strings(item)]
        if isinstance(value, list):
            return [s for item in value for s in strings(item)]
        return [value] if isinstance(value, str) and len(value) >= 20 and value != uid else []

    return strings(saved)


def test_login_whoami_logout_and_commands_run_as_the_user(
        fbstorage_cli, emulator, cli_env, tmp_path) -> None:
    emulator.set_rules(OWNER_ONLY_RULES)
    config = Path(cli_env["XDG_CONFIG_HOME"]) / "fbstorage"
    (tmp_path / "f.txt").write_text("mine")
    assert fbstorage_cli("whoami").returncode == 1

    login = fbstorage_cli("login", "--anonymous", *SIGN_IN_APP)
    assert login.returncode == 0, login.stderr
    uid = re.fullmatch(r"Signed in as (\S+) \(anonymous\)\n", text(login.stdout)).group(1)
    assert stat.S_IMODE(config.stat().st_mode) == 0o700
    for name in ("session.json", "app.json"):
        assert stat.S_IMODE((config / name).stat().st_mode) == 0o600
    assert sorted(path.name for path in config.iterdir()) == ["app.json", "session.json"]

    whoami = fbstorage_cli("whoami")
    assert whoami.returncode == 0, whoami.stderr
    assert whoami_fields(whoami.stdout) == {"uid": uid, "email": "-", "provider": "anonymous",
                                            "anonymous": "yes"}
    own = fbstorage_cli("cp", str(tmp_path / "f.txt"), f"{BUCKET}/users/{uid}/f.txt")
    assert own.returncode == 0, own.stderr
    assert stored(emulator, f"users/{uid}/f.txt") == b"mine"
    assert text(fbstorage_cli("cat", f"{BUCKET}/users/{uid}/f.txt").stdout) == "mine"
    other = fbstorage_cli("cp", str(tmp_path / "f.txt"), f"{BUCKET}/users/someone-else/f.txt")
    assert other.returncode == 1 and "UNAUTHORIZED" in text(other.stderr)
    secrets = session_secrets(config, uid)
    assert secrets
    for result in (login, whoami, own, other):
        for secret in secrets:
            assert secret.encode() not in result.stdout + result.stderr
    tokens = {header(entry, "Authorization") for entry in emulator.requests()
              if entry["path"].startswith("/v0/")}
    assert tokens and all((token or "").startswith("Firebase ey") for token in tokens), tokens

    logout = fbstorage_cli("logout")
    assert (logout.returncode, text(logout.stdout)) == (0, "Signed out\n")
    assert list(config.iterdir()) == []
    assert fbstorage_cli("whoami").returncode == 1
    signed_out = fbstorage_cli("cat", f"{BUCKET}/users/{uid}/f.txt")
    assert signed_out.returncode == 1 and "UNAUTHORIZED" in text(signed_out.stderr)

    (config / "app.json").write_text("[]")  # not what login writes: said, no traceback
    (config / "session.json").write_text("{}")
    broken = fbstorage_cli("whoami")
    assert broken.returncode == 2 and b"run it again" in broken.stderr and b"Traceback" not in broken.stderr
    (config / "app.json").write_text('{"api_key": "test-api-key"}')
    (config / "session.json").write_text("{not json")
    unreadable = fbstorage_cli("whoami")
    assert unreadable.returncode == 1 and b"Traceback" not in unreadable.stderr
    assert str(config / "session.json") in text(unreadable.stderr)


def test_login_with_email_and_password_from_the_environment(fbstorage_cli, cli_env) -> None:
    env = dict(cli_env, FBSTORAGE_PASSWORD="a long password", FIREBASE_API_KEY="test-api-key")
    created = fbstorage_cli("login", "--email", "cli@example.com", "--create", env=env)
    assert created.returncode == 0, created.stderr
    uid = re.fullmatch(r"Signed in as (\S+) \(cli@example\.com\)\n", text(created.stdout)).group(1)
    wrong = fbstorage_cli("login", "--email", "cli@example.com",
                          env=dict(env, FBSTORAGE_PASSWORD="wrong password"))
    assert wrong.returncode == 1 and "AUTH_WRONG_PASSWORD" in text(wrong.stderr)
    assert b"wrong password" not in wrong.stdout + wrong.stderr
    whoami = fbstorage_cli("whoami")  # the failed login kept the session
    assert whoami_fields(whoami.stdout) == {"uid": uid, "email": "cli@example.com",
                                            "provider": "password", "anonymous": "no"}
    taken = fbstorage_cli("login", "--email", "cli@example.com", "--create", env=env)
    assert taken.returncode == 1 and "AUTH_EMAIL_ALREADY_IN_USE" in text(taken.stderr)


def test_login_with_a_custom_token(fbstorage_cli) -> None:
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    now = int(time.time())
    token = ".".join([part({"alg": "none", "typ": "JWT"}), part({
        "aud": "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit",
        "iat": now, "exp": now + 3600, "uid": "custom-user", "claims": {"role": "editor"}}), ""])
    login = fbstorage_cli("login", "--custom-token", token, *SIGN_IN_APP)
    assert login.returncode == 0, login.stderr
    assert whoami_fields(fbstorage_cli("whoami").stdout)["provider"] == "custom"
    bad = fbstorage_cli("login", "--custom-token", "garbage", *SIGN_IN_APP)
    assert bad.returncode == 1 and "AUTH_INVALID_CUSTOM_TOKEN" in text(bad.stderr)


@pytest.mark.parametrize("arguments", [
    ["login", *SIGN_IN_APP],  # no way of signing in
    ["login", "--anonymous", "--email", "a@example.com", *SIGN_IN_APP],
    ["login", "--anonymous"],  # no API key
    ["login", "--anonymous", "--create", *SIGN_IN_APP],  # --create is for --email
])
def test_login_usage_errors_exit_2(cli_env, arguments) -> None:
    result = subprocess.run([sys.executable, "-m", "fbstorage", *arguments], env=cli_env,
                            capture_output=True, timeout=COMMAND_TIMEOUT)
    assert result.returncode == 2 and b"usage:" in result.stderr


def test_login_asks_for_the_password_on_the_terminal(fbstorage_cli, emulator, cli_env) -> None:
    # The Auth emulator's address comes from FIREBASE_STORAGE_EMULATOR_HOST alone here.
    pid, terminal = pty.fork()
    if pid == 0:
        try:
            os.execve(sys.executable, [sys.executable, "-m", "fbstorage", "login", "--email",
                                       "typed@example.com", "--create", *SIGN_IN_APP],
                      dict(cli_env, FIREBASE_STORAGE_EMULATOR_HOST=f"{emulator.host}:{emulator.port}"))
        finally:
            os._exit(127)
    prompt = read_until_closed(terminal, until=b"Password for typed@example.com: ")
    assert prompt.endswith(b"Password for typed@example.com: "), prompt
    os.write(terminal, b"typed password\n")
    output = read_until_closed(terminal)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, output
    assert b"Signed in as" in output and b"typed password" not in output  # not echoed
    whoami = fbstorage_cli("whoami")
    assert whoami_fields(whoami.stdout)["email"] == "typed@example.com"
