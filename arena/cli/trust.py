"""Which bots `arena play` may run, and in which sandbox tier: the trust and tier policy of the command line."""
from __future__ import annotations

from pathlib import Path

import click

from arena.submit import SubmissionError, builtin_bots, check_source
from sandbox import Tier, detect_tier, strong_tier_missing

from arena.cli.base import UserError


EXEC = "exec:"


def builtin_bot(name: str) -> Path | None:
    """A built-in bot's file by name, ``greedy`` or ``greedy_bot``."""
    return builtin_bots().get(name.removesuffix("_bot"))


def resolve_bot(spec: str) -> tuple[str, str, bool]:
    """(name, source, trusted) for a bot given by built-in name or by path."""
    path = builtin_bot(spec)
    trusted = path is not None
    if path is None:
        path = Path(spec)
        if not path.is_file():
            known = ", ".join(builtin_bots())
            raise UserError(f"no bot {spec!r}: not a file and not a built-in bot ({known})")
    try:
        source = check_source(path.read_bytes(), str(path))
    except SubmissionError as exc:
        raise UserError(str(exc)) from None
    return path.stem, source, trusted


def sandbox_tier(unsafe: bool, tier: Tier | None = None) -> Tier:
    """The tier to run submitted bots in (``tier``: as detected where they run); refuses PLAIN unless ``unsafe``."""
    tier = detect_tier() if tier is None else tier
    if tier is Tier.PLAIN and not unsafe:
        raise click.ClickException(f"no strong sandbox is available on this machine ({strong_tier_missing()}); "
                                   "refusing to run submitted bots without --unsafe")
    return tier
