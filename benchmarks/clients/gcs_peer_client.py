"""google-cloud-storage against a GCS JSON API server (the emulator's or fake-gcs-server's), for the
peer_emulator workload. Runs in the test venv (it has google-cloud-storage).

  small-uploads HOST:PORT BUCKET PREFIX COUNT SIZE   blob.upload_from_string, one after another
  resumable-put HOST:PORT BUCKET FILE OBJECT         blob.upload_from_filename, CHUNK_BYTES chunks
  download HOST:PORT BUCKET FILE OBJECT              blob.download_to_filename (checksum checked)
  list-pages HOST:PORT BUCKET PREFIX                 every page of 1000 under PREFIX (delimiter "/")

list-pages times each page's request and JSON parse (the page iterator fetching the next page),
not the Blob objects google-cloud-storage makes of the items afterwards, and reports
{"seconds": all pages, "pages": N, "items": M, "page_ms": [...]}.
"""

from __future__ import annotations

import os
import time

from common import file_arguments, main, many_arguments, prefix_argument, report, small_objects

CHUNK_BYTES = 16 << 20   # as the issue measured it; google-cloud-storage's default is 100 MiB
PAGE_SIZE = 1000


def client(address: str):
    os.environ["STORAGE_EMULATOR_HOST"] = f"http://{address}"
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import storage
    return storage.Client(project="bench", credentials=AnonymousCredentials())


def small_uploads(args) -> None:
    bucket = client(args.address).bucket(args.bucket)
    objects = small_objects(args.prefix, args.count, args.size)
    started = time.perf_counter()
    for name, data in objects:
        bucket.blob(name).upload_from_string(data, content_type="application/octet-stream")
    report(time.perf_counter() - started, objects=len(objects))


def resumable_put(args) -> None:
    blob = client(args.address).bucket(args.bucket).blob(args.object, chunk_size=CHUNK_BYTES)
    started = time.perf_counter()
    blob.upload_from_filename(args.file)
    report(time.perf_counter() - started, size=blob.size)


def download(args) -> None:
    blob = client(args.address).bucket(args.bucket).blob(args.object)
    started = time.perf_counter()
    blob.download_to_filename(args.file)
    report(time.perf_counter() - started, size=os.path.getsize(args.file))


def list_pages(args) -> None:
    pages = client(args.address).list_blobs(args.bucket, prefix=args.prefix + "/", delimiter="/",
                                            page_size=PAGE_SIZE).pages
    page_ms, items = [], 0
    while True:
        started = time.perf_counter()
        page = next(pages, None)
        if page is None:
            break
        page_ms.append(1000 * (time.perf_counter() - started))
        items += page.num_items
    report(sum(page_ms) / 1000, pages=len(page_ms), items=items, page_ms=page_ms)


if __name__ == "__main__":
    main(__doc__, {"small-uploads": (small_uploads, many_arguments),
                   "resumable-put": (resumable_put, file_arguments),
                   "download": (download, file_arguments),
                   "list-pages": (list_pages, prefix_argument)})
