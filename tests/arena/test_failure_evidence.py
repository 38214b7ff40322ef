"""Why a bot failed, shown to its author everywhere a failure is: `arena play` (text and --json),
`arena submit`, the database, `arena game show` and the bot's page on the site. Real sandboxed bots
that print and raise; each seat's evidence holds its own output and nothing of another seat's."""
from __future__ import annotations

import json
import re
from pathlib import Path

from arena.submissions.accounts import ensure_author
from arena_helpers import db_url, present, run_arena
from sqlmodel import Session, select

from arena.db import Bot, Match, MatchSeat, make_engine
from arena.submissions.versions import register
from engine.spectator import apply_diff


def crasher(marker: str, kind: str = "plant_first") -> str:
    """An SDK bot that prints ``marker`` and its hand, then raises, at its first ``kind`` decision."""
    return ("from sandbox.sdk import Bot\n\n"
            "class Crasher(Bot):\n"
            f"    def {kind}(self, request):\n"
            f"        print({marker!r}, 'holds', [b.value for b in request.view.hand])\n"
            f"        raise ZeroDivisionError({marker!r} + ' divided by zero')\n")


def test_arena_play_shows_each_failed_seats_traceback_and_output_and_only_its_own(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(crasher("MARK-A"))
    (tmp_path / "b.py").write_text(crasher("MARK-B", "plant_second"))
    text = run_arena("play", str(tmp_path / "a.py"), str(tmp_path / "b.py"), "greedy", "--seed", "5", "--unsafe")
    assert text.returncode == 0, text.stderr
    blocks = re.split(r"\n(?=seat \d )", text.stderr.strip())
    a, = [b for b in blocks if b.startswith("seat 0 (a) crash")]
    b, = [b for b in blocks if b.startswith("seat 1 (b) crash")]
    assert "while answering plant_first (at step " in a and "while answering plant_second" in b
    for block, mine, theirs in ((a, "MARK-A", "MARK-B"), (b, "MARK-B", "MARK-A")):
        assert f"| {mine} holds [" in block  # its print()
        assert ("| Traceback (most recent call last):" in block
                and f"| ZeroDivisionError: {mine} divided by zero" in block)
        assert theirs not in block
    as_json = run_arena("play", str(tmp_path / "a.py"), "greedy", "greedy", "--seed", "5", "--unsafe", "--json")
    seats = json.loads(as_json.stdout)["seats"]
    # seat 0 decides first: its first plant_first is asked at the deal's position, step 0 (no action played yet)
    assert seats[0]["failure"]["request"] == "plant_first" and seats[0]["failure"]["step"] == 0
    assert "ZeroDivisionError: MARK-A divided by zero" in seats[0]["failure"]["log"]
    assert seats[1]["failure"] is None and seats[2]["failure"] is None


def test_a_rejected_submission_shows_why_in_the_bots_own_words(tmp_path: Path) -> None:
    bot = tmp_path / "crashy.py"
    bot.write_text(crasher("MARK-S"))
    result = run_arena("submit", str(bot), db=tmp_path / "ladder.sqlite")
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1].startswith(
        f"Error: {str(bot)!r} rejected: in every format (classic, duel, solo), the bot failed its smoke game with "
        "status 'crash'")
    assert ("while answering plant_first" in result.stderr
            and "| ZeroDivisionError: MARK-S divided by zero" in result.stderr)
    for variant in ("classic", "duel", "solo"):  # each format's failure, not the first one's only
        assert f"in {variant}: seat " in result.stderr, result.stderr
    engine = make_engine(db_url(tmp_path / "ladder.sqlite"))
    with Session(engine) as session:
        assert session.exec(select(Bot)).all() == []  # nothing stored
    engine.dispose()


def test_a_seasons_failures_are_stored_shown_by_game_show_and_on_the_bots_page(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        register(session, "crashy", crasher("MARK-L"), ensure_author(session, "someone"))
    engine.dispose()
    season = run_arena("season", "run", "--games", "3", "--bosses", "random,greedy", db=db)
    assert season.returncode == 0, season.stderr
    progress = [line for line in season.stderr.splitlines() if re.match(r"\d+/\d+ games ", line)]
    last = progress[-1]  # the progress says whose
    assert re.search(r"failures (\d+) \(crashy \1\)", last), season.stderr
    engine = make_engine(db_url(db))
    with Session(engine) as session:
        seats = session.exec(select(MatchSeat).where(MatchSeat.status == "crash")).all()
        assert seats and all(s.failure_request == "plant_first" and s.failure_step is not None for s in seats)
        assert all("ZeroDivisionError: MARK-L divided by zero" in s.failure_log for s in seats)
        healthy = session.exec(select(MatchSeat).where(MatchSeat.status == "ok")).all()
        assert healthy and all((s.failure_request, s.failure_step, s.failure_log) == ("", None, "") for s in healthy)
        game_id = seats[0].match_id
        assert present(session.get(Match, game_id)).status == "done"
        bot_id = session.exec(select(Bot.id).where(Bot.name == "crashy")).one()
    engine.dispose()

    shown = run_arena("game", "show", str(game_id), db=db)
    assert shown.returncode == 0, shown.stderr
    assert f"game {game_id}  classic-v3" in shown.stdout and "crashy" in shown.stdout
    assert ("while answering plant_first" in shown.stdout
            and "| ZeroDivisionError: MARK-L divided by zero" in shown.stdout)
    step = present(seats[0].failure_step)
    crashed_seat = seats[0].seat
    assert f"(at step {step} of the replay)" in shown.stdout
    watched = run_arena("game", "show", str(game_id), "--turns", "--step", "3", db=db)
    assert watched.returncode == 0, watched.stderr
    assert "Turn 1: " in watched.stdout and "step 3 of " in watched.stdout and "crashy: " in watched.stdout
    # one numbering: the evidence's step is the position the CLI shows at --step and the site at #step-K,
    # the one where the crashed seat was to plant its first card
    at = run_arena("game", "show", str(game_id), "--step", str(step), db=db)
    assert at.returncode == 0, at.stderr
    position = at.stdout.split(f"step {step} of ", 1)[1]
    assert (re.search(r"^\* crashy\S*: ", position, re.M)
            and re.search(r"^next: crashy\S* decides plant first$", position, re.M)), position
    missing = run_arena("game", "show", "99999", db=db)
    assert missing.returncode != 0 and missing.stderr.strip() == "Error: no game 99999 in this database"

    public = tmp_path / "public"  # a bot's output is its author's: the public site carries none of it
    built = run_arena("-q", "site", "build", "--out", str(public), db=db)
    assert built.returncode == 0, built.stderr
    assert "shown to its author only" in (public / "games" / f"{game_id}.html").read_text()
    assert not [p for p in public.rglob("*") if p.is_file() and b"MARK-L" in p.read_bytes()]
    site = tmp_path / "site"
    built = run_arena("-q", "site", "build", "--out", str(site), "--private-logs", db=db)
    assert built.returncode == 0, built.stderr
    page = (site / "bots" / f"{bot_id}.html").read_text()
    assert f'href="../games/{game_id}.html#step-{step}"' in page
    assert f"while answering plant_first (at step {step})" in page
    game_page = (site / "games" / f"{game_id}.html").read_text()
    script = re.search(r'<script id="replay-steps" type="application/json"[^>]*>(.*?)</script>', game_page, re.S)
    assert script is not None
    shipped = json.loads(script.group(1))
    state = shipped["steps"][0]["state"]
    for later in shipped["steps"][1:step + 1]:
        state = apply_diff(state, later["state"])
    assert state["step"] == step and state["to_move"] == crashed_seat and state["decision"] == "plant_first"
    log = re.search(r'<pre class="log">(.*?)</pre>', page, re.S)
    assert log and "ZeroDivisionError: MARK-L divided by zero" in log.group(1)


def test_a_bot_that_fails_differently_in_each_format_is_told_each_reason(tmp_path: Path) -> None:
    """A classic-only failure and a Princes-only one: the rejection names both formats' reasons."""
    bot = tmp_path / "split.py"
    bot.write_text("from sandbox.sdk import Bot, EndTrading\n\n"
                   "class Split(Bot):\n"
                   "    def plant_first(self, request):\n"
                   "        if self.princes is None:\n"
                   "            raise ZeroDivisionError('classic')\n"
                   "        return EndTrading()  # no trading in the Princes games: an illegal action\n")
    result = run_arena("submit", str(bot), db=tmp_path / "ladder.sqlite")
    last = result.stderr.strip().splitlines()[-1]
    assert result.returncode != 0 and last.startswith(f"Error: {str(bot)!r} rejected: in classic, ")
    assert "; in duel, " in last and "; in solo, " in last and "status 'crash'" in last.split("; in duel")[0]
    assert "status 'illegal'" in last.split("; in duel")[1], last  # the Princes games: another reason
