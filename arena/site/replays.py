"""The public part of a stored replay, as the game pages embed it: the engine spectator's steps
(engine/spectator.py), one public state and its sentences per step, never a hand before the end."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Sequence

from engine.replay import Replay
from engine.rules import rules_for
from engine.spectator import replay_json

from arena.site.errors import SiteError

_SEED = re.compile(r"""(["']seed["']\s*:\s*)-?[0-9]+""")  # in JSON and in a Python repr


def _blank(text: str) -> str:
    """``text`` with every deck seed in it blanked (a seed may deal other games)."""
    return _SEED.sub(r"\1?", text)


def _head(text: str) -> str:
    """The start of a replay for an error message, its deck seed blanked."""
    return repr(_blank(text[:160])[:120])


def script_json(text: str) -> str:
    """JSON text made safe inside a <script> element (no '<', '>' or '&' left)."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def spectator_json(text: str, names: Sequence[str] | None = None) -> str:
    """The steps a game page's viewer draws (``engine.spectator.replay_json``), as JSON text safe inside a
    <script> element, from a stored replay re-simulated by the engine; ``names`` are how the page names the seats."""
    try:
        data = json.loads(text)
        replay = Replay.from_json(data, events=False)  # the events are compared as JSON: cheaper
        rules = rules_for(replay.rules_id)
        recorded = data["events"]
        if not isinstance(recorded, list):
            raise ValueError(f"events are not a list: {str(recorded)[:40]!r}")
    except (ValueError, RecursionError, TypeError, KeyError) as exc:
        raise SiteError(f"malformed replay {_head(text)}: {_blank(str(exc))}") from None
    try:
        steps = replay_json(replay, rules, names, recorded)
    except ValueError as exc:
        raise SiteError(f"replay {_head(text)} does not re-simulate to its record: {_blank(str(exc))}") from None
    return script_json(json.dumps(steps, separators=(",", ":")))


def _code_digest() -> str:
    """The code that makes a game's steps (the spectator, its sentences, this module): a new version of
    any of it changes every steps key, so a rebuild after an upgrade makes every game's steps again."""
    import engine.narration
    import engine.spectator

    digest = hashlib.sha256()
    for module in (engine.spectator, engine.narration):
        digest.update(Path(module.__file__ or "").read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


#: part of every steps key
STEPS_FORMAT = _code_digest()
_STEPS_OPEN = re.compile(r'<script id="replay-steps" type="application/json" data-key="([0-9a-f]{64})">')


def steps_key(replay: str, names: Sequence[str]) -> str:
    """What a game page's steps are made from: its stored replay, the seat names, the steps' format."""
    digest = hashlib.sha256(STEPS_FORMAT.encode())
    for part in (replay, *names):
        digest.update(len(part.encode()).to_bytes(8, "big") + part.encode())
    return digest.hexdigest()


def earlier_steps(page: Path, key: str) -> str | None:
    """The steps JSON an earlier build wrote into ``page`` for the same ``key``, or None: a recorded game
    never changes, and re-simulating it is most of a game page's cost (docs/benchmarks.md)."""
    try:
        text = page.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    found = _STEPS_OPEN.search(text)
    if found is None or found.group(1) != key:
        return None
    end = text.find("</script>", found.end())
    return text[found.end():end] if end >= 0 else None
