"""Watching a game in the terminal: `arena replay FILE` (and `arena game show N`) with --turns, one
sentence per event grouped by turn (the engine's sentences, engine/narration.py), and --step K, the
public position at step K (after K actions, the engine's spectator); checked against the engine replaying
the same game. One game per format is played by the real `arena play`
(module fixture, fixed seed key) and shared by the tests that read it; the extra Princes deals are
played in this process by the function `arena play --in-process` calls, and printed by the function
`arena replay --turns` prints."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from arena_helpers import fix_seed_key, run_arena

from arena.cli.trust import builtin_bot
from arena.play.players import InProcessPlayer
from arena.play.referee import play_game
from arena.play.replay_text import turns_text
from engine import new_game, rules_for
from engine.events import TurnStarted, event_to_json
from engine.narration import cards
from engine.replay import Replay
from engine.vine import TASKS

#: the bots and the ``--seed`` of the one game per format played through the CLI
GAMES = {"classic": (["random", "greedy", "trader"], 5), "duel": (["greedy", "trader"], 0), "solo": (["greedy"], 0)}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("ladder") / "ladder.sqlite"
    fix_seed_key(db)
    return db


@pytest.fixture(scope="module")
def games(db: Path) -> dict[str, tuple[Path, Replay]]:
    """variant -> (replay file, replay) of a game played by `arena play --in-process --replay`."""
    folder = db.parent
    found = {}
    for variant, (bots, seed) in GAMES.items():
        path = folder / f"{variant}.json"
        result = run_arena("play", *bots, "--variant", variant, "--in-process", "--seed", str(seed),
                           "--replay", str(path), db=db)
        assert result.returncode == 0, result.stderr
        found[variant] = path, Replay.loads(path.read_text())
    return found


def played_here(variant: str, bots: list[str], seed: int) -> Replay:
    """A game of trusted bots played in this process, as `arena play --in-process` plays it."""
    players = [InProcessPlayer(builtin_bot(bot) or bot) for bot in bots]
    record = play_game(rules_for(variant), seed, players, bot_seeds=list(range(len(bots))))
    return Replay.loads(record.replay_text)


def test_turns_give_one_line_per_event_and_a_block_per_turn(games: dict[str, tuple[Path, Replay]], db: Path) -> None:
    path, replay = games["classic"]
    shown = run_arena("replay", str(path), "--turns", db=db)
    assert shown.returncode == 0, shown.stderr
    head, *body = shown.stdout.rstrip("\n").split("\n")
    assert head.startswith(f"classic-v3  {len(replay.actions)} actions  random_bot")
    events = [line for line in body if line]
    turns = [e for e in replay.events if isinstance(e, TurnStarted)]
    assert len(events) == len(replay.events) and len([line for line in body if not line]) == len(turns) - 1
    assert [line for line in events if re.match(r"Turn \d+: ", line)] == \
        [f"Turn {t.turn + 1}: {replay.seats[t.seat]} is the active player." for t in turns]
    assert replay.result is not None
    coins = replay.result.coins
    assert events[-1] == "Game over. " + ", ".join(f"{n} {c} coin{'' if c == 1 else 's'}"
                                                   for n, c in zip(replay.seats, coins)) + "."


@pytest.mark.parametrize("variant, bots", [("duel", ["greedy", "trader"]), ("solo", ["greedy"])])
def test_every_event_of_a_princes_game_reads_as_a_sentence(games: dict[str, tuple[Path, Replay]], db: Path,
                                                         variant: str, bots: list[str]) -> None:
    """Several deals, so that task claims, tributes, reshuffles and the end all come up; each event one
    line. The first is the CLI's game and `arena replay --turns`; the others are printed by its function."""
    assert bots == GAMES[variant][0]
    kinds: set[str] = set()
    for seed in range(4):
        if seed == 0:
            path, replay = games[variant]
            shown = run_arena("replay", str(path), "--turns", db=db)
            assert shown.returncode == 0, shown.stderr
            text = shown.stdout.rstrip("\n").split("\n", 1)[1]  # after the line of seats
        else:
            replay = played_here(variant, bots, seed)
            text = turns_text(replay)
        lines = [line for line in text.split("\n") if line]
        assert len(lines) == len(replay.events)
        for event, line in zip(replay.events, lines):
            kinds.add(type(event).__name__)
            assert line != event_to_json(event)["type"], line  # a sentence, not the bare event type
        claimed = [re.search(r" fulfils the task “([^”]+)” and moves onto card \d+\.$", line) for line in lines
                   if " fulfils " in line]
        assert all(m and m.group(1) + "." in TASKS.values() for m in claimed), claimed  # named by the task's text
    assert {"TaskClaimed", "VineRevealed", "GameEnded"} <= kinds


@pytest.mark.parametrize("variant, bots, step", [("classic", ["random", "greedy", "trader"], 40),
                                                 ("duel", ["greedy", "trader"], 25), ("solo", ["greedy"], 12)])
def test_a_step_shows_the_engines_position_after_that_many_actions(games: dict[str, tuple[Path, Replay]], db: Path,
                                                                    variant: str, bots: list[str], step: int) -> None:
    assert bots == GAMES[variant][0]
    path, replay = games[variant]
    shown = run_arena("replay", str(path), "--step", str(step), db=db)
    assert shown.returncode == 0, shown.stderr
    game = new_game(rules_for(replay.rules_id), len(replay.seats), replay.seed)
    for _, action in replay.actions[:step]:
        game.apply(action)
    money = (lambda n: f"{n} coin" + ("" if n == 1 else "s")) if variant == "classic" else (lambda n: f"{n} gold")
    assert f"step {step} of {len(replay.actions)}: {replay.seats[replay.actions[step - 1][0]]} played" in shown.stdout
    assert f"deck {len(game.deck)}, discard {len(game.discard)}" in shown.stdout
    for seat, s in enumerate(game.seats):
        rules = rules_for(replay.rules_id)  # every bean by its printed name, as the narration says it
        fields = ", ".join(f"{n} × {rules.bean_type(b).name}" if b else "empty"
                           for b, n in zip(s.field_beans, s.field_counts))
        line = f"{replay.seats[seat]}: {money(s.coins)}, hand {len(s.hand)}, fields [{fields}]"
        assert line in shown.stdout, (line, shown.stdout)
    # no bean by its wire name ("black_eyed x2", "top blue"): by its printed name, as the narration says it
    assert not re.search(r" x\d|black_eyed", shown.stdout), shown.stdout
    assert "(top " not in shown.stdout or re.search(r"\(top [A-Z][a-z-]+ bean\)", shown.stdout), shown.stdout


def test_replay_mistakes_are_one_line(games: dict[str, tuple[Path, Replay]], db: Path, tmp_path: Path) -> None:
    path, replay = games["classic"]
    beyond = run_arena("replay", str(path), "--step", str(len(replay.actions) + 1), db=db)
    assert beyond.returncode == 2
    assert beyond.stderr.strip() == (f"Error: step {len(replay.actions) + 1} is not in this game: "
                                     f"it has steps 0 to {len(replay.actions)}")
    missing = run_arena("replay", str(tmp_path / "nope.json"), db=db)
    assert missing.returncode == 2 and missing.stderr.strip() == (
        f"Error: cannot read {str(tmp_path / 'nope.json')!r}: No such file or directory")
    (tmp_path / "junk.json").write_text('{"format": 1}')
    junk = run_arena("replay", str(tmp_path / "junk.json"), db=db)
    assert junk.returncode == 2 and junk.stderr.strip().startswith(
        f"Error: {str(tmp_path / 'junk.json')!r} is not a replay")
    assert len(junk.stderr.strip().splitlines()) == 1
    edited = json.loads(path.read_text())
    edited["actions"][5] = [0, {"type": "plant", "field": 7}]  # a move the engine refuses there
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    refused = run_arena("replay", str(tmp_path / "edited.json"), "--turns", db=db)
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert refused.stderr.startswith(
        'Error: the replay does not play: step 6 (seat 0: {"type":"plant","field":7}): ')
    assert "Turn 1:" not in refused.stdout  # nothing of the game is printed before the refusal
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    deep = run_arena("replay", str(tmp_path / "deep.json"), db=db)
    assert deep.returncode == 2 and deep.stderr.strip().startswith(
        f"Error: {str(tmp_path / 'deep.json')!r} is not a replay")
    assert len(deep.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("variant", ["classic", "duel", "solo"])
def test_the_final_position_reveals_every_hand_and_a_running_one_none(games: dict[str, tuple[Path, Replay]],
                                                                      db: Path, variant: str) -> None:
    """The position is the engine spectator's: no hand while the game runs (but who decides what next),
    every hand as the game ended once it is over."""
    path, replay = games[variant]
    final = run_arena("replay", str(path), db=db)  # the final position by default
    assert final.returncode == 0, final.stderr
    game = new_game(rules_for(replay.rules_id), len(replay.seats), replay.seed)
    for _, action in replay.actions:
        game.apply(action)
    assert game.final_hands is not None
    for name, hand in zip(replay.seats, game.final_hands):
        shown_hand = cards(game.rules, hand)  # by printed names, equal cards counted: "Soy bean, 2 × Blue bean"
        assert re.search(rf"{re.escape(name)}: .*, hand at the end \[{re.escape(shown_hand)}\]",
                         final.stdout), final.stdout
    assert "next: " not in final.stdout
    running = run_arena("replay", str(path), "--step", "2", db=db)
    assert running.returncode == 0, running.stderr
    assert "hand at the end" not in running.stdout
    seat = replay.actions[2][0]  # who plays the third action decides at step 2
    assert f"next: {replay.seats[seat]} decides " in running.stdout
    assert f"* {replay.seats[seat]}: " in running.stdout
