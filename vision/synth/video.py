"""Game videos: a simulated game rendered as a frame sequence with per-frame ground truth.

Between moves the table is still for a second or so; then a hand reaches in towards the
region being played, the pieces change under it, and the hand leaves. The camera, the light
and the table stay fixed; pieces that were not touched keep their places. Frames are JPEG
files (``frames/NNNNNN.jpg``); ``truth.jsonl`` holds one line per frame (the board as it
physically is, whether a hand is in view, the step being played, and on the frame a hand comes
in the card set or draw entered at the tablet then) and ``game.jsonl`` the
simulated game in the tracker's replay format.
"""
from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

from tracker.pieces import NEUTRAL, VP_TRACK_MAX
from tracker.spqrisiko.simulator import SimStep, Simulator
from tracker.state import ObservedState
from vision.geometry import BoardGeometry, load_geometry
from vision.synth.render import (TIER_SPECS, HandPose, Placed, _fit_camera, place_pieces, render,
                                 sample_hand)

PLAYERS = ("red", "blue", "yellow", "green")
DEFAULT_FPS = 12


def _region_content(state: ObservedState, region: str) -> dict:
    return state.regions.get(region, {})


class Placement:
    """Piece positions that persist from state to state: only touched regions are re-placed."""

    def __init__(self, geo: BoardGeometry, seed: int):
        self.geo = geo
        self.seed = seed
        self.by_region: dict[str, tuple[list[Placed], dict]] = {}
        self.content: dict[str, dict] = {}
        self.version = 0

    def update(self, state: ObservedState, vp: dict[str, int]) -> tuple[list[Placed], dict]:
        self.version += 1
        for rid in set(self.content) | set(state.regions):
            now = _region_content(state, rid)
            if self.content.get(rid) == now:
                continue
            self.content[rid] = now
            if not now:
                self.by_region.pop(rid, None)
                continue
            sub = ObservedState.from_dict({"board": state.board.id, "regions": {rid: now}}, state.board)
            rng = np.random.default_rng([self.seed, self.version, self.geo.region_ids.index(rid)])
            placed, drawn = place_pieces(sub, rng, self.geo)
            self.by_region[rid] = (placed, drawn["regions"].get(rid, {}))
        markers, _ = place_pieces(ObservedState.from_dict({"regions": {}}, state.board),
                                  np.random.default_rng([self.seed, 0]), self.geo,
                                  {c: min(VP_TRACK_MAX, v) for c, v in vp.items()})
        pieces = [p for rid in sorted(self.by_region) for p in self.by_region[rid][0]] + markers
        drawn = {rid: content for rid, (_, content) in sorted(self.by_region.items())}
        return pieces, {"board": state.board.id, "regions": drawn}


def _changed_regions(prev: ObservedState, nxt: ObservedState) -> list[str]:
    return sorted(r for r in prev.changed_regions(nxt)
                  if not (set(prev.regions.get(r, {})) | set(nxt.regions.get(r, {}))) <= {NEUTRAL})


def video_camera(seed: int, tier: str, size: tuple[int, int]):
    """The fixed camera of a video and the random stream that goes on to animate it."""
    rng = np.random.default_rng([seed, 77])
    spec = replace(TIER_SPECS[tier], hands=0.0, clutter=0.0, motion_blur=0.0)
    return _fit_camera(rng, spec, size, load_geometry()), rng


def calibration_photo(seed: int = 3, tier: str = "easy", size: tuple[int, int] = (1280, 720),
                      art: np.ndarray | None = None) -> np.ndarray:
    """What the players photograph before the game: the video's table, empty, markers on box 0
    (on ``art``, a real print, when given; else the procedural art)."""
    cam, _ = video_camera(seed, tier, size)
    empty = ObservedState.from_dict({"regions": {}})
    img, _ = render(empty, tier, seed=(seed, 1), size=size, camera=cam, vp={c: 0 for c in PLAYERS},
                    hand_poses=[], noise_seed=(seed, 3), art=art)
    return img


@dataclass(frozen=True)
class _Move:
    """One move filmed: who makes it, the board and victory points after it, and the tablet
    entries made as its hand comes in."""
    actor: str | None
    state: ObservedState
    vp: dict
    entries: list = field(default_factory=list)


def frames(seed: int = 3, turns: int = 6, tier: str = "easy", size: tuple[int, int] = (1280, 720),
           fps: int = DEFAULT_FPS, art: np.ndarray | None = None,
           geometry: BoardGeometry | None = None) -> Iterator[tuple[np.ndarray, dict, bytes]]:
    """Yield (image, per-frame truth, JPEG bytes) for a seeded game of ``turns`` turns. On a real
    print (``art``) the pieces stand inside its own borders, ``geometry`` (``printed_map``), as
    they do on a player's copy."""
    sim = Simulator(PLAYERS, seed=seed, max_turns=turns)
    steps: list[SimStep] = list(sim.steps())
    moves = [_Move(step.actor, step.state, step.vp, _tablet_entries(steps[k - 2] if k >= 2 else None, step))
             for k, step in enumerate(steps, start=1)]
    yield from _film(seed, sim.initial_state, moves, tier, size, fps, art, geometry)


def setup_frames(seed: int = 3, tier: str = "easy", size: tuple[int, int] = (1280, 720), fps: int = DEFAULT_FPS,
                 players: tuple[str, ...] = PLAYERS, art: np.ndarray | None = None,
                 geometry: BoardGeometry | None = None) -> Iterator[tuple[np.ndarray, dict, bytes]]:
    """The opening occupation filmed from the empty board (§3.7–3.8): a seeded finished set-up
    (:func:`tracker.spqrisiko.setup.random_setup`) made one placement at a time, each player in
    turn putting a pair in a free province and, while neutral groups are left, a neutral group of
    3 in another (two hands a turn, one a province). Then the first player's first reinforcements:
    3 legionaries on one of their provinces. The same camera and light as :func:`frames` of the
    same seed, and the same per-frame truth (``actor``: the player placing, a neutral group too).
    On a real print (``art``, its map ``geometry``) as :func:`frames` films a game there."""
    from tracker.spqrisiko.setup import random_setup, setup_plan
    from tracker.spqrisiko.setup_turns import in_turns
    empty = ObservedState.from_dict({"regions": {}})
    rng = np.random.default_rng([seed, 78])
    final = random_setup(empty.board, players, random.Random(seed))
    plan = setup_plan(empty.board, players)
    # with 4 players a neutral group stands on Italia from the start (§3.4)
    regions = {plan.fixed_neutral: final.regions[plan.fixed_neutral]} if plan.fixed_neutral else {}
    by_army = {c: sorted(p for p, o in final.owners.items() if o == c and p not in regions) for c in plan.shares}
    for provinces in by_army.values():
        rng.shuffle(provinces)
    # (player, province), in the order the table places them; each army's from the end of its list
    order = in_turns({c: provinces[::-1] for c, provinces in by_army.items()}, plan)
    start, moves = ObservedState.from_dict({"regions": dict(regions)}), []
    for player, province in order:
        regions[province] = final.regions[province]
        moves.append(_Move(player, ObservedState.from_dict({"regions": dict(regions)}), {c: 0 for c in players}))
    first = plan.players[0]
    own = sorted(p for p, o in final.owners.items() if o == first)[int(rng.integers(plan.player_provinces))]
    regions[own] = {first: {"legionary": final.legions[own] + 3}}
    moves.append(_Move(first, ObservedState.from_dict({"regions": dict(regions)}), {c: 0 for c in players}))
    yield from _film(seed, start, moves, tier, size, fps, art=art, geometry=geometry, players=players)


def _film(seed: int, state: ObservedState, moves: list[_Move], tier: str, size: tuple[int, int], fps: int,
          art: np.ndarray | None = None, geometry: BoardGeometry | None = None,
          players: tuple[str, ...] = PLAYERS) -> Iterator[tuple[np.ndarray, dict, bytes]]:
    """The table still on ``state``, then each move: a hand reaches in towards a region it
    changes, the pieces change under it, the hand leaves, and the table stays still a second or so."""
    geo = geometry if geometry is not None else load_geometry()
    cam, rng = video_camera(seed, tier, size)
    scene_seed = (seed, 1)
    placement = Placement(geo, seed)
    vp = {c: 0 for c in players}
    pieces = placement.update(state, vp)
    n = 0
    for k, move in enumerate([None] + moves):
        if move is not None:
            changed = _changed_regions(state, move.state) or list(move.state.regions)[:1]
            target_region = changed[int(rng.integers(len(changed)))]
            tx, ty = geo.label_points[target_region]
            target = cam.project(np.array([[tx, ty, 0.0]]))[0]
            pose = sample_hand(rng, size[0], size[1], (float(target[0]), float(target[1])))
            enter, hold, leave = (int(fps * rng.uniform(0.4, 0.7)), int(fps * rng.uniform(0.6, 1.2)),
                                  int(fps * rng.uniform(0.3, 0.6)))
            for f in range(enter + hold + leave):
                if f < enter:
                    reach = (f + 1) / enter
                elif f < enter + hold:
                    reach = 1.0
                    if f == enter + hold // 2:          # the pieces change under the hand
                        state, vp = move.state, move.vp
                        pieces = placement.update(state, vp)
                else:
                    reach = 1 - (f - enter - hold + 1) / (leave + 1)
                tip = np.array(pose.start) + (np.array(pose.tip) - np.array(pose.start)) * reach
                hand = HandPose(pose.start, (float(tip[0]), float(tip[1])), pose.width, pose.skin, pose.sleeve)
                yield _frame(n, k, state, pieces, tier, scene_seed, cam, [hand], size, move, art, geometry,
                             move.entries if f == 0 else ())
                n += 1
        for _ in range(int(fps * rng.uniform(0.8, 1.6))):
            yield _frame(n, k, state, pieces, tier, scene_seed, cam, [], size, move, art, geometry)
            n += 1


def _tablet_entries(previous: SimStep | None, step: SimStep | None) -> list[dict]:
    """What the players enter at the tablet as the hand of ``step`` comes in: the card the
    previous step's player drew at the end of their turn (§17), then the card set ``step``'s
    player plays (§8, at the start of the reinforcements). In the dashboard's entry format."""
    entries = []
    if previous is not None and previous.card_drawn:
        entries.append({"kind": "draw", "payload": {"player": previous.actor}})
    if step is not None and step.cards_played:
        entries.append({"kind": "cards", "payload": {"player": step.actor, "cards": list(step.cards_played)}})
    return entries


def _frame(n, k, state, pieces, tier, scene_seed, cam, hands, size, move, art=None, geometry=None, entries=()):
    # one camera: its focus and compression are the video's, only the sensor noise is the frame's
    img, truth = render(state, tier, seed=scene_seed, size=size, camera=cam, placement=pieces, hand_poses=hands,
                        noise_seed=(scene_seed[0], 2), sensor_seed=(scene_seed[0], 2, n), art=art,
                        geometry=geometry)
    line = {"frame": n, "step": k, "actor": move.actor if move else None, "hand_present": bool(hands),
            "state": truth.state, "occluded_fraction": round(truth.occluded_fraction, 4),
            "hand_fraction": round(truth.hand_fraction, 4),
            "board_corners": truth.board_corners,
            # where each score marker stands (vision.track reads it)
            "track": {p.colour: p.track_box for p in truth.pieces if p.track_box is not None}}
    if entries:
        line["entries"] = list(entries)
    return img, line, truth.jpeg


def write_video(out: Path, seed: int = 3, turns: int = 6, tier: str = "easy", size: tuple[int, int] = (1280, 720),
                fps: int = DEFAULT_FPS, art: np.ndarray | None = None, geometry: BoardGeometry | None = None) -> int:
    """Write frames, per-frame truth and the game file under ``out``; return the frame count. On
    a real print (``art``, its map ``geometry``) as :func:`frames` films it, the calibration photo
    on the same print."""
    out = Path(out)
    count = _write_film(out, frames(seed, turns, tier, size, fps, art=art, geometry=geometry),
                        calibration_photo(seed, tier, size, art=art),
                        {"fps": fps, "seed": seed, "turns": turns, "tier": tier, "size": list(size),
                         "print": art is not None})
    from tracker.spqrisiko.simulator import write_game
    write_game(out / "game.jsonl", PLAYERS, seed, turns)
    return count


def write_setup_video(out: Path, seed: int = 3, tier: str = "easy", size: tuple[int, int] = (1280, 720),
                      fps: int = DEFAULT_FPS) -> int:
    """Write the set-up film of ``seed`` (:func:`setup_frames`) as :func:`write_video` writes a
    game's, with its calibration photo; return the frame count."""
    return _write_film(Path(out), setup_frames(seed, tier, size, fps), calibration_photo(seed, tier, size),
                       {"fps": fps, "seed": seed, "setup": True, "tier": tier, "size": list(size), "print": False})


def _write_film(out: Path, film: Iterator[tuple[np.ndarray, dict, bytes]], calibration: np.ndarray,
                meta: dict) -> int:
    """Each frame of ``film`` as a JPEG under ``out/frames`` and its truth as a line of
    ``out/truth.jsonl``, the ``calibration`` photo, and ``meta`` with the frame count as
    ``video.json``; the frame count."""
    (out / "frames").mkdir(parents=True, exist_ok=True)
    count = 0
    with open(out / "truth.jsonl", "w", encoding="utf-8") as fh:
        for _, line, jpeg in film:
            (out / "frames" / f"{line['frame']:06d}.jpg").write_bytes(jpeg)
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")
            count += 1
    cv2.imwrite(str(out / "calibration.jpg"), calibration)
    (out / "video.json").write_text(json.dumps({"fps": meta["fps"], "frames": count, **meta}))
    return count


def default_video_dir(setup: bool = False) -> Path:
    """Where the demo's embedded default video (``setup``: its set-up film) is generated on
    first use and cached."""
    base = Path(os.environ.get("AUGUR_CACHE", Path.home() / ".cache" / "augur"))
    return base / ("demo-setup-v1" if setup else "demo-video-v2")


def ensure_default_video(setup: bool = False) -> Path:
    """The demo video (seed 3, 4 turns, easy tier at 1280x720; ``setup``: the set-up of seed 3
    made from the empty board, then the first move), generated once and cached."""
    out = default_video_dir(setup)
    if (out / "video.json").is_file():
        return out
    tmp = out.with_name(out.name + ".partial")
    if setup:
        write_setup_video(tmp, seed=3, tier="easy")
    else:
        write_video(tmp, seed=3, turns=4, tier="easy")
    tmp.rename(out) if not out.exists() else None
    return out
