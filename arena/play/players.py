"""Seats' bots as the referee sees them: sandboxed processes or trusted in-process modules."""
from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from sandbox import BotBundle, BotProcess, Limits, Reply, Tier, modules_from_package
from sandbox.languages import language_named

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


class SandboxPlayer:
    """A bot running in its own sandboxed subprocess."""

    #: it sends a message's line (``sandbox.framing.encode``) and reads nothing else of it, so the referee
    #: gives it decide messages whose dict holds the header alone (arena/play/referee_wire.py)
    wire_only = True

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

    def request(self, message: dict[str, Any]) -> Reply:
        return self.process.request(message)

    def notify(self, message: dict[str, Any]) -> None:
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
