"""Turn the shared board references (``shared/reference/spqrisiko/board.json``,
``shared/reference/risiko/*.json``) into the project's own board files ``tracker/boards/*.json``.

The reference carries evidence and provenance per edge; the tracker needs only the topology,
so the derived file keeps ids (lower-cased), printed names, kinds, islands, label positions
and the three kinds of adjacency. Run ``python -m tracker.boards.build [REFERENCE]`` to
regenerate it; ``tests/test_board.py`` proves the committed file still matches the reference.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from tracker.errors import BoardError

BOARD_DIR = Path(__file__).resolve().parent
REFERENCE_DIR = BOARD_DIR.parents[1].parent / "shared" / "reference"
DEFAULT_REFERENCE = REFERENCE_DIR / "spqrisiko" / "board.json"
CLASSIC_REFERENCE = REFERENCE_DIR / "risiko" / "risiko-classic.json"
LOTR_REFERENCE = REFERENCE_DIR / "risiko" / "lotr.json"
OUTPUT = BOARD_DIR / "spqrisiko.json"
CLASSIC_OUTPUT = BOARD_DIR / "risiko-classic.json"
LOTR_OUTPUT = BOARD_DIR / "lotr.json"

#: card symbols as the references spell them -> the project's names (tracker.risiko.cards)
_CLASSIC_SYMBOLS = {"fante": "infantry", "cavaliere": "cavalry", "cannone": "artillery"}
_LOTR_SYMBOLS = {"infantry": "infantry", "cavalry": "cavalry", "creature": "creature"}


def _edge_pairs(edges: list[dict]) -> list[list[str]]:
    return sorted(sorted([e["a"].lower(), e["b"].lower()]) for e in edges)


def build_spqrisiko(reference: dict) -> dict:
    """Derive the board file's content from the parsed reference."""
    try:
        provinces = [
            {
                "id": p["id"].lower(),
                "name": p["name"],
                "kind": "province",
                "island": bool(p["island"]),
                "label_xy": [round(float(v), 4) for v in p["board_xy"]],
            }
            for p in reference["provinces"]
        ]
        seas = [
            {
                "id": s["id"].lower(),
                "name": s["name"],
                "kind": "sea",
                "island": False,
                "label_xy": [round(float(v), 4) for v in s["board_xy"]],
            }
            for s in reference["seas"]
        ]
        edges = reference["edges"]
        data = {
            "board": "spqrisiko",
            "title": "S.P.Q.RisiKo! (Editrice Giochi, 2005)",
            "label_xy_note": "label positions as fractions of the map area (x across, y down); the score track lies below y = 1",
            "regions": sorted(provinces, key=lambda r: r["id"]) + sorted(seas, key=lambda r: r["id"]),
            "land_edges": _edge_pairs(edges["land"]),
            "coast_edges": sorted([e["a"].lower(), e["b"].lower()] for e in edges["coast"]),
            "sea_edges": _edge_pairs(edges["sea"]),
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise BoardError(f"reference board file is not in the expected form: {exc!r}") from exc
    # Coast edges are stored province first, sea second whatever the reference order.
    sea_ids = {s["id"] for s in seas}
    data["coast_edges"] = sorted(
        [a, b] if b in sea_ids else [b, a] for a, b in data["coast_edges"]
    )
    return data


def build_risiko_classic(reference: dict) -> dict:
    """The Italian classic board: 42 territories, 6 continents with bonuses, 82 borders.

    The names are the Italian ones printed on the board; the card symbol of each territory
    comes with it (a single source, see the reference notes).
    """
    try:
        regions = [{"id": t["id"], "name": t["name_it"], "kind": "province"} for t in reference["territories"]]
        groups = [{"id": c["id"], "name": c["name_it"], "bonus": int(c["bonus"]), "members": sorted(c["territories"])}
                  for c in reference["continents"]]
        symbols = {t["id"]: _CLASSIC_SYMBOLS[t["card_symbol"].split()[0]] for t in reference["territories"]}
        data = {
            "board": "risiko-classic",
            "title": "RisiKo! classic (Editrice Giochi, Italian board)",
            "pieces": "risiko",
            "regions": sorted(regions, key=lambda r: r["id"]),
            "land_edges": _edge_pairs(reference["adjacency"]),
            "groups": groups,
            "card_symbols": dict(sorted(symbols.items())),
        }
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise BoardError(f"classic reference file is not in the expected form: {exc!r}") from exc
    return data


def build_lotr(reference: dict) -> dict:
    """The Middle-earth board of the 2002 base game (the seed's edition: no Gondor or Mordor).

    Bridges and sea lines are adjacencies of their own kind (a river or the sea lies between);
    strongholds, sites of power and ports are features; the Fellowship's path is the track.
    """
    try:
        base = [t for t in reference["territories"] if t["edition"] == "base"]
        ids = {t["id"] for t in base}
        regions = [{"id": t["id"], "name": t["name"], "kind": "province"} for t in base]
        groups = [{"id": r["id"], "name": r["name"], "bonus": int(r["bonus"]), "members": sorted(r["territories"])}
                  for r in reference["regions"] if r["edition"] == "base"]
        edges = [e for e in reference["adjacency"] if e["edition"] == "base"]
        kinds = sorted(sorted([e["a"], e["b"]]) + [{"bridge": "bridge", "sea": "sea_line"}[e["kind"]]]
                       for e in edges if e["kind"] != "land")
        features = {
            "stronghold": sorted(t["id"] for t in base if "stronghold" in t),
            "site_of_power": sorted(t["id"] for t in base if "site_of_power" in t),
            "port": sorted(t["id"] for t in base if "port" in t),
        }
        path = [[s["territory"], bool(s["die_symbol"])] for s in sorted(reference["fellowship_path"]["spaces"],
                                                                         key=lambda s: s["step"])
                if s["edition"] == "base"]
        symbols = {t["id"]: _LOTR_SYMBOLS[t["territory_card"]["symbol"].split()[0]] for t in base}
        sides = {t["id"]: t["territory_card"]["side"] for t in base}
        data = {
            "board": "lotr",
            "title": "Risiko - Il Signore degli Anelli (2002 base board)",
            "pieces": "lotr",
            "regions": sorted(regions, key=lambda r: r["id"]),
            "land_edges": _edge_pairs(edges),
            "edge_kinds": kinds,
            "groups": groups,
            "features": features,
            "path": path,
            "card_symbols": dict(sorted(symbols.items())),
            "card_sides": dict(sorted(sides.items())),
        }
        if any(m not in ids for g in groups for m in g["members"]):
            raise ValueError("a base region lists a territory outside the base edition")
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise BoardError(f"LotR reference file is not in the expected form: {exc!r}") from exc
    return data


#: board id -> (builder, default reference file, output file)
BUILDERS = {
    "spqrisiko": (build_spqrisiko, DEFAULT_REFERENCE, OUTPUT),
    "risiko-classic": (build_risiko_classic, CLASSIC_REFERENCE, CLASSIC_OUTPUT),
    "lotr": (build_lotr, LOTR_REFERENCE, LOTR_OUTPUT),
}


def write_board(data: dict, path: Path = OUTPUT) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """``python -m tracker.boards.build [BOARD [REFERENCE]]``; with no argument, every board."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] not in BUILDERS:
        print(f"error: unknown board '{argv[0]}' (known: {', '.join(BUILDERS)})", file=sys.stderr)
        return 2
    for board_id in ([argv[0]] if argv else list(BUILDERS)):
        builder, default_ref, output = BUILDERS[board_id]
        ref = Path(argv[1]) if len(argv) > 1 else default_ref
        if not ref.is_file():
            print(f"error: reference board file not found: {ref}", file=sys.stderr)
            return 2
        write_board(builder(json.loads(ref.read_text(encoding="utf-8"))), output)
        print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
