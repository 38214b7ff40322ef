"""arena/ladder/trueskill_fast.py gives what the ``trueskill`` package gives, bit for bit: every rating the ladder
stored before it came in is the same after."""
from __future__ import annotations

import random

import pytest
import trueskill

from arena.ladder.ratings import BETA, MU, SIGMA, TAU, Skill, rate_game
from arena.ladder.trueskill_fast import rate


def package(mus: list[float], sigmas: list[float], ranks: list[int], draw_p: float,
            tau: float) -> list[tuple[float, float]] | str:
    env = trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=tau, draw_probability=draw_p)
    try:
        rated = env.rate([(env.create_rating(m, s),) for m, s in zip(mus, sigmas)], ranks=ranks)
    except FloatingPointError:
        return "FloatingPointError"
    return [(group[0].mu, group[0].sigma) for group in rated]


def bits(rated: list[tuple[float, float]] | str) -> list[tuple[str, str]] | str:
    """Each float as its exact bits (``float.hex``: unlike ``==``, it tells 0.0 from -0.0)."""
    return rated if isinstance(rated, str) else [(mu.hex(), sigma.hex()) for mu, sigma in rated]


def ours(mus: list[float], sigmas: list[float], ranks: list[int], draw_p: float,
         tau: float) -> list[tuple[float, float]] | str:
    try:
        return rate(mus, sigmas, ranks, draw_p, BETA, tau)
    except FloatingPointError:
        return "FloatingPointError"


@pytest.mark.parametrize("seed", range(4))
def test_random_games_rate_exactly_as_the_package_does(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(500):
        n = rng.randint(2, 5)
        mus = [rng.uniform(-10, 60) for _ in range(n)]
        sigmas = [rng.choice([SIGMA, rng.uniform(0.3, 9.0)]) for _ in range(n)]
        ranks = [rng.randrange(n) if rng.random() < 0.3 else k for k in range(n)]  # ties, now and then
        rng.shuffle(ranks)
        draw_p = rng.choice([0.005, 0.5, rng.uniform(0.005, 0.5)])
        tau = rng.choice([TAU, 0.0])
        assert bits(ours(mus, sigmas, ranks, draw_p, tau)) == bits(package(mus, sigmas, ranks, draw_p, tau)), (
            mus, sigmas, ranks)


def test_a_long_run_of_one_table_stays_equal() -> None:
    """Ratings fed back game after game (what a season does): no difference creeps in."""
    rng = random.Random(7)
    skills_a = skills_b = [(MU, SIGMA)] * 4
    for _ in range(300):
        ranks = rng.sample(range(4), 4)
        a = package([m for m, _ in skills_a], [s for _, s in skills_a], ranks, 0.05, TAU)
        skills_b = rate([m for m, _ in skills_b], [s for _, s in skills_b], ranks, 0.05, BETA, TAU)
        assert isinstance(a, list) and bits(a) == bits(skills_b)
        skills_a = a


def test_an_upset_the_package_cannot_compute_raises_the_same_error() -> None:
    mus, sigmas, ranks = [-400.0, 400.0], [0.5, 0.5], [0, 1]  # a hopeless outsider wins
    assert package(mus, sigmas, ranks, 0.005, 0.0) == "FloatingPointError"
    assert ours(mus, sigmas, ranks, 0.005, 0.0) == "FloatingPointError"


def test_rate_game_counts_the_game_and_keeps_the_seat_order() -> None:
    skills = [Skill(30.0, 2.0, 5), Skill(20.0, 8.0, 0), Skill(25.0, 4.0, 2)]
    new = rate_game(skills, [3, 1, 2], 0.05)
    expected = package([30.0, 20.0, 25.0], [2.0, 8.0, 4.0], [2, 0, 1], 0.05, TAU)
    assert [(s.mu, s.sigma) for s in new] == expected and [s.games for s in new] == [6, 1, 3]
    assert new[1].mu > 20.0 and new[0].mu < 30.0  # the winner gains, the last loses
