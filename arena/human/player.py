"""A person's seat: a ``Player`` whose decisions are typed at the terminal.

It gets the messages a bot gets (hello, decide, end) and answers as a bot would; what the person sees is
drawn from those messages alone (their view, the public events, the legal options), so a person knows no
more than a bot in the same seat. Every action it sends is an offered option or a composed move checked
against the rules before it is sent.
"""
from __future__ import annotations

import time
from itertools import groupby
from typing import Sequence

from rich.text import Text

from engine.actions import Action, DecisionKind, DiscardHand, action_to_json
from engine.events import Event, TurnStarted, VineRevealed
from engine.narration import describe
from engine.rules import Rules
from engine.views import PrincesView, View
from engine.vine import SHORT
from sandbox.protocol import ActionReply, HelloMessage, Message, ReadyReply
from sandbox.sdk import Request
from sandbox.values import Reply, Status

from arena.human.compose import compose_accept, compose_offer
from arena.human.menu import QUESTIONS, Choice, Compose, menu
from arena.human.screen import Counted, bean_table, classic_screen, goal, princes_screen
from arena.human.terminal import OutOfTime, Terminal, number

HELP = "?"  # typed at the menu: the bean table


class HumanPlayer:
    """The seat of the person at this terminal; ``names`` are every seat's names (shown to the person),
    ``human_ms`` their time per decision (None: no limit)."""

    def __init__(self, name: str, terminal: Terminal, names: Sequence[str], human_ms: float | None = None) -> None:
        self.name = name
        self.names = list(names)
        self.human_ms = human_ms
        self.term = terminal
        self.stderr_tail = ""
        self._rules: Rules | None = None
        self._counted = Counted(len(names))
        self._active = 0
        self._seen = 0  # events told so far: the game's first events are the first decision's
        self._decided = False  # the first decision tells what happened since the deal

    # ----------------------------------------------------------------- the Player protocol
    def request(self, message: Message) -> Reply:
        if isinstance(message, HelloMessage):
            self._rules = Rules.from_json(message.rules)
            self._welcome(message.seat)
            return Reply(Status.OK, ReadyReply().to_json(), 0.0)
        started = time.monotonic()
        request = Request.from_json(message.to_json())
        deadline = None if self.human_ms is None else started + self.human_ms / 1000
        try:
            action = self._decide(request, deadline)
        except OutOfTime:
            self.term.say(f"Time is up ({self.human_ms:.0f} ms): your seat forfeits, and the rules play it "
                          "to the end.")
            return Reply(Status.TIMEOUT, None, (time.monotonic() - started) * 1000,
                         f"the person did not decide within {self.human_ms:.0f} ms")
        elapsed = (time.monotonic() - started) * 1000
        return Reply(Status.OK, ActionReply(request.id, action_to_json(action)).to_json(), elapsed)

    def notify(self, message: Message) -> None:
        pass  # the end: told by ``finish``, with the moves that led to it

    def finish(self, events: Sequence[Event]) -> None:
        """Tell the game's last events, those after the person's last decision (``events``: all of them,
        from the record; the end message carries none)."""
        if self._rules is not None:
            self._tell(self._rules, events[self._seen:], "Since your last decision, to the end")

    def time_left_ms(self) -> float:
        return self.human_ms if self.human_ms is not None else 24 * 3600 * 1000.0

    def new_game(self) -> None:
        pass

    def close(self) -> None:
        pass

    # ----------------------------------------------------------------- one decision
    def _welcome(self, seat: int) -> None:
        assert self._rules is not None
        others = [n for k, n in enumerate(self.names) if k != seat]
        against = f"against {', '.join(others)}" if others else "alone, against the deck"
        self.term.show(Text(f"You are {self.names[seat]}, at seat {seat} (of 0-{len(self.names) - 1}), playing "
                            f"{self._rules.id} {against}. {goal(self._rules)} Type an option's number and Enter; "
                            f"'{HELP}' shows the beans; Ctrl-C leaves the game."), bean_table(self._rules))

    def _decide(self, request: Request, deadline: float | None) -> Action:
        rules = self._rules
        assert rules is not None, "a decision before hello"
        view = request.view
        self.term.discard_typed_ahead()
        self._tell(rules, request.events, "Since your last decision" if self._decided else "Since the deal")
        self._decided = True
        self.term.show(Text(""), classic_screen(rules, view, self.names, self._counted) if isinstance(view, View)
                       else princes_screen(rules, view, self.names, self._counted))
        while True:
            choices = menu(rules, view, request.kind, request.options, self.names)
            self._ask(request.kind, choices)
            choice = self._choose(choices, deadline)
            if choice.action is not None:
                return choice.action
            composed = self._compose(rules, view, request.kind, choice.compose, deadline)
            if composed is not None:
                return composed

    def _tell(self, rules: Rules, events: Sequence[Event], heading: str) -> None:
        """What happened since the person's last decision, in sentences."""
        self._seen += len(events)
        self._counted.add(events)
        lines = []
        for laid_out, group in groupby(events, key=lambda e: isinstance(e, VineRevealed)):
            run = list(group)
            if laid_out and len(run) >= VINE_RUN:  # vine cards turned face up in a row: one line
                cards = [e for e in run if isinstance(e, VineRevealed)]
                lines.append(f"  Vine cards {cards[0].position}–{cards[-1].position} are turned face up: "
                             + "; ".join(f"{e.position} {SHORT.get(e.task, e.task)}" for e in cards) + ".")
                continue
            for event in run:
                if isinstance(event, TurnStarted):
                    self._active = event.seat
                lines.append("  " + describe(event, self.names, rules, self._active))
        if lines:
            self.term.say(f"\n{heading}:\n" + "\n".join(lines))

    def _ask(self, kind: DecisionKind, choices: Sequence[Choice]) -> None:
        discards = kind is not DecisionKind.DISCARD_HAND and any(isinstance(c.action, DiscardHand) for c in choices)
        lines = [f"\n{QUESTIONS.get(kind, kind.value)}" + (", or discard a hand card" if discards else "") + ":"]
        lines += [f"  {k}. {c.label}" for k, c in enumerate(choices, start=1)]
        self.term.say("\n".join(lines))

    def _choose(self, choices: Sequence[Choice], deadline: float | None) -> Choice:
        while True:
            answer = self.term.ask(f"Your choice (1-{len(choices)}, '{HELP}' for the beans): ", deadline)
            if answer == HELP:
                assert self._rules is not None
                self.term.show(bean_table(self._rules))
            elif (picked := number(answer)) is not None and 1 <= picked <= len(choices):
                return choices[picked - 1]
            else:
                self.term.say(f"{answer!r} is not a choice: type a number from 1 to {len(choices)}.")

    def _compose(self, rules: Rules, view: View | PrincesView, kind: DecisionKind, what: Compose | None,
                 deadline: float | None) -> Action | None:
        if not isinstance(view, View):
            return None
        if what is Compose.OFFER:
            return compose_offer(self.term, rules, view, kind, self.names, deadline)
        if what is Compose.ACCEPT:
            return compose_accept(self.term, rules, view, deadline)
        return None


#: vine cards turned face up in a row told in one line of their short tasks (the duel lays out the whole vine)
VINE_RUN = 3
