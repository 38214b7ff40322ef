"""Probe: reports whether fork, threads and kill are possible (run before the bombs that rely on them being denied)."""
import os
import threading


def act(message):
    results = {"uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(),
               "userns": os.readlink("/proc/self/ns/user")}
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        results["fork"] = "allowed"
    except OSError as exc:
        results["fork"] = "error:%d" % exc.errno
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
        results["kill-parent-0"] = "error:%d" % exc.errno
    with open("/proc/self/status") as f:
        results["status"] = {k: v.strip() for k, v in (l.split(":", 1) for l in f) if k in ("Seccomp", "NoNewPrivs", "CapEff", "CapPrm", "CapAmb", "CapBnd")}
    return {"results": results}
