"""Counts that stand in for the camera's: a player's correction of a miscount, or a set-up count
the rules fix (:meth:`tracker.game.TurnFollower.settle_setup`).

Each holds only while the camera still reads the region as it did when the count was set. The
pipeline keeps a region's committed count until a hand touches the region, so a misread stays
misread and the count set over it stays too; once the camera reads the region otherwise,
something was moved there and the camera is trusted again.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from tracker.readings import LOW_CONFIDENCE
from tracker.state import ObservedState


#: The confidence of a count the rules bound but do not fix: a province read empty keeps its army
#: at the one legionary it must hold (:meth:`tracker.game.Game.hold_permanent`, §14.1). The owner
#: is sure, the count a guess, so the dashboard goes on asking for a check (below
#: ``tracker.readings.LOW_CONFIDENCE``) until a player corrects it.
GUESSED = 0.5


@dataclass
class Override:
    """A region's pieces set over the camera's reading of it."""

    #: the recorded correction it comes from (None where nothing is recorded, as in a bench)
    correction_id: int | None
    camera_value: dict
    value: dict
    #: how sure its value is: None for a count known exactly (a player's, or one the rules fix),
    #: GUESSED for one the rules only bound
    confidence: float | None = None


def apply_overrides(overrides: dict[str, Override], state: ObservedState) -> ObservedState:
    """``state`` with the standing overrides applied. An override whose region the camera now
    reads otherwise is dropped from ``overrides``. A region set by a player or a rule carries no
    camera confidence, only its override's own (a guessed count's)."""
    if not overrides:
        return state
    d = state.to_dict()
    for region, o in list(overrides.items()):
        if d["regions"].get(region, {}) == o.camera_value:
            d.get("confidence", {}).pop(region, None)
            if o.confidence is not None:
                d.setdefault("confidence", {})[region] = o.confidence
            if o.value:
                d["regions"][region] = copy.deepcopy(o.value)
            else:
                d["regions"].pop(region, None)
        else:
            del overrides[region]
    return ObservedState.from_dict(d, state.board)


def to_check(state: ObservedState, questioned: dict[str, dict], overrides: dict[str, Override]) -> set[str]:
    """The regions of the tracked ``state`` the dashboard marks for a player to check: the camera
    doubts their count (below ``LOW_CONFIDENCE``; a count the rules only guessed carries its
    override's low confidence, :func:`apply_overrides`), or a rule questioned it and it still reads so
    (``questioned``, :meth:`tracker.game.TurnFollower.question`) with no count set over it. A
    region the camera cannot see is marked as unseen, not for a check."""
    doubted = {r for r in state.confidence if state.confidence_of(r) < LOW_CONFIDENCE}
    return (doubted | still_questioned(questioned, overrides)) - state.unseen


def still_questioned(questioned: dict[str, dict], overrides: dict[str, Override]) -> set[str]:
    """The regions a rule questioned that no player or rule has set a count over since."""
    return set(questioned) - set(overrides)
