"""Which regions a move touched since the last committed state; the others keep their count.

A move changes two or three regions. Every still run used to be counted afresh over the whole
board, and a region the counter reads right one time in ten on a far, blurred table could
change its count from one commit to the next with nobody touching it. The tracker then saw a
move that no one made (a phantom change), and a player's correction of that region was lost
as soon as the camera read it otherwise.

Pieces that nobody touched leave the picture as it was: their pixels do not change. So at
every commit the frame is kept, rectified to the board at TOUCH_SCALE; a later still frame
is brought to its light (:class:`vision.light.LightMatch`, as the counter's frames are) and
compared with it. The regions under changed pixels (and the provinces whose coast they lie
off, where a pile spills onto the sea, see ``BoardGeometry.land_labels``) are counted afresh;
every other region keeps the reading committed for it, with its confidence. A count committed
in doubt is held too: the dashboard goes on asking the players to check it, and once they have
corrected it the correction stays. (Reading the doubtful ones again at every commit was tried:
on a rendered hard game it left the same 5 phantom changes as no hold at all, against 1 with
it. A count is doubtful because it flickers.)

Doubt goes the safe way. A change anywhere in a region, a bump of the camera, a shadow or a
light that does not match, has that region counted again; only a region whose every pixel is
as it was keeps its count. No frame kept (the first commit, a new pose, a new map): every
region is counted.

A region touched only along its rim is counted again too, but a doubtful new count there does
not replace the committed one. A pile placed next door leans over the rim in the image, a
trireme moved off the coast changes the sea beside it: nobody moved its pieces, and where the
counter was unsure of them it read them otherwise about as often as not. On 15 rendered game
videos (10 hard, 4 medium, 1 easy; scratch replays) 8 of the 12 phantom changes were such
flips: a doubtful new count of a region whose core (its part farther than TOUCH_REACH from any
other region) had not changed, one of them on an island. So a region whose core changed by less
than a legionary's base keeps its committed count unless the counter is sure of the new one
(``LOW_CONFIDENCE``, where the dashboard stops asking for a check). Over those games the phantom
changes went from 12 to 7, the regions wrong at a commit from 410 to 403, the tracker's
violations and warnings from 22 / 26 to 21 / 23. The price: a doubtful count held this way is
not corrected by a lucky reading either (one region stayed wrong for a game where a flip had set
it right), and a move whose only change was such a doubtful graze is not committed (one of 180
moves, in a region the camera's frame cuts, already flagged for a check). The islands have no
core to judge by and are always counted again.
"""
from __future__ import annotations

import cv2
import numpy as np

from calibration.profile import CalibrationProfile
from tracker.readings import LOW_CONFIDENCE
from tracker.state import ObservedState
from vision.gate import BoardView, colour_change
from vision.geometry import BoardGeometry
from vision.light import LightMatch

#: Pixels per board unit of the kept view (a legionary's base, 16.5 units, is 8 pixels across).
TOUCH_SCALE = 0.5
#: A pixel changed by more than this many grey levels, in any channel once the light is
#: matched, has changed.
TOUCH_LEVEL = 30
#: Changed pixels closer to a region than this (board units) touch it: the pose and the lens are
#: a few units off at the board's far side, and a piece's image leans over its neighbours.
TOUCH_REACH = 8.0
#: A patch of this many changed pixels touches the regions within TOUCH_REACH of it: about a
#: fifth of a legionary's footprint at TOUCH_SCALE. The sensor's lone specks are dropped first
#: (a 2 x 2 opening), and what is left of one piece's change is joined (a 3 x 3 closing).
TOUCH_PIXELS = 10
#: A region with fewer changed pixels than this in its core (its part farther than TOUCH_REACH
#: from any other region) was only grazed: a pile next door leans over its rim in the image, or a
#: trireme moved off its coast. About a legionary's base at TOUCH_SCALE: no piece came or went in it.
GRAZE_PIXELS = 50
#: A region whose core is smaller than this (the islands: Baleares, Creta, Corsica, Cipro,
#: Sicilia, Sardinia) has its pieces stand along its coast and off it, so it is never taken as
#: grazed: every change near it has it read again.
CORE_PIXELS = 4 * GRAZE_PIXELS


_SPECK = np.ones((2, 2), np.uint8)
_JOIN = np.ones((3, 3), np.uint8)


def _patches(now: np.ndarray, before: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The patches of pixels changed between two views of the board (see :func:`changed_patches`):
    each pixel's patch label, each patch's cv2 stats, and 1 for the patches kept (0 for the rest
    and for label 0, the unchanged background)."""
    changed = (colour_change(now, before) > TOUCH_LEVEL).astype(np.uint8)
    changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, _SPECK)
    changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, _JOIN)
    _, patches, stats, _ = cv2.connectedComponentsWithStats(changed)
    keep = (stats[:, cv2.CC_STAT_AREA] >= TOUCH_PIXELS).astype(np.uint8)
    keep[0] = 0
    return patches, stats, keep


def changed_patches(now: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Where two views of the board (uint8 BGR, the same light) differ: 1 on each pixel of a patch
    of at least TOUCH_PIXELS pixels changed by more than TOUCH_LEVEL, 0 elsewhere (uint8). The
    sensor's lone specks are dropped first (a 2 x 2 opening), and what is left of one piece's
    change is joined (a 3 x 3 closing). The counter asks the same of its input
    (:mod:`vision.partial`, :func:`changed_patch_boxes`), at about the same pixels per legionary."""
    patches, _, keep = _patches(now, before)
    return keep[patches]


def changed_patch_boxes(now: np.ndarray, before: np.ndarray) -> np.ndarray:
    """The bounding box (x, y, width, height; K x 4) of each patch :func:`changed_patches` marks."""
    _, stats, keep = _patches(now, before)
    return stats[keep.astype(bool), :4]


class TouchedRegions:
    """Remembers the frame of the last commit and tells which regions changed since."""

    def __init__(self, profile: CalibrationProfile, geo: BoardGeometry):
        self.view = BoardView.of(profile, geo, TOUCH_SCALE)
        self.labels = cv2.resize(geo.labels, self.view.size, interpolation=cv2.INTER_NEAREST)
        self.land = cv2.resize(geo.land_labels, self.view.size, interpolation=cv2.INTER_NEAREST)
        self.region_ids = geo.region_ids
        reach = 2 * int(round(TOUCH_REACH * TOUCH_SCALE)) + 1
        self._reach = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach))
        # each region's core: the label where every label within TOUCH_REACH is the same
        same = cv2.erode(self.labels, self._reach) == cv2.dilate(self.labels, self._reach)
        self.core = np.where(same, self.labels, 0)
        area = np.bincount(self.core.ravel(), minlength=len(self.region_ids) + 1)
        self._cored = {r for i, r in enumerate(self.region_ids) if area[i + 1] >= CORE_PIXELS}
        #: the provinces without a core (the islands), with the regions next to each: a change on an
        #: island is a move on it only where none of these reads otherwise (:meth:`_moved_islands`)
        self._uncored = {r: geo.board.touching(r) for r in self.region_ids
                         if r not in self._cored and geo.board.is_province(r)}
        self.kept: np.ndarray | None = None
        self.state: ObservedState | None = None
        self._light: LightMatch | None = None
        #: the regions the last :meth:`hold` found changed in their core since the kept frame (a
        #: piece came, went or moved there), seen both then and now; None: no frame was kept, so
        #: it could not tell. A count a player or a rule set over the camera's there may no longer
        #: be right even where the camera reads the region as before (:mod:`tracker.overrides`).
        #: An island is among them where a legionary's worth of its pixels changed (on it, or on
        #: the sea off its coast where its pieces spill) and none of the regions next to it reads
        #: otherwise than at the commit (:meth:`_moved_islands`).
        self.changed: frozenset[str] | None = None

    def remember(self, image: np.ndarray, state: ObservedState) -> None:
        """Keep the frame a state was committed from."""
        self.kept = self.view(image)
        self.state = state
        self._light = LightMatch(self.kept)

    def see_again(self, image: np.ndarray, state: ObservedState) -> None:
        """The committed counts stand, and some regions unseen at the commit are seen now
        (``state``, :attr:`vision.fuse.Fusion.resighted`): a hand that lay on them has gone. Their
        pixels of this frame are kept, so that they are held from now on like the others. Only
        theirs: a region touched since the commit whose count the counter still reads as it was
        committed stays touched, and is counted again at every frame until a commit. Regions
        that a hand has come to hide meanwhile are left as they were: their kept pixels show them."""
        if self.kept is None:
            return
        again = sorted(self.state.unseen - state.unseen)
        if not again:
            return
        ids = [self.region_ids.index(r) + 1 for r in again]
        mask = np.isin(self.labels, ids) | np.isin(self.land, ids)
        self.kept[mask] = self._light(self.view(image))[mask]
        kept, now = self.state.to_dict(), state.to_dict()
        confidence = {r: c for r, c in kept.get("confidence", {}).items() if r not in again}
        confidence.update({r: c for r, c in now.get("confidence", {}).items() if r in again})
        self.state = ObservedState.from_dict(dict(kept, confidence=confidence,
                                                  unseen=sorted(self.state.unseen - set(again))), self.state.board)

    def touches(self, image: np.ndarray) -> dict[str, int] | None:
        """Each region whose pixels changed since the kept frame (within TOUCH_REACH of it, or off
        its coast where its spilled pieces stand), with how many of them lie in its core; None: no
        frame kept."""
        found = self._touches(image)
        return None if found is None else found[0]

    def _touches(self, image: np.ndarray) -> tuple[dict[str, int], dict[str, int]] | None:
        """:meth:`touches`, and for each island touched, how many changed pixels lie on it or on
        the sea off its coast where its pieces count (``BoardGeometry.land_labels``)."""
        if self.kept is None:
            return None
        counted = changed_patches(self._light(self.view(image)), self.kept)
        if not counted.any():
            return {}, {}
        near = cv2.dilate(counted, self._reach).astype(bool)
        n = len(self.region_ids) + 1
        hits = np.bincount(self.labels[near], minlength=n) + np.bincount(self.land[near], minlength=n)
        changed = counted.astype(bool)
        in_core = np.bincount(self.core[changed], minlength=n)
        on_land = np.bincount(self.land[changed], minlength=n)
        touched = {r: int(in_core[i + 1]) for i, r in enumerate(self.region_ids) if hits[i + 1]}
        return touched, {r: int(on_land[self.region_ids.index(r) + 1]) for r in self._uncored if r in touched}

    def _moved_islands(self, on_land: dict[str, int], held: ObservedState) -> set[str]:
        """The islands a hand changed pieces on since the commit: at least GRAZE_PIXELS changed on
        the island or off its coast (``on_land``), seen then and now, with every region next to it
        seen and read as at the commit (``held``, the frame's counts as :meth:`hold` leaves them).

        An island has no core: its pieces stand along its coast and off it, where a trireme moved
        on the sea changes the same pixels. A move that changed a region next door is taken for
        that move, so a count set over a misread of the island is not doubted at every trireme
        sailing past; a move on the island that changed nothing next door is taken for a move
        on it. A trireme nudged without a count changing anywhere would be taken for one too:
        the players are asked to check the island's count once (:func:`tracker.overrides.doubt_moved`)."""
        def as_committed(r: str) -> bool:
            return self._seen_both(r, held) and held.regions.get(r, {}) == self.state.regions.get(r, {})
        return {r for r, n in on_land.items() if n >= GRAZE_PIXELS and self._seen_both(r, held)
                and all(as_committed(other) for other in self._uncored[r])}

    def _seen_both(self, region: str, now: ObservedState) -> bool:
        """Seen at the commit and in ``now``: only then can its pieces be told to have changed."""
        return region not in now.unseen and region not in self.state.unseen

    def _grazed(self, region: str, in_core: int) -> bool:
        """Touched with too little changed in its core for a piece to have come or gone there."""
        return region in self._cored and in_core < GRAZE_PIXELS

    def hold(self, image: np.ndarray, state: ObservedState) -> ObservedState:
        """``state`` with every region the frame shows untouched set back to its committed reading,
        and every region only grazed too (fewer than GRAZE_PIXELS changed in its core) unless the
        counter is sure of a new count there (LOW_CONFIDENCE, where the dashboard stops asking).
        A grazed region read again with its committed count keeps its committed confidence: the
        pieces in its core did not change, so neither does the doubt about them. (A rendered hard
        game, seed 269: Galatia, read one over at 0.61, was read so again at 0.86 as a hand worked
        in Bithynia beside it, and went unflagged for 11 commits. Filmed again with the committed
        confidence kept, that set and hard 253's left 14 wrong counts unflagged instead of 26,
        for as many checks asked; the marks already standing stayed longer, on 395 right
        region-states instead of 369.)

        A region unseen now stays as the counter left it; one unseen at the commit is counted."""
        found = self._touches(image)
        self.changed = None
        if found is None:
            return state
        touches, on_land = found
        changed = {r for r, in_core in touches.items()
                   if r in self._cored and in_core >= GRAZE_PIXELS and self._seen_both(r, state)}
        kept, now = self.state.to_dict(), state.to_dict()
        regions, confidence = dict(now["regions"]), dict(now.get("confidence", {}))
        lying = set(state.lying)
        for r in self.region_ids:
            if r in state.unseen or r in self.state.unseen:
                continue
            if r in touches and not (self._grazed(r, touches[r])
                                     and (state.confidence_of(r) < LOW_CONFIDENCE
                                          or now["regions"].get(r, {}) == kept["regions"].get(r, {}))):
                continue
            regions.pop(r, None)
            confidence.pop(r, None)
            if r in kept["regions"]:
                regions[r] = kept["regions"][r]
            if r in kept.get("confidence", {}):
                confidence[r] = kept["confidence"][r]
            lying.discard(r)
            if r in self.state.lying:
                lying.add(r)
        held = ObservedState.from_dict(dict(now, regions=regions, confidence=confidence, lying=sorted(lying)),
                                       state.board)
        self.changed = frozenset(changed | self._moved_islands(on_land, held))
        return held
