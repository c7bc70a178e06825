#!/usr/bin/env python3
"""Fault soak: many uploads through a connection-cutting proxy, 503/429 bursts and an emulator
restart, every stored object compared with its file (MD5).

    soak.py [--uploads 200] [--max-mib 16] [--mean-cut-mib 16] [--concurrency 3] [--seed 7] [--report FILE]

Uploads of random sizes (0 .. max, chunk 256 KiB) go to a `--data-dir` emulator through
Tests/support/fault_proxy.py, which cuts connections at random byte offsets (once per
--mean-cut-MiB sent on average, some of them while a response comes back).
Every few uploads a burst of 503 or 429 (2 to 4 replies with Retry-After: 1) is injected through the emulator's
control API. Halfway, the emulator is killed (SIGKILL) while uploads are in flight and started
again on the same data dir: their sessions are gone, so they start over. Each upload must
complete byte-identical, or fail with RETRY_LIMIT_EXCEEDED naming its cause. Prints the figures
(and writes them as JSON with --report); exits 1 when an object differs or an upload failed
otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "support"))

import fbstorage  # noqa: E402
from fbstorage.testing import run_emulator  # noqa: E402

from attempts import AttemptLog, UploadLog, bytes_resent  # noqa: E402
from fault_proxy import FaultProxy  # noqa: E402

BUCKET = "soak-bucket"
KIB, MIB = 1024, 1024 * 1024
CHUNK = 256 * KIB
MULTIPART_THRESHOLD = 256 * KIB
RETRY_TIME = 120.0


def random_sizes(count: int, max_bytes: int, rng: random.Random) -> list[int]:
    """Edge sizes first (empty, one byte, around the multipart limit and a chunk), then random:
    a fifth small enough for one multipart request, the rest anywhere up to max_bytes."""
    edges = [0, 1, MULTIPART_THRESHOLD, MULTIPART_THRESHOLD + 1, 2 * CHUNK, max_bytes]
    sizes = edges[: min(count, len(edges))]
    while len(sizes) < count:
        small = rng.random() < 0.2
        sizes.append(rng.randint(0, MULTIPART_THRESHOLD) if small else rng.randint(1, max_bytes))
    return sizes


def write_file(folder: Path, index: int, size: int, seed: int) -> tuple[Path, str]:
    path = folder / f"{index:06d}.bin"
    data = random.Random(seed * 1_000_003 + index).randbytes(size)
    path.write_bytes(data)
    return path, hashlib.md5(data).hexdigest()


def stored_md5(emulator_url: str, name: str) -> str | None:
    escaped = urllib.parse.quote(name, safe="")
    try:
        with urllib.request.urlopen(f"{emulator_url}/_emulator/objects/{BUCKET}/{escaped}", timeout=60) as response:
            digest = hashlib.md5()
            while block := response.read(1 << 20):
                digest.update(block)
            return digest.hexdigest()
    except urllib.error.HTTPError:
        return None


class Soak:
    def __init__(self, args: argparse.Namespace, folder: Path) -> None:
        self.args = args
        self.folder = folder
        self.rng = random.Random(args.seed)
        self.sizes = random_sizes(args.uploads, args.max_mib * MIB, self.rng)
        self.log = AttemptLog()
        self.results: dict[int, tuple[str, str]] = {}  # index -> (outcome, detail)
        self.done = 0
        self.done_lock = threading.Condition()
        self.bursts = {"HTTP 503": 0, "HTTP 429": 0}
        self.restart_downtime = 0.0
        self.in_flight: dict[int, fbstorage.UploadTask] = {}

    def run(self) -> int:
        data_dir = self.folder / "data"
        with ExitStack() as stack:
            emulator = stack.enter_context(run_emulator("production", "--data-dir", str(data_dir)))
            proxy = FaultProxy((emulator.host, emulator.port), self.args.mean_cut_mib * MIB,
                               seed=self.args.seed)
            proxy_port = proxy.start()
            stack.callback(proxy.stop)
            fbstorage.set_log_handler(self.log)
            stack.callback(fbstorage.set_log_handler, None)
            storage = stack.enter_context(fbstorage.Storage(BUCKET))
            storage.use_emulator("127.0.0.1", proxy_port)
            storage.upload_chunk_size = CHUNK
            storage.max_upload_retry_time = RETRY_TIME
            storage.max_operation_retry_time = RETRY_TIME
            started = time.monotonic()
            with ThreadPoolExecutor(self.args.concurrency) as pool:
                futures = [pool.submit(self.upload, storage, i) for i in range(len(self.sizes))]
                emulator = self.disrupt(emulator, stack, proxy, data_dir)
                for future in futures:
                    future.result()
            elapsed = time.monotonic() - started
            identical = self.verify(emulator.url)
            report = self.report(proxy, identical, elapsed)
        print(json.dumps(report, indent=2))
        if self.args.report:
            Path(self.args.report).write_text(json.dumps(report, indent=2) + "\n")
        ok = report["byte_identical"] == report["completed"] and report["failed_otherwise"] == 0
        print("soak: PASS" if ok else "soak: FAIL", flush=True)
        return 0 if ok else 1

    # -- the uploads ----------------------------------------------------------------------
    def upload(self, storage: fbstorage.Storage, index: int) -> None:
        path, md5 = write_file(self.folder, index, self.sizes[index], self.args.seed)
        started = time.monotonic()
        try:
            task = storage.reference(f"soak/{index:06d}.bin").put_file(path)
            self.in_flight[index] = task
            task.wait()
            self.results[index] = ("completed", md5)
            if time.monotonic() - started > 10:
                print(f"soak/{index:06d}.bin took {time.monotonic() - started:.1f} s")
                self.print_log(index)
        except fbstorage.StorageError as error:
            clear = error.code == fbstorage.StorageErrorCode.RETRY_LIMIT_EXCEEDED and str(error)
            self.results[index] = ("deadline" if clear else "failed", str(error))
        finally:
            self.in_flight.pop(index, None)
            path.unlink()
            with self.done_lock:
                self.done += 1
                self.done_lock.notify_all()

    # -- the faults besides the proxy's cuts ----------------------------------------------
    def disrupt(self, emulator, stack: ExitStack, proxy: FaultProxy, data_dir: Path):
        """Injects a burst every few uploads, and restarts the emulator halfway; returns the
        emulator serving at the end."""
        count, bursts = len(self.sizes), self.args.bursts
        burst_at = {count * k // (bursts + 1): k for k in range(1, bursts + 1)}
        for milestone in sorted(set(burst_at) | {count // 2}):
            self.wait_done(milestone)
            if milestone == count // 2:
                emulator = self.restart(emulator, stack, proxy, data_dir)
            if milestone in burst_at:
                emulator.add_fault({"match": {"path_prefix": "/v0/"}, "times": self.rng.randint(2, 4),
                                    "action": {"status": 503 if burst_at[milestone] % 2 else 429,
                                               "retry_after": 1}})
        return emulator

    def restart(self, emulator, stack: ExitStack, proxy: FaultProxy, data_dir: Path):
        """Kills the emulator while an upload is past its first chunk; starts it again."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any(
            t.snapshot.bytes_transferred > CHUNK for t in list(self.in_flight.values())
        ):
            time.sleep(0.01)
        down = time.monotonic()
        emulator.process.kill()
        emulator.process.wait()
        time.sleep(1.0)  # clients see refused connections meanwhile
        emulator = stack.enter_context(run_emulator("production", "--data-dir", str(data_dir)))
        proxy.set_upstream((emulator.host, emulator.port))
        self.restart_downtime = time.monotonic() - down
        return emulator

    def wait_done(self, count: int) -> None:
        with self.done_lock:
            self.done_lock.wait_for(lambda: self.done >= count)

    # -- results --------------------------------------------------------------------------
    def verify(self, emulator_url: str) -> int:
        identical = 0
        for index, (outcome, md5) in sorted(self.results.items()):
            if outcome != "completed":
                continue
            got = stored_md5(emulator_url, f"soak/{index:06d}.bin")
            if got == md5:
                identical += 1
            else:
                print(f"soak/{index:06d}.bin ({self.sizes[index]} bytes): stored MD5 {got}, file MD5 {md5}")
                self.print_log(index)
        return identical

    def print_log(self, index: int) -> None:
        for line in self.log.uploads.get(index, UploadLog()).lines:
            print(f"    {line}")

    def report(self, proxy: FaultProxy, identical: int, elapsed: float) -> dict:
        uploads = [self.log.uploads.get(i) for i in range(len(self.sizes))]
        failed_by_kind: dict[str, int] = {}
        wasted_by_kind: dict[str, int] = {}
        for upload in filter(None, uploads):
            for kind, n in upload.failed_attempts.items():
                failed_by_kind[kind] = failed_by_kind.get(kind, 0) + n
            for kind, n in upload.wasted_by_kind.items():
                wasted_by_kind[kind] = wasted_by_kind.get(kind, 0) + n
        resent = sum(bytes_resent(u, self.sizes[i], MULTIPART_THRESHOLD)
                     for i, u in enumerate(uploads) if u and self.results[i][0] == "completed")
        outcomes = [outcome for outcome, _ in self.results.values()]
        stats = proxy.stats
        faults = {
            "connection_cuts_mid_request": stats.cuts_request,
            "connection_cuts_mid_response": stats.cuts_response,
            "http_503_injected": failed_by_kind.get("HTTP 503", 0),
            "http_429_injected": failed_by_kind.get("HTTP 429", 0),
            "emulator_restarts": 1 if self.restart_downtime else 0,
            "connections_refused_while_down": stats.upstream_refused,
        }
        total_faults = sum(faults.values())
        retries = sum(u.retries for u in uploads if u)
        for failed in (i for i, (o, _) in self.results.items() if o != "completed"):
            print(f"soak/{failed:06d}.bin ({self.sizes[failed]} bytes): {self.results[failed][1]}")
            self.print_log(failed)
        return {
            "uploads": len(self.sizes),
            "bytes_uploaded": sum(self.sizes),
            "seconds": round(elapsed, 1),
            "completed": outcomes.count("completed"),
            "byte_identical": identical,
            "failed_at_deadline": outcomes.count("deadline"),
            "failed_otherwise": outcomes.count("failed"),
            "faults": faults,
            "attempts": sum(u.attempts for u in uploads if u),
            "failed_attempts_by_cause": failed_by_kind,
            "retries": retries,
            "session_restarts": sum(u.restarts for u in uploads if u),
            "resumable_queries": sum(u.queries for u in uploads if u),
            "bytes_resent": resent,
            "bytes_in_failed_attempts_by_cause": wasted_by_kind,
            "per_fault": {
                "retries": round(retries / total_faults, 2) if total_faults else 0,
                "bytes_resent": resent // total_faults if total_faults else 0,
                "bytes_in_failed_attempt_by_cause": {
                    kind: wasted_by_kind.get(kind, 0) // n for kind, n in failed_by_kind.items() if n
                },
            },
            "proxy_bytes_up": stats.bytes_up,
            "restart_downtime_s": round(self.restart_downtime, 1),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=200)
    parser.add_argument("--max-mib", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=3)
    parser.add_argument("--bursts", type=int, default=10, help="bursts of 503 or 429 (2 to 4 replies each)")
    parser.add_argument("--mean-cut-mib", type=float, default=16,
                        help="the proxy cuts a connection on average once per this many MiB sent")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--report", help="also write the figures to this JSON file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fbs-soak-") as folder:
        return Soak(args, Path(folder)).run()


if __name__ == "__main__":
    sys.exit(main())
