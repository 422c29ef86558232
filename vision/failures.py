"""Where the counter goes wrong: each wrong region of a bench table sorted by cause and by pile size.

``augur bench vision`` says how many regions are right; this says which mistakes make up the
rest, so that a change (a new network, a threshold) can be judged by the mistakes it removes and
the next training run aimed at the largest group. Until session 101 that breakdown was a scratch
script each time (session 56's and session 101's tables in ``models/README.md``); now the bench
prints it for every tier.

Each wrong region gets exactly one cause, the first that fits, in this order:

- a region the camera could not see (:func:`vision.bench.hidden_regions`) that was counted anyway;
- a sea: triremes short, triremes over, or the right number in another colour;
- a province read with the same strength in another army's colour;
- a vexillum missed or read where none stands (a vexillum is ten legionaries' strength, so it
  outweighs a legionary count that is off as well);
- a power centre missed or read where none stands;
- legionaries short or over, by one or by two or more;
- anything else (the colours of a mixed count).

Provinces are also grouped by their true strength (legionaries plus ten per vexillum): the
session-56 analysis found the error rate grows steeply with the pile, so the groups say whether a
change helped the many small provinces or the few big piles.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Mapping

from tracker.pieces import CENTRE, LEGIONARY, SPQR_PIECES, TRIREME, VEXILLUM

#: A region's counts as the tracker's state holds them: colour -> kind -> count.
RegionCounts = Mapping[str, Mapping[str, int]]

#: True strengths of a province, grouped (upper bounds; the last group is open).
STRENGTH_GROUPS = ((3, "1-3"), (7, "4-7"), (12, "8-12"))
BIG_PILE = "13+"
SEA = "sea"
EMPTY = "empty"

HIDDEN_READ = "hidden, counted anyway"
CAUSES = (
    HIDDEN_READ,
    "triremes short", "triremes over", "fleet colour",
    "army colour",
    "vexillum missed", "vexillum too many",
    "centre missed", "centre too many",
    "legionaries short by 1", "legionaries short by 2+", "legionaries over by 1", "legionaries over by 2+",
    "other colours",
)


def _of_kind(counts: RegionCounts, kind: str) -> int:
    return sum(kinds.get(kind, 0) for kinds in counts.values())


def strength(counts: RegionCounts) -> int:
    """A province's strength over every colour standing there, as the piece set counts it (a
    vexillum is ten legionaries, rulebook §3.10)."""
    return sum(SPQR_PIECES.strength(kinds) for kinds in counts.values())


def _army(counts: RegionCounts) -> tuple[str, ...]:
    """The colours with a garrison piece in the region."""
    return tuple(sorted(c for c, kinds in counts.items() if SPQR_PIECES.strength(kinds)))


def strength_group(counts: RegionCounts, sea: bool) -> str:
    """The group a region is tallied in: ``sea``, ``empty`` or a range of true strength."""
    if sea:
        return SEA
    s = strength(counts)
    if s == 0:
        return EMPTY
    return next((name for top, name in STRENGTH_GROUPS if s <= top), BIG_PILE)


def why_wrong(got: RegionCounts, want: RegionCounts, sea: bool, hidden: bool) -> str:
    """The cause of one wrong region (one of :data:`CAUSES`; see the module doc for the order)."""
    if hidden:
        return HIDDEN_READ
    if sea:
        short = _of_kind(want, TRIREME) - _of_kind(got, TRIREME)
        return "triremes short" if short > 0 else "triremes over" if short < 0 else "fleet colour"
    if strength(got) == strength(want) and _army(got) and _army(got) != _army(want):
        return "army colour"
    for kind, missed, extra in ((VEXILLUM, "vexillum missed", "vexillum too many"),
                                (CENTRE, "centre missed", "centre too many")):
        off = _of_kind(want, kind) - _of_kind(got, kind)
        if off:
            return missed if off > 0 else extra
    short = _of_kind(want, LEGIONARY) - _of_kind(got, LEGIONARY)
    if short:
        return f"legionaries {'short' if short > 0 else 'over'} by {'1' if abs(short) == 1 else '2+'}"
    return "other colours"


@dataclass
class FailureTally:
    """Wrong regions of a tier by cause, and regions and wrong regions by true strength group.

    Only the regions the detector did not mark unseen are tallied: an unseen mark is scored by
    the bench's own rule (:func:`vision.bench.regions_right`) and reported beside it."""

    causes: Counter = field(default_factory=Counter)
    regions: Counter = field(default_factory=Counter)
    wrong: Counter = field(default_factory=Counter)

    def add(self, got: RegionCounts, want: RegionCounts, sea: bool, hidden: bool) -> None:
        group = strength_group(want, sea)
        self.regions[group] += 1
        if got != want:
            self.wrong[group] += 1
            self.causes[why_wrong(got, want, sea, hidden)] += 1

    def as_dict(self) -> dict:
        return {"causes": {c: self.causes[c] for c in CAUSES if self.causes[c]},
                "by_true_strength": {g: {"regions": self.regions[g], "wrong": self.wrong[g]}
                                     for g in self.groups()}}

    def groups(self) -> list[str]:
        order = [EMPTY] + [name for _, name in STRENGTH_GROUPS] + [BIG_PILE, SEA]
        return [g for g in order if self.regions[g]]

    def describe(self) -> str:
        """One line: the causes, commonest first, then the wrong share of each strength group."""
        causes = ", ".join(f"{c} {n}" for c, n in self.causes.most_common()) or "none"
        groups = ", ".join(f"{g} {self.wrong[g]}/{self.regions[g]}" for g in self.groups())
        return f"{causes}; wrong of the regions holding (true strength) {groups}"
