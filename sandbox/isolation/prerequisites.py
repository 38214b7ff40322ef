"""Why the strong tier cannot run here: the confinement, bubblewrap, seccomp and uid slots, each checked."""
from __future__ import annotations

import functools
import os
import subprocess

from ..values import SandboxError
from .bubblewrap import bwrap_path
from .confinements import CONFINEMENT_ENV, Confinement, confinement
from .interpreters import Interpreter
from .seccomp import seccomp_program
from .slots import acquire_slot


def strong_tier_problem(interp: Interpreter) -> str | None:
    """Why the strong tier cannot be used here (None if the prerequisites are present)."""
    try:
        way = confinement()
    except SandboxError as exc:
        return str(exc)
    if way is Confinement.UID_SLOTS and os.geteuid() != 0:
        return f"uid slots need root (unset ${CONFINEMENT_ENV} to use user namespaces)"
    bwrap = bwrap_path()
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
