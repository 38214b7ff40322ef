"""Submissions: a bot file checked, smoke-played, stored as a version; the accounts, tickets and
programs that decide who may enter what."""

#: the wall-clock seconds one submission's checks and smoke games may take, by default (`arena serve
#: --upload-budget`, `arena submit --budget`): an honest bot takes a few seconds, a slow one would hold a worker.
#: Here, so that the command line names it without importing the submission flow (arena/submissions/submit.py).
BUDGET_SECONDS = 120.0
