"""Wheel build hooks: bundle libfbstorage.so and tag the wheel for this platform only.

The library is taken from $FBSTORAGE_LIBRARY, else from the project's build folder
(`make lib` makes ../../build/lib/libfbstorage.so). The binding itself is pure Python, so the
wheel is tagged py3-none-<platform>: any Python 3, this OS and architecture. `make wheel`
then repairs it with auditwheel into a py3-none-manylinux_2_XX wheel that carries libcurl.
"""

from __future__ import annotations

import os
import shutil
import sysconfig
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
LIBRARY_NAME = "libfbstorage.so"


def library_source() -> Path:
    override = os.environ.get("FBSTORAGE_LIBRARY")
    candidates = [Path(override)] if override else [
        HERE / "fbstorage" / LIBRARY_NAME,  # an sdist, or a previous copy
        HERE.parents[1] / "build" / "lib" / LIBRARY_NAME,
    ]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    tried = "\n  ".join(str(candidate) for candidate in candidates)
    raise SystemExit(
        f"fbstorage: {LIBRARY_NAME} is needed to build the wheel; tried:\n  {tried}\n"
        "Run `make lib` at the project root first (or set FBSTORAGE_LIBRARY)."
    )


class BuildPyWithLibrary(build_py):
    """Copies libfbstorage.so into the built package."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "fbstorage" / LIBRARY_NAME
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(library_source(), target)


class DistributionWithNativeLibrary(Distribution):
    """Makes the wheel platform-specific: it carries a native library."""

    def has_ext_modules(self) -> bool:
        return True


class PlatformWheel(bdist_wheel):
    """A wheel for any Python 3 on this platform."""

    def get_tag(self) -> tuple[str, str, str]:
        return "py3", "none", sysconfig.get_platform().replace("-", "_").replace(".", "_")


# Keep setuptools' metadata out of the package's folder (it would shadow an installed wheel).
(HERE / "build").mkdir(exist_ok=True)

setup(
    distclass=DistributionWithNativeLibrary,
    options={"egg_info": {"egg_base": "build"}},
    cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": PlatformWheel},
)
