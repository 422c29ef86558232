"""The region map's borders moved onto the lines printed on this copy of the board.

The committed region map was drawn from a flat-colour drawing, and a real print differs from it
by up to twenty board units in places (a legionary's base is 16.5 across): on the photo in
``../shared`` the border between Galatia and Cilicia and the whole of Cipro lie that far from
the map's. The pose and the surface field (:mod:`calibration.surface`) move the map by a smooth
field fitted on patches 128 units square, so they cannot move one border and leave its
neighbours. The user's anchors (:mod:`calibration.map_fit`) can, by hand.

This module does it at calibration, by a seeded segmentation of the empty board along its
printed borders (a marker-controlled watershed):

- the print's borders and coasts are dark lines a few units wide. Their strength at each point
  (:func:`line_strength`) is the morphological black-hat of the grey view: how much darker the
  point is than its surroundings closed over :data:`LINE_WIDTH`. Broad dark provinces do not
  count; lines and letters do;
- the texture of the card and the noise of the camera also make weak black-hat ridges. The
  strength of the view's 90th percentile away from the map's borders measures them, and only what
  rises above it (and above :data:`MIN_FLAT`) counts as a line. A view too soft to show its lines
  (a far, blurred board) then shows nothing, and the map stays where it was;
- each piece of a region (an island of a group is a piece) keeps as a seed everything farther
  than :data:`REACH` board units from its borders, or the deeper half of a piece not that deep.
  The band between seeds is flooded from them (:func:`scipy.ndimage.watershed_ift`), so a border
  settles on the strongest line that separates two seeds. The map's own border is drawn into
  the flooded image one step above the flat print: where nothing is printed, it stays put;
- borders between two seas (dash-dot lines, with gaps a flood goes through) are never moved,
  nor is a region ever moved off the map, nor does a region take a pixel farther than REACH
  from it (a flood can run along the map's own borders). The flood leaves the map's edge
  where it is; where the print's land or sea goes on past it, the region nearest takes what
  plainly shows its colour (:func:`_grown_off_map`); a strip that moves
  by less than :data:`MIN_MOVE` is left where it was, and so is one whose tone is plainly the
  region's it would leave (:data:`TONE_MARGIN`): the line it followed was not printed (a die's
  edge).

The profile keeps the result as the pixels it gives to another region (``borders_png`` in the
JSON), so a profile reads the same map every time it is loaded, whatever later versions of this
module would trace.
"""
from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
from scipy import ndimage

from calibration.region_map import interior_label_points, region_polygons
from vision.geometry import BoardGeometry

#: Printed borders are narrower than this (board units); the black-hat closes over it.
LINE_WIDTH = 11
#: The grey view is smoothed by this much (board units) before lines are measured.
LINE_BLUR = 1.2
#: A seed lies farther than this (board units) from its region's borders: a border can move at
#: most this far. The real print differs from the map by up to about 20 units.
REACH = 28.0
#: ...or, in a piece of a region not that deep, farther than this share of the piece's depth.
SEED_SHARE = 0.5
#: The map's edge may move this far out (board units) onto a print whose land or sea goes on past
#: it: on the photo in ``../shared`` the printed Mesopotamia reaches 30 units past the map's edge.
OFF_MAP_REACH = 42.0
#: Line strength (grey levels) that is never taken for a line, whatever the view's texture.
MIN_FLAT = 3.0
#: Points farther than this (board units) from the map's borders measure the view's texture.
TEXTURE_AWAY = 8.0
#: Grey levels of line strength per step of the flooded image (uint8).
GAIN = 4.0
#: A moved strip must reach this far (board units) from the map's border, or it is left where it
#: was: a border that settles a few units aside is the line's width and the pose's own error, not
#: a print that differs. (At 2 units, such slivers on correctly printed rendered boards cost the
#: 30-table medium bench half a point, 96.3 against 96.8 %; at 4 it reads as without tracing.)
MIN_MOVE = 4.0
#: A moved strip whose median colour (CIE Lab) is nearer, by more than this, to the tone deep
#: inside the region it would leave than to the tone deep inside the region it would join is left
#: where it was. Each province is printed in one tone. The edges of a die left on the board at
#: calibration are lines too: on a hard rendered table such a die took Germania Inferior's
#: narrow tail (1,655 pixels, 11 Lab units nearer Germania Inferior's tone) and gave it to Raetia,
#: and a legionary standing there was counted in Raetia all game. On the real photo the strip
#: Galatia takes from Cilicia is 24 units nearer Galatia's tone.
TONE_MARGIN = 8.0
#: "Deep inside": farther than this (board units) from the region's borders.
TONE_INSIDE = 20.0
#: A pixel off the map is taken by the region nearest it only if its colour (CIE Lab) lies this
#: near that region's tone, besides being TONE_MARGIN nearer it than the frame's tone. On the
#: real print the strip of Arabia past the map's edge lies within about 15 of Arabia's tone. Nearer
#: the frame's alone was not enough: on rendered tables the frame's red in a shadow below the
#: map lay 38 from Cyrenaica's brown but 53 from the frame's median, and a card's white over the
#: frame 27 from the sea's pale blue, and both were taken.
TONE_NEAR = 16.0
#: The rings beyond a strip taken off the map where the frame must show: from and to (pixels from
#: the strip), by how much (CIE Lab) the ring's colour must lie nearer the frame's tone than the
#: region's, and how far the region's tone must lie from the frame's for the ring to be looked at.
#: The first ring lies past the blur of a sharp view's printed edge. In a soft view (a hard
#: rendered table: defocused by up to 6 pixels, the board seen at about half a pixel per unit)
#: the print's last units and the frame blur into one, the first ring shows neither, and the frame
#: shows only in the second: on 40 hard tables of the real print the fitted map put 16 of 82
#: pieces standing past the map's edge outside their region with the first ring alone, 7 with
#: the second (most of them on no region at all). The second
#: asks for a clear margin and a region plainly unlike the frame: with a margin alone Mauretania,
#: whose brown lies 28 to 37 from the frame's red, took up to 2,900 pixels of the dark band above
#: the score track on those tables, winning by 4 to 9; the regions rightly grown so on the tables
#: looked at (Aegyptus, Arabia, Mesopotamia, Cyrenaica, Armenia) lie 52 or more from it.
#: The first ring asks for half that margin (none until session 111): a ring blurred halfway
#: between the frame and the region is neither, and which way it went turned on a tenth of a
#: pixel. On a hard print table (bench table 3) Mauretania's strip above the score track had a
#: ring 22.6 from the frame's tone and 22.8 from its own, and took 1,059 units of the band
#: there; located 0.3 pixels elsewhere, 23.5 and 22.0, it took none. With the half margin the
#: 40 hard print bench tables put as many pieces in another region as before (37 of 5,493), and
#: so did 24 of seed 31337 (31 of 3,498).
RIMS = ((3, 6, TONE_MARGIN / 2, 0.0), (6, 10, TONE_MARGIN, 45.0))
#: Pixels around a strip's bounding box that hold its widest ring (a dilation by n steps of the
#: cross reaches n pixels): its rings are looked for there, not over its region's whole box.
RIM_PAD = max(far for _, far, _, _ in RIMS) + 1
#: A piece of a region smaller than this (square board units) is a speck of the flat-colour
#: drawing the map was made from, not an islet printed on the board (the smallest printed islets,
#: of the Baleares, cover about 320): it neither takes nor gives a pixel. The map has ten such
#: specks, such as two of Britannia's on the coasts of Germania Inferior and Belgica; with
#: a seed of its own, the speck on Germania Inferior's coast took a strip 17 units long along the
#: letters of that province's name on a correctly printed rendered board (session 33).
SPECK = 64


def line_strength(rectified: np.ndarray) -> np.ndarray:
    """How much darker each point is than its surroundings (grey levels; float32): the printed
    borders, coasts and names stand out, the flat print and broad dark provinces do not."""
    grey = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY).astype(np.float32)
    grey = cv2.GaussianBlur(grey, (0, 0), LINE_BLUR)
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (LINE_WIDTH, LINE_WIDTH))
    return cv2.morphologyEx(grey, cv2.MORPH_BLACKHAT, disc)


def _border_pixels(labels: np.ndarray) -> np.ndarray:
    return cv2.morphologyEx(labels, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0


def _beyond_reach(moved: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The pixels ``moved`` gives to a region that lies farther than REACH from them in the map.

    A border moves at most REACH, yet a flood can take more: the map's borders form one network
    at the flat print's step above it, and a region whose seed reaches that network without
    crossing a printed line (as where the camera's frame cuts the board off and nothing is seen)
    floods along it around the whole map while its neighbours are still crossing their lines. On
    a hard rendered table cut off in the east, Armenia so took 15,000 pixels of borders as far as
    Hispania, and pieces standing on them were counted in Armenia."""
    beyond = np.zeros(moved.shape, bool)
    pad = int(np.ceil(REACH)) + 1
    for r, box in enumerate(ndimage.find_objects(moved), 1):       # each region's pixels' bounding box
        if box is None:
            continue
        y0, y1 = max(box[0].start - pad, 0), min(box[0].stop + pad, moved.shape[0])
        x0, x1 = max(box[1].start - pad, 0), min(box[1].stop + pad, moved.shape[1])
        # within the box grown by REACH, every pixel of r that could lie within REACH is seen
        to_r = cv2.distanceTransform(np.where(labels[y0:y1, x0:x1] == r, 0, 255).astype(np.uint8), cv2.DIST_L2, 5)
        beyond[y0:y1, x0:x1] |= (moved[y0:y1, x0:x1] == r) & (to_r > REACH)
    return beyond


def _most_by_label(values: np.ndarray, labels: np.ndarray, count: int) -> np.ndarray:
    """The largest of ``values`` (non-negative) under each label 0 .. ``count`` of ``labels``, as
    ``ndimage.maximum`` gives it for labels that each hold a pixel, at a tenth of its time (it
    sorts every pixel by label: 35 ms for a map)."""
    most = np.zeros(count + 1, values.dtype)
    np.maximum.at(most, labels.ravel(), values.ravel())
    return most


def _specks(labels: np.ndarray) -> np.ndarray:
    """The pixels of the pieces of regions smaller than :data:`SPECK`."""
    specks = np.zeros(labels.shape, bool)
    for value, box in enumerate(ndimage.find_objects(labels), 1):
        if box is None:
            continue
        pieces, _ = ndimage.label(labels[box] == value, structure=np.ones((3, 3)))
        small = np.flatnonzero(np.bincount(pieces.ravel()) < SPECK)
        specks[box] |= np.isin(pieces, small[small > 0])
    return specks


def trace_borders(rectified: np.ndarray, geo: BoardGeometry) -> np.ndarray:
    """The pixels of ``geo``'s map that the printed borders of the ``rectified`` empty board (one
    pixel per board unit, as the calibration profile keeps it) give to another region: a uint8
    image of the map's size, 0 where the map stands, else the new label value."""
    labels = geo.labels
    if rectified.shape[:2] != labels.shape:
        raise ValueError(f"the rectified board is {rectified.shape[1]}x{rectified.shape[0]}, "
                         f"the map {labels.shape[1]}x{labels.shape[0]}")
    strength = line_strength(rectified)
    border = _border_pixels(labels)
    to_border = cv2.distanceTransform(np.where(border, 0, 255).astype(np.uint8), cv2.DIST_L2, 5)
    away = (to_border > TEXTURE_AWAY) & (labels > 0)
    flat = max(float(np.percentile(strength[away], 90)) if away.any() else 0.0, MIN_FLAT)
    # 1: the flat print; the map's own border 2; a printed line rises above both
    relief = np.clip((strength - flat) * GAIN + 1, 1, 255)
    relief[border] = np.maximum(relief[border], 2)
    # every piece of a region (an island of a group, a cape cut off by the map's edge) has its own seed
    pieces, count = ndimage.label(~border)
    depth = _most_by_label(to_border, pieces, count)
    seed_depth = np.minimum(REACH, SEED_SHARE * depth)
    specks = _specks(labels)
    markers = labels.astype(np.int32) + 1          # 0 is for the band to flood
    markers[(to_border < seed_depth[pieces]) | (pieces == 0) | specks] = 0
    flooded = ndimage.watershed_ift(relief.astype(np.uint8), markers)
    # SciPy's flood can leave a lone pixel with no label at all (one on hard training table 418 of
    # seed 113; its label less one wrapped round to 255 and calibration failed): the map stands there
    traced = np.where(flooded > 0, flooded - 1, labels).astype(np.uint8)
    sea = np.array([False] + [geo.board.is_sea(r) for r in geo.region_ids])
    keep = (labels == 0) | (traced == 0) | (sea[labels] & sea[traced]) | specks
    moved = np.where(keep | (traced == labels), 0, traced).astype(np.uint8)
    moved[_beyond_reach(moved, labels)] = 0
    grown = _grown_off_map(labels, rectified, to_border, geo.track_top)
    moved[grown > 0] = grown[grown > 0]
    # a sliver that reaches less than MIN_MOVE from the map's border is left where it was
    strips, count = ndimage.label(moved > 0, structure=np.ones((3, 3)))
    reach = _most_by_label(to_border, strips, count)
    moved[(reach < MIN_MOVE)[strips]] = 0
    moved[_unlike_their_new_region(moved, labels, rectified, to_border)] = 0
    return moved


def _tone_of(labels: np.ndarray, lab: np.ndarray, to_border: np.ndarray):
    """A function: label value -> the median CIE Lab colour deep inside that region (farther than
    TONE_INSIDE from its borders, every third pixel along both axes), or None for a region too
    small to have a deep inside (an islet). Each province is printed in one tone."""
    deep = np.where(to_border[::3, ::3] > TONE_INSIDE, labels[::3, ::3], 0)
    lab_deep = lab[::3, ::3]
    tones: dict[int, np.ndarray | None] = {}

    def tone(value: int) -> np.ndarray | None:
        if value not in tones:
            inside = deep == value
            tones[value] = np.median(lab_deep[inside], axis=0) if inside.sum() >= 6 else None
        return tones[value]
    return tone


def _grown_off_map(labels: np.ndarray, rectified: np.ndarray, to_border: np.ndarray,
                   track_top: float) -> np.ndarray:
    """The pixels off the map (label 0) within OFF_MAP_REACH of it that the print shows as the land
    or sea of the region nearest them: a uint8 image, the region's label there, else 0.

    The committed map stops short of the print's own edge in places: on the photo in
    ``../shared`` its eastern edge lies about 25 board units inside the print's, and a third of
    the printed Arabia, where players stand legionaries, was off the map. The flood cannot find
    this: off the map there is nothing to seed but the frame, which takes the strip at the flat
    print's level before any region has crossed the map's own border. So a pixel is taken by
    its nearest region when

    - its colour (blurred) is plainly that region's: within TONE_NEAR of its tone, and
      TONE_MARGIN nearer it than the frame's (the median of the off-map pixels above the track
      at ``track_top``, away from the map's edge);
    - it is joined to the region through such pixels (holes, the print's letters, are filled);
    - the strip so taken ends on the frame: the median colour of a ring a few pixels beyond it
      (RIMS) is nearer the frame's tone than the region's (a strip that meets OFF_MAP_REACH in
      the region's colour is not the print's edge).

    Known limit: a card lying over an edge region and the frame beside it at calibration gives
    the region the card's white for its tone, and the region takes the frame under the card (on
    one of eight hard rendered tables: Arabia and Mesopotamia, 9,500 pixels; the second ring of
    RIMS let a card beside Raetia on one of 40 more give it 2,900 pixels of frame). Pieces seldom
    stand on the frame, and a card at calibration costs more than that anyway (the regions under
    it have no reference); a printed-line test at the strip's end did not tell the card's edge
    (its shadow) from the print's.

    What shows the frame, the lands beyond the empire or nothing at all (where the camera's view
    ends) stays off the map, and so does the procedural art's frame, drawn right at the map's
    edge."""
    grown = np.zeros(labels.shape, np.uint8)
    near = (labels == 0) & (to_border <= OFF_MAP_REACH)
    if not near.any():
        return grown
    lab = cv2.cvtColor(cv2.GaussianBlur(rectified, (0, 0), 1.5), cv2.COLOR_BGR2LAB).astype(np.float32)
    seen = rectified.max(axis=2) > 0
    tone = _tone_of(labels, lab, to_border)
    frame_px = (labels == 0) & seen & (to_border > TONE_INSIDE / 2)
    frame_px[int(track_top):] = False          # not the track's cream boxes
    if frame_px.sum() < 6:
        return grown
    frame = np.median(lab[frame_px], axis=0)
    _, (iy, ix) = ndimage.distance_transform_edt(labels == 0, return_indices=True)
    nearest = labels[iy, ix]
    pad = int(np.ceil(OFF_MAP_REACH)) + 2
    boxes = ndimage.find_objects(labels)
    for value in np.unique(nearest[near]):
        value, box = int(value), boxes[value - 1]
        own = tone(value)
        if own is None:
            continue
        # the region's box grown by OFF_MAP_REACH holds all of it and every pixel it may take
        box = tuple(slice(max(b.start - pad, 0), b.stop + pad) for b in box)
        mine = near[box] & (nearest[box] == value)
        here = mine & seen[box]
        colour = lab[box][here]
        to_own = np.linalg.norm(colour - own, axis=1)
        plainly = np.zeros(here.shape, bool)
        plainly.flat[np.flatnonzero(here)[(to_own < TONE_NEAR)
                                          & (to_own + TONE_MARGIN < np.linalg.norm(colour - frame, axis=1))]] = True
        # joined to the region through its own colour, its letters filled in
        region = labels[box] == value
        joined, _ = ndimage.label(plainly | region, structure=np.ones((3, 3)))
        keep = np.isin(joined, np.unique(joined[region]))
        taken = ndimage.binary_fill_holes(keep | region) & mine
        # ... and ends on the frame, as the print's land does at its own edge
        strips, _ = ndimage.label(taken, structure=np.ones((3, 3)))
        for k, sub in enumerate(ndimage.find_objects(strips), 1):
            # the strip's box grown by the widest ring holds every ring around it
            sub = tuple(slice(max(b.start - RIM_PAD, 0), b.stop + RIM_PAD) for b in sub)
            strip = strips[sub] == k
            # a ring beyond it, past the blur of the line where the print's land ends
            for near_edge, far_edge, margin, contrast in RIMS:
                if np.linalg.norm(own - frame) < contrast:
                    continue
                rim = ndimage.binary_dilation(strip, iterations=far_edge) \
                    & ~ndimage.binary_dilation(strip, iterations=near_edge) & mine[sub] & seen[box][sub]
                if rim.any():
                    beyond = np.median(lab[box][sub][rim], axis=0)
                    if np.linalg.norm(beyond - frame) + margin < np.linalg.norm(beyond - own):
                        grown[box][sub][strip] = value
                        break
    return grown


def _unlike_their_new_region(moved: np.ndarray, labels: np.ndarray, rectified: np.ndarray,
                             to_border: np.ndarray) -> np.ndarray:
    """The strips of ``moved`` whose colour is plainly the region's they would leave (TONE_MARGIN).
    A region too small to have a deep inside (an islet) has no tone, and its strips stay.

    A strip is one move: pixels of one region going to one other, touching. Moves that touch
    are weighed apart. Weighed as one, the median colour of a mix mattered more than any move's
    own colour: on the real print a tongue of Moesia, yellow, that the map gives to Thracia
    touched Thracia's coast going to the Pontus Euxinus and a sliver of Moesia going to Thracia.
    Together they read as sea-blue beside Moesia's yellow, and the tongue stayed Thracia's."""
    lab = cv2.cvtColor(rectified, cv2.COLOR_BGR2LAB).astype(np.float32)
    tone = _tone_of(labels, lab, to_border)
    unlike = np.zeros(moved.shape, bool)
    # each moved pixel's move, old region * 256 + new region: find_objects gives each move's box
    pair = np.where(moved > 0, labels.astype(np.int32) * 256 + moved, 0)
    for key, box in enumerate(ndimage.find_objects(pair), 1):
        if box is None:
            continue
        old, new = tone(key // 256), tone(key % 256)
        if old is None or new is None:
            continue
        strips, _ = ndimage.label(pair[box] == key, structure=np.ones((3, 3)))
        for j, sub in enumerate(ndimage.find_objects(strips), 1):
            strip = strips[sub] == j
            colour = np.median(lab[box][sub][strip], axis=0)
            if np.linalg.norm(colour - new) - np.linalg.norm(colour - old) > TONE_MARGIN:
                unlike[box][sub] |= strip
    return unlike


def with_borders(geo: BoardGeometry, moved: np.ndarray) -> BoardGeometry:
    """``geo`` with the pixels of ``moved`` (as :func:`trace_borders` gives them) in their new
    regions: its outlines drawn again, and a label point that the move left outside its region
    put back inside, near where it was (as :func:`calibration.region_map.interior_label_points`
    placed them when the map was made). Every region keeps its seed, so none is left empty."""
    if not moved.any():
        return geo
    labels = np.where(moved > 0, moved, geo.labels).astype(np.uint8)
    ids = list(geo.region_ids)
    traced = replace(geo, labels=labels, polygons=region_polygons(labels, ids))
    left = [rid for rid, p in geo.label_points.items() if traced.region_at(*p) != rid]
    if not left:
        return traced
    inside = interior_label_points(labels, ids, geo.label_points)
    return replace(traced, label_points={**geo.label_points, **{rid: tuple(inside[rid]) for rid in left}})


def check_moved(moved: np.ndarray, geo: BoardGeometry) -> None:
    """Raises ValueError unless ``moved`` could be :func:`trace_borders`' answer for a map like ``geo``."""
    if moved.dtype != np.uint8 or moved.shape != geo.labels.shape:
        raise ValueError(f"its traced borders are not a {geo.labels.shape[1]}x{geo.labels.shape[0]} label image")
    if int(moved.max(initial=0)) > len(geo.region_ids):
        raise ValueError("its traced borders name a region this board does not have")
