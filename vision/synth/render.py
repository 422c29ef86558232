"""Render a webcam photo of a S.P.Q.RisiKo! table with exact ground truth.

:func:`render` takes an observed board state (what stands where), a difficulty tier and a
seed, and returns the image plus :class:`GroundTruth`: the state as drawn (legionaries and
vexilla as the simulated players stacked them), every piece's box and footprint in the
image with its region, the board corners and homography, the occluder mask and whether a
hand is in view. Same inputs, same bytes.

Pieces are small 3-D solids (stacked cylinders, a hull, a ring) projected through the
camera, shaded by a directional light and casting soft shadows; colours vary per dye lot.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from tracker.pieces import (ARMY_COLOURS, BLACK, BLUE, CENTRE, GREEN, LEGIONARY, NEUTRAL, RED, TRIREME, VEXILLUM,
                            VEXILLUM_VALUE, YELLOW)
from tracker.state import ObservedState
from vision.geometry import BoardGeometry, border_mask, load_geometry
from vision.synth.board_art import ART_SCALE, procedural_art
from vision.synth.camera import Camera
from vision.synth.relief import BoardRelief, image_to_board

#: Base colours of the plastic (BGR).
PIECE_COLOURS = {RED: (40, 38, 190), BLUE: (170, 90, 35), YELLOW: (40, 200, 235), GREEN: (60, 140, 45),
                 BLACK: (38, 36, 36), NEUTRAL: (190, 205, 215)}
#: Piece sizes in board units (the board is 1000 units tall, about half a millimetre each):
#: a legionary stands about 13 mm on an 8 mm base, a trireme is 2 cm long.
PIECE_SCALE = 1.5
PIECE_RADIUS = {LEGIONARY: 5.5 * PIECE_SCALE, VEXILLUM: 6.5 * PIECE_SCALE, TRIREME: 9.0 * PIECE_SCALE,
                CENTRE: 12.0 * PIECE_SCALE}
PIECE_HEIGHT = {LEGIONARY: 17.0 * PIECE_SCALE, VEXILLUM: 26.0 * PIECE_SCALE, TRIREME: 10.0 * PIECE_SCALE,
                CENTRE: 7.0 * PIECE_SCALE}

TIERS = ("easy", "medium", "hard")
#: The camera frame rendered unless another size is asked for (a 720p webcam).
FRAME_SIZE = (1280, 720)
#: How much of a piece's base radius its footprint keeps from a printed border: at least half of
#: the base stands inside the region, as players place pieces (one astride a border is a dispute).
BASE_INSIDE = 0.5
#: Two pieces stand at least this share of their base radii's sum apart: bases touch and may
#: overlap a little where the figures taper, but no piece stands inside another.
TOUCHING = 0.9
#: Tries to find a free spot for a piece, and the try from which a province's legionary or
#: vexillum may stand on the sea off its coast (``BoardGeometry.spill_labels``): players fill
#: the province first.
PLACING_ATTEMPTS = 400
SPILL_AFTER = 100
#: The folded board's shape is drawn from the scene's seed and this, apart from every other draw,
#: so that a table rendered flat is drawn exactly as before.
RELIEF_STREAM = 4242
#: Which pieces lie knocked over, and which way (``render``'s ``toppled``), is drawn from the
#: scene's seed and this, apart from every other draw, so that a table with none is drawn as before.
TOPPLE_STREAM = 4545
#: The directions tried, evenly round the circle from a random start, for a piece to lie along.
TOPPLE_TRIES = 8
#: In a video (a ``placement`` given), each piece's colour is drawn from the scene's seed, this and
#: the piece's place, and the scene's glare and clutter from the seed and SCENE_STREAM: a move then
#: changes only the pieces it moves, as on a real table. (They used to follow the one stream, so
#: every move redrew every piece's tint, the glare, the dice and the cards.) A still table
#: (no ``placement``) is drawn exactly as before.
PIECE_STREAM = 4343
SCENE_STREAM = 4444


@dataclass(frozen=True)
class TierSpec:
    tilt: tuple[float, float]
    any_yaw: bool
    fill: tuple[float, float]
    temperature: tuple[float, float]
    gradient: float
    people_shadows: float       # probability
    glare: float                # probability
    hands: float                # probability of at least one hand
    clutter: float              # probability of dice / cards / a cup
    defocus: tuple[float, float]
    motion_blur: float          # probability
    noise: tuple[float, float]
    jpeg: tuple[int, int]
    distortion: tuple[float, float]


TIER_SPECS = {
    "easy": TierSpec((0, 0), False, (0.55, 0.9), (5200, 6500), 0.05, 0.0, 0.0, 0.0, 0.0, (0.0, 0.4), 0.0,
                     (1.0, 2.5), (88, 95), (0.0, 0.0)),
    "medium": TierSpec((0, 25), True, (0.45, 0.9), (2800, 7500), 0.2, 0.5, 0.25, 0.0, 0.4, (0.0, 0.8), 0.0,
                       (1.5, 4.0), (75, 95), (-0.06, 0.0)),
    "hard": TierSpec((10, 45), True, (0.4, 0.95), (2500, 8000), 0.3, 0.6, 0.6, 0.8, 0.6, (0.3, 1.6), 0.3,
                     (2.5, 6.0), (60, 90), (-0.12, 0.0)),
}


@dataclass
class PieceTruth:
    kind: str
    colour: str
    region: str | None                  # None for score markers on the track
    board_xy: tuple[float, float]
    footprint: tuple[float, float]      # image pixel where the piece stands
    box: tuple[float, float, float, float]   # x0, y0, x1, y1 in the image (clipped)
    occluded: float                     # fraction of the box under a hand, card, die or cup
    track_box: int | None = None
    lying: bool = False                 # knocked over, on its side (``render``'s ``toppled``)

    def to_dict(self) -> dict:
        d = {"kind": self.kind, "colour": self.colour, "region": self.region,
             "board_xy": [round(v, 2) for v in self.board_xy], "footprint": [round(v, 2) for v in self.footprint],
             "box": [round(v, 2) for v in self.box], "occluded": round(self.occluded, 3)}
        if self.track_box is not None:
            d["track_box"] = self.track_box
        if self.lying:
            d["lying"] = True
        return d


@dataclass
class GroundTruth:
    state: dict
    pieces: list[PieceTruth]
    board_corners: list[list[float]]
    homography: list[list[float]]         # board units -> undistorted image pixels
    k1: float
    hand_present: bool
    occluded_fraction: float              # of the board's image area
    occluded_regions: dict[str, float]    # region -> fraction of its image area hidden
    tier: str
    seed: list[int]
    size: tuple[int, int]
    extras: dict = field(default_factory=dict)
    #: how far the folded board rises off the table at most, in mm (0: flat; see ``render``'s ``relief``)
    relief: float = 0.0
    #: the image exactly as the camera delivered it (JPEG); datasets write these bytes
    jpeg: bytes = b""
    #: image pixels hidden by a hand, a card, dice or a cup (uint8, 255 where hidden); not serialised
    occluder: np.ndarray | None = field(default=None, repr=False)
    #: of the board's image area, the part under hands alone (``occluded_fraction`` less the
    #: cards, dice and cups); the game bench asks whether a state was committed under a hand
    hand_fraction: float = 0.0

    @property
    def players(self) -> tuple[str, ...]:
        """The armies in play: those with a score marker on the track (a piece in no region)."""
        return tuple(c for c in ARMY_COLOURS if any(p.region is None and p.colour == c for p in self.pieces))

    def to_dict(self) -> dict:
        return {"tier": self.tier, "seed": self.seed, "size": list(self.size), "state": self.state,
                "board_corners": self.board_corners, "homography": self.homography, "k1": self.k1,
                "hand_present": self.hand_present, "occluded_fraction": round(self.occluded_fraction, 4),
                "occluded_regions": {k: round(v, 3) for k, v in sorted(self.occluded_regions.items())},
                "pieces": [p.to_dict() for p in self.pieces], **({"relief_mm": self.relief} if self.relief else {}),
                **self.extras}


@dataclass
class Placed:
    kind: str
    colour: str
    x: float
    y: float
    region: str | None
    angle: float = 0.0
    track_box: int | None = None
    #: a piece knocked over lies on its side, its head towards this direction (radians, board
    #: axes); (x, y) is then the middle of its length. None: it stands.
    lying: float | None = None


# -- placing pieces on the board -------------------------------------------------------
#: per map (by identity): its region pixels and border distances, which placing pieces reads on
#: every render; a bench renders on the committed map or on one print's map all run long
_PLACING_MAPS: dict[int, tuple[BoardGeometry, dict, np.ndarray]] = {}


def _placing_maps(geo: BoardGeometry) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """Per region of ``geo``: its pixels and its interior (eroded) pixels, in board units; and the
    board units from every point to the nearest printed border (a change of region label)."""
    hit = _PLACING_MAPS.get(id(geo))
    if hit is not None and hit[0] is geo:
        return hit[1], hit[2]
    pixels = {}
    for i, rid in enumerate(geo.region_ids, start=1):
        mask = (geo.labels == i).astype(np.uint8)
        inner = cv2.erode(mask, np.ones((9, 9), np.uint8))
        all_px = np.column_stack(np.nonzero(mask)[::-1]).astype(np.float32)
        in_px = np.column_stack(np.nonzero(inner)[::-1]).astype(np.float32)
        pixels[rid] = (all_px, in_px if len(in_px) >= 20 else all_px)
    edge = border_mask(geo.labels)
    to_border = cv2.distanceTransform(np.where(edge, 0, 255).astype(np.uint8), cv2.DIST_L2, 5)
    if len(_PLACING_MAPS) >= 4:
        _PLACING_MAPS.pop(next(iter(_PLACING_MAPS)))
    _PLACING_MAPS[id(geo)] = (geo, pixels, to_border)
    return pixels, to_border


def split_legions(legions: int, rng: np.random.Generator) -> tuple[int, int]:
    """How players stack a strength: vexilla for full tens, though many keep 10-15 loose legionaries."""
    vex = legions // VEXILLUM_VALUE
    if vex and rng.random() < 0.35:
        vex -= 1
    return legions - VEXILLUM_VALUE * vex, vex


def place_pieces(state: ObservedState, rng: np.random.Generator, geo: BoardGeometry,
                 vp: dict[str, int] | None = None) -> tuple[list[Placed], dict]:
    """Positions for every piece of ``state``, and the state as placed. A piece stands inside its
    region and never inside another piece; the legionaries and vexilla of a province too small
    for its pile stand on the sea off its coast, nearer to it than to any other province."""
    pix, to_border = _placing_maps(geo)
    placed: list[Placed] = []
    spots: list[tuple[float, float, float]] = []       # every piece placed so far: x, y, base radius
    drawn: dict[str, dict[str, dict[str, int]]] = {}
    for rid in sorted(state.regions):
        n_here = 0
        content = state.regions[rid]
        items: list[tuple[str, str]] = []
        for colour, kinds in sorted(content.items()):
            if colour == NEUTRAL:
                items += [(CENTRE, NEUTRAL)] * kinds.get(CENTRE, 0)
                drawn.setdefault(rid, {})[NEUTRAL] = {CENTRE: kinds.get(CENTRE, 0)}
                continue
            if geo.board.is_sea(rid):
                items += [(TRIREME, colour)] * kinds.get(TRIREME, 0)
                drawn.setdefault(rid, {})[colour] = {TRIREME: kinds.get(TRIREME, 0)}
                continue
            strength = kinds.get(LEGIONARY, 0) + VEXILLUM_VALUE * kinds.get(VEXILLUM, 0)
            leg, vex = split_legions(strength, rng)
            items += [(VEXILLUM, colour)] * vex + [(LEGIONARY, colour)] * leg
            drawn.setdefault(rid, {})[colour] = {k: n for k, n in ((LEGIONARY, leg), (VEXILLUM, vex)) if n}
        all_px, inner = pix[rid]
        centre = inner[rng.integers(len(inner))]
        label = geo.region_ids.index(rid) + 1
        for kind, colour in sorted(items, key=lambda it: -PIECE_RADIUS[it[0]]):
            r = PIECE_RADIUS[kind]
            may_spill = kind in (LEGIONARY, VEXILLUM)
            best, best_room = None, -1.0
            others = np.array(spots, np.float64).reshape(-1, 3)
            for attempt in range(PLACING_ATTEMPTS):
                # players pile pieces in a cluster: sample near the cluster centre first
                if attempt < 300:
                    spread = 8 + 4 * np.sqrt(n_here + 1) * (1 + attempt / 60)
                    cand = centre + rng.normal(0, spread, 2)
                    xi, yi = int(round(cand[0])), int(round(cand[1]))
                    if not (0 <= xi < geo.size[0] and 0 <= yi < geo.size[1]):
                        continue
                    if geo.labels[yi, xi] == label:
                        # players stand a piece in its region, not astride the printed border
                        if to_border[yi, xi] < BASE_INSIDE * r:
                            continue
                    # a province too full for its pile: the rest stands on the sea off its coast
                    elif not (may_spill and attempt >= SPILL_AFTER and geo.spill_labels[yi, xi] == label):
                        continue
                else:
                    cand = inner[rng.integers(len(inner))]
                # pieces never stand inside one another (bases may overlap a little: they taper)
                room = float(np.min(np.hypot(others[:, 0] - cand[0], others[:, 1] - cand[1]) / (r + others[:, 2]),
                                    initial=np.inf))
                if room >= TOUCHING:
                    best = cand
                    break
                if room > best_room:
                    best, best_room = cand, room
            spots.append((float(best[0]), float(best[1]), r))
            n_here += 1
            placed.append(Placed(kind, colour, float(best[0]), float(best[1]), rid, float(rng.uniform(0, np.pi))))
    for k, (colour, points) in enumerate(sorted((vp or {}).items())):
        box = min(40, max(0, points))
        x0, y0, x1, y1 = geo.track_boxes[box]
        placed.append(Placed(LEGIONARY, colour, (x0 + x1) / 2 + rng.uniform(-2, 2),
                             y0 + (y1 - y0) * (0.2 + 0.15 * k), None, track_box=box))
    return placed, {"board": geo.board.id, "regions": drawn}


def knock_over(placed: list[Placed], share: float, rng: np.random.Generator, geo: BoardGeometry) -> list[Placed]:
    """``placed`` with about ``share`` of the legionaries and vexilla on the map lying on their
    side, as a sleeve or a die leaves them during a battle. A knocked piece lies from where its
    base stood, along a direction where its whole length stays in its own region (or the sea it
    had spilled onto) and clear of the other pieces' bases; where no direction of TOPPLE_TRIES
    has room, it stays standing. Score markers on the track are never knocked."""
    out = list(placed)
    bases = np.array([(p.x, p.y, PIECE_RADIUS[p.kind]) for p in placed], np.float64).reshape(-1, 3)
    h, w = geo.labels.shape
    for i, p in enumerate(placed):
        if p.region is None or p.kind not in (LEGIONARY, VEXILLUM) or rng.random() >= share:
            continue
        length = PIECE_HEIGHT[p.kind]
        start = rng.uniform(0, 2 * np.pi)
        for turn in range(TOPPLE_TRIES):
            a = start + 2 * np.pi * turn / TOPPLE_TRIES
            d = np.array([np.cos(a), np.sin(a)])
            along = np.array([p.x, p.y]) + np.outer(np.linspace(0, length, 6), d)
            xi, yi = np.round(along[:, 0]).astype(int), np.round(along[:, 1]).astype(int)
            if not ((xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)).all():
                continue
            here = geo.labels[yi[0], xi[0]]
            if not (geo.labels[yi, xi] == here).all():
                continue
            # clear of every other base along its length (its own base is where it starts)
            gap = np.hypot(bases[:, None, 0] - along[None, 1:, 0], bases[:, None, 1] - along[None, 1:, 1]) \
                - bases[:, 2:3] - 0.6 * PIECE_RADIUS[LEGIONARY]
            gap[i] = np.inf
            if (gap < 0).any():
                continue
            mid = np.array([p.x, p.y]) + d * length / 2
            out[i] = Placed(p.kind, p.colour, float(mid[0]), float(mid[1]), p.region, p.angle, p.track_box, float(a))
            bases = np.vstack([bases, [(*along[k], PIECE_RADIUS[LEGIONARY]) for k in (2, 4)]])
            break
    return out


# -- drawing ---------------------------------------------------------------------------
_UNIT_CIRCLES = {n: np.column_stack([np.cos(np.linspace(0, 2 * np.pi, n, endpoint=False)),
                                     np.sin(np.linspace(0, 2 * np.pi, n, endpoint=False)), np.zeros(n)])
                 for n in (12, 16, 20, 24)}


def _circle(x: float, y: float, r: float, z: float, n: int = 16) -> np.ndarray:
    out = _UNIT_CIRCLES[n] * (r, r, 0.0)
    out += (x, y, z)
    return out


def _solids(p: Placed) -> list[tuple[np.ndarray, float]]:
    """The piece as a list of (3-D outline points, shade) solids, bottom first."""
    if p.lying is not None:
        return _lying_solids(p)
    return [(np.column_stack([p.x + (pts[:, 0] - p.x) * PIECE_SCALE, p.y + (pts[:, 1] - p.y) * PIECE_SCALE,
                              pts[:, 2] * PIECE_SCALE]), shade) for pts, shade in _unit_solids(p)]


def _lying_solids(p: Placed) -> list[tuple[np.ndarray, float]]:
    """A knocked-over piece's solids: the standing piece turned a quarter about its base's rim, so
    that its axis lies along ``p.lying`` and its base's edge rests on the table (z grows downwards,
    into the table); centred on (p.x, p.y), the middle of its length."""
    standing = _solids(Placed(p.kind, p.colour, 0.0, 0.0, p.region, p.angle))
    u = np.array([np.cos(p.lying), np.sin(p.lying), 0.0])
    e = np.array([-u[1], u[0], 0.0])
    z = np.array([0.0, 0.0, 1.0])
    # up (-z) turns to u, u turns down (+z); e, across the piece, stays
    turn = np.outer(e, e) + np.outer(z, u) - np.outer(u, z)
    pts = [pts @ turn.T for pts, _ in standing]
    rest = max(float(q[:, 2].max()) for q in pts)               # the lowest point touches the table
    shift = np.array([p.x, p.y, -rest]) - u * PIECE_HEIGHT[p.kind] / 2
    return [(q + shift, shade) for q, (_, shade) in zip(pts, standing)]


def _unit_solids(p: Placed) -> list[tuple[np.ndarray, float]]:
    x, y = p.x, p.y
    if p.kind == LEGIONARY:
        return [(np.vstack([_circle(x, y, 5.5, 0), _circle(x, y, 5.5, -2)]), 0.8),
                (np.vstack([_circle(x, y, 3.8, -2), _circle(x, y, 3.2, -13)]), 1.0),
                (np.vstack([_circle(x, y, 2.6, -13), _circle(x, y, 2.6, -17)]), 1.1)]
    if p.kind == VEXILLUM:
        c, s = np.cos(p.angle), np.sin(p.angle)
        flag = np.array([[x, y, -16], [x + 9 * c, y + 9 * s, -16], [x + 9 * c, y + 9 * s, -26], [x, y, -26]])
        return [(np.vstack([_circle(x, y, 6.5, 0), _circle(x, y, 6.5, -3)]), 0.8),
                (np.vstack([_circle(x, y, 1.2, -3), _circle(x, y, 1.2, -27)]), 0.9),
                (np.vstack([flag, flag + [0.8 * s, -0.8 * c, 0]]), 1.15)]
    if p.kind == TRIREME:
        a = np.linspace(0, 2 * np.pi, 20, endpoint=False)
        c, s = np.cos(p.angle), np.sin(p.angle)
        hx, hy = 13 * np.cos(a), 4.5 * np.sin(a)
        hull = np.column_stack([x + hx * c - hy * s, y + hx * s + hy * c])
        return [(np.vstack([np.column_stack([hull, np.zeros(20)]), np.column_stack([hull * 0.92 + np.array([x, y]) * 0.08, np.full(20, -5)])]), 0.9),
                (np.vstack([_circle(x, y, 0.9, -5), _circle(x, y, 0.9, -10)]), 0.8),
                (np.array([[x - 5 * s, y + 5 * c, -6], [x + 5 * s, y - 5 * c, -6], [x + 5 * s, y - 5 * c, -10],
                           [x - 5 * s, y + 5 * c, -10]]), 1.2)]
    return [(np.vstack([_circle(x, y, 12, 0, 24), _circle(x, y, 11, -7, 24)]), 0.95),
            (_circle(x, y, 7.5, -7.05, 24), 0.6)]


def _jitter_colour(base: tuple[int, int, int], rng: np.random.Generator, lot: np.ndarray) -> np.ndarray:
    return np.clip(np.float32(base) * lot * rng.uniform(0.94, 1.06, 3), 0, 255)


def _draw_piece(img: np.ndarray, cam: Camera, p: Placed, colour: np.ndarray, light: np.ndarray,
                lift: float = 0.0) -> np.ndarray:
    """Draw one piece, standing ``lift`` board units above the table; return its image outline
    points (for the box)."""
    outline = []
    for pts3, shade in _solids(p):
        uv = cam.project(pts3 - (0.0, 0.0, lift), distort=False)
        hull = cv2.convexHull(np.round(uv * 4).astype(np.int32))
        lit = 0.55 + 0.45 * shade * light[0]
        col = np.clip(colour * lit, 0, 255)
        cv2.fillConvexPoly(img, hull, col.tolist(), cv2.LINE_AA, shift=2)
        # a darker edge on the side away from the light, a specular glint towards it
        n = len(pts3) // 2 if len(pts3) > 8 else len(pts3)
        top = uv[n:] if len(pts3) > 8 else uv
        cx, cy = top.mean(axis=0)
        rad = max(0.6, 0.25 * (top.max(axis=0) - top.min(axis=0)).max())
        gx, gy = cx - light[1] * rad, cy - light[2] * rad
        cv2.circle(img, (int(gx * 4), int(gy * 4)), int(max(2, rad * 1.6)), np.clip(col * 1.35 + 25, 0, 255).tolist(),
                   -1, cv2.LINE_AA, shift=2)
        outline.append(uv)
    return np.vstack(outline)


def _shadow_polys(cam: Camera, p: Placed, sun: np.ndarray, lift: float = 0.0) -> np.ndarray:
    if p.lying is not None:     # each point of the lying piece cast along the light onto the table
        pts = np.vstack([q for q, _ in _solids(p)])
        cast = pts[:, :2] + sun[:2] * (-pts[:, 2:3]) / max(0.2, sun[2])
        return cam.project(np.column_stack([np.vstack([pts[:, :2], cast]), np.full(2 * len(pts), -lift)]),
                           distort=False)
    h = PIECE_HEIGHT[p.kind]
    r = PIECE_RADIUS[p.kind]
    base = _circle(p.x, p.y, r, -lift, 12)
    off = sun[:2] * h / max(0.2, sun[2])
    top = _circle(p.x + off[0], p.y + off[1], r * 0.6, -lift, 12)
    return cam.project(np.vstack([base, top]), distort=False)


# -- the scene -------------------------------------------------------------------------
def _kelvin_gains(k: float) -> np.ndarray:
    """Rough BGR gains of a light of colour temperature ``k`` relative to 6500 K."""
    t = np.clip((k - 2500) / 5500, 0, 1)
    return np.float32([0.55 + 0.5 * t, 0.85 + 0.15 * t, 1.15 - 0.2 * t])


@lru_cache(maxsize=8)
def _table_texture(w: int, h: int, variant: int) -> np.ndarray:
    rng = np.random.default_rng(1000 + variant)
    base = [np.float32((60, 95, 140)), np.float32((40, 60, 90)), np.float32((150, 150, 150)),
            np.float32((80, 110, 120))][variant % 4]
    grain = cv2.resize(rng.normal(0, 1, (h // 2 + 1, 8)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    blotch = cv2.resize(rng.normal(0, 1, (h // 40 + 2, w // 40 + 2)).astype(np.float32), (w, h))
    tex = base[None, None] * (1 + 0.12 * grain[..., None] + 0.06 * blotch[..., None])
    return np.clip(tex, 0, 255).astype(np.uint8)


def _fit_camera(rng: np.random.Generator, spec: TierSpec, size: tuple[int, int], geo: BoardGeometry) -> Camera:
    """A camera at the tier's tilt and yaw whose view the board fills to the sampled fraction,
    or as much as it can while staying wholly in view."""
    w, h = size
    bw, bh = geo.size
    tilt = rng.uniform(*spec.tilt)
    # tables are usually set square to the camera; any rotation happens, less often
    if spec.any_yaw and rng.random() < 0.3:
        yaw = rng.uniform(0, 360)
    else:
        yaw = 180 * rng.integers(2) + (rng.uniform(-25, 25) if spec.any_yaw else rng.uniform(-3, 3))
    fov = rng.uniform(55, 78)
    k1 = round(float(rng.uniform(*spec.distortion)), 2)   # quantised so lens maps can be cached
    fill = rng.uniform(*spec.fill)
    target = (bw / 2 + rng.uniform(-0.03, 0.03) * bw, bh / 2 + rng.uniform(-0.03, 0.03) * bh)
    corners = np.array([[0, 0, 0], [bw, 0, 0], [bw, bh, 0], [0, bh, 0]], float)
    margin = 0.01 * w

    def view(d: float) -> tuple[Camera, float, bool]:
        cam = Camera.looking_at(w, h, fov, target, d, tilt, yaw, k1)
        if (cam.depth(corners) <= 0).any():
            return cam, 1e9, False
        uv = cam.project(corners, distort=False)
        area = cv2.contourArea(uv.astype(np.float32)) / (w * h)
        inside = bool(uv[:, 0].min() > margin and uv[:, 0].max() < w - margin and uv[:, 1].min() > margin
                      and uv[:, 1].max() < h - margin)
        return cam, area, inside

    def bisect(pred) -> float:
        lo, hi = 0.05 * bw, 50.0 * bw
        for _ in range(40):
            mid = np.sqrt(lo * hi)
            lo, hi = (lo, mid) if pred(mid) else (mid, hi)
        return hi

    d_fit = bisect(lambda d: view(d)[2])
    d_fill = bisect(lambda d: view(d)[1] <= fill)
    return view(max(d_fit, d_fill))[0]


def render(state: ObservedState, tier: str = "easy", seed: int | tuple = 0, size: tuple[int, int] = FRAME_SIZE,
           vp: dict[str, int] | None = None, hands: int | None = None, art: np.ndarray | None = None,
           camera: Camera | None = None, placement: tuple[list[Placed], dict] | None = None,
           hand_poses: list["HandPose"] | None = None, noise_seed: int | tuple | None = None,
           sensor_seed: int | tuple | None = None, relight: tuple[float, float] | None = None,
           relief: float = 0.0, geometry: BoardGeometry | None = None,
           toppled: float = 0.0) -> tuple[np.ndarray, GroundTruth]:
    """One photo of the table and its ground truth (see module doc).

    A video keeps the scene still between frames: it passes the same ``seed`` (lighting,
    table), a fixed ``camera``, the ``placement`` of the pieces, explicit ``hand_poses``, and
    a ``noise_seed`` for the lens-to-file stage (focus, shake, sensor noise, JPEG), with a
    per-frame ``sensor_seed``. Its pieces' tints, glare and clutter do not depend on the other
    pieces (see PIECE_STREAM).

    ``sensor_seed`` makes another frame of exactly the same still photo: only the sensor
    noise's realisation is drawn from it, while focus, shake, the noise level and the JPEG
    quality stay the scene's. That is what a camera on a tripod delivers from one frame to the
    next, and what the live loop's vote over still frames gets to work with.

    ``relight`` = (kelvin, level) changes the scene's light and nothing else: its colour
    temperature by ``kelvin`` and its brightness by the factor ``level``, on the board and the
    pieces alike. The calibration photo (:func:`calibration_render`) keeps the scene's own light,
    so this is the light drifting between calibration and play: dusk, a lamp switched on, a
    webcam's automatic exposure. (The scene's own light, its colour temperature, gradient and
    people's shadows, falls on the board only: the pieces are drawn after it. See the note in
    ``models/README.md``, session 22.)

    ``relief``: the board, folded in four when stored, rises up to this many millimetres off the
    table along its creases (:mod:`vision.synth.relief`; the shape is drawn from ``seed``, so the
    calibration photo of the same table shows the same board). The art and the pieces standing
    on it are drawn where the raised surface puts them; ``GroundTruth.homography`` stays the
    flat board's.

    ``geometry``: the region map ``art`` is printed by, when it is not the committed one (a real
    board's print, :func:`vision.synth.board_art.printed_map`): the pieces stand inside its
    regions, as players stand them inside the printed borders, and the truth's hidden regions are
    measured on it. By default the committed map, which the procedural art is drawn from.

    ``toppled``: about this share of the legionaries and vexilla on the map lie knocked over
    (:func:`knock_over`; which ones and which way is drawn from ``seed``, so every frame of a
    video shows the same ones). They still count where they lie: the state is unchanged.
    """
    if tier not in TIER_SPECS:
        raise ValueError(f"unknown tier '{tier}' (expected {', '.join(TIERS)})")
    spec = TIER_SPECS[tier]
    seed_seq = [seed] if isinstance(seed, int) else list(seed)
    rng = np.random.default_rng(seed_seq)
    geo = load_geometry(state.board.id) if geometry is None else geometry
    art = procedural_art(state.board.id) if art is None else art
    w, h = size
    cam = camera or _fit_camera(rng, spec, size, geo)
    H = cam.homography()
    S = np.diag([1 / ART_SCALE, 1 / ART_SCALE, 1.0])
    img = _table_texture(w, h, int(rng.integers(4))).copy()
    folded = BoardRelief.draw(np.random.default_rng([*seed_seq, RELIEF_STREAM]), geo.size, relief) \
        if relief > 0 else None
    if folded is None:
        cv2.warpPerspective(art, H @ S, (w, h), dst=img, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
        board_mask = np.zeros((h, w), np.uint8)
        quad = cv2.perspectiveTransform(np.float32([[[0, 0], [geo.size[0], 0], [geo.size[0], geo.size[1]],
                                                     [0, geo.size[1]]]]), H)[0]
        cv2.fillConvexPoly(board_mask, np.round(quad).astype(np.int32), 255)
    else:                   # each image pixel's board point on the raised surface
        bx, by = image_to_board(cam, folded, w, h)
        cv2.remap(art, bx * ART_SCALE, by * ART_SCALE, cv2.INTER_LINEAR, dst=img, borderMode=cv2.BORDER_TRANSPARENT)
        board_mask = np.where((bx >= 0) & (bx < geo.size[0]) & (by >= 0) & (by < geo.size[1]), 255, 0).astype(np.uint8)

    def lift(p: Placed) -> float:
        """How far the board under piece ``p`` rises off the table (board units)."""
        return float(folded.height(p.x, p.y)) if folded is not None else 0.0

    # lighting: colour temperature, a brightness gradient, shadows of people at the table; all
    # folded into one gain map applied once
    temperature = rng.uniform(*spec.temperature)
    kelvin = _kelvin_gains(temperature)
    gx, gy = rng.normal(0, 1, 2)
    ramp = (np.linspace(-1, 1, w, dtype=np.float32)[None, :] * gx
            + np.linspace(-1, 1, h, dtype=np.float32)[:, None] * gy) / max(1e-6, float(np.hypot(gx, gy)))
    gain = (1 + spec.gradient * rng.uniform(0.3, 1) * ramp).astype(np.float32)
    if rng.random() < spec.people_shadows:
        # soft shapes are drawn at 1/8 scale and enlarged: a wide blur at full size is slow
        sw, sh = w // 8, h // 8
        shade = np.zeros((sh, sw), np.float32)
        for _ in range(rng.integers(1, 3)):
            c = (int(rng.uniform(0, sw)), int(rng.choice([rng.uniform(-0.2, 0.2), rng.uniform(0.8, 1.2)]) * sh))
            cv2.ellipse(shade, c, (int(rng.uniform(0.2, 0.45) * sw), int(rng.uniform(0.2, 0.4) * sh)),
                        rng.uniform(0, 180), 0, 360, 1.0, -1)
        shade = cv2.resize(cv2.GaussianBlur(shade, (0, 0), 0.06 * sw), (w, h), interpolation=cv2.INTER_LINEAR)
        gain *= 1 - rng.uniform(0.2, 0.4) * shade
    # pieces, with their shadows first
    placed, drawn_state = placement if placement is not None else place_pieces(state, rng, geo, vp)
    if toppled > 0:
        placed = knock_over(placed, toppled, np.random.default_rng([*seed_seq, TOPPLE_STREAM]), geo)
    sun_az, sun_el = rng.uniform(0, 2 * np.pi), np.radians(rng.uniform(35, 70))
    sun = np.array([np.cos(sun_az) * np.cos(sun_el), np.sin(sun_az) * np.cos(sun_el), np.sin(sun_el)])
    shadow = np.zeros((h, w), np.uint8)
    for p in placed:
        poly = cv2.convexHull(np.round(_shadow_polys(cam, p, sun, lift(p)) * 4).astype(np.int32))
        cv2.fillConvexPoly(shadow, poly, 255, cv2.LINE_AA, shift=2)
    shadow = cv2.GaussianBlur(shadow, (0, 0), 1.2).astype(np.float32) / 255
    gain *= 1 - 0.45 * shadow
    img = img.astype(np.float32)
    cv2.multiply(img, cv2.merge([gain * kelvin[0], gain * kelvin[1], gain * kelvin[2]]), dst=img)
    # the light as seen on the image: brightness of lit faces, and where the glint sits
    sun_img = cam.R @ np.array([-sun[0], -sun[1], sun[2]])
    light = np.array([0.8 + 0.2 * sun[2], sun_img[0], sun_img[1]])
    lots = {c: rng.uniform(0.9, 1.1, 3).astype(np.float32) for c in PIECE_COLOURS}
    order = np.argsort(-cam.depth(np.array([[p.x, p.y, 0.0] for p in placed]))) if placed else []
    outlines: dict[int, np.ndarray] = {}
    video = placement is not None
    for i in order:
        p = placed[i]
        tint = np.random.default_rng([*seed_seq, PIECE_STREAM, int(round(p.x * 100)), int(round(p.y * 100))]) \
            if video else rng
        outlines[i] = _draw_piece(img, cam, p, _jitter_colour(PIECE_COLOURS[p.colour], tint, lots[p.colour]), light,
                                  lift(p))
    if video:
        rng = np.random.default_rng([*seed_seq, SCENE_STREAM])
    if relight is not None:     # the new light falls on the board and the pieces alike
        drift = _kelvin_gains(temperature + relight[0]) / kelvin * relight[1]
        cv2.multiply(img, (float(drift[0]), float(drift[1]), float(drift[2]), 0.0), dst=img)
    # glare on the glossy board
    if rng.random() < spec.glare:
        sw, sh = w // 8, h // 8
        glare = np.zeros((sh, sw), np.float32)
        for _ in range(rng.integers(1, 3)):
            cv2.circle(glare, (int(rng.uniform(0.1, 0.9) * sw), int(rng.uniform(0.1, 0.9) * sh)),
                       max(1, int(rng.uniform(0.03, 0.1) * sw)), 1.0, -1)
        glare = cv2.resize(cv2.GaussianBlur(glare, (0, 0), max(0.5, 0.03 * sw)), (w, h)) * (board_mask > 0)
        img += (rng.uniform(90, 170) * glare)[..., None]
    # occluders: hands and arms, dice, cards, a cup at the edge
    occ = np.zeros((h, w), np.uint8)
    if hand_poses is not None:
        n_hands = len(hand_poses)
        for pose in hand_poses:
            _draw_hand(img, occ, rng, w, h, pose)
    else:
        n_hands = hands if hands is not None else (int(rng.integers(1, 3)) if rng.random() < spec.hands else 0)
        for _ in range(n_hands):
            _draw_hand(img, occ, rng, w, h)
    hand_occ = occ.copy()       # the hands alone: a card or a cup over the board is no hand
    if video:       # the dice and cards lie where they lay, hands or not
        rng = np.random.default_rng([*seed_seq, SCENE_STREAM, 1])
    if rng.random() < spec.clutter:
        _draw_clutter(img, occ, rng, w, h, board_mask)
    # lens, focus, motion, sensor, compression
    if noise_seed is not None:
        rng = np.random.default_rng([noise_seed] if isinstance(noise_seed, int) else list(noise_seed))
    if cam.k1:
        mx, my = cam.distortion_maps()
        img = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        occ = cv2.remap(occ, mx, my, cv2.INTER_NEAREST)
        hand_occ = cv2.remap(hand_occ, mx, my, cv2.INTER_NEAREST)
    sigma = rng.uniform(*spec.defocus)
    if sigma > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    if rng.random() < spec.motion_blur:
        k = int(rng.integers(5, 12))
        kernel = np.zeros((k, k), np.float32)
        cv2.line(kernel, (0, k // 2), (k - 1, k // 2), 1.0, 1)
        M = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, M, (k, k))
        img = cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))
    level = rng.uniform(*spec.noise)
    noise = _noise(rng, h, w, level)        # drawn even for another frame: the stream stays the scene's
    if sensor_seed is not None:
        noise = _noise(np.random.default_rng([sensor_seed] if isinstance(sensor_seed, int) else list(sensor_seed)),
                       h, w, level)
    img += noise
    out = np.clip(img, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(*spec.jpeg))])
    out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    # ground truth
    pieces = []
    for i, p in enumerate(placed):
        uv = cam.distort_pixels(outlines[i])
        x0, y0 = np.clip(uv.min(axis=0), 0, [w - 1, h - 1])
        x1, y1 = np.clip(uv.max(axis=0), 0, [w - 1, h - 1])
        foot = cam.project(np.array([[p.x, p.y, -lift(p)]]))[0]
        box_occ = occ[int(y0):int(y1) + 1, int(x0):int(x1) + 1]
        pieces.append(PieceTruth(p.kind, p.colour, p.region, (p.x, p.y), (float(foot[0]), float(foot[1])),
                                 (float(x0), float(y0), float(x1), float(y1)),
                                 float((box_occ > 0).mean()) if box_occ.size else 1.0, p.track_box,
                                 p.lying is not None))
    corners = np.array([[0, 0, 0], [geo.size[0], 0, 0], [geo.size[0], geo.size[1], 0], [0, geo.size[1], 0]], float)
    if folded is not None:
        corners[:, 2] = -folded.height(corners[:, 0], corners[:, 1])
    corners = cam.project(corners)
    board_px = board_mask > 0

    def board_share(mask: np.ndarray) -> float:
        return float(((mask > 0) & board_px).sum() / max(1, board_px.sum()))

    occluded_regions = {}
    if occ.any():
        if folded is None:
            region_img = cv2.warpPerspective(geo.labels, H, (w, h), flags=cv2.INTER_NEAREST)
        else:
            region_img = cv2.remap(geo.labels, bx, by, cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT)
        if cam.k1:
            region_img = cv2.remap(region_img, *cam.distortion_maps(), cv2.INTER_NEAREST)
        hidden = np.bincount(region_img[occ > 0].ravel(), minlength=len(geo.region_ids) + 1)
        total = np.bincount(region_img.ravel(), minlength=len(geo.region_ids) + 1)
        occluded_regions = {geo.region_ids[i - 1]: float(hidden[i] / total[i])
                            for i in range(1, len(total)) if hidden[i] and total[i]}
    truth = GroundTruth(
        state=drawn_state, pieces=pieces, board_corners=[[round(float(a), 2) for a in c] for c in corners],
        homography=[[float(v) for v in row] for row in H], k1=float(cam.k1), hand_present=n_hands > 0,
        occluded_fraction=board_share(occ), occluded_regions=occluded_regions,
        tier=tier, seed=seed_seq, size=(w, h), jpeg=buf.tobytes(), occluder=occ, relief=float(relief),
        hand_fraction=board_share(hand_occ))
    return out, truth


@lru_cache(maxsize=1)
def _noise_tile() -> np.ndarray:
    """Unit Gaussian sensor noise, made once; each image reads it at a random offset."""
    rng = np.random.default_rng(7)
    return rng.normal(0, 1, (1200, 2048, 3)).astype(np.float32)


def _noise(rng: np.random.Generator, h: int, w: int, sigma: float) -> np.ndarray:
    tile = _noise_tile()
    if h > tile.shape[0] or w > tile.shape[1]:
        return rng.normal(0, sigma, (h, w, 3)).astype(np.float32)
    y, x = int(rng.integers(tile.shape[0] - h + 1)), int(rng.integers(tile.shape[1] - w + 1))
    return tile[y:y + h, x:x + w] * np.float32(sigma)


SKIN = [(150, 180, 230), (120, 160, 210), (90, 130, 190), (70, 100, 150), (50, 75, 110), (40, 60, 90)]


@dataclass(frozen=True)
class HandPose:
    """An arm from ``start`` (at the frame's edge) to the hand at ``tip``, in image pixels."""

    start: tuple[float, float]
    tip: tuple[float, float]
    width: float
    skin: int
    sleeve: tuple[float, float, float]


def sample_hand(rng: np.random.Generator, w: int, h: int, target: tuple[float, float] | None = None) -> HandPose:
    """A hand reaching in from an edge; towards ``target`` if given (the region being played)."""
    if target is None:
        edge = int(rng.integers(4))
        t = rng.uniform(0.15, 0.85)
        start = [(t * w, -0.05 * h), (1.05 * w, t * h), (t * w, 1.05 * h), (-0.05 * w, t * h)][edge]
        inward = np.array([[0, 1], [-1, 0], [0, -1], [1, 0]][edge], float)
        side = np.array([inward[1], -inward[0]])
        direction = inward + side * rng.uniform(-0.5, 0.5)
        direction /= np.linalg.norm(direction)
        tip = np.array(start) + direction * rng.uniform(0.25, 0.6) * (h if edge in (0, 2) else w)
    else:
        tx, ty = target
        edges = [(ty, (tx + rng.uniform(-0.1, 0.1) * w, -0.05 * h)), (w - tx, (1.05 * w, ty + rng.uniform(-0.1, 0.1) * h)),
                 (h - ty, (tx + rng.uniform(-0.1, 0.1) * w, 1.05 * h)), (tx, (-0.05 * w, ty + rng.uniform(-0.1, 0.1) * h))]
        start = min(edges, key=lambda e: e[0] + rng.uniform(0, 0.15) * w)[1]
        tip = np.array(target, float)
    return HandPose((float(start[0]), float(start[1])), (float(tip[0]), float(tip[1])), float(rng.uniform(0.05, 0.08) * w),
                    int(rng.integers(len(SKIN))), tuple(float(v) for v in rng.uniform(30, 200, 3)))


def _draw_hand(img: np.ndarray, occ: np.ndarray, rng: np.random.Generator, w: int, h: int,
               pose: HandPose | None = None) -> None:
    """An arm reaching in from an edge of the frame, ending in a hand with fingers."""
    pose = pose or sample_hand(rng, w, h)
    start, tip, width = np.array(pose.start), np.array(pose.tip), pose.width
    direction = tip - start
    direction /= max(1e-6, np.linalg.norm(direction))
    skin = np.float32(SKIN[pose.skin])
    perp = np.array([-direction[1], direction[0]])
    arm = np.array([start + perp * width * 0.6, tip + perp * width * 0.5,
                    tip - perp * width * 0.5, start - perp * width * 0.6])
    sleeve = np.float32(pose.sleeve)
    mid = start + (tip - start) * 0.45
    sleeve_poly = np.array([arm[0], mid + perp * width * 0.62, mid - perp * width * 0.62, arm[3]])
    layer = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(layer, np.round(arm).astype(np.int32), 255, cv2.LINE_AA)
    palm = tip + direction * width * 0.5
    cv2.ellipse(layer, (int(palm[0]), int(palm[1])), (int(width * 0.8), int(width * 0.6)),
                np.degrees(np.arctan2(direction[1], direction[0])), 0, 360, 255, -1, cv2.LINE_AA)
    for k in range(4):
        base = palm + direction * width * 0.5 + perp * width * (k - 1.5) * 0.35
        end = base + (direction + perp * (k - 1.5) * 0.12) * width * (0.75 + 0.1 * (k % 2))
        cv2.line(layer, tuple(np.round(base).astype(int)), tuple(np.round(end).astype(int)), 255,
                 max(2, int(width * 0.22)), cv2.LINE_AA)
    thumb_end = palm + perp * width * 1.0 - direction * width * 0.1
    cv2.line(layer, tuple(np.round(palm).astype(int)), tuple(np.round(thumb_end).astype(int)), 255,
             max(2, int(width * 0.25)), cv2.LINE_AA)
    alpha = layer.astype(np.float32)[..., None] / 255
    shading = (0.8 + 0.2 * np.linspace(0, 1, w)[None, :, None]).astype(np.float32)
    img[:] = img * (1 - alpha) + skin[None, None] * shading * alpha
    sl = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(sl, np.round(sleeve_poly).astype(np.int32), 255, cv2.LINE_AA)
    a2 = (sl.astype(np.float32) / 255)[..., None]
    img[:] = img * (1 - a2) + sleeve[None, None] * a2
    occ[(layer > 127) | (sl > 127)] = 255


def _draw_clutter(img: np.ndarray, occ: np.ndarray, rng: np.random.Generator, w: int, h: int,
                  board_mask: np.ndarray) -> None:
    """Dice, a card or two, a cup at the edge of the table."""
    for _ in range(rng.integers(0, 4)):                       # dice, red or blue
        c = np.array([rng.uniform(0.05, 0.95) * w, rng.uniform(0.05, 0.95) * h])
        s = rng.uniform(0.012, 0.02) * w
        a = rng.uniform(0, np.pi / 2)
        sq = np.array([[np.cos(a + k * np.pi / 2), np.sin(a + k * np.pi / 2)] for k in range(4)]) * s + c
        col = (40, 40, 200) if rng.random() < 0.5 else (200, 90, 40)
        cv2.fillConvexPoly(img, np.round(sq).astype(np.int32), col, cv2.LINE_AA)
        for _ in range(rng.integers(1, 7)):
            d = c + rng.uniform(-0.5, 0.5, 2) * s
            cv2.circle(img, (int(d[0]), int(d[1])), max(1, int(s * 0.12)), (235, 235, 235), -1, cv2.LINE_AA)
        cv2.fillConvexPoly(occ, np.round(sq).astype(np.int32), 255)
    if rng.random() < 0.5:                                     # a card
        c = np.array([rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h])
        a = rng.uniform(0, np.pi)
        u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
        cw, ch = 0.045 * w, 0.07 * w
        card = np.array([c + u * cw + v * ch, c - u * cw + v * ch, c - u * cw - v * ch, c + u * cw - v * ch])
        cv2.fillConvexPoly(img, np.round(card).astype(np.int32), (200, 215, 225), cv2.LINE_AA)
        cv2.circle(img, tuple(np.round(c).astype(int)), int(cw * 0.5), (60, 60, 140), 2, cv2.LINE_AA)
        cv2.fillConvexPoly(occ, np.round(card).astype(np.int32), 255)
    if rng.random() < 0.4:                                     # a cup at the edge
        edge_pt = [(rng.uniform(0, w), rng.uniform(-0.02, 0.05) * h), (rng.uniform(0, w), rng.uniform(0.95, 1.02) * h),
                   (rng.uniform(-0.02, 0.05) * w, rng.uniform(0, h)), (rng.uniform(0.95, 1.02) * w, rng.uniform(0, h))]
        cx, cy = edge_pt[rng.integers(4)]
        r = rng.uniform(0.05, 0.08) * w
        cv2.circle(img, (int(cx), int(cy)), int(r), (225, 225, 230), -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), int(r * 0.82), (30, 60, 90), -1, cv2.LINE_AA)
        cv2.circle(occ, (int(cx), int(cy)), int(r), 255, -1)


def calibration_render(truth: GroundTruth, art: np.ndarray | None = None) -> np.ndarray:
    """The photo the players take at calibration of the table ``truth`` describes: the same camera
    and light, the board empty, every player's marker on box 0, no hands. ``art``: the board's
    print, when the table was rendered on another than the procedural one."""
    return calibration_scene(truth, art)[0]


def calibration_scene(truth: GroundTruth, art: np.ndarray | None = None) -> tuple[np.ndarray, GroundTruth]:
    """:func:`calibration_render`'s photo and its own truth: where each score marker stands."""
    empty = ObservedState.from_dict({"regions": {}})
    return render(empty, truth.tier, seed=tuple(truth.seed), size=tuple(truth.size),
                  vp={c: 0 for c in truth.players}, hands=0, art=art, relief=truth.relief)
