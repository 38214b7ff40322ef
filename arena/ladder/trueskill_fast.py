"""TrueSkill's update for a game of single players, the ``trueskill`` package's own computation without its
objects: the same factor graph (prior, performance, team performance, differences, truncation), the same schedule
and the same floating-point operations in the same order, so every result equals ``TrueSkill.rate``'s bit for bit
(tests/arena/test_trueskill_fast.py checks it on 2,000 random games, ties and tau 0 included). It is what
the coordinator rates every game with: the package builds a graph of objects and dictionaries for each game, ~1 ms
of a season's coordinator CPU a game (docs/benchmarks.md, "The coordinator's CPU a game, cut")."""
from __future__ import annotations

import functools
import math
from typing import Sequence

import trueskill

INF = float("inf")
#: the package's default: the schedule stops once no message moved by more than this
MIN_DELTA = trueskill.DELTA
#: the package's v and w functions and its inverse normal, from an environment whose own settings they ignore
_FUNCTIONS = trueskill.TrueSkill()


# the draw probability, (ties + 1) / (pairs + 20) held within [0.005, 0.5] (ratings.py), changes with every game
# until it reaches a bound (a ladder with few ties: the lower one), then stays; a miss costs ~3 µs
@functools.lru_cache(maxsize=256, typed=True)
def _draw_margin(draw_probability: float, beta: float) -> float:
    """``trueskill.calc_draw_margin`` for two players, without an environment made for it."""
    return float(_FUNCTIONS.ppf((draw_probability + 1) / 2.) * math.sqrt(2) * beta)


def _roundtrip(mu: float, sigma: float) -> tuple[float, float]:
    """``Rating(mu, sigma)``'s own mu and sigma, read back from the precision it stores."""
    pi = sigma ** -2
    return _mu(pi, pi * mu), (math.sqrt(1 / pi) if pi else INF)


def _mu(pi: float, tau: float) -> float:
    return pi and tau / pi


def _sum1(val_pi: float, val_tau: float, msg_pi: float, msg_tau: float) -> tuple[float, float]:
    """A sum factor's message to its target from one term of coefficient 1 (a variable's value, the message it
    holds from the factor): the term's mean, then its precision's share (infinite where that precision is zero)."""
    div_pi, div_tau = val_pi - msg_pi, val_tau - msg_tau
    mu = 0 + 1.0 * _mu(div_pi, div_tau)
    try:
        pi_inv = 0 + 1.0 ** 2 / float(div_pi)
    except ZeroDivisionError:
        pi_inv = INF
    pi = 1. / pi_inv
    return pi, pi * mu


def _sum2(a_pi: float, a_tau: float, b_pi: float, b_tau: float, coeff_b: float) -> tuple[float, float]:
    """A sum factor's message to its target from two terms, each given as its value less the message it holds from
    the factor (the first of coefficient 1.0, the second of ``coeff_b``), summed in the package's order: the mean of
    each term, then its precision's share unless a term's precision was zero (infinite variance)."""
    mu = 0 + 1.0 * _mu(a_pi, a_tau)
    try:
        pi_inv = 0 + 1.0 ** 2 / a_pi
    except ZeroDivisionError:
        pi_inv = INF
    mu += coeff_b * _mu(b_pi, b_tau)
    if pi_inv != INF:
        try:
            pi_inv += coeff_b ** 2 / b_pi
        except ZeroDivisionError:
            pi_inv = INF
    pi = 1. / pi_inv
    return pi, pi * mu


def rate(mus: Sequence[float], sigmas: Sequence[float], ranks: Sequence[int], draw_probability: float,
         beta: float, tau: float) -> list[tuple[float, float]]:
    """(mu, sigma) of each player after a game with ``ranks`` (0 best, ties equal), as
    ``TrueSkill(beta=beta, tau=tau, draw_probability=...).rate([(Rating(mu, sigma),), ...], ranks)`` gives them,
    read back through ``Rating`` (``.mu``, ``.sigma``)."""
    order = sorted(range(len(ranks)), key=lambda i: ranks[i])  # stable, as the package sorts
    n = len(order)
    margin = _draw_margin(draw_probability, beta)
    variance = beta ** 2
    # each variable's value and the message each factor sent it, as a precision and a precision-adjusted mean
    # (all zero at first, as the package starts them): skill r (from the likelihood: rl), performance p (from the
    # likelihood: pl; the team's sum sends it nothing before the differences), team performance t (from its sum:
    # ts; the differences' messages: ``_differences``)
    r_pi, r_tau = [0.] * n, [0.] * n
    p_pi, p_tau, pl_pi, pl_tau = [0.] * n, [0.] * n, [0.] * n, [0.] * n
    t_pi, t_tau, ts_pi, ts_tau = [0.] * n, [0.] * n, [0.] * n, [0.] * n
    for k, i in enumerate(order):  # the priors, with the dynamics (the prior's own message is never read again)
        mu, sigma = _roundtrip(mus[i], sigmas[i])
        s = math.sqrt(sigma ** 2 + tau ** 2)
        pi = s ** -2
        r_pi[k], r_tau[k] = pi, pi * mu
    for k in range(n):  # performance from skill (the likelihood's message to the skill is still zero)
        msg_pi, msg_tau = r_pi[k] - 0., r_tau[k] - 0.
        a = 1. / (1. + variance * msg_pi)
        pi, tau_ = a * msg_pi, a * msg_tau
        p_pi[k], p_tau[k], pl_pi[k], pl_tau[k] = (0. - 0.) + pi, (0. - 0.) + tau_, pi, tau_
    for k in range(n):  # a team of one: its performance
        pi, tau_ = _sum1(p_pi[k], p_tau[k], 0., 0.)
        t_pi[k], t_tau[k], ts_pi[k], ts_tau[k] = (0. - 0.) + pi, (0. - 0.) + tau_, pi, tau_
    tie = [ranks[order[k]] == ranks[order[k + 1]] for k in range(n - 1)]
    _differences(t_pi, t_tau, n - 1, margin, tie)
    out: list[tuple[float, float]] = [(0., 0.)] * n
    for k, i in enumerate(order):  # back to each performance, then each skill
        pi, tau_ = _sum1(t_pi[k], t_tau[k], ts_pi[k], ts_tau[k])
        p_pi[k], p_tau[k] = (p_pi[k] - 0.) + pi, (p_tau[k] - 0.) + tau_
        msg_pi, msg_tau = p_pi[k] - pl_pi[k], p_tau[k] - pl_tau[k]
        a = 1. / (1. + variance * msg_pi)
        pi, tau_ = (r_pi[k] - 0.) + a * msg_pi, (r_tau[k] - 0.) + a * msg_tau
        out[i] = _roundtrip(_mu(pi, tau_), math.sqrt(1 / pi) if pi else INF)
    return out


def _differences(tpi: list[float], ttau: list[float], diffs: int, margin: float, tie: list[bool]) -> None:
    """The schedule's loop over the differences of neighbouring team performances ``tpi``, ``ttau`` (updated in
    place with what the differences send them back), until no truncation moves by more than ``MIN_DELTA`` or 10 sweeps.

    The hot part of a season's coordinator (~60 % of its rating): each variable and message as two floats in flat
    lists, the truncation and the messages' updates in line, the same operations in the same order as the package
    (a 4-player game's update 1.8x faster than with a list and a call for each, docs/benchmarks.md)."""
    n = diffs + 1
    lpi, ltau = [0.] * n, [0.] * n   # from difference k to t[k] (t[k] is its first term)
    rpi, rtau = [0.] * n, [0.] * n   # from difference k-1 to t[k] (t[k] is its second term)
    dpi, dtau = [0.] * diffs, [0.] * diffs        # difference
    ddpi, ddtau = [0.] * diffs, [0.] * diffs      # its message from the sum
    dtpi, dttau = [0.] * diffs, [0.] * diffs      # its message from the truncation
    cdf, pdf = _FUNCTIONS.cdf, _FUNCTIONS.pdf
    forward = range(diffs - 1)
    backward = range(diffs - 1, 0, -1)
    if diffs == 1:
        sweeps: list[tuple[int, int]] = [(0, -1)]
    else:  # (difference, which neighbour then gets its message: 1 the next, 0 its own, -1 none)
        sweeps = [(k, 1) for k in forward] + [(k, 0) for k in backward]
    for _ in range(10):
        delta = 0.
        for k, up in sweeps:
            j = k + 1  # the sum factor to difference k: t[k] less t[k+1]
            pi, tau_ = _sum2(tpi[k] - lpi[k], ttau[k] - ltau[k], tpi[j] - rpi[j], ttau[j] - rtau[j], -1.0)
            new_pi, new_tau = (dpi[k] - ddpi[k]) + pi, (dtau[k] - ddtau[k]) + tau_
            ddpi[k], ddtau[k], dpi[k], dtau[k] = pi, tau_, new_pi, new_tau
            # the truncation of difference k
            div_pi, div_tau = dpi[k] - dtpi[k], dtau[k] - dttau[k]
            sqrt_pi = math.sqrt(div_pi)
            x0, x1 = div_tau / sqrt_pi, margin * sqrt_pi
            if tie[k]:  # the package's v and w of a draw, each normal density and distribution computed once
                abs_diff = abs(x0)
                a, b = x1 - abs_diff, -x1 - abs_diff
                denom = cdf(a) - cdf(b)
                pdf_a, pdf_b = pdf(a), pdf(b)
                ratio = ((pdf_b - pdf_a) / denom) if denom else a
                v = ratio * (-1 if x0 < 0 else +1)
                if not denom:
                    _FUNCTIONS.w_draw(x0, x1)  # raises the package's own error
                w = (ratio ** 2) + (a * pdf_a - b * pdf_b) / denom
            else:  # the package's v of a win, and its w as v * (v + x) with that v
                x = x0 - x1
                denom = cdf(x)
                v = (pdf(x) / denom) if denom else -x
                w = v * (v + x)
                if not 0 < w < 1:
                    w = _FUNCTIONS.w_win(x0, x1)  # raises the package's own error
            denom = (1. - w)
            pi, tau_ = div_pi / denom, (div_tau + sqrt_pi * v) / denom
            dtpi[k], dttau[k] = (pi + dtpi[k]) - dpi[k], (tau_ + dttau[k]) - dtau[k]
            pi_delta = abs(dpi[k] - pi)
            moved = 0. if pi_delta == INF else max(abs(dtau[k] - tau_), math.sqrt(pi_delta))
            dpi[k], dtau[k] = pi, tau_
            if moved > delta or diffs == 1:  # max(), as the package takes it; one difference: its own
                delta = moved
            if up == 1:
                _up_next(k, tpi, ttau, lpi, ltau, rpi, rtau, dpi, dtau, ddpi, ddtau)
            elif up == 0:
                _up_own(k, tpi, ttau, lpi, ltau, rpi, rtau, dpi, dtau, ddpi, ddtau)
        if delta <= MIN_DELTA:
            break
    _up_own(0, tpi, ttau, lpi, ltau, rpi, rtau, dpi, dtau, ddpi, ddtau)
    _up_next(diffs - 1, tpi, ttau, lpi, ltau, rpi, rtau, dpi, dtau, ddpi, ddtau)


def _up_own(k: int, tpi: list[float], ttau: list[float], lpi: list[float], ltau: list[float], rpi: list[float],
            rtau: list[float], dpi: list[float], dtau: list[float], ddpi: list[float], ddtau: list[float]) -> None:
    """Difference k's sum factor to t[k]: the difference plus t[k+1]."""
    pi, tau_ = _sum2(dpi[k] - ddpi[k], dtau[k] - ddtau[k], tpi[k + 1] - rpi[k + 1], ttau[k + 1] - rtau[k + 1], 1.0)
    tpi[k], ttau[k], lpi[k], ltau[k] = (tpi[k] - lpi[k]) + pi, (ttau[k] - ltau[k]) + tau_, pi, tau_


def _up_next(k: int, tpi: list[float], ttau: list[float], lpi: list[float], ltau: list[float], rpi: list[float],
             rtau: list[float], dpi: list[float], dtau: list[float], ddpi: list[float], ddtau: list[float]) -> None:
    """Difference k's sum factor to t[k+1]: t[k] less the difference."""
    pi, tau_ = _sum2(tpi[k] - lpi[k], ttau[k] - ltau[k], dpi[k] - ddpi[k], dtau[k] - ddtau[k], -1.0)
    j = k + 1
    tpi[j], ttau[j], rpi[j], rtau[j] = (tpi[j] - rpi[j]) + pi, (ttau[j] - rtau[j]) + tau_, pi, tau_
