"""Temporal fusion: commit a board state only when several still frames agree.

The committed state changes only after ``agree`` consecutive gated-still frames count the same
board (CameraChessWeb's "a move must persist" rule); until then the last committed state
stands. A frame that does not pass the gate resets the run, so a state is committed at most
``agree`` frames after the last hand leaves.
"""
from __future__ import annotations

from dataclasses import dataclass

from tracker.state import ObservedState


@dataclass
class Fusion:
    agree: int = 3
    committed: ObservedState | None = None
    _candidate: dict | None = None
    _run: int = 0

    def reset_run(self) -> None:
        self._candidate, self._run = None, 0

    def offer(self, state: ObservedState) -> ObservedState | None:
        """A still frame's count; returns the state when it becomes committed (else None)."""
        key = state.to_dict()["regions"]
        if key == self._candidate:
            self._run += 1
        else:
            self._candidate, self._run = key, 1
        if self._run >= self.agree and (self.committed is None or self.committed.to_dict()["regions"] != key):
            self.committed = state
            return state
        return None
