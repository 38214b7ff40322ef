"""`arena audit`: do two bots of different authors play as a team? (arena/audit/: the pair test stats.py, the team
test teams.py, both in report.py); `arena audit clear A B`, `arena audit confirm A B`."""
from __future__ import annotations

import json

import click
from sqlmodel import Session

from arena.audit.report import AuditReport
from arena.audit.stats import BIG, Direction, MARGIN, PairFinding
from arena.audit.teams import TEAM_GIVER, TEAM_MARGIN, TeamFinding
from arena.audit.store import AuditError, clear_flag, confirm_flag, run_audit, stored_flags
from arena.audit.words import apart_words, finding_words, flag_words, pair_words, team_of
from arena.formats import format_of
from arena.text import plural, shown

from arena.cli.helps import FormatsOption, audit_variant_help
from arena.cli.base import Context, UserError, cli, echo, format_table, pass_context


@cli.group(invoke_without_command=True)
@click.option("--season", "season_name", default=None,
              help="Audit one season's games (default: every season of --variant).")
@click.option("--variant", default=None, cls=FormatsOption, help_from=audit_variant_help)
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option("--all", "show_all", is_flag=True, help="List every pair tested, not only those that stand out.")
@pass_context
@click.pass_context
def audit(click_ctx: click.Context, ctx: Context, season_name: str | None, variant: str | None, as_json: bool,
          show_all: bool) -> None:
    """Audit the recorded games for collusion: for every pair of bots of different authors, the value
    that flowed between them beyond fair trades and each one's lift with the other. A pair that stands
    out is flagged: stored, shown on the site, and never seated together again until `arena audit
    clear A B`. Bots that give value away to whoever is active (kingmakers) are named."""
    if click_ctx.invoked_subcommand is not None:
        return
    if season_name is not None and variant is not None:
        raise UserError("give --season or --variant, not both (a season has one variant)")
    if season_name is None:
        try:
            variant = format_of(variant).name  # None: the default format
        except ValueError as exc:
            raise UserError(str(exc)) from None
    with Session(ctx.engine) as session:
        try:
            report, new = run_audit(session, variant, season_name)
        except AuditError as exc:
            raise UserError(str(exc)) from None
    if as_json:
        data = report.to_json()
        data["newly_flagged"] = [list(p.bots) for p in new if isinstance(p, PairFinding)]
        data["newly_flagged_teams"] = [{"receiver": t.receiver, "givers": list(t.givers)}
                                       for t in new if isinstance(t, TeamFinding)]
        echo(json.dumps(data, indent=2, sort_keys=True))
        return
    echo(report_text(report, show_all))
    for finding in new:
        echo(f"newly flagged: {finding_words(finding)}; {apart_words(finding)} and the games they shared are not "
             "rated (`arena audit clear A B` or `arena audit confirm A B` after a review)")


def words(bots: tuple[str, str], givers: tuple[str, ...]) -> str:
    """A flagged pair by giver and receiver, the names cleaned for the terminal."""
    return pair_words(bots, givers, {name: shown(name) for name in bots})


def report_text(report: AuditReport, show_all: bool) -> str:
    lines = [f"{plural(report.games, 'game')} audited, "
             f"{plural(len(report.pairs), 'pair')} of bots of different authors tested"]
    shown_pairs = [p for p in report.pairs if show_all or p.flagged or p.top_t >= 0]
    if shown_pairs:
        rows = [("pair", "games", "A->B excess (to others, t, big games)", "B->A excess (to others, t, big games)",
                 "lift B|A, A|B", "flagged")]
        for p in shown_pairs:
            ab, ba = p.directions
            rows.append((f"{shown(p.bots[0])} / {shown(p.bots[1])}", str(p.games), _direction(ab), _direction(ba),
                         f"{p.lift[0]:+.2f}, {p.lift[1]:+.2f}",
                         f"FLAGGED: {' and '.join(shown(g) for g in p.givers)} gave" if p.flagged else "-"))
        lines.append(format_table(rows))
        lines.append(f"(excess: coins of value one's deals gave the other beyond what they gave itself, over the "
                     f"games shared; to others: what they gave each of its other opponents; flagged when the "
                     f"difference is over {MARGIN:g} coins a game with t beyond the bound for the pairs tested, or "
                     f"when it has more big games (over {BIG:g} coins beyond the others) than the other pairs' "
                     f"rate allows)")
    else:
        lines.append("no pair stands out")
    for p in report.flagged:
        lines.append(f"flagged: {words(p.bots, p.givers)}")
    for team in report.teams:
        if show_all or team.flagged or team.t >= 0 or team.big_z >= team.big_threshold:
            lines.append(_team_line(team))
    for giver in report.givers:
        lines.append(f"giver: {shown(giver.bot)} gives away {giver.given_per_game:.1f} coins of value a game "
                     f"(everyone else {giver.others_per_game:.1f}, z {giver.z:.1f}) to whoever takes it")
    return "\n".join(lines)


def _team_line(team: TeamFinding) -> str:
    """A receiver against the set of its givers: the team test's figures, then the givers that carry it."""
    parts = ", ".join(f"{shown(c.giver)} {c.margin():+.1f} a game over {c.games}" for c in team.contributions[:5])
    head = (f"team flagged: {finding_words(team)}" if team.flagged
            else f"team test: {shown(team.receiver)} (not flagged)")
    return (f"{head}: {team.margin():+.1f} coins a game beyond what its givers gave their other opponents over "
            f"{plural(team.games, 'game')} (flagged over {TEAM_MARGIN:g} with t {team.t:+.1f} beyond "
            f"{team.threshold:.1f}, or {team.big} big games at z {team.big_z:.1f} beyond {team.big_threshold:.1f}); "
            f"givers over {TEAM_GIVER:g} a shared game are named: {parts or 'none'}")


def _direction(d: Direction) -> str:
    return f"{d.excess:.1f} ({d.to_others:.1f}, {d.t:+.1f}, {d.big} big)"


@audit.command("clear")
@click.argument("a")
@click.argument("b")
@pass_context
def audit_clear(ctx: Context, a: str, b: str) -> None:
    """Clear the flag of bots A and B after a review: they may share tables again, the games they shared
    count in the ratings again (every rating is recomputed), and only games played from now on can flag
    them again."""
    with Session(ctx.engine) as session:
        try:
            clear_flag(session, a, b)
        except AuditError as exc:
            raise UserError(str(exc)) from None
    echo(f"cleared: {shown(a)} and {shown(b)} may share tables again; the games they shared count again")


@audit.command("confirm")
@click.argument("a")
@click.argument("b")
@pass_context
def audit_confirm(ctx: Context, a: str, b: str) -> None:
    """Uphold the flag of bots A and B after a review: the games they shared stay out of the ratings for
    good, and the bot that gave (both, if each gave to the other) is retired, a ladder rule."""
    with Session(ctx.engine) as session:
        try:
            retired = confirm_flag(session, a, b)
        except AuditError as exc:
            raise UserError(str(exc)) from None
    gone = ", ".join(shown(name) for name in retired)
    echo(f"confirmed: the games {shown(a)} and {shown(b)} shared stay out of the ratings; "
         + (f"retired: {gone}" if gone else "nobody left to retire"))


@audit.command("list")
@pass_context
def audit_list(ctx: Context) -> None:
    """Every flag, standing and cleared."""
    with Session(ctx.engine) as session:
        flags = stored_flags(session)
    if not flags:
        echo("no pair has been flagged")
        return
    rows = [("pair", "flagged", "scope", "games", "cleared", "finding")]
    for f in flags:
        team = team_of(f.evidence)
        names = {name: shown(name) for name in (*f.bots, *(team[1] if team else ()))}
        rows.append((f"{shown(f.bots[0])} / {shown(f.bots[1])}", f.flagged_at, shown(f.scope),
                     str(f.evidence.get("games", "?")), f.cleared_at or (f"confirmed {f.confirmed_at}" if f.confirmed_at
                                                                        else "standing"),
                     flag_words(f.bots, f.givers, f.evidence, names)))
    echo(format_table(rows))
