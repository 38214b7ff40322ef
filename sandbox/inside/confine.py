"""The runner's confinement, one of its parts (sandbox/inside/runner.py): the system calls ``os`` lacks,
through ``_ctypes`` (``ctypes`` costs more to import), and the steps that confine a bot's process
before its code runs: its uid, its rlimits, its seccomp filter.

Runs inside the bot's process in the runner's namespace and imports nothing of ours; which step runs
when, and with what, is the runner's main part's to say (``_bot`` in sandbox/inside/runner.py).
"""
from __future__ import annotations

import os
import resource
import sys

import _ctypes

TYPE_CHECKING = False  # the type checker reads the imports below; the runner never pays for typing
if TYPE_CHECKING:
    from typing import Any

    from .output import EXIT_BAD_BOOT, die

    # typeshed makes these generic; at run time _SimpleCData takes no parameter
    _SimpleInt = _ctypes._SimpleCData[int]
    _SimpleChar = _ctypes._SimpleCData[bytes]
else:
    _SimpleInt = _SimpleChar = _ctypes._SimpleCData

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MNT_DETACH = 2
CLONE_NEWPID = 0x20000000
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
PR_SET_SECCOMP = 22
PR_SET_NO_NEW_PRIVS = 38
SECCOMP_MODE_FILTER = 2
SIGKILL = 9


class _CInt(_SimpleInt):
    _type_ = "i"


class _CULong(_SimpleInt):
    _type_ = "L"


class _CChar(_SimpleChar):
    _type_ = "c"


class _CFunction(_ctypes.CFuncPtr):
    _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
    _restype_ = _CInt


class _Process:
    """The process's global symbols, libc's among them: what a function pointer reads is ``_handle``."""

    _no_file: Any = None  # dlopen(NULL) is the main program; typeshed's stub takes only a path
    _handle = _ctypes.dlopen(_no_file, 2)


def _function(name: str, *argtypes: type[_SimpleInt]) -> _CFunction:
    process: Any = _Process  # it stands in for a CDLL, as in ctypes itself; typeshed asks for a CDLL
    fn = _CFunction((name, process))
    fn.argtypes = argtypes
    return fn


def buffer(data: bytes) -> tuple[object, int]:
    """A C copy of ``data`` (at least one byte): the object that keeps it alive, and its address."""

    class Buffer(_ctypes.Array[_CChar]):
        _type_ = _CChar
        _length_ = max(len(data), 1)

    buf = Buffer.from_buffer_copy(data.ljust(1, b"\0"))
    return buf, _ctypes.addressof(buf)


class Libc:
    """prctl, mount, umount2, capset and unshare from the C library."""

    def __init__(self) -> None:
        self._prctl = _function("prctl", _CInt, _CULong, _CULong, _CULong, _CULong)
        self._mount = _function("mount", _CULong, _CULong, _CULong, _CULong, _CULong)
        self._umount2 = _function("umount2", _CULong, _CInt)
        self._capset = _function("capset", _CULong, _CULong)
        self._unshare = _function("unshare", _CInt)

    def prctl(self, option: int, arg2: int, arg3: int = 0) -> None:
        if self._prctl(option, arg2, arg3, 0, 0) != 0:
            raise OSError(_ctypes.get_errno(), "prctl(%d) failed" % option)

    def remount(self, path: str, flags: int, options: bytes = b"") -> None:
        keep = [buffer(path.encode() + b"\0"), buffer(options + b"\0")]
        if self._mount(0, keep[0][1], 0, flags, keep[1][1]) != 0:
            raise OSError(_ctypes.get_errno(), "remounting %s failed" % path)

    def seal_mounts(self) -> int:
        """Take /proc away from the bot: a descriptor of it stays for the runner's own last check (its
        capabilities, read through ``self``), and the mount is detached. Nothing there is a bot's to
        read: not other processes (the fork server, whose counters of reaped children would carry data
        from one game to the next), not the machine-wide files (counters two bots could move and
        read), not its own ``pagemap`` (which pages of the shared libraries are in the page cache: a
        channel between sandboxes) nor its own ``mem`` (a program could rewrite its own code). Then
        make /dev read-only: its tmpfs (in a user namespace the bot owns it, and a file, a directory
        or a mode left there would reach the fork server's next child) and the device nodes bound
        from the host (their times and modes are the host's; the devices themselves still read and
        write). Needs root inside the sandbox: run before dropping to the slot uid or dropping
        capabilities."""
        self.remount("/proc", MS_REMOUNT | MS_NOSUID | MS_NODEV | MS_NOEXEC, b"hidepid=ptraceable,subset=pid")
        proc = os.open("/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        keep = buffer(b"/proc\0")
        if self._umount2(keep[1], MNT_DETACH) != 0:
            raise OSError(_ctypes.get_errno(), "detaching /proc failed")
        for name in os.listdir("/dev"):
            self.remount("/dev/" + name, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC)
        self.remount("/dev", MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
        return proc

    def drop_capabilities(self, proc: int | None) -> None:
        """Empty the effective, permitted and inheritable sets (the ambient set follows): the root of
        a user namespace keeps no power over it, nor over the fork server beside it. Checked in its
        status, through ``proc`` (a descriptor of the sandbox's detached /proc)."""
        header = buffer(_LINUX_CAPABILITY_VERSION_3.to_bytes(4, sys.byteorder) + bytes(4))
        data = buffer(bytes(24))  # two 32-bit words of each set, all zero
        if self._capset(header[1], data[1]) != 0:
            raise OSError(_ctypes.get_errno(), "capset failed")
        with open(os.open("self/status", os.O_RDONLY | os.O_CLOEXEC, dir_fd=proc)) as f:
            held = [line.split()[1] for line in f if line.startswith(("CapEff:", "CapPrm:", "CapAmb:"))]
        if len(held) != 3 or any(int(value, 16) for value in held):
            raise OSError(0, "capabilities left: %r" % held)

    def unshare_pid(self) -> None:
        """The calling process's next child is pid 1 of a new PID namespace."""
        if self._unshare(CLONE_NEWPID) != 0:
            raise OSError(_ctypes.get_errno(), "unshare(CLONE_NEWPID) failed")


def drop_to(uid: int, gid: int) -> None:
    """Become ``uid``:``gid`` with no supplementary groups, or end the process."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid:
        die(EXIT_BAD_BOOT, "could not drop to uid %d" % uid)


def set_limits(core: int, nofile: int, address_space: int, data: int | None, stack: int | None, cpu: int,
               cpu_hard: int, nproc: int | None) -> None:
    """The bot's rlimits, soft and hard alike except the CPU's; None leaves a limit as it is."""
    for res, value in (
        (resource.RLIMIT_CORE, core),
        (resource.RLIMIT_FSIZE, 0),
        (resource.RLIMIT_NOFILE, nofile),
        (resource.RLIMIT_AS, address_space),
        (resource.RLIMIT_MEMLOCK, 0),  # locked memory shows in machine-wide counters
    ):
        resource.setrlimit(res, (value, value))
    for res, optional in ((resource.RLIMIT_DATA, data), (resource.RLIMIT_STACK, stack)):
        if optional is not None:
            resource.setrlimit(res, (optional, optional))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu_hard))
    if nproc is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))


def install_seccomp(libc: Libc, program: bytes) -> None:
    """no_new_privs, then the seccomp filter ``program`` (BPF instructions, 8 bytes each)."""
    prog, prog_addr = buffer(program)
    # struct sock_fprog { unsigned short len; (6 bytes padding) struct sock_filter *filter; }
    fprog, fprog_addr = buffer(
        (len(program) // 8).to_bytes(2, sys.byteorder) + b"\0" * 6 + prog_addr.to_bytes(8, sys.byteorder)
    )
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1)
    libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, fprog_addr)
    del prog, fprog  # the kernel has copied the filter: the buffers were needed until here
