"""The ``arena`` command line: the group and shared state in ``base``, the trust and tier policy in
``trust``, the commands in ``play`` (play, submit, bots, demo), ``season`` (season ..., leaderboard),
``site`` (site build), ``game`` (game show), ``audit`` (the integrity audit) and ``backup``."""
from __future__ import annotations

from arena.cli import audit, backup, game, play, season, site, testrun  # noqa: F401 - importing a command module registers its commands
from arena.cli.base import cli, main

__all__ = ["cli", "main"]
