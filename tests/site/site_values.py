"""Values the site's fixtures and tests share (a module of its own: every test folder has a conftest.py,
and a test importing from ``conftest`` gets whichever folder's was imported first)."""
from __future__ import annotations

from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
EVIDENCE = "RuntimeError: </pre><script>alert(5)</script>"  # the last line of the hostile seat's stderr
