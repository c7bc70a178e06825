#!/usr/bin/env python3
"""Upload a large file with a live progress bar, pause and resume midway, then list the folder,
show the object's metadata and its download URL.

    python examples/python/upload.py --emulator 127.0.0.1:9199          # a 64 MiB random file
    FIREBASE_STORAGE_EMULATOR_HOST=127.0.0.1:9199 python examples/python/upload.py --size-mib 8
    python examples/python/upload.py --emulator 127.0.0.1:9199 --file photo.jpg

Exits with status 1 when the upload or any step fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import fbstorage
from fbstorage import TaskSnapshot, TaskStatus

MIB = 1024 * 1024


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--emulator", metavar="HOST:PORT",
                        help="emulator address (default: $FIREBASE_STORAGE_EMULATOR_HOST)")
    parser.add_argument("--bucket", default="demo-bucket", help="bucket (default: demo-bucket)")
    parser.add_argument("--folder", default="demo", help="folder to upload into (default: demo)")
    parser.add_argument("--size-mib", type=float, default=64, help="size of the generated file (default: 64)")
    parser.add_argument("--file", type=Path, help="upload this file instead of a generated one")
    arguments = parser.parse_args()
    if not arguments.emulator and not os.environ.get("FIREBASE_STORAGE_EMULATOR_HOST"):
        parser.error("give --emulator HOST:PORT or set FIREBASE_STORAGE_EMULATOR_HOST")
    return arguments


def generate_file(directory: Path, size: int) -> Path:
    """A file of ``size`` random bytes, written in 4 MiB blocks."""
    path = directory / f"random-{size / MIB:g}MiB.bin"
    with path.open("wb") as output:
        remaining = size
        while remaining:
            block = os.urandom(min(remaining, 4 * MIB))
            output.write(block)
            remaining -= len(block)
    return path


def human_size(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


class ProgressDisplay:
    """Draws the upload's progress: one rewritten line on a terminal, a line per 10% otherwise."""

    BAR_WIDTH = 30

    def __init__(self, total: int, interactive: bool) -> None:
        self.total = total
        self.interactive = interactive
        self.started = time.monotonic()
        self.paused_seconds = 0.0
        self.last_reported_tenth = -1
        self.lock = threading.Lock()

    def update(self, transferred: int) -> None:
        fraction = transferred / self.total if self.total else 1.0
        elapsed = max(time.monotonic() - self.started - self.paused_seconds, 1e-6)
        rate = transferred / elapsed
        eta = f"{(self.total - transferred) / rate:4.0f} s" if rate > 0 else "   ? s"
        filled = int(fraction * self.BAR_WIDTH)
        bar = "█" * filled + "·" * (self.BAR_WIDTH - filled)
        line = (f"{bar} {fraction * 100:5.1f}%  {human_size(transferred):>10} / {human_size(self.total)}"
                f"  {rate / MIB:6.1f} MiB/s  ETA {eta}")
        with self.lock:
            if self.interactive:
                sys.stdout.write(f"\r{line}\033[K")
                sys.stdout.flush()
            elif int(fraction * 10) > self.last_reported_tenth:
                self.last_reported_tenth = int(fraction * 10)
                print(line, flush=True)

    def message(self, text: str) -> None:
        """Prints a line of its own, keeping the progress line intact."""
        with self.lock:
            if self.interactive:
                sys.stdout.write("\r\033[K")
            print(text, flush=True)

    def finish(self) -> None:
        with self.lock:
            if self.interactive:
                sys.stdout.write("\n")
                sys.stdout.flush()


def upload_with_progress(ref: fbstorage.StorageReference, path: Path) -> fbstorage.StorageMetadata:
    """Uploads ``path``; pauses for a second halfway, then resumes."""
    total = path.stat().st_size
    display = ProgressDisplay(total, sys.stdout.isatty())
    pause_requested = threading.Event()
    paused_or_done = threading.Event()

    def on_progress(snapshot: TaskSnapshot) -> None:
        display.update(snapshot.bytes_transferred)
        if snapshot.bytes_transferred >= total / 2 and not pause_requested.is_set():
            pause_requested.set()
            snapshot.task.pause()

    def on_pause(snapshot: TaskSnapshot) -> None:
        display.message(f"⏸  paused at {human_size(snapshot.bytes_transferred)} for a second")
        paused_or_done.set()

    def on_resume(snapshot: TaskSnapshot) -> None:
        if pause_requested.is_set():
            display.message(f"▶  resumed from {human_size(snapshot.bytes_transferred)}")

    print(f"Uploading {path.name} ({human_size(total)}) to {ref}")
    task = ref.put_file(path, fbstorage.StorageMetadata(
        content_type="application/octet-stream",
        custom_metadata={"uploaded-by": "examples/python/upload.py"},
    ))
    task.observe(TaskStatus.PROGRESS, on_progress)
    task.observe(TaskStatus.PAUSE, on_pause)
    task.observe(TaskStatus.RESUME, on_resume)
    task.observe(TaskStatus.SUCCESS, lambda snapshot: paused_or_done.set())
    task.observe(TaskStatus.FAILURE, lambda snapshot: paused_or_done.set())
    try:
        while not paused_or_done.wait(0.2):  # in slices, so that Ctrl-C works
            pass
        if task.snapshot.status == TaskStatus.PAUSE:
            time.sleep(1)
            display.paused_seconds += 1
            task.resume()
        metadata = task.wait()
    finally:
        display.finish()
    assert metadata is not None
    elapsed = time.monotonic() - display.started - display.paused_seconds
    print(f"✔  uploaded {human_size(total)} in {elapsed:.1f} s ({total / MIB / max(elapsed, 1e-6):.1f} MiB/s)")
    return metadata


def show_listing(folder: fbstorage.StorageReference) -> None:
    listing = folder.list_all()
    print(f"\nContents of {folder}:")
    for prefix in listing.prefixes:
        print(f"  📁 {prefix.name}/")
    for item in listing.items:
        print(f"  📄 {item.name:40} {human_size(item.get_metadata().size or 0):>10}")
    if not listing.items and not listing.prefixes:
        print("  (empty)")


def show_metadata(metadata: fbstorage.StorageMetadata) -> None:
    rows = [
        ("name", metadata.name),
        ("path", metadata.full_path),
        ("bucket", metadata.bucket),
        ("size", f"{human_size(metadata.size or 0)} ({metadata.size:,} bytes)"),
        ("content type", metadata.content_type),
        ("MD5", metadata.md5_hash),
        ("generation", metadata.generation),
        ("created", metadata.time_created.isoformat(timespec="seconds") if metadata.time_created else None),
        ("updated", metadata.updated.isoformat(timespec="seconds") if metadata.updated else None),
    ]
    rows += [(f"custom: {key}", value) for key, value in sorted((metadata.custom_metadata or {}).items())]
    width = max(len(label) for label, _ in rows)
    print("\nMetadata:")
    for label, value in rows:
        if value is not None:
            print(f"  {label:<{width}}  {value}")


def main() -> int:
    arguments = parse_arguments()
    workdir = Path(tempfile.mkdtemp(prefix="fbstorage-demo-"))
    try:
        if arguments.file:
            path = arguments.file
        else:
            size = int(arguments.size_mib * MIB)
            print(f"Generating {human_size(size)} of random bytes…")
            path = generate_file(workdir, size)
        with fbstorage.Storage(arguments.bucket) as storage:
            if arguments.emulator:
                host, _, port = arguments.emulator.rpartition(":")
                storage.use_emulator(host.strip("[]"), int(port))
            # Several chunks even for small files, so that the pause lands midway.
            storage.upload_chunk_size = min(8 * MIB, max(256 * 1024, path.stat().st_size // 8))
            folder = storage.reference(arguments.folder)
            ref = folder.child(path.name)
            metadata = upload_with_progress(ref, path)
            show_listing(folder)
            show_metadata(metadata)
            print(f"\nDownload URL:\n  {ref.download_url()}")
        return 0
    except fbstorage.StorageError as error:
        print(f"\n✘  {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
