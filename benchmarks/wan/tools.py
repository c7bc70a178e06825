"""How each tool is started on the link, and a run of one timed from outside.

Every tool gets the same link, the same names (firebasestorage.test through the relay and the
HTTP/2 front) and the same CA. `IN_FLIGHT`: the set-up's uploads (straight to the emulator).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import time
from pathlib import Path

from .link import BUCKET, CLIENTS, STORAGE_HOST, WanLink

IN_FLIGHT = 16
BENCH_DIR = CLIENTS.parent


class ToolFailed(RuntimeError):
    pass


@dataclasses.dataclass(frozen=True)
class Run:
    seconds: float          # the tool's own timing of its work when it reports one, else the process's
    wall_seconds: float     # the whole process, start-up included
    protocols: dict[str, int]  # requests by HTTP version, from the front's log
    report: dict
    server_busy: float      # the server side's CPU (emulator, nginx, relay) over the wall time


@dataclasses.dataclass
class Tools:
    link: WanLink
    build_dir: Path
    bench_python: str       # the venv with gcsfs, gsutil, google-cloud-storage, pyarrow
    library: Path
    scratch: Path
    count: int              # small objects
    object_bytes: int = 4096
    bucket: str = BUCKET

    def environment(self) -> dict[str, str]:
        env = self.link.environment()
        env.update(FBSTORAGE_LIBRARY=str(self.library), BOTO_CONFIG=str(self.boto_config()),
                   PYTHONPATH=f"{CLIENTS}:{CLIENTS.parents[1] / 'bindings' / 'python'}",
                   # gcsfs first asks each bucket's layout over gRPC (storage-control), which the
                   # emulator does not serve: 60 s of retries per bucket. Its switch turns it off.
                   GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT="false")
        return env

    def boto_config(self) -> Path:
        """gsutil's configuration: the JSON API at the link's front, its CA, no credentials."""
        path = self.scratch / "boto.cfg"
        if not path.exists():
            path.write_text(f"[Credentials]\ngs_json_host = {STORAGE_HOST}\ngs_json_port = {self.link.relay.port}\n"
                            f"[Boto]\nhttps_validate_certificates = True\nca_certificates_file = {self.link.ca_file}\n"
                            "[GSUtil]\nprefer_api = json\ndefault_project_id = demo-project\n"
                            "software_update_check_period = 0\n")
        return path

    def run(self, argv: list[object], timeout: float = 900) -> Run:
        argv = [str(a) for a in argv]
        self.link.front.protocols()  # what came before is not this run's
        server_cpu = self.link.server_cpu_seconds()
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=self.environment(), timeout=timeout)
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise ToolFailed(f"{' '.join(argv[:3])}... exited {done.returncode}: "
                             f"{(done.stderr or done.stdout).strip()[-1500:]}")
        report = {}
        lines = done.stdout.strip().splitlines()
        if lines and lines[-1].startswith("{"):
            report = json.loads(lines[-1])
        server_busy = (self.link.server_cpu_seconds() - server_cpu) / wall
        return Run(float(report.get("seconds", wall)), wall, dict(self.link.front.protocols()), report,
                   round(server_busy, 2))

    # -- command lines ---------------------------------------------------------------------------
    def c(self, program: str, *arguments: object) -> list[object]:
        return [self.build_dir / program, self.link.endpoint, BUCKET, *arguments]

    def fbstorage_cli(self, *arguments: object) -> list[object]:
        return [self.bench_python, "-m", "fbstorage", "--endpoint", self.link.endpoint,
                "--ca-file", self.link.ca_file, *arguments]

    def rclone(self, in_flight: int, *arguments: object) -> list[object]:
        return ["rclone", "--config", "/dev/null", "--gcs-endpoint", self.link.endpoint, "--gcs-anonymous",
                "--gcs-no-check-bucket", "--transfers", in_flight, "--checkers", in_flight, *arguments]

    def gsutil(self, *arguments: object) -> list[object]:
        return [Path(self.bench_python).parent / "gsutil", "-q", *arguments]

    def python(self, script: str, *arguments: object) -> list[object]:
        return [self.bench_python, CLIENTS / script, *arguments]

    def peers(self, *arguments: object) -> list[object]:
        return self.python("wan_peers.py", arguments[0], self.link.endpoint, BUCKET, *arguments[1:])
