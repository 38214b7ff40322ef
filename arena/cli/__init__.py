"""The ``arena`` command line: the group and shared state in ``base``, the trust and tier policy in
``trust``, help texts built from the format registry in ``helps``, the commands in ``play`` (play), ``submit``
(submit, locally or through a service), ``bots`` (bots, bots retire), ``authors`` (author accounts), ``ladder``
(its settings), ``serve`` (the submission service), ``status`` (an author's own view through it), ``demo``,
``season`` (season ..., leaderboard), ``competition`` (competitions and their finals), ``site`` (site build),
``game`` (game show), ``audit`` (the integrity audit) and ``backup``."""
from __future__ import annotations

from arena.cli.base import cli, main  # the commands' modules are imported when a command is run (base.LazyGroup)

__all__ = ["cli", "main"]
