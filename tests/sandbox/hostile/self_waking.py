"""Tries to think on other players' time: after each reply it arms POSIX timers whose signal is
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


spinning = False
timers: list[ctypes.c_void_p] = []


def spin(signum, frame):
    # Python runs a handler between bytecodes, also inside this one: without the guard, each tick
    # of the 2 ms timer would nest another spin until RecursionError killed the bot.
    global spinning
    if spinning:
        return
    spinning = True
    if timers:  # revives the periodic timer, which a stop may have killed
        _set(ctypes.CDLL(None, use_errno=True), timers[0], 2_000_000, 2_000_000)
    try:
        end = time.monotonic() + 0.05
        while time.monotonic() < end:
            pass
    finally:
        spinning = False


def _timer(libc: ctypes.CDLL, first_ns: int, every_ns: int) -> int:
    event = SigEvent(None, signal.SIGCONT, SIGEV_SIGNAL)
    timer = ctypes.c_void_p()
    if libc.timer_create(CLOCK_MONOTONIC, ctypes.byref(event), ctypes.byref(timer)) != 0:
        return ctypes.get_errno()
    timers.append(timer)
    return _set(libc, timer, first_ns, every_ns)


def _set(libc: ctypes.CDLL, timer: ctypes.c_void_p, first_ns: int, every_ns: int) -> int:
    spec = ITimerSpec(TimeSpec(every_ns // 10**9, every_ns % 10**9), TimeSpec(first_ns // 10**9, first_ns % 10**9))
    if libc.timer_settime(timer, 0, ctypes.byref(spec), None) != 0:
        return ctypes.get_errno()
    return 0


def arm() -> int:
    """A 2 ms periodic timer, and one-shot ones later: a SIGSTOP discards a pending SIGCONT, and the
    kernel re-arms a periodic timer only when its signal is delivered, so a stop that lands while
    a tick is pending kills the periodic timer; a later one-shot still wakes the bot."""
    libc = ctypes.CDLL(None, use_errno=True)
    for first_ms, every_ms in [(2, 2), (20, 0), (200, 0), (1000, 0), (3000, 0), (10000, 0)]:
        failed = _timer(libc, first_ms * 10**6, every_ms * 10**6)
        if failed:
            return failed
    return 0


signal.signal(signal.SIGCONT, spin)


def act(message):
    if message.get("type") in ("hello", "decide"):
        return {"type": "ready", "armed": arm()}
    return None
