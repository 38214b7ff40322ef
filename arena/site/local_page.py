"""One self-contained page for a replay file (`arena replay FILE --html OUT`): the site's viewer, its styles and
scripts inline, so that it opens from a file with no network and no site around it."""
from __future__ import annotations

import html
from pathlib import Path

from markupsafe import Markup

from arena.formats import format_of
from arena.paths import data_dir
from arena.site.errors import SiteError
from arena.site.games import rules_meta, viewer_meta, viewer_steps
from arena.site.manifest import write_atomic
from arena.site.render import environment
from engine.replay import Replay

#: the viewer's parts, in the order a game page loads them (replay.js starts once the others are there)
SCRIPTS = ("cards.js", "board.js", "replay.js")


def _inline(name: str, closing: str) -> Markup:
    """A static file's text for an inline element; one that would close it early is refused (never seen)."""
    text = (data_dir("site") / "static" / name).read_text(encoding="utf-8")
    if closing in text.lower():
        raise SiteError(f"site/static/{name} holds {closing!r}: it cannot be put inline")
    return Markup(text)


def local_replay_page(text: str, source: str) -> str:
    """The page of the replay ``text`` (a replay file's JSON, read from ``source``), as HTML."""
    replay = Replay.loads(text)
    names = list(replay.seats)
    result = replay.result
    blank: list[int | None] = [None] * len(names)
    meta = viewer_meta(rules_meta(replay.rules_id), names, list(result.coins) if result else blank,
                       list(result.ranks) if result else blank)
    steps, key = viewer_steps(text, names)
    fmt = format_of(replay.rules_id)
    return environment().get_template("local_replay.html").render(
        root="", title=f"{replay.rules_id}: {', '.join(names)}", source=source, replay=replay, meta=meta,
        steps=steps, steps_key=key, spectator=fmt.spectator, money=fmt.money,
        download_name=f"{Path(source).stem}-steps.json", css=_inline("style.css", "</style"),
        scripts=[_inline(name, "</script") for name in SCRIPTS], escape=html.escape)


def write_local_replay_page(text: str, source: str, out: Path) -> Path:
    """Write ``local_replay_page`` to ``out`` (whole or not at all); returns its path."""
    write_atomic(out, local_replay_page(text, source).encode("utf-8"))
    return out
