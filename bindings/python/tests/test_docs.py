"""The documentation's code blocks run, so they cannot drift from the code.

Every ```python block of README.md and docs/*.md runs in a fresh interpreter against a bundled
emulator, in a temporary working folder; a block that defines ``test_`` functions runs under
pytest with the ``fbstorage.testing`` plugin. The README's ```c block is compiled, linked and
run. The examples' default emulator address (127.0.0.1:9199) is replaced by the test
emulator's. Shell commands run as a reader runs them from the clone's root, in a folder that
mirrors it (every top-level entry linked). HTML comments before a block, invisible when the docs
are rendered, steer it:

- ``<!-- doc-test: setup CODE -->``: Python run first (placeholders a reader fills in, files the
  example reads);
- ``<!-- doc-test: continue -->``: the block goes on from the previous Python block of its file
  (same process, same names);
- ``<!-- doc-test: skip REASON -->``: not run (say why);
- ``<!-- doc-test: continue -->`` on a ```sh block after a ```c block: its commands build the C
  file (saved as ``app.c``) instead of the harness's own ``cc`` line, and must make ``./app``;
- ``<!-- doc-test: serves -->`` on a ```sh block: each line starts the emulator (port 9199 made
  0), which must print its READY line; it is then stopped.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest

from fbstorage.testing import EmulatorServer, run_emulator

REPO = Path(__file__).resolve().parents[3]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_BLOCK = re.compile(r"((?:^<!-- doc-test: .*? -->\n)*)^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_DIRECTIVE = re.compile(r"<!-- doc-test: (\w+) ?(.*?) -->")
_DEFAULT_ADDRESS = re.compile(r'"127\.0\.0\.1", 9199|127\.0\.0\.1:9199')


@dataclass
class Example:
    """One runnable unit: a block with its setup, and the blocks that continue it."""
    file: Path
    line: int
    language: str
    setup: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    build: list[str] = field(default_factory=list)  # shell commands that build a C example

    @property
    def id(self) -> str:
        return f"{self.file.relative_to(REPO)}:{self.line}"


def examples() -> Iterator[Example | tuple[str, str]]:
    """Each runnable example; skipped blocks as (id, reason)."""
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        previous: Example | None = None
        for match in _BLOCK.finditer(text):
            found = _DIRECTIVE.findall(match.group(1))
            directives = dict(found)
            setup = [argument for name, argument in found if name == "setup"]
            language, code = match.group(2), match.group(3)
            line = text.count("\n", 0, match.start(2)) + 1
            if language == "sh" and "serves" in directives:
                yield Example(doc, line, "serves", code=[code])
                continue
            if language == "sh" and "continue" in directives:
                assert previous is not None and previous.language == "c", f"{doc}:{line}: no C block to build"
                previous.build.append(code)
                continue
            if language not in ("python", "c"):
                continue
            if "skip" in directives:
                yield f"{doc.relative_to(REPO)}:{line}", directives["skip"]
                continue
            if "continue" in directives:
                assert previous is not None, f"{doc}:{line}: nothing to continue"
                previous.setup += setup
                previous.code.append(code)
                continue
            if previous is not None:
                yield previous
            previous = Example(doc, line, language, setup, [code])
        if previous is not None:
            yield previous


_ALL = list(examples())
RUNNABLE = [e for e in _ALL if isinstance(e, Example)]
SKIPPED = [e for e in _ALL if not isinstance(e, Example)]


@pytest.fixture(scope="module")
def emulator() -> Iterator[EmulatorServer]:
    with run_emulator("production") as server:
        yield server


def _environment(emulator: EmulatorServer) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "bindings" / "python"), env.get("PYTHONPATH")]))
    env.pop("FIREBASE_STORAGE_EMULATOR_HOST", None)
    return env


def _retarget(code: str, emulator: EmulatorServer) -> str:
    return _DEFAULT_ADDRESS.sub(
        lambda m: f'"{emulator.host}", {emulator.port}' if m.group(0).startswith('"') else f"{emulator.host}:{emulator.port}",
        code)


@pytest.mark.parametrize("example", RUNNABLE, ids=lambda e: e.id)
def test_doc_example_runs(example: Example, emulator: EmulatorServer, tmp_path: Path) -> None:
    emulator.reset()
    env = _environment(emulator)
    body = _retarget("\n".join(example.code), emulator)
    if example.language == "c":
        _run_c(example, body, env, tmp_path)
        return
    if example.language == "serves":
        _run_servers(example, env, tmp_path)
        return
    script = _retarget("\n".join([*example.setup, body]), emulator)
    if re.search(r"^def test_", script, re.MULTILINE):
        (tmp_path / "test_example.py").write_text(f"pytest_plugins = ['fbstorage.testing']\n{script}")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_example.py"]
    else:
        command = [sys.executable, "-c", script]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{example.id} failed:\n{done.stdout}\n{done.stderr}"


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


def _run_c(example: Example, body: str, env: dict[str, str], tmp_path: Path) -> None:
    library = Path(os.environ.get("FBSTORAGE_LIBRARY", REPO / "build" / "lib" / "libfbstorage.so"))
    compiler = shutil.which("cc")
    assert compiler, "no C compiler"
    if example.build:  # the doc's own build commands, from the clone's root
        _mirror_clone(tmp_path)
        (tmp_path / "app.c").write_text(body)
        for command in (command for block in example.build for command in _commands(block)):
            built = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
            assert built.returncode == 0, f"{example.id}: `{command}` failed:\n{built.stderr}"
        program = tmp_path / "app"
    else:
        program = tmp_path / "example"
        (tmp_path / "example.c").write_text(body)
        subprocess.run([compiler, "-std=c11", "-Wall", "-Werror", f"-I{REPO / 'include'}", "-o", str(program),
                        str(tmp_path / "example.c"), f"-L{library.parent}", f"-Wl,-rpath,{library.parent}",
                        "-lfbstorage"], check=True, capture_output=True, text=True)
    for setup in example.setup:
        subprocess.run([sys.executable, "-c", setup], cwd=tmp_path, env=env, check=True)
    done = subprocess.run([str(program)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, f"{example.id} failed:\n{done.stdout}\n{done.stderr}"


def test_docs_have_runnable_examples() -> None:
    # The harness found the blocks (a broken pattern would make every test above vanish), and
    # every block left out says why.
    assert len(RUNNABLE) >= 5, [e.id for e in RUNNABLE]
    assert any(e.language == "c" for e in RUNNABLE)
    assert all(reason.strip() for _, reason in SKIPPED), SKIPPED


def test_doc_file_references_exist() -> None:
    missing = []
    for doc in DOCS:
        for name in re.findall(r"`([\w./-]+\.md)`", doc.read_text(encoding="utf-8")):
            if not any((base / name).exists() for base in (REPO, doc.parent, REPO / "docs" / "reference")):
                missing.append(f"{doc.relative_to(REPO)}: {name}")
    assert missing == []


def _run_servers(example: Example, env: dict[str, str], tmp_path: Path) -> None:
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
