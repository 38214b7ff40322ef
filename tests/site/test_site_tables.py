"""Every table of every page of the shared ladder's site (every format, a failed seat with its evidence,
stored `arena test` runs): one cell under each header, and the cells under `format` and `finished` are
what those headers say; a failed seat's game page holds its evidence; a board without games ranks nobody."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from sqlmodel import Session, select

from arena.db import Bot, make_engine
from arena.site import build_site
from arena.submissions.versions import register
from site_values import EVIDENCE, PROJECT

DATE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d|–")


@dataclass
class Table:
    """One ``<table>`` as parsed: its header cells and each body row's cells (text), with colspans."""

    where: str
    headers: list[str] = field(default_factory=list)
    rows: list[list[tuple[str, int]]] = field(default_factory=list)


class Tables(HTMLParser):
    """The tables of one page (a table inside a table would be a bug of its own: refused)."""

    def __init__(self, where: str) -> None:
        super().__init__(convert_charrefs=True)
        self.where = where
        self.tables: list[Table] = []
        self.table: Table | None = None
        self.section = ""
        self.row: list[tuple[str, int]] | None = None
        self.cell: list[str] | None = None
        self.span = 1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            assert self.table is None, f"{self.where}: a table inside a table"
            self.table = Table(f"{self.where} table {len(self.tables) + 1} {dict(attrs).get('id') or ''}".strip())
        elif tag in ("thead", "tbody", "tfoot"):
            self.section = tag
        elif tag == "tr" and self.table is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell, self.span = [], int(dict(attrs).get("colspan") or 1)

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.row is not None and self.cell is not None:
            self.row.append((" ".join("".join(self.cell).split()), self.span))
            self.cell = None
        elif tag == "tr" and self.table is not None and self.row is not None:
            if self.section == "thead":
                assert not self.table.headers, f"{self.table.where}: two header rows"
                self.table.headers = [text for text, span in self.row for _ in range(span)]
            else:
                self.table.rows.append(self.row)
            self.row = None
        elif tag in ("thead", "tbody", "tfoot"):
            self.section = ""
        elif tag == "table" and self.table is not None:
            self.tables.append(self.table)
            self.table = None


def tables_of(page: Path, site: Path) -> list[Table]:
    parser = Tables(str(page.relative_to(site)))
    parser.feed(page.read_text(encoding="utf-8"))
    parser.close()
    return parser.tables


def test_every_table_of_every_page_has_one_cell_under_each_header(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    checked: dict[str, int] = {}
    rows = 0
    for page in pages:
        for table in tables_of(page, site):
            assert table.headers, f"{table.where}: no header row"
            for cells in table.rows:
                width = sum(span for _, span in cells)
                assert width == len(table.headers), (f"{table.where}: {width} cells under {len(table.headers)} "
                                                     f"headers {table.headers}: {cells}")
                rows += 1
                for header, value in zip(table.headers, [text for text, span in cells for _ in range(span)]):
                    if len(cells) == 1:
                        break  # a whole-width row ("No bots on the ladder yet.")
                    if header == "format":
                        assert value in ("classic", "duel", "solo"), f"{table.where}: format cell {value!r}"
                    if header == "finished":
                        assert DATE.fullmatch(value), f"{table.where}: finished cell {value!r}"
            kind = page.relative_to(site).parts[0] if len(page.relative_to(site).parts) > 1 else page.name
            checked[kind] = checked.get(kind, 0) + 1
    # every kind of page was among them: boards, bots, seasons, game lists and games, tests, the audit
    assert {"index.html", "classic.html", "duel.html", "solo.html", "audit.html", "bots", "seasons", "games",
            "tests"} <= set(checked), checked
    assert rows > 100
    lists = [t for p in (site / "seasons").glob("*-games-*.html") for t in tables_of(p, site)]
    assert lists and all(t.headers[:3] == ["game", "format", "finished"] for t in lists)


def test_a_failed_seats_game_page_holds_its_evidence_and_its_bot_page_links_there(ladder: dict, site: Path,
                                                                                  tmp_path: Path) -> None:
    game = ladder["hostile_game"]
    html = (site / "games" / f"{game}.html").read_text(encoding="utf-8")
    evidence = re.search(r'<details class="evidence" id="seat-0-evidence">(.*?)</details>', html, re.S)
    assert evidence, "no evidence under the failed seat"
    # the public site: the request and the step, never the bot's own output (its author's, through the service)
    assert "its output on stderr is shown to its author only" in evidence.group(1)
    for path in site.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert "alert(5)" not in text and "Traceback (most recent call last)" not in text, path
    private = tmp_path / "private"
    engine = make_engine(f"sqlite:///{ladder['db']}")
    build_site(engine, private, private_logs=True)
    with Session(engine) as session:
        hostile_id = session.exec(select(Bot).where(Bot.name == "<script>alert(1)</script>")).one().id
    engine.dispose()
    kept = (private / "games" / f"{game}.html").read_text(encoding="utf-8")
    logged = re.search(r'<details class="evidence" id="seat-0-evidence">(.*?)</details>', kept, re.S)
    assert logged and "RuntimeError: &lt;/pre&gt;&lt;script&gt;alert(5)&lt;/script&gt;" in logged.group(1)
    assert EVIDENCE not in kept and "shown to its author only" not in kept
    assert "RuntimeError: &lt;/pre&gt;" in (private / "bots" / f"{hostile_id}.html").read_text()
    assert "plant_second &lt;/code&gt;&lt;script&gt;alert(4)&lt;/script&gt;" in evidence.group(1)
    assert "at step 5 of the replay" in evidence.group(1)
    assert EVIDENCE not in html and "<script>alert(4)" not in html
    assert html.count('class="evidence"') == 1  # only the failed seat
    # its row says at which step of the replay below, and opens the evidence under it
    assert '<a class="failed-at" href="#step-5">at step 5</a>' in html
    assert html.count('<a class="evidence-link" href="#seat-0-evidence">evidence</a>') == 1
    engine = make_engine(f"sqlite:///{ladder['db']}")
    with Session(engine) as session:
        hostile = session.exec(select(Bot).where(Bot.name.startswith("<script>"))).one()
    engine.dispose()
    page = (site / "bots" / f"{hostile.id}.html").read_text(encoding="utf-8")
    assert f'href="../games/{game}.html#seat-0-evidence">evidence</a>' in page


def test_an_older_version_is_superseded_not_retired(ladder: dict, site: Path) -> None:
    engine = make_engine(f"sqlite:///{ladder['db']}")
    with Session(engine) as session:
        glutton = session.exec(select(Bot).where(Bot.name == "glutton")).one()
    engine.dispose()
    page = (site / "bots" / f"{glutton.id}.html").read_text(encoding="utf-8")
    assert "superseded by v2" in page and "retired" not in page


def test_a_board_without_games_ranks_nobody(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'ladder.sqlite'}")
    with Session(engine) as session:
        for name in ("alpha", "beta"):
            register(session, name, f"# {name}\n", variants=("classic", "duel", "solo"))
    build_site(engine, tmp_path / "site")
    engine.dispose()
    for page in ("index.html", "duel.html", "solo.html"):
        html = (tmp_path / "site" / page).read_text(encoding="utf-8")
        assert "nobody is ranked" in html, page
        board = next(t for t in tables_of(tmp_path / "site" / page, tmp_path / "site") if "rank" in t.headers)
        assert [cells[0][0] for cells in board.rows] == ["–", "–"], (page, board.rows)
        if "score" in board.headers:
            assert {cells[board.headers.index("score")][0] for cells in board.rows} == {"–"}
    for board_json in ("leaderboard.json", "leaderboard-duel.json", "leaderboard-solo.json"):
        rows = json.loads((tmp_path / "site" / board_json).read_text(encoding="utf-8"))["rows"]
        assert [(row["name"], row["rank"]) for row in rows] == [("alpha", None), ("beta", None)], board_json
    bot_pages = [p for p in (tmp_path / "site" / "bots").glob("*.html") if p.stem.isdigit()]
    assert len(bot_pages) == 2
    for bot_page in bot_pages:
        assert re.search(r'rank <span class="figure">–</span>', bot_page.read_text(encoding="utf-8")), bot_page


def test_the_stylesheet_never_cuts_a_word_to_fit() -> None:
    css = (PROJECT / "site" / "static" / "style.css").read_text(encoding="utf-8")
    assert "break-all" not in css
    # a cell is never narrower than its longest word
    assert re.search(r"^td \{ overflow-wrap: break-word; \}", css, re.M)


def test_a_solo_game_row_says_won_or_lost_not_a_rank_of_one() -> None:
    from datetime import datetime

    from arena.site.html import Fragments
    from arena.site.model import BotInfo, GameRow, Ladder, SeatRow, VersionInfo

    when = datetime(2026, 1, 2, 3, 4)
    bot = BotInfo(1, "alone", "", False, when)
    version = VersionInfo(7, 1, 1, True, when, 25.0, 8.3)
    games = [GameRow(id, 1, id, "done", "solo-v1", when, 1.0, None, [SeatRow(id, 0, 7, coins, rank, "ok", "")])
             for id, coins, rank in ((1, 0, 2), (2, 9, 1))]
    frag = Fragments(Ladder({1: bot}, {7: version}, [], games, [], {1: "s"}))
    rows = frag.bot_game_rows([(g, g.seats[0]) for g in games], filterable=False)
    assert '<td class="num">lost</td>' in rows and '<td class="num">won</td>' in rows and "2/1" not in rows
    assert '<td class="num rank">lost</td>' in frag.seat_rows(games[0])
