"""The games of `arena test` on the site: every stored game of a test run has a page with the season games' replay
viewer, and the test's page lists its pairs (deals, NEW's and OLD's points and gold, who won) linking them; in
headless Chromium, a test run's game page draws its board and steps to the stored result."""
from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

from browser_helpers import open_page, severe_console_messages
from sqlmodel import Session

from arena.db import make_engine
from arena.testrun.store import StoredTestRun, TestGame, all_tests, role_name, stored_games
from engine.replay import Replay


def stored_runs(ladder: dict) -> list[tuple[StoredTestRun, list[TestGame]]]:
    """The ladder's stored test runs, each with its stored games and their replays."""
    engine = make_engine(f"sqlite:///{ladder['db']}")
    with Session(engine) as session:
        found = [(test, stored_games(session, test.id, replays=True)) for test in all_tests(session)]
    engine.dispose()
    return found


def test_every_stored_game_of_a_test_has_a_page_its_test_page_links(ladder: dict, site: Path) -> None:
    found = stored_runs(ladder)
    assert {t.settings.name for t, _ in found} == {"trader-vs-random", "duel-test"}
    for test, games in found:
        per_pair = 2 if test.settings.variant == "duel" else 4
        assert test.results.pairs >= 1 and test.games == len(games) == per_pair * test.results.pairs
        page = (site / "tests" / f"{test.id}.html").read_text()
        links = re.findall(r'<a href="([^"]+)" class="pair-game"', page)
        assert links == [f"{test.id}-pair-{g.pair + 1}-game-{g.game + 1}.html" for g in games]
        rows = re.findall(r'<tr id="pair-(\d+)">(.*?)</tr>', page)
        assert [int(n) for n, _ in rows] == list(range(1, test.results.pairs + 1))
        for (number, cells), (first, second) in zip(rows, test.scores):
            values = re.findall(r'data-value="([^"]*)"', cells)
            mine = [g for g in games if g.pair == int(number) - 1]
            assert values[1].split() == [str(s) for s in dict.fromkeys(g.seed for g in mine)]  # the deals
            assert (float(values[2]), float(values[3])) == (first + second, 2 - first - second)
            gold = [sum(g.seats[s].coins for g in mine if (s := g.seat_of(role)) is not None) for role in (0, 1)]
            assert [int(values[4]), int(values[5])] == gold
            assert values[6] == ("NEW" if first + second > 1 else "OLD" if first + second < 1 else "level")
        for game in games:
            html = (site / "tests" / links[games.index(game)]).read_text()
            replay = Replay.loads(game.replay)
            assert replay.result is not None
            meta = json.loads(unescape(script(html, "replay-meta")))
            assert meta["seats"] == [f"{test.settings.bots[s.role].name} ({role_name(s.role)})" for s in game.seats]
            assert meta["coins"] == [s.coins for s in game.seats] == list(replay.result.coins)
            assert meta["ranks"] == [s.rank for s in game.seats] == list(replay.result.ranks)
            assert len(json.loads(script(html, "replay-steps"))["steps"]) == len(replay.actions) + 1
            assert f'<a href="{test.id}.html" id="test-link">' in html
            assert f'<code id="deal-seed">{game.seed}</code>' in html


def script(html: str, element: str) -> str:
    """The text of the page's ``<script id=element>``."""
    found = re.search(rf'<script id="{element}" type="application/json"[^>]*>(.*?)</script>', html, re.S)
    assert found is not None, element
    return found.group(1)


def test_a_test_runs_game_page_draws_its_board_and_steps_to_its_result(browser, site: Path, ladder: dict,
                                                                        screenshots: Path) -> None:
    """From the test's page, a click on a pair's first game: the viewer draws a panel per seat, steps to the
    end of the game, and shows the stored gold there, as the results table does."""
    from selenium.webdriver.common.by import By

    test, games = next((t, g) for t, g in stored_runs(ladder) if t.settings.name == "trader-vs-random")
    game = games[0]
    replay = Replay.loads(game.replay)
    open_page(browser, site / "tests" / f"{test.id}.html")
    first = browser.find_element(By.CSS_SELECTOR, "#pair-1 a.pair-game")
    assert first.text.startswith("1: NEW ")
    first.click()
    assert browser.current_url.endswith(f"/tests/{test.id}-pair-1-game-1.html")
    label = browser.find_element(By.ID, "step-label")
    assert label.text == f"step 0 of {len(replay.actions)}"
    panels = browser.find_elements(By.CSS_SELECTOR, "#seat-panels .seat-panel")
    assert len(panels) == len(game.seats) and all(p.is_displayed() for p in panels)
    assert [p.find_element(By.CSS_SELECTOR, ".seat-name").text for p in panels] == [
        f"{test.settings.bots[s.role].name} ({role_name(s.role)})" for s in game.seats]
    assert browser.find_elements(By.CSS_SELECTOR, "#seat-panels .seat-panel .field")  # the board: fields drawn
    browser.find_element(By.ID, "step-next").click()
    assert label.text == f"step 1 of {len(replay.actions)}" and browser.find_element(By.ID, "event-text").text
    browser.find_element(By.ID, "step-last").click()
    assert label.text == f"step {len(replay.actions)} of {len(replay.actions)}"
    assert "Game over." in browser.find_element(By.ID, "event-text").text
    viewer_gold = [int(b.text) for b in browser.find_elements(By.CSS_SELECTOR, "#seat-panels .seat-panel b.coins")]
    table_gold = [int(td.text) for td in browser.find_elements(By.CSS_SELECTOR, "#results td.coins")]
    assert viewer_gold == table_gold == [s.coins for s in game.seats]
    browser.save_screenshot(str(screenshots / "test-game.png"))
    assert severe_console_messages(browser) == []
    browser.find_element(By.ID, "test-link").click()
    assert browser.current_url.endswith(f"/tests/{test.id}.html")
