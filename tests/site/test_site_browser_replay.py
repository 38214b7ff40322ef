"""The replay viewer in headless Chromium: a duel to its final gold, playing and pausing, turns, the vine's
cards, the trading area's locked cards."""
from __future__ import annotations

import json
from pathlib import Path

from browser_helpers import ends_the_game, open_page, press_arrow_right, severe_console_messages
from sqlmodel import Session, col, select

from arena.db import Match, make_engine
from engine import PrincesGame, classic_rules, new_game, rules_for
from engine.events import TurnStarted
from site_values import replay_of
from forked_arena import arena_run


def test_duel_replay_steps_to_its_final_gold(browser, site: Path, ladder: dict, screenshots: Path) -> None:
    """A duel game page: the viewer's steps are the engine's public snapshots; the last shows the final gold."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        match = session.exec(select(Match).where(Match.status == "done", Match.rules_id == "duel-v1")
                             .order_by(col(Match.id))).first()
    assert match is not None
    replay = replay_of(match)
    page = site / "games" / f"{match.id}.html"
    html = page.read_text()
    assert '"seed"' not in html and '"actions"' not in html
    assert html.count('"hand":[') == len(replay.seats)  # the hands are shown once: at the last step
    open_page(browser, page)
    table_gold = [int(td.text) for td in browser.find_elements(By.CSS_SELECTOR, "#results td.coins")]
    label = browser.find_element(By.ID, "step-label")
    last = int(label.text.split()[-1])
    assert label.text == f"step 0 of {last}" and last == len(replay.actions)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#vine .card")) == 30  # start, 28 cards, the Castle
    states = json.loads(browser.execute_script("return JSON.stringify(window.BohnanzaReplay.states);"))
    game = new_game(rules_for("duel"), 2, replay.seed)
    assert isinstance(game, PrincesGame)
    events_after = [len(game.events)]  # events once k actions were played
    for k, (_seat, action) in enumerate(replay.actions, start=1):
        game.apply(action)
        events_after.append(len(game.events))
        got = states[k]
        assert [seat["fields"] for seat in got["seats"]] == [
            [[b.value if b else None, n] for b, n in zip(s.field_beans, s.field_counts)] for s in game.seats]
        assert [seat["figure"] for seat in got["seats"]] == [s.position for s in game.seats]
        assert [seat["coins"] for seat in got["seats"]] == [s.coins for s in game.seats]
        assert (got["princes"]["middle"] == [[b.value, n] for b, n in game.middle.items()]
                and got["deck"] == len(game.deck))
    texts = set()
    body = browser.find_element(By.TAG_NAME, "body")
    for step in (1, 2):  # the keyboard itself, then the same key events from a script
        body.send_keys(Keys.ARROW_RIGHT)
        assert label.text == f"step {step} of {last}"
        texts.add(browser.find_element(By.ID, "event-text").text)
    walked = press_arrow_right(browser, min(last, 60) - 2)
    assert [shown for shown, _ in walked] == [f"step {step} of {last}" for step in range(3, min(last, 60) + 1)]
    texts.update(text for _, text in walked)
    assert any(" plants a " in t for t in texts) and any(" turns up " in t for t in texts)
    browser.find_element(By.ID, "step-last").click()
    assert label.text == f"step {last} of {last}"
    assert "Game over." in browser.find_element(By.ID, "event-text").text
    viewer_gold = [int(b.text) for b in browser.find_elements(By.CSS_SELECTOR, "#seat-panels .seat-panel b.coins")]
    assert replay.result is not None and viewer_gold == table_gold == list(replay.result.coins)
    # a bot page's failure link (#event-N): the last step at which N events had happened
    browser.get(page.resolve().as_uri() + f"#event-{events_after[6]}")
    browser.refresh()
    expected = max(k for k, n in enumerate(events_after) if n <= events_after[6])
    assert browser.find_element(By.ID, "step-label").text == f"step {expected} of {last}"
    browser.save_screenshot(str(screenshots / "duel-game-end.png"))
    assert severe_console_messages(browser) == []


def turn_start_steps(match: Match) -> list[tuple[int, int]]:
    """(step, turn) of every turn_started event of a game: a step follows one action (re-simulated
    here, step 0 is the deal), in every format."""
    replay = replay_of(match)
    starts = [(i, e.turn) for i, e in enumerate(replay.events) if isinstance(e, TurnStarted)]
    game = new_game(rules_for(replay.rules_id), len(replay.seats), replay.seed)
    events_after = [len(game.events)]
    for _seat, action in replay.actions:
        game.apply(action)
        events_after.append(len(game.events))
    return [(min(k for k, n in enumerate(events_after) if n > i), turn) for i, turn in starts]


def first_match(ladder: dict, rules_id: str, traded: bool = False) -> Match:
    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        matches = session.exec(select(Match).where(Match.status == "done", Match.rules_id == rules_id)
                               .order_by(col(Match.id))).all()
    for match in matches:
        if not traded or '"type":"traded"' in (match.replay or ""):
            return match
    raise AssertionError(f"no {rules_id} game{' with a trade' if traded else ''}")


def current_step(browser) -> int:
    return int(browser.execute_script("return window.BohnanzaReplay.step();"))


def test_replay_plays_and_pauses(browser, site: Path, ladder: dict) -> None:
    """Play advances the step by itself, pause (button or Space) stops it, and playing stops at the last step."""
    import time

    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    match = first_match(ladder, classic_rules().id)
    page = site / "games" / f"{match.id}.html"
    open_page(browser, page)
    label, play = browser.find_element(By.ID, "step-label"), browser.find_element(By.ID, "play")
    last = browser.execute_script("return window.BohnanzaReplay.last;")
    assert label.text == f"step 0 of {last}" and play.text == "▶ play"
    speeds = Select(browser.find_element(By.ID, "play-speed"))
    assert [o.get_attribute("value") for o in speeds.options] == ["1", "2", "5", "10", "25"]
    speeds.select_by_value("25")
    play.click()
    assert play.text.strip() == "pause" and browser.execute_script("return window.BohnanzaReplay.playing();")
    WebDriverWait(browser, 30).until(lambda b: current_step(b) >= 3)
    play.click()
    paused = current_step(browser)
    assert play.text == "▶ play" and label.text == f"step {paused} of {last}"
    time.sleep(0.5)
    assert current_step(browser) == paused and label.text == f"step {paused} of {last}"
    assert browser.current_url.endswith(f"#step-{paused}")  # the link follows once paused

    browser.execute_script("document.activeElement.blur();")  # Space on the page, not on a focused button
    ActionChains(browser).send_keys(Keys.SPACE).perform()
    WebDriverWait(browser, 30).until(lambda b: current_step(b) > paused)
    ActionChains(browser).send_keys(Keys.SPACE).perform()
    stopped = current_step(browser)
    time.sleep(0.5)
    assert current_step(browser) == stopped and not browser.execute_script("return window.BohnanzaReplay.playing();")

    browser.execute_script("window.BohnanzaReplay.go(arguments[0]);", last - 4)
    play.click()
    WebDriverWait(browser, 30).until(lambda b: not b.execute_script("return window.BohnanzaReplay.playing();"))
    assert label.text == f"step {last} of {last}" and play.text == "▶ play"
    assert ends_the_game(browser.find_element(By.ID, "event-text").text)
    time.sleep(0.3)
    assert current_step(browser) == last
    assert severe_console_messages(browser) == []


def test_replay_jumps_by_turn(browser, site: Path, ladder: dict, screenshots: Path) -> None:
    """Previous / next turn (buttons, PageUp / PageDown, Shift+arrows, a typed turn number) land on the steps
    where a turn starts, in a classic and a duel game, and the indicator names the turn."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    for rules_id in (classic_rules().id, "duel-v1"):
        match = first_match(ladder, rules_id)
        starts = turn_start_steps(match)
        assert [turn for _, turn in starts] == list(range(len(starts))) and len(starts) > 8
        count = len(starts)
        page = site / "games" / f"{match.id}.html"
        open_page(browser, page)
        turn_label = browser.find_element(By.ID, "turn-label")
        word = rules_for(rules_id).money[1]  # each seat's line names the rules' money: coins, or gold
        lines = browser.find_elements(By.CSS_SELECTOR, "#seat-panels .seat-line")
        assert lines and all(line.text.startswith(f"{word} ") for line in lines), [line.text for line in lines]
        assert [tuple(t.values()) for t in browser.execute_script(
            "return window.BohnanzaReplay.turns.map(function (t) { return {s: t.step, t: t.turn}; });")] == starts
        first = 0 if starts[0][0] == 0 else -1  # a duel's turn 1 starts with the deal (step 0)
        assert turn_label.text == (f"turn 1 of {count}" if first == 0 else f"before turn 1 of {count}")

        def at_turn(index: int) -> None:
            step, turn = starts[index]
            shown_step, turn_text, text = browser.execute_script(  # one WebDriver call instead of five
                "return [window.BohnanzaReplay.step(), document.getElementById('turn-label').innerText.trim(),"
                " document.getElementById('event-text').innerText.trim()];")
            assert shown_step == step, (rules_id, index)
            assert turn_text == f"turn {turn + 1} of {count}"
            if step:  # the step's sentences hold the turn's start, once
                assert text.count(f"Turn {turn + 1}: ") == 1, text

        next_button = browser.find_element(By.ID, "turn-next")
        for index in range(first + 1, 5):
            next_button.click()
            at_turn(index)
        browser.execute_script("document.activeElement.blur();")
        keys = ActionChains(browser)
        keys.send_keys(Keys.PAGE_DOWN).perform()
        at_turn(5)
        keys.key_down(Keys.SHIFT).send_keys(Keys.ARROW_RIGHT).key_up(Keys.SHIFT).perform()
        at_turn(6)
        ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.ARROW_LEFT).key_up(Keys.SHIFT).perform()
        at_turn(5)
        browser.execute_script("window.BohnanzaReplay.go(arguments[0]);", starts[5][0] + 1)  # within turn 6
        assert turn_label.text == f"turn 6 of {count}"
        ActionChains(browser).send_keys(Keys.PAGE_UP).perform()
        at_turn(5)  # back to the start of the turn under way
        browser.find_element(By.ID, "turn-prev").click()
        at_turn(4)  # already at a start: the turn before
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()  # a plain arrow still steps
        assert current_step(browser) == starts[4][0] + 1
        turn_input = browser.find_element(By.ID, "turn-input")
        turn_input.clear()
        turn_input.send_keys("8", Keys.ENTER)
        at_turn(7)
        assert browser.current_url.endswith(f"#step-{starts[7][0]}")
        turn_input.clear()
        turn_input.send_keys(str(count + 50), Keys.ENTER)  # past the end: the last turn
        at_turn(count - 1)
        assert next_button.get_attribute("disabled") is not None
        if rules_id == "duel-v1":
            browser.save_screenshot(str(screenshots / "duel-turns.png"))
        browser.get(page.resolve().as_uri() + f"#step-{starts[3][0]}")  # a step link still opens its step
        browser.refresh()
        at_turn(3)
        assert severe_console_messages(browser) == []


def test_duel_vine_cards_show_task_texts(browser, site: Path, ladder: dict, screenshots: Path) -> None:
    """The vine cards show each task's short text (engine/vine.py SHORT) with the full text as tooltip,
    never a task id like V25; the event texts name tasks by their text too."""
    import re

    from selenium.webdriver.common.by import By

    from engine.vine import SHORT, TASKS

    match = first_match(ladder, "duel-v1")
    open_page(browser, site / "games" / f"{match.id}.html")
    cards = browser.find_elements(By.CSS_SELECTOR, "#vine .card")
    assert len(cards) == 30
    tasks = [c.get_attribute("data-task") for c in cards[1:-1]]
    assert sorted(tasks) == sorted(TASKS)  # a duel shows every card face up from the deal
    for card, task in zip(cards[1:-1], tasks):
        assert not re.search(r"V\d\d", card.text), card.text
        assert SHORT[task] in card.text and card.get_attribute("title") == TASKS[task]
        assert card.find_element(By.CSS_SELECTOR, ".task").size["width"] <= card.size["width"]
    assert not re.search(r"\bV\d\d\b", browser.find_element(By.ID, "replay").text)
    texts = browser.execute_script("return window.BohnanzaReplay.texts;")
    claims = [t for t in texts if " fulfils the task “" in t]
    assert claims and not any(re.search(r"\bV\d\d\b", t) for t in texts)
    browser.save_screenshot(str(screenshots / "duel-vine.png"))
    assert severe_console_messages(browser) == []


def test_locked_cards_carry_a_drawn_lock_with_its_meaning(browser, site: Path, ladder: dict, screenshots: Path) -> None:
    """A card received in a trade shows a padlock drawn in SVG (no font glyph), labelled for screen readers."""
    from selenium.webdriver.common.by import By

    match = first_match(ladder, classic_rules().id, traded=True)
    open_page(browser, site / "games" / f"{match.id}.html")
    states = json.loads(browser.execute_script("return JSON.stringify(window.BohnanzaReplay.states);"))
    locked = next(k for k, s in enumerate(states) if any(c[1] for seat in s["seats"] for c in seat["trade_area"]))
    want = sum(c[1] for seat in states[locked]["seats"] for c in seat["trade_area"])
    browser.execute_script("window.BohnanzaReplay.go(arguments[0]);", locked)
    cards = browser.find_elements(By.CSS_SELECTOR, "#seat-panels .trade-area svg.bean-card.locked")
    assert len(cards) == want > 0
    for card in cards:  # an SVG card: its tooltip is its <title>
        title = card.find_element(By.CSS_SELECTOR, ":scope > title").get_attribute("textContent")
        assert ("locked" in title and "must be planted" in title
                and "must be planted" in card.get_attribute("aria-label"))
        lock = card.find_element(By.CSS_SELECTOR, "svg.lock")
        assert lock.get_attribute("role") == "img" and "must be planted" in lock.get_attribute("aria-label")
        assert lock.size["width"] > 4 and lock.size["height"] > 4 and lock.is_displayed()
        after = browser.execute_script("return getComputedStyle(arguments[0], '::after').content;", card)
        assert after in ("none", "normal")  # no glyph from a font
    plain = browser.find_elements(By.CSS_SELECTOR, "#seat-panels .trade-area svg.bean-card:not(.locked)")
    assert all(not c.find_elements(By.CSS_SELECTOR, "svg") for c in plain)
    assert "⚿" not in browser.find_element(By.ID, "replay").text
    browser.save_screenshot(str(screenshots / "locked-cards.png"))
    assert severe_console_messages(browser) == []


def test_a_local_replay_opens_from_its_file_as_a_page_of_its_own(browser, tmp_path: Path, screenshots: Path) -> None:
    """`arena play --replay g.json` then `arena replay g.json --html g.html`: one file, every style and script
    inline (nothing fetched), the site's viewer stepping through the game to its final coins."""
    import re

    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from engine.replay import Replay

    game, page = tmp_path / "g.json", tmp_path / "out" / "g.html"
    page.parent.mkdir()
    played = arena_run(["play", "greedy", "random", "trader", "--seed", "5",
                             "--in-process", "--replay", str(game)], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    made = arena_run(["replay", str(game), "--html", str(page)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert made.returncode == 0 and made.stdout.splitlines()[-1] == f"replay page: {page.resolve()}", made.stderr
    html = page.read_text()
    # the page fetches nothing (the SVG namespace is a name, not a fetch)
    assert not re.search(r"<script[^>]* src=|<link |https?://", html.replace("http://www.w3.org/2000/svg", ""))
    replay = Replay.loads(game.read_text())
    assert replay.result is not None and '"seed"' not in html and '"actions"' not in html
    open_page(browser, page)
    label = browser.find_element(By.ID, "step-label")
    assert label.text == f"step 0 of {len(replay.actions)}"
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    assert label.text == f"step {len(replay.actions)} of {len(replay.actions)}"
    assert ends_the_game(browser.find_element(By.ID, "event-text").text)
    shown = [int(b.text) for b in browser.find_elements(By.CSS_SELECTOR, "#seat-panels .seat-panel b.coins")]
    assert shown == list(replay.result.coins)
    rows = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in browser.find_elements(By.CSS_SELECTOR, "#results tbody tr")]
    assert [(r[1], int(r[2]), int(r[3])) for r in rows] == list(zip(replay.seats, replay.result.coins,
                                                                        replay.result.ranks))
    browser.save_screenshot(str(screenshots / "local-replay.png"))
    assert severe_console_messages(browser) == []
    # a mistake is one line, and nothing half-written is left
    refused = arena_run(["replay", str(game), "--html",
                              str(tmp_path / "nowhere" / "g.html")], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and refused.stderr.startswith(f"Error: cannot write "
                                                                 f"{str(tmp_path / 'nowhere' / 'g.html')!r}")
    assert len(refused.stderr.strip().splitlines()) == 1 and not (tmp_path / "nowhere").exists()
