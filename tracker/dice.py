"""Dice combat shared by the Risiko family (S.P.Q.RisiKo! §10, §11).

Each side rolls one die per unit engaged, at most three; dice are sorted high to low and
compared pair by pair, only as many pairs as the smaller side rolled (§10.6–10.8).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

MAX_DICE = 3


@dataclass(frozen=True)
class DiceRules:
    """The dice a ruleset's battles are rolled with, for dice entered at the tablet to settle a
    dispute: at most ``attack`` and ``defence`` dice a side; ``rule``: where the comparison is
    written; ``fewer_rule``: where an attacker rolling fewer dice than the defender is forbidden
    (None where it is allowed); ``naval_rule``: where a tied pair at sea sinks nobody (None on a
    board without sea battles). A dice-free ruleset (the 2-vs-2 tournament) has none."""

    attack: int = MAX_DICE
    defence: int = MAX_DICE
    rule: str = "§10.9"
    fewer_rule: str | None = "§10.13"
    naval_rule: str | None = "§11.5"

    def check(self, attacker, defender, naval: bool = False) -> None:
        """Raise ValueError, saying what is wrong, unless ``attacker`` and ``defender`` are lists
        of dice these rules allow (1 to 6 each, one die at least and the most a side rolls)."""
        for side, dice, most in (("attacker", attacker, self.attack), ("defender", defender, self.defence)):
            if not (isinstance(dice, list) and 1 <= len(dice) <= most
                    and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)):
                raise ValueError(f"the {side}'s dice are a list of 1 to {most} values from 1 to 6")
        if naval and self.naval_rule is None:
            raise ValueError("this board has no battles at sea")

    def to_dict(self) -> dict:
        return {"attack": self.attack, "defence": self.defence, "naval": self.naval_rule is not None}


def defence_dice(defenders: int) -> int:
    """The defender must roll as many dice as possible (§10.5)."""
    return max(0, min(MAX_DICE, defenders))


def attack_dice_available(legions: int, garrison: int = 1) -> int:
    """Dice an attacker can roll from a province: every legionary but the garrison (§14.1)."""
    return max(0, min(MAX_DICE, legions - garrison))


def may_attack(attacker_dice: int, defender_units: int) -> bool:
    """§10.13: no attack may be made when the attacker could roll fewer dice than the defender."""
    return attacker_dice >= 1 and attacker_dice >= defence_dice(defender_units)


def compare(attack: Sequence[int], defence: Sequence[int], naval: bool = False) -> tuple[int, int]:
    """Return (attacker losses, defender losses) for one roll.

    A higher die wins its pair. On a tie the defender wins (§10.11), except at sea where
    nobody loses the pair (§11.5).
    """
    att_losses = def_losses = 0
    for a, d in zip(sorted(attack, reverse=True), sorted(defence, reverse=True)):
        if a > d:
            def_losses += 1
        elif a < d or not naval:
            att_losses += 1
    return att_losses, def_losses
