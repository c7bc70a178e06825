"""Ctrl-C, SIGTERM and SIGHUP end a command the same way: the command's task is cancelled, so
downloads remove their partial files and uploads pause and keep their sessions for the next run
(copy._observed), then the command says what it kept and exits with 128 + the signal's number.

asyncio.run turns Ctrl-C into that cancellation itself (then KeyboardInterrupt); the other two
are given to the event loop here.
"""

from __future__ import annotations

import asyncio
import signal

TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

_received: list[signal.Signals] = []


def cancel_on_termination() -> None:
    """From now on SIGTERM and SIGHUP cancel the running task (the command); a second signal while
    it winds down changes nothing (the wind-down is bounded)."""
    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    assert task is not None

    def terminate(number: signal.Signals) -> None:
        if not _received:
            _received.append(number)
            task.cancel()

    for number in TERMINATING_SIGNALS:
        loop.add_signal_handler(number, terminate, number)


def received() -> signal.Signals:
    """The signal that ended the command: SIGTERM or SIGHUP if one was handled, else SIGINT."""
    return _received[0] if _received else signal.SIGINT
