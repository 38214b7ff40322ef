"""The two ways a format ranks its bots: TrueSkill ratings, and win rate on the same deals.

``TrueSkill`` rates every game (the mean and uncertainty of each version, stored with a snapshot
after every game, so that a rerate can check them); ``WinRate`` only counts the wins of each version
on one season's deals, with a Wilson interval. A ``Format`` (``arena/formats.py``) names one.
"""
from __future__ import annotations

import math
import secrets
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Sequence, TypeVar

from sqlalchemy import bindparam, insert
from sqlmodel import Session, col, select

from arena.db import (BotVersion, Competition, Match, MatchSeat, MatchStatus, Meta, Rating, RatingSnapshot, Season,
                      active_versions, execute_many, prior_means, stored_id, table_of, upsert)
from arena.audit.flag_games import not_rated, taken_games
from arena.ladder.inheritance import Inheritance
from arena.ladder.random_seeds import private_deals
from arena.ladder.ratings import MU, RatedGame, RatingBook, Skill
from arena.text import shown


#: rated games a version plays before a TrueSkill board ranks it: before that it is listed, provisional, below the
#: ranked ones. A few lucky first games give a high score (mu - 3 sigma) that no one could trust: one copy of a
#: bot among several that wins its first four five-player games tops a board otherwise (tests/arena/
#: test_provisional.py), and copies under other names are lottery tickets.
RANKED_AFTER = 10


class RankingError(ValueError):
    """A board cannot be shown as asked (e.g. no season of that name)."""


def mean_interval(total: float, squares: float, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """The normal 95% interval of a mean from its sum and sum of squares over ``n`` values; None under 2 values."""
    if n < 2:
        return None
    mean = total / n
    sd = math.sqrt(max(0.0, (squares - n * mean * mean) / (n - 1)))
    return mean - z * sd / math.sqrt(n), mean + z * sd / math.sqrt(n)


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% for the default ``z``); (0, 1) without games."""
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


def load_book(session: Session, variant: str) -> RatingBook:
    """The stored ratings of ``variant`` (every version starts from its prior)."""
    book = RatingBook(starting_skills(session, variant), _meta_int(session, f"ties:{variant}"),
                      _meta_int(session, f"pairs:{variant}"), _meta_int(session, _generation_key(variant)))
    for row in session.exec(select(Rating).where(Rating.variant == variant)).all():
        book.skills[row.version_id] = Skill(row.mu, row.sigma, row.games)
    return book


def starting_skills(session: Session, variant: str) -> dict[int, Skill]:
    """Where each version's rating in ``variant`` starts: its prior mean there and the common uncertainty."""
    means = prior_means(session, variant)
    return {stored_id(v): Skill(means.get(stored_id(v), MU), v.prior_sigma)
            for v in session.exec(select(BotVersion)).all()}


def _meta_int(session: Session, key: str) -> int:
    row = session.get(Meta, key)
    return int(row.value) if row else 0


def _generation_key(variant: str) -> str:
    """The Meta key of the token of ``variant``'s latest recompute of its ratings (``RatingBook.generation``)."""
    return f"rerated:{variant}"


def _locked_generation(session: Session, variant: str) -> int:
    """The token of the latest recompute, read under a lock on its row (PostgreSQL; SQLite's writer holds the
    whole file): a recompute and a recording of one format never interleave."""
    return int(session.connection().execute(_GENERATION, {"key": _generation_key(variant)}).scalar() or 0)


def _set_meta(session: Session, key: str, value: int) -> None:
    session.merge(Meta(key=key, value=str(value)))  # the row by its key, updated, or added


RATINGS, SNAPSHOTS, METAS = table_of(Rating), table_of(RatingSnapshot), table_of(Meta)
_INSERT_SNAPSHOTS = insert(SNAPSHOTS)  # built once: a statement built per record costs its coercions again
_GENERATION = select(METAS.c.value).where(METAS.c.key == bindparam("key")).with_for_update()


def _recorded_rank(seat: MatchSeat) -> int:
    """The rank of a seat of a recorded match (a planned match's seats have none yet)."""
    if seat.rank is None:
        raise ValueError(f"seat {seat.seat} of match {seat.match_id} has no rank: the match was not recorded")
    return seat.rank


def _rank_cell(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of a board: a bot's active version in one format, and its place."""

    #: the board's column headers (``Ranking.table``), one per cell of ``cells()``
    columns: ClassVar[tuple[str, ...]] = ("rank", "bot", "version", "games")

    rank: int | None  # 1 for the best; rows are built with 0 and ranked once sorted; None on a board without games
    name: str
    author: str
    builtin: bool  # a boss: one of the arena's reference bots
    version: int
    version_id: int
    games: int

    @property
    def shown_name(self) -> str:
        """The name as the text board shows it (bosses marked)."""
        return self.name + (" (boss)" if self.builtin else "")

    def cells(self) -> tuple[str, ...]:
        """The row as text cells, one per ``columns``."""
        return (_rank_cell(self.rank), self.shown_name, str(self.version), str(self.games))

    def brief(self) -> str:
        """The standing in one cell, with its games (``arena bots``)."""
        return "-"

    def to_json(self) -> dict[str, Any]:
        """The row as ``arena leaderboard --json`` and the site's leaderboard JSON write it."""
        return {"name": self.name, "author": self.author, "builtin": self.builtin, "version": self.version,
                "version_id": self.version_id, "games": self.games, "rank": self.rank}


@dataclass(frozen=True, slots=True)
class RatedStanding(Standing):
    """A row of a TrueSkill board: the version's rating (``games`` counts its rated games)."""

    columns: ClassVar[tuple[str, ...]] = ("rank", "bot", "version", "score", "mu", "sigma", "games")

    score: float  # mu - 3 sigma, what the board ranks by
    mu: float
    sigma: float
    provisional: bool = False  # fewer than ``RANKED_AFTER`` rated games: listed, not ranked
    not_counted: int = 0  # its games a flag took out of the ratings (arena/audit/flag_games.py)

    def cells(self) -> tuple[str, ...]:
        rank = "new" if self.provisional else _rank_cell(self.rank)
        return (rank, self.shown_name, str(self.version), f"{self.score:.2f}", f"{self.mu:.2f}",
                f"{self.sigma:.2f}", str(self.games))

    def brief(self) -> str:
        return f"{self.score:.2f} ({self.games}{', new' if self.provisional else ''})"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "author": self.author, "builtin": self.builtin, "version": self.version,
                "version_id": self.version_id, "score": self.score, "mu": self.mu, "sigma": self.sigma,
                "games": self.games, "rank": self.rank, "provisional": self.provisional,
                "not_counted": self.not_counted}


@dataclass(frozen=True, slots=True)
class WinRateStanding(Standing):
    """A row of a win-rate board: the version's games on one season's deals (``season`` is None when
    the format has no season yet)."""

    columns: ClassVar[tuple[str, ...]] = ("rank", "bot", "version", "games", "wins", "win rate", "95% CI", "avg gold",
                                          "gold 95% CI")

    season: str | None
    wins: int
    win_rate: float  # 0.0 without games
    ci_low: float  # the 95% Wilson interval of the win rate
    ci_high: float
    avg_gold: float | None  # None without games
    #: the normal 95% interval of the average gold (None under two games): what tells bots apart that all lose
    gold_low: float | None = None
    gold_high: float | None = None
    #: the deals counted: "public" while the season is open (feedback), "private" once it is closed (the rank)
    half: str = "private"

    def cells(self) -> tuple[str, ...]:
        return (_rank_cell(self.rank), self.shown_name, str(self.version), str(self.games), str(self.wins),
                f"{self.win_rate:.1%}", f"{self.ci_low:.1%}-{self.ci_high:.1%}",
                "-" if self.avg_gold is None else f"{self.avg_gold:.2f}",
                "-" if self.gold_low is None or self.gold_high is None else f"{self.gold_low:.2f}-{self.gold_high:.2f}")

    def brief(self) -> str:
        return f"{self.win_rate:.0%} ({self.games})"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "author": self.author, "builtin": self.builtin, "version": self.version,
                "version_id": self.version_id, "season": self.season, "games": self.games, "wins": self.wins,
                "win_rate": self.win_rate, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "avg_gold": self.avg_gold, "gold_low": self.gold_low, "gold_high": self.gold_high, "rank": self.rank,
                "half": self.half}


_Row = TypeVar("_Row", bound=Standing)


def _ranked(rows: list[_Row]) -> list[_Row]:
    """``rows`` (sorted, best first) with their ranks; without a game on the board nobody is ranked
    (1..N on priors alone would look like results)."""
    if not any(row.games for row in rows):
        return [replace(row, rank=None) for row in rows]
    return [replace(row, rank=rank) for rank, row in enumerate(rows, start=1)]


class TrueSkill:
    """Every game rated with TrueSkill (``arena/ladder/ratings.py``); the board ranks by score (mu - 3 sigma)."""

    rated = True
    page = "index.html"
    ranked_after = RANKED_AFTER

    def record(self, session: Session, book: RatingBook, variant: str, games: Sequence[RatedGame]) -> None:
        """Rate recorded games in order, as ``rerate`` would (``book`` read again if the ratings were recomputed
        since: a flag, a clearing, ``--rerate``; a game a flag takes back not rated), a statement a table for the lot.
        The caller wrote the games' rows first: the write lock is this session's before it reads."""
        if _locked_generation(session, variant) != book.generation:
            book.take(load_book(session, variant))
        taken = taken_games(session, [(g.match_id, g.versions) for g in games])
        snapshots: list[dict[str, Any]] = []
        rated: dict[int, Skill] = {}
        for game in games:
            if game.match_id in taken:
                continue
            for version_id, skill in zip(game.versions, book.record(game.versions, game.ranks)):
                rated[version_id] = skill
                snapshots.append({"match_id": game.match_id, "version_id": version_id, "variant": variant,
                                  "mu": skill.mu, "sigma": skill.sigma, "games": skill.games})
        connection = session.connection()
        if snapshots:
            execute_many(connection, _INSERT_SNAPSHOTS, snapshots)
        upsert(connection, RATINGS, {"variant": variant}, "version_id",
               {v: {"mu": s.mu, "sigma": s.sigma, "games": s.games} for v, s in rated.items()})
        upsert(connection, METAS, {}, "key", {f"ties:{variant}": {"value": str(book.tied_pairs)},
                                              f"pairs:{variant}": {"value": str(book.pairs)}})

    def rerate(self, session: Session, variant: str, write: bool) -> list[str]:
        """Recompute every rating of ``variant`` from the recorded matches in order; the differences
        from what is stored (empty when they agree); the games a flag takes back (``arena.audit.flag_games``) are
        skipped. ``write`` replaces the stored ratings and snapshots under a new recompute token
        (``RatingBook.generation``: a book read before it is read again before it rates a game)."""
        generation = _locked_generation(session, variant)
        if write:  # taken first: no game is recorded between what is read here and what is written
            generation = secrets.randbits(62)  # a new token, never an old one again (two recomputes may overlap)
            _set_meta(session, _generation_key(variant), generation)
            session.flush()
        book = RatingBook(starting_skills(session, variant), generation=generation)
        snapshots: list[RatingSnapshot] = []
        matches = session.exec(select(Match).where(Match.status == MatchStatus.DONE)
                               .order_by(col(Match.rated_order))).all()
        taken = not_rated(session, variant)
        inheritance = Inheritance(session, hold=write)  # a new version's means, taken again where it took them
        for match in matches:
            inheritance.before(book, match.rated_order)
            if match.rules_id.rsplit("-v", 1)[0] != variant or stored_id(match) in taken:
                continue
            seats = session.exec(select(MatchSeat).where(MatchSeat.match_id == match.id)
                                 .order_by(col(MatchSeat.seat))).all()
            versions = [s.version_id for s in seats]
            for v, skill in zip(versions, book.record(versions, [_recorded_rank(s) for s in seats])):
                snapshots.append(RatingSnapshot(match_id=stored_id(match), version_id=v, variant=variant,
                                                mu=skill.mu, sigma=skill.sigma, games=skill.games))
        stored = {r.version_id: r for r in session.exec(select(Rating).where(Rating.variant == variant)).all()}
        differences = []
        for version_id in sorted(set(stored) | set(book.skills)):
            want, have = book.skills.get(version_id), stored.get(version_id)
            if want is None or have is None or (have.mu, have.sigma, have.games) != (want.mu, want.sigma, want.games):
                differences.append(f"version {version_id}: stored {have and (have.mu, have.sigma, have.games)}, "
                                   f"recomputed {want and (want.mu, want.sigma, want.games)}")
        differences += inheritance.settle(book, session, variant, write)
        if write:
            for snapshot in session.exec(select(RatingSnapshot).where(RatingSnapshot.variant == variant)).all():
                session.delete(snapshot)
            for rating in stored.values():
                session.delete(rating)
            session.flush()
            for version_id, skill in book.skills.items():
                session.add(Rating(version_id=version_id, variant=variant, mu=skill.mu, sigma=skill.sigma,
                                   games=skill.games))
            session.add_all(snapshots)
            _set_meta(session, f"ties:{variant}", book.tied_pairs)
            _set_meta(session, f"pairs:{variant}", book.pairs)
            session.commit()
        return differences

    def standings(self, session: Session, variant: str, season: str | None = None) -> list[RatedStanding]:
        """The active version of every bot that plays ``variant``, best first (a rating spans ``season``s)."""
        rows: list[RatedStanding] = []
        means = prior_means(session, variant)
        taken = not_rated(session, variant)
        out_of: dict[int, int] = {}
        if taken:
            for version_id in session.exec(select(MatchSeat.version_id).where(
                    col(MatchSeat.match_id).in_(list(taken)))).all():
                out_of[version_id] = out_of.get(version_id, 0) + 1
        ratings = {r.version_id: r for r in session.exec(select(Rating).where(Rating.variant == variant)).all()}
        for v in active_versions(session, variant):
            rating = ratings.get(v.version_id)
            skill = (Skill(rating.mu, rating.sigma, rating.games) if rating
                     else Skill(means.get(v.version_id, MU), v.prior_sigma))
            rows.append(RatedStanding(rank=0, name=v.name, author=shown(v.author), builtin=v.builtin,
                                      version=v.number, version_id=v.version_id, games=skill.games,
                                      score=round(skill.score, 4), mu=round(skill.mu, 4), sigma=round(skill.sigma, 4),
                                      provisional=skill.games < self.ranked_after,
                                      not_counted=out_of.get(v.version_id, 0)))
        rows.sort(key=lambda r: (r.provisional, -r.score, r.name))
        ranked = _ranked([r for r in rows if not r.provisional])
        return ranked + [replace(r, rank=None) for r in rows if r.provisional]

    def table(self, rows: Sequence[Standing]) -> list[tuple[str, ...]]:
        return [RatedStanding.columns] + [r.cells() for r in rows]


@dataclass(frozen=True, slots=True)
class _Tally:
    """One version's games on a season's deals: how many, how many won, the gold they made."""

    games: int = 0
    wins: int = 0
    gold: int = 0
    gold_squares: int = 0

    def plus(self, rank: int | None, coins: int | None) -> _Tally:
        return _Tally(self.games + 1, self.wins + (rank == 1), self.gold + (coins or 0),
                      self.gold_squares + (coins or 0) ** 2)


class WinRate:
    """Games counted, not rated: each version's win rate on one season's deals (every bot plays the
    same ones), with its 95% Wilson interval, then average gold."""

    rated = False
    page = "solo.html"
    ranked_after = 0  # every version plays the same deals: a version's count is the season's

    def record(self, session: Session, book: RatingBook, variant: str, games: Sequence[RatedGame]) -> None:
        pass  # the board counts the stored games

    def rerate(self, session: Session, variant: str, write: bool) -> list[str]:
        return []  # nothing is stored that the games would not give again

    def standings(self, session: Session, variant: str, season: str | None = None) -> list[WinRateStanding]:
        """Each active bot's games on one half of one season's deals (the latest season of ``variant`` unless
        ``season`` names one), ranked by win rate, then average gold: the public half while the season is open,
        the private half, which ranks it, once it is closed (``arena.ladder.planning.private_deals``). A bot's games are
        its versions' together, each deal once (the first game of it). ``ci_low``/``ci_high`` are the 95% Wilson
        interval of the win rate. Forfeits count as losses; void games do not count."""
        query = select(Season).where(Season.variant == variant)
        finals = select(Competition.season_id).where(col(Competition.season_id).is_not(None))
        chosen = session.exec(query.where(Season.name == season) if season  # a competition's final is no ladder season
                              else query.where(col(Season.id).not_in(finals)).order_by(col(Season.id).desc())).first()
        if season and chosen is None:
            raise RankingError(f"no {variant} season named {season!r}")
        tallies: dict[int, _Tally] = {}
        half = "public" if chosen is not None and chosen.closed_at is None else "private"
        if chosen is not None:
            private = private_deals(chosen.seed, chosen.games)
            counted: set[tuple[int, int]] = set()
            for bot_id, seed, rank, coins in session.exec(
                    select(BotVersion.bot_id, Match.seed, MatchSeat.rank, MatchSeat.coins).where(
                    MatchSeat.match_id == Match.id, MatchSeat.version_id == BotVersion.id,
                    Match.season_id == chosen.id, Match.status == MatchStatus.DONE).order_by(col(Match.id))).all():
                if (seed in private) != (half == "private") or (bot_id, seed) in counted:
                    continue
                counted.add((bot_id, seed))
                tallies[bot_id] = tallies.get(bot_id, _Tally()).plus(rank, coins)
        rows: list[WinRateStanding] = []
        for v in active_versions(session, variant):
            tally = tallies.get(v.bot_id, _Tally())
            games, wins, gold = tally.games, tally.wins, tally.gold
            low, high = wilson(wins, games)
            spread = mean_interval(gold, tally.gold_squares, games)
            rows.append(WinRateStanding(rank=0, name=v.name, author=shown(v.author), builtin=v.builtin,
                                        version=v.number, version_id=v.version_id, games=games,
                                        season=chosen.name if chosen else None, wins=wins,
                                        win_rate=round(wins / games if games else 0.0, 4), ci_low=round(low, 4),
                                        ci_high=round(high, 4), avg_gold=round(gold / games, 4) if games else None,
                                        gold_low=None if spread is None else round(spread[0], 4),
                                        gold_high=None if spread is None else round(spread[1], 4), half=half))
        rows.sort(key=lambda r: (r.games == 0, -r.win_rate, -(r.avg_gold or 0), r.name))
        # a version without a game on these deals is listed, not ranked; equal results share their rank
        played = [r for r in rows if r.games]
        ranks = [1 + next(k for k, o in enumerate(played) if (o.win_rate, o.avg_gold) == (r.win_rate, r.avg_gold))
                 for r in played]
        return [replace(r, rank=rank) for r, rank in zip(played, ranks)] + \
            [replace(r, rank=None) for r in rows if not r.games]

    def table(self, rows: Sequence[Standing]) -> list[tuple[str, ...]]:
        return [WinRateStanding.columns] + [r.cells() for r in rows]
