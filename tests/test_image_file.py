"""Photos read whole or refused (vision/image_file.py)."""
from __future__ import annotations

import subprocess
import sys

import cv2
import numpy as np
import pytest

from tests.conftest import shared_file
from vision.image_file import UnreadableImage, is_cut_short, jpeg_size, read_image


def _photo() -> np.ndarray:
    """A textured 320 x 240 picture: noise compresses into a scan long enough to cut."""
    rng = np.random.default_rng(7)
    img = cv2.GaussianBlur(rng.integers(0, 256, (240, 320, 3), dtype=np.uint8), (5, 5), 0)
    cv2.rectangle(img, (40, 40), (200, 160), (0, 0, 255), -1)
    return img


def _encoded(ext: str, *params: int) -> bytes:
    ok, buf = cv2.imencode(ext, _photo(), list(params))
    assert ok
    return buf.tobytes()


class TestCutShort:
    def test_a_whole_jpeg_and_png_are_whole(self):
        assert not is_cut_short(_encoded(".jpg")) and not is_cut_short(_encoded(".png"))

    @pytest.mark.parametrize("share", [0.3, 0.7, 0.99])
    def test_a_jpeg_cut_inside_its_scan_is_cut_short(self, share):
        data = _encoded(".jpg")
        assert is_cut_short(data[:int(len(data) * share)])

    def test_bytes_after_the_end_marker_are_allowed(self):
        assert not is_cut_short(_encoded(".jpg") + b"\x00" * 64 + b"camera trailer")

    def test_an_embedded_thumbnail_does_not_make_a_cut_photo_whole(self):
        thumb = _encoded(".jpg")                   # a whole JPEG in an APP1 segment, as EXIF keeps one
        main = _encoded(".jpg")
        segment = b"\xff\xe1" + (len(thumb) + 2).to_bytes(2, "big") + thumb
        whole = main[:2] + segment + main[2:]
        assert not is_cut_short(whole)
        assert is_cut_short(whole[:len(whole) - len(main) // 3])

    def test_a_second_picture_or_junk_after_the_end_is_not_the_photo(self):
        main = _encoded(".jpg")
        assert not is_cut_short(main + _encoded(".jpg"))                  # as some phones append
        assert not is_cut_short(main + b"\xff\xda\x00\x08 half a scan")
        assert is_cut_short(main[:-100])

    @pytest.mark.parametrize("share", [0.2, 0.6, 0.95])
    def test_a_progressive_jpeg_whole_and_cut(self, share):
        data = _encoded(".jpg", cv2.IMWRITE_JPEG_PROGRESSIVE, 1)
        assert data.count(b"\xff\xda") > 1                              # several scans
        assert not is_cut_short(data)
        assert is_cut_short(data[:int(len(data) * share)])

    def test_the_real_board_photo_is_whole(self):
        data = shared_file("reference", "spqrisiko", "board-photo-topdown.jpeg").read_bytes()
        assert not is_cut_short(data) and is_cut_short(data[:len(data) // 2])

    def test_a_png_cut_short(self):
        data = _encoded(".png")
        assert is_cut_short(data[:len(data) // 2])

    def test_other_bytes_are_left_to_the_decoder(self):
        assert not is_cut_short(b"hello") and not is_cut_short(b"")


class TestJpegSize:
    """The size a JPEG's frame header gives, read without decoding (the review's frames)."""

    @pytest.mark.parametrize("params", [(), (cv2.IMWRITE_JPEG_PROGRESSIVE, 1)])
    def test_width_and_height_of_a_baseline_and_a_progressive_jpeg(self, params):
        ok, buf = cv2.imencode(".jpg", _photo()[:237, :301], list(params))
        assert ok and jpeg_size(buf.tobytes()) == (301, 237)

    def test_a_header_segment_before_the_frame_is_walked_past(self):
        main = _encoded(".jpg")
        thumb = cv2.imencode(".jpg", _photo()[:40, :50])[1].tobytes()    # EXIF's thumbnail has its own size
        segment = b"\xff\xe1" + (len(thumb) + 2).to_bytes(2, "big") + thumb
        assert jpeg_size(main[:2] + segment + main[2:]) == (320, 240)

    def test_no_size_where_no_frame_header_is(self):
        data = _encoded(".jpg")
        frame_at = min(data.find(bytes([0xFF, m])) for m in (0xC0, 0xC2) if data.find(bytes([0xFF, m])) > 0)
        assert jpeg_size(data[:frame_at + 6]) is None                    # cut inside the frame header
        assert jpeg_size(_encoded(".png")) is None and jpeg_size(b"\xff\xd8x") is None and jpeg_size(b"") is None


class TestReadImage:
    def test_a_whole_photo_is_read(self, tmp_path):
        (tmp_path / "a.jpg").write_bytes(_encoded(".jpg"))
        img = read_image(tmp_path / "a.jpg")
        assert img.shape == (240, 320, 3)
        assert img[100, 100, 2] > 200 and img[100, 100, 0] < 60      # the red rectangle

    def test_a_phone_photo_is_turned_by_its_exif_orientation(self, tmp_path):
        data = _encoded(".jpg")
        tiff = (b"II*\x00" + (8).to_bytes(4, "little") + (1).to_bytes(2, "little")    # one IFD entry:
                + bytes.fromhex("1201 0300 01000000 0600 0000") + bytes(4))       # Orientation = 6
        exif = b"Exif\x00\x00" + tiff
        (tmp_path / "phone.jpg").write_bytes(data[:2] + b"\xff\xe1" + (len(exif) + 2).to_bytes(2, "big") + exif + data[2:])
        assert read_image(tmp_path / "phone.jpg").shape == (320, 240, 3)         # turned a quarter

    def test_a_cut_jpeg_is_refused_not_read_grey(self, tmp_path):
        data = _encoded(".jpg")
        (tmp_path / "cut.jpg").write_bytes(data[:len(data) * 2 // 3])
        with pytest.raises(UnreadableImage, match="cut short"):
            read_image(tmp_path / "cut.jpg")

    @pytest.mark.parametrize("content, said", [(None, "no such image"), (b"", "not a readable image"),
                                               (b"not an image", "not a readable image")])
    def test_missing_empty_and_junk(self, tmp_path, content, said):
        path = tmp_path / "x.jpg"
        if content is not None:
            path.write_bytes(content)
        with pytest.raises(UnreadableImage, match=said):
            read_image(path)


class TestCommandLine:
    def test_calibrate_says_one_line_for_a_cut_photo_and_writes_nothing(self, tmp_path):
        data = _encoded(".jpg")
        (tmp_path / "cut.jpg").write_bytes(data[:len(data) // 2])
        r = subprocess.run([sys.executable, "-m", "augur", "calibrate", str(tmp_path / "cut.jpg"),
                            "-o", str(tmp_path / "out.json")], capture_output=True, text=True)
        assert r.returncode == 2 and r.stdout == ""
        assert r.stderr == f"augur: error: {tmp_path / 'cut.jpg'}: the image file is cut short (still being copied or written?)\n"
        assert not (tmp_path / "out.json").exists()
