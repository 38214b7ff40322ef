"""The built site in headless Chromium, opened from disk (file://): sorting, chart, replay, escaping, links.
The replay viewer's playing and the Princes table: test_site_browser_replay.py; the test-run and audit
pages: test_site_browser_pages.py."""
from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from browser_helpers import (HOSTILE, column, ends_the_game, no_alert, open_page, press_arrow_right,
                             severe_console_messages)
from sqlmodel import Session, col, select

from arena.db import Bot, BotVersion, Match, Rating, make_engine
from arena.ladder.rankings import RatedStanding, WinRateStanding
from engine import Bean, classic_rules, rules_for
from engine.spectator import replay_steps
from engine.views import OfferView
from site_values import each_a, replay_of


def test_leaderboard_sorts_by_clicked_column(browser, site: Path, screenshots: Path) -> None:
    from selenium.webdriver.common.by import By

    open_page(browser, site / "index.html")
    browser.save_screenshot(str(screenshots / "leaderboard.png"))
    cells = column(browser, "leaderboard", 0)
    ranks = [int(v) for v in cells if v != "new"]  # the ranked bots, then those with too few games to rank
    assert cells == [str(r) for r in sorted(ranks)] + ["new"] * (len(cells) - len(ranks)) and len(cells) >= 4
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
    assert column(browser, "leaderboard", 0) != cells  # the order really changed
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
    head = browser.find_elements(By.CSS_SELECTOR, "#head-to-head-classic tbody tr")
    assert {row.find_element(By.TAG_NAME, "td").text for row in head} >= {"dice", "merchant"}
    # the duel has a section of its own, with its own chart: the duel ratings of glutton's duel games
    duel = browser.find_element(By.CSS_SELECTOR, "#format-duel svg.chart")
    duel.location_once_scrolled_into_view
    assert duel.is_displayed() and duel.size["width"] > 300
    duel_points = duel.find_element(By.CSS_SELECTOR, "polyline.mu").get_attribute("points").split()
    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        rated_duels = [games for games in session.exec(select(Rating.games).where(
            Rating.variant == "duel", Rating.version_id == BotVersion.id, BotVersion.bot_id == glutton.id)).all()
            if games]
    assert sum(rated_duels) > 0 and len(duel_points) == sum(rated_duels) + len(rated_duels)  # a prior a version
    assert duel_points != mu_points[:len(duel_points)]
    browser.save_screenshot(str(screenshots / "bot-duel.png"))


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
    from engine.spectator import replay_json, replay_steps

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
        texts = [" ".join(step["text"]) for step in replay_json(replay, rules, names)["steps"]]
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
        from arena.ladder.seasons import leaderboard

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
    half = {r.half for r in solo}  # of the same 3 deals each: the half the board shows (public while open)
    assert [int(v) for v in column(browser, "leaderboard", 4)] == [r.games for r in solo] and len(half) == 1
    assert [r.games for r in solo] == [3 - 2 if half == {"public"} else 2] * len(solo)
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
