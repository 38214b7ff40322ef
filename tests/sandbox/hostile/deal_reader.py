"""Entered late in a solo season by an author who read what the arena prints about it (``season show``,
``game show --turns``, the leaderboard, the site): ``SEEDS`` holds every number found there. If one of
them deals the hand it is given, it knows the whole supply and vine of this deal in advance; it says so on
stderr and plays an illegal action, so that the tests see the leak as status "illegal".
"""
import sys

from engine import new_game
from sandbox.sdk import Bot

SEEDS: list[int] = []  # rewritten by the test


def dealt_by(rules, players, seat, hand, seeds):
    """The seed among ``seeds`` that deals ``hand`` to ``seat``, or None."""
    for seed in seeds:
        game = new_game(rules, players, seed)
        if [b.value for b in game.seats[seat].hand] == list(hand):
            return seed
    return None


class DealReader(Bot):
    def on_start(self, hello):
        self.known = None
        self.checked = False

    def act(self, message):
        if message.get("type") == "decide" and not self.checked:
            self.checked = True
            self.known = dealt_by(self.rules, self.players, self.seat, message["view"]["hand"], SEEDS)
        if message.get("type") == "decide" and self.known is not None:
            print(f"this deal is seed {self.known}: the supply is known", file=sys.stderr)
            return {"id": message["id"], "action": {"type": "plant", "field": 99}}  # illegal on purpose
        return super().act(message)
