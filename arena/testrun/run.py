"""A test run (`arena test NEW --against OLD`): paired deals played on a local pool until the sequential
probability ratio test (arena/testrun/sprt.py) decides. Each table is one pair. In a format with a field (classic):
two deals (a fresh deck, two seats), each played by NEW and by OLD from the same seat against the same field with
the same bot seeds. In a two-player format (duel): NEW plays OLD directly, one deal played twice with
the seats swapped. Every game starts every bot afresh, as the ladder's do. The caller stores every
counted pair as it arrives, with its games (``on_pair``; arena/testrun/store.py)."""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Callable, Sequence

from arena.ladder.executors import LocalPoolExecutor, TableExecutor
from arena.formats import Format
from arena.play.records import GameRecord
from arena.play.tables import GameSpec, SeatEntry, TableTask
from arena.testrun.sprt import Hypotheses, Pentanomial, Verdict, deal_score
from sandbox import Limits, Tier

NEW, OLD = 0, 1  # indices of the two candidates in a table's bots; the field follows


@dataclass
class Progress:
    results: Pentanomial
    hypotheses: Hypotheses
    void: int = 0  # pairs lost to a machine fault (not counted)
    games_per_pair: int = 4  # 2 in a two-player format

    @property
    def verdict(self) -> Verdict | None:
        return self.results.verdict(self.hypotheses)

    def line(self) -> str:
        elo, low, high = self.results.elo()
        h = self.hypotheses
        return (f"pairs {self.results.pairs} {self.results.counts}, games {self.results.pairs * self.games_per_pair}: "
                f"LLR {self.results.llr(h):.2f} "
                f"[{h.lower:.2f}, {h.upper:.2f}], Elo {elo:+.1f} [{low:+.1f}, {high:+.1f}]"
                + (f", {self.void} void" if self.void else ""))


@dataclass(frozen=True)
class PlayedPair:
    """A counted pair: NEW's two scores, and its games in the pair's order, each as planned and as played."""

    scores: tuple[float, float]
    games: tuple[tuple[GameSpec, GameRecord], ...]


def pair_games(number: int, players: int, seat: int, deck: int,
               bot_seeds: Sequence[Sequence[int]]) -> tuple[GameSpec, ...]:
    """The four games of pair ``number`` (pure): deal 0 (deck seed ``deck``, NEW's and OLD's seat ``seat``)
    and deal 1 (``deck + 1``, the next seat), each played by NEW then by OLD; seatings index the table's
    bots (NEW, OLD, then the field in order), the field keeps its order around the table, and both
    games of a deal share that deal's ``bot_seeds`` (one per seat)."""
    games = []
    for deal, at in enumerate((seat, (seat + 1) % players)):
        for candidate in (NEW, OLD):
            others = iter(range(2, players + 1))
            seating = tuple(candidate if s == at else next(others) for s in range(players))
            games.append(GameSpec(number * 4 + deal * 2 + candidate, deck + deal, seating, tuple(bot_seeds[deal])))
    return tuple(games)


def pair_scores(games: Sequence[GameSpec], ranks: Sequence[Sequence[int]]) -> tuple[float, float]:
    """The two deal scores of a pair from its games (as ``pair_games`` lists them) and their ranks by seat."""
    first, second = (deal_score(ranks[d][games[d].seating.index(NEW)], ranks[d + 1][games[d + 1].seating.index(OLD)])
                     for d in (0, 2))
    return first, second


def duel_games(number: int, deck: int, bot_seeds: Sequence[int]) -> tuple[GameSpec, ...]:
    """The two games of pair ``number`` in a two-player format (pure): one deal (deck seed ``deck``) with
    NEW in seat 0 and OLD in seat 1, then the same deal with the seats swapped; both share ``bot_seeds``
    (one per seat)."""
    return (GameSpec(number * 4, deck, (NEW, OLD), tuple(bot_seeds)),
            GameSpec(number * 4 + 1, deck, (OLD, NEW), tuple(bot_seeds)))


def duel_scores(games: Sequence[GameSpec], ranks: Sequence[Sequence[int]]) -> tuple[float, float]:
    """The two game scores of a head-to-head pair (as ``duel_games`` lists them) from their ranks by seat."""
    first, second = (deal_score(r[g.seating.index(NEW)], r[g.seating.index(OLD)]) for g, r in zip(games, ranks))
    return first, second


def head_to_head(fmt: Format) -> bool:
    """Whether NEW plays OLD directly in ``fmt`` (a table holds two players at most: no room for a field)."""
    return fmt.players[1] == 2


def field_sizes(fmt: Format) -> tuple[int, int]:
    """How many field bots a pair's tables take in ``fmt`` (0 and 0 head to head); (1, 0), an empty
    range, when the format cannot hold a test at all (solo: one player)."""
    low, high = fmt.players
    if head_to_head(fmt):
        return 0, 0
    return max(low - 1, 1), high - 1


def pair_task(number: int, new: SeatEntry, old: SeatEntry, field: Sequence[SeatEntry], limits: Limits,
              tier: Tier, fmt: Format) -> TableTask:
    """One pair as a table: head to head, one fresh deal played twice with the seats swapped; with a
    field, two deals of one fresh deck, NEW and OLD each from the same two seats, the field alike."""
    deck = secrets.randbits(63)
    rules = fmt.rules().id
    if head_to_head(fmt):
        return TableTask(rules, (new, old), duel_games(number, deck, (secrets.randbits(63), secrets.randbits(63))),
                         limits, tier)
    players = len(field) + 1
    seat = secrets.randbelow(players)
    bot_seeds = [tuple(secrets.randbits(63) for _ in range(players)) for _deal in (0, 1)]
    return TableTask(rules, (new, old, *field), pair_games(number, players, seat, deck, bot_seeds), limits, tier)


def run_test(new: SeatEntry, old: SeatEntry, field: Sequence[SeatEntry], hypotheses: Hypotheses, max_pairs: int,
             executor: TableExecutor | int, limits: Limits, tier: Tier | Callable[[TableExecutor], Tier], fmt: Format,
             on_progress: Callable[[Progress], None] = lambda p: None, start: Progress | None = None,
             on_pair: Callable[[int, PlayedPair | None, Progress], None] = lambda n, s, p: None) -> Progress:
    """Play pairs until the test decides or ``max_pairs`` were counted (``start``: the pairs counted
    before, of a resumed test). ``on_pair`` gets every pair as it arrives, before ``on_progress``: its
    number in counting order, its scores and games (None for a void pair, not counted), and the
    progress with it counted. ``executor``: a season's executor (or a number of local workers); ``tier``
    may be asked of the started executor, as a season does."""
    progress = start or Progress(Pentanomial(), hypotheses)
    progress.games_per_pair = 2 if head_to_head(fmt) else 4
    score = duel_scores if head_to_head(fmt) else pair_scores
    if isinstance(executor, int):
        executor = LocalPoolExecutor(executor)
    tasks: dict[int, TableTask] = {}
    with executor:
        if callable(tier):
            tier = tier(executor)
        submitted = in_flight = 0
        while True:
            while (progress.verdict is None and in_flight < 2 * executor.slots()
                   and progress.results.pairs + in_flight < max_pairs):
                task = pair_task(submitted, new, old, field, limits, tier, fmt)
                tasks[submitted] = task
                executor.submit(task)
                submitted += 1
                in_flight += 1
            if not in_flight:
                break
            outcomes = executor.next_result()
            in_flight -= 1
            task = tasks.pop(outcomes[0].match_id // 4)
            records = [o.record for o in outcomes]
            if progress.verdict is not None:
                continue  # pairs that finish after the decision do not move it
            if any(r is None or r.void for r in records):
                progress.void += 1
                on_pair(progress.results.pairs, None, progress)
                continue
            played = {o.match_id: o.record for o in outcomes if o.record is not None}
            games = tuple((spec, played[spec.match_id]) for spec in task.games)
            scores = score(task.games, [[seat.rank for seat in record.seats] for _, record in games])
            number = progress.results.pairs
            progress.results.add(*scores)
            on_pair(number, PlayedPair(scores, games), progress)
            on_progress(progress)
    return progress
