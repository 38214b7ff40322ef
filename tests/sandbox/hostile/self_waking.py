"""Tries to think on other players' time: after each reply it arms a POSIX timer whose signal is
SIGCONT (a stopped process is continued by it), and a SIGCONT handler that then spins. The reply
says whether arming worked (``armed``); the tests measure its CPU time while it should be frozen.
"""
import ctypes
import signal
import time

SIGEV_SIGNAL = 0
CLOCK_MONOTONIC = 1


class SigEvent(ctypes.Structure):
    _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int), ("notify", ctypes.c_int),
                ("pad", ctypes.c_byte * 48)]


class TimeSpec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


class ITimerSpec(ctypes.Structure):
    _fields_ = [("interval", TimeSpec), ("value", TimeSpec)]


def spin(signum, frame):
    end = time.monotonic() + 0.05
    while time.monotonic() < end:
        pass


def arm() -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    event = SigEvent(None, signal.SIGCONT, SIGEV_SIGNAL)
    timer = ctypes.c_void_p()
    if libc.timer_create(CLOCK_MONOTONIC, ctypes.byref(event), ctypes.byref(timer)) != 0:
        return ctypes.get_errno()
    spec = ITimerSpec(TimeSpec(0, 2_000_000), TimeSpec(0, 2_000_000))
    if libc.timer_settime(timer, 0, ctypes.byref(spec), None) != 0:
        return ctypes.get_errno()
    return 0


signal.signal(signal.SIGCONT, spin)


def act(message):
    if message.get("type") in ("hello", "decide"):
        return {"type": "ready", "armed": arm()}
    return None
