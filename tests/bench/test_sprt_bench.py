"""bench/sprt_calibration.py with real bots: its pairs are arena test's pairs, and its quick mode prints the figures."""
from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from arena.testrun.sprt import Hypotheses, Pentanomial
from arena.testrun.run import NEW, OLD, pair_games

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.append(str(BENCH))  # bench scripts import ``common`` by name; appended, so bench/engine.py shadows nothing
_spec = importlib.util.spec_from_file_location("bench_sprt", BENCH / "sprt_calibration.py")
assert _spec is not None and _spec.loader is not None, BENCH / "sprt_calibration.py"
sprt = importlib.util.module_from_spec(_spec)
sys.modules["bench_sprt"] = sprt  # the pool's workers find the task functions by module name
_spec.loader.exec_module(sprt)

FIELD = ("random", "greedy", "trader")


def test_an_exact_copy_plays_the_same_game_in_each_deal() -> None:
    """Same deck, seat, field and seeds for NEW and OLD: two copies of a bot that takes its randomness
    from the bot seed (random) or has none (greedy) finish every deal with the same ranks."""
    for k in range(3):
        rng = random.Random(k)
        seat, deck = rng.randrange(4), rng.getrandbits(63)
        seeds = [tuple(rng.getrandbits(63) for _ in range(4)) for _deal in (0, 1)]
        games = pair_games(k, 4, seat, deck, seeds)
        for name in ("random", "greedy"):
            bots = (name, name, *FIELD)
            ranks = [sprt.play(bots, g) for g in games]
            assert ranks[0] == ranks[1] and ranks[2] == ranks[3]
            assert games[0].seating.index(NEW) == games[1].seating.index(OLD) == seat
        assert sprt.play_pair("greedy", "greedy", FIELD, k, random.Random(k)) == (0.5, 0.5)


def test_epsilon_copies_flip_their_own_coins_and_a_gap_shows() -> None:
    same = [sprt.play_pair("greedy-e20", "greedy-e20", FIELD, k, random.Random(k)) for k in range(4)]
    assert any(score != 0.5 for pair in same for score in pair)  # NEW's and OLD's coins differ
    against_random = [sprt.play_pair("greedy", "random", FIELD, k, random.Random(k)) for k in range(3)]
    assert sum(sum(p) for p in against_random) >= 4.5  # greedy finishes above random in most deals


def test_an_all_level_test_accepts_h0_after_the_documented_pairs() -> None:
    """docs/benchmarks.md: an exact copy's test ends in H0 after 18 pairs (elo1 50) and 188 (elo1 5)."""
    for elo1, pairs in ((50.0, 18), (5.0, 188)):
        h = Hypotheses(0.0, elo1)
        assert Pentanomial([0, 0, pairs - 1, 0, 0]).verdict(h) is None
        assert Pentanomial([0, 0, pairs, 0, 0]).verdict(h) == "H0"


def test_the_trueskill_counts() -> None:
    history = [0.5, 0.96, 0.9, 0.97, 0.99]
    assert sprt.first_at(history, 0.95) == 2 and sprt.for_good(history, 0.95) == 4
    assert sprt.for_good([0.99, 0.5], 0.95) is None and sprt.first_at([0.5], 0.95) is None
    low, high = sprt.wilson(0, 20)
    assert low == 0.0 and 0.15 < high < 0.17


@pytest.mark.slow  # a whole benchmark run, several worker processes
def test_the_quick_mode_prints_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    sprt.main(["--quick"])
    out = capsys.readouterr().out
    assert "## greedy (NEW) : greedy (OLD)" in out and "## greedy (NEW) : greedy-e20 (OLD)" in out
    assert "gap: 4 pairs, pentanomial [0, 0, 4, 0, 0]" in out  # the exact copy: every pair level
    assert out.count("SPRT elo1 50: 2 tests, H1 ") == 2 and out.count("TrueSkill (2 seasons") == 2
    assert out.count("games to confident for good:") == 2 and "total " in out
