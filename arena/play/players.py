"""Seats' bots as the referee sees them (``Player``): sandboxed processes or trusted in-process modules."""
from __future__ import annotations

import importlib.util
import json
import logging
import time
import traceback
from functools import cache
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

from engine.quoting import quote
from sandbox import BotBundle, BotProcess, Limits, Reply, Tier, modules_from_package, warm_fork_servers
from sandbox.languages import language_named
from sandbox.protocol import HelloMessage, Message, dumps, encode
from sandbox.values import Status

log = logging.getLogger(__name__)


class Player(Protocol):
    """One seat's bot, wherever it runs: it is sent the protocol's messages (sandbox/protocol.py) as values, and
    encodes them (``protocol.encode``) only if it sends them down a pipe."""

    name: str

    def request(self, message: Message) -> Reply: ...

    def notify(self, message: Message) -> None: ...

    def time_left_ms(self) -> float: ...

    def new_game(self) -> None: ...

    def close(self) -> None: ...

    @property
    def stderr_tail(self) -> str:
        """The bot's own last output on stderr (its prints, the runner's traceback), bounded."""
        ...


@cache
def sdk_modules() -> Mapping[str, str]:
    """The modules every sandboxed bot may import: the SDK (with the protocol module it parses with), the
    engine it is typed with (with the card data, so that ``engine.rules_for`` works there too) and the
    strategy the example bots share."""
    import engine
    import sandbox.protocol
    import sandbox.sdk
    import strategy

    from engine.rules import CARD_DATA_MODULE, card_data_module

    modules = modules_from_package(Path(engine.__file__).parent, "engine")
    modules.update(modules_from_package(Path(strategy.__file__).parent, "strategy"))
    modules[CARD_DATA_MODULE] = card_data_module()  # the sandbox has no files: engine.rules_for reads it from here
    modules["sandbox.sdk"] = Path(sandbox.sdk.__file__).read_text(encoding="utf-8")
    modules["sandbox.protocol"] = Path(sandbox.protocol.__file__).read_text(encoding="utf-8")
    return modules


NO_MODULES: Mapping[str, str] = {}


def bundle_for(name: str, source: str, language: str = "python") -> BotBundle:
    """A Python bot with the SDK it may import, or a program in another language (sandbox/languages.py)."""
    return BotBundle(name=name, source=source,
                     modules=sdk_modules() if language_named(language).is_python else NO_MODULES, language=language)


def warm_sandboxes(languages: Sequence[str], limits: Limits, tier: Tier) -> None:
    """Start at once the sandboxes a game's seats of these languages are about to take (``warm_fork_servers``: the
    Python seats' fork servers), so that its bots wait for about one start rather than one after another."""
    warm_fork_servers(bundle_for("", "", "python"), limits, tier,
                      sum(language_named(language).is_python for language in languages))


class SandboxPlayer:
    """A bot running in its own sandboxed subprocess."""

    def __init__(self, name: str, source: str, limits: Limits, tier: Tier, language: str = "python") -> None:
        self.name = name
        self.process = BotProcess.start(bundle_for(name, source, language), limits, tier)

    @classmethod
    def external(cls, name: str, argv: Sequence[str], limits: Limits) -> SandboxPlayer:
        """A bot program in another language (plain tier only: a user's own bot, never the ladder's)."""
        player = cls.__new__(cls)
        player.name = name
        player.process = BotProcess.start_command(name, argv, limits)
        return player

    def request(self, message: Message) -> Reply:
        return self.process.request(message)

    def notify(self, message: Message) -> None:
        self.process.notify(message)

    def time_left_ms(self) -> float:
        return self.process.limits.decision_ms + self.process.bank_left_ms

    def new_game(self) -> None:
        self.process.new_game()

    @property
    def stderr_tail(self) -> str:
        return self.process.stderr_tail

    def close(self) -> None:
        self.process.close()


class InProcessPlayer:
    """A trusted bot module run in this process (built-in bots, tests, fast local play).

    Each message is its line read back, so the bot sees exactly what it would see in the sandbox (and
    cannot change what another seat is sent); there is no deadline enforcement, only time measurement.
    """

    def __init__(self, path: str | Path, name: str | None = None, limits: Limits | None = None) -> None:
        self.path = Path(path)
        self._limits = limits or Limits()
        self.name = name or self.path.stem
        self._new_game = load_entry_point(self.path)
        self._act = self._new_game()
        self._games = 0
        self._dead: Reply | None = None
        self.stderr_tail = ""  # the traceback of the exception that ended it, as the runner would print it

    def request(self, message: Message) -> Reply:
        if self._dead is not None:
            return self._dead
        started = time.perf_counter()
        try:
            if isinstance(message, HelloMessage):
                self._games += 1
                if self._games > 1:  # a fresh bot object per game, as the sandbox runner does
                    self._act = self._new_game()
            reply = self._act(json.loads(encode(message)))
            reply = json.loads(dumps(reply))
        except Exception as exc:  # the bot's fault: becomes its status
            self.stderr_tail = traceback.format_exc()
            self._dead = Reply(Status.CRASH, None, 0.0, f"it raised {quote(f'{type(exc).__name__}: {exc}')}")
            return self._dead
        elapsed = (time.perf_counter() - started) * 1000
        if not isinstance(reply, dict):
            self._dead = Reply(Status.PROTOCOL, None, elapsed, f"reply is not a JSON object: {quote(reply)}")
            return self._dead
        return Reply(Status.OK, reply, elapsed)

    def notify(self, message: Message) -> None:
        try:
            self._act(json.loads(encode(message)))
        except Exception:
            log.debug("bot %s raised on a notification", self.name, exc_info=True)

    def time_left_ms(self) -> float:
        return self._limits.decision_ms + self._limits.bank_ms

    def new_game(self) -> None:
        pass

    def close(self) -> None:
        pass


def load_entry_point(path: Path) -> Callable[[], Callable[[Any], Any]]:
    """Import a trusted bot file; returns a function giving the ``act`` of one game (a module-level
    ``act``, or the ``act`` of a new instance of its SDK bot class)."""
    spec = importlib.util.spec_from_file_location(f"bot_{path.stem}_{id(path)}", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot load bot file {str(path)!r}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    act = getattr(module, "act", None)
    if callable(act) and not isinstance(act, type):
        return lambda: act
    classes = [v for v in vars(module).values()
               if isinstance(v, type) and getattr(v, "__bohnanza_bot__", False) and v.__module__ == module.__name__]
    if len(classes) != 1:
        raise ValueError(f"bot file {str(path)!r} must define act(message) or exactly one Bot subclass, "
                         f"found {len(classes)} classes")
    bot_class = classes[0]
    return lambda: bot_class().act
