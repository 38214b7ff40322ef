"""The runner's first part (sandbox/inside/runner.py): its exit codes, writing whole to a descriptor, and ending
with a word on stderr. Runs inside the bot's process in the runner's namespace; imports nothing of ours."""
from __future__ import annotations

import os

TYPE_CHECKING = False  # the type checker reads the import below; the runner never pays for typing
if TYPE_CHECKING:
    from typing import NoReturn

EXIT_BAD_BOT = 3  # import failed, no entry point, act raised, reply not serialisable
EXIT_BAD_BOOT = 4  # the referee sent something the runner cannot use (machine fault)


def die(code: int, text: str) -> NoReturn:
    try:
        os.write(2, ("runner: " + text + "\n").encode("utf-8", "replace"))
    finally:
        os._exit(code)


def write_all(fd: int, data: bytes) -> None:
    written = os.write(fd, data)  # a reply line fits the pipe: one write, no view
    if written < len(data):
        view = memoryview(data)[written:]
        while view:
            view = view[os.write(fd, view) :]
