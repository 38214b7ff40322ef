"""docs/sdk.md documents the whole SDK, and its complete example bot plays real games.

Every public name of the SDK (``sandbox.sdk.__all__``, the members of ``Bot``, ``Request`` and
``Hello``, every field of the views, actions, events and rules) must appear in the page in
backticks, so a name added to the SDK later fails here until it is documented. The example marked
``<!-- example: complete -->`` is played in-process against the built-in bots.
"""
from __future__ import annotations

import ast
import dataclasses
import re
import textwrap
from pathlib import Path

import pytest

import sandbox.sdk as sdk
from arena.play.players import InProcessPlayer
from arena.play.referee import play_game
from engine import rules_for
from engine.actions import ACTION_TYPES, DecisionKind, Offer
from engine.cards import Bean, BeanType
from engine.events import EVENT_TYPES
from engine.rules import PrincesRules, Rules
from engine.views import FieldView, OfferView, PrincesView, TradeCard, TradeView, TurnRecord, View

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "sdk.md"
BOTS = ROOT / "bots"
MARKER = "<!-- example: complete -->"
TEXT = DOC.read_text(encoding="utf-8")


def documented_names(text: str) -> set[str]:
    """Names written in backticks: `name`, `name(args)`, `obj.name` (also counted as `name`)."""
    names: set[str] = set()
    for span in re.findall(r"`([^`\n]+)`", text):
        match = re.fullmatch(r"([A-Za-z_][\w.]*)(\(.*\))?", span.strip())
        if match:
            path = match.group(1)
            names.add(path)
            names.add(path.rsplit(".", 1)[-1])
    return names


def public(names) -> list[str]:
    return sorted(n for n in names if not n.startswith("_"))


def fields(cls: type) -> list[str]:
    return public(f.name for f in dataclasses.fields(cls))


def members(cls: type) -> list[str]:
    """Public methods and properties defined on the class itself (not inherited from object)."""
    return public(n for n, v in vars(cls).items()
                  if callable(v) or isinstance(v, (property, classmethod, staticmethod)))


GROUPS = {
    "sdk.__all__": list(sdk.__all__),
    "Bot methods": members(sdk.Bot),
    "Bot attributes": public(vars(sdk.Bot())),
    "Request": public(n for n in dir(sdk.Request) if n not in dir(object)),
    "Hello": fields(sdk.Hello),
    "View": fields(View) + members(View),
    "PrincesView": fields(PrincesView) + members(PrincesView),
    "FieldView/TradeCard/TradeView/OfferView": (fields(FieldView) + fields(TradeCard) + fields(TradeView)
                                                + fields(OfferView)),
    "TurnRecord": fields(TurnRecord),
    "actions": [n for name, cls in ACTION_TYPES.items() for n in [cls.__name__, name, *fields(cls)]],
    "events": [n for cls in EVENT_TYPES.values() for n in [cls.__name__, *fields(cls)]],
    "DecisionKind": [n for kind in DecisionKind for n in (kind.name, kind.value)],
    "Bean": [b.name for b in Bean],
    "Rules": fields(Rules) + members(Rules),
    "BeanType": fields(BeanType) + ["coins_for"],
    "PrincesRules": fields(PrincesRules) + members(PrincesRules),
}


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_every_public_name_is_documented(group: str) -> None:
    names = GROUPS[group]
    assert names, f"nothing collected for {group}"
    missing = sorted(set(names) - documented_names(TEXT))
    assert missing == [], f"docs/sdk.md does not mention these {group} names in backticks: {missing}"


def test_every_decision_kind_has_a_row_and_a_bot_method() -> None:
    for kind in DecisionKind:
        assert callable(getattr(sdk.Bot, kind.value, None)), f"Bot has no method {kind.value}"
        assert re.search(rf"^\| `{kind.value}` \|", TEXT, re.MULTILINE), (
            f"no row for {kind.value} in the decisions table")


def test_the_page_is_linked() -> None:
    assert "docs/sdk.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "sdk.md" in (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------ the example
def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


def complete_example(text: str) -> str:
    assert text.count(MARKER) == 1, f"expected exactly one {MARKER!r}"
    after = text.split(MARKER, 1)[1].lstrip("\n")
    assert after.startswith("```python\n"), "the marker must stand directly above a ```python block"
    return after[len("```python\n"):].split("\n```", 1)[0] + "\n"


def test_every_python_block_is_valid_python() -> None:
    blocks = python_blocks(TEXT)
    assert len(blocks) >= 6  # the first bot, the in-process snippet, four steps, the complete file
    for block in blocks:
        try:
            ast.parse(textwrap.dedent(block))
        except SyntaxError as exc:
            pytest.fail(f"a python block of docs/sdk.md does not parse ({exc}):\n{block}")


def test_the_example_imports_only_what_the_sandbox_ships() -> None:
    tree = ast.parse(complete_example(TEXT))
    imported = [node.module or "." for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    assert "sandbox.sdk" in imported
    for module in imported:
        assert module in ("__future__", "sandbox.sdk") or module.split(".")[0] == "engine", module
    bots = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert len(bots) == 1, "the example defines exactly one bot class"


@pytest.fixture(scope="module")
def example_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sdk_doc") / "example_bot.py"
    path.write_text(complete_example(TEXT), encoding="utf-8")
    return path


def play(variant: str, seed: int, table: list[str], example: Path):
    """One in-process game; ``table`` names seats ("example" or a built-in bot)."""
    players = [InProcessPlayer(example if name == "example" else BOTS / f"{name}_bot.py", f"{name}{seat}")
               for seat, name in enumerate(table)]
    record = play_game(rules_for(variant), seed, players, bot_seeds=[seed * 10 + k for k in range(len(table))])
    assert record.void is None, record.void
    statuses = [(s.name, s.status.value, s.detail) for s in record.seats]
    assert [s.status.value for s in record.seats] == ["ok"] * len(table), statuses
    assert record.replay.result is not None
    return record


def test_the_example_plays_classic_games_and_trades(example_path: Path) -> None:
    tables = [["example", "greedy", "random"], ["greedy", "example", "random"], ["random", "greedy", "example"],
              ["example", "random", "greedy", "greedy"]]
    offers = 0
    for seed, table in enumerate(tables, start=1):
        record = play("classic", seed, table, example_path)
        me = table.index("example")
        assert record.seats[me].decisions > 10
        offers += sum(1 for seat, action in record.replay.actions if seat == me and isinstance(action, Offer))
    assert offers > 0, "the example bot never made an offer"


@pytest.mark.parametrize("table", [["example", "greedy"], ["greedy", "example"]])
def test_the_example_plays_a_duel_on_the_sdk_defaults(example_path: Path, table: list[str]) -> None:
    record = play("duel", 5, table, example_path)
    assert record.seats[table.index("example")].decisions > 10


def test_the_example_plays_solo(example_path: Path) -> None:
    record = play("solo", 3, ["example"], example_path)
    assert record.seats[0].decisions > 10


def test_every_submit_the_readme_shows_names_its_author() -> None:
    """A bot submitted without an account belongs to nobody: the README's examples never make one unawares."""
    lines = [line.strip() for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
             if line.startswith("    arena submit ")]
    assert len(lines) >= 2, lines
    assert [line for line in lines if "--author " not in line and "--to " not in line] == []


def test_the_sdk_doc_tells_how_to_look_at_a_game() -> None:
    """An author debugging a bot needs these: its own standard error, a kept game, and reading it step by step."""
    text = (ROOT / "docs" / "sdk.md").read_text(encoding="utf-8")
    for words in ("`--stderr`", "`--replay FILE`", "arena replay FILE --turns", "arena replay FILE --step K",
                  "arena replay FILE --html", "arena game show N --turns"):
        assert words in text, words
