"""Fit the S.P.Q.RisiKo! region map to a photo of a real board, and write the committed geometry.

The printed board has no machine-readable map, so the geometry is derived with this tool:

1. :func:`segment_colour_map` turns a flat-colour drawing of the provinces (one colour per
   province, one colour for all water, dotted lines between sea areas) into a label image,
   seeding each region at its label point (``label_xy`` in the board topology).
2. :func:`register_to_photo` finds the homography from the drawing to a top-down photo of the
   board by aligning their water masks (OpenCV's ECC maximisation), starting from the map
   rectangle. The same step fits the map to a user's own print of the board.
3. :func:`measure_board` finds the board outline and the 41 victory-point boxes in the photo.
4. :func:`build_geometry` puts it together in *board units* (the board is 1000 units tall) and
   :func:`write_geometry` writes ``vision/data/<board>_regions.png`` (a label image, value =
   region index) and ``vision/data/<board>_geometry.json`` (region index, track boxes, polygons).

Run ``augur regionmap build`` (defaults to the shared reference files) to regenerate them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.align import ecc_homography
from tracker.board import Board
from tracker.errors import AugurError
from vision.image_file import UnreadableImage, read_image

#: Board units: the board is this many units tall; width follows its measured aspect ratio.
BOARD_HEIGHT_UNITS = 1000
#: How far a label may be from the region colour it names before the drawing is rejected.
MAX_SEED_DISTANCE = 30.0
#: Colours closer than this (Lab distance) are one colour class (the drawing reuses colours).
SAME_COLOUR = 8.0
TRACK_BOXES = 41


class RegionMapError(AugurError):
    """The drawing or the photo does not fit the board."""


@dataclass(frozen=True)
class BoardMeasure:
    """What :func:`measure_board` found in a photo (photo pixels, north up)."""

    corners: np.ndarray        # 4x2 board corners TL, TR, BR, BL
    track_boxes: list[tuple[float, float, float, float]]   # x0, y0, x1, y1 of boxes 0..40


def _lab(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)


def _seed(lab: np.ndarray, uniform: np.ndarray, water: np.ndarray, x: int, y: int,
          r: int = 25) -> tuple[tuple[int, int], np.ndarray]:
    """The province colour nearest a label point, and where it is.

    Label points of the reference can fall on a border line, on the pale halo around an island,
    or just off a small island into the water, so the seed is the nearest pixel of a uniform
    colour that is neither ink, halo nor water."""
    y0, x0 = max(0, y - r), max(0, x - r)
    patch = lab[y0:y + r + 1, x0:x + r + 1]
    ok = ((patch[..., 0] > 40) & (patch[..., 0] < 235) & uniform[y0:y + r + 1, x0:x + r + 1]
          & (np.linalg.norm(patch - water, axis=2) > 25))
    if not ok.any():
        raise RegionMapError(f"no region colour near the label point ({x}, {y})")
    ys, xs = np.nonzero(ok)
    k = np.argmin((ys + y0 - y) ** 2 + (xs + x0 - x) ** 2)
    px, py = int(xs[k] + x0), int(ys[k] + y0)
    return (px, py), np.median(lab[py - 1:py + 2, px - 1:px + 2].reshape(-1, 3), axis=0)


def segment_colour_map(drawing: np.ndarray, board: Board) -> tuple[np.ndarray, dict[str, tuple[int, int]]]:
    """Label image of the drawing (0 outside the empire, ``i + 1`` for ``board.regions`` in order)
    and, per region, a point inside it near its printed label."""
    h, w = drawing.shape[:2]
    ids = list(board.regions)
    lab = cv2.GaussianBlur(_lab(drawing), (3, 3), 0)
    pts = {rid: (min(w - 1, int(round(board.regions[rid].label_xy[0] * (w - 1)))),
                 min(h - 1, int(round(board.regions[rid].label_xy[1] * (h - 1))))) for rid in ids}
    water = np.median([lab[pts[s][1], pts[s][0]] for s in board.seas], axis=0)
    mean = cv2.blur(lab, (3, 3))
    spread = cv2.blur((lab - mean) ** 2, (3, 3)).sum(axis=2)
    # interior of flat colour areas (2 px from any edge), so seeds survive the clean-up below
    uniform = cv2.erode((spread < 30.0).astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    seeds = {s: water for s in board.seas}
    for p in board.provinces:
        pts[p], seeds[p] = _seed(lab, uniform, water, *pts[p])
    # Colour classes: provinces with (nearly) the same colour share one.
    classes: list[tuple[np.ndarray, list[str]]] = [(water, list(board.seas))]
    for p in board.provinces:
        for colour, members in classes[1:]:
            if np.linalg.norm(colour - seeds[p]) < SAME_COLOUR:
                members.append(p)
                break
        else:
            classes.append((seeds[p], [p]))
    centres = np.stack([c for c, _ in classes])
    dist = np.linalg.norm(lab[:, :, None, :] - centres[None, None], axis=3)
    nearest = dist.argmin(axis=2)
    close = dist.min(axis=2) < MAX_SEED_DISTANCE
    labels = np.zeros((h, w), np.int32)
    index = {rid: i + 1 for i, rid in enumerate(ids)}
    # Provinces: connected pieces of each colour class, given to the nearest label of that class.
    for k, (_, members) in enumerate(classes[1:], start=1):
        mask = ((nearest == k) & close).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, comp, stats, cent = cv2.connectedComponentsWithStats(mask, connectivity=4)
        for c in range(1, n):
            if stats[c, cv2.CC_STAT_AREA] < 12:
                continue
            owner = None
            inside = [m for m in members if comp[pts[m][1], pts[m][0]] == c]
            if inside:
                owner = inside[0]
            else:
                d = {m: np.hypot(*(np.array(pts[m]) - cent[c])) for m in members}
                m = min(d, key=d.get)
                if d[m] < 0.08 * w:      # detached pieces of an island group, say
                    owner = m
            if owner:
                labels[comp == c] = index[owner]
    # Seas: the water, cut along the dotted borders, each piece named by the label inside it.
    water_mask = ((nearest == 0) & close).astype(np.uint8)
    dots = ((~close) | (nearest != 0)).astype(np.uint8) & cv2.dilate(water_mask, np.ones((9, 9), np.uint8))
    barrier = cv2.dilate(dots, np.ones((5, 5), np.uint8))
    open_water = water_mask & (1 - barrier)
    n, comp = cv2.connectedComponents(open_water, connectivity=4)
    for s in board.seas:
        c = comp[pts[s][1], pts[s][0]]
        if c == 0:
            raise RegionMapError(f"the label of sea area '{s}' does not fall on open water in the drawing")
        labels[(comp == c) & (labels == 0)] = index[s]
    # Everything else that is not outside the empire goes to the nearest labelled pixel: borders,
    # dotted lines, water slivers. Outside the empire = large areas of the darkest colour.
    dark = (lab[..., 0] < 25).astype(np.uint8)
    n, comp, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=4)
    outside = np.isin(comp, [c for c in range(1, n) if stats[c, cv2.CC_STAT_AREA] > 0.002 * h * w])
    unknown = (labels == 0) & ~outside
    if unknown.any():
        _, (iy, ix) = _nearest_labelled(labels)
        labels[unknown] = labels[iy[unknown], ix[unknown]]
    lost = [rid for rid in ids if labels[pts[rid][1], pts[rid][0]] != index[rid]]
    if lost:
        raise RegionMapError(f"region(s) {', '.join(lost)} could not be traced from their label points")
    return labels, pts


def _nearest_labelled(labels: np.ndarray):
    from scipy import ndimage
    return ndimage.distance_transform_edt(labels == 0, return_indices=True)


def water_mask_of_photo(photo: np.ndarray) -> np.ndarray:
    """Pale blue sea of the printed board (hue about 200°, low saturation, bright)."""
    hsv = cv2.cvtColor(photo, cv2.COLOR_BGR2HSV)
    m = (hsv[..., 0] >= 90) & (hsv[..., 0] <= 112) & (hsv[..., 1] >= 25) & (hsv[..., 1] <= 170) & (hsv[..., 2] >= 140)
    m = cv2.morphologyEx(m.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    return m


def register_to_photo(labels: np.ndarray, board: Board, photo: np.ndarray, map_rect: np.ndarray,
                      work_width: int = 1000) -> np.ndarray:
    """Homography from drawing pixels to photo pixels, refined from ``map_rect`` (TL, TR, BR, BL in the photo)."""
    h, w = labels.shape
    src = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    H0 = cv2.getPerspectiveTransform(src, np.float32(map_rect))
    scale = work_width / photo.shape[1]
    S = np.diag([scale, scale, 1.0])
    sea_ids = np.array([i + 1 for i, rid in enumerate(board.regions) if board.is_sea(rid)])
    template = np.isin(labels, sea_ids).astype(np.float32)
    target = water_mask_of_photo(cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA))
    size = (target.shape[1], target.shape[0])
    # ECC aligns the warped drawing (template) with the photo: warp the template into photo space
    # with the initial guess, then estimate the residual homography there.
    init = (S @ H0).astype(np.float32)
    warped = cv2.warpPerspective(template, init, size, flags=cv2.INTER_LINEAR)
    found = ecc_homography(target, warped, 3, 200, 1e-6)
    if found is None:
        raise RegionMapError("the region map could not be aligned with the photo")
    residual = found[1]
    # ECC gives residual with a(x) ~ b(residual x): drawing -> photo = S^-1 . residual^-1 . S . H0
    return np.linalg.inv(S) @ np.linalg.inv(residual) @ S @ H0


def measure_board(photo: np.ndarray) -> BoardMeasure:
    """Board outline and the 41 score boxes in a top-down photo already turned north up."""
    h, w = photo.shape[:2]
    hsv = cv2.cvtColor(photo, cv2.COLOR_BGR2HSV)
    # The board's frame is printed red; the table around it is not.
    red = (((hsv[..., 0] < 10) | (hsv[..., 0] > 165)) & (hsv[..., 1] > 90) & (hsv[..., 2] > 60)).astype(np.uint8)
    red = cv2.morphologyEx(red, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8))
    cnts, _ = cv2.findContours(red, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not cnts:
        raise RegionMapError("no board frame found in the photo")
    big = max(cnts, key=cv2.contourArea)
    if cv2.contourArea(big) < 0.5 * h * w:
        raise RegionMapError("the board frame covers too little of the photo")
    rect = cv2.boxPoints(cv2.minAreaRect(big))
    corners = _order_corners(rect)
    # Score boxes: bright cream/yellow cells in the bottom fifth.
    y0 = int(0.78 * h)
    strip = hsv[y0:, :]
    light = ((strip[..., 2] > 185) & (strip[..., 1] < 140)).astype(np.uint8)
    rows = light.mean(axis=1)
    band = np.where(rows > 0.5)[0]
    if band.size == 0:
        raise RegionMapError("the victory-point track was not found")
    top, bottom = y0 + band.min(), y0 + band.max()
    cols = light[band.min():band.max() + 1].mean(axis=0)
    inside = cols > 0.6
    edges = np.flatnonzero(np.diff(inside.astype(np.int8)))
    runs = [(a + 1, b) for a, b in zip(edges[::2], edges[1::2])] if inside[0] == 0 else []
    runs = [r for r in runs if r[1] - r[0] > 0.004 * w]
    if len(runs) != TRACK_BOXES:
        raise RegionMapError(f"found {len(runs)} score boxes, expected {TRACK_BOXES}")
    boxes = [(float(a), float(top), float(b), float(bottom)) for a, b in runs]
    return BoardMeasure(corners, boxes)


def _order_corners(pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, np.float64)
    s, d = pts.sum(1), np.diff(pts, axis=1).ravel()
    return np.array([pts[s.argmin()], pts[d.argmin()], pts[s.argmax()], pts[d.argmax()]])


def build_geometry(drawing: np.ndarray, photo: np.ndarray, board: Board, map_rect_guess: np.ndarray | None = None):
    """Label image in board units plus the metadata dict (see module doc)."""
    labels, points = segment_colour_map(drawing, board)
    measure = measure_board(photo)
    if map_rect_guess is None:
        c = measure.corners
        # the map sits inside the frame above the track: a first guess the registration refines
        tl, tr, br, bl = c
        track_top = min(b[1] for b in measure.track_boxes)
        inset = 0.012 * (tr[0] - tl[0])
        map_rect_guess = np.array([[tl[0] + inset, tl[1] + inset], [tr[0] - inset, tr[1] + inset],
                                   [tr[0] - inset, track_top - 1.4 * inset], [tl[0] + inset, track_top - 1.4 * inset]])
    H_photo = register_to_photo(labels, board, photo, map_rect_guess)
    # photo -> board units: the board outline becomes an axis-aligned rectangle
    c = measure.corners
    width_px = np.linalg.norm(c[1] - c[0])
    height_px = np.linalg.norm(c[3] - c[0])
    bw = BOARD_HEIGHT_UNITS * width_px / height_px
    B = cv2.getPerspectiveTransform(np.float32(c), np.float32([[0, 0], [bw, 0], [bw, BOARD_HEIGHT_UNITS],
                                                              [0, BOARD_HEIGHT_UNITS]]))
    H = B @ H_photo
    size = (int(round(bw)), BOARD_HEIGHT_UNITS)
    board_labels = cv2.warpPerspective(labels.astype(np.uint8), H, size, flags=cv2.INTER_NEAREST,
                                       borderValue=0)
    h, w = labels.shape
    map_quad = cv2.perspectiveTransform(np.float32([[[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]]), H)[0]
    boxes = []
    for (x0, y0, x1, y1) in measure.track_boxes:
        q = cv2.perspectiveTransform(np.float32([[[x0, y0], [x1, y1]]]), B)[0]
        boxes.append([round(float(v), 1) for v in (*q[0], *q[1])])
    meta = {
        "board": board.id,
        "units": "board units; the board is 1000 units tall",
        "size": [size[0], size[1]],
        "regions": list(board.regions),
        "label_image_note": "pixel value i+1 is regions[i]; 0 is outside the empire, the frame and the track",
        "map_quad": [[round(float(x), 1), round(float(y), 1)] for x, y in map_quad],
        "drawing_to_board": [[float(v) for v in row] for row in H],
        "track_boxes": boxes,
        "label_points": {rid: [round(float(v), 1) for v in
                               cv2.perspectiveTransform(np.float32([[points[rid]]]), H)[0, 0]] for rid in board.regions},
    }
    meta["label_points"] = interior_label_points(board_labels, list(board.regions), meta["label_points"])
    meta["polygons"] = region_polygons(board_labels, list(board.regions))
    return board_labels, meta


def interior_label_points(labels: np.ndarray, ids: list[str], near: dict[str, list[float]]) -> dict[str, list[float]]:
    """A point well inside each region, close to where its name is printed: the pixel that
    maximises (distance to the region's edge) minus a little of (distance to the printed label).
    Vision and the dashboard anchor per-region marks there, so it must survive small pose errors."""
    out = {}
    for i, rid in enumerate(ids, start=1):
        mask = (labels == i).astype(np.uint8)
        dt = cv2.distanceTransform(np.pad(mask, 1), cv2.DIST_L2, 5)[1:-1, 1:-1]
        ys, xs = np.nonzero(mask)
        nx, ny = near[rid]
        score = dt[ys, xs] - 0.15 * np.hypot(xs - nx, ys - ny)
        k = int(np.argmax(score))
        out[rid] = [float(xs[k]), float(ys[k])]
    return out


def region_polygons(labels: np.ndarray, ids: list[str], epsilon: float = 1.2) -> dict[str, list]:
    """Simplified outlines of every region (a list of rings; islands and island groups have several)."""
    out = {}
    for i, rid in enumerate(ids, start=1):
        mask = (labels == i).astype(np.uint8)
        cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        rings = []
        for c in sorted(cnts, key=cv2.contourArea, reverse=True):
            if cv2.contourArea(c) < 4:
                continue
            approx = cv2.approxPolyDP(c, epsilon, True)[:, 0, :]
            rings.append([[int(x), int(y)] for x, y in approx])
        out[rid] = rings
    return out


def write_geometry(labels: np.ndarray, meta: dict, out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    png = out_dir / f"{meta['board']}_regions.png"
    js = out_dir / f"{meta['board']}_geometry.json"
    cv2.imwrite(str(png), labels, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    js.write_text(json.dumps(meta, separators=(",", ":")) + "\n", encoding="utf-8")
    return png, js


def load_north_up_photo(path: Path, rotate: str = "ccw") -> np.ndarray:
    try:
        img = read_image(path)
    except UnreadableImage as exc:
        raise RegionMapError(str(exc)) from None
    codes = {"ccw": cv2.ROTATE_90_COUNTERCLOCKWISE, "cw": cv2.ROTATE_90_CLOCKWISE, "180": cv2.ROTATE_180}
    return cv2.rotate(img, codes[rotate]) if rotate in codes else img
