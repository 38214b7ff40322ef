"""How a bot's name may be spelled: what an author's client checks before it uploads (``arena submit --to``),
imported without the database. The names reserved for built-in bots and the names already taken are the ladder's
to check (arena/submissions/names.py), on the service's side too."""
from __future__ import annotations

import re

from arena.submissions.errors import SubmissionError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


def check_name_form(name: str) -> str:
    """``name`` if it is spelled as a bot's name may be: 1-40 letters, digits, '_', '.' or '-', first a letter or
    digit."""
    if not NAME.fullmatch(name):
        raise SubmissionError(f"bot name {name!r} must be 1-40 letters, digits, '_', '.' or '-', "
                              "starting with a letter or digit")
    return name
