"""The wheel `make wheel` built: manylinux, libcurl vendored, installed in a fresh venv.

Run by `make test-wheel` (not by `make test-python`), which builds the wheel first and names
its folder in $FBSTORAGE_WHEEL_DIR (default: the project's build/wheel).
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

import fbstorage
from doc_blocks import DOCS
from test_system_trust import LAYOUTS, NEEDS_NAMESPACES, run_in_namespace
from test_system_trust import secure  # noqa: F401  (the https emulator fixture)

PROJECT = Path(__file__).resolve().parents[1]
SWIFT_LIBRARY_HINTS = ("libswift", "/swift/")
#: glibc 2.34 (RHEL 9, Debian 12, Ubuntu 22.04): the floor of the Debian-built libraries and of
#: the static Swift runtime linked against them (docs/field.md, "The wheel").
GLIBC_FLOOR = (2, 34)
WHEEL_NAME = re.compile(rf"fbstorage-{re.escape(fbstorage.__version__)}-py3-none-manylinux_2_34_x86_64\.whl")
VENDORED = "fbstorage.libs/"
MAX_WHEEL_BYTES = 8 << 20

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
    with open("/proc/self/maps") as maps:  # every file mapped into this process
        for line in maps:
            fields = line.split(maxsplit=5)
            if len(fields) == 6 and ".so" in fields[5]:
                print("mapped", fields[5].strip())
    """
)


@pytest.fixture(scope="module")
def wheel() -> Path:
    folder = Path(os.environ.get("FBSTORAGE_WHEEL_DIR", PROJECT.parents[1] / "build" / "wheel"))
    built = sorted(folder.glob("*.whl"))
    if len(built) != 1:
        pytest.fail(f"expected one wheel in {folder}, found {built}: run `make test-wheel`")
    return built[0]


def bundled_library(wheel: Path) -> ELFFile:
    with zipfile.ZipFile(wheel) as archive:
        return ELFFile(io.BytesIO(archive.read("fbstorage/libfbstorage.so")))


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
    assert WHEEL_NAME.fullmatch(wheel.name), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = archive.read(f"fbstorage-{fbstorage.__version__}.dist-info/entry_points.txt").decode()
    for required in ("fbstorage/libfbstorage.so", "fbstorage/py.typed", "fbstorage/testing.py",
                     "fbstorage/fsspec.py", "fbstorage/emulator/__main__.py", "fbstorage/emulator/server.py",
                     "fbstorage/emulator/ui/static/index.html", "fbstorage/emulator/ui/static/main.js"):
        assert required in names
    assert "[pytest11]" in entry_points and "fbstorage.testing = fbstorage.testing" in entry_points
    assert "[fsspec.specs]" in entry_points
    assert "firebase = fbstorage.fsspec:FirebaseStorageFileSystem" in entry_points
    vendored = {name[len(VENDORED):].split("-")[0] for name in names if name.startswith(VENDORED)} - {""}
    # The http(s)-only libcurl: no librtmp/GnuTLS, LDAP, Kerberos, SSH, IDN, PSL, HTTP/2 libraries.
    assert vendored == {"libcurl", "libssl", "libcrypto"}, vendored


def test_wheel_size(wheel: Path) -> None:
    assert wheel.stat().st_size <= MAX_WHEEL_BYTES, f"{wheel.stat().st_size / (1 << 20):.2f} MiB"


#: What the docs say about the wheel, each read from the built one: its name (version, manylinux tag),
#: its size and the bundled library's unpacked size in MiB (as rounded in the docs), the glibc floor.
_DOC_WHEEL_NAME = re.compile(r"fbstorage-([^-\s`]+)-py3-none-(manylinux_\d+_\d+_x86_64)\.whl")
_DOC_WHEEL_SIZE = re.compile(r"(?:The wheel is |manylinux_\d+_\d+_x86_64\.whl`, \*\*)(\d+\.\d) MiB")
_DOC_LIBRARY_SIZE = re.compile(r"`libfbstorage\.so` \((\d+\.\d) MiB unpacked")
_DOC_GLIBC_FLOOR = re.compile(r"(?:any glibc |\*\*glibc |at glibc |oldest glibc it runs on \(|none above )(2\.\d+)")


def test_docs_state_the_built_wheel(wheel: Path) -> None:
    version, tag = _DOC_WHEEL_NAME.fullmatch(wheel.name).groups()
    floor = ".".join(tag.split("_")[1:3])
    with zipfile.ZipFile(wheel) as archive:
        library_mib = archive.getinfo("fbstorage/libfbstorage.so").file_size / (1 << 20)
    wheel_mib = wheel.stat().st_size / (1 << 20)
    wrong, found = [], 0
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        where = doc.relative_to(PROJECT.parents[1])
        for stated_version, stated_tag in _DOC_WHEEL_NAME.findall(text):
            found += 1
            if stated_tag != tag or stated_version not in (version, "<version>"):
                wrong.append(f"{where}: fbstorage-{stated_version}-py3-none-{stated_tag}.whl, built {wheel.name}")
        for pattern, actual, what in ((_DOC_WHEEL_SIZE, wheel_mib, "the wheel"),
                                      (_DOC_LIBRARY_SIZE, library_mib, "libfbstorage.so unpacked")):
            for stated in pattern.findall(text):
                found += 1
                if abs(float(stated) - actual) >= 0.1:
                    wrong.append(f"{where}: {what} {stated} MiB, built {actual:.2f} MiB")
        for stated in _DOC_GLIBC_FLOOR.findall(text):
            found += 1
            if stated != floor:
                wrong.append(f"{where}: glibc {stated}, the wheel's floor {floor}")
    assert found >= 8 and wrong == []


def test_auditwheel_show_and_glibc_symbol_versions(wheel: Path) -> None:
    shown = subprocess.run([str(Path(sys.executable).parent / "auditwheel"), "show", str(wheel)],
                           capture_output=True, text=True, check=True).stdout
    assert '"manylinux_2_34_x86_64"' in " ".join(shown.split()), shown
    with zipfile.ZipFile(wheel) as archive:
        libraries = [name for name in archive.namelist() if ".so" in name]
        newest = {}
        for name in libraries:
            versions = set(re.findall(rb"GLIBC_(\d+)\.(\d+)", archive.read(name)))
            newest[name] = max((int(major), int(minor)) for major, minor in versions)
    assert newest and all(version <= GLIBC_FLOOR for version in newest.values()), newest
    assert newest["fbstorage/libfbstorage.so"] == GLIBC_FLOOR  # what sets the floor, with the libraries


def test_bundled_library_is_stripped_named_and_linked_to_the_vendored_libcurl(wheel: Path) -> None:
    library = bundled_library(wheel)
    assert library.get_section_by_name(".symtab") is None  # stripped
    dynamic = next(section for section in library.iter_sections() if isinstance(section, DynamicSection))
    tags = [(tag.entry.d_tag, tag) for tag in dynamic.iter_tags()]
    (soname,) = [tag.soname for kind, tag in tags if kind == "DT_SONAME"]
    # Named after the ABI major, as the library `make` builds: the wheel's copy is that library.
    abi = re.search(r"^#define FBS_ABI_VERSION (\d+)", (PROJECT.parents[1] / "include" / "fbstorage" / "common.h").read_text(),
                    re.MULTILINE).group(1)
    assert soname == f"libfbstorage.so.{abi}"
    needed = [tag.needed for kind, tag in tags if kind == "DT_NEEDED"]
    assert any(re.fullmatch(r"libcurl-[0-9a-f]{8}\.so\.4.*", name) for name in needed), needed
    assert "libcurl.so.4" not in needed
    # RS256 (service accounts, signed URLs) links libcrypto: the copy vendored for libcurl, no other.
    assert any(re.fullmatch(r"libcrypto-[0-9a-f]{8}\.so\.3.*", name) for name in needed), needed
    assert "libcrypto.so.3" not in needed
    search_paths = [tag.rpath if kind == "DT_RPATH" else tag.runpath for kind, tag in tags
                    if kind in ("DT_RPATH", "DT_RUNPATH")]
    assert any("$ORIGIN/../fbstorage.libs" in path.split(":") for path in search_paths), search_paths


def test_bundled_library_needs_no_swift_runtime(installed: Path) -> None:
    library = site_packages(installed) / "fbstorage" / "libfbstorage.so"
    linked = subprocess.run(["ldd", str(library)], capture_output=True, text=True, env={"PATH": os.defpath},
                            check=True).stdout
    assert "not found" not in linked
    assert not any(hint in linked for hint in SWIFT_LIBRARY_HINTS), linked
    search_path = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True).stdout
    assert "libswiftCore" not in search_path  # the toolchain's libraries are on no search path


def test_upload_from_the_installed_wheel_uses_the_vendored_libraries(installed: Path, emulator,
                                                                    tmp_path: Path) -> None:
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
    mapped = {line.split(" ", 1)[1] for line in result.stdout.splitlines() if line.startswith("mapped ")}
    vendored_folder = site_packages(installed) / "fbstorage.libs"
    vendored = {str(path) for path in vendored_folder.iterdir()}
    assert vendored and vendored <= mapped, sorted(vendored - mapped)  # each one loaded, from the venv
    curl = [path for path in mapped if os.path.basename(path).startswith("libcurl")]
    assert curl and all(path.startswith(str(vendored_folder)) for path in curl), curl  # no system libcurl


def test_fsspec_entry_point_of_the_installed_wheel(installed: Path, emulator, tmp_path: Path) -> None:
    # The fresh venv has no fsspec (installed with --no-deps, offline): run the wheel's code
    # with this interpreter's packages, as the emulator test below does.
    emulator.reset()
    environment = {name: value for name, value in os.environ.items() if name != "FBSTORAGE_LIBRARY"}
    environment.update(PYTHONPATH=str(site_packages(installed)),
                       FIREBASE_STORAGE_EMULATOR_HOST=f"{emulator.host}:{emulator.port}")
    script = textwrap.dedent(
        """
        import fsspec
        with fsspec.open("firebase://test-bucket/wheel/fsspec.txt", "wb") as written:
            written.write(b"through the entry point")
        filesystem = fsspec.filesystem("firebase")
        print(type(filesystem).__module__, filesystem.cat_file("test-bucket/wheel/fsspec.txt").decode())
        """
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=environment,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "fbstorage.fsspec through the entry point"


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


@NEEDS_NAMESPACES
@pytest.mark.parametrize("layout", ["fedora", "alpine"])
def test_installed_wheel_trusts_the_bundle_of_another_layout(installed: Path, secure, tmp_path: Path,
                                                             layout: str) -> None:
    """The wheel's libcurl was built on Debian and knows Debian's bundle path only: in a mount
    namespace where only a Fedora-layout (then an Alpine-layout) bundle exists, holding the
    https emulator's CA, the installed wheel still finds it and talks https."""
    lines = run_in_namespace(secure, tmp_path, LAYOUTS[layout], python=str(installed))
    assert lines[0] == f"BUNDLE {LAYOUTS[layout]}"
