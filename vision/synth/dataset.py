"""Datasets of rendered tables: images, exact ground truth, and the ultralytics/YOLO layout.

Everything is streamed to disk one image at a time (memory stays flat however many images)
and reproducible from ``(tier, seed, n)``: each image is rendered from its own seed and
a board state taken from a simulated game.
Image ``i`` of a tier uses seed ``(seed, i, tier number)``.

Layout under the output folder::

    images/{train,val}/NNNNNN.jpg     the camera image, bytes as rendered
    labels/{train,val}/NNNNNN.txt     YOLO boxes: class cx cy w h (normalised)
    truth/NNNNNN.json                 full ground truth (state, pieces, corners, occlusion)
    data.yaml                         class names and folders for ultralytics
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from tracker.spqrisiko.simulator import PLAYER_SETS, SimStep, Simulator
from vision.classes import CLASS_INDEX, CLASS_NAMES
from vision.geometry import BoardGeometry
from vision.synth.render import FRAME_SIZE, GroundTruth, render

#: A box is labelled for training when at most this much of it is hidden by an occluder.
MAX_OCCLUDED_FOR_LABEL = 0.5
VAL_EVERY = 10
TIER_SEED = {"easy": 1, "medium": 2, "hard": 3}


def game_states(seed: int, games: int = 4, turns: int = 150) -> list[SimStep]:
    """Committed states from a few seeded simulated games (early sparse boards to late crowded ones)."""
    steps: list[SimStep] = []
    for g in range(games):
        sim = Simulator(PLAYER_SETS[(seed + g) % 3], seed=seed * 1000 + g, max_turns=turns)
        steps += list(sim.steps())
    return steps


#: Of the training and fitting tables asked to show knocked-over pieces, this seeded share does
#: (:func:`toppled_of_table`): the models keep seeing tables where every piece stands.
TOPPLED_TABLES = 0.5
#: The seed streams of :func:`table_draw` that pick a share of the tables, each apart from every
#: other draw: those on the real print, those showing a game's most crowded state, and those with
#: pieces knocked over.
PRINT_TABLE_STREAM = 11
RICH_TABLE_STREAM = 12
TOPPLED_TABLE_STREAM = 46


def table_draw(tier: str, seed: int, i: int, stream: int) -> float:
    """A uniform number in [0, 1) of table ``i`` of a tier, from a stream of its own: what picks a
    seeded share of the tables for something (a print, a crowded state, pieces knocked over)
    without changing any other draw of the table."""
    return float(np.random.default_rng([seed, i, TIER_SEED[tier], stream]).random())


def toppled_of_table(share: float, tier: str, seed: int, i: int) -> float:
    """The share of legionaries and vexilla lying knocked over on training or fitting table ``i``
    of a tier (``render``'s ``toppled``): ``share`` on a seeded TOPPLED_TABLES of the tables, none
    on the others."""
    if not share:
        return 0.0
    return share if table_draw(tier, seed, i, TOPPLED_TABLE_STREAM) < TOPPLED_TABLES else 0.0


#: Tables per simulated game when training tables are drawn from many games (see table_game).
TABLES_PER_GAME = 8
_TABLE_GAMES: dict[tuple[int, int], list[SimStep]] = {}


def game_of(i: int) -> int:
    """The simulated game table ``i`` shows: a new game every TABLES_PER_GAME tables."""
    return i // TABLES_PER_GAME


def table_game(seed: int, i: int) -> list[SimStep]:
    """The committed states of table ``i``'s game: many games, not a few. The summit classifier,
    trained on the four games of :func:`game_states`, learnt where those games' vexilla stood on
    the board art and read other games worse; and a bench whose 200 tables came from four games
    measured those games (crowded small islands in the bench's four cost it a point on easy tables).
    Only the latest game is cached: tables are rendered in order, a game's tables together."""
    key = (seed, game_of(i))
    if key not in _TABLE_GAMES:
        _TABLE_GAMES.clear()
        _TABLE_GAMES[key] = game_states(seed * 100_003 + key[1], games=1)
    return _TABLE_GAMES[key]


def still_table(tier: str, seed: int, i: int, size: tuple[int, int] = FRAME_SIZE, art: np.ndarray | None = None,
                relight: tuple[float, float] | None = None, relief: float = 0.0,
                geometry: BoardGeometry | None = None, k: int = 0, toppled: float = 0.0,
                ) -> tuple[np.ndarray, GroundTruth]:
    """Frame ``k`` of rendered table ``i`` of a tier (see :func:`iter_still_tables`): a seeded draw
    from its game's states (:func:`table_game`), the same state in every tier; frames other than
    0 differ from it by the sensor noise alone."""
    steps = table_game(seed, i)
    step = steps[int(np.random.default_rng([seed, 999, i]).integers(len(steps)))]
    scene = (seed, i, TIER_SEED[tier])
    return render(step.state, tier, seed=scene, size=size, vp=step.vp, art=art,
                  sensor_seed=(*scene, k) if k else None, relight=relight, relief=relief, geometry=geometry,
                  toppled=toppled)


def yolo_lines(truth: GroundTruth) -> list[str]:
    w, h = truth.size
    out = []
    for p in truth.pieces:
        x0, y0, x1, y1 = p.box
        if p.occluded > MAX_OCCLUDED_FOR_LABEL or x1 - x0 < 2 or y1 - y0 < 2:
            continue
        cls = CLASS_INDEX[(p.kind, p.colour)]
        out.append(f"{cls} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}")
    return out


def iter_renders(tier: str, n: int, seed: int, size: tuple[int, int] = FRAME_SIZE,
                 art: np.ndarray | None = None, geometry: BoardGeometry | None = None,
                 ) -> Iterator[tuple[int, np.ndarray, GroundTruth]]:
    """Render ``n`` images of a tier; ``art`` replaces the procedural board (a rectified photo),
    and ``geometry`` the map its pieces stand by (see :func:`vision.synth.render.render`)."""
    for i, img, truth, _ in iter_still_tables(tier, n, seed, size, art, geometry=geometry):
        yield i, img, truth


def iter_still_tables(tier: str, n: int, seed: int, size: tuple[int, int] = FRAME_SIZE,
                      art: np.ndarray | None = None, relight: tuple[float, float] | None = None,
                      relief: float = 0.0, geometry: BoardGeometry | None = None, toppled: float = 0.0,
                      ) -> Iterator[tuple[int, np.ndarray, GroundTruth, Callable[[int], np.ndarray]]]:
    """:func:`iter_renders`, each image with a function that renders frame ``k`` (1, 2, ...) of
    the same still table: the same photo but for the sensor noise's realisation (see
    :func:`vision.synth.render.render`'s ``sensor_seed``), as a camera delivers it over a run of
    still frames; frame 0 is the image itself. Table ``i`` shows a state of game
    :func:`game_of` ``(i)`` (:func:`table_game`), the same state in every tier. ``relight``: the
    tables lit otherwise than their calibration photos; ``relief``: the board rising up to that many
    mm off the table along its creases; ``geometry``: the map ``art`` is printed by; ``toppled``:
    the share of legionaries and vexilla lying knocked over (all four: see
    :func:`vision.synth.render.render`)."""
    for i in range(n):
        img, truth = still_table(tier, seed, i, size, art, relight, relief, geometry, toppled=toppled)

        def frame(k: int, i=i) -> np.ndarray:
            return still_table(tier, seed, i, size, art, relight, relief, geometry, k, toppled=toppled)[0]

        yield i, img, truth, frame


def write_dataset(out: Path, tier: str, n: int, seed: int, size: tuple[int, int] = FRAME_SIZE,
                  progress=None, art: np.ndarray | None = None, geometry: BoardGeometry | None = None) -> int:
    """``n`` tables of a tier written as a YOLO dataset with each table's ground truth; ``art`` and
    ``geometry``: a real board's print and the map it is printed by (see :func:`iter_still_tables`)."""
    out = Path(out)
    for sub in ("images/train", "images/val", "labels/train", "labels/val", "truth"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for i, _, truth in iter_renders(tier, n, seed, size, art, geometry):
        split = "val" if i % VAL_EVERY == VAL_EVERY - 1 else "train"
        name = f"{i:06d}"
        (out / "images" / split / f"{name}.jpg").write_bytes(truth.jpeg)
        (out / "labels" / split / f"{name}.txt").write_text("\n".join(yolo_lines(truth)) + "\n")
        (out / "truth" / f"{name}.json").write_text(json.dumps(truth.to_dict(), separators=(",", ":")))
        if progress:
            progress(i + 1, n)
    names = "\n".join(f"  {i}: {name}" for i, name in enumerate(CLASS_NAMES))
    (out / "data.yaml").write_text(f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names}\n")
    return n


def contact_sheet(per_tier: int = 4, seed: int = 0, cell: tuple[int, int] = (480, 270),
                  art: np.ndarray | None = None, geometry: BoardGeometry | None = None) -> np.ndarray:
    """A grid of samples, one row per tier, for a person to judge realism at a glance (on
    ``art`` and its map ``geometry``, a real print, when given)."""
    import cv2

    rows = []
    for tier in ("easy", "medium", "hard"):
        cells = []
        for i, img, truth in iter_renders(tier, per_tier, seed, art=art, geometry=geometry):
            small = cv2.resize(img, cell, interpolation=cv2.INTER_AREA)
            label = f"{tier} #{i}  {len(truth.pieces)} pieces" + ("  hand" if truth.hand_present else "")
            cv2.putText(small, label, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(small, label, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
            cells.append(small)
        rows.append(np.hstack(cells))
    return np.vstack(rows)
