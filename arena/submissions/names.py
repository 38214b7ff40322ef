"""Bot names and their rules: the allowed spelling (``name_form``, all that an author's client checks), the names
reserved for built-in bots, look-alikes of another author's bot, and who may change a bot of a given name."""
from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Sequence

from sqlmodel import Session, select

from arena.db import Bot, author_key, bot_key
from arena.formats import formats
from arena.paths import data_dir
from arena.submissions.accounts import AccountError, Actor, account, check_owner
from arena.submissions.errors import NameTaken, SubmissionError
from arena.submissions.name_form import check_name_form
from arena.text import shown


def check_name(name: str, builtin: bool = False) -> str:
    """``name`` if a bot may take it; only a built-in bot may take a reserved name (``reserved_for``)."""
    check_name_form(name)
    boss = None if builtin else reserved_for(name)
    if boss is not None:
        raise SubmissionError(f"bot name {name!r} is reserved: it reads as the built-in bot {boss!r}; "
                              f"choose another name")
    return name


def _skeleton(name: str) -> str:
    """What ``name`` reads as beside a built-in bot: ``bot_key`` with a version suffix and a ``bot`` suffix dropped."""
    text = bot_key(re.sub(r"[-_.]?v?\d+$", "", name.casefold()) or name)
    while text.endswith("bot") and len(text) > 3:
        text = text.removesuffix("bot")
    return text


def reserved_names() -> tuple[str, ...]:
    """The names of the built-in bots (every boss, every smoke opponent), reserved from the first run."""
    return tuple(sorted(set(builtin_bots()) | {name for f in formats() for name in f.smoke_opponents}))


def reserved_for(name: str) -> str | None:
    """The built-in bot that ``name`` would pass for (``trader`` for Trader, trader_bot, TRADER-2, tr4der), or None."""
    return next((boss for boss in reserved_names() if _skeleton(name) == _skeleton(boss)), None)


def builtin_bots() -> dict[str, Path]:
    """The example bots shipped in ``bots/``, by name (``greedy`` for ``greedy_bot.py``)."""
    return {path.stem.removesuffix("_bot"): path for path in sorted(data_dir("bots").glob("*_bot.py"))}


def did_you_mean(name: str, known: Sequence[str]) -> str:
    """``"; did you mean 'greedy'?"`` when ``name`` is a near miss of one of ``known`` (a typo, a
    ``_bot`` suffix, other case), else ``""``."""
    plain = name.casefold().removesuffix(".py").removesuffix("_bot")
    close = difflib.get_close_matches(plain, [k.casefold() for k in known], n=1, cutoff=0.6)
    return f"; did you mean {known[[k.casefold() for k in known].index(close[0])]!r}?" if close else ""


def existing_bot(session: Session, name: str, builtin: bool = False) -> Bot | None:
    """The bot already named ``name``, if any; a submission cannot take a boss's name, nor a boss a submitted bot's."""
    bot = session.exec(select(Bot).where(Bot.name == name)).first()
    if bot is not None and bot.builtin and not builtin:
        raise SubmissionError(f"bot name {name!r} belongs to a built-in reference bot (boss); choose another name")
    if bot is not None and builtin and not bot.builtin:
        raise SubmissionError(f"boss {name!r} cannot be entered: the submitted bot {name!r} (author "
                              f"{shown(bot.author) or 'none given'}, since {bot.created_at:%Y-%m-%d}) took the name "
                              "before built-in names were reserved; run the season without this boss")
    return bot


def owner_name(session: Session, actor: Actor) -> str:
    """The account name ``actor`` acts under ("" for nobody); an error if it names no account."""
    if not actor.name:
        return ""
    try:
        return account(session, actor.name).name
    except AccountError as exc:
        raise SubmissionError(str(exc)) from None


def check_may_change(session: Session, name: str, actor: Actor, doing: str) -> Bot | None:
    """The bot named ``name`` if ``actor`` may ``doing`` it (None: no such bot, so a new one may take the name,
    unless it reads as another author's bot: ``check_not_lookalike``)."""
    owner = owner_name(session, actor)
    bot = existing_bot(session, name)
    if bot is not None:
        try:
            check_owner(bot, actor, doing)
        except AccountError as exc:
            raise SubmissionError(str(exc)) from None
    else:
        check_not_lookalike(session, name, owner)
    return bot


def check_not_lookalike(session: Session, name: str, owner: str) -> None:
    """Refuse a new bot ``name`` that reads as (``bot_key``) a bot of another author, of no author or a built-in
    one: a board would show the two as one author's. An author's own look-alikes are theirs to make."""
    key = bot_key(name)
    for other, author, builtin in session.exec(select(Bot.name, Bot.author, Bot.builtin)).all():
        theirs = builtin or not owner or author_key(author) != author_key(owner)
        if other != name and theirs and bot_key(other) == key:
            whose = "a built-in bot" if builtin else f"author {shown(author)!r}" if author else "no author"
            raise NameTaken(f"bot name {name!r} reads as the bot {other!r} of {whose}; choose another name")


def names_taken_by_submissions(session: Session, names: Sequence[str]) -> list[str]:
    """Those of ``names`` that submitted (not built-in) bots already use."""
    return [name for name in names
            if session.exec(select(Bot).where(Bot.name == name, Bot.builtin == False)).first()]  # noqa: E712


def version_hint(session: Session, name: str) -> str | None:
    """The bot a new name such as ``mybot2`` or ``mybot-v3`` looks like the next version of, if there is
    one and no bot has the name itself."""
    if existing_bot(session, name) is not None:
        return None
    base = re.sub(r"[-_.]?v?\d+$", "", name)
    return base if base and base != name and existing_bot(session, base) is not None else None
