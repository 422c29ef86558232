"""Printed corner markers, for tables where the board's red frame cannot be found.

A board whose frame is not red (another edition, a faded print), a red tablecloth or a frame
half under the players' cards hides the frame that :func:`calibration.localise.locate_board`
looks for first. Four ArUco markers (OpenCV's 4 x 4
dictionary, ids 0 to 3), printed with ``augur markers`` and laid outside the board, each with
its dotted corner on one corner of the board, give the four corners and which way round the
board lies whatever covers the frame. The pose they give is then refined on the board's art,
as the frame's is.
"""
from __future__ import annotations

import textwrap

import cv2
import numpy as np

#: The dictionary and the marker of each board corner, in board units: top left, top right,
#: bottom right, bottom left (the score track runs along the bottom edge, box 0 on the left).
DICTIONARY = cv2.aruco.DICT_4X4_50
CORNER_IDS = (0, 1, 2, 3)
#: Where each marker goes, in the players' words (the same order).
PLACES = ("the far corner of the short side where score box 0 is",
          "the far corner of the short side where score box 40 is",
          "the corner next to score box 40",
          "the corner next to score box 0")
#: Printed size of a marker's black square: about 5 % of the board's short side on a 50 cm board.
PRINT_MM = 40


def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(DICTIONARY), params)


def find_corner_markers(gray: np.ndarray) -> dict[int, np.ndarray]:
    """The dotted corner (the first corner of the marker's own pattern, by the printed dot) of each corner marker in
    view, in image pixels, by marker id. A marker seen twice is ignored (another sheet in view)."""
    corners, ids, _ = _detector().detectMarkers(gray)
    if ids is None:
        return {}
    seen: dict[int, list[np.ndarray]] = {}
    for quad, i in zip(corners, ids.ravel()):
        if int(i) in CORNER_IDS:
            seen.setdefault(int(i), []).append(quad.reshape(4, 2)[0].astype(np.float64))
    return {i: pts[0] for i, pts in seen.items() if len(pts) == 1}


def board_corners_from_markers(gray: np.ndarray) -> np.ndarray | None:
    """The board's four corners (top left, top right, bottom right, bottom left, in board
    orientation) when all four markers are in view, else None."""
    found = find_corner_markers(gray)
    if any(i not in found for i in CORNER_IDS):
        return None
    return np.float64([found[i] for i in CORNER_IDS])


def marker_sheet(dpi: int = 300) -> np.ndarray:
    """An A4 page (portrait, white) with the four markers, each with its dotted corner and where
    it goes, to print at 100 % and cut out."""
    px_mm = dpi / 25.4
    page = np.full((int(297 * px_mm), int(210 * px_mm)), 255, np.uint8)
    side = int(PRINT_MM * px_mm)
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    margin = int(25 * px_mm)
    for k, marker_id in enumerate(CORNER_IDS):
        x = margin + (k % 2) * int(95 * px_mm)
        y = margin + (k // 2) * int(125 * px_mm)
        page[y:y + side, x:x + side] = cv2.aruco.generateImageMarker(dictionary, marker_id, side)
        # the dot points at the corner that touches the board; a gap keeps it off the marker's outline
        dot = int(3.5 * px_mm)
        cv2.circle(page, (x - dot, y - dot), int(1.8 * px_mm), 0, -1, cv2.LINE_AA)
        text = (f"Augur corner marker {marker_id}. Put the corner by the dot on {PLACES[k]}, the marker "
                f"outside the board. Cut it out with a white border of 5 mm or more.")
        for j, line in enumerate(textwrap.wrap(text, 30)):
            cv2.putText(page, line, (x, y + side + int((8 + 6 * j) * px_mm)), cv2.FONT_HERSHEY_SIMPLEX,
                        px_mm * 0.12, 0, max(1, int(px_mm * 0.2)), cv2.LINE_AA)
    cv2.putText(page, f"Print at 100 %: each black square is {PRINT_MM} mm wide.", (margin, page.shape[0] - margin),
                cv2.FONT_HERSHEY_SIMPLEX, px_mm * 0.16, 0, max(1, int(px_mm * 0.25)), cv2.LINE_AA)
    return page

