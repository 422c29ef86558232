"""Reading a photo from a file: the whole picture, or a one-line error.

OpenCV's ``imread`` decodes a JPEG that was cut short (a file still being copied off a phone,
a snapshot written as the disk filled up) without failing: libjpeg prints "Premature end of
JPEG file", fills the missing rows with grey, and hands back an image of the full size. The
counter would then read every region under the grey band as empty, and a calibration would be
fitted to half a board, with nothing to say that the photo was broken. So the file's bytes are
checked first: a JPEG's segments must lead to its end-of-image marker, a PNG must reach its
closing chunk.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tracker.errors import AugurError

JPEG_START = b"\xff\xd8"
JPEG_SCAN = b"\xff\xda"       # start of a scan: its header, then compressed data
JPEG_END = b"\xff\xd9"
PNG_START = b"\x89PNG\r\n\x1a\n"
PNG_END = b"IEND"


class UnreadableImage(AugurError):
    """An image file that is missing, not an image, or cut short."""


def is_cut_short(data: bytes) -> bool:
    """Whether ``data`` is a JPEG or PNG whose end is missing (other bytes are left to the decoder)."""
    if data.startswith(JPEG_START):
        return not _jpeg_reaches_its_end(data)
    if data.startswith(PNG_START):
        return data.rfind(PNG_END) < 0
    return False


def _jpeg_reaches_its_end(data: bytes) -> bool:
    """Walks the JPEG's segments to its end-of-image marker.

    Walking, not searching the bytes: an EXIF thumbnail inside a header segment has an end marker
    of its own, and some phones append a second picture after the main one's. A compressed scan
    cannot hold a marker (its 0xFF bytes are followed by 0x00, or by a restart marker), so the
    first other marker after a scan ends it. Where a marker must stand and none does, the damage is
    of another kind: this answers True and leaves the file to the decoder to judge.
    """
    i, n = 2, len(data)
    while True:
        i = _past_bare_markers(data, i)
        if i >= n:
            return False
        if data[i] != 0xFF:
            return True
        if i + 1 == n:
            return False
        marker = data[i + 1]
        if marker == JPEG_END[1]:
            return True
        if i + 4 > n:
            return False
        i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
        if marker == JPEG_SCAN[1]:
            i = _end_of_scan(data, i)


#: Start-of-frame markers (their segment gives the picture's size): every 0xC0..0xCF but the
#: Huffman table (C4), the reserved JPG (C8) and the arithmetic coding table (CC).
JPEG_FRAME_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def jpeg_size(data: bytes) -> tuple[int, int] | None:
    """The width and height a JPEG's frame header gives, read without decoding (None: not a JPEG,
    or no frame header before its first scan).

    Why: the dashboard's review tells the browser a recorded frame's shape before the picture
    arrives, so that nothing under it moves as it loads (a tap on a moving button lands on
    whatever slid under the finger; session 122)."""
    if not data.startswith(JPEG_START):
        return None
    i, n = 2, len(data)
    while True:
        i = _past_bare_markers(data, i)
        if i + 4 > n or data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker in JPEG_FRAME_MARKERS:                # length, precision, height, width
            if i + 9 > n:
                return None
            height, width = int.from_bytes(data[i + 5:i + 7], "big"), int.from_bytes(data[i + 7:i + 9], "big")
            return (width, height) if width and height else None
        if marker in (JPEG_SCAN[1], JPEG_END[1]):
            return None
        i += 2 + int.from_bytes(data[i + 2:i + 4], "big")


def _past_bare_markers(data: bytes, i: int) -> int:
    """``i`` moved past the fill bytes and the markers without a length that stand there: to the
    next marker that opens a segment, or to where the walk has to look at what it found."""
    n = len(data)
    while i + 1 < n and data[i] == 0xFF:
        marker = data[i + 1]
        if marker == 0xFF:                              # fill byte before a marker
            i += 1
        elif 0xD0 <= marker <= 0xD7 or marker == 0x01:  # markers without a length
            i += 2
        else:
            break
    return i


def _end_of_scan(data: bytes, i: int) -> int:
    """The index of the first marker after the compressed data that starts at ``i`` (or the end)."""
    while True:
        i = data.find(b"\xff", i)
        if i < 0 or i + 1 >= len(data):
            return len(data)
        if data[i + 1] == 0x00 or 0xD0 <= data[i + 1] <= 0xD7:
            i += 2
            continue
        return i


def read_image(path: str | Path) -> np.ndarray:
    """The BGR image in ``path``; :class:`UnreadableImage` when there is none to read whole."""
    path = Path(path)
    if not path.is_file():
        raise UnreadableImage(f"{path}: no such image")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UnreadableImage(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if is_cut_short(data):
        raise UnreadableImage(f"{path}: the image file is cut short (still being copied or written?)")
    # the bytes checked are the bytes decoded (one read); imdecode, like imread, turns a phone
    # photo by its EXIF orientation
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if img is None:
        raise UnreadableImage(f"{path}: not a readable image")
    return img
