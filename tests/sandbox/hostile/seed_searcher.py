"""Tries to recover the deck seed from its first hand and hello, the way an author who read the
engine would when an operator chose a small seed (``arena play --seed 1``, ``season run --seed 1``):

- deck seeds 0..1999 as given, and the ladder's derivation ``random.Random(f"{season}/{number}")``
  for seasons 0..39 and match numbers 0..59;
- the old unkeyed bot seed ``sha256("bohnanza-bot-seed/{seed}/{seat}")`` for seeds 0..1999.

If a candidate deals its hand and the first turned-up cards, it knows every hidden hand and the deck order: it
writes them to stderr and then plays an illegal action, so that the tests see the break as status "illegal".
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
        self.found = None
        for seed in range(2000):
            digest = hashlib.sha256(f"bohnanza-bot-seed/{seed}/{hello.seat}".encode()).digest()
            if int.from_bytes(digest[:8], "big") >> 1 == hello.bot_seed:
                self.found = seed
        self.candidates = None  # deals whose hand for this seat is ours; confirmed by the first turn-up

    def act(self, message):
        if message.get("type") == "decide" and self.rules.princes is None:  # the hello set the rules
            rules = self.rules
            view = message["view"]
            if self.candidates is None and view["turn"] == 0 and len(view["hand"]) == rules.hand_size:
                hand = tuple(view["hand"])
                self.candidates = [ClassicGame(rules, self.players, seed) for seed in deals(rules, self.players)]
                self.candidates = [g for g in self.candidates
                                   if tuple(b.value for b in g.seats[self.seat].hand) == hand]
            for event in message.get("events", ()):
                if event.get("type") == "turned_up" and self.candidates and self.found is None:
                    first = tuple(event["beans"])
                    for game in self.candidates:
                        if tuple(b.value for b in reversed(game.deck[-len(first):])) == first:
                            self.found = game.seed
                    self.candidates = []
            if self.found is not None:
                print(f"deck seed recovered: {self.found}", file=sys.stderr)
                return {"id": message["id"], "action": {"type": "plant", "field": 99}}  # illegal on purpose
        return super().act(message)
