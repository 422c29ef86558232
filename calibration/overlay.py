"""Draw the fitted board on a camera image, for a person to confirm the calibration."""
from __future__ import annotations

import cv2
import numpy as np

from calibration.localise import BoardPose
from vision.geometry import BoardGeometry


def draw_overlay(image: np.ndarray, pose: BoardPose, geo: BoardGeometry, names: bool = True) -> np.ndarray:
    """The image with the board outline (yellow), every region border (cyan) and region names."""
    out = image.copy()
    for rid, rings in geo.polygons.items():
        for ring in rings:
            pts = pose.to_image(np.asarray(ring, np.float64))
            cv2.polylines(out, [np.round(pts).astype(np.int32)], True, (255, 255, 0), 1, cv2.LINE_AA)
    cv2.polylines(out, [np.round(pose.corners).astype(np.int32)], True, (0, 255, 255), 2, cv2.LINE_AA)
    if names:
        for rid, (x, y) in geo.label_points.items():
            px, py = pose.to_image(np.array([[x, y]]))[0]
            label = geo.board.name(rid)
            cv2.putText(out, label, (int(px) - 3 * len(label), int(py)), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 0), 3,
                        cv2.LINE_AA)
            cv2.putText(out, label, (int(px) - 3 * len(label), int(py)), cv2.FONT_HERSHEY_SIMPLEX, 0.35,
                        (255, 255, 255), 1, cv2.LINE_AA)
    return out
