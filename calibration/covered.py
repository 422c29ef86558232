"""Is anything lying over the map in the calibration photo? A hand, an arm, a card.

The calibration photo becomes the empty board every later frame is compared with. Where a hand
or a card lay over the map when it was taken, the counter later compares the bare board with the
hand: on 16 rendered hard tables calibrated with an arm reaching over the map, the game photos
then read 742 regions right against 843 with a clean calibration (6 fewer a table; 22 fewer where
the arm covered a fifth of the map). Nothing in the profile shows it, so the players must be told
while they can still take the photo again.

The cue is the printed borders. The region map, fitted to this print at calibration, says where
every border runs; in a photo of the bare board nearly every stretch of border shows an edge (a
line, or a change of colour), while a hand or a card hides every border under it. So each border
pixel is asked whether the photo shows an edge within REACH of it (the map and the print may
differ by a few units), and the map is searched for a patch whose borders show almost none: a
connected area of windows holding border, at most SUPPORTED_SHARE of which is seen.

What an edge is depends on the photo: a blurred, far camera shows every border weaker. An edge is
counted where the photo's edge strength passes EDGE_SHARE of its median along the borders, so the
measure is the photo's own, and a blurred photo must show a larger patch (:func:`area_needed`).
Borders between two provinces of nearly the same colour show no edge in any photo of the print;
they are thin, scattered stretches, and their patches stay under COVERED_AREA.

Where the middle of a sea or of a large province has no border, nothing can be lost there: a card
lying inside one province, or an arm over open sea, is not seen (see COVERED_AREA). And when the
borders show no more edge than the rest of the map, the map does not lie on the print at all
(LINED_UP): the pose is wrong, which an arm over the map can also cause.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.align import edge_strength
from calibration.localise import WHOLE_BOARD
from vision.geometry import border_mask

#: A border pixel counts as seen when the photo has an edge within this window around it (board
#: units square; the fitted map and the print differ by a few units in places).
REACH = 9
#: ...an edge being a pixel whose edge strength passes this share of the median, over the border
#: pixels, of the strongest edge within REACH of each.
EDGE_SHARE = 0.3
#: Border pixels are pooled over windows this wide (board units)...
WINDOW = 25
#: ...and a window whose pooled border pixels are seen at most this share is unseen.
SUPPORTED_SHARE = 0.1
#: A connected patch of unseen windows larger than this (board units^2; a small province is about
#: 10,000) is something over the map, in a sharp photo (see SHARP)...
COVERED_AREA = 3000.0
#: ...and in a blurred one, whose weak borders are lost over wider patches, COVERED_AREA times
#: SHARP / its contrast (see LINED_UP), where the contrast is below SHARP. Tuned on 36 rendered
#: tables, 12 of each tier, each on the procedural art and on the real print (session 75): of the
#: 60 calibration photos with nothing over the map, those of a contrast of 2 or more made patches
#: up to 2,558 units^2, the others (far, blurred cameras) up to 3,460 at a contrast of 0.72 (7,917
#: allowed there). Of the 72 arms reaching over the map, 57 made a patch past what their contrast
#: allows and 4 threw the pose off (LINED_UP); the 11 left made patches of 1,800 to 4,200: they lay
#: mostly over sea, whose middle has no border to lose, or crossed few borders.
SHARP = 2.0
#: ...over at least SPANNED regions holding SPANNED_SHARE of it each: more than one border. One
#: border alone can lose its edge to glare, a lamp's bright spot on a glossy board, which the
#: frames of the game show as well (a held-out hard table's glare over the border of Mauretania and
#: Numidia made a patch of 3,302 units^2 at a contrast of 2.3; this rule came after the tuning, from
#: the validation tables). Every arm of the tuning tables that made a patch past its size spans
#: three regions or more: the figures above are the same with and without it.
SPANNED = 3
SPANNED_SHARE = 0.05
#: A region is named as covered when the patch covers at least this share of its windows with
#: border in them.
REGION_SHARE = 0.2
#: The map lines up with the print when the photo's edges are stronger on the map's borders than
#: away from them (the median edge strength within a pixel of a border less the median farther
#: than OFF_BORDER from any; the photo's own standard deviations) by at least this. An arm over
#: the map can throw the pose off, and then no border lies where the map has it: on the tuning
#: tables the four poses an arm threw off gave 0.18 to 0.47, the 60 clean photos 0.72 (a far,
#: blurred camera) to 3.6.
LINED_UP = 0.5
OFF_BORDER = 7


@dataclass(frozen=True)
class CoveredMap:
    """What lies over the map in a calibration photo: the board points (a mask, board units) of each
    patch whose borders the photo does not show, and the regions under them, the most covered first."""

    mask: np.ndarray            # bool, the geometry's label image's shape
    regions: tuple[str, ...]
    area: float                 # board units^2 of the largest patch of unseen windows, whether it told or not
    contrast: float             # how much stronger the photo's edges are on the map's borders (LINED_UP)

    @property
    def lined_up(self) -> bool:
        """Whether the map's borders lie on the photo's edges at all: if not, the pose is wrong and
        no patch can be trusted."""
        return self.contrast >= LINED_UP

    def __bool__(self) -> bool:
        """Something lies over the map, or the map does not line up with the print."""
        return bool(self.regions) or not self.lined_up


def covered_map(reference: np.ndarray, labels: np.ndarray, region_ids: tuple[str, ...],
                in_view: np.ndarray | None = None) -> CoveredMap:
    """The patches of the rectified calibration photo ``reference`` (one pixel per board unit, as the
    profile keeps it) that hide the printed borders of the map ``labels`` (value ``i + 1`` is region
    ``region_ids[i]``, 0 off the map). ``in_view``: the board points the camera saw (others are
    not searched)."""
    lab = labels.astype(np.int32)
    if reference.shape[:2] != lab.shape:
        reference = cv2.resize(reference, (lab.shape[1], lab.shape[0]), interpolation=cv2.INTER_AREA)
    searched = (lab > 0) if in_view is None else (lab > 0) & in_view
    border = border_mask(lab) & searched
    nothing = np.zeros(lab.shape, bool)
    if not border.any():
        return CoveredMap(nothing, (), 0.0, float("inf"))
    grey = cv2.cvtColor(reference, cv2.COLOR_BGR2GRAY) if reference.ndim == 3 else reference
    edges = edge_strength(grey)
    off = (cv2.dilate(border.astype(np.uint8), np.ones((2 * OFF_BORDER + 1,) * 2, np.uint8)) == 0) & searched
    on = cv2.dilate(edges, np.ones((3, 3), np.uint8))[border]
    contrast = float(np.median(on) - np.median(edges[off])) if off.any() else float("inf")
    strongest = cv2.dilate(edges, np.ones((REACH, REACH), np.uint8))
    level = EDGE_SHARE * float(np.median(strongest[border]))
    seen = border & (strongest > level)
    pooled = cv2.boxFilter(border.astype(np.float32), -1, (WINDOW, WINDOW))
    seen_share = cv2.boxFilter(seen.astype(np.float32), -1, (WINDOW, WINDOW)) / np.maximum(pooled, 1e-6)
    # a window holds a border when at least one border's worth of its pixels are border
    has_border = (pooled > 1.0 / WINDOW) & searched
    unseen = (has_border & (seen_share <= SUPPORTED_SHARE)).astype(np.uint8)
    n, comp, stats, _ = cv2.connectedComponentsWithStats(unseen, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    large = [k for k in np.flatnonzero(areas > area_needed(contrast)) + 1 if _spans_borders(lab[comp == k])]
    if not len(large):
        return CoveredMap(nothing, (), float(areas.max()) if len(areas) else 0.0, contrast)
    mask = np.isin(comp, large)
    under = np.bincount(lab[mask], minlength=len(region_ids) + 1)[1:]
    windows = np.bincount(lab[has_border], minlength=len(region_ids) + 1)[1:]
    share = under / np.maximum(windows, 1)
    order = np.argsort(-share, kind="stable")
    named = [i for i in order if share[i] >= REGION_SHARE] or [order[0]]     # a patch always names one
    return CoveredMap(mask, tuple(region_ids[i] for i in named), float(areas.max()), contrast)


def _spans_borders(labels: np.ndarray) -> bool:
    """Whether a patch (the region labels of its pixels) lies over more than one border: at least
    SPANNED regions hold SPANNED_SHARE of it each."""
    counts = np.bincount(labels[labels > 0])
    return int((counts >= SPANNED_SHARE * max(len(labels), 1)).sum()) >= SPANNED


def area_needed(contrast: float) -> float:
    """The patch (board units^2) that tells something over the map in a photo of this contrast."""
    return COVERED_AREA * max(1.0, SHARP / max(contrast, 1e-6))


def profile_covered(profile) -> CoveredMap:
    """:func:`covered_map` of a calibration profile: its reference, on its fitted region map, where
    its camera saw the board."""
    geo = profile.geometry
    # the photo's own edge is no border of the print
    in_view = cv2.erode(profile.board_in_view().astype(np.uint8), np.ones((REACH, REACH), np.uint8)) > 0
    return covered_map(profile.reference, geo.labels, geo.region_ids, in_view)


#: The most regions the players' line names (the rest are counted).
NAMED = 5


def region_names(regions, geo) -> str:
    """``regions`` as the players read them: at most NAMED by ``geo``'s board, the rest counted
    ("" when none)."""
    regions = list(regions)
    names = ", ".join(geo.board.name(r) for r in regions[:NAMED])
    more = f" and {len(regions) - NAMED} more" if len(regions) > NAMED else ""
    return names + more


def out_of_view_notice(profile) -> str:
    """One line for the players about the part of the board the camera's frame cuts off ("" when
    none): the regions outside it (:meth:`calibration.profile.CalibrationProfile.out_of_view`),
    or, where none is, an outline that reaches the frame's edge
    (:meth:`~calibration.profile.CalibrationProfile.outline_at_frame_edge`)."""
    regions = profile.out_of_view()
    if regions:
        return (f"the camera's frame cuts off part of the board: {region_names(regions, profile.geometry)} "
                f"{'lies' if len(regions) == 1 else 'lie'} partly or wholly outside it, and the counter cannot see "
                f"pieces there; {WHOLE_BOARD}")
    if profile.outline_at_frame_edge():
        return ("the board's outline reaches the edge of the camera's frame: if part of the board lies outside "
                f"it, the region map may be squeezed onto the part in view (check the preview); {WHOLE_BOARD}")
    return ""


def covered_notice(covered: CoveredMap, geo, preview=None) -> str:
    """One line for the players about ``covered`` ("" when there is nothing to say), naming at most
    NAMED of its regions by ``geo``'s board; ``preview``: where the map is drawn for them."""
    where = f" in {preview}" if preview is not None else ""
    if not covered.lined_up:
        return ("the fitted region map does not follow the board's printed borders (something hides much of the "
                f"board, the photo is blurred, or the board was found wrongly): check the map{where} and calibrate again")
    if not covered:
        return ""
    tinted = f" (tinted red{where})" if preview is not None else ""
    return (f"something lay over the map in the calibration photo, over {region_names(covered.regions, geo)} (a hand, an arm, a card?): the "
            f"counter takes it for the empty board there{tinted}; clear the map and calibrate again")
