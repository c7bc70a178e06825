"""A listener of the library (Auth's, App Check's) called on an asyncio loop."""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from . import _completion


class LoopListener:
    """A listener called on the running loop (of its registration) instead of the library's
    callback thread. ``active`` is cleared on removal, so that a call already on its way to the
    loop is dropped."""

    def __init__(self, listener: Callable[[Any], Any]) -> None:
        if not callable(listener):
            raise TypeError(f"listener must be callable, not {type(listener).__name__}")
        self._listener = listener
        self._loop = asyncio.get_running_loop()
        self.active = True

    def __call__(self, value: Any) -> None:
        _completion.call_soon_threadsafe(self._loop, self._deliver, value)

    def _deliver(self, value: Any) -> None:
        if self.active:
            self._listener(value)

    def __repr__(self) -> str:
        return repr(self._listener)
