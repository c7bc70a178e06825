"""The floor the emulator's cost is judged against: a bare aiohttp app on the stock asyncio loop.

  floor_server.py UPLOAD_REPLY LIST_REPLY

Every POST or PUT has its body read (`request.read()`) and gets UPLOAD_REPLY's bytes; every GET
gets LIST_REPLY's; both 200 application/json, fixed (the workload saves the emulator's own
replies there, so the floor sends the same number of bytes). Prints `READY http://HOST:PORT`
and stops when stdin closes.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from aiohttp import web


def create_app(upload_reply: bytes, list_reply: bytes) -> web.Application:
    async def upload(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(body=upload_reply, content_type="application/json")

    async def list_page(request: web.Request) -> web.Response:
        return web.Response(body=list_reply, content_type="application/json")

    app = web.Application()
    app.router.add_route("POST", "/{tail:.*}", upload)
    app.router.add_route("PUT", "/{tail:.*}", upload)
    app.router.add_route("GET", "/{tail:.*}", list_page)
    return app


async def serve(upload_reply: bytes, list_reply: bytes) -> None:
    runner = web.AppRunner(create_app(upload_reply, list_reply), access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        host, port = runner.addresses[0][:2]
        print(f"READY http://{host}:{port}", flush=True)
        # Stop when stdin closes: read it on the default executor, off the loop.
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.buffer.read)
    finally:
        await runner.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("upload_reply", type=Path)
    parser.add_argument("list_reply", type=Path)
    args = parser.parse_args()
    asyncio.run(serve(args.upload_reply.read_bytes(), args.list_reply.read_bytes()))
