"""Fitting the committed region map to the players' own copy of the board.

Prints differ: another edition, a map printed a little larger inside its red frame, a board
that was glued slightly askew. The pose found by :mod:`calibration.localise` puts the board's
frame right, and the committed map (``vision/data``) is then off by a few millimetres on such a
copy, enough to send the pieces near a border to the neighbour.

The user fixes it with a few anchors on the calibration preview (``augur calibrate`` writes it,
the dashboard's Set-up tab shows it): each anchor drags a point of the drawn map (``from``) to
where that point is printed on their board (``to``), both in pixels of the preview, which is
the undistorted calibration photo. The anchors give a map warp ``M`` in board units (one anchor
a shift, two a shift, turn and scale, three an affine map, four or more a homography), saved in
the calibration profile; :meth:`vision.geometry.BoardGeometry.warped` moves the map with it.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tracker.errors import AugurError, read_json

#: A fitted map may differ from the committed one by at most this much in scale (either way)...
MAX_SCALE_CHANGE = 0.15
#: ... and move no point of the board by more than this share of the board's height.
MAX_SHIFT = 0.08
#: Anchors that a warp cannot follow to within this many board units are contradictory.
MAX_RESIDUAL = 6.0


_DEGENERATE = "the anchors are degenerate (in a line or on top of each other)"


class MapFitError(AugurError):
    """The anchors cannot be read, or do not describe a plausible print of this board."""


def read_anchors(path: Path) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """``[{"from": [x, y], "to": [x, y]}, ...]`` in pixels of the calibration preview."""
    return parse_anchors(read_json(path, "anchor file", MapFitError), str(path))


def parse_anchors(data, where: str = "anchors") -> list[tuple[tuple[float, float], tuple[float, float]]]:
    if not isinstance(data, list) or not data:
        raise MapFitError(f"{where}: expected a list of {{\"from\": [x, y], \"to\": [x, y]}} anchors")
    out = []
    for i, a in enumerate(data):
        try:
            src, dst = a["from"], a["to"]
            pair = ((float(src[0]), float(src[1])), (float(dst[0]), float(dst[1])))
            if len(src) != 2 or len(dst) != 2 or not np.isfinite(pair).all():
                raise ValueError
        except (KeyError, TypeError, ValueError, IndexError):
            raise MapFitError(f"{where}: anchor {i + 1} is not {{\"from\": [x, y], \"to\": [x, y]}}") from None
        out.append(pair)
    return out


def fit_map_warp(H: np.ndarray, anchors, board_size: tuple[int, int], current: np.ndarray | None = None) -> np.ndarray:
    """The map warp (3 x 3, board units to board units) that the anchors ask for. ``H`` maps
    board units to preview pixels. When the preview already shows a fitted map (``current``),
    the anchors move that one further, and the result is the whole warp from the committed map."""
    anchors = list(anchors)
    if not anchors:
        raise MapFitError("no anchors given")
    Hinv = np.linalg.inv(np.asarray(H, np.float64))
    pix = np.float64([[a[0], a[1]] for a in anchors]).reshape(-1, 1, 2)      # from, to, from, to, ...
    src = cv2.perspectiveTransform(pix, Hinv).reshape(-1, 2, 2)
    m, b = src[:, 0, :], src[:, 1, :]          # map points and where they are on this board
    if len(m) == 1:
        M = np.eye(3)
        M[:2, 2] = b[0] - m[0]
    elif len(m) == 2:
        M = _similarity(m, b)
    elif len(m) == 3:
        X = np.hstack([m, np.ones((3, 1))])
        if abs(np.linalg.det(X)) < 1e-6:
            raise MapFitError(_DEGENERATE)
        M = np.vstack([np.linalg.solve(X, b).T, [0, 0, 1]])
    else:
        M, _ = cv2.findHomography(m, b, 0)
        if M is None:
            raise MapFitError(_DEGENERATE)
    if not np.isfinite(M).all() or abs(np.linalg.det(M[:2, :2])) < 1e-6:
        raise MapFitError(_DEGENERATE)
    M = M / M[2, 2]
    got = cv2.perspectiveTransform(m.reshape(-1, 1, 2), M).reshape(-1, 2)
    worst = float(np.hypot(*(got - b).T).max())
    if worst > MAX_RESIDUAL:
        raise MapFitError(f"the anchors contradict each other: one is {worst:.0f} board units from where the "
                          f"others put it (check that each one starts on the drawn map and ends on the same "
                          f"point of the printed board)")
    if current is not None:
        M = M @ np.asarray(current, np.float64)
        M = M / M[2, 2]
    check_map_warp(M, board_size)
    return M


def _similarity(m: np.ndarray, b: np.ndarray) -> np.ndarray:
    dm, db = m[1] - m[0], b[1] - b[0]
    if np.hypot(*dm) < 1e-6:
        raise MapFitError("two anchors start at the same point")
    zm, zb = complex(*dm), complex(*db)
    r = zb / zm                                # turn and scale as one complex number
    A = np.array([[r.real, -r.imag], [r.imag, r.real]])
    t = b[0] - A @ m[0]
    return np.array([[A[0, 0], A[0, 1], t[0]], [A[1, 0], A[1, 1], t[1]], [0, 0, 1.0]])


def check_map_warp(M: np.ndarray, board_size: tuple[int, int]) -> None:
    """Refuse a warp that no print of this board could need (a wrong board, or wrong anchors)."""
    w, h = board_size
    corners = np.float64([[0, 0], [w, 0], [w, h], [0, h]])
    moved = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), np.asarray(M, np.float64)).reshape(-1, 2)
    scale = np.sqrt(abs(cv2.contourArea(np.float32(moved))) / (w * h))
    shift = float(np.hypot(*(moved - corners).T).max())
    if abs(scale - 1) > MAX_SCALE_CHANGE or shift > MAX_SHIFT * h:
        raise MapFitError(f"the anchors would move the map too far (scale {scale:.2f}, a corner by {shift:.0f} "
                          f"board units): is this the right board, and was it calibrated?")
