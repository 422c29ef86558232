"""What a calibration tells whoever reads frames with it, for as long as it is used.

One list for the three places that say it: ``augur calibrate`` once it has written the profile,
``augur count`` before its counts, and the live loop's status line all game.
"""
from __future__ import annotations

from calibration.covered import CoveredMap, covered_notice, out_of_view_notice, profile_covered
from calibration.pieces_on_map import PiecesOnMap, pieces_notice, pieces_on_map


def calibration_notices(profile, covered: CoveredMap | None = None, on_map: PiecesOnMap | None = None,
                        preview=None) -> list[str]:
    """The camera's frame cuts off part of the board, something lay over the map when the photo
    was taken (:mod:`calibration.covered`), pieces stood on the map then
    (:mod:`calibration.pieces_on_map`): each a line, none when all is well. ``covered`` and
    ``on_map`` are read from ``profile`` unless the caller has them (``augur calibrate``, whose
    ``on_map`` knows where it painted); ``preview``: where those are drawn for the players."""
    covered = profile_covered(profile) if covered is None else covered
    on_map = pieces_on_map(profile) if on_map is None else on_map
    said = (out_of_view_notice(profile),
            covered_notice(covered, profile.geometry, preview),
            pieces_notice(on_map, profile.geometry, preview))
    return [n for n in said if n]
