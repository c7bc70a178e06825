"""The latency of one list page right after a write, over one keep-alive connection (http.client).

  pages HOST:PORT BUCKET PREFIX ROUNDS [--api v0|gcs]

Each round writes one small object outside PREFIX (a GCS media upload: the bucket has changed, so
nothing the server computed for the last page can answer this one), then times one GET of the
first page of 1000 under PREFIX (delimiter "/"), the reply read whole. Prints
{"seconds": total of the pages, "page_ms": [...], "items": of the last page}.
"""

from __future__ import annotations

import http.client
import json
import time
from urllib.parse import quote, urlencode

from common import main, prefix_argument, report


def pages(args) -> None:
    host, port = args.address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port))
    bucket = quote(args.bucket, safe="")
    query = {"prefix": args.prefix + "/", "delimiter": "/", "maxResults": "1000"}
    page_path = (f"/v0/b/{bucket}/o?" if args.api == "v0" else f"/storage/v1/b/{bucket}/o?") + urlencode(query)
    write_path = f"/upload/storage/v1/b/{bucket}/o?uploadType=media&name=" + quote("touched/object", safe="")

    def request(method: str, path: str, body: bytes | None = None) -> bytes:
        connection.request(method, path, body=body, headers={"Content-Type": "application/octet-stream"})
        reply = connection.getresponse()
        data = reply.read()
        if reply.status != 200:
            raise RuntimeError(f"{method} {path} answered {reply.status}: {data[:200]!r}")
        return data

    page_ms, items = [], 0
    for round_index in range(args.rounds):
        request("POST", write_path, str(round_index).encode())
        started = time.perf_counter()
        page = request("GET", page_path)
        page_ms.append(1000 * (time.perf_counter() - started))
        items = len(json.loads(page).get("items", []))
    report(sum(page_ms) / 1000, page_ms=page_ms, items=items)


def arguments(command) -> None:
    prefix_argument(command)
    command.add_argument("rounds", type=int)
    command.add_argument("--api", choices=("v0", "gcs"), default="v0")


if __name__ == "__main__":
    main(__doc__, {"pages": (pages, arguments)})
