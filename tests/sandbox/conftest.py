"""Fixtures for the sandbox tests."""
from __future__ import annotations

from typing import Iterator

import pytest
from sandbox_helpers import ALL_TIERS, ECHO_SOURCE, assert_gone, fast_limits

from sandbox import BotBundle, BotProcess, Status, Tier


@pytest.fixture(params=ALL_TIERS, ids=lambda t: t.value)
def tier(request: pytest.FixtureRequest) -> Tier:
    return request.param


@pytest.fixture
def witness(tier: Tier) -> Iterator[BotProcess]:
    """A well-behaved bot running next to the hostile one: it must still answer afterwards."""
    yield from well_behaved(tier)


@pytest.fixture
def witness_strong() -> Iterator[BotProcess]:
    """The witness in the strong tier, for tests of the strong tier only."""
    yield from well_behaved(Tier.STRONG)


def well_behaved(tier: Tier) -> Iterator[BotProcess]:
    bot = BotProcess.start(BotBundle("witness", ECHO_SOURCE), fast_limits(), tier)
    assert bot.status is Status.OK
    yield bot
    reply = bot.request({"type": "decide", "n": 42})
    assert reply.status is Status.OK and reply.message == {"echo": {"type": "decide", "n": 42}}
    bot.close()
    assert_gone(bot)
