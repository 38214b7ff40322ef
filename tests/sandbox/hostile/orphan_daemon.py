"""Hostile: double fork + setsid, leaving a daemon that outlives the game if nobody kills it. With the mode
"zombie-leader" the daemon also starts a second thread and ends its main thread alone (a raw ``exit`` system call,
not ``exit_group``): /proc then shows the daemon as a zombie with an empty command line while the thread runs on.
The reply gives the daemon's pid (read back through a pipe)."""
import ctypes
import os
import platform
import threading
import time

#: the ``exit`` system call (one thread), by machine
SYS_EXIT = {"x86_64": 60, "aarch64": 93}


def spin():
    while True:
        time.sleep(0.05)


def daemon(mode, report):
    if mode == "zombie-leader":
        threading.Thread(target=spin).start()
    os.write(report, str(os.getpid()).encode())
    os.close(report)
    if mode == "zombie-leader":
        ctypes.CDLL(None, use_errno=True).syscall(SYS_EXIT[platform.machine()], 0)
    spin()


def act(message):
    mode = message.get("mode", "plain")
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError as exc:
        os.close(read_end)
        os.close(write_end)
        return {"daemon": f"error:{exc.errno}"}
    if pid == 0:
        os.close(read_end)
        os.setsid()
        if os.fork() == 0:
            daemon(mode, write_end)
        os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    with os.fdopen(read_end, "rb") as pipe:
        said = pipe.read()
    return {"daemon": "started", "pid": int(said)}
