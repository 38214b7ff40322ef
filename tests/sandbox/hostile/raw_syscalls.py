"""Hostile: denied system calls made straight through libc's syscall(), past any Python wrapper.

Each call uses arguments under which an unfiltered kernel would answer with something other than
EPERM (success, ESRCH, EFAULT...), so an EPERM answer can only come from the seccomp filter. A
child created by an unfiltered fork or clone exits at once.
"""
import ctypes
import os
import platform

# x86_64 numbers: fork, clone, kill, ptrace, setuid, keyctl, unshare, io_uring_setup
CALLS = {
    "fork": (57,),
    "clone": (56, 17, 0, 0, 0, 0),  # SIGCHLD, no new stack: behaves like fork
    "kill-self-probe": (62, "self", 0),  # signal 0 to itself: only checks
    "ptrace-getregs": (101, 12, 999999, 0, 0),  # no such process: ESRCH when allowed
    "setuid-same": (105, "uid"),
    "keyctl-get-id": (250, 0, -1, 0),  # KEYCTL_GET_KEYRING_ID of the thread keyring, no create
    "unshare-nothing": (272, 0),
    "io_uring_setup": (425, 1, 0),  # no params: EFAULT when allowed
}


def act(message):
    if platform.machine() != "x86_64":
        return {"results": {"arch": platform.machine()}}
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    results = {}
    for name, call in CALLS.items():
        args = [os.getpid() if a == "self" else os.getuid() if a == "uid" else int(a) for a in call]
        ctypes.set_errno(0)
        rc = libc.syscall(*[ctypes.c_long(a) for a in args])
        if rc == 0 and name in ("fork", "clone") and os.getpid() != _PID:
            os._exit(0)  # the child of an unfiltered fork
        if rc > 0 and name in ("fork", "clone"):
            os.waitpid(rc, 0)
        results[name] = "ok" if rc >= 0 else "error:%d" % ctypes.get_errno()
    return {"results": results}


_PID = os.getpid()
