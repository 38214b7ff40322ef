"""A recorded game as text for the terminal, played again step by step (``engine.replay.Resimulation``):
every event as its sentence (engine/narration.py), grouped by turn, and the public position at any step as
the engine's spectator sees it (engine/spectator.py); what `arena game show` and `arena replay` print. A step
is one action; step 0 is the deal."""
from __future__ import annotations

from typing import Sequence

from engine.events import Event, TurnStarted
from engine.cards import Bean
from engine.narration import bean_name, cards, describe, plural
from engine.replay import Replay, Resimulation
from engine.rules import Rules, rules_for
from engine.spectator import PublicState, public_state


def _beans(rules: Rules, items: Sequence[Bean]) -> str:
    """Cards by their printed names, equal ones counted (``2 × Chili bean, Soy bean``)."""
    return cards(rules, items)


def _sentences(events: Sequence[Event], names: list[str], rules: Rules, active: int) -> list[str]:
    return [describe(e, names, rules, active) for e in events]


def turns_text(replay: Replay) -> str:
    """The whole game, one event a line, a blank line before each turn."""
    names = list(replay.seats)
    walk = Resimulation.of(replay)
    game = walk.game
    lines: list[str] = []
    for events, active in [(tuple(game.events), game.active), *((s.events, s.active) for s in walk)]:
        for event, sentence in zip(events, _sentences(events, names, game.rules, active)):
            if isinstance(event, TurnStarted) and lines:
                lines.append("")
            lines.append(sentence)
    return "\n".join(lines)


def position_text(replay: Replay, step: int) -> str:
    """The public position at ``step`` (0: the deal), and what led to it. The rest of the game is played
    too: a record that does not play is refused whichever step is asked for."""
    if not 0 <= step <= len(replay.actions):
        raise ValueError(f"step {step} is not in this game: it has steps 0 to {len(replay.actions)}")
    names = list(replay.seats)
    walk = Resimulation.of(replay)
    game = walk.game
    head, events, active = "the deal", tuple(game.events), game.active
    if step:
        played = next(s for s in walk if s.number == step)
        head = f"{names[played.seat]} played {type(played.action).__name__}"
        events, active = played.events, played.active
    lines = [f"step {step} of {len(replay.actions)}: {head}"] + ["  " + line for line in
                                                              _sentences(events, names, game.rules, active)]
    lines += state_lines(public_state(game), names)
    walk.to_end()
    return "\n".join(lines)


def state_lines(state: PublicState, names: list[str]) -> list[str]:
    """One public state as lines: the piles, a line per seat (``*`` marks the seat to decide), the
    trading round or the Princes middle and vine, and the hands once the game is over."""
    rules = rules_for(state.rules_id)
    word, words = rules.money
    lines = [f"deck {state.deck_size}, discard {state.discard_size}"
             + (f" (top {bean_name(rules, state.discard_top)})" if state.discard_top else "")
             + f", reshuffles {state.reshuffles}"]
    for seat, s in enumerate(state.seats):
        fields = ", ".join(f"{f.count} × {bean_name(rules, f.bean)}" if f.bean is not None else "empty"
                           for f in s.fields)
        extra = f", figure on {s.figure}" if s.figure is not None else ""
        if s.trade_area:
            extra += ", trading area " + ", ".join(bean_name(rules, c.bean) + (" (locked)" if c.locked else "")
                                                   for c in s.trade_area)
        if s.hand is not None:
            extra += f", hand at the end [{_beans(rules, s.hand)}]"
        marker = "*" if seat == state.to_move else " "
        lines.append(f"{marker} {names[seat]}: {plural(s.coins, word, words)}, hand {s.hand_size}, "
                     f"fields [{fields}]{extra}")
    if state.trade is not None and state.trade.offer is not None:
        o = state.trade.offer
        lines.append(f"offer of {names[o.seat]} to {'everybody' if o.to is None else names[o.to]}: "
                     f"{_beans(rules, o.give)} for {_beans(rules, o.want)}")
    table = state.princes  # the part of the public state only the Princes game's table has
    if table is not None and table.middle:
        lines.append("middle: " + ", ".join(f"{n} × {bean_name(rules, b)}" for b, n in table.middle))
    if state.to_move is not None and state.decision is not None:
        lines.append(f"next: {names[state.to_move]} decides {state.decision.replace('_', ' ')}")
    return lines

