"""Entered late in a solo season by an author who read what the arena prints about it (``season show``,
``game show --turns``, the leaderboard, the site): ``SEEDS`` holds every number found there. If one of
them deals the hand it is given, it knows the whole supply and vine of this deal in advance; it says so on
stderr and plays an illegal action, so that the tests see the leak as status "illegal".
"""
import sys

from engine import new_game
from sandbox.sdk import Bot

SEEDS: list[int] = []  # rewritten by the test


#: what a deal shows at its first decision: the hand, and in the Princes games the vine and the neutral fields. The
#: hand alone is not enough: among a few hundred printed numbers one may deal the same five cards by chance
DEALT = ("hand", "vine", "neutral")


def dealt_by(rules, players, seat, view, seeds):
    """The seed among ``seeds`` that deals what ``view`` (a seat's first view) shows of the deal, or None."""
    for seed in seeds:
        dealt = new_game(rules, players, seed).view_json(seat)
        if all(dealt.get(key) == view.get(key) for key in DEALT):
            return seed
    return None


class DealReader(Bot):
    def on_start(self, hello):
        self.known = None
        self.checked = False

    def act(self, message):
        if message.get("type") == "decide" and not self.checked:
            self.checked = True
            self.known = dealt_by(self.rules, self.players, self.seat, message["view"], SEEDS)
        if message.get("type") == "decide" and self.known is not None:
            print(f"this deal is seed {self.known}: the supply is known", file=sys.stderr)
            return {"id": message["id"], "action": {"type": "plant", "field": 99}}  # illegal on purpose
        return super().act(message)
