"""Board art for the renderer: procedural (drawn from the region map) or a rectified photo.

The procedural art imitates the printed board: parchment-toned provinces with mottled
texture, pale blue mottled water, dark borders, dash-dot lines between sea areas, the red
frame, and the 41 score boxes (every fifth one yellow). It needs no photo, so the renderer,
the demo and the tests work anywhere. With a real empty-board photo, :func:`photo_art`
rectifies it to the board frame instead.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from vision.geometry import BoardGeometry, load_geometry

#: Texture pixels per board unit (the board is 1000 units tall).
ART_SCALE = 1.5
FRAME_RED = (38, 32, 150)     # BGR
WATER = (226, 206, 160)
TRACK_CREAM = (214, 226, 232)
TRACK_YELLOW = (110, 200, 230)
#: Muted print colours the provinces cycle through (BGR).
PROVINCE_TONES = [(60, 110, 150), (70, 140, 170), (80, 120, 110), (110, 140, 150), (60, 150, 190),
                  (90, 100, 140), (70, 130, 90), (120, 120, 160), (50, 120, 170), (100, 150, 170),
                  (80, 90, 120), (60, 140, 140)]


def _mottle(shape: tuple[int, int], rng: np.random.Generator, strength: float) -> np.ndarray:
    """Low-frequency multiplicative texture around 1.0 (printed card has a mottled finish)."""
    h, w = shape
    small = rng.normal(0, 1, (h // 24 + 2, w // 24 + 2)).astype(np.float32)
    big = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    fine = cv2.resize(rng.normal(0, 1, (h // 4 + 1, w // 4 + 1)).astype(np.float32), (w, h))
    return 1.0 + strength * (0.7 * big + 0.3 * fine)


@lru_cache(maxsize=4)
def procedural_art(board_id: str = "spqrisiko", scale: float = ART_SCALE, seed: int = 0) -> np.ndarray:
    """The board drawn from its committed geometry, ``scale`` texture pixels per board unit (BGR uint8)."""
    return draw_art(load_geometry(board_id), scale, seed)


def draw_art(geo: BoardGeometry, scale: float = ART_SCALE, seed: int = 0) -> np.ndarray:
    """The board drawn from ``geo``: the committed map, or one whose borders were moved to imitate
    a print that differs from it (the tests of :mod:`calibration.borders`)."""
    rng = np.random.default_rng(seed)
    w, h = int(round(geo.size[0] * scale)), int(round(geo.size[1] * scale))
    labels = cv2.resize(geo.labels, (w, h), interpolation=cv2.INTER_NEAREST)
    palette = np.zeros((len(geo.region_ids) + 1, 3), np.float32)
    palette[0] = (40, 40, 120)                              # outside the empire: dark red-brown
    for i, rid in enumerate(geo.region_ids, start=1):
        palette[i] = WATER if geo.board.is_sea(rid) else PROVINCE_TONES[i % len(PROVINCE_TONES)]
    art = palette[labels]
    art *= _mottle((h, w), rng, 0.06)[..., None]
    # borders: dark ink between provinces, a pale halo along coasts, dash-dot between seas
    sea_mask = np.isin(labels, [i + 1 for i, r in enumerate(geo.region_ids) if geo.board.is_sea(r)])
    grad = cv2.morphologyEx(labels, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
    land = (labels > 0) & ~sea_mask
    coast = grad & (cv2.dilate(land.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0) & \
        (cv2.dilate(sea_mask.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0)
    halo = (cv2.dilate(coast.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0) & sea_mask
    art[halo] = art[halo] * 0.6 + np.float32((240, 240, 235)) * 0.4
    ink = grad & ~(sea_mask & cv2.erode(sea_mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool))
    sea_border = grad & sea_mask & ~coast
    ys, xs = np.nonzero(sea_border)
    dash = ((xs + ys) // max(2, int(4 * scale))) % 3 != 2
    art[ys[dash], xs[dash]] = (90, 80, 70)
    art[ink & ~sea_border] = (30, 35, 40)
    # frame and score track
    frame = labels == 0
    frame_col = np.float32(FRAME_RED) * _mottle((h, w), rng, 0.05)[..., None]
    art[frame] = frame_col[frame]
    art = np.clip(art, 0, 255).astype(np.uint8)
    for k, (x0, y0, x1, y1) in enumerate(geo.track_boxes):
        colour = TRACK_YELLOW if k % 5 == 0 else TRACK_CREAM
        p0, p1 = (int(x0 * scale), int(y0 * scale)), (int(x1 * scale), int(y1 * scale))
        cv2.rectangle(art, p0, p1, colour, -1)
        cv2.rectangle(art, p0, p1, (60, 110, 170), max(1, int(scale)))
        cv2.putText(art, _roman(k), (p0[0], p0[1] - int(6 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.22 * scale,
                    (140, 200, 220), 1, cv2.LINE_AA)
    # names of the regions at their label points
    for rid, (x, y) in geo.label_points.items():
        name = geo.board.name(rid).upper()
        size = 0.32 * scale if geo.board.is_sea(rid) else 0.27 * scale
        (tw, th), _ = cv2.getTextSize(name, cv2.FONT_HERSHEY_TRIPLEX, size, 1)
        colour = (150, 120, 90) if geo.board.is_sea(rid) else (40, 45, 50)
        cv2.putText(art, name, (int(x * scale - tw / 2), int(y * scale + th / 2)), cv2.FONT_HERSHEY_TRIPLEX,
                    size, colour, 1, cv2.LINE_AA)
    return art


def photo_art(photo: np.ndarray, corners: np.ndarray, geo: BoardGeometry | None = None,
              scale: float = ART_SCALE) -> np.ndarray:
    """A real empty-board photo rectified to the board frame (corners TL, TR, BR, BL in the photo).
    Interpolated (``warpPerspective`` has no area mean: its ``INTER_AREA`` is ``INTER_LINEAR``, which
    this asked for until session 37, with the same pixels)."""
    geo = geo or load_geometry()
    w, h = int(round(geo.size[0] * scale)), int(round(geo.size[1] * scale))
    H = cv2.getPerspectiveTransform(np.float32(corners), np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    return cv2.warpPerspective(photo, H, (w, h), flags=cv2.INTER_LINEAR)


def print_art(photo_path, rotate: str = "none") -> np.ndarray:
    """The print of a real board, from a top-down photo of it empty (``rotate``: how to turn the
    photo north up; the shared reference photo needs "ccw"), rectified by its red frame: tables
    rendered on it show the real print's colours, texture, lettering and creases instead of the
    procedural art's. Raises :class:`calibration.region_map.RegionMapError` when the photo cannot
    be read or shows no board."""
    from pathlib import Path
    from calibration.region_map import load_north_up_photo, measure_board
    photo = load_north_up_photo(Path(photo_path), rotate)
    return photo_art(photo, measure_board(photo).corners)


def printed_map(art: np.ndarray, geo: BoardGeometry | None = None) -> BoardGeometry:
    """The region map as a board's print (``art``, rectified to the board frame as
    :func:`photo_art` gives it) has it: the committed map fitted to the print seen exactly from
    above, by the calibration's own fit (the surface field, then the borders traced on the printed
    lines; :mod:`calibration.surface`, :mod:`calibration.borders`).

    Tables rendered on a real print stand their pieces inside this map's regions, as players stand
    them inside the printed borders. The committed map was drawn from a flat-colour drawing, and on
    the shared photo's print its borders lie up to 40 board units from the printed ones (in the
    east): pieces placed by it stood on the print's Judea while the truth said Arabia, and a
    counter that read the print right was scored wrong. This map is the calibration's own answer
    on the easiest view there is, so a bench on it measures how well the calibration finds the
    same map from a table's camera, not whether the fit itself is right; that the fit follows
    the print is checked by eye on the overlay and by the tests of :mod:`calibration.borders`."""
    from calibration.borders import trace_borders, with_borders
    from calibration.surface import fit_surface
    geo = geo or load_geometry()
    top_down = cv2.resize(art, geo.size, interpolation=cv2.INTER_AREA)     # one pixel per board unit
    field = fit_surface(top_down, procedural_art(geo.board.id))
    fitted = geo if field is None else geo.displaced(field)
    return with_borders(fitted, trace_borders(top_down, fitted))


@dataclass(frozen=True)
class PrintedBoard:
    """A real board's print to render tables on (the training tables and the game bench):
    the photo rectified to the board frame (:func:`print_art`) and the region map fitted to it
    (:func:`printed_map`), inside whose regions the pieces stand."""
    art: np.ndarray
    geometry: BoardGeometry

    @classmethod
    def from_photo(cls, photo_path, rotate: str = "none") -> "PrintedBoard":
        """Read and fit the print of a top-down photo of an empty board (seconds: the map's fit)."""
        art = print_art(photo_path, rotate)
        return cls(art, printed_map(art))

    @staticmethod
    def parts(board_print: "PrintedBoard | None") -> tuple[np.ndarray | None, BoardGeometry | None]:
        """What the renderer takes (``art``, ``geometry``) for ``board_print``; (None, None) for
        the procedural art and the committed map."""
        return (board_print.art, board_print.geometry) if board_print is not None else (None, None)


def _roman(n: int) -> str:
    if n == 0:
        return ""
    out = ""
    for v, s in ((40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= v:
            out += s
            n -= v
    return out
