"""`arena test NEW --against OLD`: the sequential test's arithmetic, the pairing of deals, and the
command end to end with real sandboxed bots (a clearly stronger bot reaches H1; a bot against its
own copy never does: tests/arena/test_testrun_stored.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from arena_helpers import run_arena

from arena.formats import format_of
from arena.testrun.sprt import Hypotheses, Pentanomial, deal_score, elo_of_score, score_of_elo
from arena.play.tables import SeatEntry
from arena.testrun.run import NEW, OLD, duel_scores, pair_task
from sandbox import Limits, Tier

def test_the_log_likelihood_ratio_moves_with_the_evidence() -> None:
    h = Hypotheses(0, 50, 0.05, 0.05)
    assert Pentanomial().llr(h) == 0 and Pentanomial().verdict(h) is None
    assert h.lower == pytest.approx(-2.944, abs=1e-3) and h.upper == pytest.approx(2.944, abs=1e-3)
    better, level = Pentanomial(), Pentanomial()
    llrs = []
    for _ in range(30):
        better.add(1.0, 0.5)  # NEW ahead in one deal of each pair, level in the other
        level.add(0.5, 0.5)
        llrs.append(better.llr(h))
    assert llrs == sorted(llrs) and better.verdict(h) == "H1" and level.verdict(h) == "H0"
    one = Pentanomial()
    one.add(1.0, 1.0)
    assert one.verdict(h) is None  # a single pair, however good, decides nothing
    mirrored = Pentanomial([3, 1, 5, 7, 2])
    assert Pentanomial([2, 7, 5, 1, 3]).elo()[0] == pytest.approx(-mirrored.elo()[0])
    assert elo_of_score(score_of_elo(123.0)) == pytest.approx(123.0)
    assert [deal_score(1, 2), deal_score(2, 2), deal_score(3, 2)] == [1.0, 0.5, 0.0]
    with pytest.raises(ValueError, match=r"elo0 \(5\) must be below elo1 \(0\)"):
        Hypotheses(5, 0)


def test_a_pair_puts_new_and_old_in_the_same_seat_of_the_same_deal() -> None:
    entries = [SeatEntry(-1 - i, name, name) for i, name in enumerate(("new", "old", "f1", "f2", "f3"))]
    task = pair_task(7, entries[0], entries[1], entries[2:], Limits(), Tier.STRONG, format_of("classic"))
    assert [b.name for b in task.bots] == ["new", "old", "f1", "f2", "f3"] and len(task.games) == 4
    for deal in (0, 1):
        with_new, with_old = task.games[2 * deal], task.games[2 * deal + 1]
        assert with_new.seed == with_old.seed and with_new.bot_seeds == with_old.bot_seeds
        assert with_new.seating.index(NEW) == with_old.seating.index(OLD)  # the same seat
        assert [s for s in with_new.seating if s > 1] == [s for s in with_old.seating if s > 1] == [2, 3, 4]
    assert task.games[0].seating.index(NEW) != task.games[2].seating.index(NEW)  # the second deal: another seat
    assert task.games[0].seed != task.games[2].seed and sorted(g.match_id for g in task.games) == [28, 29, 30, 31]
    assert task.rules_id == format_of("classic").rules().id


def test_a_duel_pair_is_one_deal_with_the_seats_swapped() -> None:
    new, old = (SeatEntry(-1 - i, name, name) for i, name in enumerate(("new", "old")))
    duel = format_of("duel")
    task = pair_task(3, new, old, [], Limits(), Tier.STRONG, duel)
    assert task.rules_id == duel.rules().id and [b.name for b in task.bots] == ["new", "old"]
    first, second = task.games
    assert first.seed == second.seed and first.bot_seeds == second.bot_seeds  # the same deal, the same seeds per seat
    assert (first.seating, second.seating) == ((NEW, OLD), (OLD, NEW)) and [first.match_id, second.match_id] == [12, 13]
    # ranks by seat: NEW wins the first game (seat 0) and ties the second; loses both; wins both
    assert duel_scores(task.games, [[1, 2], [1, 1]]) == (1.0, 0.5)
    assert duel_scores(task.games, [[2, 1], [1, 2]]) == (0.0, 0.0)
    assert duel_scores(task.games, [[1, 2], [2, 1]]) == (1.0, 1.0)


@pytest.mark.slow
def test_bad_test_arguments_are_one_line(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    reversed_h = run_arena("test", "trader", "--against", "random", "--elo0", "5", "--elo1", "0", db=db)
    assert reversed_h.returncode == 2 and reversed_h.stderr.strip() == "Error: elo0 (5.0) must be below elo1 (0.0)"
    crowded = run_arena("test", "trader", "--against", "random", "--field", "a,b,c,d,e", db=db)
    assert crowded.returncode == 2 and "--field wants 2 to 4 bots" in crowded.stderr
    unknown = run_arena("test", "trader", "--against", "nobody", db=db)
    assert unknown.returncode == 2 and unknown.stderr.strip().startswith("Error: no bot 'nobody'")


@pytest.mark.slow
def test_a_stronger_bot_reaches_h1_on_a_dask_cluster_as_a_season_does(tmp_path: Path) -> None:
    """One test played end to end, on dask (the local executor plays the tests of test_testrun_stored.py,
    where a copy of a bot never reaches H1)."""
    db = tmp_path / "ladder.sqlite"
    better = run_arena("-q", "test", "trader", "--against", "random", "--field", "random,greedy", "--elo1", "50",
                       "--max-pairs", "60", "--executor", "dask-local", "--workers", "2", db=db)
    assert better.returncode == 0, better.stdout + better.stderr
    assert better.stdout.startswith("H1: trader_bot is better than random_bot (pairs ")
    wrong = run_arena("test", "greedy", "--against", "random", "--name", "elsewhere", "--executor", "mars", db=db)
    assert wrong.returncode == 2 and wrong.stderr.strip() == (
        "Error: --executor wants local, dask-local or dask://HOST:PORT, got 'mars'")
    listed = run_arena("test", "list", db=db)
    assert "elsewhere" not in listed.stdout and "trader_bot" in listed.stdout  # the refused test stored nothing
    pairs, games = listed.stdout.splitlines()[1].split()[4:6]  # every pair's 4 games came back from dask's workers
    assert int(pairs) >= 1 and int(games) == 4 * int(pairs)
