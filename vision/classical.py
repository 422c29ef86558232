"""The classical detector: difference against the empty board, then colour.

The baseline beside the trained detector, and the one that needs no model: the frame is
rectified to board units with the calibrated pose, white-balanced, compared with the empty
board the camera saw at calibration, and every changed pixel that is not a shadow is given
the nearest army colour. Each connected blob of one colour is a pile of pieces; its area over
the area of one piece (learned from the score markers) says how many.

Known limits (measured by ``augur bench vision``): it cannot tell a vexillum from a few
legionaries, piles of touching pieces of one colour are counted by area, and a piece leaning
over a border at a steep camera angle may be given to the neighbouring region.
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration.profile import WORK_SCALE, CalibrationProfile, white_balance
from tracker.pieces import ARMY_COLOURS, CENTRE, LEGIONARY, NEUTRAL, TRIREME
from vision.geometry import BoardGeometry
from vision.light import LightMatch
from vision.records import Detections

#: A pixel has changed when its Lab distance from the empty board exceeds this.
CHANGE_THRESHOLD = 24.0
#: How far (Lab) a changed pixel may be from every piece colour and still be counted.
MAX_COLOUR_DISTANCE = 60.0
#: Area of one piece relative to one legionary, as seen from above (measured on renders).
AREA_RATIO = {LEGIONARY: 1.0, TRIREME: 1.25, CENTRE: 3.0}
MIN_BLOB = 0.35
#: A changed blob that matches no piece colour and is this many legionaries large is an object
#: lying on the board; a region it covers this much of is marked unseen.
OCCLUDER_UNITS = 2.5 * AREA_RATIO[CENTRE]
UNSEEN_COVER = 0.3


class ClassicalDetector:
    """Difference-and-colour detector working in the rectified board frame."""

    name = "classical"

    def __init__(self, profile: CalibrationProfile, geo: BoardGeometry | None = None):
        self.profile = profile
        self.geo = geo or profile.geometry
        ref = white_balance(profile.reference, profile.gains)
        self.light = LightMatch(ref)        # the light drifts over an evening (vision.light)
        self.ref_lab = cv2.cvtColor(ref, cv2.COLOR_BGR2LAB).astype(np.float32)
        self.names = list(ARMY_COLOURS) + [NEUTRAL]
        self.centroids = np.float32([profile.colours_lab[c] for c in self.names])
        labels = self.geo.labels
        if labels.shape != self.ref_lab.shape[:2]:        # the reference is kept at WORK_SCALE
            labels = cv2.resize(labels, (self.ref_lab.shape[1], self.ref_lab.shape[0]), interpolation=cv2.INTER_NEAREST)
        self.labels = labels
        self.on_map = labels > 0
        self.sea_ids = np.array([i + 1 for i, r in enumerate(self.geo.region_ids) if self.geo.board.is_sea(r)])
        # regions the camera's frame cuts off are unseen (see vision.density's out_of_view)
        self.out_of_view = frozenset(profile.out_of_view(UNSEEN_COVER))

    def foreground(self, rect: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Changed, non-shadow pixels on the map, and the Lab image."""
        img = self.light(white_balance(rect, self.profile.gains))
        lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
        diff = np.linalg.norm(lab - self.ref_lab, axis=2)
        darker = lab[..., 0] / np.maximum(self.ref_lab[..., 0], 1.0)
        chroma_shift = np.hypot(lab[..., 1] - self.ref_lab[..., 1], lab[..., 2] - self.ref_lab[..., 2])
        shadow = (darker > 0.35) & (darker < 0.92) & (chroma_shift < 14)
        fg = ((diff > CHANGE_THRESHOLD) & ~shadow & self.on_map).astype(np.uint8)
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        return fg, lab

    def detect(self, image: np.ndarray) -> Detections:
        rect = self.profile.pose.rectify(self.profile.undistort(image), self.geo, WORK_SCALE)
        fg, lab = self.foreground(rect)
        ys, xs = np.nonzero(fg)
        if not len(xs):
            return Detections.empty(self.name)
        px = lab[ys, xs]
        d = np.linalg.norm(px[:, None, :] - self.centroids[None], axis=2)
        cls = d.argmin(axis=1)
        ok = d[np.arange(len(cls)), cls] < MAX_COLOUR_DISTANCE
        colour_img = np.full(fg.shape, -1, np.int16)
        colour_img[ys[ok], xs[ok]] = cls[ok]
        unit = self.profile.legionary_area * WORK_SCALE ** 2
        # objects: changed pixels of no piece colour, or of the neutral (ivory) colour in blobs far
        # bigger than a centre (a card, a cup)
        neutral = self.names.index(NEUTRAL)
        maybe = ~ok | (cls == neutral)
        unseen = self.unseen_regions(ys[maybe], xs[maybe], fg.shape, unit) | self.out_of_view
        foot, kinds, colours, scores = [], [], [], []
        for ci, colour in enumerate(self.names):
            mask = (colour_img == ci).astype(np.uint8)
            if not mask.any():
                continue
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
            n, comp, stats, cent = cv2.connectedComponentsWithStats(mask)
            for c in range(1, n):
                area = stats[c, cv2.CC_STAT_AREA]
                cx, cy = cent[c]
                xi, yi = int(round(cx)), int(round(cy))     # the same rounding as region lookup
                if not (0 <= xi < self.labels.shape[1] and 0 <= yi < self.labels.shape[0]):
                    continue
                region_val = self.labels[yi, xi]
                if region_val == 0:
                    continue
                at_sea = region_val in self.sea_ids
                kind = CENTRE if colour == NEUTRAL else (TRIREME if at_sea else LEGIONARY)
                if colour == NEUTRAL and at_sea:
                    continue
                k = area / (unit * AREA_RATIO[kind])
                if k < MIN_BLOB:
                    continue
                count = 1 if kind == CENTRE else max(1, int(round(k)))
                conf = float(np.clip(1 - 2 * abs(k - round(k)), 0.05, 1.0)) if kind != CENTRE else 0.9
                for _ in range(count):
                    foot.append((cx / WORK_SCALE, cy / WORK_SCALE))
                    kinds.append(kind)
                    colours.append(colour)
                    scores.append(conf)
        if not kinds:
            return Detections.empty(self.name, unseen)
        return Detections(np.array(foot, float), tuple(kinds), tuple(colours), np.array(scores, float),
                          np.full((len(kinds), 4), np.nan), self.name, unseen)

    def unseen_regions(self, ys: np.ndarray, xs: np.ndarray, shape: tuple[int, int], unit: float) -> frozenset[str]:
        """Regions largely covered by a changed blob of no piece colour (a cup, a card, dice...)."""
        if not len(xs):
            return frozenset()
        other = np.zeros(shape, np.uint8)
        other[ys, xs] = 1
        other = cv2.morphologyEx(other, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        n, comp, stats, _ = cv2.connectedComponentsWithStats(other)
        big = [c for c in range(1, n) if stats[c, cv2.CC_STAT_AREA] > OCCLUDER_UNITS * unit]
        if not big:
            return frozenset()
        covered = np.isin(comp, big)
        hidden = np.bincount(self.labels[covered].ravel(), minlength=len(self.geo.region_ids) + 1)
        total = np.bincount(self.labels.ravel(), minlength=len(self.geo.region_ids) + 1)
        return frozenset(self.geo.region_ids[i - 1] for i in range(1, len(total))
                         if total[i] and hidden[i] / total[i] > UNSEEN_COVER)
