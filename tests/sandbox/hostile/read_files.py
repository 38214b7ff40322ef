"""Hostile: tries to read files it must not see (paths come in the request) and the referee's /proc."""
import os


def _try(path):
    try:
        if os.path.isdir(path):
            return "ok:" + ",".join(sorted(os.listdir(path)))[:2000]
        with open(path, "rb") as f:
            return "ok:" + f.read(4000).decode("utf-8", "replace")
    except Exception as exc:  # noqa: BLE001
        return "error:" + type(exc).__name__


def act(message):
    paths = list(message.get("paths", []))
    paths += ["/proc/1/cmdline", "/proc/1/environ", "/proc/self/environ", "/work", "/tmp", "/root", "/etc/passwd"]
    ppid = os.getppid()
    for pid in {ppid, ppid - 1, ppid - 2} - {0}:
        paths += [f"/proc/{pid}/environ", f"/proc/{pid}/cmdline", f"/proc/{pid}/fd"]
    for pid in message.get("pids", []):
        paths += [f"/proc/{pid}/environ", f"/proc/{pid}/cmdline", f"/proc/{pid}/fd/0", f"/proc/{pid}/root/etc/hostname"]
    return {"results": {p: _try(p) for p in paths}}
