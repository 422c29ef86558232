"""A pinhole webcam above the table, with radial lens distortion.

World coordinates are board units: X to the right of the board, Y down the board, Z into the
table (so a piece of height h has its top at Z = -h). The camera looks at a target point on
the board from a tilt (0 = straight down) and a yaw (rotation of the board in the image).
"""
from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from calibration.lens import distort_points, distortion_maps, distortion_scale


def _rx(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rz(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@dataclass(frozen=True)
class Camera:
    """Intrinsics, pose and distortion; :meth:`project` maps world points to image pixels."""

    width: int
    height: int
    focal: float
    R: np.ndarray          # world -> camera rotation
    t: np.ndarray          # world -> camera translation
    k1: float = 0.0        # radial distortion (negative: barrel, as most webcams)

    @classmethod
    def looking_at(cls, width: int, height: int, fov_deg: float, target: tuple[float, float],
                   distance: float, tilt_deg: float, yaw_deg: float, k1: float = 0.0) -> "Camera":
        focal = 0.5 * width / np.tan(np.radians(fov_deg) / 2)
        R = _rx(np.radians(tilt_deg)) @ _rz(np.radians(yaw_deg))
        centre = np.array([target[0], target[1], 0.0]) - R.T @ np.array([0.0, 0.0, distance])
        return cls(width, height, focal, R, -R @ centre, k1)

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.focal, 0, self.width / 2], [0, self.focal, self.height / 2], [0, 0, 1]])

    @property
    def centre(self) -> np.ndarray:
        return -self.R.T @ self.t

    def homography(self) -> np.ndarray:
        """Board plane (Z = 0, board units) -> undistorted image pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        return H / H[2, 2]

    def depth(self, pts: np.ndarray) -> np.ndarray:
        """Distance along the optical axis of world points (N x 3)."""
        return (np.asarray(pts, float) @ self.R.T + self.t)[:, 2]

    def project(self, pts: np.ndarray, distort: bool = True) -> np.ndarray:
        """World points (N x 3) -> image pixels (N x 2), with lens distortion applied."""
        cam = np.asarray(pts, float) @ self.R.T + self.t
        uv = cam[:, :2] / cam[:, 2:3]
        if distort and self.k1:
            uv = self._distort_normalised(uv * self.focal / self._norm()) * self._norm() / self.focal
        return uv * self.focal + np.array([self.width / 2, self.height / 2])

    def distort_pixels(self, px: np.ndarray) -> np.ndarray:
        """Undistorted image pixels -> distorted pixels (for points mapped with :meth:`homography`)."""
        return distort_points(px, (self.width, self.height), float(self.k1))

    # The model is defined in its inverse form, so that the image can be remapped exactly:
    # an output (distorted) pixel at normalised radius r_d samples the ideal image at
    # r_u = r_d (1 + k1 r_d^2). Points go the other way by a few Newton steps.
    def _norm(self) -> float:
        return float(np.hypot(self.width, self.height) / 2)

    def _distort_normalised(self, u: np.ndarray) -> np.ndarray:
        return u * distortion_scale(np.linalg.norm(u, axis=1, keepdims=True), self.k1)

    def distortion_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """cv2.remap maps that turn an ideal render into the distorted camera image."""
        return distortion_maps(self.width, self.height, float(self.k1))
