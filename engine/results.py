"""Final results and ranking."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Mapping, Sequence


@dataclass(frozen=True, slots=True)
class GameResult:
    """Coins and ranks per seat (rank 1 is best; equal coins share a rank, C-7.4)."""

    coins: tuple[int, ...]
    ranks: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"coins": list(self.coins), "ranks": list(self.ranks)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameResult:
        try:
            return cls(tuple(int(c) for c in data["coins"]), tuple(int(r) for r in data["ranks"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed result {data!r}: {exc}") from None


def rank_by_coins(coins: Sequence[int], forfeited: Collection[int] = ()) -> tuple[int, ...]:
    """Standard competition ranks ("1, 1, 3"): more coins rank higher, equal coins share a rank.

    Seats in ``forfeited`` rank below every other seat, among themselves by coins.
    """
    keys = [(seat in forfeited, -c) for seat, c in enumerate(coins)]
    return tuple(1 + sum(1 for other in keys if other < key) for key in keys)
