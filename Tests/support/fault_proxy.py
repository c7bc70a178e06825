#!/usr/bin/env python3
"""A TCP proxy that cuts connections at random byte offsets (Python stdlib only).

Each accepted connection is forwarded to the upstream address. With ``mean_cut_bytes`` set,
every connection is doomed: it is aborted (both sides) once a random number of bytes has gone
through in one direction. That is usually client-to-server bytes, an exponentially distributed
offset of mean ``mean_cut_bytes`` (a request cut mid-body, on average once per that many bytes
sent); for a ``response_cut_share`` of connections it is server-to-client bytes, up to
``max_cut_response`` (a lost or truncated response). With ``tls_cert``/``tls_key`` it also terminates TLS on the listening
side, so it can serve https in front of a plain-http server.

As a relay on a test network (Tests/netlab) it also adds, while transfers run: a one-way
``delay`` with ``jitter`` in each direction (order kept: a chunk never overtakes the one before),
a ``stall`` (nothing moves either way for some seconds) and ``reset_all`` (every connection
aborted with a TCP reset).

In-process use (the soak test)::

    proxy = FaultProxy(("127.0.0.1", emulator_port), mean_cut_bytes=8 << 20)
    port = proxy.start()                      # runs its event loop on a thread
    proxy.set_upstream(("127.0.0.1", other))  # e.g. after the server restarted
    proxy.stats                               # connections, cuts by direction, bytes by direction
    proxy.stop()

Command line (the C tests, the test network): ``fault_proxy.py --upstream HOST:PORT
[--mean-cut-bytes N] [--tls-cert PEM --tls-key PEM]`` listens on 127.0.0.1 (``--host``,
``--port``, default 0: a free one), prints ``READY <port>`` and runs until stdin reaches EOF, so
it never outlives its parent. Lines on stdin turn the knobs: ``delay MS JITTER_MS``, ``stall
SECONDS``, ``reset [MIN_BYTES_DOWN]``; each is answered ``OK`` once in force.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import socket
import ssl
import struct
import sys
import threading
from dataclasses import dataclass, field

CHUNK = 64 * 1024
# A delayed direction holds at most this many chunks in flight (4 MiB): TCP's back pressure
# then reaches the sender, as a real path's queue would.
DELAYED_CHUNKS = 64


@dataclass
class ProxyStats:
    connections: int = 0
    upstream_refused: int = 0
    cuts_request: int = 0
    cuts_response: int = 0
    resets: int = 0
    stalls: int = 0
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
        self.delay = 0.0
        self.jitter = 0.0
        self._stalled_until = 0.0
        # Client transport -> (its server transport, bytes sent to the client so far).
        self._pairs: dict[asyncio.BaseTransport, tuple[asyncio.BaseTransport, list[int]]] = {}

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

    def set_delay(self, delay: float, jitter: float = 0.0) -> None:
        """Each chunk goes on `delay` ± `jitter` seconds after it arrived, in each direction (so
        the round trip grows by twice that). Applies to connections accepted afterwards."""
        self.delay, self.jitter = delay, jitter

    def stall(self, seconds: float) -> None:
        """Nothing moves, either way, on any connection, for `seconds` from now."""
        assert self._loop is not None

        def begin() -> None:
            assert self._loop is not None
            self._stalled_until = max(self._stalled_until, self._loop.time() + seconds)
            self.stats.stalls += 1

        self._run_on_loop(begin)

    def reset_all(self, min_bytes_down: int = 0) -> None:
        """Aborts with a TCP reset (both sides) every open connection that has sent the client
        at least `min_bytes_down` bytes; returns once done."""

        def reset() -> None:
            for client, (server, moved) in list(self._pairs.items()):
                if moved[0] < min_bytes_down:
                    continue
                for transport in (client, server):
                    sock = transport.get_extra_info("socket")
                    if sock is not None:  # linger 0: close sends RST, not FIN
                        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    transport.abort()
            self.stats.resets += 1

        self._run_on_loop(reset)

    def _run_on_loop(self, function) -> None:
        assert self._loop is not None

        async def call() -> None:
            function()

        asyncio.run_coroutine_threadsafe(call(), self._loop).result(10)

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
            self._pairs[client_writer.transport] = (server_writer.transport, [0])
            cut = self._choose_cut()
            transports = (client_writer.transport, server_writer.transport)
            delay = (self.delay, self.jitter)
            await asyncio.gather(
                self._pump(client_reader, server_writer, True, cut, transports, delay),
                self._pump(server_reader, client_writer, False, cut, transports, delay),
                return_exceptions=True,
            )
            for transport in transports:
                transport.abort()
        finally:
            self._connections.discard(task)
            self._transports.discard(client_writer.transport)
            self._pairs.pop(client_writer.transport, None)
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
                    cut: _Cut | None, transports: tuple[asyncio.BaseTransport, ...],
                    delay: tuple[float, float]) -> None:
        """Copies reader to writer (through a delay line when `delay` is set); on EOF
        half-closes; at the cut, or when either side fails (a server killed mid-request resets),
        aborts both connections."""
        try:
            if delay[0] > 0:
                line: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue(DELAYED_CHUNKS)
                feeder = asyncio.ensure_future(self._delay(reader, line, transports, *delay))
                try:
                    await self._copy(_DelayedReader(line), writer, up, cut, transports)  # type: ignore[arg-type]
                finally:
                    feeder.cancel()
            else:
                await self._copy(reader, writer, up, cut, transports)
        except (ConnectionError, OSError):
            for transport in transports:
                transport.abort()

    async def _delay(self, reader: asyncio.StreamReader, line: asyncio.Queue[tuple[float, bytes]],
                     transports: tuple[asyncio.BaseTransport, ...], delay: float, jitter: float) -> None:
        """Stamps each chunk read with when it may go on; b"" (EOF, or the read side failed:
        then both connections are aborted) goes last."""
        loop = asyncio.get_running_loop()
        due = 0.0
        try:
            while data := await reader.read(CHUNK):
                due = max(due, loop.time() + delay + self._random.uniform(-jitter, jitter))
                await line.put((due, data))
        except (ConnectionError, OSError):
            for transport in transports:
                transport.abort()
        await line.put((due, b""))

    async def _held(self) -> None:
        """Waits out a stall."""
        loop = asyncio.get_running_loop()
        while (left := self._stalled_until - loop.time()) > 0:
            await asyncio.sleep(left)

    async def _copy(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, up: bool,
                    cut: _Cut | None, transports: tuple[asyncio.BaseTransport, ...]) -> None:
        while True:
            data = await reader.read(CHUNK)
            await self._held()
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
            if not up and (pair := self._pairs.get(writer.transport)) is not None:
                pair[1][0] += len(data)
            if cut is not None and cut.up == up:
                cut.moved[0] += len(data)
            await writer.drain()

    def _count(self, up: bool, n: int) -> None:
        if up:
            self.stats.bytes_up += n
        else:
            self.stats.bytes_down += n


class _DelayedReader:
    """The reading end of a delay line: each chunk once its time has come."""

    def __init__(self, line: asyncio.Queue[tuple[float, bytes]]) -> None:
        self._line = line

    async def read(self, _size: int) -> bytes:
        due, data = await self._line.get()
        left = due - asyncio.get_running_loop().time()
        if left > 0:
            await asyncio.sleep(left)
        return data


def _serve_commands(proxy: FaultProxy) -> None:
    """Turns the knobs named on stdin, one command a line, until EOF."""
    for line in sys.stdin:
        command, *values = line.split()
        if command == "delay":
            proxy.set_delay(float(values[0]) / 1000, float(values[1]) / 1000 if len(values) > 1 else 0.0)
        elif command == "stall":
            proxy.stall(float(values[0]))
        elif command == "reset":
            proxy.reset_all(int(values[0]) if values else 0)
        else:
            print(f"ERROR unknown command {command!r}", flush=True)
            continue
        print("OK", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", required=True, help="HOST:PORT to forward to")
    parser.add_argument("--host", default="127.0.0.1")
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
    proxy = FaultProxy((host.strip("[]"), int(port)), args.mean_cut_bytes, seed=args.seed, tls=tls)
    print(f"READY {proxy.start(host=args.host, port=args.port)}", flush=True)
    _serve_commands(proxy)  # until the parent closes stdin or dies
    proxy.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
