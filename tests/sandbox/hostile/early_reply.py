"""Writes its reply line itself, straight to the runner's private stdout, and goes on running after
it: the referee has its answer, but the bot is not done. The tests set ROLE:

- "spin": computes for SPIN_S seconds of CPU, hoping to think on other players' time without any
  timer (the runner then writes a second line, which the referee sees as output outside a request).
  The tests measure its CPU while another bot of its table is asked.
- "wait": waits on a futex in a page of a file every sandbox binds (the same inode everywhere, so the
  same futex key) with a timeout of WAIT_S: a waiter is a bit another sandbox can read.
- "wake": at each decision wakes that futex and puts how many waiters it woke in its reply
  (``woke``), playing an illegal action if it woke any, so that a real table shows the channel as
  status "illegal".
"""
import ctypes
import fcntl
import json
import os
import stat
import time

ROLE = "spin"
SPIN_S = 1.0
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
    """The runner's private copy of stdout: a pipe open for writing that is not stderr."""
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


def _futex(op, value, timeout=None):
    return _LIBC.syscall(SYS_FUTEX, ctypes.c_void_p(_ADDR), op, value, timeout, None, 0)


def act(message):
    if message.get("type") == "hello":
        return {"type": "ready"}
    if message.get("type") != "decide":
        return None
    options = message.get("options") or [{"type": "pass"}]
    reply = {"id": message.get("id"), "action": options[0]}
    if ROLE == "wake":
        reply["woke"] = _futex(FUTEX_WAKE, 1)
        if reply["woke"] > 0:  # -1: the wake was refused
            reply["action"] = {"type": "plant", "field": 99}  # illegal on purpose: the channel worked
        return reply
    fd = _reply_pipe()
    if fd is None:
        return reply
    os.write(fd, (json.dumps(reply) + "\n").encode())
    if ROLE == "spin":
        end = time.process_time() + SPIN_S
        while time.process_time() < end:
            pass
    else:
        timeout = TimeSpec(int(WAIT_S), int(WAIT_S % 1 * 1e9))
        _futex(FUTEX_WAIT, ctypes.c_int.from_address(_ADDR).value, ctypes.byref(timeout))
    return reply
