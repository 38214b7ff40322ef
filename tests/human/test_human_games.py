"""Whole games with a person's seat at a real pseudo-terminal, the bots in the sandbox: every format played
by typing 1 at every prompt, offers composed and closed, the same deal from another seat."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pexpect
import pytest
from sqlmodel import Session

from arena.submissions.accounts import ensure_author
from arena.db import make_engine
from arena.submissions.versions import register

from engine import new_game, rules_for
from engine.narration import bean_name

from pty_table import (CHOICE, checked_replay, finished, hand_of, human_row, number_of, play_out, replay_names,
                                   spawn)

BOTS = Path(__file__).resolve().parents[2] / "bots"

#: a bot that says yes: it accepts any offer it can pay, closes any deal, and makes no offer itself
YES_BOT = textwrap.dedent('''
    from sandbox.sdk import Accept, Bot, Confirm, EndTrading, Pass

    class Yes(Bot):
        def trade_offer(self, request):
            return Pass() if request.classic_view.trade.round == 0 else EndTrading()

        def trade_respond(self, request):
            accept = request.options_of(Accept)
            return accept[0] if accept else Pass()

        def trade_confirm(self, request):
            confirm = request.options_of(Confirm)
            return confirm[0] if confirm else Pass()
''')


@pytest.mark.parametrize("variant, bots", [("classic", ["greedy", "random"]), ("duel", ["greedy"]), ("solo", [])])
def test_typing_1_at_every_prompt_plays_a_whole_game(tmp_path: Path, variant: str, bots: list[str]) -> None:
    replay = tmp_path / "game.json"
    child = spawn(tmp_path, "--variant", variant, "human", *bots, "--deck-seed", "11", "--replay", str(replay))
    answered = play_out(child)
    output = finished(child)
    assert child.exitstatus == 0, output[-2000:]
    row = human_row(output)
    assert row[4] == "ok", row  # an illegal action would have forfeited the seat
    assert int(row[5]) > 10  # decisions: the person made every one of their seat's
    assert answered == int(row[5])  # one prompt answered per decision: no question asked twice
    ending = output[output.rindex("Since your last decision, to the end:"):]  # the last moves are told
    # the first screen tells what happened since the deal; later ones since the person's last decision
    assert output.count("Since the deal:") == 1 and output.index("Since your last decision") > \
        output.index("Since the deal:")
    assert "counted " not in output and " counted\n" not in output  # the coins column says so once
    if variant != "solo":
        assert "(others' counted)" in output
    assert "after 0 rounds" not in output
    assert "Game over. human " in ending and ending.index("Game over.") < ending.index("seat  bot")
    assert replay_names(replay) == ["human", *(f"{b}_bot" for b in bots)]
    assert checked_replay(replay).seed == 11  # the engine plays every recorded action again


def test_an_offer_composed_by_the_active_person_is_accepted_and_closed(tmp_path: Path) -> None:
    (tmp_path / "yes.py").write_text(YES_BOT, encoding="utf-8")
    replay = tmp_path / "game.json"
    child = spawn(tmp_path, "human", "yes.py", "yes.py", "--deck-seed", "4", "--replay", str(replay))
    given: list[str] = []
    offered = False

    def choose(child: pexpect.spawn, screen: str) -> str:
        nonlocal offered
        compose = number_of(screen, "Make an offer")
        if not offered and compose is not None and "Trade: make an offer" in screen:
            offered = True
            given.append(hand_of(screen)[1])
            child.sendline(str(compose))
            child.expect("Hand cards to give")
            child.sendline("2")
            child.expect("Trading-area cards to give")
            child.sendline("")
            child.expect("Beans you want")
            child.sendline("")
            child.expect(r"To whom\? 1\. yes \(seat 1\)  2\. yes \(seat 2\)")
            child.sendline("2")
            child.expect(r"Send it\? \(y/n\)")
            return "y"
        close = number_of(screen, "Close the deal with yes (seat 2)")
        return str(close) if close is not None else "1"

    play_out(child, choose)
    output = finished(child)
    assert child.exitstatus == 0 and offered, output[-2000:]
    gift = given[0]  # the second card of the hand at the first trading decision
    assert f"human offers {gift} to yes (seat 2) as a gift" in output
    assert f"Deal: human gives {gift} to yes (seat 2) as a gift." in output
    assert human_row(output)[4] == "ok"
    checked_replay(replay)


def test_a_counter_offer_composed_while_responding_is_closed_by_the_active_bot(tmp_path: Path) -> None:
    (tmp_path / "yes.py").write_text(YES_BOT, encoding="utf-8")
    child = spawn(tmp_path, "yes.py", "human", "yes.py", "--deck-seed", "9")
    countered = False

    def choose(child: pexpect.spawn, screen: str) -> str:
        nonlocal countered
        compose = number_of(screen, "Make an offer to yes (seat 0)")
        if not countered and compose is not None:
            countered = True
            child.sendline(str(compose))
            child.expect("Hand cards to give")
            child.sendline("1")
            child.expect("Beans you want")
            child.sendline("")
            child.expect(r"Offer: give .* for nothing to yes \(seat 0\)\. Send it\? \(y/n\)")
            return "yes"
        return "1"

    play_out(child, choose)
    output = finished(child)
    assert child.exitstatus == 0 and countered, output[-2000:]
    assert "Deal: human gives" in output and "to yes (seat 0) as a gift." in output
    assert human_row(output)[4] == "ok"


def test_a_rotation_deals_the_same_deal_from_another_seat(tmp_path: Path) -> None:
    rules = rules_for("classic")
    game = new_game(rules, 3, 21)
    for rotation, seat in ((0, 0), (1, 1), (2, 2)):
        child = spawn(tmp_path, "human", "greedy", "random", "--deck-seed", "21", "--rotation", str(rotation))
        child.expect(CHOICE)
        assert f"at seat {seat} (of 0-2)" in child.before
        assert hand_of(child.before) == [bean_name(rules, b) for b in game.view(seat).hand], rotation
        child.sendintr()
        finished(child)


def test_a_person_plays_bots_of_the_ladder_by_name_and_version(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'arena.db'}")
    with Session(engine) as session:
        ann = ensure_author(session, "ann")
        register(session, "mine", (BOTS / "greedy_bot.py").read_text(encoding="utf-8"), ann)
        register(session, "mine", (BOTS / "random_bot.py").read_text(encoding="utf-8"), ann)
    engine.dispose()
    replay = tmp_path / "game.json"
    child = spawn(tmp_path, "mine@1", "human", "mine", "--seed", "5", "--replay", str(replay))
    play_out(child)
    output = finished(child)
    assert child.exitstatus == 0, output[-2000:]
    assert "against mine@1, mine@2" in " ".join(output.split()), output[:600]
    assert human_row(output)[4] == "ok"
    assert "seed 5" in output  # the chosen seed, printed as for any game
    assert replay_names(replay) == ["mine@1", "human", "mine@2"]
    checked_replay(replay)
