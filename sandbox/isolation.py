"""Isolation tiers: interpreter discovery, bubblewrap argv, the seccomp program, how bots are kept
apart (uid slots as root, user namespaces otherwise), and why the strong tier cannot run."""
from __future__ import annotations

import dataclasses
import enum
import errno
import fcntl
import functools
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .procscan import processes_of_uid
from .protocol import BotBoot
from .values import SandboxError

__all__ = [
    "Interpreter",
    "interpreter",
    "bwrap_argv",
    "seccomp_program",
    "Filter",
    "UidSlot",
    "Confinement",
    "confinement",
    "acquire_slot",
    "SLOT_DIR",
    "SLOT_UIDS",
    "strong_tier_problem",
]

log = logging.getLogger(__name__)

SLOT_DIR = Path("/run/bohnanza-sandbox")
SLOT_UIDS = range(61000, 61064)
#: tasks (threads) a threaded program may have: V8 needs a handful; more only competes for the machine
THREADS = 16

#: Syscalls the bot may not make in the strong tier (EPERM). Default is allow: Python needs
#: many harmless calls; the list covers network, new processes and threads (clone is denied
#: outright, so threads are impossible), exec, signals to others, debugging, namespaces,
#: kernel extension points and identity changes.
DENIED_SYSCALLS = (
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    "fork", "vfork", "clone", "clone3", "execve", "execveat",
    "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
    "pidfd_open", "pidfd_send_signal", "pidfd_getfd",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "fsopen", "fsmount",
    "fsconfig", "fspick", "move_mount", "open_tree", "mount_setattr",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key", "personality", "syslog", "acct", "quotactl",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "iopl", "ioperm", "mknod", "mknodat", "name_to_handle_at", "open_by_handle_at",
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
    "setfsuid", "setfsgid", "capset", "fanotify_init", "lookup_dcookie", "vhost", "nfsservctl",
    "migrate_pages", "move_pages", "mbind", "set_mempolicy",
    # channels between sandboxes and objects that outlive a bot (docs/sandbox.md "Channels"): locks and
    # watches on the shared read-only files, SysV IPC and message queues (they would outlive a forked
    # child in its fork server's IPC namespace), and every way to have a signal wake a frozen bot
    "flock", "inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_mark",
    "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
    "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
    "mq_getsetattr", "timer_create", "timer_settime", "setitimer", "alarm",
    # the page cache of the shared read-only files would remember (and tell) which pages a bot touched
    "fadvise64", "readahead", "mincore", "cachestat", "mlock", "mlock2", "mlockall",
    # machine-wide counters (free memory, the number of processes, load) two bots could move and read;
    # the priority of another process of one's uid (in a user namespace, the fork server's)
    "sysinfo", "setpriority", "ioprio_set",
)
#: syscalls refused only when the argument at ``index`` is not zero: preadv2(RWF_NOWAIT) tells
#: whether a page is cached without loading it
DENIED_WITH_FLAGS = (("preadv2", 5), ("pwritev2", 5),
                     # ... and calls aimed at another process (pid not 0): its limits and scheduling are
                     # inherited by the fork server's next child, and in a user namespace it shares the bot's uid
                     ("prlimit64", 0), ("sched_setaffinity", 0), ("sched_setattr", 0), ("sched_setscheduler", 0),
                     ("sched_setparam", 0))
#: madvise advice refused (EPERM): evicting pages of the shared read-only files from the page cache
#: (MADV_COLD 20, MADV_PAGEOUT 21). Whether a page of such a file is cached can be read by timing its
#: first touch; eviction would make that a channel usable again and again (docs/sandbox.md, "Channels").
DENIED_MADVISE = (20, 21)
#: futex operations that wake or move other tasks' waiters, refused (EPERM) unless marked private
#: (FUTEX_PRIVATE_FLAG, 128): a shared futex on a page of a file every sandbox binds has the same key in
#: every sandbox, so a waiter in one game is a bit a bot of another game, running at the same time, could
#: read by waking it. A program without threads has no waiter of its own to wake. A program with threads
#: keeps them: its runtime may wake its own threads with shared futexes (libstdc++'s atomic waits, in node)
#: and, refused, a JavaScript bot hung under load; for it the channel stays open (docs/sandbox.md).
#: FUTEX_WAKE 1, REQUEUE 3, CMP_REQUEUE 4, WAKE_OP 5, UNLOCK_PI 7, WAKE_BITSET 10, CMP_REQUEUE_PI 12.
SHARED_FUTEX_WAKES = (1, 3, 4, 5, 7, 10, 12)
FUTEX_PRIVATE_FLAG = 128  # also FUTEX2_PRIVATE, in the flags of futex_wake(2)
#: fcntl commands refused (EPERM) in the strong tier: record locks (F_GETLK 5, F_SETLK 6, F_SETLKW 7
#: and the OFD variants 36-38), leases (1024, 1025), directory notification (F_NOTIFY 1026), and the
#: signal an I/O event sends (F_SETOWN 8, F_SETSIG 10, F_SETOWN_EX 15): a lock or a watch on a file that
#: every sandbox binds is a channel between them; a chosen signal could wake a frozen bot. F_SETPIPE_SZ
#: (1031): big pipes use up the pipe pages of the uid, which in a user namespace is the operator's.
DENIED_FCNTL = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026, 8, 10, 15, 1031)


class Confinement(enum.Enum):
    """How the strong tier keeps bots apart, besides bubblewrap's namespaces and the seccomp filter."""

    UID_SLOTS = "uid-slots"  # as root: every bot runs under a uid of its own (docs/sandbox.md)
    USER_NAMESPACE = "user-namespace"  # as anyone: every bot is root without capabilities in a user namespace of its own

    @property
    def summary(self) -> str:
        return {Confinement.UID_SLOTS: "uid slots (running as root)",
                Confinement.USER_NAMESPACE: "user namespaces (not root: each bot in a user namespace of its own)"}[self]


CONFINEMENT_ENV = "ARENA_SANDBOX_CONFINEMENT"


def confinement() -> Confinement:
    """Uid slots when running as root, user namespaces otherwise; ``$ARENA_SANDBOX_CONFINEMENT`` chooses."""
    chosen = os.environ.get(CONFINEMENT_ENV)
    if chosen:
        try:
            return Confinement(chosen)
        except ValueError:
            names = ", ".join(c.value for c in Confinement)
            raise SandboxError(f"${CONFINEMENT_ENV} must be one of {names}, not {chosen!r}") from None
    return Confinement.UID_SLOTS if os.geteuid() == 0 else Confinement.USER_NAMESPACE


@dataclass(frozen=True)
class Interpreter:
    """The Python used for bots: its executable and the directories it needs."""

    executable: str
    prefixes: tuple[str, ...]
    same_as_parent: bool  # marshalled code from this process is loadable there


@functools.lru_cache(maxsize=8)
def interpreter(path: str | None = None) -> Interpreter:
    """Describe the bot interpreter (default: this one); asks a foreign interpreter once, with a deadline."""
    exe = os.path.realpath(path or sys.executable)
    if not os.access(exe, os.X_OK):
        raise SandboxError(f"bot interpreter not executable: {exe!r}")
    if exe == os.path.realpath(sys.executable):
        prefixes = {sys.base_prefix, sys.base_exec_prefix}
        same = True
    else:
        try:
            out = subprocess.run(
                [exe, "-I", "-S", "-c", "import sys;print(sys.base_prefix);print(sys.base_exec_prefix)"],
                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10, env={}, check=True,
            ).stdout.split()
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxError(f"cannot query bot interpreter {exe!r}: {exc}") from exc
        prefixes = set(out)
        same = False
    return Interpreter(exe, tuple(sorted(os.path.realpath(p) for p in prefixes)), same)


def system_binds(paths: tuple[str, ...]) -> list[str]:
    """bubblewrap arguments for system folders: a read-only bind of each, or the same symlink on
    merged-/usr systems (``/lib`` -> ``usr/lib``); a missing one is left out."""
    args: list[str] = []
    for path in paths:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def _library_binds() -> list[str]:
    """Read-only binds (or symlinks on merged-/usr systems) for the shared libraries."""
    args = system_binds(("/usr/lib", "/usr/lib64", "/lib", "/lib64"))
    if os.path.isfile("/etc/ld.so.cache"):
        args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    return args


def bwrap_argv(interp: Interpreter, bwrap: str = "bwrap", binds: tuple[str, ...] = ()) -> list[str]:
    """The bubblewrap prefix: fresh namespaces, empty read-only root, the interpreter (and ``binds``,
    a program's runtime) read-only."""
    head = [
        bwrap,
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session", "--hostname", "sandbox",
    ]
    if confinement() is Confinement.UID_SLOTS:
        # root inside keeps only what it needs before it drops to the slot uid: changing identity, and
        # remounting the sandbox's /proc private (a bot's process then has no capability at all)
        head += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SYS_ADMIN"]
    else:
        # root of a user namespace of its own, with the one capability the private /proc needs; the
        # runner drops it before the bot's code runs (boot "drop_caps"). No bubblewrap reaper as pid 1:
        # it would share the bot's uid without a seccomp filter, so a bot could write into its memory
        # through /proc and run code unfiltered; the runner (or the fork server) is pid 1 itself.
        head += ["--unshare-user", "--uid", "0", "--gid", "0", "--as-pid-1",
                 "--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN"]
    args = _library_binds()
    covered = ("/usr/lib", "/usr/lib64", "/lib", "/lib64")
    dirs = [p for p in interp.prefixes if not any(p == c or p.startswith(c + "/") for c in covered)]
    if os.path.dirname(interp.executable) not in dirs and not any(
        interp.executable.startswith(d + "/") for d in dirs
    ):
        dirs.append(interp.executable)
    for path in [*dirs, *binds]:
        args += ["--ro-bind", path, path]
    # bwrap creates missing parents of a bind as 0700 root, which the slot uid cannot traverse
    targets = [args[i + 2] for i, a in enumerate(args) if a in ("--ro-bind", "--symlink")]
    parents = sorted({str(p) for t in targets for p in Path(t).parents if str(p) != "/"}, key=lambda p: p.count("/"))
    made: list[str] = []
    for parent in parents:
        made += ["--perms", "0755", "--dir", parent]
    # a /dev of five harmless devices: no pseudo-terminals (their number is counted machine-wide)
    dev = ["--tmpfs", "/dev"] + [a for d in ("null", "zero", "full", "random", "urandom")
                                 for a in ("--dev-bind", f"/dev/{d}", f"/dev/{d}")]
    return head + made + args + ["--proc", "/proc"] + dev + ["--chdir", "/", "--remount-ro", "/"]


class Filter(enum.Enum):
    """Which seccomp program a bot gets: a Python bot (imported by the runner), a program the runner
    executes (exec allowed: the runner's own exec comes after the filter), or a program whose runtime
    has threads of its own (clone allowed for threads only; no shared or stack-like mapping, which the
    memory limit of such a program, RLIMIT_DATA, would not count)."""

    PYTHON = "python"
    PROGRAM = "program"
    THREADED_PROGRAM = "threaded-program"


#: denied for Python bots only: what a program needs to start (the runner's exec) or run (threads)
PROGRAM_ALLOWED = {Filter.PYTHON: (), Filter.PROGRAM: ("execve", "execveat"),
                   Filter.THREADED_PROGRAM: ("execve", "execveat", "clone", "clone3")}
CLONE_THREAD = 0x10000
MAP_SHARED = 0x01  # MAP_SHARED_VALIDATE (0x03) has the bit too
MAP_GROWSDOWN = 0x0100  # a stack mapping: RLIMIT_DATA does not count it


def _deny_shared_futex_wakes(filt: Any, denied: Any) -> None:
    import pyseccomp

    for op in SHARED_FUTEX_WAKES:  # the operation and its private bit, not the clock bit (256)
        filt.add_rule(denied, "futex", pyseccomp.Arg(1, pyseccomp.MASKED_EQ, 0xFF, op))
    try:  # the futex2 calls (Linux 6.7): a shared wake, and a requeue (its flags are in memory)
        filt.add_rule(denied, "futex_wake", pyseccomp.Arg(3, pyseccomp.MASKED_EQ, FUTEX_PRIVATE_FLAG, 0))
        filt.add_rule(denied, "futex_requeue")
    except (OSError, ValueError, RuntimeError):
        log.debug("seccomp: futex_wake and futex_requeue unknown to this libseccomp")


@functools.lru_cache(maxsize=3)
def seccomp_program(kind: Filter = Filter.PYTHON) -> bytes:
    """The BPF program (built once per kind with libseccomp through pyseccomp) that the runner installs."""
    try:
        import pyseccomp
    except (ImportError, RuntimeError, OSError) as exc:
        raise SandboxError(f"seccomp unavailable: pyseccomp/libseccomp could not be loaded: {exc}") from exc
    filt = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    denied = pyseccomp.ERRNO(errno.EPERM)
    if kind is Filter.THREADED_PROGRAM:
        # a thread shares everything with its process; a new process would escape the limits of one.
        # clone3 hides its flags in memory: ENOSYS sends the C library back to clone.
        filt.add_rule(denied, "clone", pyseccomp.Arg(0, pyseccomp.MASKED_EQ, CLONE_THREAD, 0))
        filt.add_rule(pyseccomp.ERRNO(errno.ENOSYS), "clone3")
        for name in ("mmap", "mmap2"):
            for flag in (MAP_SHARED, MAP_GROWSDOWN):
                try:
                    filt.add_rule(denied, name, pyseccomp.Arg(3, pyseccomp.MASKED_EQ, flag, flag))
                except (OSError, ValueError, RuntimeError):
                    log.debug("seccomp: syscall %r unknown on this architecture", name)
    for name in DENIED_SYSCALLS:
        if name in PROGRAM_ALLOWED[kind]:
            continue
        try:
            filt.add_rule(denied, name)
        except (OSError, ValueError, RuntimeError):
            log.debug("seccomp: syscall %r unknown on this architecture", name)
    for name, index in DENIED_WITH_FLAGS:
        try:
            filt.add_rule(denied, name, pyseccomp.Arg(index, pyseccomp.NE, 0))
        except (OSError, ValueError, RuntimeError):
            log.debug("seccomp: syscall %r unknown on this architecture", name)
    for advice in DENIED_MADVISE:
        filt.add_rule(denied, "madvise", pyseccomp.Arg(2, pyseccomp.EQ, advice))
    if kind is not Filter.THREADED_PROGRAM:
        _deny_shared_futex_wakes(filt, denied)
    for command in DENIED_FCNTL:
        for name in ("fcntl", "fcntl64"):
            try:
                filt.add_rule(denied, name, pyseccomp.Arg(1, pyseccomp.EQ, command))
            except (OSError, ValueError, RuntimeError):
                log.debug("seccomp: %s unknown on this architecture", name)
    with tempfile.TemporaryFile() as tmp:
        filt.export_bpf(tmp)
        tmp.seek(0)
        program = tmp.read()
    if not program or len(program) % 8:
        raise SandboxError(f"seccomp: unexpected BPF program size {len(program)!r}")
    return program


class UidSlot:
    """An exclusive uid/gid for one running bot, held by a flock on a root-owned lock file. In the
    user-namespace confinement a slot has no uid (``uid`` None) and holds nothing."""

    def __init__(self, uid: int | None, fd: int | None) -> None:
        self.uid = uid
        self.gid = uid
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None

    def forget(self) -> None:
        """In a forked child: close our copy of the lock's descriptor without unlocking it (the
        flock belongs to the open file, which the parent still holds)."""
        self.release()


_slot_lock = threading.Lock()


def acquire_slot(directory: Path = SLOT_DIR, uids: range = SLOT_UIDS) -> UidSlot:
    """Lock the first free uid slot; flock is per open file, so threads and processes never share one."""
    if confinement() is Confinement.USER_NAMESPACE:
        return UidSlot(None, None)
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = directory.stat()
    except OSError as exc:
        raise SandboxError(f"cannot create uid slot directory {str(directory)!r}: {exc}") from exc
    if st.st_uid != 0 or st.st_mode & 0o022:
        raise SandboxError(f"uid slot directory {str(directory)!r} must be root-owned and not group/world-writable")
    with _slot_lock:
        for uid in uids:
            fd = os.open(directory / f"slot-{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            if processes_of_uid(uid):
                # a leftover from a crashed referee; the uid is ours by construction, so end them
                for pid in processes_of_uid(uid):
                    _kill_quietly(pid)
            return UidSlot(uid, fd)
    raise SandboxError(f"no free uid slot in {uids.start}..{uids.stop - 1} (all {len(uids)} in use)")


def confine(boot: BotBoot, slot: UidSlot, kind: Filter = Filter.PYTHON) -> BotBoot:
    """A runner boot line with the strong tier's confinement: the seccomp filter, and the slot's
    identity with one process for its uid, or (user namespace) no capability left. A threaded
    program may have ``THREADS`` tasks, counted in its own user namespace or for its slot uid."""
    boot = dataclasses.replace(boot, seccomp=seccomp_program(kind))
    nproc = boot.limits.nproc
    if slot.uid is None:
        boot = dataclasses.replace(boot, drop_caps=True)
    else:
        boot = dataclasses.replace(boot, uid=slot.uid, gid=slot.gid)
        nproc = 1
    if kind is Filter.THREADED_PROGRAM:
        # in a user namespace the count is the namespace's own (Linux 5.14 and later), which holds the
        # bot and, from a fork server, the template
        nproc = THREADS + (0 if slot.uid is not None else 2)
    return dataclasses.replace(boot, limits=dataclasses.replace(boot.limits, nproc=nproc))


def _kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except OSError:
        pass


def strong_tier_problem(interp: Interpreter) -> str | None:
    """Why the strong tier cannot be used here (None if the prerequisites are present)."""
    try:
        way = confinement()
    except SandboxError as exc:
        return str(exc)
    if way is Confinement.UID_SLOTS and os.geteuid() != 0:
        return f"uid slots need root (unset ${CONFINEMENT_ENV} to use user namespaces)"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bwrap not found (Debian package 'bubblewrap')"
    if way is Confinement.USER_NAMESPACE:
        problem = _user_namespace_problem(bwrap)
        if problem is not None:
            return problem
    try:
        seccomp_program()
    except SandboxError as exc:
        return str(exc)
    if way is Confinement.UID_SLOTS:
        try:
            acquire_slot().release()
        except SandboxError as exc:
            return str(exc)
    return None


@functools.lru_cache(maxsize=2)
def _user_namespace_problem(bwrap: str) -> str | None:
    """Whether bubblewrap can make a user namespace here (tried once)."""
    argv = [bwrap, "--unshare-user", "--uid", "0", "--gid", "0", "--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN",
            "--ro-bind", "/", "/", "true"]
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10,
                              env={"PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap could not make a user namespace: {exc}"
    if done.returncode != 0:
        return (f"bubblewrap could not make a user namespace ({done.stderr.strip()[-200:]!r}); run as root, or allow "
                f"unprivileged user namespaces (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone, "
                f"or AppArmor's kernel.apparmor_restrict_unprivileged_userns)")
    return None
