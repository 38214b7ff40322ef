"""The four built-in bots through the real sandbox, as a season would run them."""
from __future__ import annotations

import json

from forked_arena import arena_run


def test_four_bots_play_a_sandboxed_game(tmp_path) -> None:
    # in tmp_path: `--seed` makes the database arena.sqlite in the working folder
    result = arena_run(["play", "trader", "search", "greedy", "random",
                             "--seed", "1", "--json"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["void"] is None
    assert [s["status"] for s in record["seats"]] == ["ok"] * 4, [s["detail"] for s in record["seats"]]
    assert [s["name"] for s in record["seats"]] == ["trader_bot", "search_bot", "greedy_bot", "random_bot"]


CARD_BOT = '''
import sys
from engine import rules_for
from sandbox.sdk import Bot

DUEL = rules_for("duel")  # at import, inside the sandbox


class CardBot(Bot):
    def plant_second(self, request):
        classic = rules_for("classic")
        print(f"cards {sum(t.count for t in classic.bean_types)} duel hand {DUEL.hand_size}", file=sys.stderr)
        return super().plant_second(request)
'''


def test_a_sandboxed_bot_reads_the_rules_through_the_engine(tmp_path) -> None:
    """docs/sdk.md lets a bot import any engine module; ``rules_for`` needs the card data, which the
    sandbox has no file of: the bundle carries it."""
    from engine import rules_for

    bot = tmp_path / "card_bot.py"
    bot.write_text(CARD_BOT)
    result = arena_run(["play", str(bot), "greedy", "random", "--json", "--stderr"],
                            capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    seat = json.loads(result.stdout)["seats"][0]
    assert (seat["name"], seat["status"]) == ("card_bot", "ok"), seat["detail"]
    cards = sum(t.count for t in rules_for("classic").bean_types)
    assert f"  | cards {cards} duel hand {rules_for('duel').hand_size}" in result.stderr.splitlines()
