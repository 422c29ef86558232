"""Find the board in a camera image: its four corners, which way round it lies, and the
homography between board units and image pixels.

The printed board is framed in red, which stands out from tables, hands and the map.
The largest red quadrilateral is the board. It has four possible orientations: the one whose
rectified view best matches the reference art wins (the bright score track along one long
side settles it). This is the classical method; it works at any rotation and at camera
tilts up to 45 degrees.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from calibration.align import ECC_BLUR, correlation, ecc_homography, edge_agreement, edge_strength
from calibration.markers import board_corners_from_markers
from tracker.errors import AugurError
from vision.geometry import BoardGeometry, load_geometry

#: The board is compared with the reference at this many pixels per board unit.
COMPARE_SCALE = 0.25
#: The outlines that match the art best are refined, this many, and the best refined one wins.
REFINE_BEST = 3
#: Two candidate outlines whose corners are all within this many pixels are one start for the
#: refinement.
SAME_START = 3.0
#: A red outline is a candidate for the whole frame when its hull covers more than this share of
#: the image...
WHOLE_FRAME = 0.05
#: ...and a piece of a frame broken by glare or a card when it covers more than this (a die is
#: about 0.1 %). Until session 21 a piece had to cover a twentieth as well. On a hard validation
#: table (seed 5150, table 6) glare washed out a side of the frame and cut it in two; the smaller
#: piece, along the score track, covered 3.1 % of the image, and the larger alone matched the art
#: at 0.17, so the table could not be calibrated (it now is, its worst point 8.9 board units off,
#: and 55 of its 57 regions are read right). A band of glare across a medium table cut off a
#: piece of 2 % and left the pose 99 pixels off (now 1.3; see the test). Of the other 599
#: rendered tables of seeds 5150 and 31337 (100 a tier each), two poses got better (worst points
#: 11.5 -> 8.4 and 17.6 -> 13.9 board units) and one worse (3.7 -> 9.7, the same regions read
#: right); the rest did not move.
FRAME_PIECE = 0.01
#: ...or when it is long, whatever its hull covers: a side of the frame, cut off from the rest
#: where the print's thin red breaks or a die lies on it, is a long thin piece whose hull covers
#: almost nothing (session 33: on a warm-lit hard table on the real print the frame's bottom and
#: right sides were two such pieces, of under 1 % each, and the board was refused; on another a
#: die on the frame cut off a corner's piece 120 pixels long). A piece is long when its longest
#: side spans this share of the image's shorter side (a die or a score marker spans about a
#: thirtieth).
FRAME_SIDE = 0.1
#: A red outline covering at least this share of the image, but less than WHOLE_FRAME, may be the
#: board seen from too far: the refusal says so, and to bring the camera closer. A board a quarter
#: the width it has in an easy 720p calibration photo covers about 4 % of the image, and its
#: legionaries span three pixels (session 119).
FAR_FRAME = 0.01
#: The frame's pieces, most frame-like first, are joined up to this many.
JOIN_PIECES = 6
#: The alignment that refines a pose (:func:`_refine`) compares the photo with the art, and on a
#: player's own print, which the art only resembles, it can slide a side of the board inwards:
#: on a hard game rendered on the real print (seed 17, a card over the frame's right side) it
#: moved the right side into the map, its top corner 140 pixels, and matched the art better
#: (0.60) than the outline it started from (0.55, 12 pixels off). The frame is the board's outermost red, so a
#: refined pose is refused when more than OVERHANG_SHARE of the red frame's outer edge lies
#: more than OVERHANG board units outside it (and more than its start left there): its start,
#: the outline, is kept.
OVERHANG = 30.0
OVERHANG_SHARE = 0.05
#: A card over a corner of the frame hides the corner, and where the print's frame is thin along
#: the far side the outline's hull then cuts the board short: on a game video's calibration photo
#: on the real print (seed 92, a card over one corner) the outline's corner lay 100 pixels inside
#: the board along its side, and the alignment slid the pose elsewhere (29 pixels off at the
#: median). So when the best outline matches the art poorly (below MARKERS_BELOW, though not so
#: poorly as to be no board: LEAST_MATCH), it is also tried with one corner moved out along one
#: of its two sides, by up to SLIDE_MOST of that side's length in SLIDE_STEP steps, then in finer
#: steps around the best (which may end less than a step beyond SLIDE_MOST), and the best such
#: outline is a further start for the alignment when it matches the art SLIDE_GAIN better than
#: the outline itself (seed 92: 0.39 -> 0.46, the hidden corner from 103 to 3 pixels off; the
#: pose is then 4 pixels off at the median). Outlines that match well are left alone: on the
#: print, which the art only resembles, a better match by a few hundredths is no sign of a better
#: pose. Nor is an outline that is no board made one: a frame printed in another colour left an
#: outline at 0.20 that slid to 0.29 (tests/test_markers.py).
SLIDE_MOST = 0.4
SLIDE_STEP = 0.05
SLIDE_GAIN = 0.03
#: An outline that matches the art below LEAST_MATCH, though not below this, is slid too, but kept
#: only where sliding makes it match as well as a frame seen whole (MARKERS_BELOW): on a steep
#: table on the print (hard seed 483) the frame's thin near side was lost and the outline cut a
#: fifth of the board off two corners (0.14); its two corners slid out, one after the other,
#: matched at 0.52, and the pose is found within 11 pixels (it was refused). The frame printed in
#: another colour above slid to 0.29, and stays no board. A side of the outline is also pushed out
#: as a whole, both its corners along the sides they end (print seed 479: 0.36 -> 0.51, the pose
#: from 105 pixels off to 10; seed 12: from 151 to 19). Of 238 other hard tables on the print
#: (seeds 0 to 59, 140 to 199, 300 to 419) and 60 on the procedural art, two poses moved, by 0.3
#: pixels at most.
SLIDE_FROM = 0.1
#: A board whose rectified view (or its map part alone) matches the art below this is not this
#: board; nor is an outline that matches below it a start for the alignment.
LEAST_MATCH = 0.25
#: A refined pose whose edges agree with the art's below this (:func:`_locate`'s final score) is
#: no pose of this board either. Over 120 calibration photos of hard tables on the real print
#: (seeds 300 to 419) the located poses agreed at 0.36 to 0.56, and over 90 on the procedural art
#: (hard 300 to 359, medium 300 to 329) at 0.62 or more; the print's hard seed 479 (a steep board
#: at 45 degrees, a card over its side), before its outline's side was pushed out (SLIDE_FROM),
#: agreed at 0.16 with every lens tried, its corners up to 105 pixels off, and was taken: its
#: first game read 20 regions wrong a commit. Refused, the players are told to lay the corner
#: markers, as for a board the outline alone cannot find.
LEAST_EDGES = 0.25
#: Printed corner markers are sought only when the red frame matches the art worse than this
#: (a frame found on a clear table matches at 0.6 to 0.95); looking for them costs about 8 ms.
MARKERS_BELOW = 0.5
#: A board that the outlines of the frame's pieces would have refused is located once more with
#: the hull of every red piece in view together as a candidate too (:func:`_all_red_quads`).
#: Where the print's frame is a thin line along two sides, which the camera sees as a row of
#: dashes none of them large or long enough to count as a piece, every outline of the pieces
#: ends where the dashes begin. Of the calibration photos of 161 hard game videos on the real
#: print (seeds 0 to 59, 140 to 239 and 248), three were refused that way (seeds 146, 185 and
#: 248: the board steeply tilted, a card over the score track; the best outline matched the art
#: at 0.22 to 0.23, or its refined pose's map part did); the hull of all the red has the four
#: corners (seed 185's matched at 0.66), and all three are now calibrated, 4.5, 6.6 and 5.6
#: pixels off at the worst corner. The other 158, and 30 on the procedural art, calibrate
#: exactly as before. Only where the board would be refused: tried wherever the outlines match
#: poorly (below MARKERS_BELOW), it moved the calibrations of 8 of the first 60 by up to 4.5
#: pixels at the worst corner, 5 of them for the worse (seed 12: 3.5 -> 8.0): red clutter beside
#: the board widens that hull, and a poor outline is still the better start.
ALL_RED = True
#: A camera set too close or askew cuts part of the board off, and the red frame's outline then
#: ends at the photo's edge: read as the board, it squeezed the whole map into the part in view.
#: Until session 111 every region was then read in the wrong place (a top-down easy table cut a
#: tenth of its width short was found 19 pixels off at the median, a fifth short 69 pixels off), or
#: the board was refused (cut a fifth short at the top or bottom). So the best outline, where a
#: corner of it lies where the frame leaves the photo (within FRAME_EDGE of the photo's width or
#: height from an edge, red on that edge beside it: :func:`_frame_leaves_view`), is also pushed out
#: past the edge (:func:`_pushed`), each corner of a side along the other side it ends, by up to
#: PUSH_MOST of that side's length; the push that matches the art best is a further start for the
#: alignment when it matches SLIDE_GAIN better than the outline. A view that shows only part of the
#: board is compared with the art only where it shows the photo, that part shrunk by CUT_MARGIN
#: pixels of the comparison view (the blur and the edges' filter see the photo's edge as an edge of
#: the board), and its agreement there is credited for that share of the board only
#: (:func:`_credited`); one that shows less than IN_VIEW_LEAST matches nothing. Since session 112
#: a corner where the frame leaves the photo is also pushed alone: a board askew to the edge is
#: cut far more at one end of its side than at the other. On 12 tables a tier cut a fifth short,
#: each on one side in turn, 99.0 / 96.6 / 89.0 % of the regions in view are read right (easy /
#: medium / hard; 31.3 / 82.9 / 76.5 % before session 111, when 5 of the 36 were refused; 86.4 % on
#: hard before session 112), and 203 of the 204 regions whose label point the frame cuts off are
#: marked unseen (83 of 193 before session 111, 199 before session 112); cut three tenths short,
#: 98.4 / 95.7 / 88.5 % (86.7 / 69.2 % on medium and hard before session 112, with three tables
#: found wrongly, none now; two refused both times, each missing a corner of its frame besides the
#: cut: a card over one, glare over the other). Cut by more, a board may still be found squeezed
#: or not at all (calibration then says so: :func:`calibration.covered.out_of_view_notice`).
FRAME_EDGE = 0.015
PUSH_MOST = 1.0
PUSH_STEP = 0.1
CUT_MARGIN = 8
IN_VIEW_LEAST = 0.5
#: The red frame runs off the photo where a piece of it as large as a piece of the frame
#: (FRAME_PIECE, FRAME_SIDE) has at least this many pixels on the photo's outermost two rows or
#: columns (:func:`frame_runs_off`).
RUN_OFF_PIXELS = 3
#: What the players should do about a board the camera's frame cuts.
WHOLE_BOARD = "move the camera back or turn it so that the whole board is in view, and calibrate again"


class BoardNotFound(AugurError):
    """No board could be located in the image."""


@dataclass(frozen=True)
class BoardPose:
    """Where the board lies in an image. ``H`` maps board units to image pixels."""

    H: np.ndarray
    corners: np.ndarray          # image pixels of board corners TL, TR, BR, BL (board orientation)
    score: float                 # similarity to the reference after rectification (0..1): the grey
                                 # levels' match for an outline, the edges' agreement once refined

    def rectify(self, image: np.ndarray, geo: BoardGeometry, scale: float = 1.0) -> np.ndarray:
        """The board as seen from straight above, ``scale`` pixels per board unit."""
        S = np.diag([scale, scale, 1.0])
        size = (int(round(geo.size[0] * scale)), int(round(geo.size[1] * scale)))
        return cv2.warpPerspective(image, S @ np.linalg.inv(self.H), size, flags=cv2.INTER_LINEAR)

    def to_image(self, pts: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), self.H).reshape(-1, 2)

    def to_board(self, pts: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2),
                                        np.linalg.inv(self.H)).reshape(-1, 2)


def red_frame_mask(image: np.ndarray) -> np.ndarray:
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    m = (((hsv[..., 0] <= 6) | (hsv[..., 0] >= 168)) & (hsv[..., 1] >= 110) & (hsv[..., 2] >= 50)).astype(np.uint8)
    return cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def frame_runs_off(red: np.ndarray) -> bool:
    """Whether the red frame (``red``: :func:`red_frame_mask`) runs off the photo: a piece of red as
    large as a piece of the frame (:func:`_frame_evidence`'s FRAME_PIECE and FRAME_SIDE) with at
    least RUN_OFF_PIXELS pixels on the photo's outermost two rows or columns.
    Why: a board cut off by the camera's frame by about half or more is refused, or found squeezed
    into the part in view, and the players were told that it did not look like this board and to
    lay corner markers, which cannot help where the corners lie outside the photo (of 144 rendered
    calibration photos cut by half on one side, 12 tables a tier cut on each side in turn, 69 were
    refused so and 54 found squeezed; session 119). What they must do is move the camera."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(red, connectivity=8)
    rim = np.concatenate([labels[:2].ravel(), labels[-2:].ravel(), labels[:, :2].ravel(), labels[:, -2:].ravel()])
    on_rim = np.bincount(rim, minlength=n)
    on_rim[0] = 0                   # the background
    for k in np.nonzero(on_rim >= RUN_OFF_PIXELS)[0]:
        x, y, bw, bh = stats[k, :4]
        ys, xs = np.nonzero(labels[y:y + bh, x:x + bw] == k)
        piece = np.stack([xs + x, ys + y], axis=1).astype(np.int32)
        if _hull_share(piece, red.shape) > FRAME_PIECE or _side_share(piece, red.shape) > FRAME_SIDE:
            return True
    return False


def _hull_share(points: np.ndarray, shape: tuple[int, ...]) -> float:
    """The share of an image of ``shape`` that the hull of ``points`` (an outline or a piece's
    pixels) covers."""
    return cv2.contourArea(cv2.convexHull(points)) / (shape[0] * shape[1])


def _side_share(points: np.ndarray, shape: tuple[int, ...]) -> float:
    """The longest side of the rectangle around ``points``, as a share of the image's shorter side."""
    return max(cv2.minAreaRect(points)[1]) / min(shape[:2])


def _quad(contour: np.ndarray) -> np.ndarray | None:
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx[:, 0, :].astype(np.float64)
    return None


def _cut_corner_quads(contour: np.ndarray) -> list[np.ndarray]:
    """Quadrilaterals for an outline with one corner cut off: a card or a cup over a corner of the
    frame (or the corner out of view) leaves a five-sided hull, which :func:`_quad` can only
    bring to four sides by dropping a true corner. For each edge of the five-sided outline, the
    two edges beside it are extended to meet where the hidden corner is; the art decides which
    of the five is the board."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03):
        approx = cv2.approxPolyDP(hull, eps * peri, True)[:, 0, :].astype(np.float64)
        if len(approx) == 5:
            break
    else:
        return []
    quads = []
    for i in range(5):
        a0, a1 = approx[i - 1], approx[i]                 # the edge before the cut ...
        b0, b1 = approx[(i + 1) % 5], approx[(i + 2) % 5]  # ... and the one after it
        d1, d2 = a1 - a0, b1 - b0
        den = d1[0] * d2[1] - d1[1] * d2[0]
        if abs(den) < 1e-9 * (np.hypot(*d1) * np.hypot(*d2) + 1e-9):
            continue                                       # parallel: no corner to recover
        t = ((b0[0] - a0[0]) * d2[1] - (b0[1] - a0[1]) * d2[0]) / den
        if t < 1:                                          # the sides must meet beyond the cut, not behind it
            continue
        corner = a0 + t * d1
        quads.append(np.array([corner] + [approx[(i + k) % 5] for k in (2, 3, 4)]))
    return quads


def _order(q: np.ndarray) -> np.ndarray:
    """Corners clockwise from the one nearest the image's top-left."""
    c = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]
    start = np.argmin(q.sum(axis=1))
    return np.roll(q, -start, axis=0)


def _frame_evidence(mask: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Candidate outlines of the red frame (``mask``: :func:`red_frame_mask`), corners in image
    order (which corner is which is decided by the art), and the outer edge of the red pieces they
    were made from (image pixels, N x 2, one point per pixel of edge): a pose must not leave much
    of it outside the board
    (:func:`_overhang`). Raises :class:`BoardNotFound` saying why there are no outlines."""
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outlines_by_share = sorted(((_hull_share(c, mask.shape), _side_share(c, mask.shape), c) for c in cnts),
                               key=lambda slc: -slc[0])
    # The frame may be broken into pieces (a card across an edge, glare washing out a side, or a
    # print whose frame is only a few pixels wide at the camera): each of the three largest pieces
    # that could be the whole frame alone, and the hull of the first two, three, ... of its pieces
    # (the most frame-like first: the widest, or the longest), are all candidates when they cover
    # a twentieth of the image.
    whole = [c for s, _, c in outlines_by_share[:3] if s > WHOLE_FRAME]
    pieces = [c for s, n, c in sorted(outlines_by_share, key=lambda slc: -max(slc[0] / FRAME_PIECE, slc[1] / FRAME_SIDE))
              if s > FRAME_PIECE or n > FRAME_SIDE][:JOIN_PIECES]
    joined = [np.vstack(pieces[:k]) for k in range(2, len(pieces) + 1)]
    outlines = whole + [c for c in joined if _hull_share(c, mask.shape) > WHOLE_FRAME]
    if not outlines:
        largest = outlines_by_share[0][0] if outlines_by_share else 0.0
        far = (f" (the largest red outline covers {100 * largest:.1f} % of it: if that is the board, it is too far "
               "away to count its pieces; bring the camera closer)") if largest >= FAR_FRAME else ""
        raise BoardNotFound(f"no board in view: no red board frame covers a twentieth of the image{far}")
    quads = [q for q in (_quad(c) for c in outlines) if q is not None]
    quads += [q for c in outlines for q in _cut_corner_quads(c)]
    if not quads:
        raise BoardNotFound("the board's outline is not a quadrilateral (is part of it out of view?)")
    used = {id(c): c for c in whole + pieces}
    return quads, np.vstack([c.reshape(-1, 2) for c in used.values()]).astype(np.float64)


def _all_red_quads(image: np.ndarray) -> list[np.ndarray]:
    """Outlines of the hull of every red piece in view together (see ALL_RED), as
    :func:`_quad` and :func:`_cut_corner_quads` make them, when that hull covers a twentieth of
    the image."""
    cnts, _ = cv2.findContours(red_frame_mask(image), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cnts:
        return []
    everything = np.vstack(cnts)
    if _hull_share(everything, image.shape) <= WHOLE_FRAME:
        return []
    quad = _quad(everything)
    return ([quad] if quad is not None else []) + _cut_corner_quads(everything)


def _overhang(H: np.ndarray, edge: np.ndarray, geo: BoardGeometry) -> float:
    """The share of the red frame's outer ``edge`` (image pixels) that the pose ``H`` puts more
    than OVERHANG board units outside the board."""
    if not len(edge):
        return 0.0
    bw, bh = geo.size
    x, y = cv2.perspectiveTransform(edge.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2).T
    beyond = np.maximum.reduce([-x, x - bw, -y, y - bh])
    return float((beyond > OVERHANG).mean())


def _with_track(quad: np.ndarray, geo: BoardGeometry) -> np.ndarray:
    """The board's corners when ``quad`` (TL, TR, BR, BL) outlines only the map above the score
    track: on the real print the red around the track is a thin line that a tilted webcam loses,
    while the map's own red (the frame and the lands beyond the empire) still makes a four-sided
    outline that ends where the track begins. Of 40 hard bench tables rendered on the print, 14
    were located over 15 board units off or not at all until session 33, several on that outline."""
    bw, bh = geo.size
    map_part = np.float32([[0, 0], [bw, 0], [bw, geo.track_top], [0, geo.track_top]])
    H = cv2.getPerspectiveTransform(map_part, np.float32(quad))
    return cv2.perspectiveTransform(np.float64([[[0, 0], [bw, 0], [bw, bh], [0, bh]]]), H)[0]


def locate_board(image: np.ndarray, reference: np.ndarray, geo: BoardGeometry | None = None,
                 refine: bool = True) -> BoardPose:
    """Locate the board; ``reference`` is the board art (or a rectified empty-board photo), any scale.

    Candidates: the red frame's outline in each of its four turns, each also read as the outline
    of the map part only (:func:`_with_track`), and, when the frame gives no
    good match (below :data:`MARKERS_BELOW`), the corners given by the printed markers of
    :mod:`calibration.markers` if all four are in view (they also say which corner is which).
    The candidate whose rectified view matches the art best wins. A board those would refuse is
    located again with the hull of all the red in view as a candidate too (:data:`ALL_RED`); if
    it is refused again, the first refusal is the one raised."""
    try:
        return _locate(image, reference, geo, refine)
    except BoardNotFound as refused:
        hull = _all_red_quads(image) if ALL_RED and image is not None and image.ndim == 3 else []
        if not hull:                # nothing to add: the second try would be the first again
            raise
        try:
            return _locate(image, reference, geo, refine, hull)
        except BoardNotFound:
            raise refused from None


def _locate(image: np.ndarray, reference: np.ndarray, geo: BoardGeometry | None, refine: bool,
            extra: Sequence[np.ndarray] = ()) -> BoardPose:
    """:func:`locate_board`, with the outlines ``extra`` (the hull of all the red) as candidates
    besides the frame's."""
    geo = geo or load_geometry()
    if image is None or image.ndim != 3:
        raise BoardNotFound("the image is unreadable or not a colour image")
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    red = red_frame_mask(image)          # the frame's outlines, and where it leaves the photo
    bw, bh = geo.size
    dst = np.float64([[0, 0], [bw, 0], [bw, bh], [0, bh]])
    sw, sh = int(bw * COMPARE_SCALE), int(bh * COMPARE_SCALE)
    ref = cv2.resize(cv2.cvtColor(reference, cv2.COLOR_BGR2GRAY), (sw, sh), interpolation=cv2.INTER_AREA)
    S = _compare_matrix(geo.size, (sw, sh), reference.shape[1::-1])
    map_rows = int(round(sh * geo.track_top / bh))

    def normal(a: np.ndarray) -> np.ndarray:
        return (a - a.mean()) / (a.std() + 1e-6)

    ref_map = normal(ref[:map_rows])
    ref = normal(ref)
    ref_edges = edge_strength(ref)

    def view(H: np.ndarray) -> np.ndarray:
        return cv2.warpPerspective(gray, S @ np.linalg.inv(H), (sw, sh)).astype(np.float64)

    def match(H: np.ndarray) -> float:
        """How well the view rectified with ``H`` matches the art, where it shows the photo (see
        PUSH_MOST)."""
        valid = seen(H)
        if valid is None:
            return float((normal(view(H)) * ref).mean())
        return _credited(correlation(view(H), ref, valid), valid)

    def edge_match(H: np.ndarray) -> float:
        """How well the edges of the view rectified with ``H`` agree with the art's."""
        valid = seen(H)
        return _credited(edge_agreement(view(H), ref_edges, valid), valid)

    def map_match(H: np.ndarray) -> float:
        """How well the map above the score track alone matches the art's. A plain red tray on a
        light table, read as the map part of a board (:func:`_with_track`), matched the whole art
        at 0.37: the step from its red to the table fell where the art's map gives way to its
        bright track, while the tray itself, a featureless map, matches nothing."""
        valid = seen(H)
        if valid is None:
            return float((normal(view(H)[:map_rows]) * ref_map).mean())
        return _credited(correlation(view(H)[:map_rows], ref_map, valid[:map_rows]), valid[:map_rows])

    def seen(H: np.ndarray) -> np.ndarray | None:
        """Where the view rectified with ``H`` shows the photo, CUT_MARGIN pixels in from its edge;
        None where it shows it everywhere."""
        return _in_view(gray.shape, S @ np.linalg.inv(H), (sw, sh))

    def scored(q: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """How well the view rectified with corners ``q`` (TL, TR, BR, BL) matches the art."""
        H = cv2.getPerspectiveTransform(np.float32(dst), np.float32(q))
        return match(H), H, q

    candidates = []
    edge = np.zeros((0, 2))
    try:
        quads, edge = _frame_evidence(red)
        for quad in quads:
            turns = [np.roll(_order(quad), -k, axis=0) for k in range(4)]
            candidates += [scored(q) for q in turns]
            if geo.track_boxes:
                candidates += [scored(_with_track(q, geo)) for q in turns]
        frame_error = None
    except BoardNotFound as exc:
        frame_error = exc
    for quad in extra:
        candidates += [scored(np.roll(_order(quad), -k, axis=0)) for k in range(4)]
        frame_error = None
    marked = None
    if not candidates or max(c[0] for c in candidates) < MARKERS_BELOW:
        marked = board_corners_from_markers(gray)
        if marked is not None:
            candidates.append(scored(marked))
    if not candidates:
        raise BoardNotFound(f"{frame_error}; no printed corner markers in view either (augur markers)")
    ranked = sorted(candidates, key=lambda c: -c[0])
    best, _, best_quad = ranked[0]
    slid = _slid(best, best_quad, scored, gray.shape) if SLIDE_FROM <= best < MARKERS_BELOW else None
    if slid is not None:            # then a second corner, on the outline the first slide left
        slid = _slid(slid[0], slid[2], scored, gray.shape) or slid
    # it matches SLIDE_GAIN better than the best outline; but an outline that is no board is not
    # made one (see SLIDE_FROM)
    if slid is not None and not best < LEAST_MATCH <= slid[0] < MARKERS_BELOW:
        ranked.insert(0, slid)
    # the best outline pushed past the photo's edge, where the frame leaves it (see PUSH_MOST)
    pushed = _pushed(best_quad, scored, red, geo)
    if pushed is not None and pushed[0] < best + SLIDE_GAIN:
        pushed = None           # no better by more than a few hundredths: no sign of a better pose
    if pushed is not None:
        ranked = sorted(ranked + [pushed], key=lambda c: -c[0])
    score, H, q = ranked[0]

    def unlike(score: float) -> BoardNotFound:
        if frame_error is None and frame_runs_off(red):
            return BoardNotFound(f"the red frame runs off the edge of the photo, and what is in view does not look like "
                                 f"this board (match {score:.2f}): if it is the board, the camera's frame cuts off too "
                                 f"much of it; {WHOLE_BOARD}")
        what = "a red frame was found" if frame_error is None else "the corner markers were found"
        hint = "" if marked is not None else "; where the frame is hard to see, lay printed corner markers (augur markers)"
        return BoardNotFound(f"{what} but it does not look like this board (match {score:.2f}){hint}")

    if score < LEAST_MATCH:
        raise unlike(score)
    if refine:
        # the best few, each refined, and the one whose edges then agree best with the art's wins:
        # with a corner hidden, where the alignment ends depends on where it starts (a card over a
        # corner of the frame, refined from the outline that matched best: a corner 12 pixels off;
        # from the second: under 4). The alignment's own score is on blurred copies and is not
        # compared. Outlines that differ by a pixel or two (the hull of the frame with or without a
        # small piece) are one start: the best few *distinct* ones are refined. With the frame's
        # long thin pieces joined too (session 33), the three best of a card-covered corner's
        # candidates were one outline three times, and the second start, which ends under 4 pixels
        # off, was lost.
        # a slid outline is a start besides the best few, not instead of one of them
        # and so is a pushed one
        starts = _distinct([c for c in ranked if c is not pushed], REFINE_BEST + (slid is not None))
        starts += _distinct([pushed], 1) if pushed is not None else []
        # The pose's score is then how well its edges agree with the art's (the alignment's own
        # measure, unblurred), which picks among the refined poses and, in the lens estimate, among
        # the lenses. Until session 33 it was the alignment's correlation of blurred grey levels,
        # and the lens estimate took a steep hard table on the real print with a pose 50 board
        # units off (correlation 0.66, match 0.52) over the right one (0.60, 0.55); from then until
        # session 72, the grey levels' match with the art, as for the outlines. Over the 86 print
        # game videos' calibrations the edges' agreement left the mean median error as it was
        # (1.00 to 0.96 pixels) and brought the mean worst point from 5.2 to 4.5 pixels (seeds
        # 16, 68 and 85: 20.8, 13.8 and 23.3 pixels to 8.4, 7.7 and 6.1).
        # A refined pose that leaves much of the red frame's outer edge outside the board has slid
        # off it; its start is kept instead (see OVERHANG_SHARE).
        refined = []
        for _, Hc, _ in starts:
            Hr = _refine(gray, ref_edges, Hc, S, (sw, sh), seen(Hc))
            if _overhang(Hr, edge, geo) > max(OVERHANG_SHARE, _overhang(Hc, edge, geo)):
                Hr = Hc
            refined.append(Hr)
        score, H = max(((edge_match(Hr), Hr) for Hr in refined), key=lambda sH: sH[0])
        q = cv2.perspectiveTransform(np.float64(dst).reshape(-1, 1, 2), H).reshape(-1, 2)
        if score < LEAST_EDGES:
            raise unlike(score)
    map_score = map_match(H)
    if map_score < LEAST_MATCH:
        raise unlike(map_score)
    return BoardPose(H, q, score)


def _distinct(ranked: list, n: int) -> list:
    """The first ``n`` of the ``ranked`` candidates (score, H, corners) that score LEAST_MATCH or more and
    differ from each earlier one by more than SAME_START pixels at some corner."""
    starts: list[tuple[float, np.ndarray, np.ndarray]] = []
    for sc, Hc, qc in ranked:
        if len(starts) == n or sc < LEAST_MATCH:
            break
        if all(np.abs(qc - qs).max() > SAME_START for _, _, qs in starts):
            starts.append((sc, Hc, qc))
    return starts


def _slid(score: float, quad: np.ndarray, scored, shape: tuple[int, ...]) -> tuple[float, np.ndarray, np.ndarray] | None:
    """The outline ``quad`` (TL, TR, BR, BL) with one corner moved out along one of its sides, or
    one side pushed out whole (both its corners along the sides they end), the way that matches
    the art best, scored by ``scored``; None unless it beats the outline's
    own ``score`` by SLIDE_GAIN (see SLIDE_MOST). A coarse pass over every corner and side, then
    halved steps around the best. Only corners inside the image (of ``shape``), and moved to a
    point inside it, are moved: a corner that lies on the image's edge is where the board leaves
    the view, not one hidden under a card, and moving it out (on the print, where the art only
    resembles the board) matched the art better 30 pixels off (a game video of seed 71)."""
    h, w = shape[:2]

    def inside(p: np.ndarray) -> bool:
        return 1.0 <= p[0] <= w - 2.0 and 1.0 <= p[1] <= h - 2.0

    def moved(corner: int, side: int, t: float) -> np.ndarray:
        q = np.array(quad, np.float64)
        if side < 0:        # the side from ``corner`` to the next pushed out: both its corners move
            nxt = (corner + 1) % 4
            q[corner] = quad[corner] + t * (quad[corner] - quad[(corner - 1) % 4])
            q[nxt] = quad[nxt] + t * (quad[nxt] - quad[(nxt + 1) % 4])
        else:
            q[corner] = quad[corner] + t * (quad[corner] - quad[side])
        return q

    def tried(c: int, s: int, t: float) -> list:
        q = moved(c, s, t)
        ends = (c, (c + 1) % 4) if s < 0 else (c,)
        return [scored(q) + ((c, s, t),)] if all(inside(q[e]) for e in ends) else []

    ways = [(c, (c + d) % 4) for c in range(4) if inside(quad[c]) for d in (-1, 1)]
    ways += [(c, -1) for c in range(4) if inside(quad[c]) and inside(quad[(c + 1) % 4])]
    steps = np.arange(1, int(round(SLIDE_MOST / SLIDE_STEP)) + 1) * SLIDE_STEP
    found = [r for c, s in ways for t in steps for r in tried(c, s, t)]
    if not found:
        return None
    best = max(found, key=lambda r: r[0])
    step = SLIDE_STEP / 2
    while step >= SLIDE_STEP / 8:
        c, s, t = best[3]
        best = max([best] + [r for d in (-step, step) for r in tried(c, s, t + d)], key=lambda r: r[0])
        step /= 2
    return best[:3] if best[0] >= score + SLIDE_GAIN else None


def _credited(agreement: float, valid: np.ndarray | None) -> float:
    """An ``agreement`` over the part of a view that is ``valid`` (None: all of it) as a score for the
    whole view: the part out of view agrees with nothing. A pose is credited for what it
    explains: pushed past the photo's edge, a board wholly in view could match as well in the part
    left (a steep hard table, its far side 25 pixels from the edge, pushed 90 pixels out), and a
    view that shows less than IN_VIEW_LEAST of the board is no board."""
    if valid is None:
        return agreement
    share = float(valid.mean())
    return agreement * share if share >= IN_VIEW_LEAST else 0.0


def _in_view(shape: tuple[int, ...], to_view: np.ndarray, size: tuple[int, int]) -> np.ndarray | None:
    """Where the view of size ``size``, which ``to_view`` maps a photo of ``shape`` onto, shows the
    photo, CUT_MARGIN pixels in from the photo's edge; None where it shows it everywhere."""
    inside = cv2.warpPerspective(np.full(shape[:2], 255, np.uint8), to_view, size, flags=cv2.INTER_NEAREST)
    if inside.all():
        return None
    return cv2.erode(inside, np.ones((2 * CUT_MARGIN + 1,) * 2, np.uint8), borderValue=255) > 0


def _frame_leaves_view(corner: np.ndarray, red: np.ndarray) -> bool:
    """Whether an outline's ``corner`` lies where the red frame (``red``: :func:`red_frame_mask`)
    leaves the photo: within FRAME_EDGE of the photo's width or height from one of its edges, with
    red on that edge's outermost two pixels within twice that distance of it along the edge. A
    board that only reaches close to the edge (an easy table's frame 13 pixels from the top of a
    720-pixel photo) leaves no red on it, and its outline is not pushed."""
    h, w = red.shape
    x, y = corner
    mx, my = FRAME_EDGE * w, FRAME_EDGE * h
    lines = [(x <= mx, red[:, :2].any(axis=1), y, my), (x >= w - 1 - mx, red[:, -2:].any(axis=1), y, my),
             (y <= my, red[:2].any(axis=0), x, mx), (y >= h - 1 - my, red[-2:].any(axis=0), x, mx)]
    for near, line, along, reach in lines:
        if near:
            lo, hi = int(max(0, along - 2 * reach)), int(min(len(line), along + 2 * reach + 1))
            if lo < hi and line[lo:hi].any():
                return True
    return False


def _pushed(quad: np.ndarray, scored, red: np.ndarray, geo: BoardGeometry) -> tuple | None:
    """The outline ``quad`` with a side that ends where the red frame leaves the photo
    (:func:`_frame_leaves_view`; ``red``: :func:`red_frame_mask`) pushed out past the photo's
    edge, in the turn, and as the whole board or its map part only (:func:`_with_track`), that
    matches the art best, scored by ``scored``; None when no corner lies where the frame leaves.

    Each corner of the side moves along the other side it ends, by its own share of that side's
    length: a tilted board's two sides are cut at different lengths, and a true corner that lies
    at the photo's edge stays (a tilted hard table cut a fifth short on its right: one corner of
    the outline's cut side was the board's own, at the photo's top). Nor need both corners lie at
    the edge: glare that washes out the frame where it meets the edge ends the outline short of it.
    Both corners are pushed alike first, in PUSH_STEP steps, and each corner where the frame
    leaves the view alone, in steps twice as coarse (which decides the side, the turn and whether
    the outline is the map part), then each over a grid twice as coarse, then in halved steps
    around the best. A board askew to the photo's edge is cut far more at one end of its side
    than at the other: pushed alike, the best push of a medium table cut three tenths short on
    its left was of the wrong side, and it was found 100 pixels off (session 112)."""
    q = _order(quad)
    at_edge = [_frame_leaves_view(p, red) for p in q]
    sides = [c for c in range(4) if at_edge[c] or at_edge[(c + 1) % 4]]
    if not sides:
        return None

    def outline(c: int, t1: float, t2: float, turn: int, track: bool) -> np.ndarray:
        p, n = q.copy(), (c + 1) % 4
        p[c] = q[c] + t1 * (q[c] - q[(c - 1) % 4])
        p[n] = q[n] + t2 * (q[n] - q[(n + 1) % 4])
        p = np.roll(p, -turn, axis=0)
        return _with_track(p, geo) if track else p

    def tried(c: int, t1: float, t2: float, turn: int, track: bool) -> tuple:
        t1, t2 = min(max(t1, 0.0), PUSH_MOST), min(max(t2, 0.0), PUSH_MOST)
        o = outline(c, t1, t2, turn, track)
        if not cv2.isContourConvex(np.float32(o)):      # pushed past a vanishing point: no board
            return (-np.inf, None, o, (c, t1, t2, turn, track))
        return scored(o) + ((c, t1, t2, turn, track),)

    kinds = [(turn, track) for turn in range(4) for track in ((False, True) if geo.track_boxes else (False,))]
    steps = np.arange(1, int(round(PUSH_MOST / PUSH_STEP)) + 1) * PUSH_STEP
    alike = [(c, t, t) for c in sides for t in steps]
    # each corner where the frame leaves the view also pushed alone, in steps twice as coarse
    alone = [(c, t, 0.0) if end == 0 else (c, 0.0, t) for c in sides for end in (0, 1)
             if at_edge[(c + end) % 4] for t in steps[1::2]]
    best = max((tried(*push, *kind) for push in alike + alone for kind in kinds), key=lambda r: r[0])
    c, _, _, turn, track = best[3]
    grid = np.arange(0, int(round(PUSH_MOST / PUSH_STEP / 2)) + 1) * 2 * PUSH_STEP
    best = max([best] + [tried(c, t1, t2, turn, track) for t1 in grid for t2 in grid], key=lambda r: r[0])
    step = PUSH_STEP
    while step >= PUSH_STEP / 8:
        for which in (0, 1):
            _, t1, t2, _, _ = best[3]
            moves = [(t1 + d, t2) if which == 0 else (t1, t2 + d) for d in (-step, step)]
            best = max([best] + [tried(c, a, b, turn, track) for a, b in moves], key=lambda r: r[0])
        step /= 2
    return best[:3] if best[1] is not None else None


def _compare_matrix(board: tuple[int, int], size: tuple[int, int], reference: tuple[int, int]) -> np.ndarray:
    """Board units -> pixels of the small comparison view: the ``reference`` (width, height in
    pixels) shrunk to ``size`` by ``cv2.resize``.

    The reference's pixel ``a`` shows board point ``a * board / reference`` (the board art is drawn,
    and a rectified photo cut, with pixel centres on that grid), and ``cv2.resize`` puts the centre
    of small pixel ``j`` on reference pixel ``(j + 0.5) * reference / size - 0.5``. So board point
    ``u`` is small pixel ``u * size / board + 0.5 * size / reference - 0.5``. Until session 16 this
    was a plain scaling, which left every calibration 1.7 board units off along both axes (half a
    comparison pixel less half an art pixel): on rendered tables the median error of the board
    pose went from 2.55 / 2.74 to 0.30 / 1.39 board units (easy / hard), and the shipped counter
    read 99.16 / 96.30 / 89.15 % of validation regions right before and 99.23 / 96.40 / 89.79 %
    after (seed 5150, 100 tables per tier): pieces near a border had gone to the neighbour. On the
    real board photo, in the frame the region tool measured on it (the committed map's own board
    units), the calibration's mean offset went from 2.9 / 1.0 to 0.9 / -0.5 board units (x / y)."""
    sx, sy = size[0] / board[0], size[1] / board[1]
    return np.array([[sx, 0, 0.5 * size[0] / reference[0] - 0.5],
                     [0, sy, 0.5 * size[1] / reference[1] - 0.5],
                     [0, 0, 1.0]])


def _refine(gray: np.ndarray, ref_edges: np.ndarray, H: np.ndarray, S: np.ndarray, size: tuple[int, int],
            valid: np.ndarray | None = None) -> np.ndarray:
    """Align the rectified view (of the grey photo) with the reference by ECC, which corrects
    corners hidden by clutter or bent by the lens. ``H`` is kept when the alignment fails or ends
    no better aligned than it began.

    What is aligned is the strength of the edges (:func:`calibration.align.edge_strength`;
    ``ref_edges``: the reference's), not the grey levels. At calibration the reference is the
    procedural art (a re-localisation's is the calibration's own view of the board), whose
    provinces are painted in other colours and shades than the real print's but outlined along
    the same borders (the committed map was traced on the print): grey levels that disagree
    everywhere left the alignment to a compromise between them, where the edges agree. Until
    session 72 the grey levels were aligned; over the calibration photos of the game videos (seeds
    11 to 96 on the print, 11 to 78 on the procedural art; ``docs/measured.md``) the median error
    of a grid of board points fell from 1.65 to 1.00 pixels on the print and from 0.89 to 0.31 on
    the procedural art, and the worst point's from 9.5 to 5.2 and from 4.4 to 1.2 pixels (means).
    ``valid``: where the view shows the photo, for a board the camera's frame cuts (see FRAME_EDGE)."""
    view = edge_strength(cv2.warpPerspective(gray, S @ np.linalg.inv(H), size))
    found = ecc_homography(ref_edges, view, ECC_BLUR, 60, 1e-5, must_gain=True, valid=valid)
    if found is None:
        return H
    return H @ np.linalg.inv(S) @ found[1] @ S
