"""Test runs (`arena test NEW --against OLD`): the paired games, their statistics (SPRT) and their store."""
