"""`arena test NEW --against OLD`: paired deals played on a season's executor until the sequential test
(arena/sprt.py) decides. Each table is one pair: two deals (a fresh deck, two seats), each played by
NEW and by OLD from the same seat against the same field with the same bot seeds; every game starts
every bot afresh, as the ladder's do."""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Callable, Sequence

from arena.executors import LocalPoolExecutor
from arena.match import GameSpec, SeatEntry, TableTask
from arena.sprt import Hypotheses, Pentanomial, deal_score
from sandbox import Limits, Tier

NEW, OLD = 0, 1  # indices of the two candidates in a table's bots; the field follows


@dataclass
class Progress:
    results: Pentanomial
    hypotheses: Hypotheses
    void: int = 0  # pairs lost to a machine fault (not counted)

    @property
    def verdict(self) -> str | None:
        return self.results.verdict(self.hypotheses)

    def line(self) -> str:
        elo, low, high = self.results.elo()
        h = self.hypotheses
        return (f"pairs {self.results.pairs} {self.results.counts}: LLR {self.results.llr(h):.2f} "
                f"[{h.lower:.2f}, {h.upper:.2f}], Elo {elo:+.1f} [{low:+.1f}, {high:+.1f}]"
                + (f", {self.void} void" if self.void else ""))


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


def pair_task(number: int, new: SeatEntry, old: SeatEntry, field: Sequence[SeatEntry], limits: Limits,
              tier: Tier) -> TableTask:
    """Two deals of one fresh deck, NEW and OLD each from the same two seats, the field alike."""
    players = len(field) + 1
    seat = secrets.randbelow(players)
    deck = secrets.randbits(63)
    bot_seeds = [tuple(secrets.randbits(63) for _ in range(players)) for _deal in (0, 1)]
    return TableTask("classic-v2", (new, old, *field), pair_games(number, players, seat, deck, bot_seeds), limits, tier)


def run_test(new: SeatEntry, old: SeatEntry, field: Sequence[SeatEntry], hypotheses: Hypotheses, max_pairs: int, workers: int,
             limits: Limits, tier: Tier, on_progress: Callable[[Progress], None] = lambda p: None) -> Progress:
    """Play pairs until the test decides or ``max_pairs`` were counted."""
    progress = Progress(Pentanomial(), hypotheses)
    executor = LocalPoolExecutor(workers)
    tasks: dict[int, TableTask] = {}
    with executor:
        submitted = in_flight = 0
        while True:
            while (progress.verdict is None and in_flight < 2 * executor.slots()
                   and progress.results.pairs + in_flight < max_pairs):
                task = pair_task(submitted, new, old, field, limits, tier)
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
            if any(r is None or r.void for r in records):
                progress.void += 1
                continue
            scores = pair_scores(task.games, [[seat.rank for seat in r.seats] for r in records if r is not None])
            if progress.verdict is None:  # pairs that finish after the decision do not move it
                progress.results.add(*scores)
                on_progress(progress)
    return progress
