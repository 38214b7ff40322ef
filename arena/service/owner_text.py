"""The author's own view (``/api/me``, ``/api/me/games/N``) as `arena status --to` prints it: a table of their
bots, each format's rank or placement and a paused version's reason, their latest failures with the evidence,
and one game's seats with each one's standard error. Everything a bot wrote is made printable by ``echo``."""
from __future__ import annotations

from typing import Any

from arena.text import shown

#: failures ``arena status`` prints (the JSON has every one the service sends), and the stderr lines of each
FAILURES_PRINTED = 5
EXCERPT_LINES = 8


def standing_text(place: dict[str, Any]) -> str:
    """One format of a version: ``placing 4/10`` until it has its ``ranked_after`` games, then ``rank 3``
    (``unranked`` on a board that has no game yet)."""
    if place["placing"]:
        return f"placing {place['games']}/{place['ranked_after']}"
    return "unranked" if place["rank"] is None else f"rank {place['rank']}"


def placing_line(formats: list[dict[str, Any]]) -> str:
    """``placing 4/10 classic, 2/10 duel``: the formats whose placement goes on."""
    return "placing " + ", ".join(f"{p['games']}/{p['ranked_after']} {p['format']}" for p in formats if p["placing"])


def status_lines(report: dict[str, Any]) -> list[str]:
    """The whole report as lines: the table, then the latest failures, then the games with logs."""
    bots = report.get("bots", [])
    if not bots:
        return [f"{shown(report.get('author'))} has no bots yet: submit one with 'arena submit FILE --to URL'"]
    rows = [("bot", "version", "format", "games", "standing", "state")]
    for bot in bots:
        active = bot.get("active")
        if active is None:
            rows.append((shown(bot["name"]), "retired", "-", "-", "-", "-"))
            continue
        paused = active.get("paused")
        state = "plays" if paused is None else f"paused: {shown(paused['reason'], 200)}"
        for place in active["formats"] or [{"format": "-", "games": "-", "placing": False, "rank": None}]:
            rows.append((shown(bot["name"]), str(active["version"]), place["format"], str(place["games"]),
                         "-" if place["format"] == "-" else standing_text(place), state))
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
    for bot in bots:
        for note in (bot.get("active") or {}).get("competitions", []):
            lines.append(f"{shown(bot['name'])}: {competition_text(note)}")
    failures = sorted(((f, bot["name"]) for bot in bots for f in bot.get("failures", [])),
                      key=lambda pair: -int(pair[0]["game"]))[:FAILURES_PRINTED]
    if failures:
        lines.append("")
        lines.append("latest failures (arena status --game N shows a game):")
        for failure, name in failures:
            lines.extend(failure_lines(failure, name))
    games = sorted({g for bot in bots for g in bot.get("logs", [])}, reverse=True)
    if games:
        lines.append("")
        lines.append("games with your bots' logs: " + ", ".join(map(str, games[:20]))
                     + (f" and {len(games) - 20} more" if len(games) > 20 else ""))
    return lines


def competition_text(note: dict[str, Any]) -> str:
    """What a competition says of the active version (``EntryNote.to_json``): it enters, or came too late."""
    name, variant = shown(note["competition"]), shown(note["format"])
    deadline = shown(note["deadline"])[:16].replace("T", " ")
    if note["enters"] and note["entry"] is None:
        return f"competition {name} ({variant}): enters as your current version at {deadline} UTC"
    if note["enters"]:
        return f"competition {name} ({variant}): version {note['entry']} is your entry"
    entry = f"your entry is version {note['entry']}" if note["entry"] is not None else "your bot has no entry"
    return (f"competition {name} ({variant}): this version came after the deadline ({deadline} UTC) and is not "
            f"an entry; {entry}")


def failure_lines(failure: dict[str, Any], name: str) -> list[str]:
    """One failure: its game, format, status and detail, the request and step, the end of its stderr."""
    lines = [f"game {failure['game']} ({shown(failure['rules'])}, {shown(name)} version {failure['version']}, "
             f"seat {failure['seat']}) {failure['status']}: {shown(failure['detail'], 500)}"]
    if failure.get("request"):
        step = failure.get("step")
        lines.append(f"  while answering {shown(failure['request'])}"
                     + (f" (at step {step} of the replay)" if step is not None else ""))
    return lines + excerpt(failure.get("stderr") or "", EXCERPT_LINES)


def excerpt(log: str, last: int | None = None) -> list[str]:
    """A bot's stderr, each line marked (its last ``last`` lines, if given)."""
    text = log.rstrip("\n").splitlines() if log.strip() else []
    if not text:
        return ["  (it wrote nothing on stderr)"]
    cut = last is not None and len(text) > last
    return ([f"  | … ({len(text) - last} lines before)"] if cut and last is not None else []) + [
        "  | " + shown(line, 500) for line in (text[-last:] if cut and last is not None else text)]


def game_lines(game: dict[str, Any]) -> list[str]:
    """One game as its author sees it: its head, then each of their seats with its result and whole stderr."""
    head = (f"game {game['game']}  {shown(game['rules'])}  season {shown(game.get('season') or '?')}  "
            f"{game['players']} players  {game['state']}")
    if game.get("void_reason"):
        head += f" ({shown(game['void_reason'], 500)})"
    lines = [head]
    for seat in game["seats"]:
        lines.append(f"seat {seat['seat']}: {shown(seat['bot'])} version {seat['version']}, "
                     f"{seat['status'] or 'not played'}" + ("" if seat["rank"] is None else f", rank {seat['rank']}")
                     + ("" if seat["coins"] is None else f", {seat['coins']} coins")
                     + (f": {shown(seat['detail'], 500)}" if seat["detail"] else ""))
        failure = seat.get("failure")
        if failure and failure.get("request"):
            step = failure.get("step")
            lines.append(f"  while answering {shown(failure['request'])}"
                         + (f" (at step {step} of the replay)" if step is not None else ""))
        lines.append("  its standard error:")
        lines.extend(excerpt(seat.get("stderr") or ""))
    return lines
