"""Combat of the Risiko family: what the camera can check about the losses of an attack.

With dice (classic, LotR) any split of losses is possible over enough rolls, so only the
preconditions can be checked (two armies to attack from, one left behind). The tournament's
attacks are dice-free (seed 003, "ATTACCHI"), so the losses between two board states must be
a sum of the table's outcomes, and the tracker checks them exactly.
"""
from __future__ import annotations

from functools import lru_cache

#: most armies engaged in one attack
MAX_ENGAGED = 3


def dice_free_outcome(attacking: int, defending: int) -> tuple[int, int]:
    """(attacker losses, defender losses) of one dice-free attack.

    Seed 003: 3 against 3 costs the attacker 3 and the defender 2; 3 against 2 or 1 costs one
    each; an attack with 1 or 2 armies loses them all and kills nobody.
    """
    if not 1 <= attacking <= MAX_ENGAGED or not 1 <= defending <= MAX_ENGAGED:
        raise ValueError("attacks engage 1 to 3 armies on each side")
    if attacking < MAX_ENGAGED:
        return attacking, 0
    if defending == MAX_ENGAGED:
        return 3, 2
    return 1, 1


@lru_cache(maxsize=4096)
def dice_free_losses(source: int, defender: int, defends_with_max: bool) -> frozenset[tuple[int, int]]:
    """Every (attacker losses, defender losses) a series of dice-free attacks can produce.

    ``source`` is the attacking territory's strength when the series begins (one army always
    stays home), ``defender`` the defending territory's. With ``defends_with_max`` the defender
    must engage as many armies as it has, up to three (tournament neutrals).
    """
    out: set[tuple[int, int]] = set()
    seen: set[tuple[int, int]] = set()
    todo = [(source, defender)]
    while todo:
        s, d = todo.pop()
        if (s, d) in seen:
            continue
        seen.add((s, d))
        out.add((source - s, defender - d))
        if d == 0:
            continue
        for a in range(1, min(MAX_ENGAGED, s - 1) + 1):
            choices = [min(MAX_ENGAGED, d)] if defends_with_max else range(1, min(MAX_ENGAGED, d) + 1)
            for k in choices:
                la, ld = dice_free_outcome(a, k)
                todo.append((s - la, d - ld))
    return frozenset(out)


def dice_free_min_loss(source: int, defender: int, defender_losses: int, defends_with_max: bool) -> int | None:
    """The least the attacker can lose to inflict ``defender_losses``; None if impossible."""
    options = [a for a, d in dice_free_losses(source, defender, defends_with_max) if d == defender_losses]
    return min(options) if options else None


def die_bonus(leader_attacking: bool, leader_defending: bool, stronghold: bool) -> tuple[int, int]:
    """(attacker, defender) bonus to the highest die in LotR (seed 004, "EFFETTO DI LEADER E FORTEZZA").

    A leader adds 1 to its side's highest die, a stronghold 1 to the defender's: leader and
    stronghold together give the defender +2.
    """
    return int(leader_attacking), int(leader_defending) + int(stronghold)


def compare_with_bonus(attack: list[int], defence: list[int], bonus: tuple[int, int] = (0, 0)) -> tuple[int, int]:
    """One LotR roll: the bonuses raise each side's highest die; ties go to the defender."""
    a = sorted(attack, reverse=True)
    d = sorted(defence, reverse=True)
    if a:
        a[0] += bonus[0]
    if d:
        d[0] += bonus[1]
    a.sort(reverse=True)
    d.sort(reverse=True)
    att = dfn = 0
    for x, y in zip(a, d):
        if x > y:
            dfn += 1
        else:
            att += 1
    return att, dfn
