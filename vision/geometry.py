"""Board geometry: where each region lies on the physical board, in board units.

Loaded from the committed ``vision/data/<board>_regions.png`` (label image: pixel value
``i + 1`` is region ``i`` of the board topology, 0 is outside the map) and
``<board>_geometry.json`` (board size, label points, score-track boxes, region outlines).
Those files are made by :mod:`calibration.region_map` from the shared reference drawing and
photo; the renderer, the vision pipeline and the dashboard all read them from here.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path

import cv2
import numpy as np

from tracker.board import Board, load_board
from tracker.errors import BoardError

DATA_DIR = Path(__file__).resolve().parent / "data"

#: How far (board units) from its own coast a province's piece may stand at sea and still be
#: counted in that province: about two legionary bases. A small island (Corsica holds three or
#: four legionaries) cannot hold the pile of a crowded turn, and players stand the rest on the
#: sea around it; nothing else puts a legionary, a vexillum or a centre at sea.
SPILL_REACH = 36.0
#: A province's piece read on the sea this much farther out than SPILL_REACH still counts for
#: it: a piece's footprint is read from its image a few units off (the pose, the lens, the
#: summit's place on a blurred figure), and a legionary that players stood two bases off a small
#: island's coast was read 0.7 units past the reach and dropped as impossible (the demo's
#: Baleares, read 2 instead of 3 for the whole game).
SPILL_SLACK = 8.0


@dataclass(frozen=True)
class BoardGeometry:
    """Region lookup and drawing data for one board, in board units (the board is 1000 tall)."""

    board: Board
    size: tuple[int, int]                      # width, height in board units
    labels: np.ndarray                         # uint8 label image, size[1] x size[0]
    region_ids: tuple[str, ...]                # index i -> region id (label value i + 1)
    label_points: dict[str, tuple[float, float]]
    track_boxes: tuple[tuple[float, float, float, float], ...]
    map_quad: tuple[tuple[float, float], ...]
    polygons: dict[str, list[list[list[int]]]]

    @property
    def track_top(self) -> float:
        """Where the score track's boxes begin (board units down): the map lies above."""
        return min((box[1] for box in self.track_boxes), default=float(self.size[1]))

    def region_at(self, x: float, y: float) -> str | None:
        """The region under a board point, or None off the map (frame, track, outside the empire)."""
        xi, yi = int(round(x)), int(round(y))
        if not (0 <= xi < self.size[0] and 0 <= yi < self.size[1]):
            return None
        v = int(self.labels[yi, xi])
        return self.region_ids[v - 1] if v else None

    def regions_at(self, points: np.ndarray, land: bool = False) -> list[str | None]:
        """Vectorised :meth:`region_at` for an N x 2 array of board points; with ``land``, the
        region a province's piece standing there counts towards (:attr:`land_labels`)."""
        pts = np.rint(np.asarray(points, np.float64)).astype(np.int64)
        ok = (pts[:, 0] >= 0) & (pts[:, 0] < self.size[0]) & (pts[:, 1] >= 0) & (pts[:, 1] < self.size[1])
        vals = np.zeros(len(pts), np.int64)
        vals[ok] = (self.land_labels if land else self.labels)[pts[ok, 1], pts[ok, 0]]
        return [self.region_ids[v - 1] if v else None for v in vals]

    @cached_property
    def land_labels(self) -> np.ndarray:
        """The label image as a province's pieces are counted: every sea point within
        SPILL_REACH + SPILL_SLACK of a province's coast takes the label of the nearest province
        (a pile spilled from a small island onto the sea around it), every other point keeps its own."""
        return self._spilled_labels(SPILL_REACH + SPILL_SLACK)

    @cached_property
    def spill_labels(self) -> np.ndarray:
        """The same within SPILL_REACH: where players stand a province's spilled pieces (the
        renderer places them there)."""
        return self._spilled_labels(SPILL_REACH)

    def _spilled_labels(self, reach: float) -> np.ndarray:
        province = np.array([False] + [self.board.is_province(r) for r in self.region_ids])
        sea = np.array([False] + [self.board.is_sea(r) for r in self.region_ids])
        land = province[self.labels]
        if not land.any():
            return self.labels
        dist, nearest = cv2.distanceTransformWithLabels(np.where(land, 0, 255).astype(np.uint8), cv2.DIST_L2, 5,
                                                        labelType=cv2.DIST_LABEL_PIXEL)
        lut = np.zeros(int(nearest.max()) + 1, self.labels.dtype)
        lut[nearest[land]] = self.labels[land]
        spilled = sea[self.labels] & (dist <= reach)
        return np.where(spilled, lut[nearest], self.labels)

    def mask(self, region: str) -> np.ndarray:
        return self.labels == (self.region_ids.index(region) + 1)

    def track_box_centre(self, box: int) -> tuple[float, float]:
        x0, y0, x1, y1 = self.track_boxes[box]
        return (x0 + x1) / 2, (y0 + y1) / 2

    def displaced(self, field) -> BoardGeometry:
        """This map as this table's board shows it where the print bends away from the pose: the
        view's point ``b`` shows the map's point ``b + field.at(b)`` (``field`` is a
        :class:`calibration.surface.SurfaceField`, fitted at calibration)."""
        fx, fy = field.dense(self.size)
        gx, gy = np.meshgrid(np.arange(self.size[0], dtype=np.float32), np.arange(self.size[1], dtype=np.float32))
        labels = cv2.remap(self.labels, gx + fx, gy + fy, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT,
                           borderValue=0)
        return self._moved(labels, lambda pts: _moved_by(field.at, pts))

    def _moved(self, labels: np.ndarray, move) -> BoardGeometry:
        """This map with ``labels`` in place of its own, and its points, boxes and outlines moved by
        ``move`` (N x 2 board points -> N x 2)."""

        def box(b) -> tuple[float, float, float, float]:
            c = move([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]])
            return (float(c[:, 0].min()), float(c[:, 1].min()), float(c[:, 0].max()), float(c[:, 1].max()))

        return replace(
            self, labels=labels,
            label_points={k: tuple(float(v) for v in move([p])[0]) for k, p in self.label_points.items()},
            track_boxes=tuple(box(b) for b in self.track_boxes),
            map_quad=tuple(tuple(float(v) for v in p) for p in move(self.map_quad)),
            polygons={r: [np.rint(move(ring)).astype(int).tolist() for ring in rings]
                      for r, rings in self.polygons.items()})

    def warped(self, M: np.ndarray) -> BoardGeometry:
        """This map moved onto a copy of the board whose print differs: the map's point ``m`` lies
        at ``M @ m`` of that board (:mod:`calibration.map_fit` fits ``M`` from the user's anchors)."""
        M = np.asarray(M, np.float64)

        def move(pts) -> np.ndarray:
            return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), M).reshape(-1, 2)

        labels = cv2.warpPerspective(self.labels, M, self.size, flags=cv2.INTER_NEAREST,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        return self._moved(labels, move)


def border_mask(labels: np.ndarray) -> np.ndarray:
    """The pixels of a label image whose label differs from the pixel's to their left or above:
    every border between two labels, one pixel wide (on its right or lower side)."""
    edge = np.zeros(labels.shape, bool)
    edge[:, 1:] |= labels[:, 1:] != labels[:, :-1]
    edge[1:, :] |= labels[1:, :] != labels[:-1, :]
    return edge


def _moved_by(shift_at, pts) -> np.ndarray:
    """Where map points (N x 2) appear once the map is displaced by ``shift_at``: the point ``b``
    with ``b + shift_at(b) = m``, by fixed-point steps (the shifts are small and smooth)."""
    m = np.asarray(pts, np.float64).reshape(-1, 2)
    b = m - shift_at(m)
    for _ in range(2):
        b = m - shift_at(b)
    return b


def load_geometry(board_id: str = "spqrisiko") -> BoardGeometry:
    """The committed geometry of a board, loaded once: every caller gets the same object."""
    return _load_geometry(board_id)


@lru_cache(maxsize=None)
def _load_geometry(board_id: str) -> BoardGeometry:
    png = DATA_DIR / f"{board_id}_regions.png"
    js = DATA_DIR / f"{board_id}_geometry.json"
    if not png.is_file() or not js.is_file():
        raise BoardError(f"no geometry for board '{board_id}' (expected {png.name} and {js.name} in {DATA_DIR})")
    meta = json.loads(js.read_text(encoding="utf-8"))
    labels = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    board = load_board(board_id)
    if labels is None or tuple(labels.shape[::-1]) != tuple(meta["size"]):
        raise BoardError(f"{png.name} is unreadable or does not match {js.name}")
    if list(meta["regions"]) != list(board.regions):
        raise BoardError(f"{js.name} was made for another version of the board topology; rebuild it")
    return BoardGeometry(
        board=board,
        size=(int(meta["size"][0]), int(meta["size"][1])),
        labels=labels,
        region_ids=tuple(meta["regions"]),
        label_points={k: (float(v[0]), float(v[1])) for k, v in meta["label_points"].items()},
        track_boxes=tuple(tuple(b) for b in meta["track_boxes"]),
        map_quad=tuple(tuple(p) for p in meta["map_quad"]),
        polygons=meta["polygons"],
    )
