"""Listing every object under a prefix (seeded beforehand, off the link), each tool its way."""

from __future__ import annotations

from .tools import IN_FLIGHT, ToolFailed, Tools


def run(tools: Tools, prefix: str, count: int) -> dict:
    bucket = tools.bucket
    commands = {
        "fbstorage_c": tools.c("list_all", prefix),
        "fbstorage_cli": tools.fbstorage_cli("ls", "-r", f"gs://{bucket}/{prefix}/"),
        "rclone": tools.rclone(IN_FLIGHT, "lsf", "-R", "--fast-list", f":gcs:{bucket}/{prefix}"),
        "gsutil": tools.gsutil("ls", f"gs://{bucket}/{prefix}/**"),
        "gcsfs": tools.peers("gcsfs-list", prefix),
        "google_cloud_storage": tools.peers("gcs-list", prefix),
    }
    seconds, failed = {}, {}
    for tool, argv in commands.items():
        try:
            run = tools.run(argv)
            listed = run.report.get("items", count)  # the CLIs print names, not a count
            if listed != count:
                raise ToolFailed(f"listed {listed} of {count} objects")
            seconds[tool] = round(run.seconds, 3)
        except ToolFailed as error:
            failed[tool] = str(error)
    return {f"list_{count}_s": seconds, "list_failed": failed, "list_objects": count}
