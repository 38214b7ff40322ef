"""The seccomp program of the strong tier: the syscalls a bot may not make, per kind of bot."""
from __future__ import annotations

import enum
import errno
import functools
import logging
import tempfile
from typing import Any

from ..values import SandboxError

log = logging.getLogger(__name__)

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
