"""TrueSkill ratings: a pure function of the recorded results, in the order they were recorded."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from arena.ladder import trueskill_fast

MU = 25.0
SIGMA = MU / 3
BETA = MU / 6
TAU = MU / 300
#: draw probability = (tied neighbours + DRAW_PRIOR_TIES) / (neighbour pairs + DRAW_PRIOR_PAIRS)
DRAW_PRIOR_TIES = 1.0
DRAW_PRIOR_PAIRS = 20.0
DRAW_MIN, DRAW_MAX = 0.005, 0.5


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float
    sigma: float
    games: int = 0

    @property
    def score(self) -> float:
        """The leaderboard score: a conservative estimate, mu - 3 sigma."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class RatedGame:
    """One recorded game as a ranking takes it: its match, its versions in seat order and their ranks."""

    match_id: int
    versions: tuple[int, ...]
    ranks: tuple[int, ...]


def draw_probability(tied_pairs: int, pairs: int) -> float:
    p = (tied_pairs + DRAW_PRIOR_TIES) / (pairs + DRAW_PRIOR_PAIRS)
    return min(DRAW_MAX, max(DRAW_MIN, p))


def tie_counts(ranks: Sequence[int]) -> tuple[int, int]:
    """(tied neighbour pairs, neighbour pairs) in one game's finishing order."""
    ordered = sorted(ranks)
    ties = sum(1 for a, b in zip(ordered, ordered[1:]) if a == b)
    return ties, len(ordered) - 1


def rate_game(skills: Sequence[Skill], ranks: Sequence[int], draw_p: float, tau: float = TAU) -> list[Skill]:
    """New skills of the seats of one game, from its full finishing order (ties share a rank): the ``trueskill``
    package's update (``TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=tau, draw_probability=draw_p).rate``) computed
    without its objects, equal to it bit for bit (arena/ladder/trueskill_fast.py); ``tau`` 0: no drift (a
    competition's final, where skill is taken not to change)."""
    rated = trueskill_fast.rate([s.mu for s in skills], [s.sigma for s in skills], [r - 1 for r in ranks], draw_p,
                                BETA, tau)
    return [Skill(mu, sigma, s.games + 1) for (mu, sigma), s in zip(rated, skills)]


class RatingBook:
    """Ratings of every version in one variant, advanced one recorded game at a time. ``generation``: the token of
    the latest recompute of the stored ratings when the book was read (a book read before the latest recompute
    is read again before it rates a game: ``arena.ladder.rankings.TrueSkill.record``)."""

    def __init__(self, priors: Mapping[int, Skill], tied_pairs: int = 0, pairs: int = 0, generation: int = 0,
                 tau: float = TAU) -> None:
        self.tau = tau
        self.priors = dict(priors)
        self.skills: dict[int, Skill] = {}
        self.tied_pairs = tied_pairs
        self.pairs = pairs
        self.generation = generation

    def take(self, other: RatingBook) -> None:
        """Become ``other`` (a book read again), in place: whoever holds this book sees the new ratings."""
        self.priors, self.skills = dict(other.priors), dict(other.skills)
        self.tied_pairs, self.pairs, self.generation = other.tied_pairs, other.pairs, other.generation

    def get(self, version_id: int) -> Skill:
        skill = self.skills.get(version_id)
        if skill is None:
            skill = self.priors.get(version_id, Skill(MU, SIGMA))
        return skill

    def record(self, version_ids: Sequence[int], ranks: Sequence[int]) -> list[Skill]:
        new = rate_game([self.get(v) for v in version_ids], ranks, draw_probability(self.tied_pairs, self.pairs),
                        self.tau)
        for v, skill in zip(version_ids, new):
            self.skills[v] = skill
        ties, pairs = tie_counts(ranks)
        self.tied_pairs += ties
        self.pairs += pairs
        return new
