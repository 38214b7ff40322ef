"""The integrity audit's statistics (arena/audit/stats.py) on games made up for the purpose, and its
valuation of trades on real engine games."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from arena_helpers import present
from sqlmodel import Session

from arena.audit.report import audit
from arena.audit.stats import AuditGame, TradeFlows, flows_from_json, table_scores, trade_flows
from arena.audit.store import built_in_bots
from arena.db import make_engine
from arena.submissions.accounts import ensure_author
from arena.submissions.versions import register
from engine import Accept, ClassicGame, Confirm, EndTrading, Offer, classic_rules, new_game
from engine.actions import DecisionKind
from engine.events import Traded
from engine.defaults import default_action
from engine.replay import Replay

PROJECT = Path(__file__).resolve().parents[2]


def made_up_season(games: int, feeding: float, seed: int = 7) -> list[AuditGame]:
    """Tables of 4 of 6 bots; every seat gives a little at random (an honest field); with ``feeding``,
    bot ``a`` also gives that much to ``b`` whenever both sit at a table."""
    rng = random.Random(seed)
    names = ["a", "b", "c", "d", "e", "f"]
    out = []
    for k in range(games):
        bots = tuple(rng.sample(names, 4))
        flows: dict[tuple[int, int], float] = {}
        for giver in range(4):
            if rng.random() < 0.5:
                receiver = rng.choice([s for s in range(4) if s != giver])
                flows[(giver, receiver)] = flows.get((giver, receiver), 0.0) + rng.expovariate(1.0)
        if feeding and "a" in bots and "b" in bots:
            pair = (bots.index("a"), bots.index("b"))
            flows[pair] = flows.get(pair, 0.0) + feeding
        ranks = list(range(1, 5))
        rng.shuffle(ranks)
        if "b" in bots and feeding and "a" in bots:  # the fed bot wins
            ranks = [1 if b == "b" else r + 1 for b, r in zip(bots, ranks)]
        out.append(AuditGame(k, bots, table_scores(ranks), flows))
    return out


def test_table_scores_count_opponents_beaten_and_ties_as_half() -> None:
    assert table_scores([1, 2, 3]) == (1.0, 0.5, 0.0)
    assert table_scores([1, 1, 3]) == (0.75, 0.75, 0.0)
    assert table_scores([2, 1]) == (0.0, 1.0)


def test_a_pair_that_feeds_is_flagged_and_an_honest_field_is_not() -> None:
    honest = audit(made_up_season(100, feeding=0.0))
    assert honest.flagged == ()
    assert len(honest.pairs) == 15  # every pair of 6 bots shared a table
    fed = audit(made_up_season(100, feeding=3.0))
    assert [p.bots for p in fed.flagged] == [("a", "b")]
    finding = fed.flagged[0]
    ab, ba = finding.directions
    assert (ab.giver, ab.receiver) == ("a", "b") and ab.t >= finding.threshold > ba.t
    assert ab.margin(finding.games) > 3.0 * 0.9
    assert finding.lift[0] > 0.1  # b does better with a seated than everybody else does
    assert fed.to_json()["pairs"][0]["bots"] == ["a", "b"] and fed.to_json()["pairs"][0]["flagged"] is True


def test_a_small_concentrated_flow_is_not_flagged_however_many_games() -> None:
    """Below the margin of a coin a game, no number of games flags a pair: a strong bot that gets a little
    more than others out of a weak one is not a partner."""
    report = audit(made_up_season(1000, feeding=0.6))
    assert report.flagged == ()
    ab = next(p for p in report.pairs if p.bots == ("a", "b")).directions[0]
    assert 0.3 < ab.margin(next(p for p in report.pairs if p.bots == ("a", "b")).games) < 1.0


def test_a_feeder_that_feeds_in_some_games_only_is_flagged_by_its_big_games() -> None:
    """Feeding 5 coins in one shared game of five keeps the mean at the margin (the t test passes it),
    but five coins more than everybody else is a big game, and honest pairs have almost none."""
    games = []
    for g in made_up_season(300, feeding=0.0):
        flows = dict(g.flows)
        if "a" in g.bots and "b" in g.bots and g.match_id % 5 == 0:
            pair = (g.bots.index("a"), g.bots.index("b"))
            flows[pair] = flows.get(pair, 0.0) + 5.0
        games.append(AuditGame(g.match_id, g.bots, g.scores, flows))
    report = audit(games)
    assert [p.bots for p in report.flagged] == [("a", "b")]
    ab = report.flagged[0].directions[0]
    assert ab.t < report.flagged[0].threshold  # not by its mean
    assert ab.big >= 10 and ab.big_z >= report.flagged[0].big_threshold
    assert all(d.big <= 2 for p in report.pairs if p.bots != ("a", "b") for d in p.directions)


def test_bots_of_one_author_are_not_tested_and_a_cleared_pair_needs_new_games() -> None:
    games = made_up_season(100, feeding=3.0)
    same_author = audit(games, groups={"a": "ann", "b": "ann"})
    assert ("a", "b") not in {p.bots for p in same_author.pairs}
    cleared = audit(games, since={frozenset(("a", "b")): 99})  # only games after match 99: none shared
    assert ("a", "b") not in {p.bots for p in cleared.pairs}
    later = audit(games, since={frozenset(("a", "b")): 10})
    assert [p.bots for p in later.flagged] == [("a", "b")]


def test_a_bot_that_gives_to_everybody_is_named_a_giver_not_a_pair() -> None:
    rng = random.Random(3)
    games = []
    for k, g in enumerate(made_up_season(100, feeding=0.0)):
        flows = dict(g.flows)
        if "f" in g.bots:
            me = g.bots.index("f")
            for other in range(4):
                if other != me:
                    flows[(me, other)] = flows.get((me, other), 0.0) + rng.uniform(2.0, 4.0)
        games.append(AuditGame(k, g.bots, g.scores, flows))
    report = audit(games)
    assert [g.bot for g in report.givers] == ["f"]
    assert report.flagged == ()


def gift_game(seed: int) -> tuple[Replay, int, int]:
    """A real classic game in which, on the first turn with turned-up cards, the active player gives them
    all to the next seat, which takes them; otherwise the default policy. (replay, giver, receiver)"""
    rules = classic_rules()
    game = new_game(rules, 3, seed)
    assert isinstance(game, ClassicGame)
    done = False
    giver = receiver = -1
    while not game.over:
        d = present(game.decision)
        if not done and d.kind is DecisionKind.TRADE_OFFER and game.seats[game.active].trade:
            giver, receiver = game.active, (game.active + 1) % 3
            game.apply(Offer(give_trade=tuple(range(len(game.seats[giver].trade))), to=receiver))
            while present(game.decision).kind is DecisionKind.TRADE_RESPOND:
                accept = next((o for o in present(game.decision).options if isinstance(o, Accept)), None)
                game.apply(accept if game.to_move == receiver and accept else default_action(game))
            confirm = next(o for o in present(game.decision).options if isinstance(o, Confirm))
            game.apply(confirm)
            game.apply(EndTrading())
            done = True
            continue
        game.apply(default_action(game))
    return Replay.of(game, ["x", "y", "z"]), giver, receiver


def test_a_gift_is_valued_in_the_receivers_fields_and_counted_from_giver_to_receiver() -> None:
    replay, giver, receiver = gift_game(11)
    trades = [e for e in replay.events if isinstance(e, Traded)]
    assert trades and trades[0].a == giver and trades[0].b_gave == ()
    flows = trade_flows(replay)
    assert flows, "a gift of two cards moved value"
    assert all(v > 0 for v in flows.values())
    assert (receiver, giver) not in flows or flows[(receiver, giver)] < flows.get((giver, receiver), 0.0)


def test_the_flows_a_referee_counts_live_are_those_of_its_replay_played_again() -> None:
    """The worker counts each game's flows as it plays it (``play_game``'s ``watch``); the audit reads them instead
    of playing the record again, so both must agree, deal for deal, at 3, 4 and 5 seats."""
    from arena.play.players import InProcessPlayer
    from arena.play.referee import play_game

    traded = 0
    for seats, seed in ((3, 5), (4, 6), (5, 7)):
        counted = TradeFlows()
        players = [InProcessPlayer(PROJECT / "bots" / ("trader_bot.py" if k % 2 else "random_bot.py"), f"p{k}")
                   for k in range(seats)]
        record = play_game(classic_rules(), seed, players, bot_seeds=list(range(seats)), watch=counted.seen)
        assert record.void is None
        replayed = trade_flows(record.replay)
        assert dict(counted.flows) == replayed and flows_from_json(counted.to_json()) == replayed
        traded += len(replayed)
    assert traded >= 3, "the games closed deals that moved value"


def test_the_big_games_tail_holds_for_a_long_ladder() -> None:
    """3000 shared games: C(3000, x) is too big for a float (the end-of-season audit of a 3000-game
    season stopped with OverflowError); the tail in logarithms equals the exact sum where both work."""
    import math
    from statistics import NormalDist

    from arena.audit.stats import binomial_z

    def exact(k: int, n: int, p: float) -> float:
        tail = math.fsum(math.comb(n, x) * p ** x * (1 - p) ** (n - x) for x in range(k, n + 1))
        return -NormalDist().inv_cdf(min(max(tail, 1e-15), 1 - 1e-15))

    for k, n, p in ((3, 10, 0.1), (5, 20, 0.05), (7, 40, 0.2), (30, 200, 0.1)):
        assert binomial_z(k, n, p) == pytest.approx(exact(k, n, p), abs=1e-9)
    assert 7.9 < binomial_z(1200, 3000, 0.3) < 8.0 and 3.0 < binomial_z(10, 3000, 0.001) < 3.2
    assert binomial_z(900, 3000, 0.3) == pytest.approx(-NormalDist().inv_cdf(0.5), abs=0.05)


def test_a_flag_is_its_givers_one_way_or_both_ways() -> None:
    """A one-way feed flags its giver only; two bots that feed each other are both givers, and still a flagged
    pair (the planner keeps flagged pairs apart whoever gave)."""
    from dataclasses import replace

    from arena.audit.words import bot_words, givers_of, pair_words

    one_way = audit(made_up_season(100, feeding=3.0)).flagged[0]
    assert one_way.givers == ("a",) and [d.flagged for d in one_way.directions] == [True, False]
    assert one_way.to_json()["flagged_givers"] == ["a"] and one_way.to_json()["flow"]["b->a"]["flagged"] is False
    assert pair_words(one_way.bots, one_way.givers) == ("a gave away value to b; b received value from a "
                                                        "(not necessarily by its own doing)")
    assert bot_words("a", "b", one_way.givers) == "gave away value to b"
    assert bot_words("b", "a", one_way.givers) == "received value from a (not necessarily by its own doing)"
    mutual_games = []
    for g in made_up_season(100, feeding=3.0):
        if "a" in g.bots and "b" in g.bots:
            back = (g.bots.index("b"), g.bots.index("a"))
            g = replace(g, flows={**g.flows, back: g.flows.get(back, 0.0) + 3.0})
        mutual_games.append(g)
    mutual = audit(mutual_games)
    assert [p.bots for p in mutual.flagged] == [("a", "b")] and mutual.flagged[0].givers == ("a", "b")
    assert pair_words(("a", "b"), ("a", "b")) == "a and b gave away value to each other"
    assert bot_words("b", "a", ("a", "b")) == "gave away value to a and received value from it"
    # evidence stored before the audit recorded its givers: read from the directions' figures
    old = one_way.to_json()
    del old["flagged_givers"]
    for flow in old["flow"].values():
        del flow["flagged"]
    assert givers_of(old) == ("a",)
    assert givers_of({"bots": ["a", "b"], "flow": {"a->b": {"t": 1.0}, "b->a": {"t": 2.0}}}) == ("b",)


def team_season(games: int, feeding: float, seed: int = 7) -> list[AuditGame]:
    """A made-up honest field of 7 bots (tables of 4) in which, with ``feeding``, each of x, y and z gives r that
    much more in a third of the games they share with it (each decides alone): no pair stands out by much."""
    rng = random.Random(seed)
    names = ["r", "x", "y", "z", "c", "d", "e"]
    out = []
    for g in made_up_season(games, feeding=0.0, seed=seed):
        bots = tuple(rng.sample(names, 4))
        flows = {(a, b): v for (a, b), v in g.flows.items()}
        if feeding and "r" in bots:
            for giver in ("x", "y", "z"):
                if giver in bots and rng.random() < 1 / 3:
                    pair = (bots.index(giver), bots.index("r"))
                    flows[pair] = flows.get(pair, 0.0) + feeding
        out.append(AuditGame(g.match_id, bots, g.scores, flows))
    return out


def test_part_time_feeders_of_three_authors_are_named_a_team_where_no_pair_stands_out() -> None:
    """Three givers that each feed r 5 coins in a third of their shared games (100 games, tables of 4 of 7): no pair
    is flagged (with this seed; with others one pair is, by its big games), the team test
    names r and the three givers; the same field without feeding flags nobody."""
    from arena.audit.words import team_words

    honest = audit(team_season(100, feeding=0.0))
    assert honest.flagged == () and honest.flagged_teams == ()
    assert all(not t.givers for t in honest.teams)
    fed = audit(team_season(100, feeding=5.0))
    assert fed.flagged == ()  # each pair alone stays under its bounds
    assert [(t.receiver, t.givers) for t in fed.flagged_teams] == [("r", ("x", "y", "z"))]
    team = fed.flagged_teams[0]
    assert team.big_z >= team.big_threshold and team.margin() > 1.5
    assert team.pairs() == (("r", "x"), ("r", "y"), ("r", "z"))
    assert team.to_json()["givers"] == ["x", "y", "z"] and fed.to_json()["teams"][0]["flagged"] is True
    assert team_words(team.receiver, team.givers) == ("x, y and z gave away value to r; r received value from "
                                                      "them (not necessarily by its own doing)")
    # bots of one author are not givers to each other, and a cleared pair's old games do not count
    grouped = audit(team_season(100, feeding=5.0), groups={"r": "ann", "x": "ann", "y": "ann", "z": "ann"})
    assert grouped.flagged_teams == ()
    cleared = audit(team_season(100, feeding=5.0), since={frozenset(("r", "x")): 10_000})
    assert all(c.giver != "x" for t in cleared.teams for c in t.contributions)
    # with x's first 50 games cleared the pair test flags r and z (x's big games no longer set the rate into r
    # from its other givers): a flagged pair is left out of the team test, which names the rest
    half = audit(team_season(100, feeding=5.0), since={frozenset(("r", "x")): 50})
    assert [p.bots for p in half.flagged] == [("r", "z")]
    assert [(t.receiver, t.givers) for t in half.flagged_teams] == [("r", ("x", "y"))]


def test_a_pair_or_team_of_built_in_bots_alone_is_tested_but_never_flagged(tmp_path: Path) -> None:
    # CI saw it: a season of the built-in random, greedy and trader bots (seated together in every game) had trader
    # flagged as a team with its givers, and the flag took back every game of the season
    engine = make_engine(f"sqlite:///{tmp_path / 'trusted.sqlite'}")
    source = (PROJECT / "bots" / "random_bot.py").read_text()
    with Session(engine) as session:
        for name in ("a", "b", "r", "x", "y", "z"):
            register(session, name, source.replace("random", name), builtin=True)
        register(session, "c", source.replace("random", "c"), ensure_author(session, "ann"))
        trusted = built_in_bots(session)
    engine.dispose()
    assert trusted == {"a", "b", "r", "x", "y", "z"}
    assert [t.receiver for t in audit(team_season(100, feeding=5.0)).flagged_teams] == ["r"]
    team = audit(team_season(100, feeding=5.0), trusted=trusted)
    assert team.flagged_teams == () and [t.receiver for t in team.teams][:1] == ["r"]  # tested, not flagged
    assert [t.receiver for t in audit(team_season(100, feeding=5.0), trusted=trusted - {"z"}).flagged_teams] == ["r"]
    # a built-in bot is nobody's account: never named a giver, so a receiver fed by built-in bots alone is not
    # flagged (a begging bot takes ~2 coins a game from greedy: a real season named greedy its team once)
    some = audit(team_season(100, feeding=5.0), trusted={"x", "y"})
    assert [(t.receiver, t.givers) for t in some.flagged_teams] == [("r", ("z",))]
    assert {c.giver: c.to_json()["named"] for c in some.flagged_teams[0].contributions if c.giver in "xyz"} == {
        "x": False, "y": False, "z": True}
    assert audit(team_season(100, feeding=5.0), trusted={"x", "y", "z"}).flagged_teams == ()
    fed = made_up_season(100, feeding=3.0)
    assert [p.bots for p in audit(fed).flagged] == [("a", "b")]
    pairs = audit(fed, trusted=trusted)
    assert pairs.flagged == () and ("a", "b") in {p.bots for p in pairs.pairs}
    assert not any(d.flagged for p in pairs.pairs for d in p.directions)
    assert [p.bots for p in audit(fed, trusted=trusted - {"b"}).flagged] == [("a", "b")]
