"""Workload 2: many small objects, fbstorage (sequential, 16 in flight) against Python loops and
the floor: a raw libcurl C client sending the same multipart POSTs, 16 in flight (curl multi,
keep-alive).

Client CPU per object, fbstorage with 16 in flight (keys): fbstorage_c_cpu_ms_per_object,
fbstorage_python_cpu_ms_per_object, raw_libcurl_cpu_ms_per_object, pyrebase4_cpu_ms_per_object.
These count the CPU of the uploads alone (`work_cpu_ms`: each client's process CPU time over its
timed loop, every thread); `client_cpu_ms` is the whole process's, start-up and imports included.
"""

from __future__ import annotations

from harness.context import Context
from harness.stats import alternate, medians, summarize

IN_FLIGHT = 16


def run(ctx: Context) -> dict:
    shape = (ctx.mode.small_count, ctx.mode.small_size)

    def python_client(script: str, prefix: str, *flags: object):
        return lambda: ctx.measure(
            lambda: ctx.python_client(script, "put-many", prefix, *shape, *flags))

    def c_client(program: str, prefix: str, in_flight: int):
        return lambda: ctx.measure(lambda: ctx.c_client(program, prefix, *shape, in_flight))

    # fbstorage from Python (the peers' language) and from C (the library without the binding).
    peers = {
        "fbstorage_seq": python_client("fbstorage_client.py", "small/seq"),
        "fbstorage_concurrent": python_client("fbstorage_client.py", "small/concurrent",
                                              "--in-flight", IN_FLIGHT),
        "fbstorage_c_seq": c_client("put_many", "small/c-seq", 1),
        "fbstorage_c_concurrent": c_client("put_many", "small/c-concurrent", IN_FLIGHT),
        "raw_libcurl": c_client("curl_put_many", "small/raw-libcurl", IN_FLIGHT),
        "pyrebase4": python_client("pyrebase_client.py", "small/pyrebase4"),
        "requests_session": python_client("requests_client.py", "small/requests"),
    }
    stats = summarize(alternate(peers, ctx.mode.small_repeats, ctx.emulator.reset), {
        "ops": lambda m: ctx.mode.small_count / m.client.seconds,
        # Per object, the client's and the emulator's CPU: on 2 shared cores their sum bounds the rate.
        "client_cpu_ms": lambda m: 1000 * m.client.cpu_seconds / ctx.mode.small_count,
        "work_cpu_ms": lambda m: 1000 * m.client.report["work_cpu_seconds"] / ctx.mode.small_count,
        "emulator_cpu_ms": lambda m: 1000 * m.emulator_cpu_seconds / ctx.mode.small_count,
        "emulator_busy": lambda m: m.emulator_busy,
    })
    figures = medians(stats)
    cpu_per_object = {f"{name}_cpu_ms_per_object": figures[f"{peer}_work_cpu_ms"] for name, peer in
                      [("fbstorage_c", "fbstorage_c_concurrent"), ("fbstorage_python", "fbstorage_concurrent"),
                       ("raw_libcurl", "raw_libcurl"), ("pyrebase4", "pyrebase4")]}
    return {**figures, **cpu_per_object, "objects": shape[0], "object_bytes": shape[1],
            "in_flight": IN_FLIGHT, "stats": stats}
