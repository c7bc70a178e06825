"""Many small objects over the link: COUNT × 4 KiB up and down, each tool with its parallelism:
at 16 and at 64 in flight where it has a knob (fbstorage's tasks and cp -j, rclone --transfers,
transfer_manager's threads, curl --parallel-max), its own default where it has none (gsutil -m,
gcsfs's batches). A tool's figure is its best; the figures at each concurrency are kept.

`curl_parallel` is the measured floor of the path (link, relay, front, emulator): curl's own
parallel transfers, the same requests, nothing else. The bound the link alone allows: with N
requests in flight and one round trip per object (a multipart upload, a GET), N / RTT objects a
second, and never more than the link's bytes (link_mibps / object size). Tools whose uploads take more round trips (a resumable start and
its chunk) or that keep fewer in flight are bound lower.
"""

from __future__ import annotations

import os
import shutil

from .tools import ToolFailed, Tools

IN_FLIGHTS = (16, 64)
KNOBLESS = ("gsutil", "gcsfs")  # as harness/wan_report.py names them


def curl_parallel(tools: Tools, name: str, in_flight: int, transfers: list[list[str]]) -> list[object]:
    """The floor of the path: curl's own parallel transfers (multiplexed over HTTP/2), the same
    requests as fbstorage's, no client logic. A config file lists them."""
    config = tools.scratch / f"curl-{name}.conf"
    blocks = ["".join(f'{option} = "{value}"\n' for option, value in zip(transfer[::2], transfer[1::2])) + "fail\n"
              for transfer in transfers]
    config.write_text("next\n".join(blocks))
    return ["curl", "--silent", "--show-error", "--parallel", "--parallel-max", in_flight, "--config", config]


def uploads(tools: Tools) -> dict[str, object]:
    """tool: (directory, prefix, in flight) -> argv."""
    endpoint = f"{tools.link.endpoint}/v0/b/{tools.bucket}/o?name="
    return {
        "curl_parallel": lambda d, p, n: curl_parallel(tools, "up", n, [
            ["url", f"{endpoint}{p.replace('/', '%2F')}%2F{i:05d}", "upload-file", f"{d}/{i:05d}",
             "request", "POST", "header", "Content-Type: application/octet-stream", "output", "/dev/null"]
            for i in range(tools.count)]),
        "fbstorage_c": lambda d, p, n: tools.c("put_many", p, tools.count, tools.object_bytes, n),
        "fbstorage_cli": lambda d, p, n: tools.fbstorage_cli("cp", "-r", "-j", n, f"{d}/", f"gs://{tools.bucket}/{p}/"),
        "rclone": lambda d, p, n: tools.rclone(n, "copy", d, f":gcs:{tools.bucket}/{p}"),
        "gsutil": lambda d, p, n: tools.gsutil("-m", "cp", "-r", d, f"gs://{tools.bucket}/{p}/"),
        "gcsfs": lambda d, p, n: tools.peers("gcsfs-put", d, p),
        "transfer_manager": lambda d, p, n: tools.peers("tm-upload", d, p, n),
    }


def downloads(tools: Tools) -> dict[str, object]:
    """tool: (prefix, directory, in flight) -> argv."""
    endpoint = f"{tools.link.endpoint}/v0/b/{tools.bucket}/o/"
    return {
        "curl_parallel": lambda p, d, n: curl_parallel(tools, "down", n, [
            ["url", f"{endpoint}{p.replace('/', '%2F')}%2F{i:05d}?alt=media", "output", f"{d}/{i:05d}"]
            for i in range(tools.count)]),
        "fbstorage_c": lambda p, d, n: tools.c("get_many", p, tools.count, n),
        "fbstorage_cli": lambda p, d, n: tools.fbstorage_cli("cp", "-r", "-j", n, f"gs://{tools.bucket}/{p}/", f"{d}/"),
        "rclone": lambda p, d, n: tools.rclone(n, "copy", f":gcs:{tools.bucket}/{p}", d),
        "gsutil": lambda p, d, n: tools.gsutil("-m", "cp", "-r", f"gs://{tools.bucket}/{p}/*", d),
        "gcsfs": lambda p, d, n: tools.peers("gcsfs-get", p, d),
        "transfer_manager": lambda p, d, n: tools.peers("tm-download", p, d, n),
    }


def run(tools: Tools, seeded_prefix: str, rtt_ms: float, link_mibps: float) -> dict:
    source = tools.scratch / "small-source"
    source.mkdir(exist_ok=True)
    for index in range(tools.count):
        (source / f"{index:05d}").write_bytes(os.urandom(tools.object_bytes))
    rates: dict[str, dict[int, dict[str, float]]] = {"up": {}, "down": {}}
    failed, protocols, busy = {}, {}, {}
    for way, commands in (("up", uploads(tools)), ("down", downloads(tools))):
        for in_flight in IN_FLIGHTS:
            for tool, command in commands.items():
                if tool in KNOBLESS and in_flight != IN_FLIGHTS[0]:
                    continue
                run_name = f"{tool}_{way}" + ("" if tool in KNOBLESS else f"_{in_flight}")
                target = tools.scratch / f"small-{run_name}"
                target.mkdir(exist_ok=True)
                try:
                    run = tools.run(command(source, f"small-up/{run_name}", in_flight) if way == "up"
                                    else command(seeded_prefix, target, in_flight))
                    rates[way].setdefault(in_flight, {})[tool] = round(tools.count / run.seconds, 1)
                    protocols[run_name] = run.protocols
                    busy[run_name] = run.server_busy
                except ToolFailed as error:
                    failed[run_name] = str(error)
                shutil.rmtree(target, ignore_errors=True)

    def best(way: str) -> dict[str, float]:
        tools_seen = {tool for by_tool in rates[way].values() for tool in by_tool}
        return {tool: max(by_tool[tool] for by_tool in rates[way].values() if tool in by_tool) for tool in tools_seen}

    def bound(in_flight: int) -> float:
        return round(min(in_flight / (rtt_ms / 1000), link_mibps * (1 << 20) / tools.object_bytes), 1)

    return {"small_up_per_s": best("up"), "small_down_per_s": best("down"),
            **{f"small_{way}_per_s_at": {str(n): by_tool for n, by_tool in rates[way].items()} for way in rates},
            "small_failed": failed, "small_protocols": protocols, "small_server_busy": busy,
            "small_objects": tools.count, "small_object_bytes": tools.object_bytes,
            "small_bound_per_s": {str(n): bound(n) for n in IN_FLIGHTS},
            "small_bound": f"N in flight / {rtt_ms:g} ms RTT (one round trip per object)"}
