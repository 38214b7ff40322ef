"""Shared fixtures of the engine tests; the position helpers live in ``engine_helpers.py``."""
from __future__ import annotations

import pytest

from engine import ClassicGame
from engine_helpers import new_game


@pytest.fixture
def game3() -> ClassicGame:
    """A fresh 3-player game, to be put into a hand-built position."""
    return new_game(3, seed=11)


@pytest.fixture
def game4() -> ClassicGame:
    return new_game(4, seed=12)
