"""BotProcess against real subprocesses: start-up, entry points, bundles, deadlines and bank, freezing, errors."""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from sandbox_helpers import ECHO_SOURCE, assert_gone, fast_limits, needs_strong

from sandbox import BotBundle, BotProcess, Limits, SandboxError, Status, Tier, close_fork_servers, modules_from_package
from sandbox import isolation
from sandbox.isolation import Confinement
from sandbox.freezing import PIPE_READ_WAITS


def start(source: str, tier: Tier, limits: Limits | None = None, **modules: str) -> BotProcess:
    return BotProcess.start(BotBundle("t", source, {k.replace("__", "."): v for k, v in modules.items()}),
                            limits or fast_limits(), tier)


def test_echo_round_trip_and_accounting(tier: Tier) -> None:
    with start(ECHO_SOURCE, tier) as bot:
        assert bot.status is Status.OK and bot.startup_ms > 0
        for n in range(3):
            reply = bot.request({"type": "decide", "n": n})
            assert reply.status is Status.OK and reply.message == {"echo": {"type": "decide", "n": n}}
        assert bot.time_used_ms > 0 and bot.bank_left_ms == 0.0
    assert_gone(bot)


def test_class_entry_point_marked_by_sdk_attribute(tier: Tier) -> None:
    source = (
        "class Base:\n    __bohnanza_bot__ = True\n\n"
        "class Mine(Base):\n    def __init__(self):\n        self.seen = 0\n"
        "    def act(self, message):\n        self.seen += 1\n        return {'seen': self.seen}\n"
    )
    # Base is defined in the bot module too, so two classes qualify: no entry point
    with start(source, tier) as bot:
        assert bot.status is Status.CRASH and "no entry point" in bot.stderr_tail
        # in the SDK's words, not its marker's: docs/sdk.md never names __bohnanza_bot__
        assert "exactly one subclass of sandbox.sdk.Bot in the bot file (docs/sdk.md; found: Base, Mine)" \
            in bot.stderr_tail and "__bohnanza_bot__" not in bot.stderr_tail
    sdk = "class Bot:\n    __bohnanza_bot__ = True\n    def act(self, message):\n        return {}\n"
    source = ("from mysdk import Bot\n\nclass Mine(Bot):\n    n = 0\n"
              "    def act(self, message):\n        Mine.n += 1\n        return {'n': Mine.n}\n")
    with start(source, tier, mysdk=sdk) as bot:
        assert [bot.request({"type": "decide"}).message for _ in range(2)] == [{"n": 1}, {"n": 2}]


@pytest.mark.parametrize("source, words", [
    ("import no_such_module\n", "ModuleNotFoundError"),
    ("def act(:\n", "SyntaxError"),
    ("x = 1\n", "no entry point"),
    ("raise SystemExit(0)\n", "exited during import"),
])
def test_bad_bots_crash_at_startup_with_a_diagnostic(tier: Tier, source: str, words: str) -> None:
    with start(source, tier) as bot:
        assert bot.status is Status.CRASH
        assert words in bot.stderr_tail
        assert bot.request({"type": "decide"}).status is Status.CRASH
        bot.notify({"type": "end"})  # never raises


def test_act_raising_is_a_crash_and_the_bot_stays_dead(tier: Tier) -> None:
    with start("def act(m):\n    if m['type'] == 'decide':\n        raise KeyError('boom')\n    return {}\n",
               tier) as bot:
        assert bot.request({"type": "hello"}).status is Status.OK
        first = bot.request({"type": "decide"})
        assert first.status is Status.CRASH and "KeyError" in bot.stderr_tail
        assert bot.request({"type": "hello"}).status is Status.CRASH


def test_closed_stdout_while_running_is_a_disconnect(tier: Tier) -> None:
    source = ("import os, time\ndef act(m):\n    for fd in range(3, 10):\n        try: os.close(fd)\n"
              "        except OSError: pass\n    time.sleep(100)\n")
    with start(source, tier, fast_limits()) as bot:
        # every tier: the bot's pipes are its own (strong: the fork server hands each child new ones),
        # so the closed end is seen at once (the limit is one a loaded machine cannot reach: the verdict is EOF's)
        assert bot.request({"type": "decide"}).status is Status.DISCONNECT


def test_unreadable_reply_object_is_a_crash(tier: Tier) -> None:
    with start("def act(m):\n    return {'x': object()}\n", tier) as bot:
        reply = bot.request({"type": "decide"})
        assert reply.status is Status.CRASH and "reply is not JSON" in bot.stderr_tail


def test_bundle_modules_packages_and_missing_parents(tier: Tier) -> None:
    modules = {
        "engine.__init__": "NAME = 'engine'\n",
        "engine.cards": "from . import NAME\nCARDS = [NAME, 'blue']\n",
        "sandbox.sdk": "VALUE = 7\n",  # 'sandbox' itself not given: created as an empty package
    }
    source = ("from engine.cards import CARDS\nfrom sandbox.sdk import VALUE\n"
              "def act(m):\n    return {'cards': CARDS, 'v': VALUE}\n")
    with BotProcess.start(BotBundle("b", source, modules), fast_limits(), tier) as bot:
        assert bot.request({"type": "decide"}).message == {"cards": ["engine", "blue"], "v": 7}


def test_bundle_module_with_submodules_must_be_a_package() -> None:
    with pytest.raises(ValueError, match="'engine.__init__'"):
        BotProcess.start(BotBundle("b", ECHO_SOURCE, {"engine": "", "engine.cards": ""}), fast_limits(), Tier.PLAIN)


def test_modules_from_package_reads_a_directory(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("A = 1\n")
    (tmp_path / "pkg" / "sub.py").write_text("B = 2\n")
    assert modules_from_package(tmp_path / "pkg", "pkg") == {"pkg.__init__": "A = 1\n", "pkg.sub": "B = 2\n"}
    with pytest.raises(ValueError, match="not a package"):
        modules_from_package(tmp_path, "x")


def test_overrun_is_taken_from_the_bank(tier: Tier) -> None:
    source = "import time\ndef act(m):\n    time.sleep(m['sleep'])\n    return {}\n"
    with start(source, tier, fast_limits(decision_ms=100, bank_ms=1000)) as bot:
        first = bot.request({"type": "decide", "sleep": 0.25})
        assert first.status is Status.OK and first.elapsed_ms >= 250
        left = bot.bank_left_ms
        assert left == pytest.approx(1000 - (first.elapsed_ms - 100))  # the overrun, as measured, charged
        reply = bot.request({"type": "decide", "sleep": 0.1 + left / 1000 + 0.2})
        assert reply.status is Status.TIMEOUT and bot.bank_left_ms == 0.0


SPIN_AFTER_REPLY = """
import signal, time
def _burn(signum, frame):
    end = time.process_time() + 0.2
    while time.process_time() < end:
        pass
signal.signal(signal.SIGALRM, _burn)
def act(m):
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.01, 0.01)  # keeps computing after the reply
    except OSError as exc:
        return {"armed": exc.errno}
    return {"armed": 0}
"""


def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


@pytest.mark.parametrize("freeze", [True, False], ids=["frozen", "not-frozen"])
def test_bot_not_asked_does_not_compute(tier: Tier, freeze: bool) -> None:
    """A SIGALRM timer that keeps the bot computing after its reply. Strong tier: the timer is refused
    (a sleeping bot has nothing that could wake it). Plain tier: it arms, and only freezing stops it."""
    import errno

    with start(SPIN_AFTER_REPLY, tier, fast_limits(freeze=freeze)) as bot:
        reply = bot.request({"type": "decide"})
        assert reply.status is Status.OK
        assert reply.message == {"armed": errno.EPERM if tier is Tier.STRONG else 0}
        assert bot.pid is not None
        before = _cpu_ticks(bot.pid)
        time.sleep(0.5)
        grown = _cpu_ticks(bot.pid) - before
        if freeze or tier is Tier.STRONG:
            assert grown == 0
        else:  # the control: without freezing it burns CPU on others' time (as much as a busy machine gives it)
            deadline = time.monotonic() + 60
            while grown <= 10 and time.monotonic() < deadline:
                time.sleep(0.1)
                grown = _cpu_ticks(bot.pid) - before
            assert grown > 10


def test_an_honest_bot_at_rest_is_never_signalled(tier: Tier) -> None:
    """Strong tier: between requests an honest bot sleeps reading its request pipe, which only the
    referee can end, so settling it costs one read of /proc and no signal (plain tier: SIGSTOP)."""
    def at_rest(bot: BotProcess) -> bool:
        """Asleep reading its request pipe (the state the referee checks), waited for: on a busy machine
        an honest bot may not yet be back from writing its reply, and then it is stopped, as it should be."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with open(f"/proc/{bot.pid}/wchan", "rb") as f:
                if f.read() in PIPE_READ_WAITS:
                    return True
            time.sleep(0.001)
        return False

    with start(ECHO_SOURCE, tier) as a, start(ECHO_SOURCE, tier) as b:
        for n in range(20):
            for bot, other in ((a, b), (b, a)):
                assert tier is Tier.PLAIN or at_rest(other)
                assert bot.request({"type": "decide", "n": n}).status is Status.OK
        if tier is Tier.STRONG:
            assert a.stops == 0 and b.stops == 0


def test_strong_tier_unavailable_raises_sandbox_error(monkeypatch: pytest.MonkeyPatch) -> None:
    close_fork_servers()  # an idle fork server of the same bundle was checked when it started, and is used
    monkeypatch.setattr(isolation, "strong_tier_problem", lambda interp: "bwrap not found (test)")
    with pytest.raises(SandboxError, match="bwrap not found"):
        BotProcess.start(BotBundle("b", ECHO_SOURCE), fast_limits(), Tier.STRONG)


def test_uid_slots_are_exclusive_and_run_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not os.geteuid() == 0:
        pytest.skip("uid slots need root")
    monkeypatch.setenv(isolation.CONFINEMENT_ENV, "uid-slots")
    slot_dir = tmp_path / "slots"
    a = isolation.acquire_slot(slot_dir, range(62000, 62002))
    b = isolation.acquire_slot(slot_dir, range(62000, 62002))
    assert {a.uid, b.uid} == {62000, 62001}
    with pytest.raises(SandboxError, match="no free uid slot"):
        isolation.acquire_slot(slot_dir, range(62000, 62002))
    a.release()
    assert isolation.acquire_slot(slot_dir, range(62000, 62002)).uid == 62000
    b.release()


def test_the_confinement_follows_the_user_unless_the_environment_chooses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(isolation.CONFINEMENT_ENV, raising=False)
    expected = Confinement.UID_SLOTS if os.geteuid() == 0 else Confinement.USER_NAMESPACE
    assert isolation.confinement() is expected
    monkeypatch.setenv(isolation.CONFINEMENT_ENV, "user-namespace")
    assert isolation.confinement() is Confinement.USER_NAMESPACE
    assert isolation.acquire_slot().uid is None  # nothing to hold: no uid of its own
    monkeypatch.setenv(isolation.CONFINEMENT_ENV, "containers")
    with pytest.raises(SandboxError, match="must be one of uid-slots, user-namespace, not 'containers'"):
        isolation.confinement()
    assert "not 'containers'" in str(isolation.strong_tier_problem(isolation.interpreter()))


def test_missing_interpreter_is_a_machine_fault() -> None:
    with pytest.raises(SandboxError, match="not executable"):
        BotProcess.start(BotBundle("b", ECHO_SOURCE), fast_limits(), Tier.PLAIN, python="/nonexistent/python3")


def test_foreign_interpreter_gets_source_not_marshal(tier: Tier) -> None:
    if not Path("/usr/bin/python3").exists():
        pytest.skip("no second interpreter")
    bundle = BotBundle("b", "from helper import X\ndef act(m):\n    return {'x': X}\n", {"helper": "X = 5\n"})
    with BotProcess.start(bundle, fast_limits(), tier, python="/usr/bin/python3") as bot:
        assert bot.status is Status.OK, bot.stderr_tail
        assert bot.request({"type": "decide"}).message == {"x": 5}



@pytest.mark.parametrize("freeze", [True, False], ids=["frozen", "not-frozen"])
def test_cpu_used_between_requests_is_charged_to_the_bank(tier: Tier, freeze: bool) -> None:
    """A bot that writes its reply itself and keeps computing pays for it: the CPU it used between
    requests comes out of its bank. Without freezing (the control) in both tiers;
    in the strong tier also with it, while no other bot is asked (nothing needs to stop it then)."""
    bundle = BotBundle.from_file(Path(__file__).parent / "hostile" / "early_reply.py")
    with BotProcess.start(bundle, fast_limits(freeze=freeze, bank_ms=400), tier) as bot:
        assert bot.request({"type": "decide", "id": 1}).status is Status.OK
        assert bot.pid is not None
        stopped = freeze and tier is Tier.PLAIN  # stopped at once: it never gets its 400 ms
        start, deadline = _cpu_ticks(bot.pid), time.monotonic() + (0.5 if stopped else 60)  # 60: a busy machine's bound
        while _cpu_ticks(bot.pid) - start < 40 and time.monotonic() < deadline:  # 400 ms of CPU, if it gets them
            time.sleep(0.05)
        reply = bot.request({"type": "decide", "id": 2})
        if stopped:
            assert bot.cpu_at_rest_ms == 0.0
            return
        assert bot.cpu_at_rest_ms > 300 and bot.bank_left_ms < 400 - 300  # charged to its bank
        assert reply.status is not Status.OK or reply.message == {"id": 1, "action": {"type": "pass"}}  # its late line


def test_a_frozen_bot_is_charged_nothing(tier: Tier) -> None:
    with start(SPIN_AFTER_REPLY, tier, fast_limits(bank_ms=400)) as bot:
        assert bot.request({"type": "decide"}).status is Status.OK
        time.sleep(0.6)
        bot.request({"type": "decide"})  # it spins once thawed: the charge is settled before that
        assert bot.cpu_at_rest_ms == 0.0


def test_a_message_over_the_bound_is_the_referees_fault(tier: Tier) -> None:
    with start(ECHO_SOURCE, tier, fast_limits(max_request_bytes=1000)) as bot:
        assert bot.request({"type": "decide", "pad": "x" * 900}).status is Status.OK
        with pytest.raises(SandboxError, match="exceeds the bound of 1000"):
            bot.request({"type": "decide", "pad": "x" * 1000})


def test_fork_servers_are_chosen_by_what_the_modules_hold_not_where_they_live() -> None:
    from sandbox.fork_server import modules_digest

    first = {"mysdk": "A = 1\n"}
    was = modules_digest(first)
    del first
    second = {"mysdk": "A = 2\n"}  # may take the freed mapping's address, as a later bundle did
    assert modules_digest(second) != was
    assert modules_digest(dict(second)) == modules_digest(second) and modules_digest({}) != was


@needs_strong
def test_a_fork_server_that_goes_away_is_the_machines_fault_not_the_bots() -> None:
    """The bot exits during a request, and its exit status cannot be read because its fork server was
    killed: a SandboxError (the game is void, test_referee.py), never a CRASH the bot would be rated for."""
    source = "def act(m):\n    if m['type'] == 'decide':\n        raise SystemExit(3)\n    return {}\n"
    with start(source, Tier.STRONG, fast_limits(fork_server=True)) as bot:
        assert bot.request({"type": "hello"}).status is Status.OK
        server = getattr(bot._popen, "server", None)
        assert server is not None and server.pid is not None  # it was forked by a fork server
        os.kill(server.pid, signal.SIGKILL)
        with pytest.raises(SandboxError, match=r"bot 't' ended during request and its fork server went away"):
            bot.request({"type": "decide"})
    assert_gone(bot)
