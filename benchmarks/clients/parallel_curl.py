"""The peer of the scale workload's parallel uploads: COUNT `curl -T` processes at once.

  parallel_curl.py URL_PREFIX FILE COUNT

Each process PUTs FILE to URL_PREFIX<i> (i = 0 .. COUNT-1). Prints {"seconds": S}, from
the first start to the last exit; the launcher's CPU counts every curl (they are its children).
"""

from __future__ import annotations

import argparse
import subprocess
import time

from common import report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url_prefix")
    parser.add_argument("file")
    parser.add_argument("count", type=int)
    args = parser.parse_args()
    started = time.perf_counter()
    uploads = [subprocess.Popen(["curl", "-sS", "--fail", "-o", "/dev/null", "-T", args.file,
                                 f"{args.url_prefix}{index}"]) for index in range(args.count)]
    failed = [upload.args[-1] for upload in uploads if upload.wait() != 0]
    if failed:
        raise SystemExit(f"curl failed for {', '.join(failed)}")
    report(time.perf_counter() - started)


if __name__ == "__main__":
    main()
