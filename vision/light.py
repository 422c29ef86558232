"""The table's light drifts over an evening; each frame is brought back to the calibration's light.

The counting network compares every frame with the empty board the camera saw at calibration.
It was trained on frames and references lit alike (give or take 15 % of brightness), so a
change of light after calibration reads as a change everywhere: on the validation renders, a
frame dimmed to 0.6 of its calibration's brightness read 28 % of easy regions right instead of
99 %, and the same light turned from 5,500 to 3,500 K (a lamp switched on at dusk) 77 %. A
webcam's own automatic exposure and white balance move the frame's levels the same way.

Most of the board is bare in every frame, so the bare board itself says how the light moved:
each colour channel's median ratio, reference over frame, over the board's well-exposed pixels.
The pieces, hands and shadows on it are a minority and do not move a median. One gain per
channel, not a map: a gain that varied over the board, fitted the same way, followed the hands
and piles on hard tables and read fewer regions right than the plain medians.

The classical baseline compares frames with the same reference and is matched the same way (it
used to match the overall brightness only, which left a warmer light's colours as they came).
"""
from __future__ import annotations

import cv2
import numpy as np

#: Every STEP-th pixel along both axes is compared (a median over a 650,000-pixel crop's 40,000).
STEP = 4
#: A reference pixel darker than this in any channel is off the board (the reference is black
#: there) or too dark to compare; a pixel at or over SATURATED in either image has lost its level,
#: and a frame pixel at or under BLACK has too.
DARK = 20
SATURATED = 250
BLACK = 5
#: Fewer compared pixels than this (a frame almost all black or all blown out) and the frame is
#: left as it is.
MIN_PIXELS = 500
#: The gains stay within these bounds: past them the frame has lost too much to be read anyway.
GAIN_RANGE = (0.33, 3.0)
#: Gains all this close to one leave the frame as it is (the network was trained on frames 15 %
#: brighter or darker than their reference): the frame under the calibration's own light is
#: then read exactly as before, and the multiplication's time (about 1 ms) is saved.
SAME_LIGHT = 0.01
#: A gain past this factor (or under its inverse) in any channel is worth telling the players: the
#: frame is still matched, but a dimmer or warmer light costs accuracy the match cannot win back
#: (2,000 K warmer and 0.7 times as bright, gains of about 1.3 to 1.9: 3 points of hard regions).
NOTICE_GAIN = 1.5
CHANNELS = ("blue", "green", "red")


class LightMatch:
    """Brings frames of one view to the light of its ``reference`` (uint8 H x W x 3, black off
    the board). The reference's pixels to compare are picked once; a frame then costs about
    2 ms for a 650,000-pixel crop."""

    def __init__(self, reference: np.ndarray):
        self.shape = reference.shape
        sampled = reference[::STEP, ::STEP].reshape(-1, 3)
        lo, hi = sampled.min(axis=1), sampled.max(axis=1)
        self._at = np.flatnonzero((lo > DARK) & (hi < SATURATED))
        self._reference = np.ascontiguousarray(sampled[self._at].T, dtype=np.float32)     # 3 x n
        self.last: np.ndarray | None = None          # the gains of the last frame matched

    def gains(self, frame: np.ndarray) -> np.ndarray:
        """Per-channel gains (B, G, R) that bring ``frame`` to the reference's light: the median
        ratio, reference over frame, where both are well exposed."""
        if frame.shape != self.shape:
            raise ValueError(f"frame is {frame.shape}, the reference {self.shape}")
        f = frame[::STEP, ::STEP].reshape(-1, 3)[self._at].T                             # 3 x n
        lo = np.minimum(np.minimum(f[0], f[1]), f[2])
        hi = np.maximum(np.maximum(f[0], f[1]), f[2])
        ok = (lo > BLACK) & (hi < SATURATED)
        if ok.sum() < MIN_PIXELS:
            self.last = np.ones(3, np.float32)
        else:
            gains = np.median(self._reference[:, ok] / f[:, ok], axis=1)
            self.last = np.clip(gains, *GAIN_RANGE).astype(np.float32)
        return self.last

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        """``frame`` (uint8, the reference's shape) lit as the reference was."""
        g = self.gains(frame)
        if np.all(np.abs(g - 1) < SAME_LIGHT):
            return frame
        return cv2.multiply(frame, (float(g[0]), float(g[1]), float(g[2]), 0.0))


def light_notice(gains: np.ndarray) -> str:
    """A line for the players when the light has moved far from the calibration's (see
    NOTICE_GAIN), or "" when it has not."""
    far = [f"{name} x{g:.1f}" for name, g in zip(CHANNELS, gains) if not 1 / NOTICE_GAIN <= g <= NOTICE_GAIN]
    if not far:
        return ""
    return (f"the light has changed a lot since calibration ({', '.join(far)} to match it): "
            "calibrate again if the counts go wrong")
