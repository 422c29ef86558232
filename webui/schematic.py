"""A schematic map for boards that have no fitted region geometry yet (classic Risiko, Middle-earth).

The dashboard draws regions from ``/api/geometry``. Until a user fits a region map to a photo of
their own board, these boards are shown as tiles: one column per continent or region, one tile
per territory, in the same JSON shape as the real geometry so the page needs no second code path.
"""
from __future__ import annotations

from tracker.board import Board
from tracker.pieces import PieceSet, plural

TILE_W, TILE_H, GAP = 150, 44, 8


def piece_form(pieces: PieceSet) -> dict:
    """What the correction form asks of a region, from the board's pieces: the colours an army
    may have, a count for each kind an army stands with (strength, tokens such as a leader,
    triremes at sea) and a box for each neutral piece (a power centre, the Ring), each with the
    word for several of it. The form asked for legionaries, vexilla and triremes on every board,
    so a classic or LotR region could not be corrected at all (the tracker refuses a legionary
    there)."""
    army = list(pieces.garrison) + list(pieces.tokens) + list(pieces.naval)
    return {"colours": list(pieces.colours), "army": army, "neutral": list(pieces.neutral),
            "plurals": {k: plural(k) for k in army + list(pieces.neutral)}}


def schematic_geometry(board: Board) -> dict:
    columns = [sorted(g.members) for g in board.groups.values()]
    grouped = {t for col in columns for t in col}
    rest = [p for p in board.provinces if p not in grouped]
    if rest:
        columns.append(sorted(rest))
    polygons, labels = {}, {}
    for i, col in enumerate(columns):
        x0 = GAP + i * (TILE_W + GAP)
        for j, t in enumerate(col):
            y0 = GAP + j * (TILE_H + GAP)
            polygons[t] = [[[x0, y0], [x0 + TILE_W, y0], [x0 + TILE_W, y0 + TILE_H], [x0, y0 + TILE_H]]]
            labels[t] = [x0 + TILE_W / 2, y0 + TILE_H / 2 + 5]
    width = GAP + len(columns) * (TILE_W + GAP)
    height = GAP + max(len(c) for c in columns) * (TILE_H + GAP)
    return {"size": [width, height], "polygons": polygons, "label_points": labels,
            # the page sizes the map to the top of the score track; a schematic has none
            "track_boxes": [[0, height + 10, 0, 0]], "names": {r: board.name(r) for r in board.regions},
            "seas": list(board.seas), "values": dict(board.pieces.garrison), "pieces": piece_form(board.pieces),
            "schematic": True,
            "groups": {g.name: sorted(g.members) for g in board.groups.values()}}
