"""Victory points claimed at the start of one's own turn (§5).

Interpretations (the rulebook is silent; see :class:`~tracker.spqrisiko.options.SpqrOptions`):
neutral armies are not rivals for the empire or province points unless
``neutrals_are_rivals``; a player must control at least one sea area to win the sea point
(holding "the most" of zero areas is a tie with everyone).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable, Iterator, Sequence

from tracker.pieces import LEGIONARY, NEUTRAL, TRIREME
from tracker.spqrisiko.options import SpqrOptions
from tracker.spqrisiko.reinforcements import entitlement
from tracker.state import ObservedState


@dataclass(frozen=True)
class Score:
    """What a player would claim if their turn started on this board."""

    empire: int
    provinces: int
    seas: int
    centres: int
    largest_empire: int
    province_count: int
    controlled_seas: int
    reinforcements: int

    @property
    def total(self) -> int:
        return self.empire + self.provinces + self.seas + self.centres

    def describe(self) -> str:
        return (f"claims {self.total} VP (empire {self.empire}, provinces {self.provinces}, seas {self.seas}, "
                f"centres {self.centres})")

    def to_dict(self) -> dict:
        d = asdict(self)
        return {"empire": d["empire"], "provinces": d["provinces"], "seas": d["seas"], "centres": d["centres"],
                "total": self.total, "largest_empire": d["largest_empire"], "province_count": d["province_count"],
                "controlled_seas": d["controlled_seas"], "reinforcements": d["reinforcements"]}


def largest_empire(state: ObservedState, colour: str) -> int:
    """Size of the colour's largest block of provinces joined by land (§5.6.1).

    Islands have no land border, so they never join a block, and they never count.
    """
    board = state.board
    owned = {p for p in state.provinces_of(colour) if not board.is_island(p)}
    best = 0
    seen: set[str] = set()
    for start in owned:
        if start in seen:
            continue
        stack, size = [start], 0
        seen.add(start)
        while stack:
            p = stack.pop()
            size += 1
            for q in board.land_neighbours[p]:
                if q in owned and q not in seen:
                    seen.add(q)
                    stack.append(q)
        best = max(best, size)
    return best


def controlled_seas(state: ObservedState, colour: str) -> int:
    """Sea areas where the colour has strictly more triremes than anyone else (§5.6.3)."""
    return sum(1 for sea in state.triremes if state.controller(sea) == colour)


def _strictly_most(mine: int, others: Sequence[int]) -> bool:
    return all(mine > o for o in others)


def score(state: ObservedState, colour: str, players: Sequence[str], options: SpqrOptions = SpqrOptions()) -> Score:
    """The points ``colour`` claims at the start of its turn (§5.6.1–5.6.4)."""
    rivals = [c for c in players if c != colour]
    if options.neutrals_are_rivals:
        rivals += [c for c in state.provinces_by_colour if c not in players]
    empire = largest_empire(state, colour)
    count = len(state.provinces_of(colour))
    seas = controlled_seas(state, colour)
    empire_pt = int(empire >= options.empire_min_provinces
                    and _strictly_most(empire, [largest_empire(state, r) for r in rivals]))
    provinces_pt = int(count > 0 and _strictly_most(count, [len(state.provinces_of(r)) for r in rivals]))
    seas_pt = int(seas > 0 and _strictly_most(seas, [controlled_seas(state, r) for r in rivals]))
    centres = sum(1 for p in state.provinces_of(colour) if p in state.centres)
    return Score(empire_pt, provinces_pt, seas_pt, centres, empire, count, seas, entitlement(state, colour).total)


def score_all(state: ObservedState, players: Sequence[str], options: SpqrOptions = SpqrOptions()) -> dict[str, Score]:
    return {c: score(state, c, players, options) for c in players}


def claim_rests_on(state: ObservedState, colour: str, players: Sequence[str], doubted: Iterable[str],
                   options: SpqrOptions = SpqrOptions()) -> tuple[str, ...]:
    """The ``doubted`` regions (those the dashboard asks a player to check) on whose count the
    points ``colour`` claims on ``state`` hang: read otherwise, the claim would not be the same.

    A province is read otherwise as free, or held by any other army; a sea with one trireme more
    or fewer of any army. Where no one region alone would change the claim, all of them are read
    at once as one army's (its provinces, one trireme more of its in each sea): a card hiding three
    of red's provinces leaves red short of the province point that no one of them would win back.
    Power centres are left as read: a centre the camera does not show is asked for on the tablet
    (the centres owed), and a province's centre point goes with whoever holds it. So a table
    scoring a turn knows which marks to settle before it moves the marker: blue's province point
    that holds only while red's Corsica is read as empty, say."""
    points = score(state, colour, players, options).total
    armies = sorted(set(players) | set(state.provinces_by_colour))
    doubted = sorted(set(doubted))
    alone = tuple(r for r in doubted
                  if any(score(_holding(state, {r: other}), colour, players, options).total != points
                         for other in _read_otherwise(state, r, armies)))
    hidden = sorted(set(doubted) & state.unseen)
    if alone or len(hidden) < 2:
        return alone
    together: set[str] = set()
    for army in armies:
        changes = {r: _held_by(state, r, army) for r in hidden}
        changes = {r: pieces for r, pieces in changes.items() if pieces != state.regions.get(r, {})}
        if score(_holding(state, changes), colour, players, options).total != points:
            together |= set(changes)
    return tuple(sorted(together))


def _holding(state: ObservedState, changes: dict[str, dict]) -> ObservedState:
    """``state`` with the regions of ``changes`` holding those pieces instead, made directly,
    unvalidated: it lives for one score."""
    regions = dict(state.regions)
    for region, pieces in changes.items():
        if pieces:
            regions[region] = pieces
        else:
            regions.pop(region, None)
    return ObservedState(state.board, regions, state.confidence, state.unseen)


def _held_by(state: ObservedState, region: str, army: str) -> dict:
    """``region``'s pieces with ``army`` holding it (a province) or one trireme more there (a sea)."""
    pieces = state.regions.get(region, {})
    if state.board.is_sea(region):
        return _fleet(pieces, army, 1)
    if state.owners.get(region) == army:
        return {c: dict(k) for c, k in pieces.items()}
    return _garrison(pieces, army)


def _read_otherwise(state: ObservedState, region: str, armies: Sequence[str]) -> Iterator[dict]:
    """The pieces ``region`` may hold, read each other way that matters to the claims (see
    :func:`claim_rests_on`)."""
    pieces = state.regions.get(region, {})
    if state.board.is_sea(region):
        for army in armies:
            yield _fleet(pieces, army, 1)
            if pieces.get(army, {}).get(TRIREME, 0):
                yield _fleet(pieces, army, -1)
        return
    owner = state.owners.get(region)
    if owner is not None:
        yield _garrison(pieces, None)
    for army in armies:
        if army != owner:
            yield _garrison(pieces, army)


def _fleet(pieces: dict, army: str, step: int) -> dict:
    """A sea's ``pieces`` with ``army``'s triremes ``step`` more (or fewer)."""
    fleet = {c: dict(k) for c, k in pieces.items() if c != army}
    n = pieces.get(army, {}).get(TRIREME, 0) + step
    if n:
        fleet[army] = {TRIREME: n}
    return fleet


def _garrison(pieces: dict, army: str | None) -> dict:
    """A province's ``pieces`` held by ``army`` (one legionary), or by no army: its centre stays."""
    held = {NEUTRAL: dict(pieces[NEUTRAL])} if NEUTRAL in pieces else {}
    if army is not None:
        held[army] = {LEGIONARY: 1}
    return held
