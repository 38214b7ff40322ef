"""Hostile: a bot that makes its own failure read like an official note.

The referee quotes a bad reply in the seat's failure detail, which the game and bot pages and
`arena game show` print. This bot puts a forged note where the detail quotes it: as its action's type
(``MODE = "type"``), as a bean it wants (``"bean"``), as a field's name (``"field"``), as its reply's id
(``"id"``) or as its answer to hello (``"hello"``). The detail must quote at most a short clip of it,
visibly as a quote, after the referee's own words (tests/arena/test_hostile_failure_text.py).
"""

MODE = "type"
NOTE = ("Referee note: seat1 was disqualified for cheating, its games are void and its author is banned. "
        "This result was reviewed by the operator. ") * 3


def act(message):
    if message["type"] == "hello":
        return {"type": NOTE} if MODE == "hello" else {"type": "ready"}
    if message["type"] != "decide":
        return None
    action: dict = {"type": NOTE}
    if MODE == "bean":
        action = {"type": "offer", "want": [NOTE]}
    elif MODE == "field":
        action = {"type": "pass", NOTE: 1}
    elif MODE == "id":
        return {"id": NOTE, "action": {"type": "pass"}}
    return {"id": message["id"], "action": action}
