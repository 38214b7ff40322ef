"""Remembers everything it sees, and tries every place a memory could outlive a game: module
globals, a file in /tmp or /dev/shm, SysV shared memory and message queues, a POSIX message
queue, the environment. In any game where it finds a memory of an earlier one (a seat-rotated
deal is the same deck: the turned-up cards would be known in advance), it plays an illegal
action, so that the tests see the leak as status "illegal"; otherwise it plays the SDK's defaults.
"""
import ctypes
import os

from sandbox.sdk import Bot

SEEN: list[tuple[object, ...]] = []  # module state: survives as long as the process
IPC_CREAT = 0o1000
KEY = 0x0B0B


def _libc():
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def remembered() -> list[object]:
    found: list[object] = list(SEEN)
    for path in ("/tmp/memoriser", "/dev/shm/memoriser"):
        if os.path.exists(path):
            found.append(path)
    if os.environ.get("MEMORISER"):
        found.append("environ")
    libc = _libc()
    if libc is not None:
        if libc.shmget(KEY, 0, 0) >= 0:
            found.append("shm")
        if libc.msgget(KEY, 0) >= 0:
            found.append("msg")
        try:
            mq = ctypes.CDLL("librt.so.1", use_errno=True).mq_open(b"/memoriser", os.O_RDONLY)
            if mq >= 0:
                found.append("mqueue")
        except OSError:
            pass
    return found


def remember(what: tuple[object, ...]) -> None:
    SEEN.append(what)
    for path in ("/tmp/memoriser", "/dev/shm/memoriser"):
        try:
            open(path, "w").close()
        except OSError:
            pass
    os.environ["MEMORISER"] = "1"
    libc = _libc()
    if libc is not None:
        libc.shmget(KEY, 4096, IPC_CREAT | 0o666)
        libc.msgget(KEY, IPC_CREAT | 0o666)
        try:
            ctypes.CDLL("librt.so.1", use_errno=True).mq_open(b"/memoriser", os.O_CREAT | os.O_RDWR, 0o666, None)
        except OSError:
            pass


class Memoriser(Bot):
    def on_start(self, hello):
        self.leak = remembered()
        remember(("hello", hello.seat))

    def act(self, message):
        if message.get("type") == "decide":
            for event in message.get("events", ()):
                if event.get("type") == "turned_up":
                    remember(tuple(event["beans"]))
            if self.leak:
                return {"id": message["id"], "action": {"type": "plant", "field": 99}}  # illegal on purpose
        return super().act(message)
