"""Tries a channel through a futex on a page of a shared read-only file (the same inode in every
sandbox, so the same futex key). ROLE "wait": at each decision it writes its reply itself, straight
to the runner's private stdout, then waits on the futex with a timeout of WAIT_S (a waiter is a bit
the other side can read). ROLE "wake": at each decision it wakes that futex and puts how many
waiters it woke in its reply (``woke``), and plays an illegal action if it woke any, so that a
real table shows the channel as status "illegal". The tests rewrite ROLE.
"""
import ctypes
import json
import os
import stat
import fcntl

ROLE = "wait"
WAIT_S = 1.0
SHARED = os.__file__
SYS_FUTEX, FUTEX_WAIT, FUTEX_WAKE = 202, 0, 1  # x86-64
PROT_READ, MAP_SHARED = 1, 1


class TimeSpec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.mmap.restype = ctypes.c_void_p
_LIBC.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
_LIBC.syscall.restype = ctypes.c_long
_FD = os.open(SHARED, os.O_RDONLY)
_ADDR = _LIBC.mmap(None, 4096, PROT_READ, MAP_SHARED, _FD, 0)


def _reply_pipe():
    err = os.fstat(2).st_ino
    for fd in range(3, 64):
        try:
            info = os.fstat(fd)
            mode = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE
        except OSError:
            continue
        if stat.S_ISFIFO(info.st_mode) and mode == os.O_WRONLY and info.st_ino != err:
            return fd
    return None


def act(message):
    if message.get("type") == "hello":
        return {"type": "ready"}
    if message.get("type") != "decide":
        return None
    options = message.get("options") or [{"type": "pass"}]
    reply = {"id": message.get("id"), "action": options[0]}
    if ROLE == "wake":
        reply["woke"] = _LIBC.syscall(SYS_FUTEX, ctypes.c_void_p(_ADDR), FUTEX_WAKE, 1, None, None, 0)
        if reply["woke"]:
            reply["action"] = {"type": "plant", "field": 99}  # illegal on purpose: the channel worked
        return reply
    fd = _reply_pipe()
    if fd is not None:
        os.write(fd, (json.dumps(reply) + "\n").encode())
        value = ctypes.c_int.from_address(_ADDR).value
        timeout = TimeSpec(int(WAIT_S), int(WAIT_S % 1 * 1e9))
        _LIBC.syscall(SYS_FUTEX, ctypes.c_void_p(_ADDR), FUTEX_WAIT, value, ctypes.byref(timeout), None, 0)
    return reply
