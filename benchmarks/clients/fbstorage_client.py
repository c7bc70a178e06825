"""fbstorage's Python binding as a benchmark client.

  put-file HOST:PORT BUCKET FILE OBJECT [--progress]   one put_file, optionally observed
  put-many HOST:PORT BUCKET PREFIX COUNT SIZE [--in-flight N]
  list-all HOST:PORT BUCKET PREFIX
  get-data HOST:PORT BUCKET OBJECT                  download into memory
  write-to-file HOST:PORT BUCKET OBJECT FILE        download to FILE
"""

from __future__ import annotations

import collections
import time

import fbstorage
from common import Stopwatch, file_arguments, main, many_arguments, prefix_argument, report, small_objects


def storage_for(args) -> fbstorage.Storage:
    storage = fbstorage.Storage(args.bucket)
    host, port = args.address.rsplit(":", 1)
    storage.use_emulator(host, int(port))
    return storage


def put_file(args) -> None:
    with storage_for(args) as storage:
        events = 0

        def on_progress(snapshot: fbstorage.TaskSnapshot) -> None:
            nonlocal events
            events += 1   # the cheapest useful observer: what a progress bar's counter costs

        started = time.perf_counter()
        task = storage.reference(args.object).put_file(args.file)
        if args.progress:
            task.observe(fbstorage.TaskStatus.PROGRESS, on_progress)
        task.wait()
        report(time.perf_counter() - started, progress_events=events)


def put_many(args) -> None:
    objects = small_objects(args.prefix, args.count, args.size)
    with storage_for(args) as storage:
        root = storage.reference()
        in_flight: collections.deque = collections.deque()
        stopwatch = Stopwatch()
        for name, data in objects:
            if len(in_flight) == args.in_flight:
                in_flight.popleft().wait()
            in_flight.append(root.child(name).put_data(data))
        for task in in_flight:
            task.wait()
        stopwatch.report()


def list_all(args) -> None:
    with storage_for(args) as storage:
        started = time.perf_counter()
        # Every item's path read, as the raw loop collects every name.
        names = [ref.full_path for ref in storage.reference(args.prefix).list_all().items]
        report(time.perf_counter() - started, items=len(names))


# The downloads report their work's CPU (Stopwatch): the interpreter's start (~0.07 s, a third
# of curl's whole CPU for 256 MiB) is not the binding's cost.
def get_data(args) -> None:
    with storage_for(args) as storage:
        stopwatch = Stopwatch()
        data = storage.reference(args.object).get_data()
        stopwatch.report(bytes=len(data))


def write_to_file(args) -> None:
    with storage_for(args) as storage:
        stopwatch = Stopwatch()
        task = storage.reference(args.object).write_to_file(args.file)
        task.wait()
        stopwatch.report(bytes=task.snapshot.bytes_transferred)


def object_argument(command) -> None:
    command.add_argument("object")


def put_file_arguments(command) -> None:
    file_arguments(command)
    command.add_argument("--progress", action="store_true", help="observe PROGRESS")


def put_many_arguments(command) -> None:
    many_arguments(command)
    command.add_argument("--in-flight", type=int, default=1, help="uploads running at once")


if __name__ == "__main__":
    main(__doc__, {"put-file": (put_file, put_file_arguments),
                   "put-many": (put_many, put_many_arguments),
                   "list-all": (list_all, prefix_argument),
                   "get-data": (get_data, object_argument),
                   "write-to-file": (write_to_file, lambda command: (object_argument(command),
                                                                     command.add_argument("file")))})
