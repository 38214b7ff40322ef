"""Why a submission is refused: one error type, its message the one line an author reads."""
from __future__ import annotations


class SubmissionError(ValueError):
    """The submission is refused; the message says why. Nothing was stored."""


class NameTaken(SubmissionError):
    """A new bot's name reads as another author's bot (the service answers 409)."""
