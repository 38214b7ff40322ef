"""Suite-wide: this process adopts the orphans of what it starts, so a test finds every process it left
behind among its own descendants, never among the machine's other processes."""
from __future__ import annotations

import ctypes
import ctypes.util

import pytest

PR_SET_CHILD_SUBREAPER = 36


def pytest_configure(config: pytest.Config) -> None:
    # Without this an orphan (a referee killed mid-game, a double fork) is reparented to init and
    # vanishes from the tree; a bot process of another arena on the machine is never in it.
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")
