"""Motion and occlusion gating: is this frame still, with nothing over the board?

Counting a frame with a hand in it gives nonsense, and camera-chess users' first complaint is
a tracker that commits half-made moves. A frame passes the gate only when (1) it differs
little from the previous frame inside the board (no motion) and (2) no large changed blob
covers the board (no hand, arm or card), measured at a small scale so gating runs at well
over 30 frames a second.

The comparison is with the last still frame, not the empty board: a pile of pieces that was
there before is no occluder, a new arm is. When the scene has not moved for a while but still
differs a lot (the first frame of a game in progress, say), it is accepted as the new still
table.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.profile import CalibrationProfile
from vision.geometry import BoardGeometry

GATE_SCALE = 0.2            # pixels per board unit for gating
MOTION_THRESHOLD = 18       # grey levels
MOTION_FRACTION = 0.002     # of the board
OCCLUDER_FRACTION = 0.003   # one new blob this large (of the board) is a hand, an arm or a card; a
                            # placed reinforcement is about a tenth of that
SETTLE_FRAMES = 16          # a scene motionless this long (about 1.3 s at 12 fps) is accepted as the
                            # new still table even if it differs a lot from the last one


@dataclass(frozen=True)
class GateResult:
    still: bool
    motion: float          # fraction of the board that moved since the last frame
    occluder: float        # fraction of the board under the largest changed blob
    reason: str = ""


class Gate:
    def __init__(self, profile: CalibrationProfile, geo: BoardGeometry | None = None):
        self.geo = geo or profile.geometry
        self.size = (int(self.geo.size[0] * GATE_SCALE), int(self.geo.size[1] * GATE_SCALE))
        S = np.diag([GATE_SCALE, GATE_SCALE, 1.0])
        self.M = S @ np.linalg.inv(profile.H)
        self.ref: np.ndarray | None = None      # the last still frame; the first frame starts it
        self.prev: np.ndarray | None = None
        self.static_run = 0

    def check(self, image: np.ndarray) -> GateResult:
        view = cv2.warpPerspective(image, self.M, self.size, flags=cv2.INTER_AREA)
        gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY).astype(np.int16)
        area = gray.size
        if self.prev is None:
            self.prev = self.ref = gray
            return GateResult(False, 0.0, 0.0, "first frame")
        motion = float((np.abs(gray - self.prev) > MOTION_THRESHOLD).sum() / area)
        self.prev = gray
        self.static_run = self.static_run + 1 if motion <= MOTION_FRACTION else 0
        changed = (np.abs(gray - self.ref) > 40).astype(np.uint8)
        changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        n, _, stats, _ = cv2.connectedComponentsWithStats(changed)
        biggest = float(stats[1:, cv2.CC_STAT_AREA].max() / area) if n > 1 else 0.0
        if motion > MOTION_FRACTION:
            return GateResult(False, motion, biggest, "motion")
        if biggest > OCCLUDER_FRACTION and self.static_run < SETTLE_FRAMES:
            return GateResult(False, motion, biggest, "something covers the board")
        self.ref = gray
        return GateResult(True, motion, biggest)
