"""A person at a real pseudo-terminal: ``arena play`` with a human seat, driven by scripted keystrokes."""
from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path
from typing import Callable

import pexpect

from arena.human.screen import FRONT
from engine.replay import Replay, Resimulation

ARENA = [sys.executable, "-m", "arena"]
CHOICE = "Your choice \\(1-(\\d+)"
MENU_LINE = re.compile(r"^  (\d+)\. (.+?)\s*$")
WIDTH = 200  # wide enough that no menu line wraps


def spawn(tmp_path: Path, *args: str, timeout: float = 120) -> pexpect.spawn:
    """``arena play ARGS`` at a terminal of its own (no colours: TERM=dumb), its database in ``tmp_path``."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "HOME", "LANG")}
    env.update(TERM="dumb", COLUMNS=str(WIDTH), LINES="50", LC_ALL="C.UTF-8")
    argv = [*ARENA[1:], "--db", f"sqlite:///{tmp_path / 'arena.db'}", "play", *args]
    child = pexpect.spawn(ARENA[0], argv, cwd=str(tmp_path), env=env, encoding="utf-8", timeout=timeout,
                          dimensions=(50, WIDTH), codec_errors="replace")
    child.logfile_read = io.StringIO()  # the whole transcript, for ``finished``
    return child


def menu(screen: str) -> dict[str, int]:
    """The menu shown last on ``screen`` (the text before a choice prompt): each label and its number."""
    lines = screen.splitlines()
    start = max((i for i, line in enumerate(lines) if line and not line[0].isspace() and line.rstrip().endswith(":")
                 and not line.startswith("Your hand")), default=0)
    return {m.group(2): int(m.group(1)) for line in lines[start + 1:] if (m := MENU_LINE.match(line))}


def number_of(screen: str, starts: str) -> int | None:
    """The number of the menu's first option whose label starts with ``starts``."""
    return next((n for label, n in menu(screen).items() if label.startswith(starts)), None)


def hand_of(screen: str) -> list[str]:
    """The hand shown last on ``screen``: its beans' names in order."""
    lines = screen.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("Your hand:"))
    hand = []
    for line in lines[start + 1:]:
        m = MENU_LINE.match(line)
        if m is None:
            break
        hand.append(m.group(2).replace(FRONT, "").strip())
    return hand


Chooser = Callable[[pexpect.spawn, str], str]


def always_one(child: pexpect.spawn, screen: str) -> str:
    return "1"


def play_out(child: pexpect.spawn, choose: Chooser = always_one) -> int:
    """Answer every choice prompt with ``choose(child, screen)`` until the game ends; the prompts answered."""
    answered = 0
    while child.expect([CHOICE, pexpect.EOF]) == 0:
        child.sendline(choose(child, child.before))
        answered += 1
    return answered


def finished(child: pexpect.spawn) -> str:
    """The whole transcript, once the program has ended; its exit status is checked by the caller."""
    child.expect(pexpect.EOF)
    child.close()
    log = child.logfile_read
    assert isinstance(log, io.StringIO)
    return log.getvalue()


def human_row(output: str, name: str = "human") -> list[str]:
    """The result table's row of the person's seat: seat, name, coins, rank, status, decisions, …"""
    rows = [line.split() for line in output.splitlines() if re.match(rf"^\d+\s+{re.escape(name)}\s", line)]
    assert len(rows) == 1, output[-2000:]
    return rows[0]


def checked_replay(path: Path) -> Replay:
    """The replay written by ``--replay``, played again on the engine: every action it recorded was legal."""
    replay = Replay.loads(path.read_text(encoding="utf-8"))
    Resimulation.of(replay).to_end()
    return replay


def replay_names(path: Path) -> list[str]:
    return list(json.loads(path.read_text(encoding="utf-8"))["seats"])
