"""The one writer of a seat's view and of the public state (engine/observer.py), checked against the documented
format (docs/protocol.md "The view", docs/sdk.md's tables) and against the engine's own state, in every state
of many games; an observer that reuses what it wrote writes what a fresh one writes."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from engine import new_game, rules_for
from engine.actions import DecisionKind
from engine.observer import ClassicObserver, PrincesObserver
from engine.spectator import PublicState
from engine.views import PrincesView, View
from strategy.policies import random_action

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
SDK_DOC = (ROOT / "docs" / "sdk.md").read_text(encoding="utf-8")
TABLES = [("classic", 3), ("classic", 4), ("classic", 5), ("duel", 2), ("solo", 1)]


def documented_view() -> dict[str, Any]:
    """The example of docs/protocol.md "The view"."""
    block = PROTOCOL_DOC.split("\n## The view\n", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    data: dict[str, Any] = json.loads(block)
    return data


def sdk_fields(heading: str) -> list[str]:
    """The fields docs/sdk.md's table under ``heading`` names, in its order (properties left out)."""
    section = SDK_DOC.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    table = section.split("| field | meaning |", 1)[1].split("\n\n", 1)[0]
    names: list[str] = []
    for row in table.strip().splitlines()[1:]:
        cell = row.split("|")[1]
        if "(property)" not in cell:
            names += re.findall(r"`(\w+)`", cell)
    return names


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


def names(beans: Any) -> list[str]:
    return [b.value for b in beans]


def check_view(game: Any, seat: int, text: str) -> None:
    """``text`` is compact JSON of the documented keys that says what the state does."""
    data = json.loads(text)
    assert compact(data) == text
    me, seats = game.seats[seat], game.seats
    princes = game.rules.princes is not None
    assert list(data) == (PRINCES_KEYS if princes else CLASSIC_KEYS)
    assert (data["rules_id"], data["seat"], data["players"], data["turn"], data["active"]) == \
        (game.rules.id, seat, game.players, game.turn, game.active)
    assert data["hand"] == names(me.hand) and data["coins"] == len(me.treasury)
    assert data["fields"] == [[[None if b is None else b.value, n] for b, n in zip(s.field_beans, s.field_counts)]
                              for s in seats]
    assert data["hand_sizes"] == [len(s.hand) for s in seats]
    assert (data["deck_size"], data["discard_size"], data["reshuffles"]) == \
        (len(game.deck), len(game.discard), game.reshuffles)
    assert data["discard_top"] == (game.discard[-1].value if game.discard else None)
    if princes:
        assert data["variant"] == game.rules.variant and data["phase"] == (game.phase and game.phase.value)
        assert data["box"] == len(game.box) and data["middle"] == [[b.value, n] for b, n in game.middle.items()]
        assert data["vine"] == [t if k < game.revealed else None for k, t in enumerate(game.vine)]
        assert data["figures"] == [s.position for s in seats] and data["castle"] == game.castle
        assert data["neutral"] == [list(n) for n in game.neutral_positions()]
        assert data["this_turn"]["phase"] == game.log.phase and data["this_turn"]["harvests"] == game.log.harvests
        return
    assert data["trade_areas"] == [[[b.value, locked] for b, locked in zip(s.trade, s.trade_locked)] for s in seats]
    trade = data["trade"]
    if game.phase is None or not game.phase.value.startswith("trade"):
        assert trade is None
        return
    offer = game.offer
    assert (trade["round"], trade["max_rounds"]) == (game.trade_round, game.rules.max_trade_rounds)
    assert trade["offer"] == (None if offer is None else {
        "seat": game.active, "to": offer.to, "give": names(offer.give), "want": names(offer.want), "accept": False})
    assert trade["responses"] == [{"seat": r.seat, "to": game.active, "give": names(r.give), "want": names(r.want),
                                   "accept": r.accept} for r in game.responses]


CLASSIC_KEYS = sdk_fields("`View` (classic)")
PRINCES_KEYS = sdk_fields("`PrincesView` (duel and solo)")


def test_the_documented_view_is_what_the_observer_writes() -> None:
    example = documented_view()
    assert list(example) == CLASSIC_KEYS  # the example and the SDK's table name the same keys, in order
    assert View.from_json(example).trade is not None
    assert PRINCES_KEYS[:2] == ["rules_id", "variant"] and "this_turn" in PRINCES_KEYS
    game = new_game(rules_for("classic"), 3, 1)
    assert list(game.view_json(0)) == list(example)


@pytest.mark.parametrize("variant, players", TABLES)
def test_every_view_and_public_state_says_what_the_state_does(variant: str, players: int) -> None:
    kinds: set[DecisionKind | None] = set()
    for seed in range(4):
        game = new_game(rules_for(variant), players, seed)
        rng = random.Random(seed)
        while True:
            for seat in range(players):
                text = game.view_text(seat)
                check_view(game, seat, text)
                fresh = ClassicObserver(players) if game.rules.princes is None else PrincesObserver(players)
                assert fresh.view_text(game, seat) == text  # what the game's observer reused was not stale
                assert game.view_json(seat) == json.loads(text)
                assert isinstance(game.view(seat), PrincesView if game.rules.princes else View)
            state = game.public_state_json()
            assert fresh.public_state_json(game) == state and json.loads(compact(state)) == state
            assert PublicState.from_json(state).step == len(game.history)
            if game.over:
                break
            kinds.add(game.phase)
            game.apply(random_action(game, rng))
    if variant == "classic":
        assert DecisionKind.TRADE_RESPOND in kinds  # trading rounds were seen


@pytest.mark.parametrize("variant, players", [("classic", 3), ("duel", 2)])
def test_a_seat_outside_the_table_is_refused_by_name(variant: str, players: int) -> None:
    game = new_game(rules_for(variant), players, 0)
    with pytest.raises(ValueError, match=f"no seat {players} in a {players}-player game"):
        game.view_text(players)
    with pytest.raises(ValueError, match="no seat -1"):
        game.view_json(-1)
