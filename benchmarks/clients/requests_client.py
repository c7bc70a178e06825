"""A hand-written requests.Session loop: keep-alive, one request per object or page.

  put-many HOST:PORT BUCKET PREFIX COUNT SIZE   one media POST per object
  list-pages HOST:PORT BUCKET PREFIX            GET every page (1000 per page) of a listing
"""

from __future__ import annotations

import time
from urllib.parse import quote

import requests
from common import Stopwatch, main, many_arguments, prefix_argument, report, small_objects


def put_many(args) -> None:
    objects = small_objects(args.prefix, args.count, args.size)
    base = f"http://{args.address}/v0/b/{args.bucket}/o?name="
    headers = {"Content-Type": "application/octet-stream"}
    with requests.Session() as session:
        stopwatch = Stopwatch()
        for name, data in objects:
            session.post(base + quote(name, safe=""), data=data, headers=headers).raise_for_status()
        stopwatch.report()


def list_pages(args) -> None:
    url = f"http://{args.address}/v0/b/{args.bucket}/o"
    params = {"prefix": args.prefix.rstrip("/") + "/", "delimiter": "/", "maxResults": "1000"}
    items = []
    with requests.Session() as session:
        started = time.perf_counter()
        while True:
            reply = session.get(url, params=params)
            reply.raise_for_status()
            page = reply.json()
            items.extend(item["name"] for item in page.get("items", []))
            if "nextPageToken" not in page:
                break
            params["pageToken"] = page["nextPageToken"]
        report(time.perf_counter() - started, items=len(items))


if __name__ == "__main__":
    main(__doc__, {"put-many": (put_many, many_arguments), "list-pages": (list_pages, prefix_argument)})
