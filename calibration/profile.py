"""The calibration profile: everything learned once per table, saved to one JSON file.

``augur calibrate`` makes it from a photo of the board with no pieces on the map and the
players' score markers on box 0 (as the rules set them out, §3.5). From that photo it learns:

- where the board is (:mod:`calibration.localise`), as a homography to board units, and where
  the print bends away from that homography (:mod:`calibration.surface`: a board that does not
  lie flat, the lens, a region map drawn a little off the print);
- where this copy's printed borders run, when they differ from the committed map's
  (:mod:`calibration.borders`);
- the empty board as this camera sees it (the reference the classical detector compares with);
- white balance against the printed board, so colours read the same under any light;
- the army colours and the size of one legionary from the score markers on box 0.
"""
from __future__ import annotations

import base64
import binascii
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from calibration.borders import check_moved, trace_borders, with_borders
from calibration.lens import K1_CANDIDATES, undistort
from calibration.localise import (FRAME_EDGE, WHOLE_BOARD, BoardNotFound, BoardPose, frame_runs_off, locate_board,
                                  red_frame_mask)
from calibration.map_fit import MapFitError, check_map_warp, fit_map_warp
from calibration.surface import SurfaceField, fit_surface
from tracker.errors import AugurError, read_json
from tracker.pieces import ARMY_COLOURS, NEUTRAL
from vision.geometry import BoardGeometry, load_geometry

PROFILE_VERSION = 1
#: Pixels per board unit of the rectified views the detector works on.
WORK_SCALE = 1.0

#: Piece colours after white balance (Lab, OpenCV 8-bit scale); learned values replace them.
DEFAULT_COLOURS_LAB = {
    "red": (96, 182, 163), "blue": (89, 138, 84), "yellow": (189, 126, 198), "green": (119, 86, 160),
    "black": (31, 129, 126), NEUTRAL: (192, 129, 136),
}
#: Area of one standing legionary seen from above in the rectified view (board units^2), when
#: no score marker teaches better (a hand over box 0, or the score track outside the camera's
#: frame). The markers of 48 rendered calibration photos (seed 5150, 12 a tier, and 12 hard on
#: the real print) measured 144 to 1,336, 340 at the median (``docs/measured.md``, session 111).
#: Until then it was 140, under half of that: on easy tables whose track the frame cut off, the
#: counting network's peaks were sought in windows too small, and legionaries were read as vexilla
#: (12 tables cut a fifth short, each on one side in turn: 99.0 % of the regions in view read right
#: with 340, 89.3 % with 140).
DEFAULT_LEGIONARY_AREA = 340.0
#: A score marker's blob on box 0 is at most this many box widths long, its longest side at most
#: MARKER_ASPECT times its shortest, and its centre at least MARKER_END box widths from either
#: end of the box (:func:`_marker_blob`).
MARKER_SIDE = 2.5
MARKER_ASPECT = 2.5
MARKER_END = 0.25


#: A region with more than this share of its area outside the camera's frame is named when the
#: board is calibrated (:meth:`CalibrationProfile.out_of_view`): a piece could stand there unseen.
PARTLY_OUT_OF_VIEW = 0.02


class CalibrationError(AugurError):
    """A calibration profile is missing, malformed or made for something else."""


@dataclass
class CalibrationProfile:
    board_id: str
    image_size: tuple[int, int]
    H: np.ndarray                               # board units -> image pixels
    reference: np.ndarray                       # rectified empty board (BGR, WORK_SCALE px/unit)
    gains: np.ndarray                           # BGR white-balance gains
    colours_lab: dict[str, tuple[float, float, float]] = field(default_factory=lambda: dict(DEFAULT_COLOURS_LAB))
    legionary_area: float = DEFAULT_LEGIONARY_AREA
    learned: tuple[str, ...] = ()               # colours learned from markers
    version: int = PROFILE_VERSION
    k1: float = 0.0                             # lens distortion (calibration.lens); H is for undistorted frames
    map_warp: np.ndarray | None = None          # the region map fitted to this copy of the board (map_fit)
    surface: SurfaceField | None = None         # the print's local shifts from the pose (calibration.surface)
    borders: np.ndarray | None = None           # map pixels the printed borders give to another region (calibration.borders)
    markers_at: dict[str, tuple[float, float]] = field(default_factory=dict)   # learned colour -> its marker's centre (board units)
    #: pieces that stood on the map in the calibration photo and were painted out of ``reference``
    #: (:func:`calibration.pieces_on_map.paint_out_pieces`): how many, and their regions, most first
    painted_out: int = 0
    painted_regions: tuple[str, ...] = ()
    #: the discs the pieces were painted out in (x, y, radius; board units): a power centre read
    #: in one may be the paint (:data:`vision.density.STALE_MASS`)
    painted_discs: tuple[tuple[float, float, float], ...] = ()
    _geometry: BoardGeometry | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def geometry(self) -> BoardGeometry:
        """The region map of this table's board: the committed one, displaced where the print
        bends away from the pose (:mod:`calibration.surface`), its borders moved onto the lines
        printed on this copy (:mod:`calibration.borders`), then moved by the user's anchors when
        their print still differs (:mod:`calibration.map_fit`; the anchors are dragged on a
        preview that already shows the map so fitted). Every region lookup at run time goes
        through here."""
        if self._geometry is None:
            geo = self._traced_geometry()
            self._geometry = geo if self.map_warp is None else geo.warped(self.map_warp)
        return self._geometry

    def _traced_geometry(self) -> BoardGeometry:
        """The map as the calibration fitted it, before the user's anchors."""
        geo = load_geometry(self.board_id)
        if self.surface is not None:
            geo = geo.displaced(self.surface)
        return geo if self.borders is None else with_borders(geo, self.borders)

    def trace_borders(self) -> None:
        """Move the map's borders onto the lines printed on this copy of the board, as the
        reference photo shows them (:mod:`calibration.borders`); anchors already given stay."""
        self.borders = None
        self.borders = trace_borders(self.reference, self._traced_geometry())
        self._geometry = None

    def fit_map(self, anchors) -> None:
        """Move the region map by anchors dragged on the calibration preview (which shows the map
        as it is fitted now), in pixels of the undistorted calibration photo."""
        geo = load_geometry(self.board_id)
        self.map_warp = fit_map_warp(self.H, anchors, geo.size, self.map_warp)
        self._geometry = None

    def reset_map(self) -> None:
        """Back to the region map as the calibration fitted it: the anchors are forgotten, the
        surface field and the traced borders (found by the calibration itself) stay."""
        self.map_warp = None
        self._geometry = None

    def undistort(self, image: np.ndarray) -> np.ndarray:
        """The frame as the homography expects it (see :mod:`calibration.lens`)."""
        return undistort(image, self.k1)

    @property
    def pose(self) -> BoardPose:
        return board_pose(self.H, self.board_id)

    def board_in_view(self) -> np.ndarray:
        """Which points of the board (a mask over the region map, a pixel a board unit) the
        camera's frame shows."""
        w, h = load_geometry(self.board_id).size
        frame = np.full((self.image_size[1], self.image_size[0]), 255, np.uint8)
        return cv2.warpPerspective(frame, np.linalg.inv(self.H), (w, h), flags=cv2.INTER_NEAREST) > 0

    def outline_at_frame_edge(self) -> bool:
        """Whether the board's outline reaches the edge of the camera's frame: a side runs along it,
        or past it (both its corners within FRAME_EDGE of the frame's size from one edge, or
        outside), or a corner in the frame lies within FRAME_EDGE of its edge.
        Why: where the frame cuts the board off, the red frame's outline ends at the photo's edge,
        and the board was found squeezed into the part in view, the region map nowhere near the
        printed borders and nothing said (a table cut at three quarters of its width, session
        110). Since session 111 the outline is pushed past the edge and such a board is found where
        it lies (:data:`calibration.localise.PUSH_MOST`), but one cut by more can still be found
        wrongly, and then as often with one corner at the frame's edge as a side (of 36 rendered
        tables cut three tenths short, one of the three found wrongly had its outline's corner at
        the edge and was told nothing). Of 160 calibration photos of whole tables (seed 5150) two
        are now told this too: hard table 10, on the art and on the print, whose board's corner
        does lie past the photo's edge (no region more than PARTLY_OUT_OF_VIEW outside it)."""
        w, h = self.image_size
        mx, my = FRAME_EDGE * w, FRAME_EDGE * h
        c = self.pose.corners
        near = np.stack([c[:, 0] <= mx, c[:, 1] <= my, c[:, 0] >= w - 1 - mx, c[:, 1] >= h - 1 - my])
        inside = (c[:, 0] >= 0) & (c[:, 1] >= 0) & (c[:, 0] <= w - 1) & (c[:, 1] <= h - 1)
        return bool((near & np.roll(near, -1, axis=1)).any() or (near.any(axis=0) & inside).any())

    def out_of_view(self, share: float = PARTLY_OUT_OF_VIEW) -> tuple[str, ...]:
        """The regions more than ``share`` of whose area lies outside the camera's frame, the most
        outside first. Why: a camera set too close or askew cuts part of the board off, and the
        counter read the regions there as empty, the camera's word for a province nobody holds."""
        geo = self.geometry
        n = len(geo.region_ids) + 1
        total = np.bincount(geo.labels.ravel(), minlength=n)
        inside = np.bincount(geo.labels[self.board_in_view()], minlength=n)
        outside = 1 - inside / np.maximum(total, 1)
        return tuple(geo.region_ids[i - 1] for i in np.argsort(-outside[1:], kind="stable") + 1
                     if total[i] and outside[i] > share)

    # -- persistence ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"augur_calibration": self.version, "board": self.board_id, "image_size": list(self.image_size),
                "homography": self.H.tolist(), "gains": self.gains.tolist(),
                "colours_lab": {k: list(map(float, v)) for k, v in self.colours_lab.items()},
                "legionary_area": self.legionary_area, "learned": list(self.learned), "k1": self.k1,
                "map_warp": None if self.map_warp is None else self.map_warp.tolist(),
                "surface": None if self.surface is None else self.surface.to_dict(),
                "borders_png": None if self.borders is None else _png_text(self.borders),
                "markers_at": {k: [float(x), float(y)] for k, (x, y) in self.markers_at.items()},
                "painted_out": {"pieces": self.painted_out, "regions": list(self.painted_regions),
                                "discs": [[round(float(v), 1) for v in disc] for disc in self.painted_discs]},
                "reference_png": _png_text(self.reference)}

    def save(self, path: Path) -> None:
        """Written whole beside ``path``, then renamed over it: a failed write leaves the old file as it was."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        try:
            tmp.write_text(json.dumps(self.to_dict()), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            if tmp.is_file():                   # written, then not renamed: nothing half-done stays
                tmp.unlink()
            raise CalibrationError(f"the calibration could not be written to {path} ({exc.strerror or exc})") from None

    @classmethod
    def load(cls, path: Path, board_id: str = "spqrisiko") -> "CalibrationProfile":
        data = read_json(path, "calibration file", CalibrationError)
        if not isinstance(data, dict) or "augur_calibration" not in data:
            raise CalibrationError(f"{path} is not an Augur calibration file")
        if data["augur_calibration"] != PROFILE_VERSION:
            raise CalibrationError(f"{path} is calibration version {data['augur_calibration']}; this Augur reads "
                                   f"version {PROFILE_VERSION}: calibrate again")
        if data.get("board") != board_id:
            raise CalibrationError(f"{path} was made for board '{data.get('board')}', not '{board_id}'")
        try:
            ref = _png_image(data["reference_png"], cv2.IMREAD_COLOR)
            geo = load_geometry(board_id)
            if ref is None or ref.shape[:2] != (int(geo.size[1] * WORK_SCALE), int(geo.size[0] * WORK_SCALE)):
                raise ValueError("reference image does not match the board geometry")
            warp = data.get("map_warp")
            if warp is not None:
                warp = np.array(warp, float)
                if warp.shape != (3, 3) or not np.isfinite(warp).all():
                    raise ValueError("its map warp is not a 3 x 3 matrix")
                check_map_warp(warp, geo.size)
            surface = data.get("surface")
            surface = None if surface is None else SurfaceField.from_dict(surface)
            borders = data.get("borders_png")
            if borders is not None:
                borders = _png_image(borders, cv2.IMREAD_UNCHANGED)
                if borders is None:
                    raise ValueError("its traced borders are not a PNG image")
                check_moved(borders, geo)
            markers_at = data.get("markers_at", {})        # absent from profiles made before session 80
            if not isinstance(markers_at, dict):
                raise ValueError("its markers are not a mapping of colours to points")
            markers_at = {str(k): (float(x), float(y)) for k, (x, y) in markers_at.items()}
            painted, painted_regions, discs = _painted_out(data.get("painted_out"), geo)   # absent before session 124
            size, H, gains, colours, area, k1, learned = _checked_fields(data, geo)
            return cls(data["board"], size, H, ref, gains, colours, area, learned, data["augur_calibration"], k1=k1,
                       map_warp=warp, surface=surface, borders=borders, markers_at=markers_at,
                       painted_out=painted, painted_regions=painted_regions, painted_discs=discs)
        except (KeyError, TypeError, ValueError, MapFitError, binascii.Error) as exc:
            raise CalibrationError(f"{path} is damaged: {exc}") from None


def board_pose(H: np.ndarray, board_id: str = "spqrisiko") -> BoardPose:
    """The pose of board ``board_id`` that homography ``H`` (board units to undistorted image
    pixels) gives: the calibration's, or one recorded with a frame after a bump."""
    size = load_geometry(board_id).size
    corners = cv2.perspectiveTransform(np.float64([[[0, 0]], [[size[0], 0]], [[size[0], size[1]]], [[0, size[1]]]]),
                                       H).reshape(-1, 2)
    return BoardPose(H, corners, 1.0)


#: The frame sizes a calibration can hold (pixels a side): anything else is a damaged file.
FRAME_SIDES = (16, 16384)
#: The lens distortion a calibration can hold (calibration.lens fits it among K1_CANDIDATES).
MAX_ABS_K1 = 1.0


def invertible_homography(H: np.ndarray) -> bool:
    """Whether ``H`` is a finite 3 x 3 matrix that can be inverted (a pose read from a file or a
    recording may be neither)."""
    return H.shape == (3, 3) and bool(np.isfinite(H).all()) and abs(np.linalg.det(H)) >= 1e-12


def _painted_out(data, geo: BoardGeometry) -> tuple[int, tuple[str, ...], tuple[tuple[float, float, float], ...]]:
    """A profile file's record of the pieces painted out of its reference: how many, their
    regions and the discs painted (none when absent; no discs before session 125)."""
    if data is None:
        return 0, (), ()
    if not isinstance(data, dict) or type(data.get("pieces")) is not int or data["pieces"] < 0 \
            or not isinstance(data.get("regions"), list):
        raise ValueError("its pieces painted out are not a count and a list of regions")
    unknown = [r for r in data["regions"] if r not in geo.region_ids]
    if unknown:
        raise ValueError(f"its pieces painted out name regions of no such board ({unknown[0]!r})")
    discs = data.get("discs", [])
    if not isinstance(discs, list) or not all(
            isinstance(d, list) and len(d) == 3 and all(type(v) in (int, float) and math.isfinite(v) for v in d)
            and d[2] > 0 for d in discs):
        raise ValueError("its discs painted are not a list of [x, y, radius]")
    return data["pieces"], tuple(data["regions"]), tuple(tuple(float(v) for v in d) for d in discs)


def _checked_fields(data: dict, geo: BoardGeometry) -> tuple:
    """A profile file's frame size, homography, white balance, colours, legionary area, lens and
    learned colours, each checked for its shape and range (``ValueError`` says which is wrong).

    Why: a file edited by hand or cut short in a way JSON still parses used to load, and failed
    later, deep in the counter, as a traceback (a homography of zeros divided by zero, a negative
    legionary area made a NaN, a null colour table). Every later reader may now trust these."""
    size = data["image_size"]
    if not (isinstance(size, list) and len(size) == 2 and all(type(v) is int and FRAME_SIDES[0] <= v <= FRAME_SIDES[1]
                                                            for v in size)):
        raise ValueError(f"its frame size is not two whole numbers of pixels from {FRAME_SIDES[0]} to {FRAME_SIDES[1]}")
    H = np.array(data["homography"], float)
    if not invertible_homography(H):
        raise ValueError("its homography is not an invertible 3 x 3 matrix")
    corners = np.array([[0, 0, 1], [geo.size[0], 0, 1], [geo.size[0], geo.size[1], 1], [0, geo.size[1], 1]], float) @ H.T
    w, h = size
    if (corners[:, 2] <= 0).any() or not (np.abs(corners[:, :2] / corners[:, 2:] - (w / 2, h / 2)) <= (w, h)).all():
        raise ValueError("its homography puts the board out of the camera's view")
    gains = np.array(data["gains"], np.float32)
    if gains.shape != (3,) or not np.isfinite(gains).all() or (gains <= 0).any():
        raise ValueError("its white balance is not three positive gains")
    colours = data["colours_lab"]
    if not isinstance(colours, dict) or not all(
            isinstance(v, list) and len(v) == 3 and np.isfinite(np.array(v, float)).all() for v in colours.values()):
        raise ValueError("its colours are not a mapping of colour names to three Lab values")
    area = float(data["legionary_area"])
    if not (np.isfinite(area) and 0 < area <= size[0] * size[1]):
        raise ValueError("its legionary area is not a positive number of pixels within the frame")
    k1 = float(data.get("k1", 0.0))
    if not (np.isfinite(k1) and abs(k1) <= MAX_ABS_K1):
        raise ValueError(f"its lens distortion is not a number within {MAX_ABS_K1:g} of 0")
    learned = data.get("learned", [])
    if not (isinstance(learned, list) and all(isinstance(c, str) for c in learned)):
        raise ValueError("its learned colours are not a list of colour names")
    return (w, h), H, gains, {str(k): tuple(float(x) for x in v) for k, v in colours.items()}, area, k1, tuple(learned)


def _png_text(image: np.ndarray) -> str:
    _, png = cv2.imencode(".png", image)
    return base64.b64encode(png.tobytes()).decode("ascii")


def _png_image(text: str, flags: int) -> np.ndarray | None:
    """The image a profile keeps as base64 PNG text, or None when the bytes are no image."""
    data = np.frombuffer(base64.b64decode(text, validate=True), np.uint8)
    return cv2.imdecode(data, flags) if data.size else None


def white_balance(img: np.ndarray, gains: np.ndarray) -> np.ndarray:
    return np.clip(img.astype(np.float32) * gains[None, None], 0, 255).astype(np.uint8)


def water_gains(rectified: np.ndarray, geo: BoardGeometry, target=(226, 206, 160)) -> np.ndarray:
    """Per-channel gains that bring the printed sea to its known colour (a grey card we get for free)."""
    sea = np.isin(geo.labels, [i + 1 for i, r in enumerate(geo.region_ids) if geo.board.is_sea(r)])
    small = cv2.resize(rectified, (geo.size[0], geo.size[1])) if rectified.shape[:2] != geo.labels.shape else rectified
    med = np.median(small[sea].astype(np.float32), axis=0)
    return (np.float32(target) / np.maximum(med, 1.0)).astype(np.float32)


def calibrate(image: np.ndarray, reference_art: np.ndarray, board_id: str = "spqrisiko",
              players: tuple[str, ...] = (), anchors=None, surface: bool = True,
              borders: bool = True) -> CalibrationProfile:
    """Make a profile from a photo of the empty board with the score markers on box 0.
    ``anchors`` fit the region map to this copy of the board (:mod:`calibration.map_fit`); the
    score markers are still sought where the committed map has the track, next to the frame
    that the pose is fitted to. ``surface=False`` trusts the pose alone (as before session 23),
    ``borders=False`` the committed map's borders (as before session 24), for comparison."""
    geo = load_geometry(board_id)
    k1, pose = estimate_lens(image, reference_art, geo)
    image = undistort(image, k1)
    rect = pose.rectify(image, geo, WORK_SCALE)
    profile = CalibrationProfile(board_id, (image.shape[1], image.shape[0]), pose.H, rect, np.ones(3, np.float32),
                                 k1=k1, surface=fit_surface(rect, reference_art) if surface else None)
    if borders:
        profile.trace_borders()
    if anchors:
        profile.fit_map(anchors)
    _refuse_squeezed(image, profile)
    profile.gains = water_gains(rect, profile.geometry)
    _learn_from_markers(profile, rect, reference_art, geo, players)
    return profile


def _refuse_squeezed(image: np.ndarray, profile: CalibrationProfile) -> None:
    """Refuse a board found squeezed into the part of it in view: the red frame runs off the
    photo's edge (:func:`calibration.localise.frame_runs_off`; ``image`` undistorted) and the
    fitted map does not follow the printed borders (:func:`calibration.covered.profile_covered`).
    Why: a board cut off by about half or more is out of reach of the outline's pushes past the
    edge, and may be found squeezed, its region map a hundred pixels and more from the print. Until
    session 119 that calibration was written with two warnings, one naming as out of view regions
    of a map that lay nowhere near the print, and a game could be followed on it. Of 288 rendered
    calibration photos cut by two fifths or by half on one side, 61 boards were found squeezed,
    60 of them with a map that does not follow the borders (the other is still written, with its
    warning), and none of the 125 found where they lie had one; nor had any of the whole tables
    checked whose frame runs off the photo (session 119, ``docs/measured.md``)."""
    if not frame_runs_off(red_frame_mask(image)):
        return
    from calibration.covered import profile_covered
    if not profile_covered(profile).lined_up:
        raise BoardNotFound("the red frame runs off the edge of the photo, and the board found in the part in view "
                            f"does not follow its printed borders (squeezed into the part in view?); {WHOLE_BOARD}")


def estimate_lens(image: np.ndarray, reference_art: np.ndarray, geo: BoardGeometry) -> tuple[float, BoardPose]:
    """The lens coefficient whose undistorted photo lines up best with the board art, and the
    board's pose in that undistorted photo (a coarse pass over the candidates, then the
    neighbours of the best)."""
    tried: dict[float, BoardPose | None] = {}
    error: BoardNotFound | None = None

    def attempt(k: float) -> None:
        nonlocal error
        if k in tried or k not in K1_CANDIDATES:
            return
        try:
            tried[k] = locate_board(undistort(image, k), reference_art, geo)
        except BoardNotFound as exc:
            tried[k], error = None, exc

    def best() -> float:
        found = [k for k, p in tried.items() if p is not None]
        if not found:
            raise error or BoardNotFound("no board in view")
        return max(found, key=lambda k: tried[k].score)

    for k in K1_CANDIDATES[::2]:
        attempt(k)
    i = K1_CANDIDATES.index(best())
    for j in (i - 1, i + 1):
        if 0 <= j < len(K1_CANDIDATES):
            attempt(K1_CANDIDATES[j])
    k = best()
    return k, tried[k]


def _learn_from_markers(profile: CalibrationProfile, rect: np.ndarray, art: np.ndarray, geo: BoardGeometry,
                        players: tuple[str, ...]) -> None:
    """The score markers on box 0 teach the colours and the size of a legionary (§3.5).

    Markers stand side by side and touch, so pixels are first split by colour (nearest default
    colour) and only then grouped: one blob per colour is one marker (:func:`_marker_blob`), and
    the legionary's size is taken, for each colour whose marker is found, as the detectors were
    fitted to it (:func:`_size_blob_area`)."""
    x0, y0, x1, y1 = (int(round(v * WORK_SCALE)) for v in geo.track_boxes[0])
    pad = int(14 * WORK_SCALE)
    win = (slice(max(0, y0 - pad), y1 + pad), slice(max(0, x0 - pad), x1 + pad))
    on_box = (x0 - win[1].start, y0 - win[0].start, x1 - win[1].start, y1 - win[0].start)   # in the window
    box = white_balance(rect[win], profile.gains)
    art_small = cv2.resize(art, (rect.shape[1], rect.shape[0]), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(box, cv2.COLOR_BGR2LAB).astype(np.float32)
    ref_lab = cv2.cvtColor(art_small[win], cv2.COLOR_BGR2LAB).astype(np.float32)
    changed = np.linalg.norm(lab - ref_lab, axis=2) > 20
    names = list(ARMY_COLOURS)
    centroids = np.float32([DEFAULT_COLOURS_LAB[c] for c in names])
    dist = np.linalg.norm(lab[:, :, None, :] - centroids[None, None], axis=3)
    nearest, best = dist.argmin(axis=2), dist.min(axis=2)
    learned, areas = [], []
    for k, name in enumerate(names):
        if players and name not in players:
            continue
        mask = (changed & (nearest == k) & (best < 45)).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        _, comp, stats, centres = cv2.connectedComponentsWithStats(mask)
        c = _marker_blob(stats[1:], centres[1:], on_box, 15 * WORK_SCALE ** 2)
        if c is None:
            continue
        profile.colours_lab[name] = marker_colour(lab[comp == c], centroids[k])
        profile.markers_at[name] = ((centres[c, 0] + win[1].start) / WORK_SCALE, (centres[c, 1] + win[0].start) / WORK_SCALE)
        learned.append(name)
        areas.append(_size_blob_area(stats[1:], on_box) / WORK_SCALE ** 2)
    if areas:
        profile.legionary_area = float(np.median(areas))
    profile.learned = tuple(learned)


def marker_colour(pixels: np.ndarray, default: np.ndarray) -> tuple[float, float, float]:
    """A marker's colour (Lab) from its blob's ``pixels``: the mean of the half of them nearest
    the army's ``default`` colour. The blob's rim blends the piece with the box behind it (score
    box 0 is yellow) and its shaded side with the board's red, and a mean of every pixel carried
    that blend into the colour the classical detector then sought on the map: it reads 0.7 /
    0.8 / 0.9 points more regions right on 40 easy / medium / hard tables of the procedural art
    this way, 1.5 / 0.1 / 1.7 on the real print (docs/measured.md, session 79)."""
    d = np.linalg.norm(pixels - default, axis=1)
    return tuple(float(v) for v in pixels[d <= np.median(d)].mean(axis=0))


def _size_blob_area(stats: np.ndarray, box: tuple[int, int, int, int]) -> int:
    """The area of the largest blob of a colour (``stats`` as :func:`_marker_blob`'s) no larger
    than score box 0: the marker, with whatever of the print around it took the same colour.
    Up to session 79 this was also the blob taken for the marker; the shipped counting network
    was trained, and the classical baseline tuned, on it. On 30 held-out hard tables of each set
    (seed 90210, procedural / the real print), with the area of the blob :func:`_marker_blob`
    found instead (its first bounds, without MARKER_END), the network read 1,552 / 1,520 regions right against 1,558 / 1,512, within
    its noise, but the classical baseline 723 / 567 against 821 / 702: it counts a blob's pieces
    by its area, and on hard tables its blobs are larger than the markers' cores. So the size
    stays measured this way, for the colours whose marker is found, until the network is
    trained again (docs/measured.md, session 80)."""
    areas = stats[:, cv2.CC_STAT_AREA]
    x0, y0, x1, y1 = box
    return int(areas[areas <= (x1 - x0) * (y1 - y0)].max())


def _marker_blob(stats: np.ndarray, centres: np.ndarray, box: tuple[int, int, int, int],
                 smallest: float) -> int | None:
    """The label (1-based) of the blob of one colour that is that player's marker, or None when
    no blob looks like one. ``stats`` and ``centres`` are :func:`cv2.connectedComponentsWithStats`'
    for labels 1, 2, ... (the background's row dropped); ``box`` is score box 0 (x0, y0, x1, y1)
    in the same pixels. A marker is the largest blob that

    - is from ``smallest`` up to the area of box 0 itself. Anything larger is something else over
      box 0: a hand reaching over the track (skins lie within reach of red, yellow, blue or
      black). Taken for the marker, a hand set the legionary's size 16 to 27 times the markers'
      on rendered tables, and the counting crop that follows from it read up to half the table
      wrong;
    - stands on the box: its centre lies inside box 0, at least MARKER_END box widths from
      either end of it. A marker stands wholly on the box, so its centre is about half its own
      width (10 units) from the end it is pushed against; the box's printed foot, read as red
      and as yellow, lay 0 to 3 units from the end on the empty print saved as a JPEG at a third
      of its size;
    - is a piece's shape, not a line: its longest side is at most MARKER_SIDE box widths and
      MARKER_ASPECT times its shortest. The window around box 0 takes in the printed frame, its
      red border and dark lines, and where the print and the reference art differ these are
      all "changed" pixels near an army's colour. On the empty print (no markers; seven sizes,
      from a quarter of the photo to all of it) the largest blob alone learned three or four
      colours from these lines every time, and on 64 rendered tables (seed 4000: procedural art and the real print, three tiers) it
      took the wrong blob for 68 of 267 markers, mostly red's from the frame. With these bounds
      nothing is learned on the empty print, 16 of 267 markers are wrong and 10 not found; on 24
      hard tables held out from the choice of bounds (seed 5000), 7 of 104 wrong and 8 not
      found, against 25 wrong before (docs/measured.md, session 80)."""
    areas, w, h = stats[:, cv2.CC_STAT_AREA], stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    x0, y0, x1, y1 = box
    longest, shortest = np.maximum(w, h), np.minimum(w, h)
    width = x1 - x0
    end = MARKER_END * width            # box 0 stands upright on the map: its ends are its top and foot
    fits = np.flatnonzero((areas >= smallest) & (areas <= width * (y1 - y0))
                          & (longest <= MARKER_SIDE * width) & (longest <= MARKER_ASPECT * shortest)
                          & (centres[:, 0] >= x0) & (centres[:, 0] <= x1)
                          & (centres[:, 1] >= y0 + end) & (centres[:, 1] <= y1 - end))
    if not len(fits):
        return None
    return 1 + int(fits[np.argmax(areas[fits])])
