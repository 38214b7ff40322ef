"""Tries to recover the deck seed from its first hand and hello, the way an author who read the
engine would when an operator chose a small seed (``arena play --seed 1``, ``season run --seed 1``):

- deck seeds 0..1999 as given, and the ladder's derivation ``random.Random(f"{season}/{number}")``
  for seasons 0..39 and match numbers 0..59;
- the old unkeyed bot seed ``sha256("bohnanza-bot-seed/{seed}/{seat}")`` for seeds 0..1999.

If any candidate deals its hand, it knows every hidden hand and the deck order: it writes them
to stderr and then plays an illegal action, so that the tests see the break as status "illegal".
"""
import hashlib
import random
import sys

from engine import ClassicGame, Rules
from sandbox.sdk import Bot


def deals(rules: Rules, players: int):
    for seed in range(2000):
        yield seed
    for season in range(40):
        for number in range(60):
            yield random.Random(f"{season}/{number}").getrandbits(63)


class SeedSearcher(Bot):
    def on_start(self, hello):
        self.hello = hello
        self.found = None
        for seed in range(2000):
            digest = hashlib.sha256(f"bohnanza-bot-seed/{seed}/{hello.seat}".encode()).digest()
            if int.from_bytes(digest[:8], "big") >> 1 == hello.bot_seed:
                self.found = seed
        self.searched = False

    def search(self, hand):
        for seed in deals(self.rules, self.players):
            game = ClassicGame(self.rules, self.players, seed)
            if tuple(b.value for b in game.seats[self.seat].hand) == hand:
                return seed
        return None

    def act(self, message):
        if message.get("type") == "decide" and self.rules.princes is None:
            view = message["view"]
            if not self.searched and view["turn"] == 0 and len(view["hand"]) == self.rules.hand_size:
                self.searched = True
                self.found = self.found if self.found is not None else self.search(tuple(view["hand"]))
            if self.found is not None:
                print(f"deck seed recovered: {self.found}", file=sys.stderr)
                return {"id": message["id"], "action": {"type": "plant", "field": 99}}  # illegal on purpose
        return super().act(message)
