"""The built site in headless Chromium, opened from disk (file://): sorting, chart, replay, escaping."""
from __future__ import annotations

import json
from pathlib import Path

from sqlmodel import Session, select

from arena.db import Bot, BotVersion, Match, make_engine
from engine import classic_rules, new_game, rules_for
from engine.replay import Replay

HOSTILE = "<script>alert(1)</script>"  # the name conftest gives the hostile bot


def open_page(browser, path: Path) -> None:
    browser.get(path.resolve().as_uri())
    assert browser.current_url.startswith("file://")


def column(browser, table_id: str, index: int) -> list[str]:
    from selenium.webdriver.common.by import By

    rows = browser.find_elements(By.CSS_SELECTOR, f"#{table_id} tbody tr")
    return [row.find_elements(By.TAG_NAME, "td")[index].get_attribute("data-value") for row in rows]


def no_alert(browser) -> bool:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        browser.switch_to.alert
    except NoAlertPresentException:
        return True
    return False


def severe_console_messages(browser) -> list[str]:
    return [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]


def test_leaderboard_sorts_by_clicked_column(browser, site: Path, screenshots: Path) -> None:
    from selenium.webdriver.common.by import By

    open_page(browser, site / "index.html")
    browser.save_screenshot(str(screenshots / "leaderboard.png"))
    ranks = [int(v) for v in column(browser, "leaderboard", 0)]
    assert ranks == sorted(ranks) and len(ranks) >= 4
    headers = browser.find_elements(By.CSS_SELECTOR, "#leaderboard thead th")
    games_header = next(h for h in headers if h.text.strip() == "games")
    games_index = headers.index(games_header)
    games_header.click()
    games = [int(v) for v in column(browser, "leaderboard", games_index)]
    assert games == sorted(games, reverse=True)
    assert games_header.get_attribute("aria-sort") == "descending"
    games_header.click()
    assert [int(v) for v in column(browser, "leaderboard", games_index)] == sorted(games)
    bot_header = next(h for h in headers if h.text.strip().startswith("bot"))
    bot_header.click()
    names = column(browser, "leaderboard", 1)
    assert names == sorted(names, key=str.lower)
    assert [int(v) for v in column(browser, "leaderboard", 0)] != ranks  # the order really changed
    assert severe_console_messages(browser) == []


def test_bot_page_shows_rating_chart_with_version_marker(browser, site: Path, ladder: dict, screenshots: Path) -> None:
    from selenium.webdriver.common.by import By

    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        greedy = session.exec(select(Bot).where(Bot.name == "greedy")).one()
    open_page(browser, site / "bots" / f"{greedy.id}.html")
    browser.save_screenshot(str(screenshots / "bot.png"))
    chart = browser.find_element(By.CSS_SELECTOR, "svg.chart")
    assert chart.is_displayed() and chart.size["width"] > 300
    mu_points = chart.find_element(By.CSS_SELECTOR, "polyline.mu").get_attribute("points").split()
    assert len(mu_points) >= 12  # a prior per version plus one point per rated game
    labels = [t.text for t in chart.find_elements(By.CSS_SELECTOR, "text.version-label")]
    assert labels == ["v1", "v2"]
    head = browser.find_elements(By.CSS_SELECTOR, "#head-to-head tbody tr")
    assert {row.find_element(By.TAG_NAME, "td").text for row in head} >= {"random", "trader"}


def test_replay_steps_to_the_final_scores_of_the_page(browser, site: Path, ladder: dict, screenshots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        match = session.exec(select(Match).where(Match.status == "done", Match.rules_id == classic_rules().id)
                             .order_by(Match.id)).first()
    assert match is not None
    page = site / "games" / f"{match.id}.html"
    open_page(browser, page)
    table_coins = [int(td.text) for td in browser.find_elements(By.CSS_SELECTOR, "#results td.coins")]
    label = browser.find_element(By.ID, "step-label")
    last = int(label.text.split()[-1])
    assert label.text == f"step 0 of {last}" and last > 100
    for _ in range(3):
        browser.find_element(By.ID, "step-next").click()
    assert label.text == f"step 3 of {last}"
    assert browser.current_url.endswith("#step-3")
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_LEFT)
    assert label.text == f"step 2 of {last}"
    texts = set()
    for _ in range(last - 2):
        body.send_keys(Keys.ARROW_RIGHT)
        texts.add(browser.find_element(By.ID, "event-text").text)
    assert label.text == f"step {last} of {last}"
    assert browser.find_element(By.ID, "step-next").get_attribute("disabled") is not None
    assert browser.find_element(By.ID, "event-text").text.startswith("Game over.")
    assert any(" plants a " in t for t in texts) and any(" turns up " in t for t in texts)
    viewer_coins = [int(b.text) for b in browser.find_elements(By.CSS_SELECTOR, "#seat-panels .seat-panel b.coins")]
    assert viewer_coins == table_coins
    browser.save_screenshot(str(screenshots / "game-end.png"))
    open_page(browser, page)  # a fresh load at a linked step
    browser.get(page.resolve().as_uri() + "#step-42")
    browser.refresh()
    assert browser.find_element(By.ID, "step-label").text == f"step 42 of {last}"
    browser.get(page.resolve().as_uri() + "#event-17")  # a bot page's failure link: a classic step is one event
    browser.refresh()
    assert browser.find_element(By.ID, "step-label").text == f"step 17 of {last}"
    browser.save_screenshot(str(screenshots / "game.png"))
    assert severe_console_messages(browser) == []


def test_replay_viewer_rebuilds_the_engine_state_of_every_game(browser, site: Path, ladder: dict) -> None:
    """After every action of every stored game, the viewer shows the engine's public table."""
    engine = make_engine(f"sqlite:///{ladder['db']}")
    with Session(engine) as session:
        matches = session.exec(select(Match).where(Match.replay != None, Match.rules_id == classic_rules().id)).all()  # noqa: E711
    assert len(matches) >= 18
    compared = trades = 0
    for match in matches:
        replay = Replay.loads(match.replay)  # type: ignore[arg-type]
        game = new_game(rules_for(replay.rules_id), len(replay.seats), replay.seed)
        open_page(browser, site / "games" / f"{match.id}.html")
        states = browser.execute_script("return window.BohnanzaReplay.states;")
        assert len(states) == len(replay.events) + 1
        for _seat, action in replay.actions:
            game.apply(action)
            got = states[len(game.events)]
            want = {
                "fields": [[[b.value if b else None, n] for b, n in zip(s.field_beans, s.field_counts)]
                           for s in game.seats],
                "trade": [[[b.value, locked] for b, locked in zip(s.trade, s.trade_locked)] for s in game.seats],
                "hands": [len(s.hand) for s in game.seats], "coins": [s.coins for s in game.seats],
                "deck": len(game.deck), "discard": len(game.discard),
            }
            assert {key: got[key] for key in want} == want, (match.id, len(game.events), action)
            if got["top"] != "?":  # a hand card on top of the discard pile at the end is not public
                assert got["top"] == (game.discard[-1].value if game.discard else None)
            compared += 1
        trades += sum(1 for e in replay.events if type(e).__name__ == "Traded")
    assert compared > 2000 and trades > 0


def test_hostile_names_are_shown_as_text(browser, site: Path, ladder: dict) -> None:
    from selenium.webdriver.common.by import By

    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        hostile = session.exec(select(Bot).where(Bot.name == HOSTILE)).one()
        random_bot = session.exec(select(Bot).where(Bot.name == "random")).one()
        version = session.exec(select(BotVersion).where(BotVersion.bot_id == hostile.id)).one()
    assert version.number == 1
    open_page(browser, site / "index.html")
    assert no_alert(browser)
    links = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#leaderboard a.bot")]
    assert HOSTILE in links
    authors = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#leaderboard tbody td:nth-child(3)")]
    assert HOSTILE in authors and '<img src=x onerror="alert(2)">' in authors
    open_page(browser, site / "bots" / f"{hostile.id}.html")
    assert no_alert(browser)
    assert browser.find_element(By.TAG_NAME, "h1").text == HOSTILE
    open_page(browser, site / "bots" / f"{random_bot.id}.html")
    assert browser.find_element(By.CSS_SELECTOR, ".author").text == HOSTILE
    open_page(browser, site / "games" / f"{ladder['hostile_game']}.html")
    assert no_alert(browser)
    assert browser.find_element(By.CSS_SELECTOR, "#results a.bot").text == HOSTILE
    assert "</script><script>alert(3)</script>" in browser.find_element(By.CSS_SELECTOR, "#results code.detail").text
    assert browser.find_element(By.CSS_SELECTOR, "#seat-panels .seat-name").text == HOSTILE
    assert browser.execute_script("return window.BohnanzaReplay.last;") > 100  # the page's scripts survived
    assert severe_console_messages(browser) == []


def test_every_link_is_relative_and_resolves(browser, site: Path) -> None:
    """Pages load from file:// with their stylesheet, and every local link of the main pages exists."""
    from selenium.webdriver.common.by import By

    for page in [site / "index.html", site / "games" / "page-1.html", site / "seasons" / "index.html",
                 *sorted((site / "bots").glob("*.html"))[:4], *sorted((site / "seasons").glob("*.html"))[:3]]:
        open_page(browser, page)
        color = browser.execute_script("return getComputedStyle(document.querySelector('header.top')).backgroundColor;")
        assert color == "rgb(47, 111, 62)", page  # the stylesheet was found
        for anchor in browser.find_elements(By.CSS_SELECTOR, "a[href]"):
            raw = anchor.get_attribute("href")
            attribute = browser.execute_script("return arguments[0].getAttribute('href');", anchor)
            assert not attribute.startswith(("/", "http:", "https:", "//")), (page, attribute)
            if raw.startswith("file://"):
                target = Path(raw.removeprefix("file://").split("#")[0])
                assert target.is_file(), (page, attribute)
    data = json.loads((site / "leaderboard.json").read_text())
    assert {"name", "version", "score", "mu", "sigma", "games"} <= set(data["rows"][0])


def test_each_format_has_its_leaderboard(browser, site: Path, ladder: dict, screenshots: Path) -> None:
    """classic.html, duel.html (TrueSkill) and solo.html (win rate with its interval, average gold), linked as tabs."""
    from selenium.webdriver.common.by import By

    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        from arena.ladder import leaderboard

        duel, solo = leaderboard(session, "duel"), leaderboard(session, "solo")
    open_page(browser, site / "index.html")
    tabs = {a.get_attribute("data-variant"): a for a in browser.find_elements(By.CSS_SELECTOR, ".tabs a.tab")}
    assert set(tabs) == {"classic", "duel", "solo"}
    tabs["duel"].click()
    assert browser.current_url.endswith("/duel.html")
    assert "duel" in browser.find_element(By.TAG_NAME, "h1").text
    names = column(browser, "leaderboard", 1)
    assert names == [r.name for r in duel] and len(names) >= 2
    assert [float(v) for v in column(browser, "leaderboard", 4)] == [r.score for r in duel]
    assert sum(int(v) for v in column(browser, "leaderboard", 7)) == 16  # 8 games of 2 seats
    browser.find_element(By.CSS_SELECTOR, '.tabs a[data-variant="solo"]').click()
    assert browser.current_url.endswith("/solo.html")
    assert column(browser, "leaderboard", 1) == [r.name for r in solo]
    assert [int(v) for v in column(browser, "leaderboard", 4)] == [3] * len(solo)  # the same 3 deals each
    rates = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#leaderboard td.win-rate")]
    intervals = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#leaderboard td.ci")]
    golds = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#leaderboard td.avg-gold")]
    assert rates == [f"{100 * r.win_rate:.1f}%" for r in solo]
    assert intervals == [f"{100 * r.ci_low:.1f}% – {100 * r.ci_high:.1f}%" for r in solo]
    assert golds == [f"{r.avg_gold:.2f}" for r in solo]
    browser.save_screenshot(str(screenshots / "solo-leaderboard.png"))
    data = json.loads((site / "leaderboard-solo.json").read_text())
    assert [(r["name"], r["win_rate"], r["ci_low"]) for r in data["rows"]] == [
        (r.name, r.win_rate, r.ci_low) for r in solo]
    assert severe_console_messages(browser) == []


def test_duel_replay_steps_to_its_final_gold(browser, site: Path, ladder: dict, screenshots: Path) -> None:
    """A duel game page: the viewer's steps are the engine's public snapshots; the last shows the final gold."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        match = session.exec(select(Match).where(Match.status == "done", Match.rules_id == "duel-v1")
                             .order_by(Match.id)).first()
    assert match is not None
    replay = Replay.loads(match.replay)  # type: ignore[arg-type]
    page = site / "games" / f"{match.id}.html"
    html = page.read_text()
    assert '"seed"' not in html and '"hand":' not in html and '"actions"' not in html
    open_page(browser, page)
    table_gold = [int(td.text) for td in browser.find_elements(By.CSS_SELECTOR, "#results td.coins")]
    label = browser.find_element(By.ID, "step-label")
    last = int(label.text.split()[-1])
    assert label.text == f"step 0 of {last}" and last == len(replay.actions)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#vine .card")) == 30  # start, 28 cards, the Castle
    states = browser.execute_script("return window.BohnanzaReplay.states;")
    game = new_game(rules_for("duel"), 2, replay.seed)
    events_after = [len(game.events)]  # events once k actions were played
    for k, (_seat, action) in enumerate(replay.actions, start=1):
        game.apply(action)
        events_after.append(len(game.events))
        got = states[k]
        assert got["fields"] == [[[b.value if b else None, n] for b, n in zip(s.field_beans, s.field_counts)]
                                 for s in game.seats]
        assert got["figures"] == [s.position for s in game.seats] and got["coins"] == [s.coins for s in game.seats]
        assert got["middle"] == [[b.value, n] for b, n in game.middle.items()] and got["deck"] == len(game.deck)
    texts = set()
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(min(last, 60)):
        body.send_keys(Keys.ARROW_RIGHT)
        texts.add(browser.find_element(By.ID, "event-text").text)
    assert any(" plants a " in t for t in texts) and any(" turns up " in t for t in texts)
    browser.find_element(By.ID, "step-last").click()
    assert label.text == f"step {last} of {last}"
    assert "Game over." in browser.find_element(By.ID, "event-text").text
    viewer_gold = [int(b.text) for b in browser.find_elements(By.CSS_SELECTOR, "#seat-panels .seat-panel b.coins")]
    assert viewer_gold == table_gold == list(replay.result.coins)  # type: ignore[union-attr]
    # a bot page's failure link (#event-N): the last step at which N events had happened
    browser.get(page.resolve().as_uri() + f"#event-{events_after[6]}")
    browser.refresh()
    expected = max(k for k, n in enumerate(events_after) if n <= events_after[6])
    assert browser.find_element(By.ID, "step-label").text == f"step {expected} of {last}"
    browser.save_screenshot(str(screenshots / "duel-game-end.png"))
    assert severe_console_messages(browser) == []
