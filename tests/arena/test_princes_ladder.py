"""The Princes formats on the ladder: `arena play --variant duel|solo` through the sandbox, duel and solo
seasons through the CLI (solo: the same deals for every bot, win rate with a Wilson interval), the
variants a submission is scheduled in, and a forfeit in solo counting as a loss."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlmodel import Session, select

from arena.db import Bot, BotVersion, Match, MatchSeat, Rating, Season, make_engine
from arena.ladder.random_seeds import private_deals
from arena.ladder.rankings import mean_interval, wilson
from engine.replay import Replay
from arena.play.players import InProcessPlayer
from arena.play.referee import final_ranks, play_game
from arena_helpers import present, run_arena
from engine import rules_for
from sandbox import Status

BOTS = Path(__file__).resolve().parents[2] / "bots"
CLASSIC_ONLY = ("from sandbox.sdk import Bot\n\n\nclass ClassicOnly(Bot):\n"
                "    def keep_middle(self, request):\n        raise RuntimeError('no Princes here')\n")


def test_play_duel_and_solo_in_the_sandbox() -> None:
    duel = run_arena("play", "--variant", "duel", "greedy", "random", "--seed", "5", "--json")
    assert duel.returncode == 0, duel.stderr
    data = json.loads(duel.stdout)
    assert data["rules_id"] == "duel-v1" and data["void"] is None
    assert [s["status"] for s in data["seats"]] == ["ok", "ok"]
    assert sorted(s["rank"] for s in data["seats"]) in ([1, 2], [1, 1])
    solo = run_arena("play", "--variant", "solo", "greedy", "--seed", "5", "--json")
    assert solo.returncode == 0, solo.stderr
    data = json.loads(solo.stdout)
    assert data["rules_id"] == "solo-v1" and len(data["seats"]) == 1
    assert data["seats"][0]["status"] == "ok" and data["seats"][0]["rank"] in (1, 2)


@pytest.mark.parametrize("args, text", [
    (["--variant", "duel", "greedy"], "duel-v1 needs exactly 2 bots, got 1"),
    (["--variant", "solo", "greedy", "random"], "solo-v1 needs exactly 1 bot, got 2"),
    (["--variant", "triel", "greedy"], "unknown variant 'triel'"),
])
def test_play_checks_the_bot_count_of_the_variant(args: list[str], text: str) -> None:
    result = run_arena("play", *args)
    assert result.returncode == 2
    assert text in result.stderr and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_solo_forfeit_is_a_loss(tmp_path: Path) -> None:
    crasher = tmp_path / "crasher.py"
    crasher.write_text("from sandbox.sdk import Bot\n\nclass Crasher(Bot):\n"
                       "    def keep_middle(self, request):\n        raise RuntimeError('boom')\n")
    record = play_game(rules_for("solo"), 3, [InProcessPlayer(crasher)])
    assert record.seats[0].status is Status.CRASH and record.seats[0].rank == 2
    assert record.void is None
    rules = rules_for("solo")

    class Won:
        result = type("R", (), {"ranks": (1,)})()

    assert final_ranks(rules, Won(), (7,), ()) == (1,)
    assert final_ranks(rules, Won(), (7,), (0,)) == (2,)  # forfeited: a loss whatever the engine says


OWN = {"greedy": "glutton", "random": "dice"}


def test_duel_and_solo_seasons(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    for name in ("greedy", "random"):  # under names of their own: built-in names are reserved
        result = run_arena("submit", str(BOTS / f"{name}_bot.py"), "--name", OWN[name], db=db)
        assert result.returncode == 0, result.stderr
        assert "registered for classic, duel, solo" in result.stdout
    only = tmp_path / "classic_only.py"
    only.write_text(CLASSIC_ONLY)
    result = run_arena("submit", str(only), db=db)
    assert result.returncode == 0, result.stderr
    assert "registered for classic (" in result.stdout and "not scheduled in duel" in result.stderr

    # the duel: TrueSkill over tables of two, only bots that play it
    result = run_arena("season", "run", "--name", "d", "--variant", "duel", "--games", "4", "--seed", "7", db=db)
    assert result.returncode == 0, result.stderr
    board = json.loads(run_arena("leaderboard", "--variant", "duel", "--json", db=db).stdout)
    assert sorted(r["name"] for r in board) == ["dice", "glutton"]
    assert sum(r["games"] for r in board) == 8 and all("mu" in r and "sigma" in r for r in board)
    # a new version starts from its predecessor's mean in each variant: duel's, not classic's
    duel_mu = next(r["mu"] for r in board if r["name"] == "glutton")
    changed = tmp_path / "glutton.py"
    changed.write_text((BOTS / "greedy_bot.py").read_text() + "\n# version two\n")
    assert run_arena("submit", str(changed), "--operator", db=db).returncode == 0  # glutton has no owner
    duel_row = next(r for r in json.loads(run_arena("leaderboard", "--variant", "duel", "--json", db=db).stdout)
                    if r["name"] == "glutton")
    classic_row = next(r for r in json.loads(run_arena("leaderboard", "--json", db=db).stdout)
                       if r["name"] == "glutton")
    assert (duel_row["version"], duel_row["games"]) == (2, 0) and duel_mu != pytest.approx(25.0)
    assert duel_row["mu"] == pytest.approx(duel_mu, abs=1e-3) and classic_row["mu"] == pytest.approx(25.0)
    result = run_arena("season", "run", "--name", "d", "--games", "8", db=db)  # version 2 plays its duels
    assert result.returncode == 0, result.stderr
    rerated = run_arena("leaderboard", "--variant", "duel", "--rerate", db=db)
    assert "rerated duel: 0 ratings differed" in rerated.stderr, rerated.stderr  # the prior is reproduced
    # a later version is named as everywhere else, in its games' records and in `arena game show`
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        seated = [Replay.loads(present(m.replay)).seats for m in session.exec(select(Match).where(
            Match.rules_id == "duel-v1", Match.status == "done")).all()]
        late = next(m.id for m in session.exec(select(Match).where(Match.rules_id == "duel-v1")).all()
                    if m.replay and "glutton v2" in Replay.loads(m.replay).seats)
    engine.dispose()
    assert any("glutton v2" in seats for seats in seated) and not any("#" in n for s in seated for n in s)
    position = run_arena("game", "show", str(late), "--step", "0", db=db).stdout
    assert "glutton v2: " in position and "gold" in position.splitlines()[1], position  # the duel counts gold

    # solo: every bot on the same deals; a bot added later gets them when the season resumes
    result = run_arena("season", "run", "--name", "s", "--variant", "solo", "--games", "3", "--seed", "8", db=db)
    assert result.returncode == 0, result.stderr
    assert "win rate" in result.stdout
    result = run_arena("submit", str(BOTS / "trader_bot.py"), "--name", "merchant", db=db)
    assert result.returncode == 0, result.stderr
    late = json.loads(run_arena("leaderboard", "--variant", "solo", "--json", db=db).stdout)  # before it plays
    assert [(r["name"], r["games"], r["rank"]) for r in late][-1] == ("merchant", 0, None)  # listed, not ranked
    assert all(r["rank"] is not None for r in late[:-1])
    late_lines = run_arena("leaderboard", "--variant", "solo", db=db).stdout.splitlines()
    assert [line.split()[:2] for line in late_lines if "merchant" in line] == [["-", "merchant"]]
    result = run_arena("season", "run", "--name", "s", db=db)
    assert result.returncode == 0, result.stderr
    board = json.loads(run_arena("leaderboard", "--variant", "solo", "--json", db=db).stdout)
    assert sorted(r["name"] for r in board) == ["dice", "glutton", "merchant"]
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        rows = [(name, match.seed, seat.rank, seat.coins, match.status) for name, match, seat in session.exec(
            select(Bot.name, Match, MatchSeat).where(
                MatchSeat.match_id == Match.id, MatchSeat.version_id == BotVersion.id, BotVersion.bot_id == Bot.id,
                Match.rules_id == "solo-v1")).all()]
        assert session.exec(select(Rating).where(Rating.variant == "solo")).all() == []  # counted, not rated
        season = session.exec(select(Season).where(Season.name == "s")).one()
        private = private_deals(season.seed, 3)
    engine.dispose()
    seeds = {name: sorted(seed for n, seed, *_ in rows if n == name) for name in ("glutton", "dice", "merchant")}
    assert len(seeds["glutton"]) == 3 and seeds["glutton"] == seeds["dice"] == seeds["merchant"]
    assert len(private) == 2 and private < set(seeds["dice"])  # of deals 1 and 2 one is private, and deal 3

    def check(board: list[dict], half: str) -> None:
        """The board of one half of the deals: each bot's games on it, its wins, interval and gold."""
        counted = private if half == "private" else set(seeds["dice"]) - private
        for row in board:
            mine = [(rank, present(coins)) for name, seed, rank, coins, status in rows
                    if name == row["name"] and status == "done" and seed in counted]
            wins = sum(rank == 1 for rank, _ in mine)
            assert (row["games"], row["wins"], row["half"]) == (len(mine), wins, half) == (len(counted), wins, half)
            low, high = wilson(wins, len(counted))
            assert row["win_rate"] == pytest.approx(wins / len(counted), abs=1e-4)
            assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low, abs=1e-4), pytest.approx(high, abs=1e-4))
            assert row["ci_low"] <= row["win_rate"] <= row["ci_high"]
            assert not {"score", "mu", "sigma"} & set(row)  # a win-rate board fakes no TrueSkill fields
            assert row["avg_gold"] == pytest.approx(sum(c for _, c in mine) / len(counted), abs=1e-4)
            gold = mean_interval(sum(c for _, c in mine), sum(c * c for _, c in mine), len(mine))
            if gold is None:  # one game: no spread to tell
                assert len(mine) == 1 and row["gold_low"] is None and row["gold_high"] is None
            else:
                assert gold[0] <= row["avg_gold"] <= gold[1]
                assert (row["gold_low"], row["gold_high"]) == (pytest.approx(gold[0], abs=1e-4),
                                                               pytest.approx(gold[1], abs=1e-4))
        # equal results share a rank (1, 1, 3), the others are ranked by how many did better
        assert [r["rank"] for r in board] == [1 + sum((o["win_rate"], o["avg_gold"]) > (r["win_rate"], r["avg_gold"])
                                                      for o in board) for r in board]
        assert board == sorted(board, key=lambda r: (-r["win_rate"], -r["avg_gold"], r["name"]))

    check(board, "public")  # while the season is open: its public half, the feedback
    shown = run_arena("leaderboard", "--variant", "solo", db=db)
    assert "public half: while its season is open" in shown.stdout
    assert run_arena("season", "close", "s", db=db).returncode == 0
    check(json.loads(run_arena("leaderboard", "--variant", "solo", "--json", db=db).stdout), "private")
    assert "public half" not in run_arena("leaderboard", "--variant", "solo", db=db).stdout
    listing = run_arena("season", "list", db=db).stdout.splitlines()
    assert listing[0].split()[-2:] == ["finished", "closed"]
    closed = [line for line in listing if line.split()[:2] == ["s", "solo"] and "3 deals/bot" in line]
    assert len(closed) == 1 and closed[0].split()[-1] != "-", listing  # closed: its day and time
    assert [line.split()[-1] for line in listing if line.split()[:1] == ["d"]] == ["-"]  # the duel season is open
    # resuming a season with another variant is refused in one line
    result = run_arena("season", "run", "--name", "s", "--variant", "duel", db=db)
    assert result.returncode == 2 and "season 's' is a solo season, not duel" in result.stderr


def test_the_interval_of_a_mean() -> None:
    assert mean_interval(5, 25, 1) is None and mean_interval(0, 0, 0) is None
    assert mean_interval(6, 18, 2) == (3.0, 3.0)  # no spread
    low, high = mean_interval(10, 30, 4) or (0.0, 0.0)  # 1, 2, 3, 4: sd 1.291
    assert low == pytest.approx(2.5 - 1.96 * 1.2910 / 2, abs=1e-3) and high == pytest.approx(2.5 + 1.96 * 1.2910 / 2,
                                                                                                abs=1e-3)


def test_wilson_interval() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(120, 500)
    assert low == pytest.approx(0.2045, abs=1e-3) and high == pytest.approx(0.2795, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
