"""The runner's loader, one of its parts (sandbox/inside/runner.py): the bundle's modules and the bot, imported
from memory, and the bot's entry point.

Runs inside the bot's process in the runner's namespace and imports nothing of ours.
"""
from __future__ import annotations

import sys

TYPE_CHECKING = False  # the type checker reads the imports below; the runner never pays for typing
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import Any, Callable

    from .output import EXIT_BAD_BOT, die

    #: name -> [is_package, kind ("code": marshalled, base64; "source"), payload], as the boot line has them
    #: (and "compiled": a code object, for the bot whose code the runner says)
    Modules = dict[str, list[Any]]


class Importer:
    """Meta-path finder and loader serving the bundle modules and the bot from memory."""

    # ``spec_type`` is ModuleSpec, which typeshed types as taking an importlib.abc.Loader: this one has
    # only the two methods the import system calls (importing importlib.abc would cost every bot)
    def __init__(self, modules: Modules, spec_type: Callable[..., ModuleSpec]) -> None:
        self.modules = modules
        self.spec_type = spec_type

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        entry = self.modules.get(name)
        if entry is None:
            return None
        return self.spec_type(name, self, is_package=bool(entry[0]))

    def create_module(self, spec: ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        is_package, kind, payload = self.modules[module.__name__]
        filename = "<bundle:" + module.__name__ + ">"
        if kind == "code":
            import binascii
            import marshal

            code = marshal.loads(binascii.a2b_base64(payload))
        elif kind == "compiled":  # compiled in this process (runner.py ``_say_code``)
            code = payload
        else:
            code = compile(payload, filename, "exec", dont_inherit=True)
        module.__file__ = filename
        exec(code, module.__dict__)


def install_importer(modules: Modules) -> Importer:
    import _frozen_importlib

    importer = Importer(modules, _frozen_importlib.ModuleSpec)
    sys.meta_path.insert(0, importer)
    return importer


def entry_point(module: ModuleType) -> Callable[[], Callable[[Any], Any]]:
    """What makes the ``act(message)`` of one game: the module's ``act``, or a new object's of its one bot class."""
    act = getattr(module, "act", None)
    if callable(act) and not isinstance(act, type):
        return lambda: act
    classes = [
        value
        for value in vars(module).values()
        if isinstance(value, type)
        and getattr(value, "__module__", None) == module.__name__
        and getattr(value, "__bohnanza_bot__", False)
    ]
    if len(classes) != 1:
        names = ", ".join(sorted(c.__name__ for c in classes)) or "none"
        die(
            EXIT_BAD_BOT,
            "no entry point: define a module-level act(message) or exactly one subclass of sandbox.sdk.Bot "
            "in the bot file (docs/sdk.md; found: " + names + ")",
        )
    bot_class = classes[0]
    return lambda: bot_class().act
