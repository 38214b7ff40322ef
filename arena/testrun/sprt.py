"""The statistics of a test run (``arena test``, arena/testrun/run.py): the sequential probability ratio test
(SPRT) on paired results that decides whether NEW is stronger than OLD, as chess engine testing does it
(fishtest's generalized SPRT on pentanomial pair scores, Elo in the logistic model).

NEW and OLD each play the same deal from the same seat against the same field (the field's bots get
the same seeds); the deal's score is 1 if NEW finished above OLD, 0.5 if level, 0 if below. Two deals
(two seats of one deck) make a pair, whose mean score is one of 0, 1/4, 1/2, 3/4, 1: the pentanomial
counts of those five outcomes carry the test. The log-likelihood ratio of "NEW is ``elo1`` better"
against "NEW is ``elo0`` better" is the GSPRT approximation (normal on the pair scores); the test stops
when it leaves [log(beta/(1-alpha)), log((1-beta)/alpha)].
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: Half a pair in every outcome when estimating the mean and variance (not in the count of pairs): the
#: first few pairs, often all alike, would otherwise claim no variance and decide at once.
PRIOR = 0.5


def score_of_elo(elo: float) -> float:
    """The expected score of a side ``elo`` points stronger (logistic)."""
    odds: float = 10.0 ** (-elo / 400.0)  # typeshed gives a float power as Any: a negative base makes a complex
    return 1.0 / (1.0 + odds)


def elo_of_score(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0)


class Verdict(StrEnum):
    """What the test decided; None stands for no decision (yet, or ever: MAX-PAIRS reached)."""

    H1 = "H1"  # NEW is better (by elo1)
    H0 = "H0"  # NEW is not better (by elo0 at most)


@dataclass(frozen=True)
class Hypotheses:
    """H0: NEW is ``elo0`` better; H1: ``elo1`` better. ``alpha``: the chance of H1 when H0 holds;
    ``beta``: of H0 when H1 holds."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 ({self.elo0}) must be below elo1 ({self.elo1})")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError(f"alpha and beta must lie in (0, 0.5), got {self.alpha} and {self.beta}")

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)


@dataclass
class Pentanomial:
    """How many pairs scored 0, 1/4, 1/2, 3/4 and 1 for NEW."""

    counts: list[int] = field(default_factory=lambda: [0, 0, 0, 0, 0])

    def add(self, first: float, second: float) -> None:
        """One pair: the scores of its two deals (each 0, 0.5 or 1)."""
        self.counts[round((first + second) * 2)] += 1

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def mean_and_variance(self) -> tuple[float, float]:
        """Of the pair scores, each outcome given ``PRIOR`` more pairs."""
        weights = [c + PRIOR for c in self.counts]
        n = sum(weights)
        mean = sum(w * s for w, s in zip(weights, PAIR_SCORES)) / n
        return mean, sum(w * (s - mean) ** 2 for w, s in zip(weights, PAIR_SCORES)) / n

    def llr(self, h: Hypotheses) -> float:
        """The log-likelihood ratio of elo1 against elo0 (0 before any pair)."""
        n = self.pairs
        if not n:
            return 0.0
        mean, variance = self.mean_and_variance()
        s0, s1 = score_of_elo(h.elo0), score_of_elo(h.elo1)
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)

    def elo(self) -> tuple[float, float, float]:
        """NEW's estimated Elo difference and its 95% interval."""
        mean, variance = self.mean_and_variance()
        half = 1.96 * math.sqrt(variance / self.pairs) if self.pairs else 0.5
        return elo_of_score(mean), elo_of_score(mean - half), elo_of_score(mean + half)

    def verdict(self, h: Hypotheses) -> Verdict | None:
        """H1 (NEW is better), H0 (it is not), or None while the test goes on."""
        llr = self.llr(h)
        return Verdict.H1 if llr >= h.upper else Verdict.H0 if llr <= h.lower else None


def deal_score(new_rank: int, old_rank: int) -> float:
    """1 if NEW finished above OLD on the same deal and seat, 0.5 if level, 0 below."""
    return 1.0 if new_rank < old_rank else 0.5 if new_rank == old_rank else 0.0
