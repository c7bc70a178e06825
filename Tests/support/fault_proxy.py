#!/usr/bin/env python3
"""A TCP proxy that cuts connections at random byte offsets (Python stdlib only).

Each accepted connection is forwarded to the upstream address. With ``mean_cut_bytes`` set,
every connection is doomed: it is aborted (both sides) once a random number of bytes has gone
through in one direction. That is usually client-to-server bytes, an exponentially distributed
offset of mean ``mean_cut_bytes`` (a request cut mid-body, on average once per that many bytes
sent); for a ``response_cut_share`` of connections it is server-to-client bytes, up to
``max_cut_response`` (a lost or truncated response). With ``tls_cert``/``tls_key`` it also terminates TLS on the listening
side, so it can serve https in front of a plain-http server.

In-process use (the soak test)::

    proxy = FaultProxy(("127.0.0.1", emulator_port), mean_cut_bytes=8 << 20)
    port = proxy.start()                      # runs its event loop on a thread
    proxy.set_upstream(("127.0.0.1", other))  # e.g. after the server restarted
    proxy.stats                               # connections, cuts by direction, bytes by direction
    proxy.stop()

Command line (the C tests): ``fault_proxy.py --upstream HOST:PORT [--mean-cut-bytes N]
[--tls-cert PEM --tls-key PEM]`` listens on 127.0.0.1 (``--port``, default 0: a free one),
prints ``READY <port>`` and runs until stdin reaches EOF, so it never outlives its parent.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import ssl
import sys
import threading
from dataclasses import dataclass, field

CHUNK = 64 * 1024


@dataclass
class ProxyStats:
    connections: int = 0
    upstream_refused: int = 0
    cuts_request: int = 0
    cuts_response: int = 0
    bytes_up: int = 0
    bytes_down: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class _Cut:
    """Where a doomed connection is cut: after `offset` bytes going `up` (or down)."""

    up: bool
    offset: int
    moved: list[int] = field(default_factory=lambda: [0])


class FaultProxy:
    def __init__(
        self,
        upstream: tuple[str, int],
        mean_cut_bytes: int | None = None,
        response_cut_share: float = 0.2,
        max_cut_response: int = 4096,
        seed: int | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.upstream = upstream
        self.mean_cut_bytes = mean_cut_bytes
        self.response_cut_share = response_cut_share
        self.max_cut_response = max_cut_response
        self.stats = ProxyStats()
        self._random = random.Random(seed)
        self._tls = tls
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._transports: set[asyncio.BaseTransport] = set()
        self._planned_cuts: list[_Cut] = []

    # -- lifecycle ------------------------------------------------------------------------
    def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Starts listening on a thread of its own; returns the port."""
        started = threading.Event()
        self._loop = asyncio.new_event_loop()

        def run() -> None:
            assert self._loop is not None
            asyncio.set_event_loop(self._loop)
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._serve, host, port, ssl=self._tls)
            )
            started.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="fault-proxy", daemon=True)
        self._thread.start()
        started.wait()
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    def stop(self) -> None:
        """Closes the listener and every connection, and joins the thread."""
        if not self._loop:
            return

        async def close() -> None:
            assert self._server is not None
            self._server.close()
            for transport in list(self._transports):  # ends the pumps (cancelling them makes asyncio complain)
                transport.abort()
            await asyncio.gather(*self._connections, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(close(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        assert self._thread is not None
        self._thread.join(10)
        self._loop.close()
        self._loop = None

    def cut_next_connection(self, after_request_bytes: int) -> None:
        """Doom the next connection accepted: it is cut once that many bytes went to the server
        (a request cut at a chosen point, for tests that need one exactly there)."""
        self._planned_cuts.append(_Cut(up=True, offset=after_request_bytes))

    def set_upstream(self, upstream: tuple[str, int]) -> None:
        """New connections go to `upstream` (existing ones keep theirs)."""
        self.upstream = upstream

    # -- one connection -------------------------------------------------------------------
    async def _serve(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        self._transports.add(client_writer.transport)
        self.stats.connections += 1
        server_writer = None
        try:
            try:
                server_reader, server_writer = await asyncio.open_connection(*self.upstream)
            except OSError:
                self.stats.upstream_refused += 1
                client_writer.transport.abort()
                return
            self._transports.add(server_writer.transport)
            cut = self._choose_cut()
            transports = (client_writer.transport, server_writer.transport)
            await asyncio.gather(
                self._pump(client_reader, server_writer, True, cut, transports),
                self._pump(server_reader, client_writer, False, cut, transports),
                return_exceptions=True,
            )
            for transport in transports:
                transport.abort()
        finally:
            self._connections.discard(task)
            self._transports.discard(client_writer.transport)
            if server_writer is not None:
                self._transports.discard(server_writer.transport)

    def _choose_cut(self) -> _Cut | None:
        if self._planned_cuts:
            return self._planned_cuts.pop(0)
        if not self.mean_cut_bytes:
            return None
        if self._random.random() < self.response_cut_share:
            return _Cut(up=False, offset=self._random.randint(0, self.max_cut_response))
        return _Cut(up=True, offset=int(self._random.expovariate(1 / self.mean_cut_bytes)))

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, up: bool,
                    cut: _Cut | None, transports: tuple[asyncio.BaseTransport, ...]) -> None:
        """Copies reader to writer; on EOF half-closes; at the cut, or when either side fails
        (a server killed mid-request resets), aborts both connections."""
        try:
            await self._copy(reader, writer, up, cut, transports)
        except (ConnectionError, OSError):
            for transport in transports:
                transport.abort()

    async def _copy(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, up: bool,
                    cut: _Cut | None, transports: tuple[asyncio.BaseTransport, ...]) -> None:
        while True:
            data = await reader.read(CHUNK)
            if not data:
                if writer.can_write_eof():
                    writer.write_eof()
                return
            if cut is not None and cut.up == up and cut.moved[0] + len(data) >= cut.offset:
                keep = cut.offset - cut.moved[0]
                writer.write(data[:keep])
                self._count(up, keep)
                await writer.drain()
                if up:
                    self.stats.cuts_request += 1
                else:
                    self.stats.cuts_response += 1
                for transport in transports:
                    transport.abort()
                return
            writer.write(data)
            self._count(up, len(data))
            if cut is not None and cut.up == up:
                cut.moved[0] += len(data)
            await writer.drain()

    def _count(self, up: bool, n: int) -> None:
        if up:
            self.stats.bytes_up += n
        else:
            self.stats.bytes_down += n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", required=True, help="HOST:PORT to forward to")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--mean-cut-bytes", type=int)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    args = parser.parse_args()
    host, _, port = args.upstream.rpartition(":")
    tls = None
    if args.tls_cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.tls_cert, args.tls_key)
    proxy = FaultProxy((host, int(port)), args.mean_cut_bytes, seed=args.seed, tls=tls)
    print(f"READY {proxy.start(port=args.port)}", flush=True)
    sys.stdin.read()  # until the parent closes stdin or dies
    proxy.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
