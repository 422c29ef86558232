"""Image alignment shared by the region-map tool and board localisation."""
from __future__ import annotations

import cv2
import numpy as np

#: The blur (Gaussian sigma, in pixels of the comparison view) under which board localisation
#: aligns a photo with the reference: it widens thin edges so that the alignment feels them from a
#: few pixels away.
ECC_BLUR = 1.5


def ecc_homography(template: np.ndarray, image: np.ndarray, blur: float, iterations: int,
                   eps: float, must_gain: bool = False) -> tuple[float, np.ndarray] | None:
    """The homography W with image(W x) ~ template(x), by OpenCV's ECC maximisation on blurred
    copies (robust to lighting and to the art's fine texture); None when it does not converge, or
    (``must_gain``) when it ends no better correlated than the copies were as they stood."""
    a = cv2.GaussianBlur(template.astype(np.float32), (0, 0), blur)
    b = cv2.GaussianBlur(image.astype(np.float32), (0, 0), blur)
    try:
        cc, W = cv2.findTransformECC(a, b, np.eye(3, dtype=np.float32), cv2.MOTION_HOMOGRAPHY,
                                     (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, iterations, eps), None, 5)
    except cv2.error:
        return None
    if must_gain and cc <= cv2.computeECC(a, b):
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


def edge_agreement(gray: np.ndarray, ref_edges: np.ndarray) -> float:
    """How well the grey image's edges agree with ``ref_edges`` (:func:`edge_strength` of a
    reference of the same size): their correlation."""
    return float((edge_strength(gray) * ref_edges).mean())
