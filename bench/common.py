"""What the benchmark scripts share: their argument parser, the machine line, a ladder of the example bots.

``python3 bench/X.py`` puts bench/ first on sys.path, so a script imports this as ``common``; it does so
after putting the repository root there for the project's own packages.
"""
from __future__ import annotations

import argparse
import functools
import importlib.util
import platform
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from arena.play.players import SandboxPlayer
    from engine.actions import Decision
    from engine.game import Game
    from engine.results import GameResult
    from engine.rules import Rules
    from sandbox.protocol import Message
    from sandbox.values import Reply
    from strategy.valuation import Cards, Fields

BOTS = Path(__file__).resolve().parent.parent / "bots"


class Relay:
    """A seat that hands everything to its sandboxed bot; benchmarks override ``request`` to watch the messages."""

    def __init__(self, inner: SandboxPlayer) -> None:
        self.inner, self.name = inner, inner.name

    def request(self, message: Message) -> Reply:
        return self.inner.request(message)

    def notify(self, message: Message) -> None:
        self.inner.notify(message)

    def time_left_ms(self) -> float:
        return self.inner.time_left_ms()

    def new_game(self) -> None:
        self.inner.new_game()

    def close(self) -> None:
        self.inner.close()

    @property
    def stderr_tail(self) -> str:
        return self.inner.stderr_tail


def parser(doc: str, games: int, seed: bool = False, games_help: str | None = None) -> argparse.ArgumentParser:
    """A parser described by the first line of ``doc``, with ``--games`` and, if asked, ``--seed`` (the first deal)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--games", type=int, default=games, help=games_help)
    if seed:
        parser.add_argument("--seed", type=int, default=0)
    return parser


def seeds_line(games: int, seed: int) -> str:
    """The header of a run that deals ``games`` games from ``seed`` on."""
    return f"# {games} games per line, seeds {seed}..{seed + games - 1}"


def machine(*more: str) -> str:
    """The line a script prints first: architecture, system, kernel and Python version, then ``more``."""
    return ", ".join((f"machine: {platform.machine()} {platform.system()} {platform.release()}",
                      f"python {platform.python_version()}", *more))


def decision_of(game: Game) -> Decision:
    """The decision ``game`` waits for (asked only while it goes on)."""
    assert game.decision is not None, "the game is over"
    return game.decision


def result_of(game: Game) -> GameResult:
    """The result of ``game`` (read only once it is over)."""
    assert game.result is not None, "the game goes on"
    return game.result


def register_example_bots(engine: Engine) -> None:
    """Register random and greedy (built-in) and renamed copies of them (dice, glutton: built-in names are
    reserved), so that a 4-player table has 4 different bots."""
    from sqlmodel import Session  # only the season benchmarks need the database

    from arena.submissions.versions import register

    with Session(engine) as session:
        for stem, copy in (("random_bot", "dice"), ("greedy_bot", "glutton")):
            source = (BOTS / f"{stem}.py").read_text()
            register(session, stem, source, builtin=True)
            register(session, copy, source + "\n# copy\n")


@functools.lru_cache(maxsize=None)
def bot_class(stem: str) -> type:
    """The bot class of ``bots/<stem>_bot.py``, loaded in-process (no sandbox), with the trader's card
    valuation (``strategy.valuation.position_value``, a pure function) memoized: the same answers, faster."""
    module = load_module(f"bench_{stem}_bot", BOTS / f"{stem}_bot.py")
    _memoize_valuation()
    import strategy.valuation

    if hasattr(module, "position_value"):
        setattr(module, "position_value", strategy.valuation.position_value)
    return next(v for v in vars(module).values()
                if isinstance(v, type) and getattr(v, "__bohnanza_bot__", False) and v.__module__ == module.__name__)


def load_module(name: str, path: Path) -> ModuleType:
    """The Python file at ``path`` run as a module named ``name`` (not put in ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _memoize_valuation() -> None:
    """``strategy.valuation.position_value`` memoized in this process only."""
    import strategy.valuation

    plain = strategy.valuation.position_value
    if hasattr(plain, "cache_info"):
        return
    horizon = strategy.valuation.HAND_HORIZON
    cached = functools.lru_cache(maxsize=500_000)(plain)

    def position_value(rules: Rules, fields: Fields, hand: Cards, trade: Cards = ()) -> float:
        return cached(rules, tuple(fields), tuple(hand[:horizon]), tuple(trade))

    setattr(position_value, "cache_info", cached.cache_info)  # the mark that it is memoized, as lru_cache marks
    strategy.valuation.position_value = position_value
