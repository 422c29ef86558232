"""Counting: detections -> the observed board state, with a confidence per region.

A region's confidence is the detector's own estimate when it gives one (the density counter's
probability that the count is right, :mod:`vision.confidence`), else the mean score of its pieces.

Each detection goes to the region under its footprint (supervision's zone counting, with the
board's label image as the zones), except that a legionary, vexillum or centre standing on the
sea within ``vision.geometry.SPILL_REACH`` (and ``SPILL_SLACK``) of a province's coast goes to that
province (players stand the pile a small island cannot hold on the sea around it). A piece that cannot stand where
it was seen (a legionary far out at sea, a trireme on land) is dropped and lowers the region's
confidence. A province holds one army: if detections of two army colours fall in one province,
the colour with fewer is dropped and the region's confidence falls accordingly.
"""
from __future__ import annotations

from collections import Counter, defaultdict

from tracker.pieces import CENTRE, LAND_KINDS, NEUTRAL, TRIREME
from tracker.state import ObservedState
from vision.geometry import BoardGeometry
from vision.records import Detections


def count(detections: Detections, geo: BoardGeometry, unseen: frozenset[str] = frozenset()) -> ObservedState:
    regions = geo.regions_at(detections.footprints) if len(detections) else []
    land_regions = geo.regions_at(detections.footprints, land=True) if len(detections) else []
    tally: dict[str, Counter] = defaultdict(Counter)
    score: dict[str, list[float]] = defaultdict(list)
    impossible: Counter = Counter()
    for rid, land_rid, kind, colour, s in zip(regions, land_regions, detections.kinds, detections.colours,
                                              detections.scores):
        if kind in LAND_KINDS or kind == CENTRE:
            rid = land_rid              # a province's piece just off its coast: a pile spilled off an island
        if rid is None or rid in unseen:
            continue
        at_sea = geo.board.is_sea(rid)
        if (at_sea and (kind in LAND_KINDS or kind == CENTRE)) or (not at_sea and kind == TRIREME):
            impossible[rid] += 1            # impossible where it stands: a misdetection, and a doubt
            continue
        tally[rid][(colour, kind)] += 1
        score[rid].append(float(s))
    given = {r: c for r, c in detections.region_confidence.items() if r not in unseen}
    out: dict[str, dict[str, dict[str, int]]] = {}
    confidence: dict[str, float] = {}
    for rid in set(tally) | set(impossible) | set(given):
        counts = tally.get(rid, Counter())
        seen = len(score[rid]) + impossible[rid]
        if rid in given:
            conf = given[rid] * (1 - impossible[rid] / seen) if seen else given[rid]
        else:
            conf = sum(score[rid]) / seen if seen else 1.0
        armies = Counter()
        for (colour, kind), n in counts.items():
            if colour != NEUTRAL:
                armies[colour] += n
        if geo.board.is_province(rid) and len(armies) > 1:
            keep, kept = armies.most_common(1)[0]
            conf *= kept / sum(armies.values())
            counts = Counter({k: n for k, n in counts.items() if k[0] in (keep, NEUTRAL)})
        for (colour, kind), n in counts.items():
            out.setdefault(rid, {}).setdefault(colour, {})[kind] = n
        confidence[rid] = round(conf, 3)
    return ObservedState.from_dict({"board": geo.board.id, "regions": out, "confidence": confidence,
                                    "unseen": sorted(unseen), "lying": sorted(detections.lying - unseen)}, geo.board)
