"""TrueSkill use and matchmaking, as pure functions."""
from __future__ import annotations

import random
from typing import Sequence

import pytest

from arena.ladder.matchmaking import Candidate, Matchmaker, misorder_risk
from arena.ladder.ratings import MU, SIGMA, RatingBook, Skill, draw_probability, rate_game, tie_counts


def test_two_player_win_matches_the_published_trueskill_numbers() -> None:
    # The trueskill documentation's first example: a 1-vs-1 win from the default rating, draw 10%.
    winner, loser = rate_game([Skill(MU, SIGMA), Skill(MU, SIGMA)], [1, 2], 0.10)
    assert (round(winner.mu, 3), round(winner.sigma, 3)) == (29.396, 7.171)
    assert (round(loser.mu, 3), round(loser.sigma, 3)) == (20.604, 7.171)
    assert winner.games == loser.games == 1


def test_equal_coins_share_a_rank_and_move_nobody_apart() -> None:
    a, b, c = rate_game([Skill(MU, SIGMA)] * 3, [1, 1, 3], 0.1)
    assert a.mu == pytest.approx(b.mu, abs=0.01) and a.mu > MU > c.mu  # trueskill iterates, so nearly equal
    assert a.sigma < SIGMA


def test_score_is_conservative() -> None:
    assert Skill(30.0, 2.0).score == pytest.approx(24.0)


def test_tie_counts_and_draw_probability() -> None:
    assert tie_counts([1, 1, 3, 4]) == (1, 3)
    assert tie_counts([1, 2, 3]) == (0, 2)
    assert draw_probability(0, 0) == pytest.approx(1 / 20)
    assert draw_probability(50, 100) == pytest.approx(51 / 120)
    assert draw_probability(1000, 1000) == 0.5


def test_ratings_are_a_function_of_results_in_order() -> None:
    games = [([1, 2, 3], [1, 2, 3]), ([2, 3, 4], [3, 1, 1]), ([1, 3, 4], [2, 3, 1]), ([1, 2, 4], [1, 3, 2])]
    first, second = RatingBook({}), RatingBook({})
    for versions, ranks in games:
        first.record(versions, ranks)
        second.record(versions, ranks)
    assert first.skills == second.skills
    reordered = RatingBook({})
    for versions, ranks in reversed(games):
        reordered.record(versions, ranks)
    assert reordered.skills != first.skills  # the order is part of the input
    assert first.pairs == 8 and first.tied_pairs == 1


def test_priors_start_new_versions() -> None:
    book = RatingBook({7: Skill(31.0, SIGMA)})
    assert book.get(7) == Skill(31.0, SIGMA)
    assert book.get(8) == Skill(MU, SIGMA)


def candidates(mus: Sequence[float], scheduled: list[int]) -> list[Candidate]:
    return [Candidate(i, Skill(mu, 2.0), n) for i, (mu, n) in enumerate(zip(mus, scheduled))]


def test_least_played_bot_always_gets_a_seat() -> None:
    maker = Matchmaker(random.Random(1))
    mus = [10 + 2 * i for i in range(12)]
    for trial in range(30):
        scheduled = [20] * 12
        scheduled[trial % 12] = 3
        table = maker.table(candidates(mus, scheduled), 4)
        assert trial % 12 in table and len(set(table)) == 4


def test_misorder_risk_is_the_chance_the_shown_order_is_wrong() -> None:
    assert misorder_risk(Skill(25, 2), Skill(25, 2)) == pytest.approx(0.5)
    assert misorder_risk(Skill(40, 1), Skill(20, 1)) < 1e-6  # far apart: settled
    assert misorder_risk(Skill(20, 1), Skill(40, 1)) == misorder_risk(Skill(40, 1), Skill(20, 1))
    tied_scores = Skill(28, 2), Skill(25, 1)  # both 22: shown in name order, a toss-up either way
    assert misorder_risk(*tied_scores) == misorder_risk(*reversed(tied_scores)) == 0.5
    # a shown above b (score 24 > 20.5) although b's mean is higher: more likely wrong than right
    shown_above, better_mean = Skill(27, 1), Skill(29, 2.83)
    assert shown_above.score > better_mean.score
    assert misorder_risk(shown_above, better_mean) > 0.5


def test_games_go_where_the_order_is_in_doubt() -> None:
    maker = Matchmaker(random.Random(2))
    mus = [10.0, 20.0, 30.0, 40.0, 40.5, 41.0, 50.0, 60.0]  # 40, 40.5, 41 are not yet told apart
    scheduled = [0] * len(mus)
    for _ in range(400):
        for v in maker.table([Candidate(i, Skill(mu, 1.0), n) for i, (mu, n) in enumerate(zip(mus, scheduled))], 3):
            scheduled[v] += 1
    close, settled = min(scheduled[3:6]), max(scheduled[0], scheduled[7])
    assert close > 2 * settled, scheduled
    assert min(scheduled) >= 0.4 * sum(scheduled) / len(mus), scheduled  # nobody starves


def test_recent_tables_are_avoided_among_equally_useful_ones() -> None:
    # 6 equal bots, 4 seats: 15 possible tables. 15 uniform draws give about 9.6 distinct tables.
    distinct = []
    for seed in range(50):
        maker = Matchmaker(random.Random(seed))
        distinct.append(len({frozenset(maker.table(candidates([25.0] * 6, [5] * 6), 4)) for _ in range(15)}))
    assert sum(distinct) / len(distinct) >= 12


def test_too_few_bots_is_an_error_that_says_so() -> None:
    with pytest.raises(ValueError, match="a table of 4 needs 4 bots of different authors, only 3 are active"):
        Matchmaker(random.Random(0)).table(candidates([1, 2, 3], [0, 0, 0]), 4)


def test_bots_of_one_author_never_share_a_table() -> None:
    """Two versions of a bot are never both active; bots of one author are one group: at most one a table."""
    maker = Matchmaker(random.Random(3))
    groups = ["mallory", "mallory", "mallory", None, None, "ann", "ann", "bob"]
    pool = [Candidate(i, Skill(20 + i, 2.0), 5, group) for i, group in enumerate(groups)]
    for _ in range(200):
        table = maker.table(pool, 5)  # 5 = every group once: mallory, ann, bob and the two ungrouped
        assert len(table) == 5
        seated = [groups[i] for i in table if groups[i] is not None]
        assert len(seated) == len(set(seated)) == 3
    with pytest.raises(ValueError, match="needs 6 bots of different authors, only 5 are active"):
        maker.table(pool, 6)
