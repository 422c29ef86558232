"""Where the printed map lies on this table, near enough to the pose: a smooth local correction.

The board's pose (:mod:`calibration.localise`) is one homography for a flat board seen through a
lens described by one coefficient. Three things bend the print away from it, by a few board
units (a legionary's base is 16.5 across, and a piece's centre may stand 4 units inside a
border):

- a board stored folded in four does not lie flat: its creases rise a few millimetres, and a
  tilted camera sees a raised point displaced (:mod:`vision.synth.relief`);
- the lens coefficient, picked from a list, and the pose, refined on a view at a quarter of a
  pixel per board unit, leave a residual that grows towards the edges of a wide, tilted view;
- the committed region map was drawn from a flat-colour drawing registered to one photo by a
  homography, and its borders differ from the printed ones by several units in places.

At calibration the empty board, rectified with the pose, is compared with the board art patch
by patch: each patch's shift is found by ECC (translation only; invariant to the patch's
brightness and contrast), patches that match poorly or disagree with their neighbours are
dropped, and the holes are filled from the neighbours. The result is a grid of shifts, one every
:data:`STEP` board units: the rectified view's point ``b`` shows the art's point ``b + shift(b)``.
The calibration profile keeps it, and :meth:`vision.geometry.BoardGeometry.displaced` moves the
region map by it, so every region lookup at run time goes through it.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: Comparison pixels per board unit.
SCALE = 0.5
#: A patch is this many comparison pixels square (128 board units: a few provinces' borders)...
PATCH = 64
#: ...and patches start every this many (so one every 64 board units: :data:`STEP`).
STRIDE = 32
STEP = STRIDE / SCALE
#: A patch's shift is kept when its correlation with the art, once aligned, reaches this...
MIN_CC = 0.6
#: ...and it moves the art by at most this many board units (a crease risen 10 mm, seen at 45°,
#: moves the print about 12 units, and a pose refined on a coarse view a few more).
MAX_SHIFT = 24.0
#: A kept shift that differs by more than this (board units) from the median of its neighbours is
#: dropped: a patch that locked onto a repeating pattern, a die or a score marker.
NEIGHBOUR_GAP = 3.0
#: Fewer patches kept than this share of them, and there is no field: the pose stands alone.
MIN_KEPT = 0.3
#: A patch with less contrast than this (grey levels, in both views) shows nothing to align.
MIN_CONTRAST = 2.0


@dataclass(frozen=True)
class SurfaceField:
    """Shifts on a regular grid of board points: node ``(i, j)`` is at ``origin + (j, i) * step``."""

    origin: tuple[float, float]
    step: float
    shifts: np.ndarray          # rows x cols x 2, float32, board units

    def at(self, pts: np.ndarray) -> np.ndarray:
        """The shift at board points (N x 2), bilinear between nodes, the edge nodes' beyond them."""
        pts = np.asarray(pts, np.float64).reshape(-1, 2)
        rows, cols = self.shifts.shape[:2]
        gx = np.clip((pts[:, 0] - self.origin[0]) / self.step, 0, cols - 1)
        gy = np.clip((pts[:, 1] - self.origin[1]) / self.step, 0, rows - 1)
        x0, y0 = np.minimum(gx.astype(int), cols - 2), np.minimum(gy.astype(int), rows - 2)     # at least 2 x 2 nodes
        x1, y1 = x0 + 1, y0 + 1
        fx, fy = (gx - x0)[:, None], (gy - y0)[:, None]
        s = self.shifts.astype(np.float64)
        return ((1 - fy) * ((1 - fx) * s[y0, x0] + fx * s[y0, x1]) + fy * ((1 - fx) * s[y1, x0] + fx * s[y1, x1]))

    def dense(self, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """The shift at every board unit of a ``size`` (width, height) board: two float32 maps."""
        ox, oy = self.origin
        M = np.float32([[1 / self.step, 0, -ox / self.step], [0, 1 / self.step, -oy / self.step]])
        flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        return tuple(cv2.warpAffine(np.ascontiguousarray(self.shifts[..., c]), M, tuple(size), flags=flags,
                                    borderMode=cv2.BORDER_REPLICATE) for c in range(2))

    @property
    def largest(self) -> float:
        return float(np.hypot(self.shifts[..., 0], self.shifts[..., 1]).max())

    def to_dict(self) -> dict:
        return {"origin": [float(v) for v in self.origin], "step": float(self.step),
                "shifts": np.round(self.shifts.astype(np.float64), 2).tolist()}

    @classmethod
    def from_dict(cls, data) -> "SurfaceField":
        """Raises ValueError on anything that is not a field this module could have made."""
        try:
            origin = tuple(float(v) for v in data["origin"])
            step = float(data["step"])
            shifts = np.array(data["shifts"], np.float32)
        except (KeyError, TypeError, ValueError):
            raise ValueError("its surface field is not {origin, step, shifts}") from None
        if len(origin) != 2 or not step > 0 or shifts.ndim != 3 or shifts.shape[2] != 2 or min(shifts.shape[:2]) < 2 \
                or not np.isfinite(shifts).all() or not np.isfinite(origin).all():
            raise ValueError("its surface field is malformed")
        field = cls(origin, step, shifts)
        if field.largest > MAX_SHIFT + 0.01:
            raise ValueError(f"its surface field moves the map by {field.largest:.0f} board units (at most "
                             f"{MAX_SHIFT:.0f})")
        return field


def _comparison_view(image: np.ndarray, pixels_per_unit: float, size: tuple[int, int]) -> np.ndarray:
    """Grey, at :data:`SCALE` pixels per board unit: comparison pixel ``j`` shows board point ``j / SCALE``."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    ratio = pixels_per_unit / SCALE
    grey = cv2.GaussianBlur(grey, (0, 0), 0.5 * ratio)         # no aliasing when shrunk
    M = np.float32([[ratio, 0, 0], [0, ratio, 0]])
    return cv2.warpAffine(grey, M, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def fit_surface(rectified: np.ndarray, art: np.ndarray) -> SurfaceField | None:
    """The field that moves the art onto the ``rectified`` empty board (one pixel per board unit,
    as the calibration profile keeps it), or None when too little of the board could be matched
    (then the pose is used alone, as it always was)."""
    h_board, w_board = rectified.shape[:2]
    size = (int(round(w_board * SCALE)), int(round(h_board * SCALE)))
    view = _comparison_view(rectified, 1.0, size)
    # the art's pixel a shows board point a * w_board / width, as calibration.localise reads it
    drawn = _comparison_view(art, art.shape[1] / w_board, size)
    ys = range(0, size[1] - PATCH + 1, STRIDE)
    xs = range(0, size[0] - PATCH + 1, STRIDE)
    shifts = np.full((len(ys), len(xs), 2), np.nan, np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4)
    for i, y in enumerate(ys):
        for j, x in enumerate(xs):
            a = cv2.GaussianBlur(view[y:y + PATCH, x:x + PATCH], (0, 0), 1.0)
            b = cv2.GaussianBlur(drawn[y:y + PATCH, x:x + PATCH], (0, 0), 1.0)
            if a.std() < MIN_CONTRAST or b.std() < MIN_CONTRAST:
                continue
            try:
                cc, W = cv2.findTransformECC(a, b, np.eye(2, 3, dtype=np.float32), cv2.MOTION_TRANSLATION,
                                             criteria, None, 1)
            except cv2.error:           # did not converge: nothing to align
                continue
            d = W[:, 2] / SCALE
            if cc >= MIN_CC and np.hypot(*d) <= MAX_SHIFT:
                shifts[i, j] = d
    kept = _drop_outliers(shifts)
    if kept.mean() < MIN_KEPT:
        return None
    origin = ((PATCH / 2 - 0.5) / SCALE,) * 2
    # to the hundredth of a unit, as the profile writes it: a loaded profile reads the same map
    return SurfaceField(origin, STEP, np.round(_fill(shifts, kept), 2))


def _drop_outliers(shifts: np.ndarray) -> np.ndarray:
    """Which nodes keep their shift: found, and within NEIGHBOUR_GAP of their neighbours' median."""
    found = ~np.isnan(shifts[..., 0])
    if not found.any():
        return found
    pad = np.pad(shifts, ((1, 1), (1, 1), (0, 0)), constant_values=np.nan)
    rows, cols = shifts.shape[:2]
    around = np.stack([pad[1 + dy:1 + dy + rows, 1 + dx:1 + dx + cols] for dy in (-1, 0, 1) for dx in (-1, 0, 1)
                       if dy or dx])
    counted = (~np.isnan(around[..., 0])).sum(axis=0)
    median = np.zeros_like(shifts)
    some = counted > 0
    median[some] = np.nanmedian(around[:, some], axis=0)
    gap = np.hypot(*(shifts - median).transpose(2, 0, 1))
    return found & (~some | (gap <= NEIGHBOUR_GAP))


def _fill(shifts: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Every node not kept takes the mean of its kept (or already filled) neighbours, ring by ring."""
    out = np.where(kept[..., None], shifts, 0).astype(np.float32)
    have = kept.astype(np.float32)
    ones = np.ones((3, 3), np.float32)
    while have.min() == 0:
        total = np.stack([cv2.filter2D(out[..., c] * have, -1, ones, borderType=cv2.BORDER_CONSTANT)
                          for c in range(2)], axis=-1)
        count = cv2.filter2D(have, -1, ones, borderType=cv2.BORDER_CONSTANT)
        grow = (have == 0) & (count > 0)
        out[grow] = total[grow] / count[grow][:, None]
        have[grow] = 1
    return out
