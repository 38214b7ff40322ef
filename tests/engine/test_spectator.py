"""The engine's spectator (engine/spectator.py) and its sentences (engine/narration.py): the public state
at every step agrees with the engine's own state, hides every hand until the end and reveals them all
then; one step per action; the JSON form round-trips, also through its diffs."""
from __future__ import annotations

import json
import random
import pytest
from golden_helpers import GOLDEN, replay_golden

from engine import Offer, Pass, classic_rules, new_game, rules_for
from engine.actions import Accept, Confirm, DecisionKind
from engine.cards import Bean
from engine.narration import describe
from strategy.policies import random_action
from engine.replay import Replay, ReplayMismatch
from engine.spectator import (
    PublicState, apply_diff, public_state, public_state_json, replay_json, replay_steps, step_after_events,
)

TABLES = [("classic", 3), ("classic", 4), ("classic", 5), ("duel", 2), ("solo", 1)]
SEEDS = range(6)


def played(variant: str, players: int, seed: int) -> tuple[Replay, list[PublicState], list]:
    """A whole random game: its replay, the spectator's state after every action taken live, and the
    game itself after every action (deep copies are too slow: the checks run live, see ``check``)."""
    game = new_game(rules_for(variant), players, seed)
    rng = random.Random(seed)
    states = [public_state(game)]
    check(game, states[-1])
    while not game.over:
        game.apply(random_action(game, rng))
        states.append(public_state(game))
        check(game, states[-1])
    return Replay.of(game, [f"seat{i}" for i in range(players)]), states, []


def check(game, state: PublicState) -> None:
    """The spectator's state is the engine's: piles, fields, coins, hand sizes, trading areas, figures."""
    assert state.step == len(game.history) and state.turn == game.turn and state.active == game.active
    assert state.over == game.over and state.deck_size == len(game.deck) and state.discard_size == len(game.discard)
    assert state.discard_top == (game.discard[-1] if game.discard else None) and state.reshuffles == game.reshuffles
    decision = game.decision
    assert (state.to_move, state.decision) == ((None, None) if decision is None
                                               else (decision.seat, decision.kind.value))
    princes = game.rules.princes is not None
    for s, seen in zip(game.seats, state.seats):
        assert seen.coins == s.coins and seen.hand_size == len(s.hand)
        assert [(f.bean, f.count) for f in seen.fields] == list(zip(s.field_beans, s.field_counts))
        if princes:
            assert seen.figure == s.position and seen.trade_area == ()
        else:
            assert [(c.bean, c.locked) for c in seen.trade_area] == list(zip(s.trade, s.trade_locked))
            assert seen.figure is None
        assert (seen.hand is None) == (not game.over)
    if princes:
        assert state.princes is not None and state.trade is None
        assert state.princes.box == len(game.box) and dict(state.princes.middle) == game.middle
        assert state.princes.vine == tuple(t if k < game.revealed else None for k, t in enumerate(game.vine))
        assert state.princes.neutral == game.neutral_positions() and state.princes.castle == game.castle
    else:
        view = game.view(0)  # the public parts of a seat's view are the spectator's
        assert state.princes is None and state.trade == view.trade
        assert [[(f.bean, f.count) for f in fs] for fs in view.fields] == \
            [[(f.bean, f.count) for f in s.fields] for s in state.seats]
    assert state.ranks == (game.result.ranks if game.result else None)


@pytest.mark.parametrize("variant, players", TABLES)
def test_the_state_of_every_step_is_the_engines_and_replaying_gives_the_same(variant: str, players: int) -> None:
    for seed in SEEDS:
        replay, live, _ = played(variant, players, seed)
        steps = replay_steps(replay)
        assert len(steps) == len(replay.actions) + 1  # one step per action, step 0 the deal
        assert [s.state for s in steps] == live
        assert [s.number for s in steps] == list(range(len(steps)))
        assert [s.seat for s in steps] == [None] + [seat for seat, _ in replay.actions]
        assert tuple(e for s in steps for e in s.events) == replay.events  # every event in exactly one step
        assert all(len(s.sentences) == len(s.events) for s in steps)


@pytest.mark.parametrize("variant, players", TABLES)
def test_no_hand_is_shown_before_the_end_and_every_hand_at_the_end(variant: str, players: int) -> None:
    for seed in SEEDS:
        replay, states, _ = played(variant, players, seed)
        for state in states[:-1]:
            assert all(seat.hand is None for seat in state.seats)
        before, end = states[-2], states[-1]
        hands = [seat.hand for seat in end.seats if seat.hand is not None]
        assert len(hands) == len(end.seats)  # every hand is shown
        game = new_game(rules_for(replay.rules_id), players, replay.seed)
        for _, action in replay.actions:
            game.apply(action)
        assert tuple(tuple(h) for h in hands) == game.final_hands
        # the hands revealed are the cards held as it ended: at most what was held before plus a draw
        assert sum(len(h) for h in hands) <= sum(s.hand_size for s in before.seats) + game.rules.draw


def test_the_state_does_not_depend_on_hidden_cards() -> None:
    """Two games that differ only in the hands' contents and the deck's order look the same to a spectator."""
    rng = random.Random(7)
    for variant, players in TABLES:
        game = new_game(rules_for(variant), players, 3)
        for _ in range(25):
            game.apply(random_action(game, rng))
        other = new_game(rules_for(variant), players, 3)
        for _, action in game.history:
            other.apply(action)
        pool = list(other.deck) + [b for s in other.seats for b in s.hand]
        rng.shuffle(pool)
        for s in other.seats:
            s.hand, pool = pool[:len(s.hand)], pool[len(s.hand):]
        other.deck = pool
        other._decision = None
        assert [s.hand for s in other.seats] != [s.hand for s in game.seats] or other.deck != game.deck
        mine, theirs = public_state_json(game), public_state_json(other)
        mine.pop("decision"), theirs.pop("decision")
        assert mine == theirs


@pytest.mark.parametrize("variant, players", TABLES)
def test_the_json_round_trips_whole_and_through_its_diffs(variant: str, players: int) -> None:
    replay, _, _ = played(variant, players, 11)
    steps = replay_steps(replay)
    data = json.loads(json.dumps(replay_json(replay)))
    assert data["format"] == 1 and len(data["steps"]) == len(steps)
    whole: dict | None = None
    for step, shipped in zip(steps, data["steps"]):
        whole = dict(shipped["state"]) if whole is None else apply_diff(whole, shipped["state"])
        assert PublicState.from_json(whole) == step.state
        deal = step.number == 0  # the deal's sentence comes first
        assert shipped["text"][deal:] == list(step.sentences) and shipped["seat"] == step.seat
        assert not deal or shipped["text"][0].startswith("The cards are dealt: ")
    later = [len(json.dumps(s["state"])) for s in data["steps"][1:]]
    assert sum(later) < len(json.dumps(data["steps"][0]["state"])) * len(later) / 2  # diffs are smaller
    with pytest.raises(ValueError, match="malformed public state"):
        PublicState.from_json({"rules_id": "classic-v3", "step": "x"})


def test_a_replay_that_does_not_play_is_refused_with_its_step() -> None:
    replay, _, _ = played("classic", 3, 1)
    wrong = Replay(replay.rules_id, replay.seed, replay.seats, ((2, replay.actions[0][1]),) + replay.actions[1:],
                   replay.events, replay.result)
    with pytest.raises(ReplayMismatch, match=r"^step 1 \(seat 2: \{.*\}\): seat 0 is to move$"):
        replay_steps(wrong)


def test_an_event_count_becomes_the_step_at_which_it_was_reached() -> None:
    replay, _, _ = played("classic", 4, 2)
    steps = replay_steps(replay)
    seen = 0
    for step in steps:
        seen += len(step.events)
        assert step_after_events(replay, seen) >= step.number
        assert sum(len(s.events) for s in steps[:step_after_events(replay, seen) + 1]) == seen


# ----------------------------------------------------------------- sentences
def test_a_declined_gift_does_not_read_like_a_deal_and_an_accepted_one_does() -> None:
    rules = classic_rules()
    names = ["ann", "bob", "cy"]
    game = new_game(rules, 3, 5)
    game.set_position(hands=[[Bean.CHILI, Bean.SOY], [Bean.BLUE], [Bean.RED]], phase=DecisionKind.TRADE_OFFER,
                      deck=[Bean.GREEN] * 20)
    game.apply(Offer(give_hand=(0,), to=1))  # a gift to bob, who declines
    game.apply(Pass())
    game.apply(Pass())  # cy is asked too
    declined = [describe(e, names, rules, 0) for e in game.events]
    assert declined[0] == "ann offers Chili bean to bob as a gift, asking nothing back (round 1)."
    assert not any(" gives " in line for line in declined), declined
    game.apply(Offer(give_hand=(0,), to=1))  # round 2: bob takes it this time
    game.apply(Accept())
    game.apply(Pass())
    game.apply(Confirm(0))
    taken = [describe(e, names, rules, 0) for e in game.events[len(declined):]]
    assert "Deal: ann gives Chili bean to bob as a gift." in taken, taken


def test_numbers_agree_with_their_nouns_in_every_sentence_of_many_games() -> None:
    """'1 coin', '2 coins', '1 round', '1 card': never 'round(s)', '1 coins' or '1 cards'."""
    seen: set[str] = set()
    for variant, players in TABLES:
        for seed in range(4):
            replay, _, _ = played(variant, players, seed)
            for step in replay_steps(replay):
                for line in step.sentences:
                    assert "(s)" not in line.replace("bean(s)", ""), line  # a task's own text says bean(s)
                    for word in ("coins", "cards", "rounds", "players"):
                        assert f" 1 {word}" not in line, line
                    seen.update(w for w in ("1 coin.", "1 card.", "1 round.") if f" {w}" in line)
                    assert line[0].isupper() or line.startswith("seat"), line
                    assert line.endswith("."), line
    assert {"1 card."} <= seen


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.stem)
def test_the_golden_games_steps_are_the_spectators(path) -> None:
    """The golden files number their moves the same way: the decision the spectator names at step k is
    the golden file's step k (seat and kind); every event has its sentence."""
    game, doc = replay_golden(path)
    steps = replay_steps(Replay.of(game, [f"seat{i}" for i in range(doc["players"])]))
    assert len(steps) == len(doc["steps"]) + 1
    for step, golden in zip(steps, doc["steps"]):
        assert (step.state.to_move, step.state.decision) == (golden["seat"], golden["kind"]), (path.name, step.number)
        assert step.number == golden["step"]
    assert steps[-1].state.over and steps[-1].state.to_move is None
    sentences = [line for step in steps for line in step.sentences]
    assert len(sentences) == len(game.events) and all(line.endswith(".") for line in sentences)
    gifts = [e for e in game.events if type(e).__name__ == "Offered" and not e.want]
    forced = not game.rules.gifts_by_consent
    for gift in gifts:
        line = describe(gift, [f"seat{i}" for i in range(doc["players"])], game.rules, 0)
        assert ("(no consent needed)" in line) == forced and (" gives " in line) == forced, line


def test_trading_ended_without_an_offer_says_so() -> None:
    """A trading round ended at once has no rounds to count ("after 0 rounds" read as a slip)."""
    from engine.events import TradingEnded

    rules = classic_rules()
    assert describe(TradingEnded(1, 0), ["a", "b", "c"], rules, 1) == "b ends trading without an offer."
    assert describe(TradingEnded(1, 1), ["a", "b", "c"], rules, 1) == "b ends trading after 1 round."
    assert describe(TradingEnded(2, 3), ["a", "b", "c"], rules, 2) == "c ends trading after 3 rounds."
