"""A folded board that does not lie flat: the height of the board's surface above the table.

A Risiko board is sold folded in four. Unfolded on the table, its two creases keep some of the
fold: a crease either stands up as a ridge, the board resting on its outer edges, or lies on the
table while the panels' far edges lift. A few millimetres are common. Seen by a tilted camera, a
raised point of the art appears displaced from where the flat board's homography puts it, by
about its height times the tangent of the view's angle there, and a legionary's base is only
8 mm across. The renderer draws such a board (:func:`vision.synth.render.render`'s ``relief``),
so that the bench can measure what it costs and what the calibration wins back.

Heights are in board units (the board is 1000 units, about 50 cm, tall: :data:`UNITS_PER_MM`).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: Board units per millimetre of the physical board (1000 units span its 50 cm height).
UNITS_PER_MM = 2.0
#: The most the bench renders: a board that warped beyond this would not hold its pieces up.
MAX_RELIEF_MM = 20.0
#: A crease's rise is drawn between this share of the relief asked for and all of it.
LEAST_SHARE = 0.4
#: How a crease's bend is spread: 1 is two rigid panels hinged at the crease; larger keeps the
#: bend near the crease (a ridge) or near the edges (the panels' lifted ends).
BEND = (1.0, 3.0)


@dataclass(frozen=True)
class Crease:
    """One fold line: along ``x = position`` (``axis`` 0) or ``y = position`` (``axis`` 1)."""

    axis: int
    position: float
    rise: float         # board units, at the highest point of this crease's bend
    ridge: bool         # the crease stands up; otherwise it lies on the table and the far edges lift
    bend: float

    def height(self, coord: np.ndarray, length: float) -> np.ndarray:
        extent = np.where(coord < self.position, self.position, length - self.position)
        t = np.clip(np.abs(coord - self.position) / extent, 0.0, 1.0)
        return self.rise * ((1.0 - t) ** self.bend if self.ridge else t ** self.bend)


@dataclass(frozen=True)
class BoardRelief:
    """The surface of a board folded along its two middle lines (see the module doc)."""

    size: tuple[int, int]
    creases: tuple[Crease, ...]

    @classmethod
    def draw(cls, rng: np.random.Generator, size: tuple[int, int], mm: float) -> "BoardRelief":
        """Both creases, each rising ``LEAST_SHARE`` to 1 times ``mm``, ridge or lifted edges at random."""
        creases = tuple(Crease(axis, size[axis] / 2, float(rng.uniform(LEAST_SHARE, 1.0)) * mm * UNITS_PER_MM,
                               bool(rng.random() < 0.5), float(rng.uniform(*BEND))) for axis in (0, 1))
        return cls((int(size[0]), int(size[1])), creases)

    @property
    def highest(self) -> float:
        """An upper bound of the rise anywhere (board units)."""
        return float(sum(c.rise for c in self.creases))

    def height(self, x, y) -> np.ndarray:
        """The surface's height above the table at board points (board units, clipped to the board)."""
        x = np.clip(np.asarray(x, np.float64), 0, self.size[0])
        y = np.clip(np.asarray(y, np.float64), 0, self.size[1])
        out = np.zeros(np.broadcast(x, y).shape)
        for c in self.creases:
            out = out + c.height(x if c.axis == 0 else y, self.size[c.axis])
        return out

    def surface(self, pts: np.ndarray) -> np.ndarray:
        """Board points (N x 2) as world points (N x 3) on the surface (Z into the table: up is negative)."""
        pts = np.asarray(pts, np.float64)
        return np.column_stack([pts, -self.height(pts[:, 0], pts[:, 1])])


def image_to_board(cam, relief: BoardRelief, width: int, height: int, step: int = 4,
                   iterations: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """For each undistorted image pixel, the board point of the raised surface seen there
    (two float32 maps in board units, for ``cv2.remap``). Solved on a grid every ``step``
    pixels by fixed-point steps (the surface's displacement is small and smooth, so each step
    shrinks the error many times), then enlarged."""
    gw, gh = -(-width // step) + 1, -(-height // step) + 1
    gx, gy = np.meshgrid(np.arange(gw, dtype=np.float64) * step, np.arange(gh, dtype=np.float64) * step)
    pix = np.column_stack([gx.ravel(), gy.ravel()])
    Hinv = np.linalg.inv(cam.homography())

    def to_board(p: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(p.reshape(-1, 1, 2), Hinv).reshape(-1, 2)

    b = to_board(pix)
    for _ in range(iterations):
        raised, flat = relief.surface(b), np.column_stack([b, np.zeros(len(b))])
        b = to_board(pix - (cam.project(raised, distort=False) - cam.project(flat, distort=False)))
    # grid node j sits at pixel j * step: enlarge so that pixel x reads node x / step
    M = np.float32([[1 / step, 0, 0], [0, 1 / step, 0]])
    mx, my = (cv2.warpAffine(np.ascontiguousarray(b[:, c].reshape(gh, gw), np.float32), M, (width, height),
                             flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
              for c in range(2))
    return mx, my
