"""Ownership of one library handle by one Python object."""

from __future__ import annotations

import weakref
from typing import Any


def _free(free_function_name: str, handle: Any) -> None:
    from ._native import library

    getattr(library(), free_function_name)(handle)


class OwnedHandle:
    """Base of objects that own one handle, released with the C function ``free_function``.

    The handle is released by :meth:`_release` (called by the owning storage's ``close()``), or
    when the object is garbage-collected, whichever comes first. A subclass may create its
    handle later, on first use, and take it with :meth:`_own`. Using a released object raises
    StorageError INVALID_ARGUMENT saying so (the library would only see a NULL handle).
    """

    def __init__(self, handle: Any, free_function: str) -> None:
        self._own(handle, free_function)

    def _own(self, handle: Any, free_function: str) -> None:
        self._native = handle
        self._finalizer = weakref.finalize(self, _free, free_function, handle)

    @property
    def _handle(self) -> Any:
        if self._native is None and not self._finalizer.alive:
            from .errors import StorageError, StorageErrorCode

            raise StorageError(StorageErrorCode.INVALID_ARGUMENT,
                               f"This {type(self).__name__} was released: its Storage is closed")
        return self._native

    def _release(self) -> None:
        """Releases the handle now (idempotent)."""
        self._native = None
        self._finalizer()
