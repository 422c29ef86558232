"""Turn the shared S.P.Q.RisiKo! reference (``shared/reference/spqrisiko/board.json``) into the
project's own board file ``tracker/boards/spqrisiko.json``.

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
DEFAULT_REFERENCE = BOARD_DIR.parents[1].parent / "shared" / "reference" / "spqrisiko" / "board.json"
OUTPUT = BOARD_DIR / "spqrisiko.json"


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


def write_board(data: dict, path: Path = OUTPUT) -> None:
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ref = Path(argv[0]) if argv else DEFAULT_REFERENCE
    if not ref.is_file():
        print(f"error: reference board file not found: {ref}", file=sys.stderr)
        return 2
    write_board(build_spqrisiko(json.loads(ref.read_text(encoding="utf-8"))))
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
