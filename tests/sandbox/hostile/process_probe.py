"""Probe: reports whether fork, threads and kill are possible (run before the bombs that rely on them being denied);
its filter, capabilities and namespace are read from the outside (the strong tier leaves it no /proc)."""
import os
import threading
from typing import Any


def act(message):
    results: dict[str, Any] = {
        "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "proc": os.path.exists("/proc/self")}
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        results["fork"] = "allowed"
    except OSError as exc:
        results["fork"] = f"error:{exc.errno}"
    try:
        t = threading.Thread(target=lambda: None)
        t.start()
        t.join()
        results["thread"] = "allowed"
    except RuntimeError as exc:
        results["thread"] = "error:" + str(exc)
    try:
        os.kill(os.getppid(), 0)
        results["kill-parent-0"] = "allowed"
    except OSError as exc:
        results["kill-parent-0"] = f"error:{exc.errno}"
    return {"results": results}
