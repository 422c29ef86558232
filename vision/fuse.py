"""Temporal fusion: commit a board state only when several still frames agree.

Still frames are collected in a run (a frame that does not pass the gate ends the run). When
the run holds ``agree`` frames, and again at ``WINDOW`` frames, each region takes the reading it
showed most often in the run (the latest of those tied), so one flickering count does not hold
back the whole board (CameraChessWeb smooths per square for the same reason); a state is
committed when that fused board differs from the last committed one. Between those two frames a
change is committed as soon as, in every region it changes, at least ``agree`` of the run's
frames and most of those that saw the region read it so (``Fusion._backed``): a count missed in
two of the first three frames no longer waits for the full window. Until then the last
committed state stands.

A region the run could not see (a hand resting on it, a card lying over it) keeps its last
committed count and is marked unseen. Left empty, it read to the tracker as every piece
there taken off the board: on a rendered hard game, a hand that rested still over Italy for a
second had twelve provinces emptied in one commit and filled again in the next, 24 changes that
nobody made. A hand that stays still changes nothing the camera can tell; the regions under it
are counted again once it has gone (:mod:`vision.touched` sees their pixels change).

Such a region need not be hidden in every frame of the run: one that at most half of the run's
frames could see is unseen too. The first still frame of a hand coming to rest may show a region
at its edge as seen, with a piece under a finger missed, and the next frames mark it hidden. In
session 33, with the map's two specks of Britannia given away, the pieces of the tests' easy
table lay a little otherwise, and a hand resting there had one of Sardinia's two legionaries
committed off the board on that one reading.

When the fused board holds the committed counts but the camera sees it otherwise (a hand came to
rest over some regions, or left them), no move was made and nothing is committed; the committed
state takes the new marks all the same and is offered as ``resighted``, so that the dashboard
stops showing a region as hidden (and asking the players to check it) once the hand has gone,
instead of until the next move.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from tracker.state import ObservedState

WINDOW = 9


@dataclass
class Fusion:
    agree: int = 3
    committed: ObservedState | None = None
    #: set by :meth:`offer` when the committed counts stand but their unseen marks changed
    resighted: ObservedState | None = None
    _run: list[ObservedState] = field(default_factory=list)

    def reset_run(self) -> None:
        self._run = []

    @property
    def run_length(self) -> int:
        """How many still frames the current run holds; 0 when a run begins."""
        return len(self._run)

    @property
    def settled(self) -> bool:
        """The run has had its last say (``max(agree, WINDOW)`` frames offered): no further frame
        of it is looked at, so none need be read."""
        return len(self._run) >= max(self.agree, WINDOW)

    def offer(self, state: ObservedState) -> ObservedState | None:
        """A still frame's count; returns the fused state when it becomes committed (else None).

        A fused board with the committed counts and other unseen marks replaces the committed
        state and is left in ``resighted`` (a move it is not: None is returned)."""
        self.resighted = None
        self._run.append(state)
        # decide once the run is long enough, and once more when a full window has been seen;
        # in between, only a change that enough frames back (see _backed): flicker in one region
        # must not commit a new board every frame
        decide = len(self._run) in (self.agree, max(self.agree, WINDOW))
        if not decide and not self.agree < len(self._run) < WINDOW:
            return None
        self._run = self._run[-WINDOW:]
        fused, support = self._fuse()
        if self.committed is not None and self.committed.same_counts(fused):
            if decide and fused.unseen != self.committed.unseen:
                self.committed = self.resighted = fused
            return None
        if not decide and not self._backed(fused, support):
            return None
        self.committed = fused
        return fused

    def _backed(self, fused: ObservedState, support: dict[str, tuple[int, int]]) -> bool:
        """Whether every region ``fused`` changes since the committed state reads so in at least
        ``agree`` of the run's frames, and in most of those that saw it (``support``, from
        :meth:`_fuse`): a change the run has made plain before its full window. (The run's first
        decision, at ``agree`` frames, has committed a state by then.)

        Why: a region read otherwise in the first ``agree`` frames of a run waited for the full
        window. In a rendered hard game on the real print, a red trireme put in the Aegeum was
        read in frames 2, 4 and 5 of the run and missed in frames 1 and 3: the move was committed
        at the run's ninth frame, 0.75 s after the hand left, against the 0.5 s target. Backed by
        three frames of five it is committed at the fifth (0.42 s). A region that flickers could
        already commit its other reading at the run's third frame, on two frames of three; in
        between, a change needs more than that. On twenty rendered game videos (session 60,
        ``docs/measured.md``) this added no phantom change and changed no other figure."""
        for rid in fused.changed_regions(self.committed):
            votes, seen = support[rid]
            if votes < self.agree or 2 * votes <= seen:
                return False
        return True

    def _fuse(self) -> tuple[ObservedState, dict[str, tuple[int, int]]]:
        """The fused board, and for each region the run saw enough of, how many frames read it as
        fused and how many saw it."""
        latest = self._run[-1]
        board = latest.board
        before = self.committed.to_dict()["regions"] if self.committed is not None else {}
        regions, confidence, unseen, support, lying = {}, {}, set(), {}, []
        for rid in board.regions:
            # newest first, so that in a tie the latest reading wins: the counter's later readings
            # of a still run average two passes (DensityCounter.detect_in_run), its first one only one
            votes = Counter(json.dumps(s.regions.get(rid, {}), sort_keys=True) for s in reversed(self._run)
                            if rid not in s.unseen)
            if 2 * sum(votes.values()) <= len(self._run):
                unseen.add(rid)
                if before.get(rid):
                    regions[rid] = before[rid]
                continue
            best, n = votes.most_common(1)[0]
            content = json.loads(best)
            if content:
                regions[rid] = content
            seen = [s.confidence_of(rid) for s in self._run if rid not in s.unseen]
            confidence[rid] = round(n / len(seen) * (sum(seen) / len(seen)), 3)
            support[rid] = (n, len(seen))
            # a piece seen lying in half the frames that saw the region or more (vision.lying)
            if 2 * sum(rid in s.lying for s in self._run if rid not in s.unseen) >= len(seen):
                lying.append(rid)
        fused = ObservedState.from_dict({"board": board.id, "regions": regions,
                                         "confidence": {r: c for r, c in confidence.items() if c < 1.0},
                                         "unseen": sorted(unseen), "lying": lying}, board)
        return fused, support
