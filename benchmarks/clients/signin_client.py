"""Sign-in as a benchmark client: fbstorage.Auth against the emulator's Auth routes (its storage
port serves them).

  sign-in HOST:PORT BUCKET COUNT   anonymous sign-in, the first upload, then COUNT more small
                                   uploads; reports each latency and the requests the emulator
                                   counted by kind (Auth calls, storage calls)
"""

from __future__ import annotations

import json
import time
import urllib.request

import fbstorage
from common import main, report


def emulator_requests(address: str) -> list[dict]:
    with urllib.request.urlopen(f"http://{address}/_emulator/requests") as reply:
        return json.load(reply)["requests"]


def clear_requests(address: str) -> None:
    request = urllib.request.Request(f"http://{address}/_emulator/requests", method="DELETE")
    urllib.request.urlopen(request).close()


def sign_in(args) -> None:
    host, port = args.address.rsplit(":", 1)
    clear_requests(args.address)
    with fbstorage.Auth("bench-api-key", project_id="demo-project") as auth, \
            fbstorage.Storage(args.bucket, auth=auth) as storage:
        auth.use_emulator(host, int(port))
        storage.use_emulator(host, int(port))
        started = time.perf_counter()
        user = auth.sign_in_anonymously()
        signed_in = time.perf_counter()
        storage.reference(f"users/{user.uid}/first").put_data(b"x" * 1024).wait()
        first_upload = time.perf_counter()
        for index in range(args.count):
            storage.reference(f"users/{user.uid}/{index}").put_data(b"x" * 1024).wait()
        finished = time.perf_counter()
    requests = emulator_requests(args.address)
    auth_calls = sum(1 for r in requests if "googleapis.com/" in r["path"])
    report(finished - started, sign_in_ms=1000 * (signed_in - started),
           first_upload_ms=1000 * (first_upload - signed_in),
           upload_ms=1000 * (finished - first_upload) / max(args.count, 1),
           auth_requests=auth_calls, storage_requests=len(requests) - auth_calls, uploads=args.count + 1)


def configure(command) -> None:
    command.add_argument("count", type=int)


if __name__ == "__main__":
    main(__doc__, {"sign-in": (sign_in, configure)})
