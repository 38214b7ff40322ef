"""arena/ladder/random_seeds.py: the two ways a seed is made (``keyed`` under the database's key, ``derived`` from a
secret season seed), and that the derivation still deals every season as it dealt it when it opened."""
from __future__ import annotations

import random

from arena.ladder.random_seeds import derived, derived_random, keyed, match_seed, private_deals, solo_seeds


def test_a_season_seed_derives_what_it_derived_before_so_open_seasons_keep_their_deals() -> None:
    # the formulas the planner and the solo seasons used before the one derivation (written out here on purpose:
    # a change to ``derived`` would deal the rest of every open season anew)
    season = 8_123_456_789
    assert [match_seed(season, n) for n in range(5)] == [random.Random(f"{season}/{n}").getrandbits(63)
                                                         for n in range(5)]
    assert solo_seeds(season, 4) == [random.Random(f"{season}/solo/{k}").getrandbits(63) for k in range(4)]
    assert derived_random(season, "tables", 3).random() == random.Random(f"{season}/tables/3").random()
    seeds = solo_seeds(season, 7)
    old_split = {seeds[k:k + 2][random.Random(f"{season}/split/{k}").randrange(len(seeds[k:k + 2]))]
                 for k in range(0, 7, 2)}
    assert private_deals(season, 7) == old_split and len(old_split) == 4


def test_derived_seeds_differ_by_part_and_keyed_ones_by_key() -> None:
    assert derived(1, "solo", 0) != derived(1, "solo", 1) != derived(2, "solo", 1)
    assert derived(1, 5) == match_seed(1, 5) and 0 <= derived(1, 5) < 2 ** 63
    assert keyed(b"a" * 32, "play", 1) != keyed(b"b" * 32, "play", 1)
    assert keyed(b"a" * 32, "play", 1) == keyed(b"a" * 32, "play", 1) < 2 ** 63


def test_keyed_seeds_and_deal_names_are_hmac_sha256_as_before() -> None:
    """The bots' seeds and the deals' public names of stored games stay what they were (written out here as the
    HMAC they were first made with)."""
    import hashlib
    import hmac

    from arena.ladder.random_seeds import bot_seeds, deal_id

    key = bytes(range(32))
    before = [int.from_bytes(hmac.new(key, f"bot/77/{seat}".encode(), hashlib.sha256).digest()[:8], "big") >> 1
              for seat in range(4)]
    assert bot_seeds(key, 77, 4) == tuple(before)
    assert deal_id(key, 77) == hmac.new(key, b"deal/77", hashlib.sha256).hexdigest()[:12]
