"""Workload "signin": an anonymous sign-in through the emulator's Auth routes, the first upload
as that user, then more small uploads; the emulator counts the requests, so the report shows that
a fresh token costs no extra request per operation (one Auth call in all: the sign-in)."""

from __future__ import annotations

import statistics

from harness.context import Context

UPLOADS = 200


def run(ctx: Context) -> dict:
    runs = []
    for _ in range(ctx.mode.small_repeats):
        ctx.emulator.reset()
        runs.append(ctx.python_client("signin_client.py", "sign-in", UPLOADS).report)
    median = lambda key: statistics.median(run[key] for run in runs)  # noqa: E731
    return {"sign_in_ms": median("sign_in_ms"), "first_upload_ms": median("first_upload_ms"),
            "upload_ms": median("upload_ms"),
            "auth_requests": max(run["auth_requests"] for run in runs),
            "storage_requests_per_upload": max(run["storage_requests"] / run["uploads"] for run in runs),
            "uploads": UPLOADS + 1, "runs": len(runs)}
