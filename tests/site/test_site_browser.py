"""The built site in headless Chromium, opened from disk (file://): sorting, chart, replay, escaping."""
from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sqlmodel import Session, col, select

from arena.db import Bot, BotVersion, Match, make_engine
from arena.rankings import RatedStanding, WinRateStanding
from engine import Bean, PrincesGame, classic_rules, new_game, rules_for
from engine.events import TurnStarted
from engine.spectator import replay_steps
from engine.views import OfferView
from site_values import each_a, replay_of

if TYPE_CHECKING:
    from arena.versus_store import StoredTest

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


def press_arrow_right(browser, times: int) -> list[tuple[str, str]]:
    """Press ArrowRight ``times`` times on the page as the keydown events its keyboard handler listens to,
    in one WebDriver call instead of three a step: (step label, event text) after each press."""
    return [tuple(pair) for pair in browser.execute_script("""
        var seen = [], label = document.getElementById("step-label"), text = document.getElementById("event-text");
        for (var i = 0; i < arguments[0]; i++) {
          document.body.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", code: "ArrowRight",
                                                                    bubbles: true, cancelable: true}));
          seen.push([label.innerText.trim(), text.innerText.trim()]);
        }
        return seen;""", times)]


def ends_the_game(text: str) -> bool:
    """The last step's text: the sentences of its action, the last of them the game's end with the scores
    (a step is one action; its sentences are the engine's, engine/narration.py)."""
    return "Game over. " in text and text.rsplit("Game over. ", 1)[1].count(".") == 1 and text.endswith(".")


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
        glutton = session.exec(select(Bot).where(Bot.name == "glutton")).one()
    open_page(browser, site / "bots" / f"{glutton.id}.html")
    browser.save_screenshot(str(screenshots / "bot.png"))
    chart = browser.find_element(By.CSS_SELECTOR, "svg.chart")
    assert chart.is_displayed() and chart.size["width"] > 300
    mu_points = chart.find_element(By.CSS_SELECTOR, "polyline.mu").get_attribute("points").split()
    assert len(mu_points) >= 12  # a prior per version plus one point per rated game
    labels = [t.text for t in chart.find_elements(By.CSS_SELECTOR, "text.version-label")]
    assert labels == ["v1", "v2"]
    head = browser.find_elements(By.CSS_SELECTOR, "#head-to-head tbody tr")
    assert {row.find_element(By.TAG_NAME, "td").text for row in head} >= {"dice", "merchant"}


def test_replay_steps_to_the_final_scores_of_the_page(browser, site: Path, ladder: dict, screenshots: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        match = session.exec(select(Match).where(Match.status == "done", Match.rules_id == classic_rules().id)
                             .order_by(col(Match.id))).first()
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
    for step in (3, 4):  # the keyboard itself, then the same key events from a script
        body.send_keys(Keys.ARROW_RIGHT)
        assert label.text == f"step {step} of {last}"
        texts.add(browser.find_element(By.ID, "event-text").text)
    walked = press_arrow_right(browser, last - 4)
    assert [shown for shown, _ in walked] == [f"step {step} of {last}" for step in range(5, last + 1)]
    texts.update(text for _, text in walked)
    assert label.text == f"step {last} of {last}"
    assert browser.find_element(By.ID, "step-next").get_attribute("disabled") is not None
    assert ends_the_game(browser.find_element(By.ID, "event-text").text)
    assert any(" plants a " in t for t in texts) and any(" turns up " in t for t in texts)
    viewer_coins = [int(b.text) for b in browser.find_elements(By.CSS_SELECTOR, "#seat-panels .seat-panel b.coins")]
    assert viewer_coins == table_coins
    browser.save_screenshot(str(screenshots / "game-end.png"))
    open_page(browser, page)  # a fresh load at a linked step
    browser.get(page.resolve().as_uri() + "#step-42")
    browser.refresh()
    assert browser.find_element(By.ID, "step-label").text == f"step 42 of {last}"
    # an older link to an event (#event-N): the latest step at which N events had happened
    events_after = list(itertools.accumulate(len(s.events) for s in replay_steps(replay_of(match))))
    browser.get(page.resolve().as_uri() + "#event-17")
    browser.refresh()
    expected = max(k for k, n in enumerate(events_after) if n <= 17)
    assert browser.find_element(By.ID, "step-label").text == f"step {expected} of {last}"
    browser.save_screenshot(str(screenshots / "game.png"))
    assert severe_console_messages(browser) == []


#: what the viewer drew at every step, read from the page (its DOM, not its data), in one WebDriver call; a
#: card on the table is an SVG card whose data-bean / data-count, label, count and note are read back
DRAWN = """
var R = window.BohnanzaReplay, out = [], meta = JSON.parse(document.getElementById("replay-meta").textContent);
function all(root, sel, f) { return Array.prototype.map.call(root.querySelectorAll(sel), f); }
function attr(name) { return function (n) { return n.getAttribute(name); }; }
function text(n, sel) { var t = n.querySelector(sel); return t ? t.textContent : null; }
function card(c) {
  return [c.getAttribute("data-bean"), +c.getAttribute("data-count"), c.getAttribute("aria-label"),
          text(c, ":scope > title"), text(c, "text.name"), text(c, "text.stack")];
}
function offerCard(c) {
  return card(c).concat([text(c, "text.note"), getComputedStyle(c.querySelector(".face")).strokeDasharray !== "none"]);
}
for (var k = 0; k <= R.last; k++) {
  R.go(k, false);
  var info = document.getElementById("table-info"), top = info.querySelector(".discard svg.bean-card");
  var trade = document.getElementById("trade-round");
  out.push({
    step: R.step(), text: document.getElementById("event-text").textContent,
    deck: info.querySelector(".deck").textContent, discard: info.querySelector(".discard").firstChild.textContent,
    top: top ? top.getAttribute("data-bean") : null, top_card: top ? card(top) : null,
    not_cards: all(document, "#replay [data-bean]:not(svg.bean-card):not(.field), #replay .chip",
                   function (n) { return n.outerHTML; }),
    seats: all(document, "#seat-panels .seat-panel", function (p) { return {
      name: p.querySelector(".seat-name").textContent,
      coins: +p.querySelector("b.coins").textContent, hand_size: +p.querySelector("b.hand-size").textContent,
      fields: all(p, ".field", function (f) {
        return [f.getAttribute("data-bean") || null, +f.getAttribute("data-count")]; }),
      cards: all(p, ".field svg.bean-card", attr("aria-label")),
      trade_area: all(p, ".trade-area svg.bean-card", function (c) {
        return [c.getAttribute("data-bean"), c.classList.contains("locked")]; }),
      trade_cards: all(p, ".trade-area svg.bean-card", function (c) {
        return card(c).concat([c.querySelectorAll("svg.lock").length]); }),
      figure: p.querySelector("b.figure") ? p.querySelector("b.figure").textContent : null,
      hand: p.querySelector(".final-hand") ? all(p, ".final-hand svg.bean-card", attr("data-bean")) : null,
      hand_cards: p.querySelector(".final-hand") ? all(p, ".final-hand svg.bean-card", card) : null,
      to_move: p.classList.contains("to-move"),
      decision: p.querySelector(".deciding") ? p.querySelector(".deciding").getAttribute("data-decision") : null
    }; }),
    vine: all(document, "#vine .card", function (c) {
      return [c.getAttribute("data-task"), all(c, ".fig", function (f) { return f.textContent; })]; }),
    middle: all(document, "#middle svg.bean-card", card),
    offers: trade && !trade.hidden ? trade.querySelectorAll(".offer").length : null,
    offer_cards: trade && !trade.hidden ? all(trade, ".offer", function (o) { return {
      who: text(o, ".who"), ends: o.lastChild.textContent,
      give: all(o, "svg.bean-card.give", offerCard), want: all(o, "svg.bean-card.want", offerCard)
    }; }) : null
  });
}
return JSON.stringify({seats: meta.seats, steps: out});
"""
LOCKED = "locked: received in a trade, it must be planted"  # a locked card's label in replay.js


def drawn_as_expected(rules, names: list[str], step, text: str) -> dict:
    """What the viewer must draw for one step of the engine's spectator (engine/spectator.py)."""
    s = step.state
    princes = s.princes is not None

    def figure(at: int) -> str:
        return "in the Castle" if at == s.princes.castle else "at the start" if at == 0 else f"on card {at}"

    def card(bean: Bean, label: str, count: int = 1, stack: bool = False) -> list:
        """An SVG card as DRAWN reads it: bean, count, label (as aria-label and title), short name, "×n"."""
        name = rules.bean_type(bean).name
        return [bean.value, count, label, label, name.removesuffix(" bean"), f"×{count}" if stack else None]

    def offer(o: OfferView) -> dict:
        return {"who": names[o.seat],
                "ends": " accepts" if o.accept else " · to " + ("everybody" if o.to is None else names[o.to]),
                "give": [] if o.accept else [card(b, f"{rules.bean_type(b).name}, given") + ["give", False]
                                             for b in o.give],
                "want": [] if o.accept else [card(b, f"{rules.bean_type(b).name}, wanted") + ["want", True]
                                             for b in o.want]}

    want = {
        "step": s.step, "text": text, "deck": f"{'supply' if princes else 'deck'} {s.deck_size}",
        "discard": f"discard {s.discard_size}" + (", top " if s.discard_top else ""),
        "top": s.discard_top.value if s.discard_top else None,
        "top_card": card(s.discard_top, rules.bean_type(s.discard_top).name) if s.discard_top else None,
        "not_cards": [],
        "seats": [{
            "name": names[i], "coins": seat.coins, "hand_size": seat.hand_size,
            "fields": [[f.bean.value if f.bean else None, f.count] for f in seat.fields],
            "cards": [f"{f.count} × {rules.bean_type(f.bean).name}" for f in seat.fields if f.bean],
            "trade_area": [[c.bean.value, c.locked] for c in seat.trade_area],
            "trade_cards": [card(c.bean, rules.bean_type(c.bean).name + (f" ({LOCKED})" if c.locked else ""))
                            + [int(c.locked)] for c in seat.trade_area],
            "figure": figure(seat.figure) if princes else None,
            "hand": None if seat.hand is None else [b.value for b in seat.hand],
            "hand_cards": None if seat.hand is None else [card(b, rules.bean_type(b).name) for b in seat.hand],
            "to_move": s.to_move == i, "decision": s.decision if s.to_move == i else None,
        } for i, seat in enumerate(s.seats)],
        "vine": [], "middle": [], "offers": None, "offer_cards": None,
    }
    if princes:
        here: dict[int, list[str]] = {}
        for i, seat in enumerate(s.seats):
            here.setdefault(seat.figure, []).append(names[i])
        for name, at in s.princes.neutral:
            here.setdefault(at, []).append(name)
        want["vine"] = [[None if k in (0, s.princes.castle) else s.princes.vine[k - 1], here.get(k, [])]
                        for k in range(s.princes.castle + 1)]
        want["middle"] = [card(b, f"{n} × {rules.bean_type(b).name}", n, stack=True) for b, n in s.princes.middle]
    elif s.trade is not None:
        want["offers"] = (s.trade.offer is not None) + len(s.trade.responses)
        want["offer_cards"] = [offer(o) for o in ((s.trade.offer,) if s.trade.offer else ()) + s.trade.responses]
    return want


@pytest.mark.parametrize("rules_id", [classic_rules().id, "duel-v1", "solo-v1"])
def test_the_viewer_draws_the_engines_spectator_state_at_every_step(browser, site: Path, ladder: dict,
                                                                     rules_id: str) -> None:
    """Every step of every stored game of a format, as the page draws it (its DOM: piles, discard top,
    fields as bean cards, trading areas, coins, hand sizes, figures, the middle, the vine, the trading
    round, who decides what, the hands at the end, the step's sentences), is the engine spectator's
    state and sentences of that step (engine/spectator.py), for classic, duel and solo. Every card on the
    table (trading areas, the middle, the discard's top, the hands, the offers) is an SVG card whose bean,
    count and text are the spectator's, and no card is drawn any other way."""
    from engine.spectator import replay_steps, steps_json

    engine = make_engine(f"sqlite:///{ladder['db']}")
    with Session(engine) as session:
        matches = session.exec(select(Match).where(Match.replay != None, Match.rules_id == rules_id)).all()  # noqa: E711
    engine.dispose()
    assert len(matches) >= {"classic-v3": 18, "duel-v1": 8, "solo-v1": 3}[rules_id]
    compared = trades = ended = 0
    # cards compared
    seen = dict.fromkeys(("top", "trade area", "locked", "hand", "middle", "stack", "give", "want"), 0)
    for match in matches:
        replay = replay_of(match)
        rules = rules_for(replay.rules_id)
        open_page(browser, site / "games" / f"{match.id}.html")
        drawn = json.loads(browser.execute_script(DRAWN))
        names = drawn["seats"]  # as the page names them
        steps = replay_steps(replay, rules, names)
        texts = [" ".join(step["text"]) for step in steps_json(steps, rules)["steps"]]
        assert len(drawn["steps"]) == len(steps) == len(replay.actions) + 1
        for step, text, got in zip(steps, texts, drawn["steps"]):
            assert got == drawn_as_expected(rules, names, step, text), (match.id, step.number)
            compared += 1
            trades += bool(got["offers"])
            seats = got["seats"]
            seen["top"] += got["top_card"] is not None
            seen["trade area"] += sum(len(seat["trade_cards"]) for seat in seats)
            seen["locked"] += sum(c[-1] for seat in seats for c in seat["trade_cards"])
            seen["hand"] += sum(len(seat["hand_cards"] or ()) for seat in seats)
            seen["middle"] += len(got["middle"])
            seen["stack"] += sum(c[1] > 1 for c in got["middle"])
            seen["give"] += sum(len(o["give"]) for o in got["offer_cards"] or ())
            seen["want"] += sum(len(o["want"]) for o in got["offer_cards"] or ())
        ended += steps[-1].state.over and all(seat["hand"] is not None for seat in drawn["steps"][-1]["seats"])
    assert compared > {"classic-v3": 2000, "duel-v1": 500, "solo-v1": 60}[rules_id]
    assert ended == len(matches)  # every game ends with every hand shown
    assert rules_id != classic_rules().id or trades > 0  # trading rounds were drawn and compared
    drawn_kinds = {kind for kind, n in seen.items() if n}  # every kind of card on the table was drawn and compared
    assert drawn_kinds == ({"top", "trade area", "locked", "hand", "give", "want"} if rules_id == classic_rules().id
                           else {"top", "hand", "middle", "stack"}), seen
    assert severe_console_messages(browser) == []


def test_hostile_names_are_shown_as_text(browser, site: Path, ladder: dict) -> None:
    from selenium.webdriver.common.by import By

    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        hostile = session.exec(select(Bot).where(Bot.name == HOSTILE)).one()
        dice = session.exec(select(Bot).where(Bot.name == "dice")).one()
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
    open_page(browser, site / "bots" / f"{dice.id}.html")
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
    for page in [site / "index.html", site / "games" / "page-1.html", site / "seasons" / "index.html",
                 *sorted((site / "bots").glob("*.html"))[:4], *sorted((site / "seasons").glob("*.html"))[:3],
                 *sorted((site / "tests").glob("*.html"))]:
        open_page(browser, page)
        color = browser.execute_script("return getComputedStyle(document.querySelector('header.top')).backgroundColor;")
        assert color == "rgb(47, 111, 62)", page  # the stylesheet was found
        anchors = browser.execute_script(  # one call a page: (resolved href, the attribute as written)
            "return Array.from(document.querySelectorAll('a[href]'), a => [a.href, a.getAttribute('href')]);")
        for raw, attribute in anchors:
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

        duel = each_a(RatedStanding, leaderboard(session, "duel"))
        solo = each_a(WinRateStanding, leaderboard(session, "solo"))
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


def stored_tests(ladder: dict) -> dict[str, StoredTest]:
    from arena.versus_store import all_tests

    engine = make_engine(f"sqlite:///{ladder['db']}")
    with Session(engine) as session:
        tests = {t.settings.name: t for t in all_tests(session)}
    engine.dispose()
    return tests


def test_a_stored_test_has_a_page_with_its_llr_over_games(browser, site: Path, ladder: dict, screenshots: Path) -> None:
    """From the navigation to the tests' index to a test's page: its verdict, counts, Elo and the chart of
    its LLR after every pair between the two bounds, as the database has them."""
    from selenium.webdriver.common.by import By

    tests = stored_tests(ladder)
    classic, duel = tests["trader-vs-random"], tests["duel-test"]
    open_page(browser, site / "index.html")
    browser.find_element(By.LINK_TEXT, "Tests").click()
    assert browser.current_url.endswith("/tests/index.html")
    names = [row.find_element(By.TAG_NAME, "td").text
             for row in browser.find_elements(By.CSS_SELECTOR, "#tests tbody tr")]
    assert names == ["duel-test", "trader-vs-random"]  # newest first
    browser.find_element(By.LINK_TEXT, "trader-vs-random").click()
    assert browser.current_url.endswith(f"/tests/{classic.id}.html")
    browser.save_screenshot(str(screenshots / "test.png"))
    h = classic.settings.hypotheses
    pairs = classic.results.pairs
    assert pairs >= 2 and browser.find_element(By.ID, "pairs").text == str(pairs)
    assert browser.find_element(By.ID, "games").text == str(4 * pairs)
    assert browser.find_element(By.ID, "llr").text == f"{classic.results.llr(h):.2f}"
    elo, low, high = classic.results.elo()
    assert browser.find_element(By.ID, "elo").text == f"{elo:+.1f}"
    assert browser.find_element(By.ID, "elo-interval").text == f"{low:+.1f} to {high:+.1f}"
    verdict = {"H1": "H1: trader_bot is better than random_bot", None: f"inconclusive after {pairs} pairs",
               # 150: conftest.SPRT_ELO1
               "H0": "H0: trader_bot is not better than random_bot by 150 Elo"}[classic.row.verdict]
    assert browser.find_element(By.ID, "verdict").text == verdict
    chart = browser.find_element(By.CSS_SELECTOR, "svg.llr-chart")
    assert chart.is_displayed() and chart.size["width"] > 300
    points = [tuple(map(float, p.split(","))) for p in
              chart.find_element(By.CSS_SELECTOR, "polyline.llr").get_attribute("points").split()]
    assert len(points) == pairs + 1  # the start, then one point per pair
    xs = [x for x, _ in points]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)  # over games, left to right
    bounds = {line.get_attribute("class"): float(line.get_attribute("data-value"))
              for line in chart.find_elements(By.CSS_SELECTOR, "line.bound")}
    assert bounds == {"bound upper": pytest.approx(h.upper, abs=1e-4), "bound lower": pytest.approx(h.lower, abs=1e-4)}
    # the line ends where the LLR is: above the upper bound's line for H1, below the lower one's for H0
    ys = {line.get_attribute("class"): float(line.get_attribute("y1"))
          for line in chart.find_elements(By.CSS_SELECTOR, "line.bound")}
    if classic.row.verdict == "H1":
        assert points[-1][1] <= ys["bound upper"] < points[0][1]
    counts = [int(row.find_elements(By.TAG_NAME, "td")[1].text)
              for row in browser.find_elements(By.CSS_SELECTOR, "#test-counts tbody tr")]
    assert counts == classic.results.counts
    roles = [row.find_element(By.TAG_NAME, "td").text
             for row in browser.find_elements(By.CSS_SELECTOR, "#test-bots tbody tr")]
    assert roles == ["NEW", "OLD", "field 1", "field 2"]
    open_page(browser, site / "tests" / f"{duel.id}.html")  # head to head: two games a pair, no field
    assert browser.find_element(By.ID, "games").text == str(2 * duel.results.pairs)
    assert [row.find_element(By.TAG_NAME, "td").text
            for row in browser.find_elements(By.CSS_SELECTOR, "#test-bots tbody tr")] == ["NEW", "OLD"]
    assert severe_console_messages(browser) == []


def test_every_table_of_the_test_pages_has_a_cell_under_each_header(browser, site: Path) -> None:
    from selenium.webdriver.common.by import By

    pages = sorted((site / "tests").glob("*.html"))
    assert len(pages) == 3  # the index and two tests
    for page in pages:
        open_page(browser, page)
        tables = browser.find_elements(By.TAG_NAME, "table")
        assert tables, page
        for table in tables:
            headers = len(table.find_elements(By.CSS_SELECTOR, "thead th"))
            rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
            assert headers and rows, (page, table.get_attribute("id"))
            assert [len(row.find_elements(By.TAG_NAME, "td")) for row in rows] == [headers] * len(rows), (
                page, table.get_attribute("id"))


def test_the_audit_page_lists_a_flagged_pair_and_both_bots_pages_link_to_it(browser, site: Path, ladder: dict,
                                                                            screenshots: Path) -> None:
    """From the navigation to the audit page: the pair the ladder has flagged (conftest.flag_pair), its
    state and the evidence stored with it; each bot's page says it is flagged and links back."""
    from selenium.webdriver.common.by import By

    from arena.audit_store import stored_flags

    engine = make_engine(f"sqlite:///{ladder['db']}")
    with Session(engine) as session:
        flags = stored_flags(session)
        ids = {b.name: b.id for b in session.exec(select(Bot)).all()}
    engine.dispose()
    assert [f.bots for f in flags] == [("dice", "merchant")]
    open_page(browser, site / "index.html")
    browser.find_element(By.LINK_TEXT, "Audit").click()
    assert browser.current_url.endswith("/audit.html")
    browser.save_screenshot(str(screenshots / "audit.png"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#flags tbody tr")
    assert len(rows) == 1
    cells = rows[0].find_elements(By.TAG_NAME, "td")
    headers = browser.find_elements(By.CSS_SELECTOR, "#flags thead th")
    assert len(cells) == len(headers)
    assert cells[0].text == "dice / merchant" and cells[1].text == "standing"
    assert cells[4].text == str(flags[0].evidence["games"])
    flows = flags[0].evidence["flow"]
    assert isinstance(flows, dict)
    flow = flows["dice->merchant"]
    assert f"dice->merchant: {flow['excess']:.1f} coins" in cells[5].text
    for name in ("dice", "merchant"):
        open_page(browser, site / "audit.html")
        browser.find_element(By.CSS_SELECTOR, f"#flags a[href='bots/{ids[name]}.html']").click()
        assert browser.current_url.endswith(f"/bots/{ids[name]}.html")
        section = browser.find_element(By.CSS_SELECTOR, "section.audit-flags")
        other = "merchant" if name == "dice" else "dice"
        assert f"with {other}" in section.text and "standing" in section.text
        section.find_element(By.LINK_TEXT, "evidence").click()
        assert browser.current_url.endswith("/audit.html")
    open_page(browser, site / "bots" / f"{ids['glutton']}.html")
    assert browser.find_elements(By.CSS_SELECTOR, "section.audit-flags") == []
    assert severe_console_messages(browser) == []
