"""Board topology: regions (provinces and sea areas) and the three kinds of adjacency.

A board is data, not code: it is read from ``tracker/boards/<id>.json``. The tracker needs
only topology; geometry (polygons, the score track) lives with the vision side.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from tracker.errors import BoardError

BOARD_DIR = Path(__file__).resolve().parent / "boards"

PROVINCE = "province"
SEA = "sea"


@dataclass(frozen=True)
class Region:
    """One province or sea area as printed on the board."""

    id: str
    name: str
    kind: str
    island: bool = False
    label_xy: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Board:
    """Topology of one board. Use :func:`load_board` rather than building one by hand."""

    id: str
    title: str
    regions: dict[str, Region]
    land_neighbours: dict[str, frozenset[str]]
    sea_neighbours: dict[str, frozenset[str]]
    #: province -> sea areas it borders
    coast_of: dict[str, frozenset[str]]
    #: sea area -> provinces on its coast
    shores_of: dict[str, frozenset[str]]
    provinces: tuple[str, ...] = field(default=())
    seas: tuple[str, ...] = field(default=())

    # -- queries -----------------------------------------------------------------------
    def is_province(self, region: str) -> bool:
        r = self.regions.get(region)
        return r is not None and r.kind == PROVINCE

    def is_sea(self, region: str) -> bool:
        r = self.regions.get(region)
        return r is not None and r.kind == SEA

    def is_island(self, province: str) -> bool:
        return self.regions[province].island

    def land_adjacent(self, a: str, b: str) -> bool:
        return b in self.land_neighbours.get(a, ())

    def shared_seas(self, a: str, b: str) -> frozenset[str]:
        """Sea areas on whose coast both provinces lie (the 'bridge' of a sea attack, §12.1)."""
        return self.coast_of.get(a, frozenset()) & self.coast_of.get(b, frozenset())

    def name(self, region: str) -> str:
        return self.regions[region].name


def _symmetric(pairs: Iterable[Iterable[str]], ids: Iterable[str]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {i: set() for i in ids}
    for a, b in pairs:
        out[a].add(b)
        out[b].add(a)
    return {k: frozenset(v) for k, v in out.items()}


def board_from_dict(data: dict) -> Board:
    """Build a :class:`Board` from its JSON form, checking every id it mentions."""
    try:
        regions = {
            r["id"]: Region(r["id"], r["name"], r["kind"], bool(r.get("island", False)),
                            tuple(r.get("label_xy", (0.0, 0.0))))
            for r in data["regions"]
        }
        provinces = tuple(i for i, r in regions.items() if r.kind == PROVINCE)
        seas = tuple(i for i, r in regions.items() if r.kind == SEA)
        for kind_pairs, ka, kb in (("land_edges", PROVINCE, PROVINCE), ("coast_edges", PROVINCE, SEA),
                                   ("sea_edges", SEA, SEA)):
            for a, b in data.get(kind_pairs, []):
                if regions.get(a) is None or regions[a].kind != ka or regions.get(b) is None or regions[b].kind != kb:
                    raise BoardError(f"{kind_pairs} entry {a}-{b} does not join a {ka} and a {kb}")
        coast = data.get("coast_edges", [])
        coast_of: dict[str, set[str]] = {p: set() for p in provinces}
        shores_of: dict[str, set[str]] = {s: set() for s in seas}
        for p, s in coast:
            coast_of[p].add(s)
            shores_of[s].add(p)
        return Board(
            id=data["board"],
            title=data.get("title", data["board"]),
            regions=regions,
            land_neighbours=_symmetric(data.get("land_edges", []), provinces),
            sea_neighbours=_symmetric(data.get("sea_edges", []), seas),
            coast_of={k: frozenset(v) for k, v in coast_of.items()},
            shores_of={k: frozenset(v) for k, v in shores_of.items()},
            provinces=provinces,
            seas=seas,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise BoardError(f"board data is malformed: {exc!r}") from exc


@lru_cache(maxsize=None)
def load_board(board_id: str = "spqrisiko") -> Board:
    """Load a committed board by id (``spqrisiko``, ...)."""
    path = BOARD_DIR / f"{board_id}.json"
    if not path.is_file():
        known = sorted(p.stem for p in BOARD_DIR.glob("*.json"))
        raise BoardError(f"unknown board '{board_id}' (known: {', '.join(known)})")
    return board_from_dict(json.loads(path.read_text(encoding="utf-8")))
