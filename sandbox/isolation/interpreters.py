"""Interpreter discovery: the Python that runs bots, and the folders the sandbox must show it."""
from __future__ import annotations

import functools
import os
import subprocess
import sys
from dataclasses import dataclass

from ..values import SandboxError


@dataclass(frozen=True)
class Interpreter:
    """The Python used for bots: its executable and the directories it needs."""

    executable: str
    prefixes: tuple[str, ...]
    same_as_parent: bool  # marshalled code from this process is loadable there


@functools.lru_cache(maxsize=8)
def interpreter(path: str | None = None) -> Interpreter:
    """Describe the bot interpreter (default: this one); asks a foreign interpreter once, with a deadline."""
    exe = os.path.realpath(path or sys.executable)
    if not os.access(exe, os.X_OK):
        raise SandboxError(f"bot interpreter not executable: {exe!r}")
    if exe == os.path.realpath(sys.executable):
        prefixes = {sys.base_prefix, sys.base_exec_prefix}
        same = True
    else:
        try:
            out = subprocess.run(
                [exe, "-I", "-S", "-c", "import sys;print(sys.base_prefix);print(sys.base_exec_prefix)"],
                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10, env={}, check=True,
            ).stdout.split()
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxError(f"cannot query bot interpreter {exe!r}: {exc}") from exc
        prefixes = set(out)
        same = False
    return Interpreter(exe, tuple(sorted(os.path.realpath(p) for p in prefixes)), same)
