"""`arena submit`: a bot file checked, smoke-played in the sandbox and added to the ladder, or sent to a submission
service (`--to URL`, an author's client: it imports neither the database nor the submission flow, which the
local path imports when it runs; arena/submissions/submit.py holds the flow)."""
from __future__ import annotations

from pathlib import Path

import click

from arena.service.client import submit_remote
from arena.submissions import BUDGET_SECONDS

from arena.cli.base import Context, UserError, cli, echo


@cli.command()
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--name", help="Bot name (default: the file name without .py).")
@click.option("--author", default="", help="Act as this author's account ('arena authors'): a new bot becomes "
              "theirs, and only its owner makes its next versions.")
@click.option("--operator", is_flag=True, help="Act as the operator: make a new version of any bot (recorded).")
@click.option("--unsafe", is_flag=True, help="Allow the smoke game without a strong sandbox.")
@click.option("--budget", type=click.FloatRange(min=1), default=None,
              help=f"Seconds the smoke games may take in all; a bot still playing then is refused, nothing stored "
                   f"[default: {BUDGET_SECONDS:g}, as 'arena serve --upload-budget'].")
@click.option("--to", "url", default=None, metavar="URL",
              help="Submit through the submission service at URL ('arena serve') as the author whose token is in "
                   "$ARENA_TOKEN or --token-file; waits for the smoke games and prints the verdict.")
@click.option("--token-file", type=click.Path(dir_okay=False), default=None,
              help="With --to: a file holding the token.")
@click.option("--verdict-seconds", type=click.FloatRange(min=1), default=600.0, show_default=True,
              help="With --to: seconds to wait for the verdict.")
@click.option("--wait", is_flag=True, help="With --to: then wait until the new version's placement is over in "
              "every format it plays (progress on stderr), and print its ranks.")
@click.option("--wait-minutes", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="With --wait: give up after this many minutes (one line, exit status 2).")
@click.pass_context
def submit(click_ctx: click.Context, path: str, name: str | None, author: str, operator: bool, unsafe: bool,
           budget: float | None, url: str | None, token_file: str | None, verdict_seconds: float, wait: bool,
           wait_minutes: float) -> None:
    """Check a bot file, play a smoke game of each format in the sandbox, and add it to the ladder.

    A new file under an existing name becomes that bot's next version (only its owner's, or the
    operator's with --operator): it keeps the rating mean and starts with a fresh uncertainty;
    older versions stop being scheduled. With --to URL the file goes to a submission service instead.
    """
    file = Path(path)
    if url is not None:
        if author or operator or unsafe or budget is not None:
            raise UserError("--to acts as the token's author: --author, --operator, --unsafe and --budget are for a "
                            "local submit (the service sets its own --upload-budget)")
        submit_remote(url, file, name, token_file, verdict_seconds, wait_minutes if wait else None)
        return
    if wait:
        raise UserError("--wait waits for a placement on a submission service: it needs --to URL")
    from arena.submissions.bot_file import read_bot_file
    from arena.submissions.errors import SubmissionError
    from arena.submissions.submit import submit_bytes
    from sandbox import Limits, SandboxError

    from arena.cli.trust import acting, sandbox_tier

    ctx = click_ctx.ensure_object(Context)
    try:
        data = read_bot_file(path)  # a link, a FIFO or an oversized file is refused before it is read
        outcome = submit_bytes(ctx.engine, data, path, name or file.stem, acting(author, operator), Limits(),
                               sandbox_tier(unsafe), named=name is not None,
                               budget=BUDGET_SECONDS if budget is None else budget)
    except SubmissionError as exc:
        raise UserError(str(exc)) from None
    except SandboxError as exc:
        raise click.ClickException(f"sandbox unavailable (machine fault, not the bot's): {exc}") from None
    for line in outcome.out:
        echo(line)
    for line in outcome.err:
        echo(line, err=True)
    if outcome.refusal is not None:
        raise UserError(outcome.refusal)

