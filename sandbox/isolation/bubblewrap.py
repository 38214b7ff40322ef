"""The bubblewrap argv: fresh namespaces, an empty read-only root, and the read-only binds a bot needs."""
from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path

from ..values import SandboxError
from .confinements import Confinement, confinement
from .interpreters import Interpreter


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


@functools.lru_cache(maxsize=1)
def bwrap_path() -> str | None:
    """bubblewrap's absolute path on this process's PATH, found once (None: not installed). Every start uses it:
    a bot, a fork server and a compiler start with a fixed PATH of their own (/usr/bin:/bin), on which a bubblewrap
    in /usr/local/bin, a Nix profile or a container's own folder would not be found."""
    return shutil.which("bwrap")


def bwrap_argv(interp: Interpreter, bwrap: str | None = None, binds: tuple[str, ...] = ()) -> list[str]:
    """The bubblewrap prefix: fresh namespaces, empty read-only root, the interpreter (and ``binds``,
    a program's runtime) read-only. ``bwrap``: its path (default ``bwrap_path()``)."""
    found = bwrap or bwrap_path()
    if found is None:
        raise SandboxError("bwrap not found (Debian package 'bubblewrap')")
    head = [
        found,
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--die-with-parent", "--new-session", "--hostname", "sandbox",
    ]
    if confinement() is Confinement.UID_SLOTS:
        # root inside keeps only what it needs before it drops to the slot uid: changing identity, and
        # remounting the sandbox's /proc private (a bot's process then has no capability at all)
        head += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                 "--cap-add", "CAP_SYS_ADMIN"]
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
