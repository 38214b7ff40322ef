"""TrueSkill's update for a game of single players, the ``trueskill`` package's own computation without its
objects: the same factor graph (prior, performance, team performance, differences, truncation), the same schedule
and the same floating-point operations in the same order, so every result equals ``TrueSkill.rate``'s bit for bit
(tests/arena/test_trueskill_fast.py checks it on 2,000 random games, ties and tau 0 included). It is what
the coordinator rates every game with: the package builds a graph of objects and dictionaries for each game, ~1 ms
of a season's coordinator CPU a game (docs/benchmarks.md, "The coordinator's CPU a game, cut")."""
from __future__ import annotations

import math
from typing import Sequence

import trueskill

INF = float("inf")
#: the package's default: the schedule stops once no message moved by more than this
MIN_DELTA = trueskill.DELTA
#: the package's v and w functions and its inverse normal, from an environment whose own settings they ignore
_FUNCTIONS = trueskill.TrueSkill()


def _draw_margin(draw_probability: float, beta: float) -> float:
    """``trueskill.calc_draw_margin`` for two players, without an environment made for it."""
    return float(_FUNCTIONS.ppf((draw_probability + 1) / 2.) * math.sqrt(2) * beta)


def _roundtrip(mu: float, sigma: float) -> tuple[float, float]:
    """``Rating(mu, sigma)``'s own mu and sigma, read back from the precision it stores."""
    pi = sigma ** -2
    return _mu(pi, pi * mu), (math.sqrt(1 / pi) if pi else INF)


def _delta(pi: float, tau: float, new_pi: float, new_tau: float) -> float:
    pi_delta = abs(pi - new_pi)
    if pi_delta == INF:
        return 0.
    return max(abs(tau - new_tau), math.sqrt(pi_delta))


def _mu(pi: float, tau: float) -> float:
    return pi and tau / pi


def _first_term(val: list[float], msg: list[float], coeff: float) -> tuple[float, float]:
    """A sum factor's first term (a variable's value, the message it holds from the factor, the coefficient): its
    share of the mean, and of the inverse precision (infinite where the term's precision is zero)."""
    div_pi, div_tau = val[0] - msg[0], val[1] - msg[1]
    mu = 0 + coeff * _mu(div_pi, div_tau)
    try:
        return mu, 0 + coeff ** 2 / float(div_pi)
    except ZeroDivisionError:
        return mu, INF


def _sum1(val: list[float], msg: list[float]) -> tuple[float, float]:
    """A sum factor's message to its target from one term of coefficient 1."""
    mu, pi_inv = _first_term(val, msg, 1.0)
    pi = 1. / pi_inv
    return pi, pi * mu


def _sum2(val_a: list[float], msg_a: list[float], coeff_a: float, val_b: list[float], msg_b: list[float],
          coeff_b: float) -> tuple[float, float]:
    """A sum factor's message to its target from two terms, summed in the package's order: the mean of each term,
    then its precision's share unless a term's precision was zero (infinite variance)."""
    mu, pi_inv = _first_term(val_a, msg_a, coeff_a)
    div_pi, div_tau = val_b[0] - msg_b[0], val_b[1] - msg_b[1]
    mu += coeff_b * _mu(div_pi, div_tau)
    if pi_inv != INF:
        try:
            pi_inv += coeff_b ** 2 / float(div_pi)
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
    # each variable's value, and the message each factor sent it (all zero at first, as the package starts them)
    r = [[0., 0.] for _ in range(n)]        # skill; messages: prior rp, likelihood rl
    rp = [[0., 0.] for _ in range(n)]
    rl = [[0., 0.] for _ in range(n)]
    p = [[0., 0.] for _ in range(n)]        # performance; messages: likelihood pl, team sum ps
    pl = [[0., 0.] for _ in range(n)]
    ps = [[0., 0.] for _ in range(n)]
    t = [[0., 0.] for _ in range(n)]        # team performance; messages: its sum ts, the differences left/right
    ts = [[0., 0.] for _ in range(n)]
    left = [[0., 0.] for _ in range(n)]     # from difference k to t[k] (t[k] is its first term)
    right = [[0., 0.] for _ in range(n)]    # from difference k-1 to t[k] (t[k] is its second term)
    d = [[0., 0.] for _ in range(n - 1)]    # difference; messages: its sum dd, truncation dt
    dd = [[0., 0.] for _ in range(n - 1)]
    dt = [[0., 0.] for _ in range(n - 1)]

    def update_value(var: list[float], msg: list[float], pi: float, tau_: float) -> float:
        msg[0], msg[1] = (pi + msg[0]) - var[0], (tau_ + msg[1]) - var[1]
        delta = _delta(var[0], var[1], pi, tau_)
        var[0], var[1] = pi, tau_
        return delta

    def update_message(var: list[float], msg: list[float], pi: float, tau_: float) -> float:
        new_pi, new_tau = (var[0] - msg[0]) + pi, (var[1] - msg[1]) + tau_
        msg[0], msg[1] = pi, tau_
        delta = _delta(var[0], var[1], new_pi, new_tau)
        var[0], var[1] = new_pi, new_tau
        return delta

    for k, i in enumerate(order):  # the priors, with the dynamics
        mu, sigma = _roundtrip(mus[i], sigmas[i])
        s = math.sqrt(sigma ** 2 + tau ** 2)
        pi = s ** -2
        update_value(r[k], rp[k], pi, pi * mu)
    for k in range(n):  # performance from skill
        msg_pi, msg_tau = r[k][0] - rl[k][0], r[k][1] - rl[k][1]
        a = 1. / (1. + variance * msg_pi)
        update_message(p[k], pl[k], a * msg_pi, a * msg_tau)
    for k in range(n):  # a team of one: its performance
        update_message(t[k], ts[k], *_sum1(p[k], ps[k]))

    def diff_down(k: int) -> None:
        update_message(d[k], dd[k], *_sum2(t[k], left[k], 1, t[k + 1], right[k + 1], -1))

    def diff_up(k: int, index: int) -> None:
        if index == 0:  # to t[k]: the difference plus the second term
            update_message(t[k], left[k], *_sum2(d[k], dd[k], 1.0, t[k + 1], right[k + 1], 1.0))
        else:  # to t[k + 1]: the first term minus the difference
            update_message(t[k + 1], right[k + 1], *_sum2(t[k], left[k], 1.0, d[k], dd[k], -1.0))

    def truncate_up(k: int) -> float:
        div_pi, div_tau = d[k][0] - dt[k][0], d[k][1] - dt[k][1]
        sqrt_pi = math.sqrt(div_pi)
        args = (div_tau / sqrt_pi, margin * sqrt_pi)
        if ranks[order[k]] == ranks[order[k + 1]]:
            v, w = _FUNCTIONS.v_draw(*args), _FUNCTIONS.w_draw(*args)
        else:  # the package's w of a win is v * (v + x) with its own v: that v, computed once
            v = _FUNCTIONS.v_win(*args)
            w = v * (v + (args[0] - args[1]))
            if not 0 < w < 1:
                w = _FUNCTIONS.w_win(*args)  # raises the package's own error
        denom = (1. - w)
        return update_value(d[k], dt[k], div_pi / denom, (div_tau + sqrt_pi * v) / denom)

    diffs = n - 1
    for _ in range(10):
        if diffs == 1:
            diff_down(0)
            delta = truncate_up(0)
        else:
            delta = 0
            for k in range(diffs - 1):
                diff_down(k)
                delta = max(delta, truncate_up(k))
                diff_up(k, 1)
            for k in range(diffs - 1, 0, -1):
                diff_down(k)
                delta = max(delta, truncate_up(k))
                diff_up(k, 0)
        if delta <= MIN_DELTA:
            break
    diff_up(0, 0)
    diff_up(diffs - 1, 1)
    for k in range(n):  # back to each performance, then each skill
        update_message(p[k], ps[k], *_sum1(t[k], ts[k]))
    for k in range(n):
        msg_pi, msg_tau = p[k][0] - pl[k][0], p[k][1] - pl[k][1]
        a = 1. / (1. + variance * msg_pi)
        update_message(r[k], rl[k], a * msg_pi, a * msg_tau)
    out: list[tuple[float, float]] = [(0., 0.)] * n
    for k, i in enumerate(order):
        pi, tau_ = r[k]
        out[i] = _roundtrip(_mu(pi, tau_), math.sqrt(1 / pi) if pi else INF)
    return out
