"""The camera's lens: one radial distortion coefficient, estimated at calibration.

Webcams bend straight lines (barrel distortion); a homography cannot, so near the edges of a
wide view a board point can land several pixels from where the homography puts it, enough to
give a piece to the neighbouring region. The model is the one the renderer draws with: an image
pixel at normalised radius ``r_d`` (radius over half the image diagonal, from the centre) shows
the ideal (pinhole) point at ``r_u = r_d (1 + k1 r_d^2)``. Frames are undistorted once, then
everything downstream works with the homography alone.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

import cv2
import numpy as np

#: Coefficients tried at calibration (webcams are barrel-distorted: k1 <= 0).
K1_CANDIDATES = tuple(round(-0.02 * i, 2) for i in range(8))

#: The remap tables kept for reuse, by bytes: all the calibration's candidates at 720p (7 MB a
#: pair; the benches calibrate hundreds of tables), but one pair at 4K (66 MB a pair: calibrating a
#: phone's 4K film kept five, 330 MB, for the rest of the process).
MAP_CACHE_BYTES = 96 * 2 ** 20
_maps: OrderedDict[tuple, tuple[np.ndarray, np.ndarray]] = OrderedDict()
_maps_lock = threading.Lock()


def _kept(key: tuple, make: Callable[[], tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The tables ``make()`` gives, kept under ``key`` with the most recently used others within
    MAP_CACHE_BYTES (the newest is kept whatever its size)."""
    with _maps_lock:
        maps = _maps.pop(key, None)
    if maps is None:
        maps = make()
    with _maps_lock:
        _maps[key] = maps
        while len(_maps) > 1 and sum(a.nbytes + b.nbytes for a, b in _maps.values()) > MAP_CACHE_BYTES:
            _maps.popitem(last=False)
    return maps


def distortion_scale(r_u: np.ndarray, k1: float) -> np.ndarray:
    """For ideal points at normalised radius ``r_u``: how much nearer the centre (``r_d / r_u``)
    the camera shows them, solving ``r_u = r_d (1 + k1 r_d^2)`` by Newton's method."""
    r_d = r_u.copy()
    for _ in range(6):
        f = r_d * (1 + k1 * r_d ** 2) - r_u
        r_d -= f / (1 + 3 * k1 * r_d ** 2)
    return np.where(r_u > 1e-9, r_d / np.maximum(r_u, 1e-9), 1.0)


def _centre_and_radius(width: int, height: int) -> tuple[float, float, float]:
    """The image centre and the radius (half the diagonal) that normalise the model's radii."""
    return width / 2, height / 2, float(np.hypot(width, height) / 2)


#: Rows of a remap table computed at once (see :func:`_banded_maps`).
MAP_ROWS = 256


def _banded_maps(width: int, height: int, scale: Callable[[np.ndarray, np.ndarray], np.ndarray],
                 rows: int = MAP_ROWS) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap`` tables that move each pixel along its radius from the centre: its normalised
    offset ``(ux, uy)`` times ``scale(ux, uy)``. Computed a band of ``rows`` rows at a time,
    each pixel on its own as for the whole, because the whole at once needed temporaries of 2.6
    times the tables' own size: 170 MB more for a phone's 4K frame, at the peak of its calibration."""
    cx, cy, n = (np.float32(v) for v in _centre_and_radius(width, height))
    ux = (np.arange(width, dtype=np.float32) - cx) / n
    mx, my = np.empty((height, width), np.float32), np.empty((height, width), np.float32)
    for y0 in range(0, height, rows):
        uy = ((np.arange(y0, min(y0 + rows, height), dtype=np.float32) - cy) / n)[:, None]
        bx, by = np.broadcast_arrays(ux[None, :], uy)
        s = scale(bx, by)
        mx[y0:y0 + rows] = bx * s * n + cx
        my[y0:y0 + rows] = by * s * n + cy
    return mx, my


def distortion_maps(width: int, height: int, k1: float) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap`` tables that turn an ideal image into the distorted camera image."""
    return _kept(("distort", width, height, k1),
                 lambda: _banded_maps(width, height, lambda ux, uy: 1 + np.float32(k1) * (ux * ux + uy * uy)))


def undistortion_maps(width: int, height: int, k1: float) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap`` tables that turn the camera image into the ideal one (Newton's method on the
    radius for every pixel)."""
    return _kept(("undistort", width, height, k1),
                 lambda: _banded_maps(width, height,
                                      lambda ux, uy: distortion_scale(np.sqrt(ux * ux + uy * uy), k1).astype(np.float32)))


def _radially(points: np.ndarray, size: tuple[int, int], k1: float, scale) -> np.ndarray:
    """Camera-frame pixels (N x 2) moved along their radius from the frame's centre: each point's
    normalised offset ``u`` is multiplied by ``scale(u)`` (an N x 1 array); unchanged when ``k1`` is 0."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    if not k1:
        return pts
    cx, cy, n = _centre_and_radius(*size)
    c = np.array([cx, cy])
    u = (pts - c) / n
    return u * scale(u) * n + c


def undistort_points(points: np.ndarray, size: tuple[int, int], k1: float) -> np.ndarray:
    """Camera pixels (N x 2) -> where :func:`undistort` puts them (``r_u = r_d (1 + k1 r_d^2)``)."""
    return _radially(points, size, k1, lambda u: 1 + k1 * (u ** 2).sum(axis=1, keepdims=True))


def distort_points(points: np.ndarray, size: tuple[int, int], k1: float) -> np.ndarray:
    """Where the camera shows ideal (undistorted) pixels (N x 2): the inverse of
    :func:`undistort_points`."""
    return _radially(points, size, k1, lambda u: distortion_scale(np.linalg.norm(u, axis=1, keepdims=True), k1))


def undistort(image: np.ndarray, k1: float, box: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """The frame as a pinhole camera would have taken it (a copy-free no-op when ``k1`` is 0), or
    only ``box``'s part of it (x0, y0, x1, y1, within the frame).

    The part holds the same pixels as the whole undistorted frame cut to ``box`` (each pixel is
    looked up on its own), for the cost of the part: the counter needs only the board's part of
    every frame, and undistorting the whole of a 1280x720 frame took about 10 ms."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = box if box is not None else (0, 0, w, h)
    if not k1:
        return image if box is None else image[y0:y1, x0:x1]
    mx, my = undistortion_maps(w, h, float(k1))
    return cv2.remap(image, mx[y0:y1, x0:x1], my[y0:y1, x0:x1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
