"""The vision pipeline for one table: frame -> gate -> detect -> count -> fuse.

It keeps the last committed state through bad frames: an unreadable frame, a moving hand, or a
camera that stops delivering frames never replaces what was committed.

Still frames come in runs (a moving or unreadable frame ends one). A detector that can read a
run's frames together (``detect_in_run``, the counting network: plain and mirrored in turn,
averaged) is told where each run begins; it reads again only the part of a frame whose pixels
changed since it last read them (:mod:`vision.partial`). Once a run has had its last say in the
fusion (:attr:`vision.fuse.Fusion.settled`) its further frames are not read: a table left still
while the players think costs the gate alone. Regions no hand touched since the last commit keep
their committed count (:mod:`vision.touched`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.align import correlation, edge_strength
from calibration.notices import calibration_notices
from calibration.profile import CalibrationProfile
from tracker.state import ObservedState
from vision.classical import ClassicalDetector
from vision.count import count
from vision.fuse import Fusion
from vision.gate import BoardView, Gate, GateResult
from vision.light import light_notice
from vision.records import DENSITY_MIRRORED, DETECTORS, Detections
from vision.touched import TouchedRegions
from vision.track import TrackReader, TrackReading


#: Alignment of a still frame with the calibration reference (edge correlation, 0..1) below which
#: the board or the camera is taken to have moved.
MOVED_BELOW = 0.35
MOVED_FRAMES = 3
ALIGN_SCALE = 0.25
#: ...or whose view lies this many board units or more off the calibration view (the shift that
#: best lines the two up: their phase correlation). The alignment alone let a board slid sideways
#: go on being read through the old pose: the score track's boxes repeat along it, and the frame's
#: long sides line up with themselves. Slid 60 pixels along the track, 2 of 18 rendered tables
#: (6 a tier) still scored above MOVED_BELOW (0.53 and 0.45), and slid 20 pixels, 10 did (up to
#: 0.59), the pieces then about 30 board units from where the pose put them; the shift measured
#: 8 to 11 view pixels (ALIGN_SCALE), and 1 at most on the still tables' own game photos.
MOVED_DRIFT = 8.0
#: Where the camera's frame cuts the board off, the alignment test looks only at the part in view,
#: this many view pixels in from its edge. Looked at whole (before session 111), the view of the
#: frame and the calibration view were both black past the cut, and the cut's own edge, the same
#: in both wherever the board had gone, held the test up: a board cut three tenths short, then
#: knocked 60 pixels sideways, scored above MOVED_BELOW, was not re-localised, and was read 61
#: pixels off (at the 95th percentile of its label points).
ALIGN_MARGIN = 4


@dataclass
class FrameResult:
    index: int
    gate: GateResult | None
    state: ObservedState | None = None          # the count of this frame, when it was still
    committed: ObservedState | None = None      # set when this frame committed a new state
    #: with a commit: the regions whose pieces a hand changed since the last commit (a piece came,
    #: went or moved in their core; on an island, or off its coast, with nothing next to it read
    #: otherwise), whatever the camera reads there now; None where the pipeline cannot tell (its
    #: first commit, a new pose or map, ``hold_untouched`` off)
    changed: frozenset[str] | None = None
    #: set when the committed counts stand but the camera now sees the board otherwise (a hand
    #: came to rest over some regions or left them; :class:`vision.fuse.Fusion`)
    resighted: ObservedState | None = None
    detections: Detections | None = None
    timings: dict[str, float] = field(default_factory=dict)
    error: str = ""
    moved: bool = False               # the board or camera moved; the pose was found again
    #: the still run this frame belongs to has had its last say: every move made on the table is
    #: committed (what a card drawn is judged on, :meth:`webui.live.LiveGame.table_settled`)
    settled: bool = False
    notice: str = ""                  # something the players should know (the light moved far; a covered calibration)
    #: where the score markers stand, read once a still run has had its last say (``settled``)
    track: TrackReading | None = None


def make_detector(profile: CalibrationProfile, which: str = "auto", partial: bool = True):
    """``density`` (the shipped counting network), ``density-mirrored`` (the same, reading each
    frame mirrored as well: more accurate, slower), ``yolo`` (the box detector, when its ONNX file
    is there), ``classical``, or ``auto``: the best one that is shipped. ``partial``: the counting
    network reads a still run again only where it changed (:mod:`vision.partial`)."""
    from vision.density import DEFAULT_COUNTER, DensityCounter
    from vision.yolo import DEFAULT_MODEL, YoloDetector
    if which == DENSITY_MIRRORED:
        return DensityCounter(profile, mirrored=True)
    if which == "density" or (which == "auto" and DEFAULT_COUNTER.is_file()):
        return DensityCounter(profile, partial=partial)
    if which == "yolo" or (which == "auto" and DEFAULT_MODEL.is_file()):
        return YoloDetector(profile.pose, tuple(profile.image_size), k1=profile.k1)
    if which not in DETECTORS:
        raise ValueError(f"unknown detector '{which}' ({', '.join(DETECTORS)})")
    return ClassicalDetector(profile)


class Pipeline:
    """Frames in, committed states out. If the table or the camera is bumped (the commonest
    complaint of camera-chess users), a few still frames that no longer line up with the
    calibration reference trigger a new board search; the game and its committed state go on."""

    def __init__(self, profile: CalibrationProfile, detector=None, agree: int = 3, which: str = "auto",
                 hold_untouched: bool = True, partial: bool = True, players: tuple[str, ...] = ()):
        """``detector``: a fixed detector to use; otherwise one is made by name (``which``, see
        :func:`make_detector`) for each pose, the first and every one found again after a bump.
        ``hold_untouched``: regions whose pixels did not change since the last commit keep their
        committed count (:mod:`vision.touched`); off, every still frame is counted afresh.
        ``partial``: see :func:`make_detector`. ``players``: the armies whose score markers to read
        (:class:`vision.track.TrackReader`; by default those the calibration found on box 0)."""
        self.profile = profile
        self.players = tuple(players)
        self.which = which
        self.hold_untouched = hold_untouched
        self.partial = partial
        self.geo = profile.geometry
        self.fixed_detector = detector
        self.fusion = Fusion(agree)
        self.index = 0
        self.relocalised = 0
        self._misaligned = 0
        self._setup_pose()
        self._notice = self._calibration_notice = self._calibration_says()

    def _calibration_says(self) -> str:
        """What the calibration tells the players for the whole game (:func:`calibration_notices`), or ""."""
        return "; and ".join(calibration_notices(self.profile))

    def _setup_pose(self) -> None:
        self.detector = self.fixed_detector or make_detector(self.profile, self.which, self.partial)
        self.gate = Gate(self.profile, self.geo)
        self._align_view = BoardView.of(self.profile, self.geo, ALIGN_SCALE)
        w, h = self.profile.image_size
        seen = self._align_view.seen((h, w))
        self._align_seen = None if seen.all() else \
            cv2.erode(seen.astype(np.uint8), np.ones((2 * ALIGN_MARGIN + 1,) * 2, np.uint8), borderValue=1) > 0
        self._window = cv2.createHanningWindow(self._align_view.size, cv2.CV_32F)
        self._ref_edges = edge_strength(cv2.cvtColor(cv2.resize(self.profile.reference, self._align_view.size,
                                                                interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY))
        # the calibration view as the drift compares each frame's with it, made once (see _drift)
        ref = self._ref_edges.astype(np.float32)
        self._drift_ref = ref if self._align_seen is None else ref * self._align_seen
        self.touched = TouchedRegions(self.profile, self.geo) if self.hold_untouched else None
        self.track = TrackReader(self.profile, self.players) if self.geo.track_boxes else None
        self._track_read = False

    def alignment(self, image: np.ndarray) -> float:
        """How well the frame, rectified with the current pose, lines up with the calibration view
        (where the camera sees the board: ALIGN_MARGIN)."""
        return self._alignment(self._edges(image))

    def drift(self, image: np.ndarray) -> float:
        """How far (board units) the frame, rectified with the current pose, lies off the
        calibration view: the length of the shift that lines their edges up best (OpenCV's phase
        correlation, where the camera sees the board)."""
        return self._drift(self._edges(image))

    def _edges(self, image: np.ndarray) -> np.ndarray:
        """The edges' strength (:func:`calibration.align.edge_strength`) of the frame's view."""
        return edge_strength(cv2.cvtColor(self._align_view(image), cv2.COLOR_BGR2GRAY))

    def _alignment(self, edges: np.ndarray) -> float:
        return correlation(edges, self._ref_edges, self._align_seen)

    def _drift(self, edges: np.ndarray) -> float:
        view = edges.astype(np.float32)
        if self._align_seen is not None:
            view = view * self._align_seen
        (dx, dy), _ = cv2.phaseCorrelate(self._drift_ref, view, self._window)
        return float(np.hypot(dx, dy)) / ALIGN_SCALE

    def _moved(self, image: np.ndarray) -> bool:
        """Whether the board or the camera seems to have moved since the pose was found: the frame
        lines up with the calibration view below MOVED_BELOW, or lies MOVED_DRIFT off it."""
        edges = self._edges(image)
        return self._alignment(edges) < MOVED_BELOW or self._drift(edges) >= MOVED_DRIFT

    def _relocalise(self, image: np.ndarray) -> bool:
        from calibration.localise import BoardNotFound, locate_board
        try:
            pose = locate_board(self.profile.undistort(image), self.profile.reference, self.geo)
        except BoardNotFound:
            return False
        self.profile.H = pose.H
        self._setup_pose()
        self.relocalised += 1
        self._misaligned = 0
        return True

    @property
    def committed(self) -> ObservedState | None:
        return self.fusion.committed

    def process(self, image: np.ndarray | None) -> FrameResult:
        self.index += 1
        if (image is None or getattr(image, "ndim", 0) != 3 or image.shape[2] != 3 or image.dtype != np.uint8
                or image.size == 0):
            # a camera or file gives 8-bit colour frames; anything else (grey, with alpha, empty) is no frame
            self.fusion.reset_run()
            return FrameResult(self.index, None, error="unreadable frame")
        if (image.shape[1], image.shape[0]) != tuple(self.profile.image_size):
            # a camera that changed its resolution mid-game (a USB hiccup): the calibration's pose
            # and reference do not fit such a frame, so nothing is read from it
            self.fusion.reset_run()
            w, h = self.profile.image_size
            said = (f"the camera now delivers {image.shape[1]}x{image.shape[0]} frames, the calibration was made "
                    f"at {w}x{h}; keeping the last committed state")
            return FrameResult(self.index, None, error=said, notice=said)     # the tablets say it too
        t0 = time.perf_counter()
        g = self.gate.check(image)
        t1 = time.perf_counter()
        res = FrameResult(self.index, g, timings={"gate": t1 - t0})
        if not g.still:
            self.fusion.reset_run()
            return res
        if self._moved(image):
            self._misaligned += 1
            self.fusion.reset_run()
            if self._misaligned >= MOVED_FRAMES:
                res.moved = self._relocalise(image)
                if not res.moved:
                    res.error = "the board is out of view or has moved; keeping the last committed state"
            return res
        self._misaligned = 0
        if self.profile.geometry is not self.geo:      # the map was fitted again (the dashboard's set-up)
            self.geo = self.profile.geometry
            self._setup_pose()
            self._notice = self._calibration_notice = self._calibration_says()
            self.fusion.reset_run()
        if self.fusion.settled:
            # the run has had its last say: a further still frame of it could change nothing, so
            # a table left still while the players think costs the gate alone, and the score
            # track is read once (a marker moves under a hand, which ends the run)
            res.notice, res.settled = self._notice, True
            if self.track is not None and not self._track_read:
                t_track = time.perf_counter()
                res.track, self._track_read = self.track.read(image), True
                res.timings["track"] = time.perf_counter() - t_track
            return res
        self._track_read = False
        if hasattr(self.detector, "detect_in_run"):    # reads a still run's frames together
            det = self.detector.detect_in_run(image, first=self.fusion.run_length == 0)
        else:
            det = self.detector.detect(image)
        t2 = time.perf_counter()
        state = count(det, self.geo, det.unseen)
        if self.touched is not None:
            state = self.touched.hold(image, state)
        t3 = time.perf_counter()
        res.detections, res.state = det, state
        light = getattr(self.detector, "light", None)          # vision.light.LightMatch
        if light is not None and getattr(light, "last", None) is not None:
            self._notice = light_notice(light.last) or self._calibration_notice
        res.notice = self._notice
        res.committed = self.fusion.offer(state)
        res.resighted = self.fusion.resighted
        if self.touched is not None:
            if res.committed is not None:
                res.changed = self.touched.changed
                self.touched.remember(image, res.committed)
            elif res.resighted is not None:
                self.touched.see_again(image, res.resighted)
        res.timings.update({"detect": t2 - t1, "count": t3 - t2})
        return res
