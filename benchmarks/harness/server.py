"""A local HTTP server process for the benchmarks: started on a free port, measured from outside.

The server prints `READY http://HOST:PORT` once it accepts connections and stops when its stdin
closes, so it cannot outlive us.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


class ServerProcess:
    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self._proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
        line = self._proc.stdout.readline()
        if not line.startswith("READY http://"):
            self.stop()
            raise RuntimeError(f"{' '.join(argv[1:3])} did not start: {line!r}")
        self.address = line.split("http://", 1)[1].strip()   # host:port

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    def cpu_seconds(self) -> float:
        """CPU time (user + sys) the server's running threads have used so far, to the
        nanosecond (/proc/PID/task/*/schedstat; /proc/PID/stat counts 10 ms ticks, ±3% over a
        0.3 s run)."""
        total = 0
        for task in Path(f"/proc/{self._proc.pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except FileNotFoundError:  # a thread that just ended
                continue
        return total / 1e9

    def rss_mib(self) -> float:
        """The server's resident memory now."""
        with open(f"/proc/{self._proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS in /proc status")

    def stop(self) -> None:
        # Closing stdin is the clean stop (SIGTERM can race a stdin-watching thread at exit).
        self._proc.stdin.close()
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.terminate()
            self._proc.wait(timeout=30)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
