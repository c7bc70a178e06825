"""Downloads into ``bytes`` with no copy after the socket's: an ``fbs_allocator`` whose memory is
that of new, not yet shared ``bytes`` objects (``PyBytes_FromStringAndSize(NULL, n)``, the
C API's way to build a ``bytes`` by filling it), so ``get_data`` returns the very object the
library wrote into. A 256 MiB download then touches its bytes once (``ctypes.string_at`` of
the library's own buffer copied them again into new memory: 2.3× curl's CPU).
"""

from __future__ import annotations

import ctypes
import threading
from ctypes import c_ssize_t, c_void_p

from ._native import ALLOCATE, RELEASE, Allocator

_new_bytes = ctypes.pythonapi.PyBytes_FromStringAndSize
_new_bytes.restype = ctypes.py_object
_new_bytes.argtypes = [c_void_p, c_ssize_t]
_bytes_address = ctypes.pythonapi.PyBytes_AsString
_bytes_address.restype = c_void_p
_bytes_address.argtypes = [ctypes.py_object]


class BytesAllocator:
    """The memory of one download: each ``allocate`` makes a ``bytes`` of that length and keeps it
    by address until the library hands it over (:meth:`take`) or releases it. Keep this object
    alive until the download ends: the library calls its functions until then."""

    def __init__(self) -> None:
        self._objects: dict[int, bytes] = {}
        self._lock = threading.Lock()   # allocate and release may run on the library's thread
        self.native = Allocator(ALLOCATE(self._allocate), RELEASE(self._release), None)

    def _allocate(self, length: int, _user_data: int | None) -> int | None:
        try:
            data = _new_bytes(None, length)
        except MemoryError:
            return None    # the download fails with StorageError INTERNAL ("Out of memory")
        address = _bytes_address(data)
        with self._lock:
            self._objects[address] = data
        return address

    def _release(self, address: int | None, _user_data: int | None) -> None:
        with self._lock:
            self._objects.pop(address or 0, None)

    def take(self, address: int | None, length: int) -> bytes:
        """The ``bytes`` the library handed over at ``address`` (its memory holds ``length`` bytes)."""
        if not length:
            return b""
        with self._lock:
            return self._objects.pop(address or 0)
