"""How the strong tier keeps bots apart: uid slots as root, user namespaces otherwise."""
from __future__ import annotations

import enum
import os

from ..values import SandboxError


class Confinement(enum.Enum):
    """How the strong tier keeps bots apart, besides bubblewrap's namespaces and the seccomp filter."""

    UID_SLOTS = "uid-slots"  # as root: every bot runs under a uid of its own (docs/sandbox.md)
    # as anyone: every bot is root without capabilities in a user namespace of its own
    USER_NAMESPACE = "user-namespace"

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
