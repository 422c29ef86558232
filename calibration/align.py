"""Image alignment shared by the region-map tool and board localisation."""
from __future__ import annotations

import cv2
import numpy as np


def ecc_homography(template: np.ndarray, image: np.ndarray, blur: float, iterations: int,
                   eps: float) -> tuple[float, np.ndarray] | None:
    """The homography W with image(W x) ~ template(x), by OpenCV's ECC maximisation on blurred
    copies (robust to lighting and to the art's fine texture); None when it does not converge."""
    a = cv2.GaussianBlur(template.astype(np.float32), (0, 0), blur)
    b = cv2.GaussianBlur(image.astype(np.float32), (0, 0), blur)
    try:
        cc, W = cv2.findTransformECC(a, b, np.eye(3, dtype=np.float32), cv2.MOTION_HOMOGRAPHY,
                                     (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, iterations, eps), None, 5)
    except cv2.error:
        return None
    return float(cc), W.astype(np.float64)
