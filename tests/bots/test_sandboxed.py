"""The four built-in bots through the real sandbox, as a season would run them."""
from __future__ import annotations

import json
import subprocess
import sys


def test_four_bots_play_a_sandboxed_game() -> None:
    result = subprocess.run([sys.executable, "-m", "arena", "play", "trader", "search", "greedy", "random",
                             "--seed", "1", "--json"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["void"] is None
    assert [s["status"] for s in record["seats"]] == ["ok"] * 4, [s["detail"] for s in record["seats"]]
    assert [s["name"] for s in record["seats"]] == ["trader_bot", "search_bot", "greedy_bot", "random_bot"]
