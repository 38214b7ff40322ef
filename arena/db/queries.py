"""Reading stored rows: ids, the versions that play, their starting means and formats, authors' groups."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol, cast

from sqlalchemy import bindparam
from sqlalchemy import select as core_select
from sqlalchemy.orm import QueryableAttribute, defer
from sqlmodel import Session, col, select

from arena.db.errors import DatabaseError
from arena.db.schema import Bot, BotVersion, VersionFormat


def name_key(name: str) -> str:
    """A name as every comparison of names reads it: spaces collapsed, case folded. An author's account is
    keyed by it (``author_key``); ``bot_key`` builds on it. Names come in NFKC-normal already (a bot's is
    ASCII, an author's is refused otherwise: ``accounts.check_author_name``), so compatibility forms such as
    fullwidth 'Ａ' never reach a comparison; the stored keys of older accounts stay as they were made."""
    return " ".join(name.split()).casefold()


def author_key(name: str) -> str:
    """An author's name as accounts and tables compare it (``name_key``)."""
    return name_key(name)


#: digits and letters that pass for one another on a board (AnnB0t, tr4der, rand1m, Ann1/Annl/AnnI)
_LOOKALIKES = str.maketrans("0134578l", "oieastbi")
_SEPARATORS = re.compile(r"[\s_.-]+")


def bot_key(name: str) -> str:
    """What a bot's name reads as on a board: ``name_key``, then separators (spaces, '_', '.', '-') dropped and
    look-alike digits read as letters: AnnBot, annbot, Ann_Bot, ann-bot and AnnB0t are one name."""
    return _SEPARATORS.sub("", name_key(name)).translate(_LOOKALIKES)


class _Authored(Protocol):
    @property
    def author(self) -> str: ...

    @property
    def builtin(self) -> bool: ...


def author_group(bot: _Authored) -> str | None:
    """Bots of one author never share a table (they could play as a team); built-in bots are ours."""
    author = author_key(bot.author)
    return None if bot.builtin or not author else author


class _Row(Protocol):
    @property
    def id(self) -> int | None: ...


def stored_id(row: _Row) -> int:
    """The id of a row that is in the database (SQLModel types ids as optional until a row is stored)."""
    if row.id is None:
        raise DatabaseError(f"{type(row).__name__} has no id: it was never stored")
    return row.id

#: a query's option that leaves a version's source unread until it is asked for (up to 256 KiB each; a board or a
#: report of versions never reads it)
UNREAD_SOURCE = defer(cast("QueryableAttribute[str]", BotVersion.source))


@dataclass(frozen=True, slots=True)
class ListedVersion:
    """The current version of a bot as a board lists it: ids, number, its bot's name and author, the uncertainty it
    starts from."""

    bot_id: int
    version_id: int
    number: int
    name: str
    author: str
    builtin: bool
    prior_sigma: float


def active_versions(session: Session, variant: str) -> list[ListedVersion]:
    """The current version of every bot that plays ``variant``, by bot name, as values: one statement that loads no
    source (a version a live season paused is listed: the boards show it; ``seated_versions`` leaves it out)."""
    return [ListedVersion(bot_id, version_id, number, name, author, builtin, sigma)
            for bot_id, version_id, number, name, author, builtin, sigma in session.connection().execute(
                _LISTED, {"variant": variant})
            if bot_id is not None and version_id is not None]


_LISTED = core_select(col(Bot.id), col(BotVersion.id), col(BotVersion.number), col(Bot.name), col(Bot.author),
                      col(Bot.builtin), col(BotVersion.prior_sigma)).where(
    col(BotVersion.bot_id) == col(Bot.id), col(BotVersion.active) == True,  # noqa: E712
    col(VersionFormat.version_id) == col(BotVersion.id), col(VersionFormat.variant) == bindparam("variant"),
    col(VersionFormat.plays) == True).order_by(col(Bot.name))  # noqa: E712


@dataclass(frozen=True, slots=True)
class SeatedVersion:
    """A version that takes seats in a format, as a planner reads it at every table: ids and its bot's author."""

    bot_id: int
    version_id: int
    number: int
    name: str
    author: str
    builtin: bool


def seated_versions(session: Session, variant: str, builtin_only: bool = False) -> list[SeatedVersion]:
    """The active versions that take seats in ``variant`` (not paused by a live season; with ``builtin_only``, only
    the built-in bots'), by bot name, as values: one statement that loads no source, asked before every table."""
    return [SeatedVersion(bot_id, version_id, number, name, author, builtin)
            for bot_id, version_id, number, name, author, builtin in session.connection().execute(
                _SEATED[builtin_only], {"variant": variant})
            if bot_id is not None and version_id is not None]


def _seated(builtin_only: bool) -> Any:
    query = core_select(col(Bot.id), col(BotVersion.id), col(BotVersion.number), col(Bot.name), col(Bot.author),
                        col(Bot.builtin)).where(
        col(BotVersion.bot_id) == col(Bot.id), col(BotVersion.active) == True,  # noqa: E712
        col(BotVersion.paused).is_(None), col(VersionFormat.version_id) == col(BotVersion.id),
        col(VersionFormat.variant) == bindparam("variant"), col(VersionFormat.plays) == True)  # noqa: E712
    if builtin_only:
        query = query.where(col(Bot.builtin) == True)  # noqa: E712
    return query.order_by(col(Bot.name))


#: ``seated_versions``' statements (all bots, built-in bots only), made once: it is asked before every table
_SEATED = {only: _seated(only) for only in (False, True)}


def prior_means(session: Session, variant: str) -> dict[int, float]:
    """The mean each version starts from in ``variant`` (versions without a row start from the default)."""
    return dict(session.exec(select(VersionFormat.version_id, VersionFormat.prior_mu)
                             .where(VersionFormat.variant == variant)).all())


def played_formats(session: Session, version_id: int) -> list[str]:
    """The formats a version plays, in no particular order."""
    return list(session.exec(select(VersionFormat.variant).where(
        VersionFormat.version_id == version_id, VersionFormat.plays == True)).all())  # noqa: E712
