"""The test-run and audit pages in headless Chromium: a stored test run's page with its LLR over games, every
table's cells under their headers, a flagged pair on the audit page and on both bots' pages."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser_helpers import open_page, severe_console_messages
from sqlmodel import Session, select

from arena.db import Bot, make_engine
from arena.testrun.store import StoredTestRun


def stored_tests(ladder: dict) -> dict[str, StoredTestRun]:
    from arena.testrun.store import all_tests

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

    every = sorted((site / "tests").glob("*.html"))
    pages = [p for p in every if re.fullmatch(r"(index|\d+)\.html", p.name)]
    assert len(pages) == 3  # the index and two tests
    pages += [p for p in every if p.name.endswith("-pair-1-game-1.html")]  # and a game of each
    assert len(pages) == 5
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

    from arena.audit.store import stored_flags

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
    assert cells[0].text == "dice / merchant" and cells[1].text.startswith("standing; ")
    assert cells[1].text.endswith(" games not rated")  # the games a standing flag takes out of the ratings
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


def test_the_solo_board_shares_a_rank_between_ties_and_lists_a_new_version_unranked(browser, ladder: dict,
                                                                                    tmp_path: Path) -> None:
    """The test ladder's solo season left two bots with the same wins and gold: they share a rank (the next bot
    is third). A bot registered after it has no game on those deals: listed last as new, not ranked. Each row
    shows the interval of its average gold."""
    import shutil

    from selenium.webdriver.common.by import By
    from site_values import each_a

    from arena.ladder.rankings import WinRateStanding
    from arena.ladder.seasons import leaderboard
    from arena.submissions.accounts import Actor
    from arena.submissions.versions import register
    from arena.site import build_site

    db = tmp_path / "ladder.sqlite"
    shutil.copy(ladder["db"], db)
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        register(session, "latecomer", "# a late bot\n", Actor.operator(), variants=("solo",))
        solo = each_a(WinRateStanding, leaderboard(session, "solo"))
    ranks = [r.rank for r in solo]
    assert solo[-1].name == "latecomer" and ranks[-1] is None and solo[-1].games == 0
    tied = [r for r in solo if ranks.count(r.rank) > 1]
    assert len(tied) == 2 and tied[0].rank == 1 and ranks[2] == 3, ranks  # 1, 1, 3: competition ranking
    assert (tied[0].wins, tied[0].avg_gold) == (tied[1].wins, tied[1].avg_gold)
    site = tmp_path / "site"
    build_site(engine, site, workers=1)
    engine.dispose()
    open_page(browser, site / "solo.html")
    cells = [[td.text for td in row.find_elements(By.TAG_NAME, "td")]
             for row in browser.find_elements(By.CSS_SELECTOR, "#leaderboard tbody tr")]
    assert [row[0] for row in cells] == ["1", "1", "3", "new"]
    assert [row[1].split("\n")[0] for row in cells] == [r.name for r in solo]
    golds = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "#leaderboard td.gold-ci")]
    assert golds == [f"{r.gold_low:.2f} – {r.gold_high:.2f}" if r.gold_low is not None else "–" for r in solo]
    assert golds[-1] == "–" and all("–" in g and g != "–" for g in golds[:-1])
    assert severe_console_messages(browser) == []
