"""Looks for state that outlives it or that another sandbox could see, found by an attacker's
review of the fork servers: the fork server's counters of reaped children (/proc/<pid>/stat), the
machine-wide counters in /proc (pseudo-terminals, locked memory, open files, load), pseudo-
terminals, locked memory, and the page cache of the shared read-only files (evict a page with
fadvise, test it with preadv2(RWF_NOWAIT) or mincore). Replies with what each attempt gave.
"""
import ctypes
import mmap
import os

SHARED = os.__file__  # a read-only file every sandbox binds


def attempt(fn):
    try:
        return "ok:" + str(fn())[:80]
    except Exception as exc:  # noqa: BLE001
        return "error:" + type(exc).__name__ + ":" + str(getattr(exc, "errno", ""))


def read(path):
    with open(path) as f:
        return f.read(200)


def libc_call(name, *args):
    libc = ctypes.CDLL(None, use_errno=True)
    if getattr(libc, name)(*args) != 0:
        raise OSError(ctypes.get_errno(), name)
    return 0


def mincore():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
    fd = os.open(SHARED, os.O_RDONLY)
    page = libc.mmap(None, 4096, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
    vec = ctypes.create_string_buffer(1)
    if libc.mincore(ctypes.c_void_p(page), ctypes.c_size_t(4096), vec) != 0:
        raise OSError(ctypes.get_errno(), "mincore")
    return vec.raw


def pageout(path):
    with open(path, "rb") as f:
        pages = mmap.mmap(f.fileno(), 4096, prot=mmap.PROT_READ)
        pages.madvise(21)  # MADV_PAGEOUT
    return 0


def act(message):
    if message.get("type") not in ("hello", "decide"):
        return None
    fd = os.open(SHARED, os.O_RDONLY)
    results = {
        "proc-listing": attempt(lambda: sorted(n for n in os.listdir("/proc") if n.isdigit())),
        # which pages of a shared library are in the page cache: read fault-around's work in its own pagemap
        "pagemap": attempt(lambda: read("/proc/self/pagemap")),
        # ... and evict it again (MADV_PAGEOUT), so that the bit could be sent again
        "pageout": attempt(lambda: pageout(SHARED)),
        # the reaper and the fork server are pids 1 and 2 with a uid slot; in a user namespace the
        # fork server is pid 1 and the bot pid 2 (or the bot itself pid 1): read the two others
        "proc-1-stat": attempt(lambda: read("/proc/%d/stat" % (1 if os.getpid() != 1 else 3))),
        "proc-2-stat": attempt(lambda: read("/proc/%d/stat" % (2 if os.getpid() != 2 else 3))),
        "pty-nr": attempt(lambda: read("/proc/sys/kernel/pty/nr")),
        "meminfo": attempt(lambda: read("/proc/meminfo")),
        "file-nr": attempt(lambda: read("/proc/sys/fs/file-nr")),
        "loadavg": attempt(lambda: read("/proc/loadavg")),
        "ptmx": attempt(lambda: os.close(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))),
        "mlock": attempt(lambda: libc_call("mlockall", 1)),
        "fadvise": attempt(lambda: os.posix_fadvise(fd, 0, 4096, os.POSIX_FADV_DONTNEED)),
        "preadv2-nowait": attempt(lambda: os.preadv(fd, [bytearray(16)], 0, os.RWF_NOWAIT)),
        "mincore": attempt(mincore),
        "own-stat": attempt(lambda: read("/proc/self/stat")[:10]),
    }
    os.close(fd)
    return {"type": "ready", "results": results}
