"""The wheel: built from the source tree, installed in a fresh venv, used with no toolchain.

Run by `make test-wheel` (not by `make test-python`): building the wheel takes a while and
reaches PyPI once for setuptools (pip's isolated build).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
SWIFT_LIBRARY_HINTS = ("libswift", "/swift/")

CLIENT = textwrap.dedent(
    """
    import os, sys
    import fbstorage
    from fbstorage import _native

    location = _native.library_path()
    assert str(location).startswith(sys.prefix), location
    assert os.path.dirname(fbstorage.__file__) == str(location.parent)
    data = os.urandom(300 * 1024)
    with fbstorage.Storage("test-bucket") as storage:  # FIREBASE_STORAGE_EMULATOR_HOST
        storage.upload_chunk_size = 256 * 1024
        ref = storage.reference("wheel/check.bin")
        metadata = ref.put_data(data).wait()
        assert metadata.size == len(data), metadata
        assert ref.get_data() == data
    print("uploaded", len(data), "bytes with", location)
    """
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    output = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(output), str(PROJECT)],
        check=True, timeout=600,
    )
    (built,) = output.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with only the wheel installed; its python."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
         "--no-index", str(wheel)],
        check=True, timeout=300, env=environment,
    )
    return python


def site_packages(python: Path) -> Path:
    return Path(subprocess.check_output(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    ).strip())


def test_wheel_contents(wheel: Path) -> None:
    platform = sysconfig.get_platform().replace("-", "_")
    assert wheel.name == f"fbstorage-0.1.0-py3-none-{platform}.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = archive.read("fbstorage-0.1.0.dist-info/entry_points.txt").decode()
    for required in ("fbstorage/libfbstorage.so", "fbstorage/py.typed", "fbstorage/testing.py",
                     "fbstorage/emulator/__main__.py", "fbstorage/emulator/server.py"):
        assert required in names
    assert "[pytest11]" in entry_points and "fbstorage.testing = fbstorage.testing" in entry_points


def test_bundled_library_needs_no_swift_runtime(installed: Path) -> None:
    library = site_packages(installed) / "fbstorage" / "libfbstorage.so"
    linked = subprocess.run(["ldd", str(library)], capture_output=True, text=True, env={"PATH": os.defpath},
                            check=True).stdout
    assert "not found" not in linked
    assert not any(hint in linked for hint in SWIFT_LIBRARY_HINTS), linked
    search_path = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True).stdout
    assert "libswiftCore" not in search_path  # the toolchain's libraries are on no search path


def test_upload_from_the_installed_wheel(installed: Path, emulator, tmp_path: Path) -> None:
    emulator.reset()
    environment = {
        "PATH": os.defpath,
        "LD_LIBRARY_PATH": "",
        "FIREBASE_STORAGE_EMULATOR_HOST": f"{emulator.host}:{emulator.port}",
    }
    result = subprocess.run([str(installed), "-c", CLIENT], cwd=tmp_path, env=environment,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "uploaded 307200 bytes" in result.stdout


def test_installed_emulator_runs(installed: Path, tmp_path: Path) -> None:
    # The venv has no aiohttp (installed with --no-deps, offline): run the wheel's emulator
    # code with this interpreter's packages.
    environment = {**os.environ, "PYTHONPATH": str(site_packages(installed))}
    result = subprocess.run([sys.executable, "-m", "fbstorage.emulator", "--help"], cwd=tmp_path,
                            env=environment, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    origin = subprocess.check_output(
        [sys.executable, "-c", "import fbstorage.emulator as e; print(e.__file__)"],
        cwd=tmp_path, env=environment, text=True,
    )
    assert origin.startswith(str(site_packages(installed)))
