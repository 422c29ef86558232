"""Are pieces standing on the map in the calibration photo?

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
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from tracker.errors import AugurError

#: This many pieces or more read on the calibration's own board are pieces standing on the map.
#: Measured (session 123, scratch ``/work/out/s123/calpieces2.py``; 12 rendered tables a tier,
#: seed 4242 on the procedural art and 4243 on the real print): calibrated on their empty boards,
#: 50 of the 72 read no piece and the others 1 to 7 (medium and hard tables: a hand, a card or
#: glare over the map); calibrated on the same tables' game photos, 37 to 190 (one hard print
#: table's game photo did not calibrate).
PIECES_ON_MAP = 12


@dataclass(frozen=True)
class PiecesOnMap:
    """What the counter read on the calibration's own board: how many pieces on the map, and the
    regions holding them, most first."""

    pieces: int
    regions: tuple[str, ...]

    def __bool__(self) -> bool:
        return self.pieces >= PIECES_ON_MAP


def pieces_on_map(profile) -> PiecesOnMap:
    """The pieces the shipped counter reads on ``profile``'s empty board (its reference, seen as
    the camera saw it): none to speak of on a board calibrated empty. A counter that cannot be
    loaded (its model file missing) reads none; the counting itself then says what is wrong."""
    from vision.density import DensityCounter, reference_in_image
    try:
        detections = DensityCounter(profile).detect(reference_in_image(profile))
    except AugurError:
        return PiecesOnMap(0, ())
    if not len(detections):
        return PiecesOnMap(0, ())
    held = Counter(r for r in profile.geometry.regions_at(detections.footprints) if r is not None)
    return PiecesOnMap(sum(held.values()), tuple(r for r, _ in held.most_common()))


def pieces_notice(on_map: PiecesOnMap, geo) -> str:
    """One line for the players about pieces standing on the map at calibration ("" when none to
    speak of), naming some of their regions by ``geo``'s board."""
    from calibration.covered import region_names
    if not on_map:
        return ""
    return (f"pieces stand on the map in the calibration photo (about {on_map.pieces}, over "
            f"{region_names(on_map.regions, geo)}): the counter compares every frame with this photo as the empty "
            f"board, and reads the game worse for them; clear the map (the score markers stay on box 0) and "
            f"calibrate again")
