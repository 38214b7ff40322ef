"""The site build without a browser: public replay data, escaping, file names, output folder rules."""
from __future__ import annotations

import html
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text as sql_text
from sqlmodel import Session, select

from arena.db import Bot, BotVersion, Match, MatchSeat, Season, TestRunGame, make_engine
from arena.formats import format_of
from arena.ladder.seasons import leaderboard
from arena.ladder.rankings import RatedStanding
from arena.site import ChartPoint, SiteError, build_site, rating_chart, script_json, spectator_json
from engine import classic_rules, new_game
from strategy.policies import random_action
from engine.replay import Replay
from site_batch import run_batch
from site_values import each_a

PROJECT = Path(__file__).resolve().parents[2]


def random_replays(count: int) -> list[Replay]:
    replays = []
    for k in range(count):
        game = new_game(classic_rules(), 3 + k % 3, 500 + k)
        rng = random.Random(k)
        while not game.over:
            game.apply(random_action(game, rng, offer_rate=0.5))
        replays.append(Replay.of(game, [f"p{i}" for i in range(game.players)]))
    return replays


def test_a_game_page_ships_the_spectators_steps_and_no_hidden_card() -> None:
    """The replay JSON of a game page is the engine spectator's (engine/spectator.py), with nothing
    hidden in it: no seed, no action (hand positions), no hand before the last step."""
    from engine.spectator import PublicState, apply_diff, replay_json, replay_steps

    for replay in random_replays(6):
        text = replay.dumps()
        shipped = spectator_json(text)
        assert "<" not in shipped and json.loads(shipped) == replay_json(replay, classic_rules())
        assert spectator_json(json.dumps(json.loads(text), indent=1)) == shipped  # however the replay is written
        assert '"seed"' not in shipped and "give_hand" not in shipped and '"actions"' not in shipped
        steps = json.loads(shipped)["steps"]
        assert len(steps) == len(replay.actions) + 1
        state = steps[0]["state"]
        values = replay_steps(replay)  # the spectator's states, read back from the same JSON
        assert PublicState.from_json(state) == values[0].state
        for step, value in zip(steps[1:-1], values[1:]):
            state = apply_diff(state, step["state"])
            assert all(seat["hand"] is None for seat in state["seats"]) and PublicState.from_json(state) == value.state
        assert all(isinstance(seat["hand"], list) for seat in apply_diff(state, steps[-1]["state"])["seats"])


def test_a_replay_that_is_not_one_is_refused_quoting_it() -> None:
    with pytest.raises(SiteError, match=r"malformed replay '\{\"format\": 2"):
        spectator_json('{"format": 2, "nothing": true}')


def test_script_json_cannot_close_a_script_element() -> None:
    value = {"name": "</script><script>alert(1)</script>", "x": "a & b <!--"}
    text = script_json(json.dumps(value))
    assert not set("<>&") & set(text)
    assert json.loads(text) == value


def test_rating_chart_marks_every_version_even_when_thinned() -> None:
    points = [ChartPoint(i, 25 + (i % 7), 8 - i / 400, 1 + i // 500) for i in range(1200)]
    svg = str(rating_chart(points, "history of <b>x</b>"))
    assert svg.count('class="version"') == 3
    assert [m for m in re.findall(r">v(\d)<", svg)] == ["1", "2", "3"]
    mu_line = re.search(r'class="mu" points="([^"]*)"', svg)
    assert mu_line is not None and len(mu_line.group(1).split()) <= 410
    assert "<b>x</b>" not in svg and "&lt;b&gt;x&lt;/b&gt;" in svg


def test_every_vine_task_has_a_text_and_a_short_form_on_the_game_pages() -> None:
    """The viewer's vine cards show engine/vine.py's short forms, with the full texts as tooltips."""
    from arena.site.games import rules_meta
    from engine.vine import SHORT, TASKS

    assert set(SHORT) == set(TASKS) and len(TASKS) == 28
    for task in TASKS:
        assert TASKS[task].strip() and SHORT[task].strip(), task
        assert len(SHORT[task]) <= 34 and not re.search(r"\bV\d\d\b", SHORT[task] + TASKS[task]), task
    assert len(set(SHORT.values())) == len(SHORT)  # no two cards read alike
    assert [rules_meta(v)["money"] for v in ("classic", "duel")] == [["coin", "coins"], ["gold", "gold"]]
    for variant in ("duel", "solo"):
        princes = rules_meta(variant)["princes"]
        assert set(princes["tasks"]) == set(princes["short"]) == set(TASKS)
        assert all(princes["short"][t] == SHORT[t] and princes["tasks"][t] == TASKS[t] for t in TASKS)


def test_site_folder_is_not_a_python_package() -> None:
    import site

    assert not (PROJECT / "site" / "__init__.py").exists()
    assert "site-packages" not in site.__file__ and Path(site.__file__).parent != PROJECT / "site"


def test_build_writes_pages_named_by_ids(ladder: dict, site: Path) -> None:
    names = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    pattern = re.compile(r"(index\.html|audit\.html|(classic|duel|solo)\.html|leaderboard(-(classic|duel|solo))?\.json|"
                         r"\.arena-site|\.build-manifest\.json|static/[a-z]+\.(css|js)|games/index\.html|"
                         r"bots/\d+(-games-\d+)?\.html|games/(\d+|page-\d+)\.html|games/\d+\.replay\.json|seasons/(index|\d+(-games-\d+)?)\.html|"
                         r"tests/(index|\d+(-pair-\d+-game-\d+)?)\.html|competitions/(index|\d+)\.html)")
    assert [n for n in names if not pattern.fullmatch(n)] == []
    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        board = each_a(RatedStanding, leaderboard(session))
    data = json.loads((site / "leaderboard.json").read_text())
    assert [(r["name"], r["version"], r["score"], r["games"]) for r in data["rows"]] == \
        [(r.name, r.version, r.score, r.games) for r in board]
    for row in data["rows"]:
        assert (site / row["page"]).is_file()


def test_bot_page_has_a_section_per_format_each_counting_its_own_games(ladder: dict, site: Path) -> None:
    """glutton played classic, duel and solo games (and met dice in classic and duel): its page has a section per
    format, and each counts that format's games only: the head to head, the versions' games and the failures box."""
    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        ids = {name: session.exec(select(Bot.id).where(Bot.name == name)).one() for name in ("glutton", "dice")}
        together: dict[str, int] = {"classic": 0, "duel": 0}
        played: dict[str, int] = {"classic": 0, "duel": 0, "solo": 0}
        for match in session.exec(select(Match).where(Match.status == "done")).all():
            seated = set(session.exec(select(BotVersion.bot_id).where(
                MatchSeat.match_id == match.id, MatchSeat.version_id == BotVersion.id)).all())
            variant = format_of(match.rules_id).name
            played[variant] += ids["glutton"] in seated
            if {ids["glutton"], ids["dice"]} <= seated:
                together[variant] += 1
    assert min(together.values()) > 0 and min(played.values()) > 0 and together["classic"] != together["duel"]
    html = (site / "bots" / f"{ids['glutton']}.html").read_text()
    sections = {part.split('"', 1)[0]: part for part in html.split('<section class="format" id="format-')[1:]}
    assert list(sections) == ["classic", "duel", "solo"]
    for variant, section in sections.items():
        assert f"No timeouts, crashes or illegal moves in {played[variant]} {variant} games." in section
        counted = [int(n) for n in re.findall(r'<td>v\d</td><td>[^<]*</td><td class="num">(\d+)</td>', section)]
        assert sum(counted) == played[variant], (variant, counted)
        if variant == "solo":  # one seat: no head to head, and no rating chart (the solo board is not rated)
            assert "Head to head" not in section and "<svg" not in section
            continue
        row = re.search(rf'<a href="\.\./bots/{ids["dice"]}\.html" class="bot">dice</a></td>'
                        r'<td class="num" data-value="(\d+)"', section)
        assert row is not None and int(row.group(1)) == together[variant], (variant, section)
        assert f'Head to head <span class="muted">({variant} games)</span>' in section
        assert f"Rating history <span class=\"muted\">({variant})</span>" in section and "<svg" in section
    games = (site / "bots" / f"{ids['glutton']}-games-1.html").read_text()  # every format, each row says which
    assert games.count("<td>classic</td>") >= together["classic"] and games.count("<td>duel</td>") >= together["duel"]


def test_game_page_embeds_only_escaped_public_data(ladder: dict, site: Path) -> None:
    html = (site / "games" / f"{ladder['hostile_game']}.html").read_text()
    assert "<script>alert" not in html and "</script><script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the name in the results table
    assert "\\u003cscript\\u003ealert(1)" in html  # the name in the viewer's JSON
    assert '"seed"' not in html and "give_hand" not in html
    assert html.count("<script") == 3  # two JSON blocks (the names, the steps) and replay.js


def test_a_closed_seasons_games_publish_their_seed_and_replay_file_an_open_ones_do_not(ladder: dict,
                                                                                         site: Path) -> None:
    """solo-1 is closed: each game page shows its deck seed and links its replay file, which plays
    again; spring is open: a note says when they come, and no replay file is written."""
    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        rows = session.exec(select(Match, Season).where(Match.season_id == Season.id, Match.status == "done")).all()
    closed = [(m, s) for m, s in rows if s.name == "solo-1"]
    open_ = [(m, s) for m, s in rows if s.name == "spring"]
    assert len(closed) >= 3 and open_
    for match, _ in closed:
        html = (site / "games" / f"{match.id}.html").read_text(encoding="utf-8")
        assert f"Deck seed <code>{match.seed}</code>" in html
        assert f'<a href="{match.id}.replay.json" download>replay file</a>' in html
        published = (site / "games" / f"{match.id}.replay.json").read_text(encoding="utf-8")
        assert published == match.replay and Replay.loads(published).seed == match.seed
    for match, season in open_:
        html = (site / "games" / f"{match.id}.html").read_text(encoding="utf-8")
        assert str(match.seed) not in html and "Deck seed" not in html
        assert f"published once season {season.name} is closed" in html
        assert not (site / "games" / f"{match.id}.replay.json").exists()


def test_build_refuses_a_folder_it_did_not_make(ladder: dict, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(SiteError, match=re.escape(repr(str(out)))):
        build_site(make_engine(f"sqlite:///{ladder['db']}"), out)
    result = subprocess.run([sys.executable, "-m", "arena", "--db", f"sqlite:///{ladder['db']}", "site", "build",
                             "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "not empty" in result.stderr
    assert (out / "notes.txt").read_text() == "keep me"


def test_rebuild_overwrites_and_removes_stale_pages(ladder: dict, tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{ladder['db']}")
    out = tmp_path / "site"
    first = build_site(engine, out, workers=1)
    (out / "games" / "999999.html").write_text("stale")
    (out / "tests" / "999999.html").write_text("stale")
    (out / "games" / "1.html").write_text("old")
    second = build_site(engine, out, workers=1)
    assert second.pages == first.pages and second.games == first.games > 10
    assert not (out / "games" / "999999.html").exists() and not (out / "tests" / "999999.html").exists()
    assert "replay-steps" in (out / "games" / "1.html").read_text()


def test_demo_ends_by_building_the_site(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'demo.sqlite'}"
    engine = make_engine(db)
    with engine.begin() as conn:  # a user's bot that took a built-in bot's name before names were reserved
        conn.execute(sql_text("INSERT INTO bot (name, author, builtin, created_at) "
                              "VALUES ('random', 'me', 0, '2024-01-01')"))
    engine.dispose()
    result = subprocess.run([sys.executable, "-m", "arena", "--db", db, "-q",  # one game seats all 3 bosses
                             "demo", "--games", "1"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "a submitted bot is named 'random'; the built-in random is not entered as a boss" in result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last == f"site: {(tmp_path / 'arena-site' / 'index.html').resolve()}"
    index = (tmp_path / "arena-site" / "index.html").read_text()
    assert index.count('class="boss"') >= 2
    # the audit page of a ladder with no flag says what was audited and when (built-in bots are never flagged)
    engine = make_engine(db)
    with Session(engine) as session:
        played = session.exec(select(Match).where(Match.status == "done")).all()
        ended = session.exec(select(Season)).one()
    engine.dispose()
    audit = html.unescape((tmp_path / "arena-site" / "audit.html").read_text())
    assert "No pair has been flagged." in audit and ended.finished_at is not None
    games = f"{len(played)} classic {'game' if len(played) == 1 else 'games'}"
    assert (f"Audited: {games}, 3 pairs of bots of different authors that shared a table. Every "
            f"season is audited when it ends, and the living ladder every few minutes; the latest season to end was "
            f"{ended.name}, {ended.finished_at:%Y-%m-%d %H:%M}.") in re.sub(r"</?strong>", "", audit)


def test_solo_deals_stay_unpublished_until_the_season_is_closed(tmp_path: Path) -> None:
    """Every solo bot (and every later version) plays the same deals: their replays would tell an author
    the deals. The site shows the standings of an open solo season, never its games."""
    db = f"sqlite:///{tmp_path / 'solo.sqlite'}"

    def arena(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "arena", "--db", db, "-q", *args], capture_output=True,
                              text=True, timeout=600, cwd=tmp_path)

    assert arena("season", "run", "--name", "cave", "--variant", "solo", "--games", "2",
                 "--bosses", "greedy").returncode == 0
    engine = make_engine(db)
    with Session(engine) as session:
        ids = [m.id for m in session.exec(select(Match).where(Match.status == "done")).all()]
    assert len(ids) == 2
    out = tmp_path / "site"
    build_site(engine, out, "solo", workers=1)
    assert not any((out / "games" / f"{i}.html").exists() for i in ids)
    solo = (out / "solo.html").read_text()
    assert "greedy" in solo and not re.search(r"games/\d+\.html", solo)
    assert "public half" in solo and "private half" not in solo.replace("the private half ranks", "")
    assert {row["half"] for row in json.loads((out / "leaderboard-solo.json").read_text())["rows"]} == {"public"}
    assert not any(f"games/{i}.html" in p.read_text() for p in out.rglob("*.html") for i in ids)

    closed, again, nope = run_batch(tmp_path / "solo.sqlite", [  # one process for the three commands
        (["-q", "season", "close", "cave"], None), (["-q", "season", "run", "--name", "cave", "--games", "3"], None),
        (["-q", "season", "close", "nope"], None)], tmp_path)
    assert closed.returncode == 0 and "its deals are published" in closed.stdout
    assert again.returncode != 0 and "season 'cave' is closed" in again.stderr
    build_site(engine, out, "solo", workers=1)
    assert all((out / "games" / f"{i}.html").exists() for i in ids)
    assert "ranked on the <strong>private half</strong>" in (out / "solo.html").read_text()
    assert {row["half"] for row in json.loads((out / "leaderboard-solo.json").read_text())["rows"]} == {"private"}
    assert nope.returncode == 2


def test_a_replay_error_quotes_no_deck_seed() -> None:
    """The build's error about a stored replay names it without its seed (it may deal other games)."""
    seed = 4882791138442018865
    text = json.dumps({"format": 1, "rules_id": "solo-v1", "seed": seed, "seats": ["a"], "actions": [],
                       "events": [], "result": None}, separators=(",", ":"))
    with pytest.raises(SiteError, match="does not re-simulate") as raised:
        spectator_json(text)
    assert str(seed) not in str(raised.value) and '"rules_id":"solo-v1"' in str(raised.value)
    with pytest.raises(SiteError, match="malformed replay") as raised:
        spectator_json(text.replace('"actions":[]', '"actions":7'))
    assert str(seed) not in str(raised.value)


def test_a_rebuild_reuses_the_steps_of_an_unchanged_game_only(ladder: dict, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A recorded game never changes: a rebuild takes its steps from the earlier page when the replay,
    the seat names and the steps' format are the same, and makes them again when any differs."""
    import arena.site.games as games
    from arena.site.replays import STEPS_FORMAT, steps_key

    engine = make_engine(f"sqlite:///{ladder['db']}")
    out = tmp_path / "site"
    build_site(engine, out, workers=1)
    pages = {p.name: p.read_text(encoding="utf-8") for p in (out / "games").glob("*.html")}
    made: list[str] = []
    from arena.site.replays import spectator_json as real  # what the game pages call

    def recording(replay, names=None):
        made.append(replay)
        return real(replay, names)

    monkeypatch.setattr(games, "spectator_json", recording)
    page = out / "games" / "1.html"
    key = re.search(r'data-key="([0-9a-f]{64})"', pages["1.html"])
    assert key is not None
    page.write_text(pages["1.html"].replace(key.group(1), "0" * 64))
    build_site(engine, out, workers=1)
    assert len(made) == 1  # only the page whose key no longer matched
    steps = re.compile(r'<script id="replay-steps"[^>]*>(.*?)</script>', re.S)

    def steps_of(texts: dict[str, str]) -> dict[str, str]:
        return {name: found.group(1) for name, text in texts.items() if (found := steps.search(text))}

    before = steps_of(pages)
    assert len(before) > 10 and "1.html" in before
    assert steps_of({p.name: p.read_text(encoding="utf-8") for p in (out / "games").glob("*.html")}) == before
    assert steps_key("r", ["a", "b"]) != steps_key("r", ["a", "c"]) != steps_key("r", ["ab", ""])
    monkeypatch.setattr("arena.site.replays.STEPS_FORMAT", STEPS_FORMAT + "-next")
    made.clear()
    build_site(engine, out, workers=1)
    with Session(engine) as session:  # a new format of the steps makes every game's again, test runs' included
        test_games = len(session.exec(select(TestRunGame.id)).all())
    assert test_games and len(made) == len(before) + test_games


def test_the_princes_pages_count_gold_and_the_classic_pages_coins(ladder: dict, site: Path) -> None:
    """A duel or solo game's results, season and bot-page section say gold (``Format.money``), classic's coins."""
    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        games = {format_of(m.rules_id).name: m.id for m in session.exec(select(Match).where(Match.status == "done"))}
        seasons = {s.variant: s.id for s in session.exec(select(Season)).all()}
        glutton = session.exec(select(Bot.id).where(Bot.name == "glutton")).one()
    for variant, money in (("classic", "coins"), ("duel", "gold"), ("solo", "gold")):
        results = (site / "games" / f"{games[variant]}.html").read_text().split('<table id="results"', 1)[1]
        assert f'<th class="num">{money}</th><th class="num">rank</th>' in results.split("</thead>")[0], variant
        season = (site / "seasons" / f"{seasons[variant]}.html").read_text()
        assert f'class="num">avg {money}</th>' in season and f"avg {'gold' if money == 'coins' else 'coins'}" \
            not in season, variant
    bot = (site / "bots" / f"{glutton}.html").read_text()
    sections = {part.split('"', 1)[0]: part for part in bot.split('<section class="format" id="format-')[1:]}
    assert "avg coins" in sections["classic"] and "avg coin" in sections["classic"] and "gold" not in \
        sections["classic"]
    assert "avg gold diff" in sections["duel"] and "avg gold</th>" in sections["solo"]
    assert "coins" not in sections["duel"].replace(" coins of value", "")


def test_the_audit_page_says_what_was_audited_beside_its_flags(ladder: dict, site: Path) -> None:
    """Each format that seats several bots with its games, the pairs of bots of different authors that shared a
    table (built-in bots are nobody's), and the latest season to end: counted from the database here."""
    from arena.db import author_group

    games = {"classic": 0, "duel": 0}
    pairs: set[frozenset[str]] = set()
    with Session(make_engine(f"sqlite:///{ladder['db']}")) as session:
        for match in session.exec(select(Match).where(Match.status == "done")).all():
            variant = format_of(match.rules_id).name
            if variant == "solo":
                continue
            games[variant] += 1
            bots = session.exec(select(Bot).where(MatchSeat.match_id == match.id,
                                                  MatchSeat.version_id == BotVersion.id,
                                                  BotVersion.bot_id == Bot.id)).all()
            pairs.update(frozenset((a.name, b.name)) for a in bots for b in bots
                         if a.name < b.name and (author_group(a) is None or author_group(a) != author_group(b)))
        ended = max((s for s in session.exec(select(Season)).all() if s.variant != "solo" and s.finished_at),
                    key=lambda s: s.finished_at or s.created_at)
    page = re.sub(r"</?strong>", "", html.unescape((site / "audit.html").read_text()))
    assert 'id="flags"' in page and games["classic"] > 0 and games["duel"] > 0 and len(pairs) >= 3
    assert (f"Audited: {games['classic']} classic games, {games['duel']} duel games, {len(pairs)} pairs of bots of "
            f"different authors that shared a table. Every season is audited when it ends, and the living ladder "
            f"every few minutes; the latest season to end was {ended.name}, "
            f"{ended.finished_at:%Y-%m-%d %H:%M}.") in page
