"""`arena play` end to end: real subprocesses, the real sandbox tier this machine offers."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.replay import Replay, Resimulation
from forked_arena import arena_run

ARENA = [sys.executable, "-m", "arena"]


def run_arena(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return arena_run([*args], capture_output=True, text=True, timeout=300, cwd=cwd)


def test_sandboxed_game_equals_in_process_game(tmp_path: Path) -> None:
    bots = ["random", "greedy", "greedy", "random"]
    sandboxed = run_arena("play", *bots, "--seed", "11", "--json", "--replay", str(tmp_path / "s.json"))
    in_process = run_arena("play", *bots, "--seed", "11", "--json", "--in-process",
                           "--replay", str(tmp_path / "p.json"))
    assert sandboxed.returncode == 0, sandboxed.stderr
    assert in_process.returncode == 0, in_process.stderr
    a, b = json.loads(sandboxed.stdout), json.loads(in_process.stdout)
    assert [s["status"] for s in a["seats"]] == ["ok"] * 4
    assert [(s["coins"], s["rank"]) for s in a["seats"]] == [(s["coins"], s["rank"]) for s in b["seats"]]
    replay_s = Replay.loads((tmp_path / "s.json").read_text())
    replay_p = Replay.loads((tmp_path / "p.json").read_text())
    assert replay_s.actions == replay_p.actions and replay_s.events == replay_p.events
    game = Resimulation.of(replay_s).to_end()
    assert game.result == replay_s.result


def test_crashing_bot_is_a_status_and_the_game_goes_on(tmp_path: Path) -> None:
    bot = tmp_path / "crasher.py"
    bot.write_text("from sandbox.sdk import Bot\n\nclass Crasher(Bot):\n"
                   "    def plant_first(self, request):\n        raise RuntimeError('boom')\n")
    result = run_arena("play", str(bot), "greedy", "greedy", "--seed", "3", "--json")
    assert result.returncode == 0, result.stderr
    seats = json.loads(result.stdout)["seats"]
    assert seats[0]["status"] == "crash"
    assert seats[0]["rank"] == 3
    assert [s["status"] for s in seats[1:]] == ["ok", "ok"]
    table = run_arena("play", str(bot), "greedy", "greedy", "--seed", "3").stdout.splitlines()
    assert re.fullmatch(r"classic-v\d+  seed 3  played in \d+\.\d\d s of wall clock \(from the first hello to the "
                        r"end; time ms: the time each bot took to answer, summed\)", table[0]), table[0]
    assert table[1].split()[:3] == ["seat", "bot", "coins"]
    duel = run_arena("play", "--variant", "duel", "greedy", "trader", "--seed", "3").stdout.splitlines()
    assert duel[1].split()[:3] == ["seat", "bot", "gold"]  # the Princes games count gold


def test_illegal_action_names_the_rule(tmp_path: Path) -> None:
    bot = tmp_path / "cheat.py"
    bot.write_text("def act(message):\n"
                   "    if message['type'] == 'hello':\n        return {'type': 'ready'}\n"
                   "    return {'id': message['id'], 'action': {'type': 'plant', 'field': 7}}\n")
    result = run_arena("play", str(bot), "greedy", "greedy", "--seed", "3", "--json")
    assert result.returncode == 0, result.stderr
    seat = json.loads(result.stdout)["seats"][0]
    assert seat["status"] == "illegal"
    assert "C-3.1" in seat["detail"] and '{"type":"plant","field":7}' in seat["detail"]


@pytest.mark.parametrize("args, message", [
    (["play", "random", "random"], "needs 3-5 bots, got 2"),
    (["play", "random", "random", "no_such_bot"], "no bot 'no_such_bot'"),
    (["play", "--variant", "chess", "random", "random", "random"], "unknown variant 'chess'"),
    (["play", "--seed", "abc", "random", "random", "random"], "'abc' is not a valid integer"),
])
def test_user_mistakes_give_one_clear_line(args: list[str], message: str) -> None:
    result = run_arena(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_non_utf8_bot_file_is_refused(tmp_path: Path) -> None:
    bot = tmp_path / "latin1.py"
    bot.write_bytes(b"# caf\xe9\n")
    result = run_arena("play", str(bot), "random", "random")
    assert result.returncode == 2
    assert "is not UTF-8 text" in result.stderr and "Traceback" not in result.stderr


def test_a_bot_in_another_language_plays_from_the_protocol_document() -> None:
    """docs/examples/first_option_bot.pl was written from docs/protocol.md alone (Perl, JSON::PP)."""
    perl_bot = Path(__file__).resolve().parents[2] / "docs" / "examples" / "first_option_bot.pl"
    result = run_arena("play", "--unsafe", f"exec:perl {perl_bot}", "greedy", "greedy", "random", "--seed", "4",
                       "--json")
    assert result.returncode == 0, result.stderr
    seats = json.loads(result.stdout)["seats"]
    assert seats[0]["name"] == "first_option_bot"
    assert [s["status"] for s in seats] == ["ok"] * 4
    assert seats[0]["decisions"] > 30


def test_other_language_bots_need_unsafe_and_a_real_program() -> None:
    refused = run_arena("play", "exec:perl bot.pl", "greedy", "greedy")
    assert refused.returncode == 2 and "add --unsafe" in refused.stderr
    missing = run_arena("play", "--unsafe", "exec:/no/such/program", "greedy", "greedy")
    assert missing.returncode == 2 and "cannot start bot program '/no/such/program'" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_an_in_process_game_is_the_sandboxed_game_whatever_the_hash_seed(tmp_path: Path) -> None:
    """The sandbox fixes every bot's PYTHONHASHSEED (sandbox/boot.py); `--in-process` plays in the command's own
    interpreter, whose hash seed is random. The example bots never let a set's order choose a move (the trader
    chose its wanted bean by iterating a set of beans), so `--seed` plays the same game either way."""
    import os

    from arena_helpers import fix_seed_key

    fix_seed_key(tmp_path / "l.sqlite")  # the same deal every run: on it, hash seeds 1 and 2 played apart before
    args = ["--db", f"sqlite:///{tmp_path / 'l.sqlite'}", "play", "--seed", "1", "trader", "trader", "trader",
            "--json"]
    games = []
    for hash_seed in ("1", "2", None):  # in-process in two fresh interpreters, then sandboxed
        env = {**os.environ, "PYTHONHASHSEED": hash_seed} if hash_seed else None
        done = subprocess.run([*ARENA, *args, *(["--in-process"] if hash_seed else [])], capture_output=True,
                              text=True, timeout=300, env=env)
        assert done.returncode == 0, done.stderr
        seats = json.loads(done.stdout)["seats"]
        assert [s["status"] for s in seats] == ["ok"] * 3
        games.append([(s["coins"], s["rank"], s["decisions"]) for s in seats])
    assert games[0] == games[1] == games[2]
