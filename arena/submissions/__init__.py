"""Submissions: a bot file checked, smoke-played, stored as a version; the accounts, tickets and
programs that decide who may enter what."""
