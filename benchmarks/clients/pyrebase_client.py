"""pyrebase4, the naive Python peer, used as its README shows.

  put-file HOST:PORT BUCKET FILE OBJECT
  put-many HOST:PORT BUCKET PREFIX COUNT SIZE

pyrebase4 hard-codes https://firebasestorage.googleapis.com/v0/b/<bucket> as Storage's
`storage_bucket` attribute and builds every URL from it, so pointing that attribute at the
emulator is the whole redirection; nothing else in its request path changes.
"""

from __future__ import annotations

import time

import pyrebase
from common import Stopwatch, file_arguments, main, many_arguments, report, small_objects


def storage_for(args):
    firebase = pyrebase.initialize_app({
        "apiKey": "bench", "authDomain": "bench.firebaseapp.com",
        "databaseURL": "https://bench.firebaseio.com", "storageBucket": args.bucket})
    storage = firebase.storage()
    storage.storage_bucket = f"http://{args.address}/v0/b/{args.bucket}"
    return storage


def put_file(args) -> None:
    storage = storage_for(args)
    started = time.perf_counter()
    storage.child(args.object).put(args.file)
    report(time.perf_counter() - started)


def put_many(args) -> None:
    objects = small_objects(args.prefix, args.count, args.size)
    storage = storage_for(args)
    stopwatch = Stopwatch()
    for name, data in objects:
        storage.child(name).put(data)
    stopwatch.report()


if __name__ == "__main__":
    main(__doc__, {"put-file": (put_file, file_arguments), "put-many": (put_many, many_arguments)})
