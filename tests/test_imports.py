"""The import arrows between the project's packages, checked on the source with ``ast``.

- engine imports nothing of ours but engine itself;
- strategy (bot strategy on top of the rules) imports nothing of ours but engine and strategy itself;
- sandbox imports nothing of ours but sandbox itself, except that sandbox/sdk.py may import engine;
- arena may import engine, strategy, sandbox and arena;
- bots may import only the SDK (``sandbox.sdk``, ``from sandbox import sdk``), engine and strategy;
- training (the optional RL tools) may import engine, strategy, sandbox, arena and training, and nothing of
  engine, strategy, sandbox, arena or bots imports training.

Every import statement counts, also those inside functions. Packages that do not exist yet are
simply not walked; engine must be there.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = {"engine", "strategy", "sandbox", "arena", "bots", "training", "bench", "site", "tests", "docs", "seeds"}


def module_name(path: Path) -> tuple[str, str]:
    """(module, package) of a source file, e.g. ('sandbox.process', 'sandbox')."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def imported_targets(source: str, package: str) -> list[tuple[int, str]]:
    """Every dotted name a module imports (``from a import b`` counts as ``a.b``), with its line."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".") if package else []
                base_parts = base_parts[:len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                out.append((node.lineno, base if alias.name == "*" else f"{base}.{alias.name}" if base else alias.name))
    return out


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def allowed(area: str, module: str, target: str) -> bool:
    top = target.split(".")[0]
    if top not in OURS:
        return True  # the standard library or a third-party package
    if area == "engine":
        return top == "engine"
    if area == "strategy":
        return top in ("engine", "strategy")
    if area == "sandbox":
        return top == "sandbox" or (module == "sandbox.sdk" and top == "engine")
    if area == "arena":
        return top in ("engine", "strategy", "sandbox", "arena")
    if area == "bots":
        return _under(target, "engine") or _under(target, "strategy") or _under(target, "sandbox.sdk")
    if area == "training":
        return top in ("engine", "strategy", "sandbox", "arena", "training")
    raise AssertionError(area)


def violations(area: str) -> tuple[int, list[str]]:
    files = sorted((ROOT / area).rglob("*.py"))
    bad = []
    for path in files:
        module, package = module_name(path)
        for line, target in imported_targets(path.read_text(encoding="utf-8"), package):
            if not allowed(area, module, target):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    return len(files), bad


def test_engine_imports_only_engine():
    walked, bad = violations("engine")
    assert walked >= 10, "engine/ was not walked"
    names = {p.name for p in (ROOT / "engine").glob("*.py")}
    assert {"classic.py", "actions.py", "views.py", "replay.py", "wire.py"} <= names
    assert bad == []


def test_strategy_imports_only_engine_and_strategy():
    walked, bad = violations("strategy")
    assert walked >= 4, "strategy/ was not walked"
    names = {p.name for p in (ROOT / "strategy").glob("*.py")}
    assert {"__init__.py", "policies.py", "valuation.py", "determinize.py"} <= names
    assert bad == [], "\n".join(bad)


def test_training_is_walked_and_nothing_imports_it():
    walked, bad = violations("training")
    assert walked >= 6, "training/ was not walked"
    assert bad == [], "\n".join(bad)
    for area in ("engine", "strategy", "sandbox", "arena", "bots"):
        assert not [b for b in violations(area)[1] if " imports training" in b]


def test_the_engine_holds_no_strategy():
    """The bots' strategy lives in strategy/; the engine keeps only what the referee needs (engine/defaults.py)."""
    assert not {"policies.py", "valuation.py", "determinize.py"} & {p.name for p in (ROOT / "engine").glob("*.py")}


@pytest.mark.parametrize("area", ["sandbox", "arena", "bots", "training"])
def test_import_arrows(area):
    walked, bad = violations(area)
    assert bad == [], "\n".join(bad)


# --------------------------------------------------------------------------- the checker itself
def test_checker_resolves_relative_and_from_imports():
    src = "import os\nfrom . import isolation\nfrom .values import X\nfrom sandbox import sdk\nimport engine.cards\n" \
          "def f():\n    from arena import db\n"
    assert [t for _, t in imported_targets(src, "sandbox")] == [
        "os", "sandbox.isolation", "sandbox.values.X", "sandbox.sdk", "engine.cards", "arena.db"]
    assert [t for _, t in imported_targets("from ..engine import rules\n", "bots.sub")] == ["bots.engine.rules"]


@pytest.mark.parametrize("area,module,target,ok", [
    ("engine", "engine.classic", "engine.cards.Bean", True),
    ("engine", "engine.classic", "sandbox.values", False),
    ("engine", "engine.classic", "random", True),
    ("engine", "engine.classic", "strategy.policies", False),
    ("strategy", "strategy.policies", "engine.actions", True),
    ("strategy", "strategy.policies", "strategy.valuation", True),
    ("strategy", "strategy.policies", "sandbox.sdk", False),
    ("strategy", "strategy.policies", "arena.db", False),
    ("strategy", "strategy.policies", "random", True),
    ("sandbox", "sandbox.process", "engine.actions", False),
    ("sandbox", "sandbox.sdk", "engine.actions", True),
    ("sandbox", "sandbox.sdk", "arena.db", False),
    ("arena", "arena.play.tables", "sandbox.process", True),
    ("arena", "arena.play.tables", "bots.random_bot", False),
    ("arena", "arena.audit.stats", "strategy.valuation", True),
    ("bots", "bots.random_bot", "sandbox.sdk", True),
    ("bots", "bots.random_bot", "sandbox.sdk.Bot", True),
    ("bots", "bots.random_bot", "sandbox.values", False),
    ("bots", "bots.random_bot", "sandbox", False),
    ("bots", "bots.random_bot", "engine", True),
    ("bots", "bots.random_bot", "strategy.policies", True),
    ("bots", "bots.random_bot", "arena.db", False),
    ("bots", "bots.random_bot", "json", True),
    ("bots", "bots.linear_bot", "training.actions", False),
    ("training", "training.aec", "engine.game", True),
    ("training", "training.seats", "arena.play.players", True),
    ("training", "training.aec", "pettingzoo", True),
    ("training", "training.aec", "bots.greedy_bot", False),
    ("engine", "engine.game", "training.aec", False),
    ("arena", "arena.play.referee", "training.seats", False),
    ("strategy", "strategy.policies", "training.actions", False),
    ("sandbox", "sandbox.sdk", "training.actions", False),
])
def test_checker_rules(area, module, target, ok):
    assert allowed(area, module, target) is ok


def test_no_import_circle_between_modules() -> None:
    """No module of engine/, strategy/, sandbox/ or arena/ imports (at any depth, inside functions too) a module
    that imports it back: each layer reads one way. A package's ``__init__`` importing its own
    submodules does not count (that is how a package presents them)."""
    paths = [p for area in ("engine", "strategy", "sandbox", "arena") for p in sorted((ROOT / area).rglob("*.py"))]
    modules = {module_name(p)[0]: p for p in paths}

    def resolve(target: str) -> str | None:
        parts = target.split(".")
        for cut in range(len(parts), 0, -1):
            if ".".join(parts[:cut]) in modules:
                return ".".join(parts[:cut])
        return None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module_name(path)[1]
        targets = {resolve(t) for _, t in imported_targets(path.read_text(encoding="utf-8"), package)}
        is_init = path.name == "__init__.py"
        graph[module] = {t for t in targets if t and t != module and not (is_init and t.startswith(module + "."))}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    assert circles == [], circles
