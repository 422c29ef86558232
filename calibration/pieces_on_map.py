"""Are pieces standing on the map in the calibration photo? If so, paint them out of it.

The calibration photo becomes the empty board every later frame is compared with (the counting
network reads each frame beside it). A table that calibrates with the game already laid out (the
camera set up mid-game, or a film whose first seconds show the pieces) gives it a board with
pieces on it: where a piece stood then, the network sees less of the next one, and where it has
gone, the bare board may look like a change. The demo film calibrated on its own first frames
read 91.6 % of its regions right (1,097 of 1,197 over 21 still frames) against 100 % calibrated
on its empty board, and its first commit read enough provinces empty to be taken for a set-up
being made. Nothing else in the profile shows it, so the players must be told while they can
still clear the map.

The cue is the counter itself. It knows a piece by its look as well as by its difference from
the empty board, so read on the calibration's own board (the reference put back in the camera's
view) it still finds most pieces standing there: 93 on the demo film's first three seconds
composed, whose every province holds a legion, where its first frame read beside the empty
board's calibration shows 99. On an empty board it finds next to none (the score markers on box
0 are off the map).

Telling the players is not enough: a camera set up mid-game, or a film that shows the pieces from
its first frame, has no empty board to give. So ``augur calibrate`` paints the pieces it finds
out of the calibration's board (:func:`paint_out_pieces`), filling each from the board art around
it, and reads again until next to none are left; the players are still told, since a real photo
of the empty board reads better. Since session 125 it paints around every summit of the
counter's density, one per piece, rather than around each region's detections (see PAINT_RADIUS
for the figures). Measured in session 124 (scratch ``/work/out/s124/heal*.py``):
- the demo film calibrated on its first three seconds read 1,097 of 1,197 regions right as it
  was, and 1,175 painted out (1,147 on another calibration of the same seconds; 1,197 on its
  empty board);
- rendered tables calibrated on one state of their game and read on another: 81.0 / 78.9 /
  76.3 % of regions right on easy / medium / hard as they were, 96.2 / 91.5 / 83.3 % painted out
  (6 tables a tier, seed 6161); 80.0 / 73.9 / 59.0 % and 93.4 / 91.0 / 62.1 % (8 a tier, seed
  5151, where the empty boards read 99.1 / 96.7 / 75.0 %).
What it cannot mend: a power centre standing in the photo (the counter finds next to none of
them on the calibration's own board, so none is painted out, and one still standing is read as
absent), and a crowded province or a big pile, whose paint is a smear of the pieces' colours.
A piece left in the reference reads as a power centre once it leaves: such centres are asked
for (:data:`vision.density.STALE_MASS`).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np

from tracker.errors import AugurError

#: This many pieces or more read on the calibration's own board are pieces standing on the map.
#: Measured (session 123, scratch ``/work/out/s123/calpieces2.py``; 12 rendered tables a tier,
#: seed 4242 on the procedural art and 4243 on the real print): calibrated on their empty boards,
#: 50 of the 72 read no piece and the others 1 to 7 (medium and hard tables: a hand, a card or
#: glare over the map); calibrated on the same tables' game photos, 37 to 190 (one hard print
#: table's game photo did not calibrate).
PIECES_ON_MAP = 12

#: Painting pieces out: each round paints a disc of this radius (board units) around every summit
#: of the counter's density (one where each piece stands; a legionary's base has a radius of about
#: 8, and its body leans away from the camera and casts a shadow), PAINT_GROW units more each
#: round, for at most PAINT_ROUNDS rounds, until PAINT_LEFT or fewer summits are left. Session
#: 124 painted around each region's detections, which all stand at the region's anchor: a crowded
#: province or a fleet kept most of its pieces. Measured in session 125 (scratch
#: ``/work/out/s125/paint2.py``, ``film.py``; rendered tables calibrated on a state of their game
#: with power centres on the map and read on a later state), regions right on easy / medium / hard
#: tables, and power centres read where none stood:
#: - procedural art, 18 tables a tier (seeds 5151, 6161, 7272): anchors at radius 10 (session
#:   124) 82.9 / 70.9 / 62.4 % and 27 / 30 / 41; summits at 10 82.7 / 71.5 / 62.4 % and 31 / 28
#:   / 41; summits at 12 84.0 / 73.8 / 63.3 % and 22 / 20 / 35 (unpainted 71.0 / 59.9 / 58.2 %);
#: - the real print, 6 a tier (seed 7171): 86.5 / 79.5 / 59.4 % and 10 / 12 / 13; 87.7 / 79.8 /
#:   59.6 % and 10 / 12 / 14; at 12 90.1 / 82.5 / 61.4 % and 7 / 4 / 9;
#: - the demo film calibrated on its first seconds, the last frame of each of its 10 still runs:
#:   558 of 570 regions right (anchors), 570 (summits at 10 and at 12), 519 unpainted.
#: Session 124 had chosen 10 among anchor discs of 8 to 16: larger ones read the rendered tables
#: better and the film worse (its provinces are crowded: 1,179 of 1,197 regions at 10, 1,110 at 16).
PAINT_RADIUS = 12
PAINT_GROW = 2
PAINT_ROUNDS = 6
PAINT_LEFT = 3
#: A power centre standing in the photo: the counter's density finds next to none on the
#: calibration's own board, so no round paints it, and left in the reference it is read as absent
#: while it stands. Its kind output still scores many of them centre, weaker than on a frame read
#: beside the empty board. So once the rounds are done the patches it scores centre with a mean of
#: at least CENTRE_PATCH_SCORE (the counter's own bar is vision.density.CENTRE_SCORE, 0.9) are
#: painted too, in a disc of CENTRE_PAINT_RADIUS (a centre is about two legionaries wide).
#: Measured in session 125 (scratch ``/work/out/s125/unmoved2.py``, ``selfpatch.py``): 12 tables a
#: tier of seeds 5151 and 6161 calibrated on a state of their game and read on one four moves
#: later, the pieces placed as the game films place them (a region its move did not touch keeps
#: its pieces where they stood): of the centres standing unmoved since the photo, 27 of 162 were
#: read (easy / medium / hard 16 / 9 / 2 of 54) and 47 with their patches painted (27 / 13 / 7),
#: for one centre more read where none stood (7 against 6) and regions right within about a
#: point. On the calibration's own board (4 easy and 4 hard tables of seed 5151), at 0.7 17 of 48
#: centres standing were found, with 4 patches elsewhere, and none on their empty boards (one at
#: 0.6); at 0.8 8 of 48.
CENTRE_PATCH_SCORE = 0.7
CENTRE_PAINT_RADIUS = 20
#: OpenCV's inpainting neighbourhood (pixels): Telea's method fills each disc from the art around it.
INPAINT_RADIUS = 5


@dataclass(frozen=True)
class PiecesOnMap:
    """What the counter read on the calibration's own board: how many pieces on the map, and the
    regions holding them, most first."""

    pieces: int
    regions: tuple[str, ...]
    #: the pieces were painted out of the calibration's board (:func:`paint_out_pieces`)
    painted_out: bool = False
    #: where each round of painting painted (board units), when it has just painted: the
    #: calibration's preview rings them
    where: tuple[tuple[float, float], ...] = field(default=(), compare=False)

    def __bool__(self) -> bool:
        return self.pieces >= PIECES_ON_MAP


def pieces_on_map(profile) -> PiecesOnMap:
    """The pieces that stood on the map in ``profile``'s calibration photo: those painted out of
    it when it was made, or else those the counter reads on its board now."""
    if profile.painted_out:
        return PiecesOnMap(profile.painted_out, profile.painted_regions, painted_out=True)
    pieces, regions, _ = _read_on_map(profile)
    return PiecesOnMap(pieces, regions)


def _own_board(profile):
    """The shipped counter for ``profile`` and its output on the calibration's own board (the
    reference put back in the camera's view), or None when the counter cannot be loaded (its model
    file missing; the counting itself then says what is wrong)."""
    from vision.density import DensityCounter, reference_in_image
    try:
        counter = DensityCounter(profile)
        return counter, counter.predict(reference_in_image(profile))
    except AugurError:
        return None


def _read_on_map(profile) -> tuple[int, tuple[str, ...], np.ndarray]:
    """The pieces the shipped counter reads on ``profile``'s empty board (its reference, seen as
    the camera saw it): how many, their regions (most first), and where its density has a summit
    (board units; one where each piece stands). None to speak of on a board calibrated empty, nor
    when the counter cannot be loaded."""
    nowhere = np.zeros((0, 2))
    read = _own_board(profile)
    if read is None:
        return 0, (), nowhere
    counter, out = read
    detections = counter.read(out)
    if not len(detections):
        return 0, (), nowhere
    held = Counter(r for r in profile.geometry.regions_at(detections.footprints) if r is not None)
    return sum(held.values()), tuple(r for r, _ in held.most_common()), counter.summit_points(out)


def paint_out_pieces(profile) -> PiecesOnMap:
    """Paint the pieces standing on ``profile``'s board out of its reference, when there are
    enough to speak of (see the module doc), and record them in the profile; what stood there is
    returned (nothing is painted, and a falsy answer returned, on a board calibrated empty)."""
    if profile.painted_out:
        return pieces_on_map(profile)
    pieces, regions, where = _read_on_map(profile)
    found = PiecesOnMap(pieces, regions)
    if not found:
        return found
    painted, discs = [], []
    for k in range(PAINT_ROUNDS):
        if k:
            _, _, where = _read_on_map(profile)
            if len(where) <= PAINT_LEFT:
                break
        painted += where.tolist()
        discs += [(float(x), float(y), float(PAINT_RADIUS + PAINT_GROW * k)) for x, y in where]
        _paint(profile, where, PAINT_RADIUS + PAINT_GROW * k)
    counter, out = _own_board(profile)
    centres = counter.centre_patches(out, CENTRE_PATCH_SCORE)
    painted += centres.tolist()
    _paint(profile, centres, CENTRE_PAINT_RADIUS)
    # the centres' patches are not recorded: a centre read there is the centre that stood there
    profile.painted_out, profile.painted_regions, profile.painted_discs = pieces, regions, tuple(discs)
    return PiecesOnMap(pieces, regions, painted_out=True, where=tuple(map(tuple, painted)))


def _paint(profile, points: np.ndarray, radius: int) -> None:
    """Paint a disc of ``radius`` board units around each of ``points`` out of ``profile``'s
    reference, filling it from the board art around it (OpenCV's Telea inpainting)."""
    if not len(points):
        return
    mask = np.zeros(profile.reference.shape[:2], np.uint8)
    for x, y in np.rint(points).astype(int):
        cv2.circle(mask, (int(x), int(y)), int(radius), 255, -1)
    profile.reference = cv2.inpaint(profile.reference, mask, INPAINT_RADIUS, cv2.INPAINT_TELEA)


def pieces_notice(on_map: PiecesOnMap, geo, preview=None) -> str:
    """One line for the players about pieces standing on the map at calibration ("" when none to
    speak of), naming some of their regions by ``geo``'s board; ``preview``: where the pieces
    painted out are ringed for them."""
    from calibration.covered import region_names
    if not on_map:
        return ""
    where = f"about {on_map.pieces}, over {region_names(on_map.regions, geo)}"
    again = "clear the map (the score markers stay on box 0) and calibrate again"
    if on_map.painted_out:
        ringed = f", ringed in magenta in {preview}" if preview is not None and on_map.where else ""
        return (f"pieces stood on the map in the calibration photo ({where}{ringed}): they were painted out of the "
                f"empty board every frame is compared with, which reads the game better than leaving them and worse "
                f"than a photo of the empty board; {again}")
    return (f"pieces stand on the map in the calibration photo ({where}): the counter compares every frame with "
            f"this photo as the empty board, and reads the game worse for them; {again}")
