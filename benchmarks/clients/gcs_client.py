"""One large file through the emulator's two resumable protocols, the same way on both sides:
google-cloud-storage (the GCS JSON API, as the Admin SDKs send it) and a requests loop of the
Firebase v0 protocol, both in chunks of CHUNK_BYTES, neither computing a checksum on the client
(google-cloud-storage's default CRC32C of every chunk is the client's work on these 2 shared
cores, not the emulator's; the emulator computes MD5 and CRC32C on both paths).

  gcs-put HOST:PORT BUCKET FILE OBJECT   blob.upload_from_filename (resumable, 308 per chunk)
  v0-put HOST:PORT BUCKET FILE OBJECT    v0 start, `upload` per chunk, `upload, finalize`

Runs in the test venv (it has google-cloud-storage), not the benchmark's peers venv.
"""

from __future__ import annotations

import os
import time

import requests
from common import file_arguments, main, report

CHUNK_BYTES = 100 << 20  # google-cloud-storage's default chunk size


def gcs_put(args) -> None:
    os.environ["STORAGE_EMULATOR_HOST"] = f"http://{args.address}"
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage

    client = storage.Client(project="bench", credentials=AnonymousCredentials())
    blob = client.bucket(args.bucket).blob(args.object, chunk_size=CHUNK_BYTES)
    started = time.perf_counter()
    blob.upload_from_filename(args.file, checksum=None)
    report(time.perf_counter() - started, size=blob.size)


def v0_put(args) -> None:
    size = os.path.getsize(args.file)
    with requests.Session() as session, open(args.file, "rb") as file:
        started = time.perf_counter()
        start = session.post(f"http://{args.address}/v0/b/{args.bucket}/o", params={"name": args.object}, json={},
                             headers={"X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                                      "X-Goog-Upload-Header-Content-Length": str(size)})
        start.raise_for_status()
        url = start.headers["X-Goog-Upload-URL"]
        offset = 0
        while offset < size:
            data = file.read(CHUNK_BYTES)
            last = offset + len(data) == size
            session.put(url, data=data, headers={"X-Goog-Upload-Command": "upload, finalize" if last else "upload",
                                                 "X-Goog-Upload-Offset": str(offset)}).raise_for_status()
            offset += len(data)
        report(time.perf_counter() - started, size=size)


if __name__ == "__main__":
    main(__doc__, {"gcs-put": (gcs_put, file_arguments), "v0-put": (v0_put, file_arguments)})
