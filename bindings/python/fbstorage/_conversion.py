"""Converting Python arguments to C arguments, and C strings back.

Wrong Python types raise :class:`TypeError` here, before any C call. Values of the right type
are passed on unchanged, so the library's documented error for a bad value comes back as a
:class:`fbstorage.StorageError`: a str holding lone surrogates is encoded with
``surrogatepass``, which gives bytes that are not valid UTF-8, and the library refuses them.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any, Union

#: What the library accepts as a local file path.
LocalPath = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


def encode_text(value: Any, what: str) -> bytes:
    """A str argument as UTF-8 bytes for a ``const char *`` parameter."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise ValueError(f"{what} must not contain a NUL character")
    return value.encode("utf-8", errors="surrogatepass")


def encode_optional_text(value: Any, what: str) -> bytes | None:
    """Like :func:`encode_text`, with None passed on as NULL."""
    return None if value is None else encode_text(value, what)


def encode_local_path(value: Any, what: str = "path") -> bytes:
    """A local file path (str, bytes or os.PathLike) in the file system's encoding."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{what} must be a str, bytes or os.PathLike, not {type(value).__name__}")
    encoded = os.fsencode(value)
    if b"\0" in encoded:
        raise ValueError(f"{what} must not contain a NUL character")
    return encoded


#: The range of the C ``int64_t`` parameters; ``int`` parameters are narrower (see C_INT).
INT64 = (-(2**63), 2**63 - 1)
C_INT = (-(2**31), 2**31 - 1)


def check_integer(value: Any, what: str, bounds: tuple[int, int] = INT64) -> int:
    """An int argument within ``bounds`` (inclusive). bool is refused (it is almost always a
    mistake), and so is a value outside the bounds: ctypes would silently keep its low bits
    (port 2**32 + 19300 would become 19300)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    low, high = bounds
    if not low <= value <= high:
        raise ValueError(f"{what} must be between {low} and {high}, not {value}")
    return value


def check_number(value: Any, what: str) -> float:
    """A float or int argument, as float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a number, not {type(value).__name__}")
    return float(value)


def byte_buffer(data: Any) -> tuple[Any, int]:
    """A bytes-like object as (pointer argument, length), without copying when possible.

    bytes are passed as they are; writable contiguous buffers (bytearray, memoryview,
    array, numpy arrays…) are shared; other buffers are copied once.
    """
    if isinstance(data, bytes):
        return data, len(data)
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError(
            f"data must be a bytes-like object, not {type(data).__name__}"
        ) from None
    if not view.c_contiguous or view.readonly:
        copied = view.tobytes()
        return copied, len(copied)
    flat = view.cast("B")
    if flat.nbytes == 0:
        return None, 0
    return (ctypes.c_char * flat.nbytes).from_buffer(flat), flat.nbytes


def decode(value: bytes | None) -> str | None:
    """A ``const char *`` result (ctypes has already copied it) as str."""
    return None if value is None else value.decode("utf-8", errors="replace")
