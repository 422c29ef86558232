"""Reading the score track: on which box each player's marker stands.

The players move their own marker along the victory-point track (§5); Augur keeps the same
score from the counts (:meth:`tracker.game.Game.score`). Reading the markers lets the tablet set
the two side by side, so that a marker left behind, moved too far or knocked along the track is
seen at the table while it is still easy to mend, not argued over at the end of the evening.

Each box is compared with its own colour, not with the calibration photo: the track's boxes
are plain (parchment, every fifth one yellow), so a box's median colour is the box as this
frame's light shows it, wherever a lamp's pool of light has moved since the calibration. A pixel
that differs from its box is read as a blend of the box and one army's colour
(:meth:`TrackReader._unmix`), and each army's marker is its marker-shaped blob that shows the
most piece; the box it stands in is the marker's box. Box 0 holds every marker at the start, so
its own colour is that of its pixels still like its colour in the calibration photo (there, its
pixels away from the markers found on it, and like some other box's colour), in this frame's
light. A blob that reaches an end of its box where something lies over the track's frame beyond
that end (a hand, a card, a piece on the map leaning over; not a shadow) is not a marker.

A box whose colour is far from the calibration photo's, in this frame's light and in the light
of the boxes beside it, is under a hand, a card or a die (or was, in the calibration photo),
and nothing is read in it, unless a fifth of its pixels still show the box (two markers tied
on one box); a marker found nowhere is read as unknown (None). The live loop reads the track
once a still run has had its last say (:class:`vision.pipeline.Pipeline`).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy.ndimage import median_filter

from calibration.profile import CalibrationProfile, white_balance
from tracker.pieces import ARMY_COLOURS
from vision.gate import BoardView
from vision.geometry import load_geometry

#: Board units read around the track's boxes, and of each box's edge left out (its printed line:
#: a line a pixel off reads as a change).
TRACK_PAD = 12
BOX_MARGIN = 2
#: A pixel this far (BGR, after white balance) from its box's colour has changed.
CHANGED = 20.0
#: A changed pixel is read as a blend of its box and an army's colour, with from BLEND_LEAST to
#: BLEND_MOST of the army's, when its distance from that blend is at most RESIDUAL times its
#: distance from the box (:meth:`TrackReader._unmix`).
BLEND_LEAST = 0.25
BLEND_MOST = 1.4
RESIDUAL = 0.75
#: ...but where the army's colour lies less than NEAR_BOX (BGR) from the box's, up to a move of
#: BLEND_MOST x NEAR_BOX along it: the yellow army learned on yellow box 0 is the paint's own
#: colour but for a little, and a yellow marker on a yellow box shows well beyond it.
NEAR_BOX = 60.0
#: A marker's blob, in board units: from MARKER_SMALLEST to MARKER_LARGEST square units (a
#: vexillum serves as a marker too, §3.5), its longest side at most MARKER_ASPECT times its
#: shortest (a streak of skin or of a shadow is longer), filling at least MARKER_FILL of its
#: bounding box, and showing at least MASS_LEAST square units of piece (its pixels' blend shares).
MARKER_SMALLEST = 60
MARKER_LARGEST = 1500
MARKER_ASPECT = 3.0
#: ...its shortest side taken as at least NARROWEST units: box 20 of the print is half as wide
#: as the others, and a marker there shows no more of itself than the box's width.
NARROWEST = 10
MARKER_FILL = 0.25
MASS_LEAST = 45.0
#: ...and its middle at least END_CLEAR units from either end of the boxes: a marker stands well
#: inside its box, while a piece on the map beside the track that a tilted camera sees lean over
#: it shows at the box's end.
END_CLEAR = 14
#: A blob reaching within END_TOUCH units of a box's end is of something lying over the track's
#: frame beyond that end where at least END_OVER of its columns show, in the END_BAND units of the
#: frame outside the boxes (END_GAP units beyond them, off the boxes' printed edges), a median
#: colour END_CHANGED (BGR) or more from the frame's around it (END_WINDOW columns) or from the
#: calibration photo's, and not a shadow: a shadow is that colour scaled darker, within
#: SHADOW_RESIDUAL of the change (:meth:`TrackReader._over`).
END_TOUCH = 2
END_BAND = 5
END_GAP = 3
END_CHANGED = 45.0
END_OVER = 3
SHADOW_RESIDUAL = 0.3
END_WINDOW = 151
END_STEP = 4
#: A box whose median colour lies this far (Lab) from the calibration photo's, in this frame's
#: light, is covered; so is one the camera sees less than half of.
COVERED_DIST = 30.0
#: Boxes on either side of a box whose light is its own light's second opinion.
LIGHT_NEAR = 4
#: Board units around each marker the calibration found on box 0 left out of box 0's own colour,
#: which is taken from the pixels left within BOX_LIKE (BGR) of another box's colour.
MARKER_CLEAR = 6
BOX_LIKE = 25.0
#: A box whose median colour says covered is read all the same where at least BARE_LEAST of its
#: pixels lie within BOX_LIKE of its calibration colour (in this frame's light, or its
#: neighbours'): those pixels give its colour. Box 0's colour is its pixels' within BOX_LIKE of
#: its calibration colour where at least BOX0_BARE of them are (the markers' shadows on it in the
#: calibration photo darken that colour; a bare box 0 later read its brighter paint as yellow).
BARE_LEAST = 0.2
BOX0_BARE = 0.2


@dataclass(frozen=True)
class TrackReading:
    """Where each player's marker stands: box 0 to 40, or None where it could not be read."""

    boxes: dict[str, int | None]

    def to_dict(self) -> dict[str, int | None]:
        return dict(sorted(self.boxes.items()))


class TrackReader:
    """Reads one table's score track from its frames, through the calibration's pose."""

    def __init__(self, profile: CalibrationProfile, players: tuple[str, ...] = ()):
        """``players``: the armies whose markers to read; by default those whose marker the
        calibration found on box 0 (``CalibrationProfile.learned``), else every army."""
        geo = load_geometry(profile.board_id)          # where the calibration sought the markers
        self.boxes = np.asarray(geo.track_boxes, np.float64)
        self.players = tuple(players) or tuple(profile.learned) or tuple(ARMY_COLOURS)
        x0 = max(0, int(self.boxes[:, 0].min()) - TRACK_PAD)
        y0 = max(0, int(self.boxes[:, 1].min()) - TRACK_PAD)
        x1 = min(geo.size[0], int(np.ceil(self.boxes[:, 2].max())) + TRACK_PAD)
        y1 = min(geo.size[1], int(np.ceil(self.boxes[:, 3].max())) + TRACK_PAD)
        self.view = BoardView(profile.H, geo, 1.0, profile.k1, window=(x0, y0, x1, y1))
        self.gains = profile.gains
        self.names = list(ARMY_COLOURS)
        self.colours = cv2.cvtColor(np.uint8([[profile.colours_lab[c] for c in self.names]]),
                                    cv2.COLOR_LAB2BGR)[0].astype(np.float32)
        h, w = y1 - y0, x1 - x0
        self.interiors = [(slice(int(np.ceil(by0)) + BOX_MARGIN, int(by1) - BOX_MARGIN),
                           slice(int(np.ceil(bx0)) + BOX_MARGIN, int(bx1) - BOX_MARGIN))
                          for bx0, by0, bx1, by1 in self.boxes - [x0, y0, x0, y0]]
        self.box_of = np.full((h, w), -1, np.int16)          # each pixel's box (-1: none)
        for b, box in enumerate(self.interiors):
            self.box_of[box] = b
        self.top, self.bottom = self.boxes[:, 1].min() - y0, self.boxes[:, 3].max() - y0
        # the boxes whose light is each box's second opinion (box 0's markers left out)
        self.neighbours = [[k for k in range(max(1, b - LIGHT_NEAR), min(len(self.boxes), b + LIGHT_NEAR + 1))
                            if k != b] for b in range(len(self.boxes))]
        self._seen: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        # the boxes' colours in the calibration photo; box 0's away from the markers on it
        ref = white_balance(profile.reference[y0:y1, x0:x1], profile.gains).astype(np.float32)
        # the boxes' first and last rows read, and the rows of the track's frame beyond them
        self.ends = (min(ys.start for ys, _ in self.interiors), max(ys.stop for ys, _ in self.interiors))
        top, bottom = self.ends[0] - BOX_MARGIN - END_GAP, self.ends[1] + BOX_MARGIN + END_GAP
        self.bands = (slice(max(0, top - END_BAND), top), slice(bottom, min(h, bottom + END_BAND)))
        # the calibration photo's frame there, and where it shows the frame's own colour
        self.band_refs = []
        for band in self.bands:
            then = np.median(ref[band], axis=0)
            self.band_refs.append((then, np.linalg.norm(then - np.median(then, axis=0), axis=1) < END_CHANGED))
        ys, xs = np.mgrid[0:h, 0:w]
        clear = np.ones((h, w), bool)
        for x, y in profile.markers_at.values():
            clear &= np.hypot(xs - (x - x0), ys - (y - y0)) > MARKER_CLEAR + np.sqrt(profile.legionary_area / np.pi)
        self.ref_colours = np.float32([np.median(ref[box][clear[box]] if clear[box].any() else ref[box].reshape(-1, 3),
                                                 axis=0) for box in self.interiors])
        # box 0 held the markers in the photo, where the calibration may not have found them all:
        # its colour is that of its pixels which look like some other box (parchment or yellow)
        box0 = ref[self.interiors[0]][clear[self.interiors[0]]]
        like = np.linalg.norm(box0[:, None] - self.ref_colours[None, 1:], axis=2).min(axis=1) < BOX_LIKE
        if like.sum() >= 20:
            self.ref_colours[0] = np.median(box0[like], axis=0)

    def read(self, image: np.ndarray) -> TrackReading:
        """The markers on ``image`` (a frame of the calibration's size, as the camera gives it)."""
        found, shown, _, over_ends = self.examine(image)
        return TrackReading({c: self._marker_box(found == self.names.index(c), shown, over_ends) for c in self.players})

    def examine(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """The track as :meth:`read` sees it, in view pixels (board units): each pixel's army
        (index into ``names``; -1 for none), the share of that army's piece it shows, which boxes
        are covered, and the view columns where something lies over the track's frame beyond the
        boxes' upper and lower ends."""
        seen, half_seen = self._seen_in(image.shape)
        strip = white_balance(self.view(image), self.gains).astype(np.float32)
        colour = np.float32([np.median(strip[box][::2, ::2].reshape(-1, 3), axis=0) for box in self.interiors])
        # brought to the calibration's light, in which the armies' colours were learned: the boxes
        # say how the light moved, as the bare board does for the counter (vision.light)
        light = np.median(colour[1:] / np.maximum(self.ref_colours[1:], 1.0), axis=0)
        strip /= np.maximum(light, 1e-3)
        colour /= np.maximum(light, 1e-3)
        # the markers stand on box 0 at the start: its colour is that of its pixels still like the
        # calibration's box 0 (the paint between the markers), not its own median
        bare = self._bare_colour(strip[self.interiors[0]], [self.ref_colours[0]], BOX0_BARE)
        colour[0] = self.ref_colours[0] if bare is None else bare
        covered = self._far(colour, self.ref_colours)
        # ...and in the light of the boxes beside it, where a lamp lights one end of the track more
        ratios = colour / np.maximum(self.ref_colours, 1.0)
        local = np.float32([np.median(ratios[near], axis=0) for near in self.neighbours])
        covered &= self._far(colour, self.ref_colours * local)
        covered |= half_seen
        covered[0] = False
        # ...unless enough of it still shows the box: two or three markers tied on one box (box 40
        # at the end of a game) pull its median off the box's colour, while a hand hides it all
        for b in np.flatnonzero(covered & ~half_seen):
            bare = self._bare_colour(strip[self.interiors[b]], self.ref_colours[b] * np.float32([[1, 1, 1], local[b]]),
                                     BARE_LEAST)
            if bare is not None:
                covered[b], colour[b] = False, bare
        inside = self.box_of >= 0
        search = inside & seen
        search[inside] &= ~covered[self.box_of[inside]]
        search[search] = np.linalg.norm(strip[search] - colour[self.box_of[search]], axis=1) > CHANGED
        army, share = self._unmix(strip[search], colour[self.box_of[search]])
        found = np.full(search.shape, -1, np.int8)
        found[search] = army
        shown = np.zeros(search.shape, np.float32)
        shown[search] = np.clip(share, 0, 1)
        # the columns where something lies over the track's frame beyond the boxes' ends (a hand,
        # a card, a piece on the map leaning over): a blob reaching that end of its box is of it
        over_ends = tuple(self._over(np.median(strip[band], axis=0), then, trusted)
                          for band, (then, trusted) in zip(self.bands, self.band_refs))
        return found, shown, covered, over_ends

    def _seen_in(self, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """For frames of ``shape``: the view pixels the camera shows, and the boxes it shows less
        than half of (made once per frame size, as the view's lookup table is)."""
        key = (shape[0], shape[1])
        if key not in self._seen:
            seen = self.view.seen(shape)
            self._seen[key] = seen, np.float32([seen[box].mean() for box in self.interiors]) < 0.5
        return self._seen[key]

    @staticmethod
    def _over(frame: np.ndarray, then: np.ndarray, trusted: np.ndarray) -> np.ndarray:
        """Which columns of a band of the track's frame (``frame``: its median colour down each
        column) show something lying over it: a colour END_CHANGED (BGR) or more from the frame's
        around it (a median of END_WINDOW columns), or from the calibration photo's (``then``)
        where that photo showed the frame's own colour (``trusted``: not washed out by a glare);
        and in neither case as a shadow (the colour darker: a marker's shadow falls over the frame,
        and a marker near its box's end is no less a marker). The frame around finds a narrow
        sleeve wherever the light stands; the calibration photo finds a hand as wide as the window."""
        def changed(expected: np.ndarray) -> np.ndarray:
            d = frame - expected
            scale = np.einsum("nc,nc->n", frame, expected) / np.maximum(np.einsum("nc,nc->n", expected, expected), 1.0)
            shadow = (scale < 1.0) & (np.linalg.norm(frame - scale[:, None] * expected, axis=1)
                                      <= SHADOW_RESIDUAL * np.linalg.norm(d, axis=1))
            return (np.linalg.norm(d, axis=1) > END_CHANGED) & ~shadow
        # the median of every END_STEP-th column is as good a frame colour, at a tenth of the time
        around = median_filter(frame[::END_STEP], size=(END_WINDOW // END_STEP | 1, 1), mode="nearest")
        return changed(np.repeat(around, END_STEP, axis=0)[:len(frame)]) | (trusted & changed(then))

    @staticmethod
    def _bare_colour(box: np.ndarray, expected, least: float) -> np.ndarray | None:
        """The median of a box's pixels (every other one) that lie within BOX_LIKE of one of the
        ``expected`` colours, tried in turn, where at least ``least`` of them do; else None."""
        pixels = box[::2, ::2].reshape(-1, 3)
        for colour in expected:
            bare = np.linalg.norm(pixels - colour, axis=1) < BOX_LIKE
            if bare.mean() >= least:
                return np.median(pixels[bare], axis=0)
        return None

    @staticmethod
    def _far(colour: np.ndarray, expected: np.ndarray) -> np.ndarray:
        """Which boxes' ``colour`` lies more than COVERED_DIST (Lab) from the ``expected`` one."""
        both = cv2.cvtColor(np.uint8([np.clip(colour, 0, 255), np.clip(expected, 0, 255)]),
                            cv2.COLOR_BGR2LAB).astype(np.float32)
        return np.linalg.norm(both[0] - both[1], axis=1) > COVERED_DIST

    def _unmix(self, pixels: np.ndarray, box: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each pixel (BGR) over its ``box`` colour: the army (index into ``names``, or -1)
        whose piece, blended with the box, best explains it, and the share of the piece it shows.
        A marker seen small and blurred blends its colour with the box's at its rim, and a
        washed-out light leaves even its core pale: seen as such a blend, pixel = box + share x
        (army - box), a pixel is told by the direction it moved its box's colour in, not by how
        near it lies to the army's own colour (which left a pale green marker unread)."""
        d = pixels - box                                                       # n x 3
        v = self.colours[None] - box[:, None]                                  # n x armies x 3
        share = np.einsum("nc,nkc->nk", d, v) / np.maximum(np.einsum("nkc,nkc->nk", v, v), 1.0)
        off = np.linalg.norm(d[:, None] - share[..., None] * v, axis=2)        # n x armies
        reach = np.linalg.norm(v, axis=2)
        most = np.where(reach < NEAR_BOX, BLEND_MOST * NEAR_BOX / np.maximum(reach, 1.0), BLEND_MOST)
        ok = (share >= BLEND_LEAST) & (share <= most) & (off <= RESIDUAL * np.linalg.norm(d, axis=1)[:, None])
        off = np.where(ok, off, np.inf)
        best = off.argmin(axis=1)
        army = np.where(np.isfinite(off[np.arange(len(best)), best]), best, -1)
        return army, share[np.arange(len(best)), best]

    def _from_beyond(self, stats: np.ndarray, over_ends: tuple[np.ndarray, np.ndarray]) -> bool:
        """Whether a blob (its ``stats`` row) reaches an end of its box where, in the same columns,
        something lies over the track's frame beyond it (``over_ends``, from :meth:`examine`): a
        hand, a card or a piece on the map that comes in over the end is no marker standing inside."""
        x, y, w, h = (stats[c] for c in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP, cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT))
        reaches = (y <= self.ends[0] + END_TOUCH, y + h >= self.ends[1] - END_TOUCH)
        return any(r and over[x:x + w].sum() >= END_OVER for r, over in zip(reaches, over_ends))

    def _marker_box(self, mask: np.ndarray, shown: np.ndarray, over_ends: tuple[np.ndarray, np.ndarray]) -> int | None:
        """The box of the marker-shaped blob of ``mask`` that shows the most piece (its pixels'
        ``shown`` shares summed), and does not come in over an end of its box, or None."""
        mask = mask.astype(np.uint8)
        # OpenCV's 2 x 2 opening can move a pixel's worth off the mask (its anchor is not centred)
        mask &= cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        n, labels, stats, centres = cv2.connectedComponentsWithStats(mask)
        if n <= 1:
            return None
        mass = np.bincount(labels.ravel(), weights=shown.ravel(), minlength=n)
        box_of_label = np.zeros(n, np.int16)           # a blob lies in one box: only interiors are read
        box_of_label[labels[mask > 0]] = self.box_of[mask > 0]
        best, most = None, MASS_LEAST
        for k in range(1, n):
            area, w, h = stats[k, cv2.CC_STAT_AREA], stats[k, cv2.CC_STAT_WIDTH], stats[k, cv2.CC_STAT_HEIGHT]
            cy = centres[k][1]
            if (MARKER_SMALLEST <= area <= MARKER_LARGEST and self.top + END_CLEAR <= cy <= self.bottom - END_CLEAR
                    and mass[k] > most and not self._from_beyond(stats[k], over_ends)
                    and max(w, h) <= MARKER_ASPECT * max(min(w, h), NARROWEST) and area >= MARKER_FILL * w * h):
                best, most = int(box_of_label[k]), mass[k]
        return best

