"""Command lines, payloads and the result line shared by the Python benchmark clients.

Every command takes the emulator's HOST:PORT and the bucket first, and prints one JSON line
{"seconds": S, ...} timing the work alone (not the interpreter's start-up); the small-object
loops add "work_cpu_seconds", the CPU time of that work.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Callable

Configure = Callable[[argparse.ArgumentParser], None]


def main(description: str, commands: dict[str, tuple[Callable, Configure]]) -> None:
    top = argparse.ArgumentParser(description=description,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    subcommands = top.add_subparsers(dest="command", required=True)
    for name, (handler, configure) in commands.items():
        command = subcommands.add_parser(name)
        command.add_argument("address", help="the emulator's HOST:PORT")
        command.add_argument("bucket")
        configure(command)
        command.set_defaults(handler=handler)
    args = top.parse_args()
    args.handler(args)


def file_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("file")
    command.add_argument("object")


def many_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("prefix")
    command.add_argument("count", type=int)
    command.add_argument("size", type=int)


def prefix_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument("prefix")


def small_objects(prefix: str, count: int, size: int) -> list[tuple[str, bytes]]:
    """The same names and bytes for every peer (seeded), made before the clock starts."""
    rng = random.Random(size)
    return [(f"{prefix}/{index:05d}", rng.randbytes(size)) for index in range(count)]


def report(seconds: float, **extra: object) -> None:
    print(json.dumps({"seconds": seconds, **extra}), flush=True)


class Stopwatch:
    """Wall time and the process's CPU time (all threads) from its creation: the work alone,
    without the interpreter's start-up and imports."""

    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def report(self, **extra: object) -> None:
        report(time.perf_counter() - self.wall, work_cpu_seconds=time.process_time() - self.cpu, **extra)
