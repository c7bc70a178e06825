"""The ctypes layer: one signature per header function, finding and loading the library."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import fbstorage
from fbstorage import _native

REPOSITORY = Path(__file__).resolve().parents[3]
HEADERS = [REPOSITORY / "include" / "fbstorage.h", *sorted((REPOSITORY / "include" / "fbstorage").glob("*.h"))]
COMMON_HEADER = REPOSITORY / "include" / "fbstorage" / "common.h"
PACKAGE_PARENT = Path(fbstorage.__file__).resolve().parents[1]


def header_functions() -> dict[str, int]:
    """Every function the header declares, with its number of parameters."""
    text = re.sub(r"/\*.*?\*/", "", "\n".join(header.read_text() for header in HEADERS), flags=re.S)
    declarations = re.findall(r"^[A-Za-z_][\w \*]*?\b(fbs_\w+)\s*\(([^)]*)\)\s*;", text, flags=re.M)
    functions = {}
    for name, parameters in declarations:
        parameters = parameters.strip()
        functions[name] = 0 if parameters in ("", "void") else parameters.count(",") + 1
    return functions


def test_header_parsing_finds_the_whole_api() -> None:
    functions = header_functions()
    assert len(functions) > 100
    assert functions["fbs_reference_put_data"] == 5
    assert functions["fbs_version"] == 0
    assert "fbs_token_provider" not in functions  # a callback type, not a function


def test_every_header_function_has_a_signature_with_its_arity() -> None:
    declared = header_functions()
    assert set(_native.SIGNATURES) == set(declared)
    for name, arity in declared.items():
        assert len(_native.SIGNATURES[name][1]) == arity, name


def test_every_signature_is_bound_on_the_loaded_library() -> None:
    lib = _native.library()
    for name, (restype, argtypes) in _native.SIGNATURES.items():
        function = getattr(lib, name)
        assert function.argtypes == argtypes, name
        if restype is _native.STATUS:
            assert function.errcheck is not None, name


def test_versions_match_the_header() -> None:
    header = COMMON_HEADER.read_text()
    version = re.search(r'#define FBS_VERSION_STRING "(.*)"', header).group(1)
    abi = int(re.search(r"#define FBS_ABI_VERSION (\d+)", header).group(1))
    assert fbstorage.version() == version
    assert fbstorage.__version__ == version
    assert _native.ABI_VERSION == abi == _native.library().fbs_abi_version()


def test_library_search_order(monkeypatch) -> None:
    monkeypatch.delenv(_native.LIBRARY_ENV_VAR, raising=False)
    package_dir = Path(_native.__file__).resolve().parent
    assert _native.candidate_paths() == [
        package_dir / "libfbstorage.so",
        REPOSITORY / "build" / "lib" / "libfbstorage.so",
    ]
    monkeypatch.setenv(_native.LIBRARY_ENV_VAR, "/somewhere/libfbstorage.so")
    assert _native.candidate_paths() == [Path("/somewhere/libfbstorage.so")]


def run_python(code: str, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_PARENT), **environment}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )


def test_import_works_without_the_library_and_use_names_the_places_tried() -> None:
    missing = "/nonexistent/libfbstorage.so"
    result = run_python(
        "import fbstorage\n"
        "try:\n    fbstorage.Storage('b')\n"
        "except OSError as error:\n    print('OSError:', error)\n",
        FBSTORAGE_LIBRARY=missing,
    )
    assert result.returncode == 0, result.stderr
    assert "OSError: libfbstorage.so could not be loaded" in result.stdout
    assert missing in result.stdout and "make lib" in result.stdout


def test_emulator_runs_without_the_library() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fbstorage.emulator", "--help"],
        env={**os.environ, "PYTHONPATH": str(PACKAGE_PARENT), "FBSTORAGE_LIBRARY": "/nonexistent"},
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "--flavor" in result.stdout


def test_library_is_loaded_from_the_chosen_place() -> None:
    expected = os.environ.get(_native.LIBRARY_ENV_VAR)
    if expected:
        assert _native.library_path() == Path(expected)
    else:
        assert _native.library_path() in _native.candidate_paths()


def test_loading_a_library_whose_constants_differ_raises_import_error() -> None:
    result = run_python(
        "import fbstorage, fbstorage.log\n"
        "fbstorage.log.DEBUG = 5  # this binding's copy of FBS_LOG_DEBUG, changed before the load\n"
        "try:\n    fbstorage.Storage('b')\n"
        "except ImportError as error:\n    print('ImportError:', error)\n",
    )
    assert result.returncode == 0, result.stderr
    assert f"ImportError: FBS_LOG_DEBUG is 5 in this fbstorage binding but 4 in {_native.library_path()}" in (
        result.stdout
    )


def test_the_constants_check_names_what_differs(monkeypatch) -> None:
    lib, path = _native.library(), _native.library_path()
    ours = _native.binding_constants()
    _native.check_constants(lib, path)  # the real copies agree
    theirs = _native.library_constants(lib)
    assert theirs["FBS_ERR_TIMEOUT"] == fbstorage.StorageErrorCode.TIMEOUT == -13060
    for name, value in theirs.items():
        if name == "FBS_OK" or name.startswith("FBS_ERR_"):
            assert lib.fbs_error_name(value).decode() == name

    def check_with(copies: dict[str, int]) -> str:
        monkeypatch.setattr(_native, "binding_constants", lambda: copies)
        with pytest.raises(ImportError) as raised:
            _native.check_constants(lib, path)
        return str(raised.value)

    assert check_with({**ours, "FBS_ERR_TIMEOUT": -1}) == f"FBS_ERR_TIMEOUT is -1 in this fbstorage binding but -13060 in {path}"
    assert check_with({**ours, "FBS_ERR_NEWER": -13999}) == f"FBS_ERR_NEWER is -13999 in this fbstorage binding but missing from {path}"
    fewer = {name: value for name, value in ours.items() if name != "FBS_TASK_STATUS_FAILURE"}
    assert check_with(fewer) == f"FBS_TASK_STATUS_FAILURE (5) of {path} is unknown to this fbstorage binding"
