"""Isolation tiers, one job a module: ``interpreters`` (interpreter discovery), ``bubblewrap`` (its argv),
``seccomp`` (the seccomp program), ``confinements`` (how bots are kept apart: uid slots as root, user
namespaces otherwise), ``slots`` (uid slots, and what confinement adds to a boot line) and
``prerequisites`` (why the strong tier cannot run). Import every name from here: ``sandbox.isolation.X``."""
from __future__ import annotations

from .bubblewrap import bwrap_argv, bwrap_path, system_binds
from .confinements import CONFINEMENT_ENV, Confinement, confinement
from .interpreters import Interpreter, interpreter
from .prerequisites import strong_tier_problem
from .seccomp import (CLONE_THREAD, DENIED_FCNTL, DENIED_MADVISE, DENIED_SYSCALLS, DENIED_WITH_FLAGS,
                      FUTEX_PRIVATE_FLAG, MAP_GROWSDOWN, MAP_SHARED, PROGRAM_ALLOWED, SHARED_FUTEX_WAKES, Filter,
                      seccomp_program)
from .slots import SLOT_DIR, SLOT_UIDS, THREADS, UidSlot, acquire_slot, confine

__all__ = [
    "Interpreter",
    "interpreter",
    "bwrap_argv",
    "bwrap_path",
    "system_binds",
    "seccomp_program",
    "Filter",
    "UidSlot",
    "Confinement",
    "confinement",
    "CONFINEMENT_ENV",
    "acquire_slot",
    "confine",
    "SLOT_DIR",
    "SLOT_UIDS",
    "strong_tier_problem",
    "THREADS",
    "CLONE_THREAD",
    "DENIED_FCNTL",
    "DENIED_MADVISE",
    "DENIED_SYSCALLS",
    "DENIED_WITH_FLAGS",
    "FUTEX_PRIVATE_FLAG",
    "MAP_GROWSDOWN",
    "MAP_SHARED",
    "PROGRAM_ALLOWED",
    "SHARED_FUTEX_WAKES",
]
