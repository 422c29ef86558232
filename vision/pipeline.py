"""The vision pipeline for one table: frame -> gate -> detect -> count -> fuse.

It keeps the last committed state through bad frames: an unreadable frame, a moving hand, or a
camera that stops delivering frames never replaces what was committed.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from calibration.profile import CalibrationProfile
from tracker.state import ObservedState
from vision.classical import ClassicalDetector
from vision.count import count
from vision.fuse import Fusion
from vision.gate import Gate, GateResult
from vision.geometry import load_geometry
from vision.records import Detections


@dataclass
class FrameResult:
    index: int
    gate: GateResult | None
    state: ObservedState | None = None          # the count of this frame, when it was still
    committed: ObservedState | None = None      # set when this frame committed a new state
    detections: Detections | None = None
    timings: dict[str, float] = field(default_factory=dict)
    error: str = ""


def make_detector(profile: CalibrationProfile, which: str = "auto"):
    """``yolo`` (the shipped ONNX model), ``classical``, or ``auto``: the model when it is there."""
    from vision.yolo import DEFAULT_MODEL, YoloDetector
    if which == "yolo" or (which == "auto" and DEFAULT_MODEL.is_file()):
        return YoloDetector(profile.pose, tuple(profile.image_size))
    if which not in ("auto", "classical"):
        raise ValueError(f"unknown detector '{which}' (auto, yolo, classical)")
    return ClassicalDetector(profile)


class Pipeline:
    def __init__(self, profile: CalibrationProfile, detector=None, agree: int = 3):
        self.profile = profile
        self.geo = load_geometry(profile.board_id)
        self.detector = detector or make_detector(profile)
        self.gate = Gate(profile, self.geo)
        self.fusion = Fusion(agree)
        self.index = 0

    @property
    def committed(self) -> ObservedState | None:
        return self.fusion.committed

    def process(self, image: np.ndarray | None) -> FrameResult:
        self.index += 1
        if image is None or getattr(image, "ndim", 0) != 3:
            self.fusion.reset_run()
            return FrameResult(self.index, None, error="unreadable frame")
        t0 = time.perf_counter()
        g = self.gate.check(image)
        t1 = time.perf_counter()
        res = FrameResult(self.index, g, timings={"gate": t1 - t0})
        if not g.still:
            self.fusion.reset_run()
            return res
        det = self.detector.detect(image)
        t2 = time.perf_counter()
        state = count(det, self.geo)
        t3 = time.perf_counter()
        res.detections, res.state = det, state
        res.committed = self.fusion.offer(state)
        res.timings.update({"detect": t2 - t1, "count": t3 - t2})
        return res
