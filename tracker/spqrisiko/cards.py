"""Card sets ("tris", §8): what a set of three cards is worth.

The 55 cards carry one of four symbols. The rulebook gives no symbol counts; two independent
third-party transcriptions of the physical deck agree on 25/15/10/5, used by the simulator.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from tracker.errors import GameError

LEGIONARY_CARD = "legionary"
TRIREME_CARD = "trireme"
ARENA_CARD = "arena"
VEXILLUM_CARD = "vexillum"
CARD_SYMBOLS = (LEGIONARY_CARD, TRIREME_CARD, ARENA_CARD, VEXILLUM_CARD)
#: Deck composition (unofficial, see module docstring); 55 cards in all (§1.6).
DECK = {LEGIONARY_CARD: 25, VEXILLUM_CARD: 15, TRIREME_CARD: 10, ARENA_CARD: 5}

SAME_SYMBOL_LEGIONARIES = 8       # §8.5
DIFFERENT_SYMBOLS_LEGIONARIES = 10  # §8.6
VEXILLUM_BONUS = 2                # §8.7.1
#: The most legionaries one set can give: three vexilla (8 + 3 × 2).
MAX_SET_LEGIONARIES = SAME_SYMBOL_LEGIONARIES + 3 * VEXILLUM_BONUS


@dataclass(frozen=True)
class SetValue:
    """What a card set gives: legionaries to place, triremes (§8.7.2), power centres (§8.7.3)."""

    legionaries: int
    triremes: int = 0
    centres: int = 0


def set_value(cards: Iterable[str]) -> SetValue:
    """Value of a set of three cards; raise :class:`GameError` for anything that is not a set (§8.4)."""
    cards = list(cards)
    unknown = [c for c in cards if c not in CARD_SYMBOLS]
    if unknown:
        raise GameError(f"unknown card symbol '{unknown[0]}' (expected one of {', '.join(CARD_SYMBOLS)})")
    if len(cards) != 3:
        raise GameError(f"a card set has exactly 3 cards, got {len(cards)}")
    kinds = Counter(cards)
    if len(kinds) == 1:
        base = SAME_SYMBOL_LEGIONARIES
    elif len(kinds) == 3:
        base = DIFFERENT_SYMBOLS_LEGIONARIES
    else:
        raise GameError("a card set must be three identical or three different symbols (§8.4)")
    return SetValue(
        legionaries=base + VEXILLUM_BONUS * kinds[VEXILLUM_CARD],
        triremes=kinds[TRIREME_CARD],
        centres=kinds[ARENA_CARD],
    )


def best_set(hand: Iterable[str]) -> tuple[str, ...] | None:
    """The set in a hand worth the most legionaries, or None if the hand holds no set."""
    hand = Counter(hand)
    options: list[tuple[str, ...]] = [(s, s, s) for s in CARD_SYMBOLS if hand[s] >= 3]
    held = [s for s in CARD_SYMBOLS if hand[s]]
    if len(held) >= 3:
        # three different: take vexillum first (worth most), then the commonest others
        ordered = sorted(held, key=lambda s: (s != VEXILLUM_CARD, -hand[s]))
        options.append(tuple(ordered[:3]))
    if not options:
        return None
    return max(options, key=lambda cs: (set_value(cs).legionaries, set_value(cs).triremes))
