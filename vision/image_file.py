"""Reading a photo from a file: the whole picture, or a one-line error.

OpenCV's ``imread`` decodes a JPEG that was cut short (a file still being copied off a phone,
a snapshot written as the disk filled up) without failing: libjpeg prints "Premature end of
JPEG file", fills the missing rows with grey, and hands back an image of the full size. The
counter would then read every region under the grey band as empty, and a calibration would be
fitted to half a board, with nothing to say that the photo was broken. So the file's bytes are
checked first: a JPEG must end its last scan with the end-of-image marker, a PNG must reach its
closing chunk.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from tracker.errors import AugurError

JPEG_START = b"\xff\xd8"
JPEG_SCAN = b"\xff\xda"
JPEG_END = b"\xff\xd9"
PNG_START = b"\x89PNG\r\n\x1a\n"
PNG_END = b"IEND"


class UnreadableImage(AugurError):
    """An image file that is missing, not an image, or cut short."""


def is_cut_short(data: bytes) -> bool:
    """Whether ``data`` is a JPEG or PNG whose end is missing.

    A JPEG's compressed scan cannot hold the end-of-image marker (a 0xFF byte in it is always
    followed by 0x00 or a restart marker), so a whole file has one after its last scan header.
    Scan headers of an embedded EXIF thumbnail come before the main image's, and bytes some
    cameras append after the end marker are allowed. Other formats are left to the decoder.
    """
    if data.startswith(JPEG_START):
        last_scan = data.rfind(JPEG_SCAN)      # none: cut in its headers, which the decoder refuses
        return last_scan >= 0 and data.find(JPEG_END, last_scan) < 0
    if data.startswith(PNG_START):
        return data.rfind(PNG_END) < 0
    return False


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
    # imread, not imdecode of the bytes: imread turns a phone photo by its EXIF orientation.
    img = cv2.imread(str(path), cv2.IMREAD_COLOR) if data else None
    if img is None:
        raise UnreadableImage(f"{path}: not a readable image")
    return img
