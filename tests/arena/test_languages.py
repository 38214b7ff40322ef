"""Bots in JavaScript and C, end to end with the real `arena` command in the strong tier: the example
bots of docs/examples (written from docs/protocol.md alone) play, are submitted (a smoke game in every
format) and play a season; a C file that does not build, or a language whose tools are missing, is
refused in one line with nothing stored."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from arena_helpers import ARENA, run_arena
from sqlmodel import Session, select

from arena.db import Bot, BotVersion, MatchSeat, make_engine
from sandbox import Tier, detect_tier

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
pytestmark = pytest.mark.skipif(detect_tier() is not Tier.STRONG and os.environ.get("CI") != "true",
                                reason="the strong tier (bubblewrap) is needed to run submitted bots")


def test_the_example_bots_play_the_same_game_in_every_language() -> None:
    """The three example bots take the first legal option the same way: from the same seed, the same game."""
    results = []
    for bot in ("first_option_bot.js", "first_option_bot.c", "first_option_bot.pl"):
        spec = [f"exec:perl {EXAMPLES / bot}", "--unsafe"] if bot.endswith(".pl") else [str(EXAMPLES / bot)]
        played = run_arena("play", *spec, "greedy", "random", "--seed", "11", "--json")
        assert played.returncode == 0, played.stderr
        seats = json.loads(played.stdout)["seats"]
        assert [s["status"] for s in seats] == ["ok"] * 3, seats
        assert seats[0]["decisions"] > 30
        results.append([(s["coins"], s["rank"]) for s in seats])
    assert results[0] == results[1] == results[2]


def test_javascript_and_c_bots_are_submitted_and_play_a_season(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    for bot in ("first_option_bot.js", "first_option_bot.c"):
        name = "fo_" + bot.rsplit(".", 1)[1]
        submitted = run_arena("submit", str(EXAMPLES / bot), "--name", name, db=db)
        assert submitted.returncode == 0, submitted.stderr
        assert f"{name} version 1 registered for classic, duel, solo" in submitted.stdout
    season = run_arena("-q", "season", "run", "--games", "6", "--players", "3", "--bosses", "greedy", db=db)
    assert season.returncode == 0, season.stderr
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        languages = {bot.name: version.language for bot, version in session.exec(
            select(Bot, BotVersion).where(BotVersion.bot_id == Bot.id)).all()}
        assert languages == {"fo_js": "javascript", "fo_c": "c", "greedy": "python"}
        statuses = {(version.language, seat.status) for seat, version in session.exec(
            select(MatchSeat, BotVersion).where(MatchSeat.version_id == BotVersion.id)).all()}
    assert statuses == {("javascript", "ok"), ("c", "ok"), ("python", "ok")}
    board = run_arena("leaderboard", db=db)
    assert "fo_js" in board.stdout and "fo_c" in board.stdout


def test_a_c_bot_that_does_not_build_is_refused_with_the_compilers_words(tmp_path: Path) -> None:
    bot = tmp_path / "broken.c"
    bot.write_text("int main(void) { return oops; }\n")
    db = tmp_path / "ladder.sqlite"
    refused = run_arena("submit", str(bot), db=db)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert f"Error: {str(bot)!r} does not build: the c build failed:" in refused.stderr
    assert "error: 'oops' undeclared" in refused.stderr
    with Session(make_engine(f"sqlite:///{db}")) as session:
        assert session.exec(select(Bot)).all() == []


def test_a_language_whose_runtime_is_missing_is_refused_in_one_line(tmp_path: Path) -> None:
    """A machine without node: the PATH the arena sees has python and bubblewrap, nothing else."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bwrap",):
        (tools / tool).symlink_to(shutil.which(tool) or "/usr/bin/" + tool)
    env = {**os.environ, "PATH": str(tools)}
    refused = subprocess.run([*ARENA, "--db", f"sqlite:///{tmp_path / 'l.sqlite'}", "submit",
                              str(EXAMPLES / "first_option_bot.js")], capture_output=True, text=True, env=env,
                             timeout=120)
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.strip().splitlines() == [
        f"Error: {str(EXAMPLES / 'first_option_bot.js')!r}: javascript bots need 'node' (Debian package 'nodejs'), "
        "which is not installed"]


def test_an_author_sees_their_bots_stderr_after_a_game_that_went_fine(tmp_path: Path) -> None:
    """`arena play --stderr`: a bot's own debugging output, failed or not (before, only failures showed it)."""
    bot = tmp_path / "talker.js"
    bot.write_text((EXAMPLES / "first_option_bot.js").read_text().replace(
        "if (message.type === 'hello') {",
        "if (message.type === 'hello') {\n    console.error('seat ' + message.seat + ' of ' + message.players);"))
    played = run_arena("play", str(bot), "greedy", "random", "--seed", "5", "--stderr")
    assert played.returncode == 0, played.stderr
    assert "seat 0 (talker) stderr:\n  | seat 0 of 3\n" in played.stderr
    assert "seat 1 (greedy_bot) stderr: nothing" in played.stderr
    quiet = run_arena("play", str(bot), "greedy", "random", "--seed", "5")
    assert "seat 0 of 3" not in quiet.stderr  # only when asked


def test_without_bubblewrap_a_c_bot_plays_in_the_plain_tier_and_the_ladder_refuses_it(tmp_path: Path) -> None:
    """A machine without bubblewrap: `arena play bot.c --unsafe` builds and plays it without the strong
    sandbox (the user's own bot); `arena submit` refuses in one line, as for a Python bot."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in Path("/usr/bin").iterdir():
        if tool.name != "bwrap":
            (tools / tool.name).symlink_to(tool)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{tools}"}
    played = subprocess.run([*ARENA, "play", str(EXAMPLES / "first_option_bot.c"), "greedy", "greedy", "--unsafe",
                             "--json"], capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert [s["status"] for s in json.loads(played.stdout)["seats"]] == ["ok"] * 3
    refused = subprocess.run([*ARENA, "--db", f"sqlite:///{tmp_path / 'l.sqlite'}", "submit",
                              str(EXAMPLES / "first_option_bot.c")], capture_output=True, text=True, env=env,
                             timeout=120)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert refused.stderr.strip().splitlines()[-1] == (  # after the tier's warning in the log
        "Error: no strong sandbox is available on this machine (bwrap not found (Debian package 'bubblewrap')); "
        "refusing to run submitted bots without --unsafe"), refused.stderr
