"""The Vine task cards of the Princes variants: ids, texts and short forms (the referee's checks live in
engine/princes.py).

V01-V05 are the five task texts known from the Princes rulebook (RULES-NOTES.md); V06-V28 are the
project's own design (seeds/princes-rules.md, assumption A-2). Every task can be checked by a referee
at the moment it is claimed, from the table and the record of the current turn.
"""
from __future__ import annotations

TASKS: dict[str, str] = {
    "V01": "In Phase 1 you add 2 beans to one or two existing bean fields.",
    "V02": "All other figures are ahead of your figure.",
    "V03": "In Phase 1 you plant two beans of the same kind.",
    "V04": "You have Blue bean(s) in one of your fields.",
    "V05": "Any player has at least 2 Red beans planted.",
    "V06": "You have Chili bean(s) in one of your fields.",
    "V07": "You have Stink bean(s) in one of your fields.",
    "V08": "You have Green bean(s) in one of your fields.",
    "V09": "You have Soy bean(s) in one of your fields.",
    "V10": "You have Black-eyed bean(s) in one of your fields.",
    "V11": "In Phase 1 you plant exactly one bean (claimed once your planting in Phase 1 is over).",
    "V12": "In Phase 1 you put a card from your hand on the discard pile.",
    "V13": "In this turn you start a bean field afresh (plant into an empty field, or into one you cash in for it).",
    "V14": "In Phase 2 you take at least one card from the discard pile.",
    "V15": "In Phase 2 you turn up three beans of three different kinds.",
    "V16": "In Phase 2 you turn up at least two beans of the same kind.",
    "V17": "In Phase 3 you plant beans of two different kinds from the middle.",
    "V18": "In Phase 3 you plant at least 3 beans from the middle.",
    "V19": "In Phase 2 you turn up a bean of a kind growing in one of your fields.",
    "V20": "In this turn you harvest a field.",
    "V21": "You have at least 2 gold coins.",
    "V22": "Two of your fields hold at least 2 beans each.",
    "V23": "One of your fields holds at least 4 beans.",
    "V24": "None of your bean fields is empty.",
    "V25": "You have at least 6 beans planted in all.",
    "V26": "You hold at most 3 cards in your hand.",
    "V27": "You hold two cards of the same kind in your hand.",
    "V28": "The top card of the discard pile matches one of your fields.",
}

# A short form of each task, for a card on the site's replay viewer (the full text above is its tooltip).
SHORT: dict[str, str] = {
    "V01": "Phase 1: 2 beans onto your fields",
    "V02": "All other figures ahead",
    "V03": "Phase 1: plant 2 of a kind",
    "V04": "Blue in a field",
    "V05": "Anyone: 2+ Red planted",
    "V06": "Chili in a field",
    "V07": "Stink in a field",
    "V08": "Green in a field",
    "V09": "Soy in a field",
    "V10": "Black-eyed in a field",
    "V11": "Phase 1: plant just 1",
    "V12": "Phase 1: discard from hand",
    "V13": "Start a field afresh",
    "V14": "Phase 2: take from discard",
    "V15": "Phase 2: turn up 3 kinds",
    "V16": "Phase 2: turn up a pair",
    "V17": "Phase 3: plant 2 kinds",
    "V18": "Phase 3: plant 3+ beans",
    "V19": "Phase 2: turn up a kind you grow",
    "V20": "Harvest a field",
    "V21": "2+ gold",
    "V22": "Two fields of 2+",
    "V23": "A field of 4+",
    "V24": "No empty field",
    "V25": "6+ beans planted",
    "V26": "At most 3 in hand",
    "V27": "A pair in hand",
    "V28": "Discard top in a field",
}

CASTLE = "castle"  # the name of the Castle card in events (it is not a task of the vine row)
