"""The documentation's code blocks run as written, so they cannot drift from the code.

Every fenced block of README.md, docs/*.md and bindings/*/README.md (doc_blocks.py) is checked by
its language, against a bundled emulator, in a temporary working folder, with
FIREBASE_STORAGE_EMULATOR_HOST and FIREBASE_AUTH_EMULATOR_HOST naming it; the examples' default
address (127.0.0.1:9199) is replaced by the test emulator's. A block of no known language and
without a directive fails the test.

- ``python``: runs in a fresh interpreter; a block that defines ``test_`` functions runs under
  pytest with the ``fbstorage.testing`` plugin.
- ``c``: compiled (``-std=c11 -Wall -Werror``), linked against the library and run.
- ``cpp``: compiled (``-std=c++17 -Wall -Werror``), linked against libfbstorage-cpp.a and the
  library, and run. ``go``: a module of its own using bindings/go/fbstorage, vetted and run.
  ``rust``: a crate of its own using bindings/rust, run with cargo (offline). A C++, Go or Rust
  block without its own ``main`` is a fragment: it becomes main's body (Go: with ``ctx`` and a
  ``check(err)`` that panics).
- ``swift``: type-checked against the FirebaseCore, FirebaseStorage and FirebaseAuth modules
  (a block without imports gets them); a ``Package.swift`` block is resolved by SwiftPM beside a
  link to this checkout, which checks the products it names.
- ``sh``: the block runs as one bash script (errexit) from the clone's root, in a folder that
  mirrors it (every top-level entry linked), with ``fbstorage`` the CLI and the test's venv first
  on PATH; ``make TARGET`` is dry-run (``make -n``): the target exists and its recipe expands.
- ``json``: parses. ``rules``: compiles with the emulator's rules compiler, without warnings.

HTML comments before a block, invisible when the docs are rendered, steer it:

- ``<!-- doc-test: setup CODE -->``: run first: Python in the working folder (placeholders a reader
  fills in, files the example reads), or shell lines before an ``sh`` block;
- ``<!-- doc-test: continue -->``: the block goes on from the previous Python block of its file
  (same process, same names);
- ``<!-- doc-test: skip REASON -->``: not run (say why: output, an outline, checked elsewhere);
- ``<!-- doc-test: continue -->`` on a ```sh block after a ```c block: its commands build the C
  file (saved as ``app.c``) instead of the harness's own ``cc`` line, and must make ``./app``;
- ``<!-- doc-test: serves -->`` on a ```sh block: each line starts the emulator (port 9199 made
  0), which must print its READY line; it is then stopped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from doc_blocks import DOCS, EXAMPLES, REPO, SKIPPED, UNCHECKED, Example
from fbstorage.emulator.rules import Ruleset
from fbstorage.testing import EmulatorServer, run_emulator

_DEFAULT_ADDRESS = re.compile(r'"127\.0\.0\.1", 9199|127\.0\.0\.1:9199')
LIBRARY = Path(os.environ.get("FBSTORAGE_LIBRARY", REPO / "build" / "lib" / "libfbstorage.so"))
#: The debug build of the Swift package (`swift build`), whose modules Swift blocks are checked against.
SWIFT_BUILD = Path(os.environ.get("FBS_SWIFT_BUILD", REPO / ".build" / "debug"))
#: Cargo's build folder for Rust blocks, kept between runs (the crate is compiled once).
CARGO_TARGET = REPO / "build" / "doc-examples" / "cargo"
TIMEOUT = 300


@pytest.fixture(scope="module")
def emulator() -> Iterator[EmulatorServer]:
    with run_emulator("production") as server:
        yield server


def _environment(emulator: EmulatorServer) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "bindings" / "python"), env.get("PYTHONPATH")]))
    env["FIREBASE_STORAGE_EMULATOR_HOST"] = env["FIREBASE_AUTH_EMULATOR_HOST"] = f"{emulator.host}:{emulator.port}"
    env["LD_LIBRARY_PATH"] = str(LIBRARY.parent)
    return env


def _retarget(code: str, emulator: EmulatorServer) -> str:
    return _DEFAULT_ADDRESS.sub(
        lambda m: f'"{emulator.host}", {emulator.port}' if m.group(0).startswith('"') else f"{emulator.host}:{emulator.port}",
        code)


def _run(command: list[str], example: Example, cwd: Path, env: dict[str, str], what: str = "") -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, f"{example.id}: {what or command[0]} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _python_setup(example: Example, cwd: Path, env: dict[str, str], emulator: EmulatorServer) -> None:
    for setup in example.setup:
        _run([sys.executable, "-c", _retarget(setup, emulator)], example, cwd, env, "setup")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.id)
def test_doc_example_runs(example: Example, emulator: EmulatorServer, tmp_path: Path) -> None:
    emulator.reset()
    env = _environment(emulator)
    body = _retarget("\n".join(example.code), emulator)
    CHECKS[example.checker](example, body, env, tmp_path, emulator)


def _check_python(example: Example, body: str, env: dict[str, str], tmp_path: Path, emulator: EmulatorServer) -> None:
    script = _retarget("\n".join([*example.setup, body]), emulator)
    if re.search(r"^def test_", script, re.MULTILINE):
        (tmp_path / "test_example.py").write_text(f"pytest_plugins = ['fbstorage.testing']\n{script}")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_example.py"]
    else:
        command = [sys.executable, "-c", script]
    _run(command, example, tmp_path, env)


def _mirror_clone(folder: Path) -> None:
    """Links every top-level entry of the repository into folder: commands run there as from the
    clone's root, and what they write stays there."""
    for entry in REPO.iterdir():
        if not (folder / entry.name).exists():
            (folder / entry.name).symlink_to(entry)


def _commands(block: str) -> list[str]:
    """A shell block's commands: continued lines joined, comments and blank lines left out."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line for line in (raw.split(" #")[0].strip() for raw in joined.splitlines())
            if line and not line.startswith("#")]


def _check_c(example: Example, body: str, env: dict[str, str], tmp_path: Path, emulator: EmulatorServer) -> None:
    if example.build:  # the doc's own build commands, from the clone's root
        _mirror_clone(tmp_path)
        (tmp_path / "app.c").write_text(body)
        for command in (command for block in example.build for command in _commands(block)):
            _run(["bash", "-c", command], example, tmp_path, env, f"`{command}`")
        program = tmp_path / "app"
    else:
        program = tmp_path / "example"
        (tmp_path / "example.c").write_text(body)
        _run(["cc", "-std=c11", "-Wall", "-Werror", f"-I{REPO / 'include'}", "-o", str(program),
              str(tmp_path / "example.c"), f"-L{LIBRARY.parent}", f"-Wl,-rpath,{LIBRARY.parent}", "-lfbstorage"],
             example, tmp_path, env)
    _python_setup(example, tmp_path, env, emulator)
    _run([str(program)], example, tmp_path, env)


def _check_cpp(example: Example, body: str, env: dict[str, str], tmp_path: Path, emulator: EmulatorServer) -> None:
    if not re.search(r"^int main\(", body, re.MULTILINE):
        body = f"#include <fbstorage.hpp>\n#include <cstdio>\n\nint main() {{\n{body}\nreturn 0;\n}}\n"
    (tmp_path / "example.cc").write_text(body)
    program = tmp_path / "example"
    _run(["c++", "-std=c++17", "-Wall", "-Werror", f"-I{REPO / 'include'}", "-o", str(program),
          str(tmp_path / "example.cc"), str(LIBRARY.parent / "libfbstorage-cpp.a"), f"-L{LIBRARY.parent}",
          f"-Wl,-rpath,{LIBRARY.parent}", "-lfbstorage", "-lpthread"], example, tmp_path, env)
    _python_setup(example, tmp_path, env, emulator)
    _run([str(program)], example, tmp_path, env)


def _check_go(example: Example, body: str, env: dict[str, str], tmp_path: Path, emulator: EmulatorServer) -> None:
    if not re.search(r"^func main\(", body, re.MULTILINE):
        imports = ["context", *(name for name in ("errors", "fmt", "io", "os") if re.search(rf"\b{name}\.", body)),
                   "fbstorage"]
        body = ("package main\n\nimport (\n" + "".join(f'\t"{name}"\n' for name in imports) + ")\n\n"
                "func check(err error) {\n\tif err != nil {\n\t\tpanic(err)\n\t}\n}\n\n"
                "func main() {\n\tctx := context.Background()\n\t_ = ctx\n" + body + "}\n")
    (tmp_path / "main.go").write_text(body)
    (tmp_path / "go.mod").write_text(f"module example\n\ngo 1.19\n\nrequire fbstorage v0.0.0\n\n"
                                     f"replace fbstorage => {REPO / 'bindings' / 'go' / 'fbstorage'}\n")
    env = {**env, "PKG_CONFIG_PATH": str(LIBRARY.parent / "pkgconfig"), "GOPROXY": "off",
           "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}
    _run(["go", "vet", "."], example, tmp_path, env)
    _python_setup(example, tmp_path, env, emulator)
    _run(["go", "run", "."], example, tmp_path, env)


def _check_rust(example: Example, body: str, env: dict[str, str], tmp_path: Path, emulator: EmulatorServer) -> None:
    if not re.search(r"^fn main\(", body, re.MULTILINE):
        body = f"fn main() -> Result<(), Box<dyn std::error::Error>> {{\n{body}\nOk(())\n}}\n"
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text(body)
    (tmp_path / "Cargo.toml").write_text(
        f'[package]\nname = "example"\nversion = "0.0.0"\nedition = "2024"\n\n[dependencies]\n'
        f'fbstorage = {{ path = "{REPO / "bindings" / "rust"}" }}\n')
    _python_setup(example, tmp_path, env, emulator)
    env = {**env, "FBS_LIBDIR": str(LIBRARY.parent), "CARGO_TARGET_DIR": str(CARGO_TARGET)}
    _run(["cargo", "run", "--offline", "-q"], example, tmp_path, env)


def _check_swift(example: Example, body: str, env: dict[str, str], tmp_path: Path, emulator: EmulatorServer) -> None:
    if body.startswith("// swift-tools-version"):
        _check_swift_manifest(example, body, env, tmp_path)
        return
    if not re.search(r"^import ", body, re.MULTILINE):
        body = "".join(f"import {module}\n" for module in ("FirebaseAuth", "FirebaseCore", "FirebaseStorage", "Foundation")) + body
    (tmp_path / "main.swift").write_text(body)
    module_maps = [*REPO.glob("Sources/*/module.modulemap"), *SWIFT_BUILD.glob("*.build/module.modulemap")]
    assert (SWIFT_BUILD / "Modules" / "FirebaseStorage.swiftmodule").exists(), f"no Swift modules in {SWIFT_BUILD}"
    _run(["swiftc", "-typecheck", "-I", str(SWIFT_BUILD / "Modules"),
          *(arg for path in module_maps for arg in ("-Xcc", f"-fmodule-map-file={path}")),
          "main.swift"], example, tmp_path, env)


def _check_swift_manifest(example: Example, body: str, env: dict[str, str], tmp_path: Path) -> None:
    """The manifest of an app beside a checkout named fbstorage: SwiftPM loads both packages and
    every product the app names must exist."""
    (tmp_path / "fbstorage").symlink_to(REPO)
    app = tmp_path / "App"
    (app / "Sources" / "App").mkdir(parents=True)
    (app / "Sources" / "App" / "main.swift").write_text("")
    (app / "Package.swift").write_text(body)
    _run(["swift", "package", "show-dependencies"], example, app, env)  # loads the package graph


def _check_sh(example: Example, body: str, env: dict[str, str], tmp_path: Path, emulator: EmulatorServer) -> None:
    _mirror_clone(tmp_path)
    tools = tmp_path / ".doc-test-bin"
    tools.mkdir()
    (tools / "fbstorage").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m fbstorage "$@"\n')
    (tools / "fbstorage").chmod(0o755)
    env = {**env, "PATH": f"{tools}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
           "XDG_CONFIG_HOME": str(tmp_path / ".config"), "XDG_CACHE_HOME": str(tmp_path / ".cache")}
    setup = "\n".join(_retarget(line, emulator) for line in example.setup)
    script = f"set -e\nmake() {{ command make -n \"$@\" > /dev/null; }}\n{setup}\n{body}"
    _run(["bash", "-c", script], example, tmp_path, env, "the shell block")


def _check_json(example: Example, body: str, env: dict[str, str], tmp_path: Path, emulator: EmulatorServer) -> None:
    json.loads(body)


def _check_rules(example: Example, body: str, env: dict[str, str], tmp_path: Path, emulator: EmulatorServer) -> None:
    assert Ruleset(body).warnings == [], example.id


def _check_servers(example: Example, body: str, env: dict[str, str], tmp_path: Path, emulator: EmulatorServer) -> None:
    """Each command starts the emulator, on free ports; it must say READY, then it is stopped."""
    _mirror_clone(tmp_path)
    for command in _commands(example.code[0]):
        command = command.replace("--port 9199", "--port 0")
        # `make emulator` passes EMULATOR_ARGS last: a port given there wins.
        server = subprocess.Popen(["bash", "-c", f"exec timeout 60 env {command}"], cwd=tmp_path, text=True,
                                  env={**env, "EMULATOR_ARGS": "--port 0"}, start_new_session=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            lines = []
            for line in server.stdout:  # make echoes its recipe first; `timeout` ends a silent one
                lines.append(line)
                if line.startswith("READY "):
                    break
            assert lines and lines[-1].startswith("READY "), f"{example.id}: `{command}`: {lines}"
        finally:
            os.killpg(server.pid, 15)
            server.communicate(timeout=30)


CHECKS = {"python": _check_python, "c": _check_c, "cpp": _check_cpp, "go": _check_go, "rust": _check_rust,
          "swift": _check_swift, "sh": _check_sh, "json": _check_json, "rules": _check_rules,
          "serves": _check_servers}


def test_every_block_is_checked() -> None:
    # A block of no known language and without a directive is a failure, not a silent pass; the
    # harness found the blocks (a broken pattern would make every test above vanish); every block
    # left out says why.
    assert UNCHECKED == [], "give each a language test_docs.py checks, or a <!-- doc-test: skip REASON -->"
    assert {e.checker for e in EXAMPLES} >= {"python", "c", "cpp", "go", "rust", "swift", "sh", "json"}
    assert all(skipped.reason.strip() for skipped in SKIPPED), SKIPPED


def test_doc_file_references_exist() -> None:
    missing = []
    for doc in DOCS:
        for name in re.findall(r"`([\w./-]+\.md)`", doc.read_text(encoding="utf-8")):
            if not any((base / name).exists() for base in (REPO, doc.parent, REPO / "docs" / "reference")):
                missing.append(f"{doc.relative_to(REPO)}: {name}")
    assert missing == []


def test_readme_error_table_is_the_header() -> None:
    # Every code of include/fbstorage/common.h is in README's table, with its value, and nothing else.
    header = (REPO / "include" / "fbstorage" / "common.h").read_text(encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    declared = dict(re.findall(r"^\s+(FBS_ERR_\w+)\s*=\s*(-\d+)", header, re.MULTILINE))
    documented = dict(re.findall(r"^\| `(FBS_ERR_\w+)` \| (-\d+) \|", readme, re.MULTILINE))
    assert len(declared) > 30
    assert documented == declared
