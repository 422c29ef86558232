"""Named ruleset variants where the seed documents disagree with the 2005 rulebook.

The 2005 rulebook is the default. Each option names the wording it follows; presets bundle
the options of one seed document so a table can say "we play by the English sheet".
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from tracker.errors import GameError

SINGLE_MOVE = "single_move"
EACH_TRIREME_ONCE = "each_trireme_once"
ROUNDS = "rounds"
PLAYER_TURNS = "player_turns"


@dataclass(frozen=True)
class SpqrOptions:
    """Interpretations and variants of the S.P.Q.RisiKo! rules.

    - ``empire_min_provinces``: §5.6.1 says the empire must have "non meno di 4" provinces
      (at least 4); the English rules sheet says it "must be greater than 4" (at least 5).
    - ``four_player_neutral_start``: §3.4 puts 3 neutral legionaries on "Italia"; the English
      sheet says "Rome", which is no province on the board, so it maps to Italia too.
    - ``naval_movement``: §9.3–9.4 allow one movement per turn (any number of triremes, from one
      sea area to one adjacent one). The short-rules sheet v1.2 says "un solo movimento per ogni
      triremi": every trireme may move once to an adjacent area, from several areas.
    - ``neutrals_are_rivals``: §5.6.1–5.6.2 compare the player in turn with "un altro
      giocatore" / "chiunque altro"; neutral armies are not players (§2.6), so by default
      their provinces do not stop a player from having the largest empire or most provinces.
    - ``neutrals_are_enemies_for_garrison``: §14.2 protects a province "confinante con una
      Provincia nemica"; the rulebook does not say whether neutrals are enemies. They can be
      attacked, so by default they are.
    - ``elimination_protection`` and ``elimination_unit``: §18.4 forbids eliminating anyone
      "prima della conclusione del 4° turno di gioco". By default a "turno di gioco" is read as a
      full round (every player has played 4 turns); ``player_turns`` counts single turns.
    - ``strategic_sea_needs_superiority``: §15.2 lets the end-of-turn move cross one sea area
      when the player has more triremes there than every other player present; the short-rules
      sheet says "solo se controllata (cioè più triremi di chiunque nell'area)". Neutral armies
      never hold triremes, so both wordings agree on this board; turning the option off allows
      the crossing with any trireme presence, as some house rules do.
    """

    name: str = "2005"
    empire_min_provinces: int = 4
    four_player_neutral_start: str = "italia"
    naval_movement: str = SINGLE_MOVE
    neutrals_are_rivals: bool = False
    neutrals_are_enemies_for_garrison: bool = True
    elimination_protection: int = 4
    elimination_unit: str = ROUNDS
    strategic_sea_needs_superiority: bool = True


PRESETS: dict[str, SpqrOptions] = {
    "2005": SpqrOptions(),
    "english-sheet": SpqrOptions(name="english-sheet", empire_min_provinces=5),
    "short-sheet": SpqrOptions(name="short-sheet", naval_movement=EACH_TRIREME_ONCE),
}


def ruleset_options(name: str = "2005", **overrides) -> SpqrOptions:
    """Look up a preset by name and apply field overrides (``empire_min_provinces=5``...)."""
    try:
        base = PRESETS[name]
    except KeyError:
        raise GameError(f"unknown S.P.Q.RisiKo! variant '{name}' (known: {', '.join(PRESETS)})") from None
    try:
        return replace(base, **overrides)
    except TypeError as exc:
        raise GameError(f"unknown ruleset option: {exc}") from None
