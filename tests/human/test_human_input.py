"""A person's mistakes at a real pseudo-terminal: bad input at every kind of prompt gets one line and the
same question; Ctrl-C, closed input and a spent time limit end the game in one line, nothing left running."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from arena.cli.play import ABANDONED
from pty_table import ARENA, CHOICE, finished, human_row, number_of, play_out, spawn

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
ANSWER_AGAIN = r"; try again \(or 'back'\)\."


def children_of(pid: int) -> list[int]:
    """Every process descended from ``pid`` (the bots' fork servers and their bots included)."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            with open(f"/proc/{parent}/task/{parent}/children", encoding="ascii") as f:
                kids = [int(k) for k in f.read().split()]
        except OSError:
            continue
        found += kids
        todo += kids
    return found


def test_bad_input_at_every_kind_of_prompt_gets_a_reason_and_the_same_question(tmp_path: Path) -> None:
    child = spawn(tmp_path, "human", "greedy", "random", "--deck-seed", "4")
    child.expect(CHOICE)
    size = int(child.match.group(1))
    for wrong in ("x", "0", str(size + 1), "", "1 2", "-1", "²"):  # the menu ('²'.isdigit() is true)
        child.sendline(wrong)
        child.expect(f"is not a choice: type a number from 1 to {size}\\.")
        child.expect(CHOICE)
    child.sendline("?")  # the bean table, then the same question
    child.expect("The beans")
    child.expect(CHOICE)
    child.sendline("1")
    child.expect(CHOICE)
    while number_of(child.before, "Make an offer") is None or "Trade: make an offer" not in child.before:
        child.sendline("1")
        child.expect(CHOICE)
    hand = 0
    compose = number_of(child.before, "Make an offer")
    child.sendline(str(compose))
    child.expect(r"Your hand: (.*)\r\n")
    hand = len(child.match.group(1).split(". ")) - 1
    child.expect("Hand cards to give")
    for wrong, why in ((str(hand + 1), f"'{hand + 1}' is not a number from 1 to {hand}"),
                       ("1 1", "1 is named twice"), ("a", f"'a' is not a number from 1 to {hand}"),
                       ("³", f"'³' is not a number from 1 to {hand}")):
        child.sendline(wrong)
        child.expect(why + ANSWER_AGAIN)
        child.expect("Hand cards to give")
    child.sendline("")  # nothing from the hand
    child.expect("Trading-area cards to give")
    child.sendline("3")
    child.expect("'3' is not a number from 1 to 2" + ANSWER_AGAIN)
    child.sendline("")
    child.expect("Beans you want")
    child.sendline("99")
    child.expect("'99' is not a number from 1 to 8" + ANSWER_AGAIN)
    child.sendline("")  # nothing given, nothing wanted: an impossible offer, composed again
    child.expect(r"That offer cannot be made \(C-6\.8: an offer gives or wants at least one card\); compose it again\.")
    child.expect("Hand cards to give")
    child.sendline("1")
    child.expect("Trading-area cards to give")
    child.sendline("")
    child.expect("Beans you want")
    child.sendline("1 1 1 1 1 1 1 1")  # more than any partner could pay (C-6.9)
    child.expect("To whom")
    child.sendline("1 2")
    child.expect("Name one seat, or press Enter for everybody; compose it again.")
    child.expect("Hand cards to give")
    child.sendline("1")
    child.expect("Trading-area cards to give")
    child.sendline("")
    child.expect("Beans you want")
    child.sendline("1 1 1 1 1 1 1 1")
    child.expect("To whom")
    child.sendline("")
    child.expect(r"That offer cannot be made \(C-6\.9: it wants 8 cards, and no partner could pay more than \d+ now\)")
    child.expect("Hand cards to give")
    child.sendline("1")
    child.expect("Trading-area cards to give")
    child.sendline("")
    child.expect("Beans you want")
    child.sendline("1")
    child.expect("To whom")
    child.sendline("")
    child.expect(r"Send it\? \(y/n\)")
    child.sendline("perhaps")
    child.expect("'perhaps': type y or n.")
    child.expect(r"Send it\? \(y/n\)")
    child.sendline("n")
    child.expect("Not sent; compose it again \\('back' for the menu\\)\\.")
    child.expect("Hand cards to give")
    child.sendline("back")  # back to the menu: nothing sent
    child.expect(CHOICE)
    assert "Trade: make an offer, or end trading:" in child.before
    child.sendline("1")
    play_out(child)
    output = finished(child)
    assert child.exitstatus == 0, output[-2000:]
    assert human_row(output)[4] == "ok"  # nothing illegal reached the referee
    assert "Traceback" not in output


def test_ctrl_c_ends_the_game_in_one_line_and_leaves_no_process(tmp_path: Path) -> None:
    child = spawn(tmp_path, "human", "greedy", "random", "--deck-seed", "5")
    child.expect(CHOICE)
    bots = children_of(child.pid)
    assert bots, "the bots run in processes of their own"
    child.sendintr()
    output = finished(child)
    assert child.exitstatus == 130, output[-2000:]
    after = output[output.rindex("Your choice"):].strip().splitlines()
    assert after[-1] == ABANDONED, after
    assert "Traceback" not in output
    assert [pid for pid in bots if os.path.exists(f"/proc/{pid}") and "Z" not in _state(pid)] == []


def test_closed_input_ends_the_game_in_one_line(tmp_path: Path) -> None:
    child = spawn(tmp_path, "human", "greedy", "random", "--deck-seed", "5")
    child.expect(CHOICE)
    child.sendeof()
    output = finished(child)
    assert child.exitstatus == 130, output[-2000:]
    assert output.strip().splitlines()[-1] == ABANDONED
    assert "Traceback" not in output


def test_past_the_persons_time_limit_the_seat_forfeits_and_the_game_ends(tmp_path: Path) -> None:
    child = spawn(tmp_path, "human", "greedy", "random", "--deck-seed", "5", "--human-ms", "300")
    child.expect(r"Time is up \(300 ms\): your seat forfeits, and the rules play it to the end\.")
    output = finished(child)
    assert child.exitstatus == 0, output[-2000:]
    assert human_row(output)[4] == "timeout"
    assert "the person did not decide within 300 ms" in output


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def test_two_people_at_one_table_and_bad_names_are_refused_in_one_line(tmp_path: Path) -> None:
    for args, why in ((["human", "human:ann", "greedy"], "one person per table: 'human' is named 2 times"),
                      (["human:" + "x" * 40, "greedy", "random"], "a person's name is at most 32 printable")):
        child = spawn(tmp_path, *args)
        output = finished(child)
        assert child.exitstatus == 2, output
        assert why in output and "Traceback" not in output
        assert len(output.strip().splitlines()) == 1, output


def test_with_json_the_screen_goes_to_stderr_and_stdout_holds_the_result_alone(tmp_path: Path) -> None:
    run = subprocess.run([*ARENA, "--db", f"sqlite:///{tmp_path / 'arena.db'}", "play", "greedy", "human", "random",
                          "--deck-seed", "8", "--json"], input="1\n" * 2000, capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout)
    assert [s["name"] for s in result["seats"]] == ["greedy_bot", "human", "random_bot"]
    assert result["seats"][1]["status"] == "ok" and result["seats"][1]["decisions"] > 10
    assert "Your choice" in run.stderr and "Your hand:" in run.stderr


def test_a_closed_terminal_or_sigterm_ends_the_game_and_every_bot_even_a_program_of_ones_own(tmp_path: Path) -> None:
    perl = str(EXAMPLES / "first_option_bot.pl")
    for signum in (signal.SIGHUP, signal.SIGTERM):
        child = spawn(tmp_path, "human", f"exec:perl {perl}", "greedy", "--unsafe", "--deck-seed", "5")
        child.expect(CHOICE)
        bots = children_of(child.pid)
        assert len(bots) >= 2, bots  # the program and the sandboxed bot's processes
        child.kill(signum)
        output = finished(child)
        assert child.exitstatus == 130, (signum, output[-2000:])
        assert output.strip().splitlines()[-1] == ABANDONED and "Traceback" not in output
        assert [pid for pid in bots if os.path.exists(f"/proc/{pid}") and "Z" not in _state(pid)] == [], signum


def test_ctrl_c_while_the_command_line_is_imported_is_one_line(tmp_path: Path) -> None:
    interrupt_the_import = (  # a Ctrl-C that lands while arena.cli is being imported, on purpose
        "import builtins, sys\n"
        "real = builtins.__import__\n"
        "def slow(name, *args, **kwargs):\n"
        "    if name == 'arena.cli':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = slow\n"
        "from arena.entry import main\n"
        "main()\n")
    run = subprocess.run([sys.executable, "-c", interrupt_the_import], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path)
    assert (run.returncode, run.stderr, run.stdout) == (130, "arena: interrupted\n", "")
