"""Round tap targets over the map's small islands, for a finger on the tablet beside the board.

Drawn to scale, S.P.Q.RisiKo!'s smallest regions are islands a finger cannot hit: Corsica is 24
board units wide, 15 pixels on a tablet 1,280 pixels wide (the map takes about 870 of them for
its 1,393 units), where a finger wants 44 or so. Each region whose widest disc inside it is
narrower than SMALL_REGION gets a disc of its own over the sea around its label, up to
TAP_RADIUS, never reaching the land of another region nor the disc of another island, so a tap
beside the island opens it and a tap on any other province still opens that province.
"""
from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from vision.geometry import BoardGeometry, load_geometry

#: A region whose largest inscribed disc has a radius under this many board units is small
#: (the six islands: Baleares, Corsica, Creta and Cipro at 11 to 13, Sicilia 14, Sardinia 18;
#: the next, Achaia, is 28).
SMALL_REGION = 20
#: The tap target's radius at most (board units): a disc 70 units across is 44 pixels on that tablet.
TAP_RADIUS = 35


def tap_targets(geo: BoardGeometry) -> dict[str, tuple[float, float, float]]:
    """Region id -> (x, y, radius) in board units, for the small regions of ``geo``: centred on
    the region's label point, as wide as TAP_RADIUS allows without covering another region's
    land or another target, and never narrower than the region's own widest disc."""
    seas = set(geo.board.seas)
    labels = geo.labels
    small = {}
    for i, rid in enumerate(geo.region_ids, 1):
        inside = (labels == i).astype(np.uint8)
        widest = float(cv2.distanceTransform(inside, cv2.DIST_L2, 5).max()) if inside.any() else 0.0
        if 0 < widest < SMALL_REGION and rid in geo.label_points:
            small[rid] = (i, widest)
    land = np.isin(labels, [i for i, rid in enumerate(geo.region_ids, 1) if rid not in seas])
    out = {}
    for rid, (i, widest) in small.items():
        x, y = geo.label_points[rid]
        others = (land & (labels != i)).astype(np.uint8)
        free = cv2.distanceTransform(1 - others, cv2.DIST_L2, 5)     # distance to another region's land
        reach = float(free[int(round(y)), int(round(x))]) - 1.0
        for other in small:
            if other != rid:
                ox, oy = geo.label_points[other]
                reach = min(reach, float(np.hypot(ox - x, oy - y)) / 2)
        out[rid] = (float(x), float(y), max(widest, min(TAP_RADIUS, reach)))
    return out


@lru_cache(maxsize=None)
def board_tap_targets(board_id: str) -> dict[str, tuple[float, float, float]]:
    """:func:`tap_targets` of a committed board's map, worked out once (a tenth of a second)."""
    return tap_targets(load_geometry(board_id))
