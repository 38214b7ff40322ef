"""The static site: leaderboard, bot, season and game pages (with a replay viewer) from the ladder database.

Templates and static assets live in the project's top-level ``site/`` folder (not a Python
package). Every page links relatively, so the folder works from disk (file://) and any static host.
File names come from database ids, never from names. ``build`` builds (``build_site``) and writes every page
but the game pages, which ``games`` writes, in processes forked by ``forks`` on a large ladder; ``folder``
makes the output folder ready; ``render`` holds the templates; ``model`` reads the ladder and ``rows`` makes
the rows the templates show (``testruns`` the test runs' pages, their pairs and their games' pages); ``html``
formats repeated rows; ``chart`` draws the charts; ``replays`` makes a replay public, and ``games``'
``viewer_meta`` and ``viewer_steps`` give every replay viewer (a season's game, a test run's, a local file's) its
data.
"""
from __future__ import annotations

from arena.site.build import BuildSummary, build_site
from arena.site.chart import ChartPoint, rating_chart
from arena.site.errors import SiteError
from arena.site.replays import script_json, spectator_json

__all__ = ["BuildSummary", "ChartPoint", "SiteError", "build_site", "rating_chart", "script_json", "spectator_json"]
