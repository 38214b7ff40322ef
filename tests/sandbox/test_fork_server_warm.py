"""A table's fork servers start together (``warm_fork_servers``): each template imports its modules while the next
is being started, and the table's bots then take them instead of starting their own one after another."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from sandbox_helpers import ECHO_SOURCE, alive, fast_limits, needs_strong
from waiting import wait_for

from arena.play import players as arena_players
from arena.play.players import bundle_for
from arena.play.tables import GameSpec, SeatEntry, TableTask, run_table
from engine import rules_for
from sandbox import (BotBundle, BotProcess, SandboxError, Status, Tier, close_fork_servers, fork_server,
                     fork_server_pool)

pytestmark = needs_strong
BOTS = Path(__file__).resolve().parents[2] / "bots"


def idle(key: object) -> list[fork_server.ForkServer]:
    return list(fork_server_pool.fork_server_pool()._idle.get(key, ()))


def idle_at_each_start(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The idle templates of the SDK's bundle as each ``SandboxPlayer`` starts, in order (filled as they start)."""
    from sandbox import isolation

    key = fork_server_pool.template_key(bundle_for("x", ""), isolation.interpreter(None), Tier.STRONG)
    seen: list[int] = []
    real_init = arena_players.SandboxPlayer.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        seen.append(len(idle(key)))
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(arena_players.SandboxPlayer, "__init__", counting)
    return seen


def echo_key() -> tuple[object, ...]:
    from sandbox import isolation

    return fork_server_pool.template_key(BotBundle("echo", ECHO_SOURCE), isolation.interpreter(None), Tier.STRONG)


def test_templates_started_without_waiting_are_all_under_way_before_the_first_is_ready() -> None:
    from sandbox import isolation
    from sandbox.boot import bundle_modules

    modules = bundle_modules(BotBundle("echo", ECHO_SOURCE).modules, isolation.interpreter(None).same_as_parent)
    started = [fork_server.ForkServer(modules, (), None, 10_000.0, wait=False) for _ in range(3)]
    try:
        # none is waited for yet: each holds its own slot, its process runs, and its pid is known only once ready
        assert all(server.pid is None and server._popen is not None and server._popen.poll() is None
                   for server in started)
        uids = {server.slot.uid for server in started}
        assert uids == {None} or len(uids) == 3  # a uid slot each (as root; in user namespaces, no uid is held)
        for server in started:
            server.ready()
            server.ready()  # a second call has nothing left to wait for
            assert server.pid is not None and alive(server.pid)
        pids = [server.pid for server in started if server.pid is not None]
    finally:
        for server in started:
            server.close()
    # bubblewrap killed, its namespace is taken down after it: the templates are gone within moments
    wait_for("the closed templates are gone", lambda: not any(alive(pid) for pid in pids), 30)


def test_warmed_templates_are_the_ones_the_next_bots_take() -> None:
    close_fork_servers()
    key = echo_key()
    echo, limits = BotBundle("echo", ECHO_SOURCE), fast_limits(fork_server=True)
    assert fork_server_pool.warm_fork_servers(echo, limits, Tier.STRONG, 3) == 3
    warmed = {server.tag for server in idle(key)}
    assert len(warmed) == 3
    # enough idle ones: nothing more is started
    assert fork_server_pool.warm_fork_servers(echo, limits, Tier.STRONG, 3) == 0
    bots = [BotProcess.start(BotBundle(f"echo{n}", ECHO_SOURCE), fast_limits(fork_server=True), Tier.STRONG)
            for n in range(3)]
    try:
        assert all(bot.status is Status.OK for bot in bots)
        assert {bot.server_tag for bot in bots} == warmed  # each bot from a template started ahead, one each
        assert idle(key) == []
    finally:
        for bot in bots:
            bot.close()
        close_fork_servers()


def test_nothing_is_started_ahead_for_one_bot_a_program_or_bots_that_start_cold() -> None:
    close_fork_servers()
    bundle = BotBundle("echo", ECHO_SOURCE)
    assert fork_server_pool.warm_fork_servers(bundle, fast_limits(fork_server=True), Tier.STRONG, 1) == 0
    assert fork_server_pool.warm_fork_servers(bundle, fast_limits(fork_server=False), Tier.STRONG, 4) == 0
    program = BotBundle("c", "int main(void) { return 0; }", language="c")
    assert fork_server_pool.warm_fork_servers(program, fast_limits(fork_server=True), Tier.STRONG, 4) == 0
    assert idle(echo_key()) == []


def test_a_template_that_cannot_start_is_left_out_with_a_warning(monkeypatch: pytest.MonkeyPatch,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    close_fork_servers()
    real_ready = fork_server.ForkServer.ready
    calls = 0

    def fails_once(self: fork_server.ForkServer) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            self._starting = None
            self.close()
            raise SandboxError("fork server did not start (eof): 'made up'")
        real_ready(self)

    monkeypatch.setattr(fork_server.ForkServer, "ready", fails_once)
    with caplog.at_level(logging.WARNING, logger="sandbox.fork_server"):
        started = fork_server_pool.warm_fork_servers(BotBundle("echo", ECHO_SOURCE),
                                                     fast_limits(fork_server=True), Tier.STRONG, 3)
    try:
        assert started == 2 and len(idle(echo_key())) == 2
        assert "a fork server started ahead: fork server did not start (eof): 'made up'" in caplog.text
    finally:
        close_fork_servers()


def test_a_tables_seats_take_templates_started_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """``run_table`` starts the fork servers of a game's seats before its first bot: when the first seat's bot
    starts, a template for every seat is idle and ready."""
    close_fork_servers()
    seen = idle_at_each_start(monkeypatch)
    source = (BOTS / "random_bot.py").read_text(encoding="utf-8")
    bots = tuple(SeatEntry(n, f"random{n}", source, "python") for n in range(3))
    task = TableTask(rules_for("classic").id, bots, (GameSpec(1, 7, (0, 1, 2)), GameSpec(2, 8, (1, 2, 0))),
                     fast_limits(fork_server=True), Tier.STRONG)
    try:
        outcomes = run_table(task)
        assert [o.record is not None and o.record.void is None for o in outcomes] == [True, True]
        # the first game: 3 ready before its first bot, then one taken a seat; the second game finds them again
        assert seen[:3] == [3, 2, 1] and seen[3] >= 1
    finally:
        close_fork_servers()


def test_an_interrupted_warm_closes_what_it_started_once_and_keeps_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    close_fork_servers()
    real_ready, real_close = fork_server.ForkServer.ready, fork_server.ForkServer.close
    closed: list[int] = []
    calls = 0

    def interrupted(self: fork_server.ForkServer) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise KeyboardInterrupt
        real_ready(self)

    def counted(self: fork_server.ForkServer) -> None:
        if not self._closed:
            closed.append(id(self))
        real_close(self)

    monkeypatch.setattr(fork_server.ForkServer, "ready", interrupted)
    monkeypatch.setattr(fork_server.ForkServer, "close", counted)
    made: list[fork_server.ForkServer] = []
    real_init = fork_server.ForkServer.__init__

    def recorded(self: Any, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(fork_server.ForkServer, "__init__", recorded)
    with pytest.raises(KeyboardInterrupt):
        fork_server_pool.warm_fork_servers(BotBundle("echo", ECHO_SOURCE), fast_limits(fork_server=True),
                                           Tier.STRONG, 3)
    # the first (ready, in the pool) stays; the two others are closed, each once, their slots given back
    assert len(made) == 3 and [server.alive for server in made] == [True, False, False]
    assert sorted(closed) == sorted(id(server) for server in made[1:])
    assert all(server.slot._fd is None for server in made[1:])  # the flock on each slot dropped
    with pytest.raises(SandboxError, match="closed before it was ready"):
        real_ready(made[1])
    # a second close does nothing: its slot (here a uid made up, as root's slots have) may be another template's by
    # now, whose processes it must not look for, let alone kill
    looked: list[object] = []

    def look(*args: object) -> list[int]:
        looked.append(args)
        return []

    monkeypatch.setattr(fork_server, "kill_all", look)
    monkeypatch.setattr(fork_server, "sweep", look)
    made[1].slot = type(made[1].slot)(61999, None)
    made[1].close()
    assert looked == [] and closed.count(id(made[1])) == 1
    close_fork_servers()


def test_arena_play_starts_its_seats_templates_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena play`'s seats (``sandbox_players``) find a ready template each when the first bot starts."""
    from arena.play.single_game import Seat, sandbox_players

    close_fork_servers()
    seen = idle_at_each_start(monkeypatch)
    source = (BOTS / "greedy_bot.py").read_text(encoding="utf-8")
    players: list[arena_players.Player] = []
    try:
        sandbox_players([Seat(f"greedy{n}", source, True, "python") for n in range(4)], False,
                        fast_limits(fork_server=True), players)
        assert len(players) == 4 and seen == [4, 3, 2, 1]
    finally:
        for player in players:
            player.close()
        close_fork_servers()
