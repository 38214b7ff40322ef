"""A recorded game as text for the terminal: every event as a sentence, grouped by turn, and the public
position after any number of actions (what `arena game show` and `arena replay` print)."""
from __future__ import annotations

from typing import Any, Iterator

from engine import new_game, rules_for
from engine.events import event_to_json
from engine.replay import Replay
from engine.vine import TASKS


def _cards(beans: list[str]) -> str:
    return ", ".join(beans) if beans else "nothing"


def describe(event: dict[str, Any], names: list[str], rules: Any, active: int) -> str:
    """One event (its JSON) as a sentence; ``active`` is the seat whose turn it is."""
    name = lambda seat: names[seat] if seat is not None else "everybody"  # noqa: E731
    kind = event["type"]
    money = "gold" if rules.princes is not None else "coins"
    tasks = TASKS  # a task's text by its id
    passes = {"plant_second": "does not plant a second card", "trade_offer": "makes no offer this round",
              "discard_hand": "keeps the whole hand", "keep_middle": "ends the turn", "trade_respond": "passes",
              "trade_confirm": "closes no deal this round"}
    e = event
    text = {
        "turn_started": lambda: f"turn {e.get('turn', 0) + 1}: {name(e.get('seat'))} is the active player",
        "planted": lambda: f"{name(e['seat'])} plants {e['bean']} from the "
                           f"{ {'hand': 'hand', 'middle': 'middle'}.get(e['source'], 'trading area')} in field {e['field'] + 1}",
        "harvested": lambda: f"{name(e['seat'])} cashes in field {e['field'] + 1}: {e['beans']} x {e['bean']} for {e['coins']} {money}",
        "field_bought": lambda: f"{name(e['seat'])} buys a third field for {len(e['paid'])} {money}",
        "passed": lambda: f"{name(e['seat'])} {passes.get(e['kind'], 'passes (' + e['kind'] + ')')}",
        "turned_up": lambda: f"{name(e['seat'])} turns up {_cards(e['beans'])}",
        "offered": lambda: (f"{name(e['seat'])} gives {_cards(e['give'])} to {name(e['to'])}" if not e["want"] else
                            f"{name(e['seat'])} offers {_cards(e['give'])} for {_cards(e['want'])} to {name(e['to'])} "
                            f"(round {e['round'] + 1})"),
        "accepted": lambda: f"{name(e['seat'])} accepts the offer of {name(active)}",
        "traded": lambda: (f"{name(e['b'])} gives {_cards(e['b_gave'])} to {name(e['a'])} as a gift" if not e["a_gave"] else
                           f"{name(e['a'])} gives {_cards(e['a_gave'])} to {name(e['b'])}"
                           + (f" for {_cards(e['b_gave'])}" if e["b_gave"] else " as a gift")),
        "trading_ended": lambda: f"{name(e['seat'])} ends trading after {e['rounds']} round(s)",
        "drew": lambda: f"{name(e['seat'])} draws {e['cards']} card(s)",
        "reshuffled": lambda: f"the discard pile becomes a new deck of {e['deck']} cards (reshuffle {e['reshuffles']})",
        "game_ended": lambda: "game over: " + ", ".join(f"{names[i]} {c} {money}" for i, c in enumerate(e["coins"])),
        "discarded": lambda: f"{name(e['seat'])} discards {_cards(e['beans'])} from the {e['source']}",
        "took_discard": lambda: f"{name(e['seat'])} takes {_cards(e['beans'])} from the discard pile into the middle",
        "task_claimed": lambda: (f"{name(e['seat'])} enters the Castle" if e["task"] == "castle" else
                                 f"{name(e['seat'])} fulfils task {e['task']} ({tasks.get(e['task'], '?')}) "
                                 f"and moves onto card {e['position']}"),
        "tribute_paid": lambda: f"{name(e['seat'])} pays {len(e['paid'])} gold as tribute and moves onto card {e['position']}",
        "figure_moved": lambda: f"the {e['figure']} figure moves to {e['position']}",
        "vine_revealed": lambda: f"vine card {e['position']} shows {e['task']} ({tasks.get(e['task'], '?')})",
        "end_triggered": lambda: {"castle": f"{name(e.get('seat'))} reached the Castle: the game ends",
                                  "neutral": "a neutral figure reached the Castle: the game is lost",
                                  "supply": "the supply is exhausted: the game ends"}.get(e["reason"], e["reason"]),
    }.get(kind)
    return text() if text is not None else kind


def replay_game(replay: Replay) -> Iterator[tuple[int, Any, list[dict[str, Any]]]]:
    """The game of ``replay`` played again: (actions played, the game, the events of that action),
    starting with the deal (0 actions)."""
    game = new_game(rules_for(replay.rules_id), len(replay.seats), replay.seed)
    yield 0, game, [event_to_json(e) for e in game.events]
    for count, (_seat, action) in enumerate(replay.actions, start=1):
        before = len(game.events)
        game.apply(action)
        yield count, game, [event_to_json(e) for e in game.events[before:]]


def turns_text(replay: Replay) -> str:
    """The whole game, one event a line, a blank line before each turn."""
    names = list(replay.seats)
    lines: list[str] = []
    for _, game, events in replay_game(replay):
        for event in events:
            if event["type"] == "turn_started" and lines:
                lines.append("")
            lines.append(describe(event, names, game.rules, game.active))
    return "\n".join(lines)


def position_text(replay: Replay, actions: int) -> str:
    """The public position once ``actions`` actions were played (0: the deal), and what the last one did."""
    names = list(replay.seats)
    if not 0 <= actions <= len(replay.actions):
        raise ValueError(f"step {actions} is not in this game: it has steps 0 to {len(replay.actions)}")
    for count, game, events in replay_game(replay):
        if count == actions:
            break
    princes = game.rules.princes is not None
    lines = [f"step {actions} of {len(replay.actions)}" + (f": {names[replay.actions[actions - 1][0]]} played "
                                                            f"{type(replay.actions[actions - 1][1]).__name__}" if actions else ": the deal")]
    lines += ["  " + describe(e, names, game.rules, game.active) for e in events]
    lines.append(f"deck {len(game.deck)}, discard {len(game.discard)}"
                 + (f" (top {game.discard[-1].value})" if game.discard else "") + f", reshuffles {game.reshuffles}")
    for seat, s in enumerate(game.seats):
        fields = ", ".join(f"{b.value} x{n}" if b is not None else "empty" for b, n in zip(s.field_beans, s.field_counts))
        extra = f", figure on {s.position}" if princes else (f", trading area {_cards([b.value for b in s.trade])}" if s.trade else "")
        marker = "*" if seat == game.active and not game.over else " "
        lines.append(f"{marker} {names[seat]}: {s.coins} {'gold' if princes else 'coins'}, hand {len(s.hand)}, "
                     f"fields [{fields}]{extra}")
    if princes and game.middle:
        lines.append("middle: " + ", ".join(f"{b.value} x{n}" for b, n in game.middle.items()))
    return "\n".join(lines)
