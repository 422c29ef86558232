"""Board topology: regions (provinces and sea areas) and the three kinds of adjacency.

A board is data, not code: it is read from ``tracker/boards/<id>.json``. The tracker needs
only topology; geometry (polygons, the score track) lives with the vision side.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from tracker.errors import BoardError
from tracker.pieces import PIECE_SETS, SPQR_PIECES, PieceSet

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
class Group:
    """A named set of provinces with a reinforcement bonus: a continent, a Middle-earth region."""

    id: str
    name: str
    bonus: int
    members: frozenset[str]


@dataclass(frozen=True)
class PathStop:
    """One space of a track that a token walks along (the Fellowship's path)."""

    territory: str
    die: bool = False


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
    pieces: PieceSet = SPQR_PIECES
    #: continents / regions with their bonus, in board order
    groups: dict[str, Group] = field(default_factory=dict)
    #: named sets of provinces with a printed feature (``stronghold``, ``site_of_power``, ``port``)
    features: dict[str, frozenset[str]] = field(default_factory=dict)
    #: the kind of each land edge when it is not a plain border (``bridge``, ``sea_line``)
    edge_kinds: dict[frozenset[str], str] = field(default_factory=dict)
    #: a track along the board (the Fellowship's path), first stop first
    path: tuple[PathStop, ...] = ()
    #: territory -> symbol on its territory card, where the game has such cards
    card_symbols: dict[str, str] = field(default_factory=dict)
    #: territory -> the side its card is dealt to at set-up (LotR: ``good``, ``evil``, ``neutral``)
    card_sides: dict[str, str] = field(default_factory=dict)

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

    def touching(self, region: str) -> frozenset[str]:
        """The regions a piece can step to from ``region`` in one move of any kind: a province's
        land neighbours and the seas on its coast, a sea's neighbouring seas and its shores."""
        if self.is_sea(region):
            return self.sea_neighbours.get(region, frozenset()) | self.shores_of.get(region, frozenset())
        return self.land_neighbours.get(region, frozenset()) | self.coast_of.get(region, frozenset())

    def name(self, region: str) -> str:
        return self.regions[region].name

    def edge_kind(self, a: str, b: str) -> str:
        """``land`` for a plain border, else what joins them (``bridge``, ``sea_line``)."""
        return self.edge_kinds.get(frozenset((a, b)), "land")

    def has_feature(self, province: str, feature: str) -> bool:
        return province in self.features.get(feature, frozenset())

    def groups_held(self, provinces: Iterable[str]) -> list[Group]:
        """The groups (continents, regions) all of whose members are among ``provinces``."""
        held = set(provinces)
        return [g for g in self.groups.values() if g.members <= held]

    def connected(self, a: str, b: str, through: Iterable[str]) -> bool:
        """Whether ``b`` can be reached from ``a`` stepping only on provinces in ``through``."""
        allowed = set(through)
        if a not in allowed or b not in allowed:
            return False
        seen, todo = {a}, [a]
        while todo:
            cur = todo.pop()
            if cur == b:
                return True
            for nxt in self.land_neighbours[cur]:
                if nxt in allowed and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False


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
        pieces_id = data.get("pieces", SPQR_PIECES.id)
        if pieces_id not in PIECE_SETS:
            raise BoardError(f"unknown piece set '{pieces_id}'")
        groups = {g["id"]: Group(g["id"], g["name"], int(g["bonus"]), frozenset(g["members"]))
                  for g in data.get("groups", [])}
        features = {k: frozenset(v) for k, v in data.get("features", {}).items()}
        edge_kinds = {frozenset((a, b)): kind for a, b, kind in data.get("edge_kinds", [])}
        path = tuple(PathStop(t, bool(die)) for t, die in data.get("path", []))
        card_symbols = dict(data.get("card_symbols", {}))
        card_sides = dict(data.get("card_sides", {}))
        named = list(card_symbols) + list(card_sides) + [m for g in groups.values() for m in g.members] + [m for v in features.values() for m in v] \
            + [m for pair in edge_kinds for m in pair] + [st.territory for st in path]
        bad = [m for m in named if not (m in regions and regions[m].kind == PROVINCE)]
        if bad:
            raise BoardError(f"board data names '{bad[0]}', which is not a province of the board")
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
            pieces=PIECE_SETS[pieces_id],
            groups=groups,
            features=features,
            edge_kinds=edge_kinds,
            path=path,
            card_symbols=card_symbols,
            card_sides=card_sides,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise BoardError(f"board data is malformed: {exc!r}") from exc


@lru_cache(maxsize=None)
def load_board(board_id: str = "spqrisiko") -> Board:
    """Load a committed board by id (``spqrisiko``, ...)."""
    # an id names a committed file: letters, digits, _ and - (never a path out of BOARD_DIR)
    path = BOARD_DIR / f"{board_id}.json" if re.fullmatch(r"[A-Za-z0-9_-]+", str(board_id)) else None
    if path is None or not path.is_file():
        known = sorted(p.stem for p in BOARD_DIR.glob("*.json"))
        raise BoardError(f"unknown board '{board_id}' (known: {', '.join(known)})")
    return board_from_dict(json.loads(path.read_text(encoding="utf-8")))
