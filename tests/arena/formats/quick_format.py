"""A toy format for the tests: the base game with one reshuffle instead of two, under its own rules id
(``quick-v1``), rated with TrueSkill. Loaded through ``$ARENA_FORMATS=quick_format``."""
import dataclasses
from functools import cache

from arena.formats import Format, register
from arena.ladder.rankings import TrueSkill
from engine import classic_rules


@cache
def quick_rules():
    return dataclasses.replace(classic_rules(), variant="quick", version=1, reshuffles=1)


QUICK = register(Format("quick", "Quick", quick_rules, TrueSkill()))
