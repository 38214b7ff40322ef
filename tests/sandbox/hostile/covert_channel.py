"""One of two colluding bots at the same table (ROLE "send" or "receive"; the tests rewrite it).

The sender, at every decision, encodes its hand on every shared object it can reach: flock and
fcntl record locks on read-only files that every sandbox binds (the same inode for all), opening
files that a watcher could see, SysV IPC and message queues, files in /tmp and /dev/shm.
The receiver, at every decision, looks for any sign of the sender on the same objects: a lock it
cannot take, a lock that F_GETLK reports, an inotify event, an IPC object, a file. If it ever
reads anything, it plays an illegal action, so that the tests see the channel as status "illegal".
"""
import ctypes
import errno
import fcntl
import os
import struct

from sandbox.sdk import Bot

ROLE = "send"
SHARED = [os.__file__, os.path.join(os.path.dirname(os.__file__), "json", "__init__.py"), "/etc/ld.so.cache"]
KEY = 0x0C0C


def _libc():
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


class Covert(Bot):
    def on_start(self, hello):
        self.received = []
        self.fds = []
        for path in SHARED:
            try:
                self.fds.append(os.open(path, os.O_RDONLY))
            except OSError:
                pass
        self.watch = None
        if ROLE == "receive":
            libc = _libc()
            try:
                fd = libc.inotify_init1(os.O_NONBLOCK) if libc is not None else -1
                if fd >= 0:
                    for path in SHARED:
                        libc.inotify_add_watch(fd, os.path.dirname(path).encode(), 0xFFF)
                    self.watch = fd
            except (AttributeError, OSError):
                pass

    def send(self, hand):
        for fd in self.fds:
            for call in (lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB),
                         lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, len(hand))):
                try:
                    call()
                except OSError:
                    pass
        for path in SHARED:  # opening is what a watcher sees
            try:
                os.close(os.open(path, os.O_RDONLY))
            except OSError:
                pass
        libc = _libc()
        if libc is not None:
            libc.shmget(KEY, 4096, 0o1000 | 0o666)
            libc.msgget(KEY, 0o1000 | 0o666)
        for path in ("/tmp/covert", "/dev/shm/covert"):
            try:
                open(path, "w").close()
            except OSError:
                pass

    def receive(self):
        for fd in self.fds:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError as exc:
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    self.received.append("flock")
            try:
                probe = struct.pack("hhqqh", fcntl.F_WRLCK, 0, 0, 0, 0)
                answer = fcntl.fcntl(fd, fcntl.F_GETLK, probe)
                if struct.unpack("hhqqh", answer)[0] != fcntl.F_UNLCK:
                    self.received.append("fcntl")
            except OSError:
                pass
        if self.watch is not None:
            try:
                if os.read(self.watch, 4096):
                    self.received.append("inotify")
            except OSError:
                pass
        libc = _libc()
        if libc is not None and (libc.shmget(KEY, 0, 0) >= 0 or libc.msgget(KEY, 0) >= 0):
            self.received.append("ipc")
        for path in ("/tmp/covert", "/dev/shm/covert"):
            if os.path.exists(path):
                self.received.append(path)

    def act(self, message):
        if message.get("type") == "decide":
            if ROLE == "send":
                self.send(message["view"]["hand"])
            else:
                self.receive()
                if self.received:
                    return {"id": message["id"], "action": {"type": "plant", "field": 99}}  # illegal on purpose
        return super().act(message)
