"""HTTP load on the v0 API from keep-alive connections (aiohttp's client), for measuring a server's
CPU per request: the requests are built before the clock starts and replies are read, not checked
beyond their status.

  uploads HOST:PORT BUCKET PREFIX COUNT SIZE [--connections N]
      COUNT multipart uploads of SIZE random bytes (the form fbstorage sends: a JSON metadata
      part, then the data part), spread over N connections
  gcs-uploads HOST:PORT BUCKET PREFIX COUNT SIZE [--connections N]
      the same objects through the GCS JSON API (`uploadType=media`): how the workloads fill a
      bucket of the emulator's or of fake-gcs-server's
  list-pages HOST:PORT BUCKET PREFIX COUNT [--connections N]
      COUNT list pages of 1000: each connection walks the listing under PREFIX page by page
      (following nextPageToken) and starts over at its end

--save-reply FILE keeps the body of the first reply (the workload gives the floor server the
emulator's own replies).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from urllib.parse import quote

import aiohttp

from common import main, many_arguments, prefix_argument, report, small_objects

BOUNDARY = "0123456789abcdef0123456789abcdef"


def multipart_body(name: str, data: bytes) -> bytes:
    metadata = json.dumps({"name": name, "contentType": "application/octet-stream"})
    return (f'--{BOUNDARY}\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{metadata}\r\n--{BOUNDARY}\r\n'
            f'Content-Type: application/octet-stream\r\n\r\n').encode() + data + f"\r\n--{BOUNDARY}--".encode()


async def spread(count: int, connections: int, one_request) -> float:
    """Run `one_request(session, index, state)` for every index, N at a time over N connections;
    `state` is a dict per connection."""
    next_index = iter(range(count))
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=connections)) as session:
        async def worker() -> None:
            state: dict = {}
            for index in next_index:
                await one_request(session, index, state)
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(connections)))
        return time.perf_counter() - started


def uploads(args) -> None:
    url = f"http://{args.address}/v0/b/{args.bucket}/o"
    headers = {"X-Goog-Upload-Protocol": "multipart",
               "Content-Type": f"multipart/related; boundary={BOUNDARY}"}
    requests = [(f"{url}?name={quote(name, safe='')}", multipart_body(name, data))
                for name, data in small_objects(args.prefix, args.count, args.size)]

    async def upload(session: aiohttp.ClientSession, index: int, _state: dict) -> None:
        target, body = requests[index]
        async with session.post(target, data=body, headers=headers) as reply:
            checked(reply.status, await reply.read(), args.save_reply)

    report(asyncio.run(spread(args.count, args.connections, upload)), requests=args.count)


def gcs_uploads(args) -> None:
    url = f"http://{args.address}/upload/storage/v1/b/{quote(args.bucket, safe='')}/o?uploadType=media&name="
    requests = [(url + quote(name, safe=""), data) for name, data in small_objects(args.prefix, args.count, args.size)]

    async def upload(session: aiohttp.ClientSession, index: int, _state: dict) -> None:
        target, body = requests[index]
        async with session.post(target, data=body, headers={"Content-Type": "application/octet-stream"}) as reply:
            checked(reply.status, await reply.read(), args.save_reply)

    report(asyncio.run(spread(args.count, args.connections, upload)), requests=args.count)


def list_pages(args) -> None:
    url = f"http://{args.address}/v0/b/{args.bucket}/o"

    async def page(session: aiohttp.ClientSession, _index: int, state: dict) -> None:
        params = {"prefix": args.prefix + "/", "maxResults": "1000"}
        if state.get("token"):
            params["pageToken"] = state["token"]
        async with session.get(url, params=params) as reply:
            state["token"] = json.loads(checked(reply.status, await reply.read(), args.save_reply)).get("nextPageToken")

    report(asyncio.run(spread(args.count, args.connections, page)), requests=args.count)


def checked(status: int, body: bytes, save_to: str | None) -> bytes:
    if status != 200:
        raise RuntimeError(f"answered {status}: {body[:200]!r}")
    if save_to and not os.path.exists(save_to):
        with open(save_to, "wb") as file:
            file.write(body)
    return body


def load_arguments(command) -> None:
    command.add_argument("--connections", type=int, default=8, help="keep-alive connections")
    command.add_argument("--save-reply", help="write the first reply's body here")


if __name__ == "__main__":
    main(__doc__, {
        "uploads": (uploads, lambda c: (many_arguments(c), load_arguments(c))),
        "gcs-uploads": (gcs_uploads, lambda c: (many_arguments(c), load_arguments(c))),
        "list-pages": (list_pages, lambda c: (prefix_argument(c), c.add_argument("count", type=int),
                                              load_arguments(c))),
    })
