"""Reinforcement entitlement (§6, §7, §16.5)."""
from __future__ import annotations

from dataclasses import dataclass

from tracker.state import ObservedState

#: §6: fewer than 3 provinces give 1; 3 to 11 give 3; more than 11 give one per 3, rounded down.
MIN_PROVINCES_FOR_THREE = 3
LEGIONARIES_PER_TRIREME = 3   # §7.1: three legionaries become one trireme
LEGIONARIES_FROM_TRIREME = 2  # §6.6: one trireme becomes two legionaries


def land_reinforcements(provinces: int) -> int:
    """Legionaries earned by province count (§6.1–6.3): 1 below 3, then max(3, n // 3)."""
    if provinces <= 0:
        return 0
    if provinces < MIN_PROVINCES_FOR_THREE:
        return 1
    return max(3, provinces // 3)


@dataclass(frozen=True)
class Entitlement:
    """Reinforcements a player may place at the start of their turn, cards not included."""

    by_provinces: int
    by_centres: int

    @property
    def total(self) -> int:
        return self.by_provinces + self.by_centres


def entitlement(state: ObservedState, colour: str) -> Entitlement:
    """§6.1–6.3 by province count, plus one legionary in every owned province with a centre (§6.5)."""
    owned = state.provinces_of(colour)
    return Entitlement(land_reinforcements(len(owned)), sum(1 for p in owned if p in state.centres))
