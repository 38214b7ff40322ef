"""`arena status --to URL`: an author's own bots as the submission service sees them (arena/service/client.py)."""
from __future__ import annotations

import click

from arena.service.client import status_remote

from arena.cli.base import cli


@cli.command("status")
@click.option("--to", "url", required=True, metavar="URL",
              help="The submission service ('arena serve'); you are the author whose token is in $ARENA_TOKEN or "
                   "--token-file.")
@click.option("--token-file", type=click.Path(dir_okay=False), default=None, help="A file holding the token.")
@click.option("--json", "as_json", is_flag=True, help="Print the service's JSON.")
@click.option("--game", type=click.IntRange(min=1), default=None,
              help="Game N as your seats saw it, each with its standard error (not for a game whose deals are "
                   "still secret).")
def status(url: str, token_file: str | None, as_json: bool, game: int | None) -> None:
    """Your bots on the ladder: each format's rank, or 'placing 4/10' while a new version plays its first rated
    games, a version the ladder paused and why, your latest failures with their evidence, and the games whose
    logs you can read (--game N prints one)."""
    status_remote(url, token_file, as_json, game)
