"""Draw the fitted board on a camera image, for a person to confirm the calibration."""
from __future__ import annotations

import cv2
import numpy as np

from calibration.localise import BoardPose
from vision.geometry import BoardGeometry


#: The tint laid over the parts of the map something hid in the calibration photo (BGR)...
COVERED_TINT = (0, 0, 255)
#: ...at this opacity.
COVERED_ALPHA = 0.45
#: The rings drawn where pieces were painted out of the calibration photo (BGR, magenta).
PAINTED_RING = (255, 0, 255)


def draw_overlay(image: np.ndarray, pose: BoardPose, geo: BoardGeometry, names: bool = True,
                 covered: np.ndarray | None = None, painted=(), painted_radius: float = 10.0) -> np.ndarray:
    """The image with the board outline (yellow), every region border (cyan) and region names;
    ``covered`` (a board-unit mask, :class:`calibration.covered.CoveredMap`) tinted red, so that the
    person sees where the photo did not show the map; ``painted`` (board points) ringed in magenta,
    ``painted_radius`` board units wide: the pieces painted out of the photo
    (:func:`calibration.pieces_on_map.paint_out_pieces`)."""
    out = image.copy()
    if len(painted):
        centres = pose.to_image(np.asarray(painted, np.float64))
        edge = pose.to_image(np.asarray(painted, np.float64) + [painted_radius, 0.0])
        for (x, y), r in zip(centres, np.hypot(*(edge - centres).T)):
            cv2.circle(out, (int(round(x)), int(round(y))), max(3, int(round(r))), PAINTED_RING, 2, cv2.LINE_AA)
    if covered is not None and covered.any():
        h, w = out.shape[:2]
        seen = cv2.warpPerspective(covered.astype(np.uint8) * 255, pose.H, (w, h), flags=cv2.INTER_NEAREST) > 0
        out[seen] = ((1 - COVERED_ALPHA) * out[seen] + COVERED_ALPHA * np.float32(COVERED_TINT)).astype(np.uint8)
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
