"""Dice combat shared by the Risiko family (S.P.Q.RisiKo! §10, §11).

Each side rolls one die per unit engaged, at most three; dice are sorted high to low and
compared pair by pair, only as many pairs as the smaller side rolled (§10.6–10.8).
"""
from __future__ import annotations

from typing import Sequence

MAX_DICE = 3


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
