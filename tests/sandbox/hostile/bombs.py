"""Hostile (bounded): at most 50 forks, 50 threads, then kill(-1) and kill(parent). Only run where shown denied."""
import os
import signal
import threading
import time
from typing import Any


def act(message):
    results: dict[str, Any] = {"forks": 0, "threads": 0}  # the reply: counts, then each kill's outcome
    for _ in range(50):
        try:
            if os.fork() == 0:
                time.sleep(30)
                os._exit(0)
            results["forks"] += 1
        except OSError:
            pass
    for _ in range(50):
        try:
            threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
            results["threads"] += 1
        except RuntimeError:
            pass
    for name, target in (("kill-all", -1), ("kill-parent", os.getppid()), ("kill-init", 1)):
        try:
            os.kill(target, signal.SIGKILL)
            results[name] = "sent"
        except OSError as exc:
            results[name] = f"error:{exc.errno}"
    return {"results": results}
