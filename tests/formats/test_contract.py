"""Every registered format keeps the contract of ``format_contract.check_format`` (its ``Format``, then
random games of each table size it allows: it ends, no card appears or vanishes, the same seed and
actions give the same game, a view shows its seat's hand and only public facts of the others, and a
replay re-simulates exactly). A format registered later (arena.formats.register) calls the same
function on itself, as the probe format below does."""
from __future__ import annotations

import dataclasses
from functools import cache
from typing import Iterator

import pytest
from format_contract import check_format

from arena.formats import Format, Spectator, formats, register, unregister
from arena.ladder.rankings import TrueSkill
from engine import Rules, classic_rules

CASES = [(fmt, players) for fmt in formats() for players in range(fmt.players[0], fmt.players[1] + 1)]
IDS = [f"{fmt.name}-{players}p" for fmt, players in CASES]


@pytest.mark.parametrize("fmt,players", CASES, ids=IDS)
def test_every_registered_format_keeps_the_contract(fmt: Format, players: int) -> None:
    check_format(fmt, players=(players,))


@cache
def probe_rules() -> Rules:
    return dataclasses.replace(classic_rules(), variant="probe", version=1, reshuffles=1)


@pytest.fixture
def registered() -> Iterator[list[Format]]:
    added: list[Format] = []
    yield added
    for fmt in added:
        unregister(fmt.name)


def test_a_format_registered_from_outside_is_checked_by_the_same_function(registered: list[Format]) -> None:
    registered.append(register(Format("probe", "Probe", probe_rules, TrueSkill())))
    check_format(registered[0], players=(3,))


@pytest.mark.parametrize("change,complaint", [
    ({"spectator": Spectator("nowhere")}, "the site has no replay table 'nowhere'"),
    ({"smoke_opponents": ("random", "ghost")}, "smoke opponents ['ghost'] are no built-in bots"),
    ({"season_games": 0}, "season_games 0"),
])
def test_check_format_refuses_a_format_the_layers_could_not_use(registered: list[Format], change: dict,
                                                                complaint: str) -> None:
    registered.append(register(dataclasses.replace(Format("probe", "Probe", probe_rules, TrueSkill()), **change)))
    with pytest.raises(AssertionError) as info:
        check_format(registered[0])
    assert complaint in str(info.value)


def test_check_format_refuses_a_format_that_is_not_registered() -> None:
    with pytest.raises(AssertionError, match="'probe' is not the registered one"):
        check_format(Format("probe", "Probe", probe_rules, TrueSkill()))
