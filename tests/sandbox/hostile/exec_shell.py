"""Hostile: tries to run a shell in every way Python offers."""
import os
import subprocess
from typing import Any


def act(message):
    results: dict[str, Any] = {}  # the reply: each way's exit code or error
    try:
        results["system"] = os.system("echo pwned > /tmp/bohnanza-shell")
    except Exception as exc:  # noqa: BLE001
        results["system"] = "error:" + type(exc).__name__
    try:
        results["subprocess"] = subprocess.run(["/bin/sh", "-c", "echo pwned"], capture_output=True,
                                               timeout=2).returncode
    except Exception as exc:  # noqa: BLE001
        results["subprocess"] = "error:" + type(exc).__name__
    try:
        os.execv("/bin/sh", ["sh", "-c", "echo pwned"])
    except Exception as exc:  # noqa: BLE001
        results["execv"] = "error:" + type(exc).__name__
    return {"results": results}
