"""The records that flow between the vision stages (see DESIGN: frame -> pose -> detections -> state)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np


#: The counting network reading each frame twice, as it is and mirrored (DensityCounter.run_network).
DENSITY_MIRRORED = "density-mirrored"
#: The detectors a user can choose (``auto`` picks the best one shipped); see vision.pipeline.make_detector.
DETECTORS = ("auto", "density", DENSITY_MIRRORED, "yolo", "classical")


@dataclass(frozen=True)
class Detections:
    """Pieces found in one frame, whatever the detector: one row per piece.

    ``footprints`` are board units (where the piece stands); ``boxes`` image pixels when the
    detector has them (NaN otherwise); ``kinds``/``colours`` use the names of
    :mod:`tracker.pieces`; ``scores`` are 0..1.
    """

    footprints: np.ndarray                  # N x 2 board units
    kinds: tuple[str, ...]
    colours: tuple[str, ...]
    scores: np.ndarray                      # N
    boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))   # N x 4 (x0, y0, x1, y1), image px
    source: str = ""
    #: regions the detector could not see in this frame (under a cup, a card, a sleeve)
    unseen: frozenset[str] = frozenset()
    #: the detector's own probability that each seen region's count is right, empty regions
    #: included (see :mod:`vision.confidence`); without it a region's confidence is its pieces' mean score
    region_confidence: Mapping[str, float] = field(default_factory=dict)
    #: seen regions where the detector sees a piece lying knocked over (:mod:`vision.lying`): the
    #: players should stand it up, and its count is in doubt until they do
    lying: frozenset[str] = frozenset()

    def __len__(self) -> int:
        return len(self.kinds)

    @classmethod
    def empty(cls, source: str = "", unseen: frozenset[str] = frozenset()) -> "Detections":
        return cls(np.zeros((0, 2)), (), (), np.zeros(0), np.zeros((0, 4)), source, unseen)
