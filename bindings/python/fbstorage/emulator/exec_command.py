"""`python -m fbstorage.emulator exec [options] -- CMD…`: run CMD against a running emulator, as
`firebase emulators:exec` does, and exit with its status.

The command gets the variables that point the SDKs at the emulators; SIGINT and SIGTERM sent to
the emulator go to the command, and the emulator stops (exporting, with --export-on-exit) once
the command has exited.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal

log = logging.getLogger("fbstorage.emulator")
COMMAND_NOT_FOUND = 127


def split_exec_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    """`exec [options] -- CMD…` (or `exec CMD…`) → (options, command)."""
    rest = argv[1:]
    if "--" in rest:
        split = rest.index("--")
        options, command = rest[:split], rest[split + 1:]
    else:
        options, command = [], rest
    if not command:
        raise ValueError("usage: python -m fbstorage.emulator exec [options] -- COMMAND [ARGS…]")
    return options, command


def emulator_environment(addresses: dict[str, str], project: str) -> dict[str, str]:
    """The variables the Firebase and Google SDKs read; `addresses` maps "storage" and "auth" to
    `host:port`."""
    return {"FIREBASE_STORAGE_EMULATOR_HOST": addresses["storage"],
            "STORAGE_EMULATOR_HOST": f"http://{addresses['storage']}",
            "FIREBASE_AUTH_EMULATOR_HOST": addresses["auth"],
            "GCLOUD_PROJECT": project}


async def run_command(command: list[str], variables: dict[str, str]) -> int:
    """Run `command` to its end with `variables` added to the environment; its exit status
    (128 + N when signal N ended it, as shells report it)."""
    try:
        process = await asyncio.create_subprocess_exec(*command, env={**os.environ, **variables})
    except OSError as error:
        log.error("cannot run %s: %s", command[0], error.strerror or error)
        return COMMAND_NOT_FOUND
    loop = asyncio.get_running_loop()
    forwarded = (signal.SIGINT, signal.SIGTERM)
    for signum in forwarded:
        loop.add_signal_handler(signum, _forward, process, signum)
    try:
        status = await process.wait()
    finally:
        for signum in forwarded:
            loop.remove_signal_handler(signum)
    return 128 - status if status < 0 else status


def _forward(process: asyncio.subprocess.Process, signum: int) -> None:
    if process.returncode is None:
        process.send_signal(signum)
