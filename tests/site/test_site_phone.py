"""The site at a phone's width (390 px) in headless Chromium: the page never scrolls sideways (a wide
table scrolls inside its own box), every navigation link is on screen, no bot name is cut between
two lines, and no replay panel is wider than itself."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from sqlmodel import Session, select

from arena.db import Bot, Match, make_engine
from engine.replay import Replay
from engine.spectator import replay_steps

PHONE, WIDE, DESKTOP = (390, 844), (1400, 1000), (1280, 1000)  # a phone, a wide screen, the session browser's own


@pytest.fixture
def phone(browser) -> Iterator[object]:
    """The session's browser at 390 px wide, put back to its own size afterwards (other tests share it)."""
    browser.set_window_size(*PHONE)
    try:
        yield browser
    finally:
        browser.set_window_size(*DESKTOP)


def pages(ladder: dict, site: Path) -> dict[str, Path]:
    engine = make_engine(f"sqlite:///{ladder['db']}")
    with Session(engine) as session:
        ids = {b.name: b.id for b in session.exec(select(Bot)).all()}
    engine.dispose()
    return {"leaderboard": site / "index.html", "solo leaderboard": site / "solo.html",
            "bot page": site / "bots" / f"{ids['merchant']}.html",
            "bot games": site / "bots" / f"{ids['glutton']}-games-1.html",
            "game page": site / "games" / f"{ladder['hostile_game']}.html",
            "all games": site / "games" / "page-1.html", "seasons": site / "seasons" / "index.html",
            "test page": next((site / "tests").glob("[0-9]*.html"))}


END = """document.body.dispatchEvent(new KeyboardEvent("keydown", {key: "End", code: "End", bubbles: true,
                                                               cancelable: true}));"""
EVERY_STEP = """
const key = k => document.body.dispatchEvent(new KeyboardEvent("keydown", {key: k, code: k, bubbles: true,
                                                                           cancelable: true}));
const label = document.getElementById("step-label"), wide = [];
key("Home");
for (let i = 0; i < 5000; i++) {
  for (const p of document.querySelectorAll(".seat-panel"))
    if (p.scrollWidth > p.clientWidth + 1) wide.push(label.textContent.trim());
  if (document.documentElement.scrollWidth > window.innerWidth) wide.push("page at " + label.textContent.trim());
  const before = label.textContent;
  key("ArrowRight");
  if (label.textContent === before) break;
}
return [...new Set(wide)].slice(0, 5);
"""
LAYOUT = """
const width = window.innerWidth;
const out = {width: width, page: document.documentElement.scrollWidth, nav: [], cut: [], tables: [], panels: []};
for (const a of document.querySelectorAll("header.top a")) {
  const r = a.getBoundingClientRect();
  if (!(r.width > 0 && r.left >= 0 && r.right <= width + 0.5)) out.nav.push(a.textContent.trim());
}
for (const a of document.querySelectorAll("a.bot, .players .seat, .seat-head")) {
  // a name on two lines has two boxes; a single word never should
  if (!/\\s/.test(a.textContent.trim()) && a.getClientRects().length > 1) out.cut.push(a.textContent.trim());
}
for (const t of document.querySelectorAll("table")) {
  if (t.getBoundingClientRect().right > width + 0.5) out.tables.push(t.id || t.className || "table");
}
for (const p of document.querySelectorAll(".seat-panel")) {
  if (p.scrollWidth > p.clientWidth + 1) out.panels.push(p.textContent.trim().slice(0, 40));
}
return out;
"""

#: the step docs/screenshots show, then what it draws: SVG cards in fields, trading areas and the offer
SHOWCASE = """
window.BohnanzaReplay.go(arguments[0], false);
const count = sel => document.querySelectorAll(sel).length;
return {step: window.BohnanzaReplay.step(), fields: count("#seat-panels .field svg.bean-card"),
        trade: count("#seat-panels .trade-area svg.bean-card"), chips: count("#replay .chip"),
        give: count("#trade-round svg.bean-card.give"), want: count("#trade-round svg.bean-card.want")};
"""


def showcase_step(ladder: dict) -> int:
    """The step of the hostile game that docs/screenshots show: a game in play, the first step after 20 (in
    the engine spectator's steps) where a trading area and a field hold cards and an offer of cards is on
    the table."""
    engine = make_engine(f"sqlite:///{ladder['db']}")
    with Session(engine) as session:
        match = session.get(Match, ladder["hostile_game"])
        assert match is not None and match.replay is not None
        steps = replay_steps(Replay.loads(match.replay))
    engine.dispose()
    return next(step.number for step in steps
                if step.number > 20 and any(seat.trade_area for seat in step.state.seats)
                and any(f.bean for seat in step.state.seats for f in seat.fields)
                and step.state.trade is not None and step.state.trade.offer is not None
                and step.state.trade.offer.give and step.state.trade.offer.want)


def show_game_in_play(browser, ladder: dict, top: str) -> None:
    """The game page at its showcase step, checked to draw bean cards in fields, trading areas and the
    offer and to fit its width, scrolled to the element ``top`` for the screenshot."""
    step = showcase_step(ladder)
    shown = browser.execute_script(SHOWCASE, step)
    assert shown["step"] == step > 20 and shown["fields"] > 0 and shown["trade"] > 0 and shown["chips"] == 0, shown
    assert shown["give"] > 0 and shown["want"] > 0, shown
    layout = browser.execute_script(LAYOUT)
    assert layout["page"] <= layout["width"] and layout["panels"] == [], layout
    browser.execute_script("document.getElementById(arguments[0]).scrollIntoView();", top)


def test_every_page_fits_a_phone(phone, ladder: dict, site: Path, screenshots: Path) -> None:
    for name, page in pages(ladder, site).items():
        phone.get(page.resolve().as_uri())
        if name == "game page":
            phone.execute_script(END)  # the fullest table: the end (a seat has bought its third field)
        layout = phone.execute_script(LAYOUT)
        assert layout["width"] == PHONE[0], layout
        assert layout["page"] <= PHONE[0], f"{name}: the page is {layout['page']} px wide at {PHONE[0]}"
        assert layout["nav"] == [], f"{name}: navigation links off screen: {layout['nav']}"
        assert layout["cut"] == [], f"{name}: names cut between lines: {layout['cut']}"
        assert layout["tables"] == [], f"{name}: tables past the screen's edge: {layout['tables']}"
        assert layout["panels"] == [], f"{name}: replay panels wider than themselves: {layout['panels']}"
        if name == "game page":  # every step: no cards ever wider than the seat's panel or the page
            assert phone.execute_script(EVERY_STEP) == [], f"{name}: panels wider than themselves"
            show_game_in_play(phone, ladder, "event-text")
        if name in ("leaderboard", "bot page", "game page"):
            phone.save_screenshot(str(screenshots / f"phone-{name.replace(' ', '-')}.png"))  # as docs/screenshots/


def test_a_wide_table_scrolls_inside_its_box_on_a_phone(phone, site: Path) -> None:
    phone.get((site / "games" / "page-1.html").resolve().as_uri())
    box = phone.execute_script("""const t = document.querySelector("table.games");
        const before = t.scrollLeft; t.scrollLeft = 10000;
        return {scroll: t.scrollWidth, client: t.clientWidth, moved: t.scrollLeft > before,
                overflow: getComputedStyle(t).overflowX};""")
    assert box["overflow"] == "auto" and box["scroll"] > box["client"] and box["moved"], box


def test_the_desktop_layout_keeps_full_width_tables(browser, ladder: dict, site: Path,
                                                    screenshots: Path) -> None:
    browser.set_window_size(*WIDE)
    try:
        browser.get((site / "index.html").resolve().as_uri())
        widths = browser.execute_script("""const t = document.getElementById("leaderboard");
            return [t.getBoundingClientRect().width, document.querySelector("main").clientWidth,
                    getComputedStyle(t).display, document.documentElement.scrollWidth, window.innerWidth];""")
        assert widths[2] == "table" and abs(widths[0] - (widths[1] - 48)) < 2, widths  # main's padding: 1.5rem a side
        assert widths[3] <= widths[4] == WIDE[0], widths
        for name, page in pages(ladder, site).items():  # the pictures docs/screenshots/ keeps, at 1400 px
            if name in ("leaderboard", "bot page", "game page"):
                browser.get(page.resolve().as_uri())
                if name == "game page":  # the end of the hostile game's deal, where a seat has three fields
                    browser.execute_script(END)
                    assert browser.execute_script(LAYOUT)["panels"] == []
                    show_game_in_play(browser, ladder, "replay")  # then the game in play, for the picture
                browser.save_screenshot(str(screenshots / f"wide-{name.replace(' ', '-')}.png"))
    finally:
        browser.set_window_size(*DESKTOP)


#: what a screen shows on arrival, measured in the browser: where the replay's board starts and the first seat's
#: panel ends, whether the results table comes before the board, the games list's columns on screen, and the
#: rating chart's labels' height in pixels
FIRST_SCREEN = """
const top = s => { const e = document.querySelector(s); return e ? e.getBoundingClientRect().top : null; };
const panel = document.querySelector("#seat-panels .seat-panel");
return {height: window.innerHeight, board: top("#table-info"), panel: panel && panel.getBoundingClientRect().top,
        results: top("#results"), replay: top("#replay")};
"""
COLUMNS = """
const t = document.querySelector("table.games");
// a column on screen: at least 100 px of it (a long name may widen the players' column past the edge)
return [...t.querySelectorAll("thead th")].filter(th => th.getBoundingClientRect().width > 0
        && th.getBoundingClientRect().left <= window.innerWidth - 100).map(th => th.textContent.trim());
"""
LABELS = """return [...document.querySelectorAll("svg.chart text.axis")].map(t => t.getBoundingClientRect().height);"""


@pytest.mark.parametrize("size", [PHONE, WIDE], ids=["390px", "1400px"])
def test_what_each_screen_shows_on_arrival(browser, ladder: dict, site: Path, screenshots: Path,
                                           size: tuple[int, int]) -> None:
    """At 390 px: the replay's board and its first seat on the first screen (the results table after it), the games
    list's players on screen (when and which season are left to wide screens), the chart's labels readable. At 1400
    px: the results table first, every column of the list, the same readable labels."""
    from selenium.webdriver.common.by import By

    browser.set_window_size(*size)
    try:
        named = pages(ladder, site)
        browser.get(named["game page"].resolve().as_uri())
        first = browser.execute_script(FIRST_SCREEN)
        browser.save_screenshot(str(screenshots / f"arrival-game-{size[0]}.png"))
        assert first["board"] is not None and first["panel"] is not None, first
        assert first["panel"] + 80 <= first["height"], f"the board is below the first screen: {first}"
        assert (first["replay"] < first["results"]) == (size == PHONE), first  # the phone: the board first
        browser.get(named["all games"].resolve().as_uri())
        shown = browser.execute_script(COLUMNS)
        assert shown[:2] == ["game", "format"] and "players (coins; ★ first)" in shown, shown
        assert ("finished" in shown and "season" in shown) == (size == WIDE), shown
        browser.get(named["bot page"].resolve().as_uri())
        labels = browser.execute_script(LABELS)
        assert labels and min(labels) >= 9, f"chart labels {labels} px high at {size[0]} px"
        browser.get(named["bot games"].resolve().as_uri())
        paragraphs = [p.text for p in browser.find_elements(By.CSS_SELECTOR, "main p")]
        assert any(p.endswith("newest first.") for p in paragraphs) and any(p.startswith("Opponent:")
                                                                              for p in paragraphs), paragraphs
    finally:
        browser.set_window_size(*DESKTOP)
