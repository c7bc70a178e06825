"""Workload "emulator": the emulator's CPU per request against its floor, a bare aiohttp app on
asyncio's own event loop (clients/floor_server.py) that reads each upload's body and answers
fixed JSON: the emulator's own replies, so both send the same bytes.

Each server takes the same load from one client process (clients/http_load.py, 8 keep-alive
connections): UPLOADS multipart uploads of 4 KiB, then LIST_PAGES pages of 1000 from a listing of
those objects. A figure is the server process's user + sys CPU over a run (/proc), per request.
The emulator is the benchmark's own (on uvloop when installed, no rules: everything allowed); a
second one runs clients/bench.rules (keys rules_cpu_ms_per_*), and in full mode a third, started
with `--loop asyncio`, shows how much of the difference is the event loop.
"""

from __future__ import annotations

import contextlib
import os

from harness.context import BINDING, BUCKET, CLIENTS, Context
from harness.emulator import Emulator
from harness.server import ServerProcess
from harness.stats import alternate, ratio, summary

UPLOADS = 3000
LIST_PAGES = 300
CONNECTIONS = 8
OBJECT_BYTES = 4096
PREFIX = "emulator-cost"


def run(ctx: Context) -> dict:
    scratch = ctx.scratch / "emulator-cost"
    scratch.mkdir(exist_ok=True)
    upload_reply, list_reply = scratch / "upload-reply.json", scratch / "list-reply.json"
    python = ctx.emulator.python   # the test venv: aiohttp for the client and the floor

    def load(server: ServerProcess, command: str, count: int, *flags: object) -> float:
        """The server's CPU ms per request over one client run."""
        before = server.cpu_seconds()
        ctx.run([python, CLIENTS / "http_load.py", command, server.address, BUCKET, PREFIX,
                 *((count, OBJECT_BYTES) if command == "uploads" else (count,)),
                 "--connections", CONNECTIONS, *flags], ctx.python_env())
        return 1000 * (server.cpu_seconds() - before) / count

    with contextlib.ExitStack() as servers_running:
        ctx.emulator.reset()
        # Warm-up runs, which also store the objects the list pages show and save the replies
        # the floor sends.
        load(ctx.emulator, "uploads", UPLOADS, "--save-reply", upload_reply)
        load(ctx.emulator, "list-pages", CONNECTIONS, "--save-reply", list_reply)
        servers = {"emulator": ctx.emulator,
                   "emulator_rules": servers_running.enter_context(
                       Emulator(python, str(BINDING), str(scratch), "--rules", str(CLIENTS / "bench.rules")))}
        if ctx.mode.name == "full":
            servers["emulator_asyncio"] = servers_running.enter_context(
                Emulator(python, str(BINDING), str(scratch), "--loop", "asyncio"))
        servers["floor"] = servers_running.enter_context(ServerProcess(
            [python, str(CLIENTS / "floor_server.py"), str(upload_reply), str(list_reply)], dict(os.environ)))
        for name, server in servers.items():
            if name != "emulator":
                load(server, "uploads", UPLOADS)
        # Quick mode measures half as many requests (they overwrite the first half of the objects).
        measured = 1 if ctx.mode.name == "full" else 2
        uploads = alternate({name: lambda s=server: load(s, "uploads", UPLOADS // measured)
                             for name, server in servers.items()}, ctx.mode.small_repeats)
        pages = alternate({name: lambda s=server: load(s, "list-pages", LIST_PAGES // measured)
                           for name, server in servers.items()}, ctx.mode.small_repeats)
    stats = {name: {"cpu_ms_per_small_upload": summary(uploads[name]),
                    "cpu_ms_per_list_page": summary(pages[name])} for name in servers}
    figures = {}
    for metric in ("cpu_ms_per_small_upload", "cpu_ms_per_list_page"):
        for peer, key in (("emulator", metric), ("floor", f"floor_{metric}"),
                          ("emulator_rules", f"rules_{metric}"), ("emulator_asyncio", f"asyncio_{metric}")):
            if peer in stats:
                figures[key] = stats[peer][metric]["median"]
    return {**figures,
            "small_upload_cpu_vs_floor": ratio(figures["cpu_ms_per_small_upload"],
                                               figures["floor_cpu_ms_per_small_upload"]),
            "list_page_cpu_vs_floor": ratio(figures["cpu_ms_per_list_page"], figures["floor_cpu_ms_per_list_page"]),
            "rules_small_upload_cpu_vs_floor": ratio(figures["rules_cpu_ms_per_small_upload"],
                                                     figures["floor_cpu_ms_per_small_upload"]),
            "rules_list_page_cpu_vs_floor": ratio(figures["rules_cpu_ms_per_list_page"],
                                                  figures["floor_cpu_ms_per_list_page"]),
            "uploads": UPLOADS // measured, "object_bytes": OBJECT_BYTES, "list_pages": LIST_PAGES // measured,
            "connections": CONNECTIONS, "stats": stats}
