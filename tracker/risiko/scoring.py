"""Reinforcements and points of the Risiko family.

- :func:`entitlement`: armies a player receives at the start of a turn (territories, continents
  or regions, the tournament's opening turns).
- :func:`standing`: what a player holds (the classic game has no points; its goal is a secret
  objective the camera cannot see).
- :func:`tournament_score`: the 2-vs-2 final score (seed 003, "Al termine della partita").
- :func:`lotr_points`: Middle-earth points (seed 004, "I PUNTI").
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Sequence

from tracker.errors import GameError
from tracker.risiko.rules import LOTR_POINTS, TOURNAMENT_POINTS, RisikoRules
from tracker.state import ObservedState

#: tournament points (seed 003)
OBJECTIVE_TERRITORY_POINTS = 4
OTHER_TERRITORY_POINTS = 1
OBJECTIVE_CONTINENT_POINTS = 10
SMALL_CONTINENTS = frozenset({"oceania", "sud_america"})
MEDIUM_CONTINENTS = frozenset({"africa", "asia_del_nord"})
SMALL_OBJECTIVE_BONUS = 12
MEDIUM_OBJECTIVE_BONUS = 6
#: LotR points per stronghold held (seed 004)
STRONGHOLD_POINTS = 2


@dataclass(frozen=True)
class Entitlement:
    territories: int
    groups: dict[str, int]
    total: int


def entitlement(state: ObservedState, colour: str, rules: RisikoRules, own_turn_no: int = 99) -> Entitlement:
    """Armies ``colour`` receives at the start of its ``own_turn_no``-th turn (cards apart)."""
    held = state.provinces_of(colour)
    if 1 <= own_turn_no <= len(rules.opening_reinforcements):
        n = rules.opening_reinforcements[own_turn_no - 1]
        return Entitlement(n, {}, n)
    base = max(rules.reinforcement_minimum, len(held) // rules.reinforcement_divisor)
    groups = {g.id: g.bonus for g in _groups_held(state, held, rules)}
    return Entitlement(base, groups, base + sum(groups.values()))


def _groups_held(state: ObservedState, held: Sequence[str], rules: RisikoRules):
    owned = set(held)
    out = [g for g in rules.reinforcement_groups(state.board.groups) if g.members <= owned]
    if not rules.asia_del_nord_with_asia and any(g.id == "asia" for g in out):
        out = [g for g in out if g.id != "asia_del_nord"]
    return out


@dataclass(frozen=True)
class Standing:
    """What one player holds: the classic game's running picture (and the base of the others)."""

    territories: int
    armies: int
    groups: tuple[str, ...]
    reinforcements: int
    points: int = 0
    details: dict = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.points

    def to_dict(self) -> dict:
        out = asdict(self)
        out["groups"] = list(self.groups)
        out["total"] = self.total
        return out

    def describe(self) -> str:
        text = f"{self.territories} territories, {self.armies} armies"
        if self.groups:
            text += f", holds {', '.join(self.groups)}"
        return text + (f"; {self.points} points" if self.points else "")


@dataclass(frozen=True)
class Objective:
    """A tournament objective: its territories and the continents it is named after (seed 003)."""

    territories: frozenset[str]
    continents: frozenset[str] = frozenset()

    @classmethod
    def from_dict(cls, data: dict) -> "Objective":
        """From a file's ``{"territories": [...], "continents": [...]}`` (``augur score --objectives``):
        anything else is one line, not a traceback in the scoring."""
        if not isinstance(data, dict):
            raise GameError("an objective is an object with 'territories' and 'continents' (lists of names)")
        names = {key: data.get(key, []) for key in ("territories", "continents")}
        for key, value in names.items():
            if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                raise GameError(f"an objective's '{key}' is a list of names")
        return cls(frozenset(names["territories"]), frozenset(names["continents"]))

    def check(self, board) -> None:
        """Every territory and continent named is on ``board``: a misspelt one would silently
        score nothing."""
        unknown = sorted(t for t in self.territories if t not in board.regions)
        unknown += sorted(c for c in self.continents if c not in board.groups)
        if unknown:
            raise GameError(f"an objective names '{unknown[0]}', which is no territory or continent of {board.id}")


def tournament_score(state: ObservedState, colour: str, objective: Objective, rules: RisikoRules) -> dict[str, int]:
    """The final points of ``colour`` (seed 003): objective territories 4, others 1, territories
    tied in a strip to the objective 4; a continent held 10 when in the objective, else one per
    territory; 12 for an objective with a small continent, 6 for a medium one (even when
    eliminated)."""
    board = state.board
    held = set(state.provinces_of(colour))
    in_obj = held & objective.territories
    strip: set[str] = set()
    if rules.strip_counts_connected:
        todo = list(in_obj)
        strip = set(in_obj)
        while todo:
            cur = todo.pop()
            for n in board.land_neighbours[cur]:
                if n in held and n not in strip:
                    strip.add(n)
                    todo.append(n)
        strip -= in_obj
    others = held - in_obj - strip
    continents = 0
    for g in _groups_held(state, sorted(held), rules):
        continents += OBJECTIVE_CONTINENT_POINTS if g.id in objective.continents else len(g.members)
    size = (SMALL_OBJECTIVE_BONUS if objective.continents & SMALL_CONTINENTS
            else MEDIUM_OBJECTIVE_BONUS if objective.continents & MEDIUM_CONTINENTS else 0)
    out = {"objective_territories": OBJECTIVE_TERRITORY_POINTS * len(in_obj),
           "strip_territories": OBJECTIVE_TERRITORY_POINTS * len(strip),
           "other_territories": OTHER_TERRITORY_POINTS * len(others),
           "continents": continents, "objective_size_bonus": size}
    out["total"] = sum(out.values())
    return out


def lotr_points(state: ObservedState, colour: str, card_points: int = 0) -> dict[str, int]:
    """Seed 004: 1 per territory, the region bonus for each whole region, 2 per stronghold, plus the
    points printed on the adventure cards played."""
    held = state.provinces_of(colour)
    regions = sum(g.bonus for g in state.board.groups_held(held))
    strongholds = sum(1 for p in held if state.board.has_feature(p, "stronghold"))
    out = {"territories": len(held), "regions": regions, "strongholds": STRONGHOLD_POINTS * strongholds,
           "adventure_cards": card_points}
    out["total"] = sum(out.values())
    return out


def standing(state: ObservedState, colour: str, rules: RisikoRules, objective: Objective | None = None,
             card_points: int = 0, own_turn_no: int = 99) -> Standing:
    """A player's standing under ``rules``, with the ruleset's points where it has them."""
    held = state.provinces_of(colour)
    ent = entitlement(state, colour, rules, own_turn_no)
    groups = tuple(g.id for g in _groups_held(state, held, rules))
    details: dict = {}
    if rules.scoring == TOURNAMENT_POINTS and objective is not None:
        details = tournament_score(state, colour, objective, rules)
    elif rules.scoring == LOTR_POINTS:
        details = lotr_points(state, colour, card_points)
    return Standing(len(held), state.total_legions(colour), groups, ent.total, details.get("total", 0), details)
