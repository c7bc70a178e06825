"""fbstorage.aio against the sync API with threads, as benchmark clients.

  put-many HOST:PORT BUCKET PREFIX COUNT SIZE            every put_data started at once from
                                                         one asyncio loop, then gathered
  put-many-threads HOST:PORT BUCKET PREFIX COUNT SIZE [--threads N]
                                                         the sync API: N threads, each doing
                                                         put_data(...).wait() in turn
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time

import fbstorage
import fbstorage.aio
from common import main, many_arguments, report, small_objects


def emulator_address(args) -> tuple[str, int]:
    host, port = args.address.rsplit(":", 1)
    return host, int(port)


def put_many(args) -> None:
    objects = small_objects(args.prefix, args.count, args.size)

    async def upload_all() -> float:
        async with fbstorage.aio.Storage(args.bucket) as storage:
            storage.use_emulator(*emulator_address(args))
            root = storage.reference()
            started = time.perf_counter()
            await asyncio.gather(*(root.child(name).put_data(data) for name, data in objects))
            return time.perf_counter() - started

    report(asyncio.run(upload_all()))


def put_many_threads(args) -> None:
    objects = small_objects(args.prefix, args.count, args.size)
    with fbstorage.Storage(args.bucket) as storage:
        storage.use_emulator(*emulator_address(args))
        root = storage.reference()
        with concurrent.futures.ThreadPoolExecutor(args.threads) as pool:
            started = time.perf_counter()
            for metadata in pool.map(lambda item: root.child(item[0]).put_data(item[1]).wait(),
                                     objects):
                assert metadata is not None
            report(time.perf_counter() - started, threads=args.threads)


def threads_arguments(command) -> None:
    many_arguments(command)
    command.add_argument("--threads", type=int, default=16, help="uploading threads")


if __name__ == "__main__":
    main(__doc__, {"put-many": (put_many, many_arguments),
                   "put-many-threads": (put_many_threads, threads_arguments)})
