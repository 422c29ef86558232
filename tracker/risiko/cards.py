"""Territory-card sets of the Risiko family and what they are worth.

- Classic (Italian values): three artillery 4, three infantry 6, three cavalry 8, one of each
  10, a jolly with two equal cards 12; +2 armies for each card of the set showing a territory
  the player occupies.
- LotR (seed 004, "CARTE TERRITORIO"): three infantry 4, three cavalry 6, three creatures 8,
  one of each 10; a wild card stands for any symbol; +2 battalions for each card showing a
  territory the player controls, placed there.
- Tournament (seed 003): any three cards ("Qualsiasi terzetto"); 8 with three cards in hand,
  10 with four, 12 with five or more, counted before each set; "I territori e i simboli citati
  sulla carta non valgono nulla". In the round in which a player first holds three cards any set
  is worth 4, then 6, 8 and 10 in the following rounds.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from tracker.errors import GameError
from tracker.risiko.rules import CLASSIC_CARDS, LOTR_CARDS, TOURNAMENT_CARDS

INFANTRY = "infantry"
CAVALRY = "cavalry"
ARTILLERY = "artillery"
CREATURE = "creature"
WILD = "wild"

CLASSIC_SYMBOLS = (INFANTRY, CAVALRY, ARTILLERY)
LOTR_SYMBOLS = (INFANTRY, CAVALRY, CREATURE)

CLASSIC_TRIPLES = {ARTILLERY: 4, INFANTRY: 6, CAVALRY: 8}
CLASSIC_MIXED = 10
CLASSIC_WILD_PAIR = 12
LOTR_TRIPLES = {INFANTRY: 4, CAVALRY: 6, CREATURE: 8}
LOTR_MIXED = 10
#: +2 per card showing a territory the player holds (classic and LotR)
TERRITORY_BONUS = 2
#: tournament: value by cards in hand before the set (3, 4, 5 or more)
TOURNAMENT_BY_HAND = {3: 8, 4: 10, 5: 12}
#: tournament: the first rounds after anyone first holds three cards
TOURNAMENT_OPENING = (4, 6, 8, 10)
#: the most a single set can be worth in any table (for the tolerance of a set not yet entered)
MAX_SET = 12 + 3 * TERRITORY_BONUS


@dataclass(frozen=True)
class Card:
    """A territory card: its symbol and the territory it shows (a wild card shows none)."""

    symbol: str
    territory: str | None = None


def symbols_of(table: str) -> tuple[str, ...]:
    return LOTR_SYMBOLS if table == LOTR_CARDS else CLASSIC_SYMBOLS


def _symbol_value(table: str, symbols: Sequence[str]) -> int:
    """Base value of three symbols, or raise GameError when they make no set."""
    if len(symbols) != 3:
        raise GameError(f"a set is three cards, got {len(symbols)}")
    known = symbols_of(table) + (WILD,)
    bad = [s for s in symbols if s not in known]
    if bad:
        raise GameError(f"unknown card symbol '{bad[0]}' (expected {', '.join(known)})")
    wild = symbols.count(WILD)
    plain = Counter(s for s in symbols if s != WILD)
    if table == CLASSIC_CARDS:
        if wild == 0 and len(plain) == 1:
            return CLASSIC_TRIPLES[symbols[0]]
        if wild == 0 and len(plain) == 3:
            return CLASSIC_MIXED
        if wild == 1 and len(plain) == 1:
            return CLASSIC_WILD_PAIR
        raise GameError(f"{', '.join(symbols)} is not a set (three equal, one of each, or a jolly with two equal)")
    # LotR: a wild card completes any set; take the best set it can complete
    best = 0
    for fill in ([()] if not wild else [tuple(x) for x in _fills(wild)]):
        full = [s for s in symbols if s != WILD] + list(fill)
        kinds = set(full)
        if len(kinds) == 1:
            best = max(best, LOTR_TRIPLES[full[0]])
        elif len(kinds) == 3:
            best = max(best, LOTR_MIXED)
    if not best:
        raise GameError(f"{', '.join(symbols)} is not a set (three equal or one of each)")
    return best


def _fills(n: int) -> Iterable[tuple[str, ...]]:
    if n == 0:
        yield ()
        return
    for s in LOTR_SYMBOLS:
        for rest in _fills(n - 1):
            yield (s,) + rest


def set_value(table: str, cards: Sequence[Card], held: Iterable[str] = (), hand_size: int = 3,
              opening_step: int | None = None) -> int:
    """Armies a set of three cards is worth.

    ``held`` are the territories the player occupies (the +2 bonus), ``hand_size`` the cards
    in hand before the trade and ``opening_step`` the tournament's round since anyone first held
    three cards (0 for that round; None once the opening values no longer apply).
    """
    if len(cards) != 3:
        raise GameError(f"a set is three cards, got {len(cards)}")
    if table == TOURNAMENT_CARDS:
        if opening_step is not None and 0 <= opening_step < len(TOURNAMENT_OPENING):
            return TOURNAMENT_OPENING[opening_step]
        if hand_size < 3:
            raise GameError(f"a set needs three cards in hand, the hand holds {hand_size}")
        return TOURNAMENT_BY_HAND[min(hand_size, 5)]
    base = _symbol_value(table, [c.symbol for c in cards])
    held = set(held)
    return base + TERRITORY_BONUS * sum(1 for c in cards if c.territory in held)


def parse_cards(items: Sequence) -> list[Card]:
    """Cards as entered at the tablet: a symbol string, or ``{"symbol": ..., "territory": ...}``."""
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(Card(item))
        elif isinstance(item, dict) and isinstance(item.get("symbol"), str):
            territory = item.get("territory")
            out.append(Card(item["symbol"], territory if isinstance(territory, str) else None))
        else:
            raise GameError(f"a card is a symbol or {{\"symbol\": ..., \"territory\": ...}}, got {item!r}")
    return out


def deck(table: str, card_symbols: dict[str, str], wilds: int = 2) -> list[Card]:
    """The territory deck of a board: one card per territory plus the wild cards."""
    return [Card(sym, t) for t, sym in sorted(card_symbols.items())] + [Card(WILD) for _ in range(wilds)]
