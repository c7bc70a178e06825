"""Progress bars for transfers on a terminal (rich); nothing at all when stderr is not one.

rich draws several live bars at once and adds and removes rows as parallel transfers start
and end; its transfer columns (size, speed, time left) and terminal detection are built in.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from ..task import TaskSnapshot


class TransferDisplay:
    """One bar per running transfer and, for several transfers, a bar for their total.

    A finished transfer's bar is removed when there is a total bar, else it stays.
    """

    def __init__(self, console: Console, transfers: int, total_bytes: int) -> None:
        self._progress = Progress(
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            TaskProgressColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=console,
            disable=not console.is_terminal,
        )
        self._total: TaskID | None = None
        if transfers > 1:
            self._total = self._progress.add_task(f"{transfers} files", total=total_bytes)

    def __enter__(self) -> TransferDisplay:
        self._progress.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._progress.stop()

    def start(self, name: str, size: int | None) -> TransferBar:
        """A bar for a transfer of ``size`` bytes (None: unknown)."""
        return TransferBar(self._progress, self._progress.add_task(name, total=size), self._total)

    def remove_finished(self, bar: TransferBar) -> None:
        if self._total is not None:
            self._progress.remove_task(bar.task_id)


class TransferBar:
    """The bar of one transfer, fed with task snapshots; it also moves the total bar."""

    def __init__(self, progress: Progress, task_id: TaskID, total_bar: TaskID | None) -> None:
        self._progress = progress
        self.task_id = task_id
        self._total_bar = total_bar
        self._completed = 0

    def show(self, snapshot: TaskSnapshot, offset: int = 0) -> None:
        """Shows a snapshot's bytes, after ``offset`` bytes of an earlier phase (a copy
        between buckets downloads, then uploads)."""
        self.move_to(offset + snapshot.bytes_transferred)

    def move_to(self, completed: int) -> None:
        self._progress.update(self.task_id, completed=completed)
        if self._total_bar is not None:
            self._progress.advance(self._total_bar, completed - self._completed)
        self._completed = completed
