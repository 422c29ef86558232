"""One photo of the empty board made from several taken from the same place.

The calibration keeps its photo as the empty board the counting network compares every frame
with (``CalibrationProfile.reference``), so a hand or an arm over the map in that photo is read
against for the whole evening (session 75: an arm over the map cost the game photos of 16 hard
tables 843 -> 742 regions right). A hand passing through a few of several frames is no part of
the table: the median of each pixel over the frames is the board under it, as long as the hand
covers that pixel in fewer than half of them. Three frames are the fewest that can outvote one
covered one; the camera path takes more, spread over a few seconds
(:func:`vision.frames.still_frames`).

The photo kept is still one of them, not the median itself: the one least unlike the median,
with the median put in only where it differs from it (a hand). The counting network was trained
on references with one photo's sensor noise, and a median of nine is smoother: on 56 rendered
tables, calibrations on the plain median of nine clean frames read 9 regions fewer right than
on one of the frames (25 tables of 56 read otherwise, 16 of them worse).

Photos given as files may have been taken from a camera moved a little between them: each is
brought onto the first by the homography of the features they share (the board is flat), and
left untouched when that homography moves no board corner by a pixel (frames of a fixed
camera, where warping would only blur them). Each is then brought to the first's light
(:class:`vision.light.LightMatch`): a webcam's automatic exposure brightens the whole frame
when a dark arm comes in, and a median over photos lit otherwise would take the board under
the hand from a brighter or darker photo than the board around it, a patch the counter would
see as a change for the whole game.
"""
from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from tracker.errors import AugurError
from vision.light import LightMatch

#: The fewest photos a median can take a passing hand out of: with two, a pixel covered in one
#: of them is the mean of hand and board.
FEWEST = 3

#: Features sought in each photo to bring it onto the first (ORB, OpenCV's default scoring).
FEATURES = 4000

#: Matched features the homography must keep (RANSAC inliers), below which the photos are taken
#: not to show the same table from nearly the same place.
INLIERS_NEEDED = 60

#: A homography that moves no corner of the matched features' bounding box further than this
#: (pixels) is the identity: the frames came from a camera that did not move, and are used as
#: they are. (The photo's own corners lie beyond the features, where a sub-pixel error of the
#: fit grows.)
STILL_CAMERA_PX = 1.0

#: A pixel of a photo that differs from the median by more than this (0-255, in any channel)
#: shows something most photos do not (sensor noise stays within a few levels)...
DIFFERS = 30
#: ...and so do those within this many pixels of it (a hand's soft edge and shadow).
AROUND = 5

#: The most a photo may be moved onto the first (pixels at a corner, as a share of the photo's
#: diagonal). Farther, the two were not taken from the same place, and the map fitted to the
#: composed photo would fit neither.
MOST_MOVED = 0.05


class NotTheSamePlace(AugurError):
    """The photos to compose do not show the table from the same place."""


def composed_photo(photos: Sequence[np.ndarray]) -> np.ndarray:
    """One of ``photos``, the median of all of them put in where it shows something the median
    does not (one alone is returned as it is); each is first brought onto the first
    (:func:`onto_first`) and to its light. Raises NotTheSamePlace for none or two photos,
    for photos of other sizes, and for one that cannot be brought onto the first."""
    if len(photos) == 1:
        return photos[0]
    if len(photos) < FEWEST:
        raise NotTheSamePlace(f"give one photo of the empty board, or {FEWEST} or more taken from the same place "
                              "(with two, a hand in one of them is only half taken out)")
    first = photos[0]
    for k, photo in enumerate(photos[1:], start=2):
        if photo.shape != first.shape:
            raise NotTheSamePlace(f"photo {k} is {photo.shape[1]}x{photo.shape[0]}, photo 1 "
                                  f"{first.shape[1]}x{first.shape[0]}: take them all with the same camera")
    light = LightMatch(first)
    # The photos as they are wherever the camera did not move and the light did not change: no
    # copy of nine 4K frames (225 MB) beside the nine the caller holds.
    aligned = [first] + [light(onto_first(first, photo, k)) for k, photo in enumerate(photos[1:], start=2)]
    median = _median(aligned)
    k = int(np.argmin([_unlike(photo, median).sum() for photo in aligned]))
    unlike = _unlike(aligned[k], median)
    kept = aligned[k].copy()
    kept[unlike] = median[unlike]
    return kept


#: Rows of the photos whose median is taken at once (see :func:`_median`).
MEDIAN_ROWS = 128


def _median(photos: Sequence[np.ndarray], rows: int = MEDIAN_ROWS) -> np.ndarray:
    """The per-pixel median of photos of one size (uint8), rounded to uint8, a band of ``rows``
    rows at a time. Why: ``np.median`` sorts a copy of the whole stack and answers in float64;
    for nine 4K frames of a phone's film (``augur calibrate --video``) that was some 640 MB more
    at once (1.03 GB peak), where a band of rows takes a few."""
    out = np.empty(photos[0].shape, np.uint8)
    for y in range(0, photos[0].shape[0], rows):
        out[y:y + rows] = np.median(np.stack([photo[y:y + rows] for photo in photos]), axis=0).round()
    return out


def _unlike(photo: np.ndarray, median: np.ndarray) -> np.ndarray:
    """Where ``photo`` shows something the median does not (see DIFFERS, AROUND): a boolean mask."""
    off = cv2.absdiff(photo, median).max(axis=2) > DIFFERS
    off = cv2.morphologyEx(off.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))     # not noise specks
    return cv2.dilate(off, np.ones((2 * AROUND + 1, 2 * AROUND + 1), np.uint8)) > 0


def onto_first(first: np.ndarray, photo: np.ndarray, number: int = 2) -> np.ndarray:
    """``photo`` warped onto ``first`` by the homography of their matched ORB features, or as it
    is when that moves no corner of what matched by STILL_CAMERA_PX. ``number``: the photo's
    place, for the error."""
    h, w = first.shape[:2]
    H, box = _homography(first, photo)
    if H is None:
        raise NotTheSamePlace(f"photo {number} does not show the table as photo 1 does: take every photo from the "
                              "same place")
    x0, y0, x1, y1 = box
    corners = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).reshape(-1, 1, 2)
    moved = float(np.abs(cv2.perspectiveTransform(corners, H) - corners).max())
    if moved <= STILL_CAMERA_PX:
        return photo
    if moved > MOST_MOVED * np.hypot(w, h):
        raise NotTheSamePlace(f"photo {number} was taken from another place than photo 1 (moved by {moved:.0f} "
                              "pixels): take every photo from the same place")
    return cv2.warpPerspective(photo, H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _homography(first: np.ndarray, photo: np.ndarray) -> tuple[np.ndarray | None, tuple]:
    """The homography taking ``photo``'s pixels onto ``first``'s and the bounding box (x0, y0,
    x1, y1) of the features that agree on it in ``photo``, or (None, ()) when too few do."""
    orb = cv2.ORB_create(FEATURES)
    kp1, des1 = orb.detectAndCompute(_grey(first), None)
    kp2, des2 = orb.detectAndCompute(_grey(photo), None)
    if des1 is None or des2 is None or len(kp1) < INLIERS_NEEDED or len(kp2) < INLIERS_NEEDED:
        return None, ()
    matches = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True).match(des2, des1)
    if len(matches) < INLIERS_NEEDED:
        return None, ()
    src = np.float32([kp2[m.queryIdx].pt for m in matches]).reshape(-1, 1, 2)
    dst = np.float32([kp1[m.trainIdx].pt for m in matches]).reshape(-1, 1, 2)
    H, inliers = cv2.findHomography(src, dst, cv2.RANSAC, 2.0)
    if H is None or int(inliers.sum()) < INLIERS_NEEDED:
        return None, ()
    kept = src[inliers.ravel() > 0].reshape(-1, 2)
    return H, (*kept.min(axis=0), *kept.max(axis=0))


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
