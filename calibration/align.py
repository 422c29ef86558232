"""Image alignment shared by the region-map tool and board localisation."""
from __future__ import annotations

import cv2
import numpy as np

#: The blur (Gaussian sigma, in pixels of the comparison view) under which board localisation
#: aligns a photo with the reference: it widens thin edges so that the alignment feels them from a
#: few pixels away.
ECC_BLUR = 1.5


def ecc_homography(template: np.ndarray, image: np.ndarray, blur: float, iterations: int,
                   eps: float, must_gain: bool = False, valid: np.ndarray | None = None,
                   ) -> tuple[float, np.ndarray] | None:
    """The homography W with image(W x) ~ template(x), by OpenCV's ECC maximisation on blurred
    copies (robust to lighting and to the art's fine texture); None when it does not converge, or
    (``must_gain``) when it ends no better correlated than the copies were as they stood.
    ``valid``: where ``image`` shows something (a boolean mask; None: everywhere), as where a
    board cut off by the camera's frame is in view; only those pixels are compared."""
    a = cv2.GaussianBlur(template.astype(np.float32), (0, 0), blur)
    b = cv2.GaussianBlur(image.astype(np.float32), (0, 0), blur)
    mask = None if valid is None else valid.astype(np.uint8)
    try:
        cc, W = cv2.findTransformECC(a, b, np.eye(3, dtype=np.float32), cv2.MOTION_HOMOGRAPHY,
                                     (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, iterations, eps), mask, 5)
    except cv2.error:
        return None
    if must_gain and cc <= cv2.computeECC(a, b, mask):
        return None
    return float(cc), W.astype(np.float64)


def edge_strength(gray: np.ndarray) -> np.ndarray:
    """How strong the grey image's edges are at each pixel (the Sobel gradient's magnitude after a
    slight blur), zero mean and unit spread: what two pictures of the same board share when their
    colours and shading do not (a camera frame and the calibration view of it, or a photo of the
    printed board and the procedural art, whose provinces are painted in other colours but
    outlined along the same borders).

    The magnitude is NumPy's, each operation rounded as IEEE float32 wherever the arrays lie in
    memory. OpenCV's ``cv2.magnitude`` (5.0.0) gives results that differ in the last bits with the
    16-byte alignment of its arrays, which moved from one call to the next: one calibration photo,
    calibrated three times in one process, gave two poses (a rendered hard table with an arm
    over the map: 55 and 54 regions right), and the same game could be read otherwise."""
    g = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 1.0)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
    mag = np.sqrt(gx * gx + gy * gy)
    return (mag - mag.mean()) / (mag.std() + 1e-6)


def edge_agreement(gray: np.ndarray, ref_edges: np.ndarray, valid: np.ndarray | None = None) -> float:
    """How well the grey image's edges agree with ``ref_edges`` (:func:`edge_strength` of a
    reference of the same size): their correlation, over the pixels ``valid`` only where given
    (see :func:`correlation`)."""
    return correlation(edge_strength(gray), ref_edges, valid)


def correlation(a: np.ndarray, b: np.ndarray, valid: np.ndarray | None = None) -> float:
    """The correlation of two images of the same size, each already of zero mean and unit spread
    (None ``valid``), or over the pixels ``valid`` alone, each normalised there: what can be
    compared of a view that shows only part of the board (the rest outside the camera's frame)."""
    if valid is None:
        return float((a * b).mean())
    a, b = a[valid].astype(np.float64), b[valid].astype(np.float64)
    if a.size < 2:
        return 0.0
    return float((((a - a.mean()) / (a.std() + 1e-6)) * ((b - b.mean()) / (b.std() + 1e-6))).mean())
