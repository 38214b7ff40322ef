"""Which bots `arena play` may run, and in which sandbox tier: the trust and tier policy of the command line."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import click
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from arena.db import Bot, BotVersion
from arena.submissions.accounts import Actor
from arena.submissions.bot_file import read_bot, read_bot_file
from arena.submissions.errors import SubmissionError
from arena.submissions.names import builtin_bots, did_you_mean
from sandbox import Tier, detect_tier, strong_tier_missing

from arena.cli.base import UserError


EXEC = "exec:"


@dataclass(frozen=True)
class ResolvedBot:
    """A bot as a command names it, found: what it is called, its code, whether it is built in (trusted),
    and the language it is written in (sandbox/languages.py)."""

    name: str
    source: str
    trusted: bool
    language: str


def builtin_bot(name: str) -> Path | None:
    """A built-in bot's file by name, ``greedy`` or ``greedy_bot``."""
    return builtin_bots().get(name.removesuffix("_bot"))


def resolve_bot(spec: str, ladder: Callable[[str], ResolvedBot | None] = lambda spec: None) -> ResolvedBot:
    """A bot given by built-in name, by path (its language by its extension), or (``ladder``: a lookup in
    the database) as a ladder bot ``NAME`` (its current version) or ``NAME@N``; only built-in bots are trusted."""
    path = builtin_bot(spec)
    trusted = path is not None
    if path is None:
        path = Path(spec)
        if not os.path.lexists(path):  # a link or a FIFO is there, and refused by read_bot_file
            found = ladder(spec)
            if found is not None:
                return found
            known = ", ".join(builtin_bots())
            raise UserError(f"no bot {spec!r}: not a file, not a built-in bot ({known}), not a bot of this ladder"
                            + did_you_mean(spec, list(builtin_bots())))
    try:
        source, language = read_bot(read_bot_file(path), str(path))
    except SubmissionError as exc:  # also a file its owner alone may read
        raise UserError(str(exc)) from None
    return ResolvedBot(path.stem, source, trusted, language)


def ladder_bot(engine: Engine, spec: str) -> ResolvedBot | None:
    """A bot on the ladder given as ``NAME`` (its current version) or ``NAME@N``, named ``NAME@N`` (never trusted)."""
    name, at, number = spec.partition("@")
    with Session(engine) as session:
        bot = session.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None:
            return None
        versions = session.exec(select(BotVersion).where(BotVersion.bot_id == bot.id)
                                .order_by(col(BotVersion.number))).all()
    if at:
        chosen = [v for v in versions if str(v.number) == number]
        if not chosen:
            raise UserError(f"bot {name!r} has no version {number!r} "
                            f"(it has {', '.join(str(v.number) for v in versions)})")
        version = chosen[0]
    else:
        version = next((v for v in reversed(versions) if v.active), versions[-1])
    return ResolvedBot(f"{name}@{version.number}", version.source, False, version.language)


def sandbox_tier(unsafe: bool, tier: Tier | None = None) -> Tier:
    """The tier to run submitted bots in (``tier``: as detected where they run); refuses PLAIN unless ``unsafe``."""
    tier = detect_tier() if tier is None else tier
    if tier is Tier.PLAIN and not unsafe:
        raise click.ClickException(f"no strong sandbox is available on this machine ({strong_tier_missing()}); "
                                   "refusing to run submitted bots without --unsafe")
    return tier


def acting(author: str, operator: bool) -> Actor:
    """Who a command acts as: ``--operator`` (with ``--author``: for that account), else the author named."""
    return Actor.operator(author) if operator else Actor.author(author)
