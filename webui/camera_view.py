"""The board as the camera saw it in a recorded frame, for the review and the correction dialog.

Why: a dispute is settled on the frame that was committed, with the region map and the pieces
the counter read drawn where the board lay at that moment. The calibration in use now is not
that: a bump re-localises the board (a new pose), a map fitted on the Set-up tab moves the
borders, and an archive reviewed elsewhere has no calibration at all. So each committed frame is
recorded with the calibration file it was read with (kept once in the recording,
:meth:`webui.store.Store.keep_calibration`) and the pose of that moment
(:class:`CameraRecorder`), and the drawings here read them back (:class:`CameraViews`).
Recordings made before this was kept fall back to the calibration in use.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.localise import BoardPose
from calibration.overlay import draw_overlay
from calibration.profile import CalibrationError, CalibrationProfile, board_pose, invertible_homography
from webui.store import Store, StoreError

#: The detector's dots on the drawings, by army colour (BGR).
OVERLAY_BGR = {"red": (40, 40, 220), "blue": (220, 110, 40), "yellow": (40, 220, 240), "green": (60, 180, 60),
               "black": (20, 20, 20), "neutral": (235, 235, 235)}

#: A close-up's side, in pixels: about a tablet's dialog wide. Every close-up is this square (the
#: region's box widened to a square, more of the board around it shown), so that the page holds
#: its room before the picture arrives and nothing under it slides as it does.
CLOSE_UP_SIDE = 360
#: Where a close-up's square is larger than the camera's frame (a region about as tall as the
#: whole frame), the part past the frame's edge is this grey (BGR).
CLOSE_UP_PAD = (90, 90, 90)
#: Around the region, the close-up shows this share of its size on every side (its neighbours'
#: pieces by the border are what a dispute often turns on), and at least CLOSE_UP_MARGIN_PX.
CLOSE_UP_MARGIN = 0.35
CLOSE_UP_MARGIN_PX = 16


class ViewUnavailable(Exception):
    """A recorded frame cannot be drawn with its map: the message says why (a 404's reason)."""


@dataclass(frozen=True)
class SeenAs:
    """How the camera saw the board in one frame: the calibration it was read with, and the pose."""
    profile: CalibrationProfile
    pose: BoardPose


class CameraRecorder:
    """For each committed frame, the record :meth:`webui.store.Store.add_snapshot` keeps as its
    ``camera``: the calibration's file (written once per calibration and per map fitted) and the
    pose of that moment."""

    def __init__(self, store: Store):
        self.store = store
        self._kept: tuple[CalibrationProfile, bytes | None, str] | None = None

    def record(self, profile: CalibrationProfile | None) -> dict | None:
        if profile is None:
            return None
        warp = None if profile.map_warp is None else profile.map_warp.tobytes()
        if self._kept is None or self._kept[0] is not profile or self._kept[1] != warp:
            self._kept = (profile, warp, self.store.keep_calibration(json.dumps(profile.to_dict())))
        return {"calibration": self._kept[2], "H": profile.H.tolist()}

    def kept_as(self, name: str) -> CalibrationProfile | None:
        """The calibration in use, when it is still the one kept as ``name`` (its map not fitted
        anew since): the review need not load a second copy of it (some 16 MB)."""
        if self._kept is None or self._kept[2] != name:
            return None
        profile, warp, _ = self._kept
        return profile if warp == (None if profile.map_warp is None else profile.map_warp.tobytes()) else None


class CameraViews:
    """Reads recorded frames back with the calibration and pose they were read with."""

    def __init__(self, store: Store):
        self.store = store
        self._profiles: dict[str, CalibrationProfile] = {}

    def seen_as(self, sid: int, board_id: str, fallback: CalibrationProfile | None,
                recorder: CameraRecorder | None = None) -> SeenAs:
        """How snapshot ``sid``'s frame was seen (``fallback``, the calibration in use, for a
        snapshot recorded before Augur kept it; ``recorder``, the live game's, whose calibration
        in use serves the frames it recorded with it); ViewUnavailable says why not."""
        try:
            camera = self.store.camera(sid)
        except StoreError as exc:
            raise ViewUnavailable(str(exc)) from None
        if camera is None:
            if fallback is None:
                raise ViewUnavailable("no calibration was recorded with this snapshot, and none is in use")
            return SeenAs(fallback, fallback.pose)
        name = camera["calibration"]
        profile = self._profiles.get(name) or (recorder.kept_as(name) if recorder is not None else None)
        if profile is None:
            path = self.store.calibration_path(name)
            if path is None:
                raise ViewUnavailable(f"the calibration this snapshot was read with ({name}) is not in the recording")
            try:
                profile = CalibrationProfile.load(path, board_id)
            except CalibrationError as exc:
                raise ViewUnavailable(str(exc)) from None
            self._profiles[name] = profile
        H = np.array(camera["H"], np.float64)
        if not invertible_homography(H):
            raise ViewUnavailable(f"snapshot {sid}'s recorded pose is damaged")
        return SeenAs(profile, board_pose(H, profile.board_id))


def _dots(out: np.ndarray, points: np.ndarray, detections: list, scale: float = 1.0) -> None:
    """The detector's pieces on ``out``: a dot per piece at its footprint (``points``, image
    pixels), in its army's colour; the other kinds larger than a legionary."""
    for (x, y), d in zip(points, detections):
        colour = OVERLAY_BGR.get(d.get("colour"), (255, 255, 255))
        r = (5 if d.get("kind") != "legionary" else 3) * scale
        centre = (int(round(x)), int(round(y)))
        cv2.circle(out, centre, max(2, int(round(r))), colour, -1, cv2.LINE_AA)
        cv2.circle(out, centre, max(3, int(round(r + scale))), (255, 255, 255), 1, cv2.LINE_AA)


def _footprints(seen: SeenAs, detections: list) -> np.ndarray:
    feet = [d["foot"] for d in detections if isinstance(d.get("foot"), list) and len(d["foot"]) == 2]
    if len(feet) != len(detections) or not feet:
        return np.zeros((0, 2))
    return seen.pose.to_image(np.array(feet, float))


def overlay(frame: np.ndarray, seen: SeenAs, detections: list) -> np.ndarray:
    """The whole frame, undistorted, with the region map where the board lay and the pieces read."""
    out = draw_overlay(seen.profile.undistort(frame), seen.pose, seen.profile.geometry, names=False)
    _dots(out, _footprints(seen, detections), detections)
    return out


#: What turns a close-up so that the board's north is up, by how many quarter turns clockwise
#: the board's north points from the image's up (see :func:`_north_turns`).
_NORTH_UP = {1: cv2.ROTATE_90_COUNTERCLOCKWISE, 2: cv2.ROTATE_180, 3: cv2.ROTATE_90_CLOCKWISE}


def _north_turns(pose: BoardPose, at: tuple[float, float]) -> int:
    """How many quarter turns clockwise from the image's up the board's north points at board
    point ``at`` (0 to 3): a camera may stand on any side of the table."""
    here, north = pose.to_image(np.array([at, (at[0], at[1] - 10.0)], np.float64))
    dx, dy = north - here
    return int(round(np.degrees(np.arctan2(dx, -dy)) / 90.0)) % 4


def _squared(lo: int, hi: int, other: int, size: int) -> tuple[int, int]:
    """The span ``lo``..``hi`` of a close-up's box (pixels, ``size`` in the frame) widened about
    its middle to ``other`` (the box's other side) where that is longer, then slid back inside the
    frame as far as the frame allows: the square shows more of the board, not the frame's edge."""
    n = max(hi - lo, other)
    lo = lo - (n - (hi - lo)) // 2
    lo = max(0, min(lo, size - n)) if n <= size else (size - n) // 2
    return lo, lo + n


def _cut(image: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """``image[y0:y1, x0:x1]``, the part outside the image CLOSE_UP_PAD grey."""
    h, w = image.shape[:2]
    inside = image[max(y0, 0):min(y1, h), max(x0, 0):min(x1, w)]
    return cv2.copyMakeBorder(inside, max(0, -y0), max(0, y1 - h), max(0, -x0), max(0, x1 - w),
                              cv2.BORDER_CONSTANT, value=CLOSE_UP_PAD)


def close_up(frame: np.ndarray, seen: SeenAs, detections: list, region: str,
             side: int = CLOSE_UP_SIDE) -> np.ndarray:
    """Region ``region`` of the frame enlarged (a ``side`` x ``side`` square, the region's longer
    side filling it), its border drawn in magenta, its neighbours' in cyan, and the pieces read
    as dots: what a player looks at to settle what the camera counted there. It is turned by
    quarter turns so that the board's north is up, as on the dashboard's map, whichever side of
    the table the camera stands on (a quarter turn keeps every pixel as the camera saw it)."""
    geo = seen.profile.geometry
    rings = [seen.pose.to_image(np.asarray(r, np.float64)) for r in geo.polygons.get(region, [])]
    if not rings:
        raise ViewUnavailable(f"no region '{region}' on this board's map")
    image = seen.profile.undistort(frame)
    h, w = image.shape[:2]
    pts = np.vstack(rings)
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    pad = max(CLOSE_UP_MARGIN * max(x1 - x0, y1 - y0), CLOSE_UP_MARGIN_PX)
    # the pixels whose centres lie within the padded box (the same pixels however the frame is turned)
    x0, y0 = int(np.ceil(x0 - pad)), int(np.ceil(y0 - pad))
    x1, y1 = int(np.floor(x1 + pad) + 1), int(np.floor(y1 + pad) + 1)
    if min(x1, w) - max(x0, 0) < 2 or min(y1, h) - max(y0, 0) < 2:
        raise ViewUnavailable(f"{geo.board.name(region)} lies outside this frame")
    x0, x1 = _squared(x0, x1, y1 - y0, w)
    y0, y1 = _squared(y0, y1, x1 - x0, h)
    scale = side / (x1 - x0)
    out = cv2.resize(_cut(image, x0, y0, x1, y1), (side, side), interpolation=cv2.INTER_CUBIC)

    def enlarged(p: np.ndarray) -> np.ndarray:
        """Frame pixels to the close-up's, as the resize maps pixel centres."""
        return (p - (x0, y0) + 0.5) * scale - 0.5

    def here(p: np.ndarray) -> np.ndarray:
        return np.round(enlarged(p) * 4).astype(np.int32)     # 2 bits of sub-pixel (shift=2)

    for rid, others in geo.polygons.items():
        if rid != region:
            for ring in others:
                cv2.polylines(out, [here(seen.pose.to_image(np.asarray(ring, np.float64)))], True, (255, 255, 0), 1,
                              cv2.LINE_AA, shift=2)
    for ring in rings:
        cv2.polylines(out, [here(ring)], True, (255, 0, 255), 2, cv2.LINE_AA, shift=2)
    feet = _footprints(seen, detections)
    inside = [(p, d) for p, d in zip(feet, detections) if x0 <= p[0] < x1 and y0 <= p[1] < y1]
    if inside:
        _dots(out, enlarged(np.array([p for p, _ in inside])), [d for _, d in inside],
              min(2.0, max(1.0, scale / 2)))
    turns = _north_turns(seen.pose, geo.label_points[region])
    return cv2.rotate(out, _NORTH_UP[turns]) if turns else out
