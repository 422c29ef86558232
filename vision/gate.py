"""Motion and occlusion gating: is this frame still, with nothing over the board?

Counting a frame with a hand in it gives nonsense, and camera-chess users' first complaint is
a tracker that commits half-made moves. A frame passes the gate only when (1) it differs
little from the previous frame inside the board, beyond what the camera's own noise changes (no
motion), and (2) no large changed blob covers the board (no hand, arm or card), measured at a
small scale so gating runs at well over 30 frames a second.

The comparison is with the last still frame, not the empty board: a pile of pieces that was
there before is no occluder, a new arm is. An arm reaches in over the board's edge; a large
changed blob that lies wholly inside the board, no wider than a pile (WIDE_BLOB), and has not
moved since the frame before (ISLAND_SETTLE), is what the hand left there (a reinforcement
pile, which a tilted camera sees as a long streak: on rendered hard tables piles of a few
legionaries covered twice OCCLUDER_FRACTION and held the commit back by SETTLE_FRAMES). A die
left on the board passes too, and a card once it has lain still SETTLE_FRAMES; the counter
marks the regions they hide. When the scene has not moved for a while but still differs a lot
(the first frame of a game in progress, say), it is accepted as the new still table.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.lens import distort_points
from calibration.profile import CalibrationProfile
from vision.geometry import BoardGeometry

GATE_SCALE = 0.2            # pixels per board unit for gating
MOTION_THRESHOLD = 18       # grey levels a pixel must change by since the last frame to count as moving...
MOTION_FRACTION = 0.002     # ...over this share of the board, for a frame to count as moving
NOISE_SHARE = MOTION_FRACTION / 4  # ...unless the camera's own noise needs more: a level past which at most
NOISE_FRAMES = 60           # this share of the board changed in the quietest of this many frames (about
MOTION_CEILING = 36         # 5 s at 12 fps), and never past this many grey levels (see Gate._motion_level)
CHANGE_LEVEL = 40           # levels in any colour channel: a pixel changed since the last still frame
OCCLUDER_FRACTION = 0.003   # one new blob this large (of the board) is a hand, an arm or a card; a
                            # placed reinforcement is about a tenth of that
SETTLE_FRAMES = 16          # a scene motionless this long (about 1.3 s at 12 fps) is accepted as the
                            # new still table even if it differs a lot from the last one
ISLAND_SETTLE = 1           # ...and this long when no large changed blob reaches the board's edge: the
                            # first frame without motion. It was 2 until session 49, when a move on
                            # twelve rendered games waited up to two frames after the hand left (now one)
BARE_SHARE = 0.5            # ...or when it is something a still frame took in that has gone: at least
                            # this share of its pixels show the board as it was before that thing came
ARM_KEPT = 0.5              # after motion, large blobs covering this share of the pixels the arm
                            # covered before it are that arm, moved a little, and a group of changes at
                            # the edge keeping this share of the most pixels the hand had is that hand
                            # (a pile a hand leaves is about a tenth of a hand)
EDGE = 1                    # pixels of the gate view along the edge of what the camera sees of the
                            # board: a blob there reaches in from outside...
ARM_GAP = 9                 # ...or joined to one across gaps this wide (pixels, 45 board units): a
                            # forearm over a province of its own colour changes few pixels
ARM_RIM = 10                # ...and that changed at least this many pixels of the edge (50 board
                            # units, 2.5 cm; a wrist is wider). A pile standing where the camera's
                            # frame cuts the board off changes 1 or 2; one in a province that runs to
                            # the board's edge, leaning over it at a tilted camera, up to 7 on the
                            # rendered hard games; every still arm on twelve rendered games, 12 or more
WIDE_BLOB = 0.01            # ...or, for a blob this large (of the board; three times the largest pile),
                            # when it lies within ARM_GAP of this many pixels of the edge. A blob this
                            # large waits SETTLE_FRAMES wherever it lies: on a rendered easy game a
                            # hand rested inside the board, its red sleeve over the red frame, and
                            # passed as a pile: 10 frames with a hand over the board passed there, now
                            # none (14 on twelve rendered games, now 4)
UNDONE = 0.9                # ...not counting the edge pixels the last still frame took in changed, when
                            # this share of them are back as the still frame before showed them
CALM_SHARE = 0.9            # a large blob this share of whose pixels, and of those around it, have looked the
                            # same for SETTLE_FRAMES frames stands still, whatever moved elsewhere (Gate._rested)
FAINT_LEVEL = 25            # levels in any colour channel: a change a hand of the board's own shades
                            # still makes (see Gate._faint_arm)


def blobs_past(change: np.ndarray, level: int) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """The pixels whose ``change`` (:func:`colour_change`) is past ``level``, closed over 3 x 3 (uint8
    mask), and their blobs: count (the background included), labels and stats
    (``cv2.connectedComponentsWithStats``)."""
    mask = cv2.morphologyEx((change > level).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    return mask, n, labels, stats


def colour_change(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per pixel, the largest change over the colour channels of two BGR images (uint8). Taken
    channel by channel: numpy's ``max(axis=2)`` over a frame's 3 channels is ten times slower."""
    d = cv2.absdiff(a, b)
    return np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2])


class BoardView:
    """A frame as the board seen from straight above at ``scale`` pixels per board unit, each
    view pixel interpolated from the frame's pixels around its board point. The gate, the
    untouched-region check and the pipeline's alignment test look so.

    The pose ``H`` is for the *undistorted* frame (:mod:`calibration.lens`), so each view pixel
    is looked up where the camera shows its board point: through ``H``, then bent by the lens
    ``k1``. Looked up through ``H`` alone (before session 37), a barrel-distorted webcam's frame
    lay several view pixels off the calibration view towards its corners: on a hard rendered
    game (k1 = -0.14) every still frame scored 0.31 on the alignment test, below the 0.35 that
    means "the board has moved", and nothing was committed.

    The view is interpolated, not averaged: ``warpPerspective``'s ``INTER_AREA`` was
    ``INTER_LINEAR`` all along, and the gate's thresholds in view pixels (ARM_RIM, say) are set
    for that; an averaged view widens every change by a pixel. The lookup table is made once
    per frame size."""

    def __init__(self, H: np.ndarray, geo: BoardGeometry, scale: float, k1: float = 0.0,
                 window: tuple[int, int, int, int] | None = None):
        """``H``: the pose (board units -> undistorted image pixels); ``k1``: the calibrated lens;
        ``window``: only this part of the board (x0, y0, x1, y1 in board units; the whole board
        when None), its view pixel (0, 0) at board point (x0, y0)."""
        self.H = np.asarray(H, np.float64)
        self.scale = float(scale)
        self.k1 = float(k1)
        x0, y0, x1, y1 = window if window is not None else (0, 0, geo.size[0], geo.size[1])
        self.origin = (float(x0), float(y0))
        self.size = (int((x1 - x0) * scale), int((y1 - y0) * scale))
        self._tables: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    @classmethod
    def of(cls, profile: CalibrationProfile, geo: BoardGeometry, scale: float) -> "BoardView":
        """The view for a calibration profile's pose and lens."""
        return cls(profile.H, geo, scale, profile.k1)

    def _table(self, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """For a frame of ``shape``: where in it each view pixel's board point is (``cv2.remap``
        tables)."""
        h, w = shape[:2]
        if (h, w) not in self._tables:
            vw, vh = self.size
            ys, xs = np.mgrid[0:vh, 0:vw].astype(np.float64)
            board = np.stack([xs.ravel(), ys.ravel()], axis=1) / self.scale + np.asarray(self.origin)
            ideal = cv2.perspectiveTransform(board.reshape(-1, 1, 2), self.H).reshape(-1, 2)
            px = distort_points(ideal, (w, h), self.k1).reshape(vh, vw, 2).astype(np.float32)
            self._tables[(h, w)] = (np.ascontiguousarray(px[..., 0]), np.ascontiguousarray(px[..., 1]))
        return self._tables[(h, w)]

    def __call__(self, image: np.ndarray) -> np.ndarray:
        mx, my = self._table(image.shape)
        return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)

    def seen(self, shape: tuple[int, ...]) -> np.ndarray:
        """The view pixels whose board point a frame of ``shape`` shows (boolean mask)."""
        mx, my = self._table(shape)
        h, w = shape[:2]
        return (mx > -0.5) & (mx < w - 0.5) & (my > -0.5) & (my < h - 0.5)


@dataclass(frozen=True)
class GateResult:
    still: bool
    motion: float          # fraction of the board that moved since the last frame
    occluder: float        # fraction of the board under the largest changed blob
    reason: str = ""


class Gate:
    def __init__(self, profile: CalibrationProfile, geo: BoardGeometry | None = None):
        self.geo = geo or profile.geometry
        self.view = BoardView.of(profile, self.geo, GATE_SCALE)
        self._empty_board = profile.reference   # the calibration's empty board, rectified (see _hand_at_start)
        self.ref: np.ndarray | None = None      # the last still frame; the first frame starts it
        self.prev: np.ndarray | None = None
        self.covered_run = 0        # frames motionless since a large changed blob came into view
        self._rim: np.ndarray | None = None     # the view's pixels along the edge of what the camera sees
        self._seen: np.ndarray | None = None    # the view's pixels the camera sees (uint8 mask)
        self._quiet: deque[int] = deque(maxlen=NOISE_FRAMES)   # the noise's level in the last frames
        self._arm = False       # a large blob of this motionless spell reached in: sensor noise can cut an
                                # arm's weak link to the edge in one frame, and the hand must not pass then
        self._arm_at: np.ndarray | None = None  # the pixels the arm covered when last seen (see _same_arm)
        self._taken: np.ndarray | None = None   # the edge pixels the last still frame took in changed
                                                # with nothing large in view...
        self._before: np.ndarray | None = None  # ...and the still frame before it (see _reaches_in)
        #: the view pixels a still frame took in under a large changed blob (a hand that rested,
        #: a card), and the board there before it came: what :meth:`_gone` compares with
        self._hidden: np.ndarray | None = None
        self._hidden_board: np.ndarray | None = None
        #: the pixels :meth:`_hand_at_start` hid, until they are known to be no hand (see _expire_start)
        self._at_start: np.ndarray | None = None
        self._arm_peak = 0          # the most pixels a group of changes that held a large blob and
                                    # reached in over the edge had since the last still frame (see
                                    # _arm_in_pieces, _at_rim); never above 0 unless _hand_seen
        self._hand_seen = False     # a large changed blob was seen since the last still frame that had
                                    # none (see _arm_in_pieces)
        self._frames = 0            # frames checked
        #: each view pixel's colour when it last changed past the motion level (in any channel), and
        #: the frame it did: how long it has looked the same (see _rested)
        self._calm: np.ndarray | None = None
        self._calm_since: np.ndarray | None = None

    def check(self, image: np.ndarray) -> GateResult:
        view = self.view(image)
        gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
        area = gray.size
        self._frames += 1
        if self.prev is None:
            self.prev, self.ref = gray, view
            self._calm, self._calm_since = view.copy(), np.full(gray.shape, self._frames)
            self._hand_at_start(view, image.shape)
            return GateResult(False, 0.0, 0.0, "first frame")
        moved = cv2.absdiff(gray, self.prev)
        level = self._motion_level(moved, image.shape)
        motion = float(np.count_nonzero(moved > level) / area)
        self.prev = gray
        since = colour_change(view, self._calm) > level      # in colour, as the blobs are
        self._calm[since], self._calm_since[since] = view[since], self._frames
        self._expire_start()
        # in colour: a brown forearm over the red frame is the frame's grey
        change = colour_change(view, self.ref)
        changed, n, blobs, stats = blobs_past(change, CHANGE_LEVEL)
        biggest = float(stats[1:, cv2.CC_STAT_AREA].max() / area) if n > 1 else 0.0
        self._hand_seen = self._hand_seen or biggest > OCCLUDER_FRACTION
        if biggest > OCCLUDER_FRACTION:
            self._arm_peak = max(self._arm_peak, self._incoming(view, changed, blobs, stats, image.shape))
        if motion > MOTION_FRACTION:
            self._arm, self.covered_run = False, 0
            return GateResult(False, motion, biggest, "motion")
        large = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] > OCCLUDER_FRACTION * area)
        rested = self._rested(large[large > 0], blobs)
        large = np.setdiff1d(large[large > 0], rested)
        if not len(large) and (not self._hand_seen or self._arm_peak) \
                and np.count_nonzero(changed) > OCCLUDER_FRACTION * area:
            unrested = changed if not len(rested) else changed & ~np.isin(blobs, rested)
            large = self._arm_in_pieces(view, unrested, blobs, image.shape, self._arm_peak)
        under = np.isin(blobs, large) if len(large) else None
        self._arm = under is not None and (self._arm or self._same_arm(under)
                                           or self._reaches_in(view, changed, blobs, large, under, image.shape))
        if self._arm:
            self._arm_at = under
        elif under is None:     # nothing large is left: no arm to remember
            self._arm_at = None
        # a blob wider than any pile is a hand, even wholly inside the board: a sleeve of the
        # frame's own shade can cut it off from the edge by more than ARM_GAP
        wide = bool((stats[large, cv2.CC_STAT_AREA] >= WIDE_BLOB * area).any()) \
            or (not self._arm and self._spread(blobs, large, area))      # an arm waits as long already
        faint = False
        if not (self._arm or wide):     # a hand of the board's own shades, alone or beside its pile
            arm = np.setdiff1d(self._faint_arm(view, change, changed, blobs, image.shape), rested)
            if len(arm):
                large, faint = np.union1d(large, arm), True
                under = np.isin(blobs, large)
        # counted from the frame the blob came in, not from the last motion: a hand's first sliver
        # over the edge moves too few pixels to count as motion, and the table had been still
        self.covered_run = self.covered_run + 1 if len(large) else 0
        back = self._back(view) if under is not None or len(rested) else None
        gone = under is not None and self._gone(back, under)
        settle = SETTLE_FRAMES if (self._arm or faint or wide) and not gone else ISLAND_SETTLE
        if len(large) and self.covered_run < settle:
            return GateResult(False, motion, biggest, "something covers the board")
        for b in np.union1d(large, rested):
            blob = blobs == b
            self._take_in(blob, self._gone(back, blob))
        self._taken = None if len(large) or len(rested) else self._seen_rim(image.shape) & (changed > 0)
        self._before = self.ref
        # a large blob taken in may hold a hand's last sliver, and what it leaves is still its work
        self.ref, self._arm_at, self._hand_seen, self._arm_peak = view, None, biggest > OCCLUDER_FRACTION, 0
        return GateResult(True, motion, biggest)

    @staticmethod
    def _spread(blobs: np.ndarray, large: np.ndarray, area: int) -> bool:
        """Whether ``large`` blobs lying within ARM_GAP of each other come to WIDE_BLOB of the board
        together: a hand whose fingers the board's shades between them cut apart is as wide as a
        hand. (A rendered hard game, seed 278: a hand reached past a card lying on the board, the
        card drawn over its palm, and its fingers made three blobs of 0.5 to 1.0 % of the board,
        2.4 % together; still for two frames, they passed as piles, and a state was committed
        under the hand.) Piles a move left stand farther apart or are smaller: see
        docs/measured.md, session 88."""
        if len(large) < 2:
            return False
        mask = np.isin(blobs, large).astype(np.uint8)
        _, groups = cv2.connectedComponents(cv2.dilate(mask, np.ones((ARM_GAP, ARM_GAP), np.uint8)))
        return bool(np.bincount(groups[mask > 0]).max() >= WIDE_BLOB * area)

    def _hand_at_start(self, view: np.ndarray, shape: tuple[int, ...]) -> None:
        """The first frame starts the still table, whatever it shows; a hand may be over the board
        then (the loop started, or restarted, as a player reached for a piece). When that hand
        left, the board it uncovered changed from the first frame in an arm's shape reaching the
        edge, and was held as an arm coming in: SETTLE_FRAMES after every later move, until one
        left the table still that long. On a rendered hard game (seed 23) started at a frame with
        a hand over the board, nothing was committed in the 10 s that followed, four moves.

        So the first frame is compared with the calibration's empty board too. A large changed
        blob there whose changes, joined across ARM_GAP, cross ARM_RIM pixels of the edge
        (:meth:`_at_rim`) may be such a hand, and the board under it is taken to be the empty
        board, as :meth:`_take_in` keeps the board under a hand a still frame took in: once the
        hand has gone, :meth:`_gone` sees the board back, and the frame passes as soon as it is
        still. What the empty board does not show there (pieces under the hand) leaves less of
        it back; BARE_SHARE of it is enough.

        Only that: the frames are not held for it. The empty board was photographed in another
        light, and glare or a shadow that has moved since crosses the edge as a hand does: the
        first frames of 30 of 40 rendered hard games without a hand had such a blob (31 counting
        only blobs that cross the edge themselves, which missed one hand of eight on seed 23).
        Held for an arm, their set-up would wait 1.3 s, past the first move's hand on some. Where
        there is no hand, the empty board under such a blob says "gone" only of a blob that looks
        like it; on ten whole rendered games the gate passed exactly the frames it passed before.
        A hand that rests where it was in the first frame therefore passes with it, as before:
        the counter marks the regions it hides."""
        empty = self._empty_in_view()
        changed, n, blobs, stats = blobs_past(colour_change(view, empty), CHANGE_LEVEL)
        large = np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] > OCCLUDER_FRACTION * changed.size) + 1
        if not len(large):
            return
        groups, at_rim = self._at_rim(view, changed, shape)
        hand = np.isin(blobs, large) & np.isin(groups, at_rim)
        if hand.any():
            self._hidden, self._hidden_board, self._at_start = hand, empty, hand.copy()

    def _expire_start(self) -> None:
        """Forget what :meth:`_hand_at_start` hid once CALM_SHARE of it has looked the same for
        SETTLE_FRAMES frames since the start: a hand does not hold that still as the camera starts,
        and what does (glare, a shadow, a light unlike the calibration photo's) is part of the
        table. Kept, such a blob is compared with the calibration's empty board for as long as the
        game lasts, and a hand that later comes over it can look like that board where the glare
        lit it: on a rendered hard game (seed 111) an arm reaching over a glare on the board's east
        side passed as the board coming back, was taken into the still frame, and when it left the
        board it uncovered held the gate as an arm coming in for 7 s, four moves committed as one
        and a turn read as a breach. A hand that does rest that long from the start is then part
        of the still table, as any blob resting that long is (:meth:`_rested`): when it leaves, the
        board it uncovers waits SETTLE_FRAMES once."""
        if self._at_start is None:
            return
        left = self._at_start & self._hidden
        if not left.any():
            self._at_start = None       # it went, and the board came back
            return
        if float(np.mean(self._settled_pixels()[left])) >= CALM_SHARE:
            self._hidden &= ~self._at_start
            self._at_start = None

    def _empty_in_view(self) -> np.ndarray:
        """The calibration's empty board as this gate's view shows it: each view pixel's board point
        looked up in the rectified reference, interpolated as the view looks up a frame's."""
        vw, vh = self.view.size
        ys, xs = np.mgrid[0:vh, 0:vw].astype(np.float32)
        per_unit = self._empty_board.shape[1] / self.geo.size[0]       # the reference's pixels per board unit
        scale = np.float32(per_unit / self.view.scale)
        return cv2.remap(self._empty_board, xs * scale, ys * scale, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)

    def _rested(self, large: np.ndarray, blobs: np.ndarray) -> np.ndarray:
        """The ``large`` blobs that have stood still on their own: CALM_SHARE of their pixels have
        looked the same (within the motion level) for SETTLE_FRAMES frames, whatever moved
        elsewhere in between, and so have the pixels within ARM_GAP of them (an arm that drew
        back along itself leaves its sleeve's pixels as they were, but not the board beside them).
        They are part of the still table, as a whole scene motionless that long is. A pile of four
        legionaries in a province on the print's east edge, at a tilted camera, crossed 16 pixels
        of the edge and was held as an arm (the print's seed 60); the still spells between the
        moves that followed were shorter than SETTLE_FRAMES, and nothing was committed for 17 s,
        six moves in all. An arm resting on the board is as still, and
        passes as it did after SETTLE_FRAMES; one that shifts, however little, starts again."""
        if not len(large):
            return large
        old = self._settled_pixels()
        near = np.ones((ARM_GAP, ARM_GAP), np.uint8)
        return np.array([b for b in large if np.mean(old[cv2.dilate((blobs == b).astype(np.uint8), near) > 0])
                         >= CALM_SHARE], dtype=large.dtype)

    def _settled_pixels(self) -> np.ndarray:
        """The view pixels that have looked the same (within the motion level) for SETTLE_FRAMES
        frames, whatever moved elsewhere (see :meth:`_rested`, :meth:`_expire_start`)."""
        return (self._frames - self._calm_since) >= SETTLE_FRAMES

    def _motion_level(self, moved: np.ndarray, shape: tuple[int, ...]) -> float:
        """How many grey levels a view pixel must change by since the last frame to count as moving
        (``moved``: the change per pixel): MOTION_THRESHOLD, or more where the camera's own noise
        needs it, up to MOTION_CEILING. The noise's level is the lowest past which at most
        NOISE_SHARE of the board changed in any of the last NOISE_FRAMES frames: in the quietest
        of them nothing but the noise changed.

        A dim, noisy webcam changes every pixel a little from frame to frame. On a hard rendered
        game on the print (seed 48) the sensor noise alone moved 0.29 to 0.37 % of the board by
        more than MOTION_THRESHOLD in every frame, over MOTION_FRACTION: no frame was ever still,
        and none of the game's 10 moves was committed; about 0.05 % moved by more than 24 levels.
        On the other hard games the noise moved at most 0.1 % of the board past MOTION_THRESHOLD.

        Why the quietest frame, not each frame's own figures: a hand moves the board too, and a
        level raised by the hand that leaves misses the last of its motion. A first form took each
        frame's own spread (2.5 times the level 95 % of the pixels stayed within); on a game on the
        print (seed 36) whose noise moved 0.01 % of the board past MOTION_THRESHOLD it raised the
        level to 20, and the frame in which a hand's shadow left the board passed as still (0.19 %
        of the board moved past 20, 0.23 % past 18): that move was never committed."""
        counts = cv2.calcHist([moved], [0], self._seen_mask(shape), [256], [0, 256]).ravel()
        above = counts.sum() - np.cumsum(counts)        # pixels that changed by more than each level
        self._quiet.append(int(np.argmax(above <= NOISE_SHARE * moved.size)))
        return float(min(max(MOTION_THRESHOLD, min(self._quiet)), MOTION_CEILING))

    def _same_arm(self, under: np.ndarray) -> bool:
        """Whether the large changed blobs (``under``) cover ARM_KEPT of the pixels the arm covered
        before the last motion: the arm moved a little and is still there. Motion clears the arm
        (the hand may have left, and what it left is no arm), and the next still frames look for
        it again at the board's edge. There a sleeve over the frame of its own shade can change too
        few pixels of the edge: on a hard game on the print an arm that had shifted on the board
        passed as a pile after ISLAND_SETTLE frames, a state was committed with it over the board,
        and when it left, the board it uncovered held the gate SETTLE_FRAMES as an arm coming in
        (a move committed 2.2 s after the last hand left)."""
        if self._arm_at is None:
            return False
        return float(np.count_nonzero(under & self._arm_at)) >= ARM_KEPT * np.count_nonzero(self._arm_at)

    def _back(self, view: np.ndarray) -> np.ndarray | None:
        """The view pixels a still frame took in under a large blob (:meth:`_take_in`) that show
        the board as it was before that thing came (boolean); None: nothing was taken in so."""
        if self._hidden is None:
            return None
        return self._hidden & (colour_change(view, self._hidden_board) <= CHANGE_LEVEL)

    @staticmethod
    def _gone(back: np.ndarray | None, under: np.ndarray) -> bool:
        """Whether the large changed blobs (``under``) are something a still frame took in that has
        gone, rather than something that came: BARE_SHARE of their pixels are back as the board
        was before that thing came (``back``, :meth:`_back`). A hand that rested still for
        SETTLE_FRAMES was taken into the still frame (as a card left on the board is); when it
        left, the board it had covered changed from that frame over an arm's shape, reaching the
        edge. Taken for an arm coming in, that held the gate SETTLE_FRAMES again after every later
        move until one left the table still that long: on a hard game on the print, a move was
        committed 3.4 s after the last hand left.

        The board before is the camera's own view of it, in the same light and pose. Until session
        63 it was the calibration's empty board, and the test was whether the blob looked like it
        now and had not then. On the print's textured art a hard camera's still frames look like
        their empty board over only 70 % of the board and 30 % of its busiest provinces, while a
        brown hand over them looked like it over 53 %: on a hard game of seed 32 on the print a
        hand that came in was taken for one that had gone after four still frames, was taken into
        the still frame with its regions marked unseen, and when it left the board it uncovered
        held the gate as an arm after every move to the game's end: 5 of 48 moves of the set
        (seeds 31 to 34) came in with a later one or never, two states were committed with a hand
        over the board."""
        return back is not None and float(np.mean(back[under])) >= BARE_SHARE

    def _take_in(self, blob: np.ndarray, gone: bool) -> None:
        """A still frame takes in a large changed blob (its pixels: ``blob``). One that uncovered
        the board (``gone``, :meth:`_gone`) leaves it no longer hidden; one that came over the
        board (a hand that rested, a card) hides it, and what it covers, as the last still frame
        showed it, is kept for :meth:`_back`. Blob by blob: a card moved across the board uncovers
        where it lay and hides where it lies."""
        if gone:
            self._hidden &= ~blob
            return
        if self._hidden is None:
            self._hidden, self._hidden_board = np.zeros(blob.shape, bool), self.ref.copy()
        self._hidden_board[blob] = self.ref[blob]     # a hand over a card: the card is what it hides
        self._hidden |= blob

    def _reaches_in(self, view: np.ndarray, changed: np.ndarray, blobs: np.ndarray, large: np.ndarray,
                    under: np.ndarray, shape: tuple[int, ...]) -> bool:
        """Whether one of the ``large`` blobs (their pixels: ``under``), joined to the changes around it across gaps of
        ARM_GAP, reaches the edge of what the camera sees: an arm, not what a hand left. The
        edge itself must have changed: a pile left in a province along the board's frame lies
        within a gap of the edge, and taking it for an arm held a move back for 1.3 s (most
        moves on the rendered games leave the table still for less). And it must have changed
        over a wrist's width (ARM_RIM): where the camera's frame cuts the board off, a pile placed
        at the cut touches the edge too (on a hard rendered game that held a move back 1.5 s), and
        so does a pile in a province that runs to the board's edge, as on the real print's east,
        west and south sides: a tilted camera leans its pieces over the edge (on a hard game on
        the print that held a move back 1.5 s with ARM_RIM at 25 board units, which was a
        legionary base and a half).

        Edge pixels that the last still frame took in changed with nothing large in view, and that
        are now back as the still frame before it showed them (UNDONE of them at least), do not
        count: what came there has gone, uncovering the board. A fingertip over the rim, too small
        to move or cover anything, passes in a still frame; when the hand that followed it left,
        the edge the fingertip had covered changed from that frame over 18 pixels, joined to the
        pile the hand left, and held the gate SETTLE_FRAMES as an arm (on a hard game on the
        print, a move committed 1.3 s after the last hand left). Leaving all such pixels out,
        undone or not, let an arm through: the sleeve that followed a fingertip over the same edge
        changes those pixels and few others. And an arm that rested still long enough to be taken
        in, left, and comes back is back as well, but an arm: what went with a large blob is not
        recorded.

        Once a hand has come in since the last still frame, a group at the edge is that hand only
        if it keeps ARM_KEPT of the most pixels the hand had (:meth:`_at_rim`), as an arm that
        changes the board in small pieces must (:meth:`_arm_in_pieces`): what is left after it
        went is the pile it placed, about a tenth of it. On a hard game on the print (seed 22) a
        hand moved pieces in a province on the east edge and left; the pile there, leaning over
        the edge at a tilted camera, crossed 25 pixels of it in a group of 478 (0.9 % of the
        board, a tenth of the 4,858 the hand had), was held as an arm, and the move was committed
        1.33 s after the last hand left. A blob wider than any pile along the edge is still an arm
        (:meth:`_wide_along_edge`), whatever came before it.

        The price: a hand still for ISLAND_SETTLE frames with less than 2.5 cm of itself over the
        board's edge (a fingertip at the rim) passes as a pile would, as a card left there does;
        the counter marks the regions it hides. Looking for the arm on the table beyond the edge
        instead was tried and failed: a skin-toned arm over a wooden table changes too few
        pixels there."""
        groups, at_rim = self._at_rim(view, changed, shape, self._arm_peak)
        if np.isin(groups[under], at_rim).any():
            return True
        return any(self._wide_along_edge(blobs == b, shape) for b in large)

    def _at_rim(self, view: np.ndarray, changed: np.ndarray, shape: tuple[int, ...],
                peak: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """The changes joined across gaps of ARM_GAP (each pixel's group label), and the groups that
        changed ARM_RIM pixels or more of the edge of what the camera sees, leaving out the edge
        pixels the last still frame took in that are back as before (see :meth:`_reaches_in`).
        With ``peak`` (the most pixels the hand that came since the last still frame had, see
        :meth:`_incoming`), only the groups that keep ARM_KEPT of it: what is left of that hand,
        not the pile it placed, which is about a tenth of it."""
        joined = cv2.dilate(changed, np.ones((ARM_GAP, ARM_GAP), np.uint8))
        n, groups = cv2.connectedComponents(joined)
        rim = self._seen_rim(shape) & (changed > 0)
        if self._taken is not None and self._taken.any():
            back = self._taken & (colour_change(view, self._before) <= CHANGE_LEVEL)
            if np.count_nonzero(back) >= UNDONE * np.count_nonzero(self._taken):
                rim &= ~back
        across = np.bincount(groups[rim], minlength=n)
        at_rim = np.flatnonzero(across >= ARM_RIM)
        at_rim = at_rim[at_rim > 0]
        if peak and len(at_rim):
            sizes = np.bincount(groups[changed > 0], minlength=n)
            at_rim = at_rim[sizes[at_rim] >= ARM_KEPT * peak]
        return groups, at_rim

    def _incoming(self, view: np.ndarray, changed: np.ndarray, blobs: np.ndarray, stats: np.ndarray,
                  shape: tuple[int, ...]) -> int:
        """The most changed pixels of a group of changes joined across ARM_GAP that holds a blob
        larger than OCCLUDER_FRACTION and reaches in over ARM_RIM pixels of the edge: a hand
        coming in, as :meth:`_arm_in_pieces` weighs what is left of it once it is still. 0: none."""
        big = np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] > OCCLUDER_FRACTION * changed.size) + 1
        groups, at_rim = self._at_rim(view, changed, shape)
        held = np.intersect1d(np.unique(groups[np.isin(blobs, big)]), at_rim)
        if not len(held):
            return 0
        sizes = np.bincount(groups[changed > 0], minlength=int(groups.max()) + 1)
        return int(sizes[held].max())

    def _arm_in_pieces(self, view: np.ndarray, changed: np.ndarray, blobs: np.ndarray,
                       shape: tuple[int, ...], peak: int = 0) -> np.ndarray:
        """The blobs (their labels) of an arm that changes the board only in small pieces: with no
        large blob seen since the last still frame, a group of changes joined across ARM_GAP that
        crosses ARM_RIM pixels of the edge and covers more than OCCLUDER_FRACTION of the board,
        though none of its blobs does. A hand of the board's own shades over the print's busy art
        changes it so: on a hard game on the print (seed 17) one came in slowly over five frames,
        its group 158 to 209 pixels and 6 to 17 of the edge, passed the first still frame, was
        taken into the still frame, and a state was committed with it over Italy.

        Why only when no large blob came since the last still frame: what such a group is, a pile
        that leans over the edge is too. On the print's seed 34 the pile a hand left crossed 10 to
        11 edge pixels in a group of 195; held as an arm, it held the gate after every move (the
        still spells between moves there are shorter than SETTLE_FRAMES), and 5 of 48 moves came
        late or never. Nothing in the group tells the two apart (the seed-17 hand left a pile of
        14 edge pixels and 175). Where they differ is how they came: a pile comes in a hand, and
        that hand was a large blob in that pile's frames (the seed-34 arm's changes covered 1,074
        to 2,949 pixels while it placed it), while the seed-17 hand was never one. A pile that a
        hand of the board's own shades left at the edge is held SETTLE_FRAMES, as a card left
        there is.

        "Since the last still frame" counts from the last one with nothing large in it. A still
        frame that takes in a large blob may hold a hand's last sliver with the pile it placed: on
        a rendered hard game (seed 39) a fingertip still at the edge passed with its pile, and
        when it went, the part of the pile it had hidden came into view in three small blobs, 192
        pixels in all. Counted from that frame, it was held as an arm for 1.3 s, and a move was
        committed 3.6 s after the last hand left.

        Once a large blob has come, such a group is still an arm if it is the hand that came, not
        what it left: ``peak`` is the most pixels a group that held a large blob and reached in had
        since the last still frame (:meth:`_incoming`), and the group keeps ARM_KEPT of them. A
        hand leaves a pile about a tenth of itself. On a hard game on the print (seed 85) a hand
        came in as one large blob over five frames of motion (a group of 231 to 450 pixels, 18 to
        27 of the edge), then stopped: still, it changed the board in three blobs of 0.29, 0.23
        and 0.12 % of it (a group of 452 pixels, 19 of the edge), none large, and two states were
        committed with it over the board."""
        groups, at_rim = self._at_rim(view, changed, shape, peak)
        if not len(at_rim):
            return at_rim
        inside = (changed > 0) & np.isin(groups, at_rim)
        if np.count_nonzero(inside) <= OCCLUDER_FRACTION * changed.size:
            return at_rim[:0]
        found = np.unique(blobs[inside])
        return found[found > 0]

    def _faint_arm(self, view: np.ndarray, change: np.ndarray, changed: np.ndarray, blobs: np.ndarray,
                   shape: tuple[int, ...]) -> np.ndarray:
        """The blobs (their labels) of an arm of the board's own shades: the changes past FAINT_LEVEL
        (not CHANGE_LEVEL) form a blob wider than any pile along the edge of what the camera sees
        (:meth:`_wide_along_edge`), and these are the changed blobs within it. On a rendered hard
        game (seed 43) a hand covering 3.2 % of the board came to rest; past CHANGE_LEVEL its
        largest blob was 0.14 % of the board and its group crossed too little of the edge for
        :meth:`_arm_in_pieces`, so it passed as a pile after one frame and a state was committed
        with it over the board. Past FAINT_LEVEL its largest blob was 1.35 % of the board. A pile
        and its shadow are a tenth of that, and the sensor's noise makes specks, not blobs.

        The gate asks this of every motionless frame in which nothing else holds it, a pile in view
        or not: on the same seed's game on the print, that hand shifted and came to rest beside
        the pile it had placed (0.31 % of the board past CHANGE_LEVEL); the pile passed as a pile,
        the still frame took the hand in, and a state was committed with it over the board. The
        answer is not remembered from frame to frame (as ``_arm`` is): a hand that slides off
        slowly, moving too few pixels a frame to count as motion, leaves its pile passing at once
        (remembered, the pile held the gate 1.1 s after the hand had gone).

        A blob whose pixels look, BARE_SHARE of them, as the still frame before the last one
        showed them is the board coming back from under such a hand that the last still frame took
        in: on the print's seed 17 such a hand passed as a pile as it left, slowly, and the board
        it uncovered, held as an arm, held a move back 2.9 s. ``change``: :func:`colour_change`
        from the still frame."""
        if not changed.any():
            return np.zeros(0, np.int64)
        faint, _, parts, stats = blobs_past(change, FAINT_LEVEL)
        before = None
        for part in np.flatnonzero(stats[1:, cv2.CC_STAT_AREA] >= WIDE_BLOB * faint.size) + 1:
            within = parts == part
            if self._wide_along_edge(within, shape):
                if self._before is not None:
                    before = colour_change(view, self._before) if before is None else before
                    if float(np.mean(before[within] <= FAINT_LEVEL)) >= BARE_SHARE:
                        continue        # the board a hand the last still frame took in had hidden
                found = np.unique(blobs[within & (changed > 0)])
                if (found > 0).any():
                    return found[found > 0]
        return np.zeros(0, np.int64)

    def _wide_along_edge(self, blob: np.ndarray, shape: tuple[int, ...]) -> bool:
        """Whether ``blob`` is wider than any pile (WIDE_BLOB of the board) and lies within ARM_GAP
        of ARM_RIM pixels of the edge of what the camera sees: an arm whose sleeve changes nothing
        over the board's frame. In a dim light a brown or dark red sleeve over the red frame
        changes every colour channel by less than CHANGE_LEVEL, and on the rendered hard games on
        the print such arms, still for ISLAND_SETTLE frames, passed as piles: the still frame
        had a hand in it. A card left near the edge is held SETTLE_FRAMES once, as an arm."""
        if np.count_nonzero(blob) < WIDE_BLOB * blob.size:
            return False
        near = cv2.dilate(blob.astype(np.uint8), np.ones((ARM_GAP, ARM_GAP), np.uint8)) > 0
        return np.count_nonzero(near & self._seen_rim(shape)) >= ARM_RIM

    def _seen_rim(self, shape: tuple[int, ...]) -> np.ndarray:
        """The gate view's pixels along the edge of what the camera sees of the board (the board's
        own edge, or the frame's where the board runs out of it): an arm crosses it."""
        if self._rim is None:
            seen = self._seen_mask(shape) * 255
            seen = cv2.copyMakeBorder(seen, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
            inner = cv2.erode(seen, np.ones((2 * EDGE + 1, 2 * EDGE + 1), np.uint8))[1:-1, 1:-1]
            self._rim = (seen[1:-1, 1:-1] > 0) & (inner == 0)
        return self._rim

    def _seen_mask(self, shape: tuple[int, ...]) -> np.ndarray:
        """The gate view's pixels the camera sees (uint8, 1 where it does), made once."""
        if self._seen is None:
            self._seen = self.view.seen(shape).astype(np.uint8)
        return self._seen
