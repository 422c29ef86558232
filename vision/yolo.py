"""The trained piece detector at run time: YOLO11n exported to ONNX, run with onnxruntime.

No torch is needed. The frame is cut into 320x320 tiles at native resolution (only the tiles
that show the board), the tiles go through the network in one batch, boxes are merged with
non-maximum suppression, and each box becomes a footprint on the board: the point of the box
nearest the camera's nadir, where a standing piece touches the board.
"""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from calibration.lens import undistort
from calibration.localise import BoardPose
from tracker.errors import AugurError
from vision.classes import CLASSES
from vision.onnx_models import onnx_session
from vision.records import Detections
from vision.train import TILE, tile_origins

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DEFAULT_MODEL = MODELS_DIR / "pieces-yolo11n-320.onnx"
SCORE_THRESHOLD = 0.35
NMS_IOU = 0.5


def camera_nadir(H: np.ndarray, size: tuple[int, int]) -> np.ndarray | None:
    """Image point straight below the camera, from the board homography (square pixels, principal
    point at the image centre); None when the camera looks straight down (use the box centres)."""
    w, h = size
    T = np.array([[1, 0, -w / 2], [0, 1, -h / 2], [0, 0, 1.0]])
    G = T @ H
    G = G / np.linalg.norm(G[:, 0])
    g31, g32 = G[2, 0], G[2, 1]
    # Two constraints give the focal length: the first two rotation columns are orthogonal, and
    # of equal length. Either degenerates for some poses (a tilt about a board axis zeroes g31 * g32).
    candidates = []
    if abs(g31 * g32) > 1e-14:
        candidates.append((abs(g31 * g32), -(G[0, 0] * G[0, 1] + G[1, 0] * G[1, 1]) / (g31 * g32)))
    if abs(g32 ** 2 - g31 ** 2) > 1e-14:
        candidates.append((abs(g32 ** 2 - g31 ** 2),
                           (G[0, 0] ** 2 + G[1, 0] ** 2 - G[0, 1] ** 2 - G[1, 1] ** 2) / (g32 ** 2 - g31 ** 2)))
    candidates = [(w, f2) for w, f2 in candidates if np.isfinite(f2) and f2 > 0]
    if not candidates or max(w for w, _ in candidates) < 1e-12:
        return None
    f2 = max(candidates)[1]
    K = np.diag([np.sqrt(f2), np.sqrt(f2), 1.0])
    M = np.linalg.inv(K) @ G
    lam = 1 / np.linalg.norm(M[:, 0])
    r1, r2, t = M[:, 0] * lam, M[:, 1] * lam, M[:, 2] * lam
    if t[2] < 0:
        r1, r2, t = -r1, -r2, -t
    R = np.column_stack([r1, r2, np.cross(r1, r2)])
    C = -R.T @ t
    nadir = H @ np.array([C[0], C[1], 1.0])
    return nadir[:2] / nadir[2] if abs(nadir[2]) > 1e-9 else None


class YoloDetector:
    name = "yolo11n-onnx"

    def __init__(self, pose: BoardPose, image_size: tuple[int, int], model: Path = DEFAULT_MODEL, threads: int = 2,
                 k1: float = 0.0):
        """``pose`` is for frames undistorted with the lens coefficient ``k1`` (the calibration's)."""
        self.k1 = k1
        if not Path(model).is_file():
            raise AugurError(f"no trained detector at {model} (train one with augur train, or use the classical "
                             "detector)")
        self.session = onnx_session(Path(model).resolve(), threads, AugurError, "trained detector")
        self.input = self.session.get_inputs()[0].name
        self.pose = pose
        self.size = image_size
        card = Path(model).with_suffix(".json")
        self.card = json.loads(card.read_text()) if card.is_file() else {}
        w, h = image_size
        quad = np.float32(pose.corners)
        self.origins = []
        for x, y in tile_origins(w, h):
            rect = np.float32([[x, y], [x + TILE, y], [x + TILE, y + TILE], [x, y + TILE]])
            if cv2.intersectConvexConvex(quad, rect)[0] > 0.02 * TILE * TILE:
                self.origins.append((x, y))
        self.nadir = camera_nadir(pose.H, image_size)

    def raw(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Boxes (x0, y0, x1, y1 in the frame), scores and class indices after NMS."""
        tiles = np.stack([image[y:y + TILE, x:x + TILE] for x, y in self.origins])
        batch = tiles[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        out = self.session.run(None, {self.input: np.ascontiguousarray(batch)})[0]   # B x (4+nc) x A
        boxes, scores, classes = [], [], []
        for (x, y), pred in zip(self.origins, out):
            p = pred.T
            cls = p[:, 4:].argmax(axis=1)
            sc = p[np.arange(len(p)), 4 + cls]
            keep = sc > SCORE_THRESHOLD
            cx, cy, bw, bh = p[keep, 0] + x, p[keep, 1] + y, p[keep, 2], p[keep, 3]
            boxes.append(np.column_stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]))
            scores.append(sc[keep])
            classes.append(cls[keep])
        if not boxes:
            return np.zeros((0, 4)), np.zeros(0), np.zeros(0, int)
        b, s, c = np.vstack(boxes), np.concatenate(scores), np.concatenate(classes)
        if not len(b):
            return b, s, c
        xywh = np.column_stack([b[:, 0], b[:, 1], b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]])
        idx = cv2.dnn.NMSBoxesBatched(xywh.tolist(), s.tolist(), c.tolist(), SCORE_THRESHOLD, NMS_IOU)
        idx = np.array(idx, int).reshape(-1)
        return b[idx], s[idx], c[idx]

    def footprints(self, boxes: np.ndarray) -> np.ndarray:
        centres = np.column_stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2])
        if self.nadir is None or not len(boxes):
            return centres
        u = self.nadir[None] - centres
        u /= np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-6)
        half = 0.5 * (np.abs(u[:, 0]) * (boxes[:, 2] - boxes[:, 0]) + np.abs(u[:, 1]) * (boxes[:, 3] - boxes[:, 1]))
        base = 0.5 * np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
        return centres + u * np.maximum(0.0, half - base)[:, None]

    def detect(self, image: np.ndarray) -> Detections:
        boxes, scores, classes = self.raw(undistort(image, self.k1))
        if not len(boxes):
            return Detections.empty(self.name)
        feet = self.pose.to_board(self.footprints(boxes))
        kinds = tuple(CLASSES[c][0] for c in classes)
        colours = tuple(CLASSES[c][1] for c in classes)
        return Detections(feet, kinds, colours, np.asarray(scores, float), boxes, self.name)
