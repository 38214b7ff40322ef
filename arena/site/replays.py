"""The public part of a stored replay, as the game pages embed it (no hidden cards)."""
from __future__ import annotations

import json
import re
from typing import Any


from engine import new_game, rules_for
from engine.replay import Replay

from arena.site.errors import SiteError

_OFFER = re.compile(r'"type":"offer","give_hand":\[[0-9,]*\],"give_trade":\[([0-9,]*)\]')
_CONFIRM = re.compile(r'"type":"confirm","response":([0-9]+),"give_hand":\[[0-9,]*\],"give_trade":\[([0-9,]*)\]')
_PLANT_TRADED = re.compile(r'"type":"plant_traded","card":([0-9]+)')
_SEED = re.compile(r'("seed"\s*:\s*)-?[0-9]+')


def _head(text: str) -> str:
    """The start of a replay for an error message, its deck seed blanked (it may deal other games)."""
    return repr(_SEED.sub(r"\1?", text[:160])[:120])


def script_json(text: str) -> str:
    """JSON text made safe inside a <script> element (no '<', '>' or '&' left)."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def public_replay(text: str) -> tuple[str, str]:
    """(events, hints) as JSON text from a stored replay, with nothing hidden in them.

    Events are public by design. The hints are what the viewer needs besides them to follow the
    trading areas: the trading-area positions each offer and confirmation gave, in order
    (``o``: per ``offered`` event, ``c``: ``[response, positions]`` per confirmation), and the card
    of each planting from the trading area (``p``). Hand positions, the seed and the hands' contents
    are left out. Replays written by ``Replay.dumps`` take a fast path over the text; anything
    else is parsed.
    """
    start = text.find(',"actions":[')
    middle = text.find(',"events":[', start)
    end = text.find(',"result":', middle)
    if text.startswith('{"format":1,') and 0 < start < middle < end:
        actions = text[start:middle]
        offers = _OFFER.findall(actions)
        confirms = _CONFIRM.findall(actions)
        plants = _PLANT_TRADED.findall(actions)
        if (len(offers) == actions.count('"type":"offer"') and len(confirms) == actions.count('"type":"confirm"')
                and len(plants) == actions.count('"type":"plant_traded"')):
            hints = ('{"o":[' + ",".join(f"[{g}]" for g in offers) + '],"c":['
                     + ",".join(f"[{r},[{g}]]" for r, g in confirms) + '],"p":[' + ",".join(plants) + "]}")
            return script_json(text[middle + 10:end]), hints
    return _public_replay_parsed(text)


def _public_replay_parsed(text: str) -> tuple[str, str]:
    try:
        data = json.loads(text)
        events, actions = data["events"], data["actions"]
        offers, confirms, plants = [], [], []
        for _seat, action in actions:
            kind = action.get("type")
            if kind == "offer":
                offers.append([int(i) for i in action.get("give_trade", [])])
            elif kind == "confirm":
                confirms.append([int(action["response"]), [int(i) for i in action.get("give_trade", [])]])
            elif kind == "plant_traded":
                plants.append(int(action["card"]))
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SiteError(f"malformed replay {_head(text)}: {exc}") from None
    compact = (",", ":")
    return (script_json(json.dumps(events, separators=compact)),
            json.dumps({"o": offers, "c": confirms, "p": plants}, separators=compact))


def princes_steps(text: str) -> str:
    """The public table after the deal and after every action of a stored duel or solo game, as JSON
    text: ``[[events so far, snapshot], …]``, computed by re-simulating the game with the engine.

    A snapshot holds only what every player sees (P-8): fields, gold (counted from the public harvests and
    payments), hand sizes, figures, the middle, the face-up vine cards, the sizes of the supply, the
    discard pile and the box, and the discard pile's top card. Never a hand, the supply's order or a
    face-down vine card.
    """
    try:
        replay = Replay.loads(text)
        game = new_game(rules_for(replay.rules_id), len(replay.seats), replay.seed)
        steps = [[len(game.events), _princes_snapshot(game)]]
        for _seat, action in replay.actions:
            game.apply(action)
            steps.append([len(game.events), _princes_snapshot(game)])
    except ValueError as exc:
        raise SiteError(f"cannot re-simulate replay {_head(text)}: {exc}") from None
    if tuple(game.events) != replay.events:
        raise SiteError(f"replay {_head(text)} does not re-simulate to its recorded events")
    return script_json(json.dumps(steps, separators=(",", ":")))


def _princes_snapshot(game: Any) -> dict[str, Any]:
    return {
        "turn": game.turn, "active": game.active, "phase": game.phase.value if game.phase else None,
        "over": game.over, "ranks": list(game.result.ranks) if game.result else None,
        "fields": [[[b.value if b else None, n] for b, n in zip(s.field_beans, s.field_counts)] for s in game.seats],
        "coins": [s.coins for s in game.seats], "hands": [len(s.hand) for s in game.seats],
        "figures": [s.position for s in game.seats], "neutral": [[n, p] for n, p in game.neutral_positions()],
        "middle": [[b.value, n] for b, n in game.middle.items()],
        "vine": [t if k < game.revealed else None for k, t in enumerate(game.vine)],
        "deck": len(game.deck), "discard": len(game.discard),
        "top": game.discard[-1].value if game.discard else None, "box": len(game.box),
        "reshuffles": game.reshuffles,
    }
