"""Many small objects over the link: COUNT × 4 KiB up and down, each tool with its parallelism.

`curl_parallel` is the measured floor of the path (link, relay, front, emulator): curl's own
parallel transfers, the same requests, nothing else. The bound the link alone allows: with N
requests in flight and one round trip per object (a multipart upload, a GET), N / RTT objects a
second, and never more than the link's bytes (link_mibps / object size). Tools whose uploads take more round trips (a resumable start and
its chunk) or that keep fewer in flight are bound lower.
"""

from __future__ import annotations

import os
import shutil

from .tools import IN_FLIGHT, ToolFailed, Tools


def curl_parallel(tools: Tools, name: str, transfers: list[list[str]]) -> list[object]:
    """The floor of the path: curl's own parallel transfers (-Z, 16 at once, multiplexed over
    HTTP/2), the same requests as fbstorage's, no client logic. A config file lists them."""
    config = tools.scratch / f"curl-{name}.conf"
    config.write_text("".join("\n".join(f'{option} = "{value}"' for option, value in zip(transfer[::2], transfer[1::2]))
                              + "\nfail\nsilent\nshow-error\nnext\n" for transfer in transfers))
    return ["curl", "--parallel", "--parallel-max", IN_FLIGHT, "--config", config]


def uploads(tools: Tools) -> dict[str, object]:
    endpoint = f"{tools.link.endpoint}/v0/b/{tools.bucket}/o?name="
    return {
        "curl_parallel": lambda d, p: curl_parallel(tools, "up", [
            ["url", f"{endpoint}{p.replace('/', '%2F')}%2F{n:05d}", "upload-file", f"{d}/{n:05d}",
             "request", "POST", "header", "Content-Type: application/octet-stream", "output", "/dev/null"]
            for n in range(tools.count)]),
        "fbstorage_c": lambda d, p: tools.c("put_many", p, tools.count, tools.object_bytes, IN_FLIGHT),
        "fbstorage_cli": lambda d, p: tools.fbstorage_cli("cp", "-r", "-j", IN_FLIGHT, f"{d}/",
                                                          f"gs://{tools.bucket}/{p}/"),
        "rclone": lambda d, p: tools.rclone("copy", d, f":gcs:{tools.bucket}/{p}"),
        "gsutil": lambda d, p: tools.gsutil("-m", "cp", "-r", d, f"gs://{tools.bucket}/{p}/"),
        "gcsfs": lambda d, p: tools.peers("gcsfs-put", d, p),
        "transfer_manager": lambda d, p: tools.peers("tm-upload", d, p, IN_FLIGHT),
    }


def downloads(tools: Tools) -> dict[str, object]:
    endpoint = f"{tools.link.endpoint}/v0/b/{tools.bucket}/o/"
    return {
        "curl_parallel": lambda p, d: curl_parallel(tools, "down", [
            ["url", f"{endpoint}{p.replace('/', '%2F')}%2F{n:05d}?alt=media", "output", f"{d}/{n:05d}"]
            for n in range(tools.count)]),
        "fbstorage_c": lambda p, d: tools.c("get_many", p, tools.count, IN_FLIGHT),
        "fbstorage_cli": lambda p, d: tools.fbstorage_cli("cp", "-r", "-j", IN_FLIGHT, f"gs://{tools.bucket}/{p}/",
                                                          f"{d}/"),
        "rclone": lambda p, d: tools.rclone("copy", f":gcs:{tools.bucket}/{p}", d),
        "gsutil": lambda p, d: tools.gsutil("-m", "cp", "-r", f"gs://{tools.bucket}/{p}/*", d),
        "gcsfs": lambda p, d: tools.peers("gcsfs-get", p, d),
        "transfer_manager": lambda p, d: tools.peers("tm-download", p, d, IN_FLIGHT),
    }


def run(tools: Tools, seeded_prefix: str, rtt_ms: float, link_mibps: float) -> dict:
    source = tools.scratch / "small-source"
    source.mkdir(exist_ok=True)
    for index in range(tools.count):
        (source / f"{index:05d}").write_bytes(os.urandom(tools.object_bytes))
    up, down, failed, protocols, busy = {}, {}, {}, {}, {}
    for tool, command in uploads(tools).items():
        try:
            run = tools.run(command(source, f"small-up/{tool}"))
            up[tool] = round(tools.count / run.seconds, 1)
            protocols[f"{tool}_up"] = run.protocols
            busy[f"{tool}_up"] = run.server_busy
        except ToolFailed as error:
            failed[f"{tool}_up"] = str(error)
    for tool, command in downloads(tools).items():
        target = tools.scratch / f"small-down-{tool}"
        target.mkdir(exist_ok=True)
        try:
            run = tools.run(command(seeded_prefix, target))
            down[tool] = round(tools.count / run.seconds, 1)
            protocols[f"{tool}_down"] = run.protocols
            busy[f"{tool}_down"] = run.server_busy
        except ToolFailed as error:
            failed[f"{tool}_down"] = str(error)
        shutil.rmtree(target, ignore_errors=True)
    bound = min(IN_FLIGHT / (rtt_ms / 1000), link_mibps * (1 << 20) / tools.object_bytes)
    return {"small_up_per_s": up, "small_down_per_s": down, "small_failed": failed,
            "small_protocols": protocols, "small_server_busy": busy,
            "small_objects": tools.count, "small_object_bytes": tools.object_bytes,
            "small_in_flight": IN_FLIGHT,
            "small_bound_per_s": round(bound, 1),
            "small_bound": f"{IN_FLIGHT} in flight / {rtt_ms:g} ms RTT (one round trip per object)"}
