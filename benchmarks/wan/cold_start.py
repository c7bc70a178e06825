"""Cold start: a fresh process signs in (anonymously, Auth through its relay) and uploads 4 KiB
(Storage through the relay and the front), in round trips of the link. Each run is a new
process: a new DNS lookup, TCP and TLS handshake, sign-in and upload."""

from __future__ import annotations

import statistics

from .tools import Tools

RUNS = 3


def run(tools: Tools, rtt_ms: float) -> dict:
    host, port = tools.link.auth_address
    runs = [tools.run([tools.build_dir / "cold_start", f"{host}:{port}", tools.link.endpoint, tools.bucket,
                       f"cold/{n}", 4096]) for n in range(RUNS)]
    seconds = statistics.median(run.seconds for run in runs)
    sign_in = statistics.median(run.report["sign_in_seconds"] for run in runs)
    return {"cold_start_rtts": round(seconds * 1000 / rtt_ms, 2),
            "cold_start_sign_in_rtts": round(sign_in * 1000 / rtt_ms, 2),
            "cold_start_s": round(seconds, 3)}
