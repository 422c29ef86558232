"""The lens model and its estimate at calibration."""
from __future__ import annotations

import numpy as np
import pytest

from calibration.lens import distort_points, distortion_maps, undistort, undistort_points, undistortion_maps
from calibration.profile import calibrate
from tracker.state import ObservedState
from vision.synth.board_art import procedural_art
from vision.synth.camera import Camera
from vision.synth.render import render

EMPTY = ObservedState.from_dict({"regions": {}})


class TestLensModel:
    @pytest.mark.parametrize("k1", [-0.04, -0.12])
    def test_undistortion_inverts_the_distortion(self, k1):
        dx, dy = distortion_maps(320, 180, k1)        # distorted pixel -> ideal point
        ux, uy = undistortion_maps(320, 180, k1)      # ideal pixel -> distorted point
        for x, y in [(10, 10), (300, 170), (160, 90), (40, 150)]:
            ix, iy = dx[y, x], dy[y, x]
            # the distorted point of that ideal point is the pixel we started from
            bx = np.interp(ix, np.arange(320), ux[int(round(iy))])
            by = np.interp(iy, np.arange(180), uy[:, int(round(ix))])
            assert abs(bx - x) < 0.6 and abs(by - y) < 0.6

    def test_undistorted_project_agrees_with_the_camera(self):
        cam = Camera.looking_at(1280, 720, 70, (700, 500), 1600, 25, 15, -0.1)
        pts = np.array([[60.0, 220.0, 0.0], [1330.0, 940.0, 0.0]])
        ideal, seen = cam.project(pts, distort=False), cam.project(pts)
        mx, my = undistortion_maps(1280, 720, -0.1)
        for (u, v), (x, y) in zip(ideal, seen):
            assert abs(mx[int(round(v)), int(round(u))] - x) < 1.0
            assert abs(my[int(round(v)), int(round(u))] - y) < 1.0

    def test_undistort_points_sends_camera_pixels_where_the_frame_undistortion_puts_them(self):
        cam = Camera.looking_at(1280, 720, 70, (700, 500), 1600, 25, 15, -0.1)
        pts = np.array([[60.0, 220.0, 0.0], [1330.0, 940.0, 0.0], [700.0, 500.0, 0.0]])
        ideal, seen = cam.project(pts, distort=False), cam.project(pts)
        assert np.abs(seen - ideal).max() > 5                  # the lens moves them visibly
        assert undistort_points(seen, (1280, 720), -0.1) == pytest.approx(ideal, abs=0.05)
        assert np.array_equal(undistort_points(seen, (1280, 720), 0.0), seen)

    def test_distort_points_sends_ideal_pixels_where_the_camera_shows_them(self):
        cam = Camera.looking_at(1280, 720, 70, (700, 500), 1600, 25, 15, -0.1)
        pts = np.array([[60.0, 220.0, 0.0], [1330.0, 940.0, 0.0], [700.0, 500.0, 0.0]])
        ideal, seen = cam.project(pts, distort=False), cam.project(pts)
        assert distort_points(ideal, (1280, 720), -0.1) == pytest.approx(seen, abs=0.05)
        assert np.array_equal(distort_points(ideal, (1280, 720), 0.0), ideal)

    def test_zero_is_a_no_op(self):
        img = np.zeros((20, 30, 3), np.uint8)
        assert undistort(img, 0.0) is img
        assert np.shares_memory(undistort(img, 0.0, (2, 3, 12, 9)), img)

    @pytest.mark.parametrize("k1", [0.0, -0.1])
    def test_a_part_holds_the_pixels_of_the_whole_undistorted_frame(self, k1):
        img = np.random.default_rng(1).integers(0, 256, (180, 320, 3), np.uint8)
        for box in [(0, 0, 320, 180), (40, 16, 296, 176), (0, 100, 64, 180)]:
            x0, y0, x1, y1 = box
            part = undistort(img, k1, box)
            assert part.shape == (y1 - y0, x1 - x0, 3)
            assert np.array_equal(part, undistort(img, k1)[y0:y1, x0:x1])


class TestLensAtCalibration:
    @pytest.mark.parametrize("seed", [1, 3])
    def test_calibration_finds_the_lens_and_the_board_points(self, seed):
        img, truth = render(EMPTY, "hard", seed=(606, seed), vp={"red": 0}, hands=0)
        profile = calibrate(img, procedural_art(), players=("red",))
        assert abs(profile.k1 - truth.k1) <= 0.045
        # board points land where the camera (distortion and all) put them
        H = np.array(truth.homography)
        errors = []
        for bx in np.linspace(80, 1300, 5):
            for by in np.linspace(250, 920, 4):
                t = H @ np.array([bx, by, 1.0])
                e = profile.H @ np.array([bx, by, 1.0])
                tu, tv, eu, ev = t[0] / t[2], t[1] / t[2], e[0] / e[2], e[1] / e[2]
                if 0 <= tu < 1279 and 0 <= tv < 719:
                    # compare in the undistorted frame: the truth's ideal point vs the estimate
                    errors.append(np.hypot(tu - eu, tv - ev))
        assert np.median(errors) < 2.5

    def test_profile_keeps_the_lens(self, tmp_path):
        img, truth = render(EMPTY, "medium", seed=(606, 2), vp={"red": 0}, hands=0)
        profile = calibrate(img, procedural_art(), players=("red",))
        profile.save(tmp_path / "cal.json")
        from calibration.profile import CalibrationProfile
        assert CalibrationProfile.load(tmp_path / "cal.json").k1 == profile.k1


class TestRemapTables:
    """The remap tables are kept for reuse within a byte budget (``calibration.lens._kept``): every
    candidate of a 720p calibration, one pair of a 4K film's."""

    def test_tables_are_reused_and_the_oldest_dropped_past_the_budget(self, monkeypatch):
        from collections import OrderedDict

        import calibration.lens as lens
        pair = 320 * 180 * 2 * 4                # two float32 tables a pixel
        monkeypatch.setattr(lens, "MAP_CACHE_BYTES", 3 * pair)
        monkeypatch.setattr(lens, "_maps", OrderedDict())
        first = undistortion_maps(320, 180, -0.04)
        assert undistortion_maps(320, 180, -0.04) is first
        for k1 in (-0.02, -0.06, -0.08):
            undistortion_maps(320, 180, k1)
        assert list(lens._maps) == [("undistort", 320, 180, k1) for k1 in (-0.02, -0.06, -0.08)]
        distortion_maps(320, 180, -0.02)        # the other kind shares the budget
        assert list(lens._maps)[-1] == ("distort", 320, 180, -0.02) and len(lens._maps) == 3
        big = undistortion_maps(1280, 720, -0.04)   # past the budget alone: kept, and alone
        assert list(lens._maps) == [("undistort", 1280, 720, -0.04)] and undistortion_maps(1280, 720, -0.04) is big
        again = undistortion_maps(320, 180, -0.04)  # made again, as before
        assert again is not first and all(np.array_equal(a, b) for a, b in zip(again, first))

    def test_tables_are_made_in_bands_of_rows_without_full_size_temporaries(self, monkeypatch):
        """A 4K frame's pair of tables is 66 MB; made at once, temporaries of 2.6 times that took
        the calibration of a phone's film past 750 MB. Made a band of rows at a time, the pair
        costs little more than itself, and each pixel is what the whole-frame formula gives."""
        import tracemalloc
        from collections import OrderedDict

        import calibration.lens as lens
        monkeypatch.setattr(lens, "_maps", OrderedDict())
        w, h, k1 = 2000, 1500, -0.06
        tracemalloc.start()
        try:
            mx, my = undistortion_maps(w, h, k1)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        pair = mx.nbytes + my.nbytes
        assert peak < 2 * pair, (peak, pair)         # 3.6 pairs made at once, 1.5 in bands
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        cx, cy, n = np.float32(w / 2), np.float32(h / 2), np.float32(np.hypot(w, h) / 2)
        ux, uy = (xs - cx) / n, (ys - cy) / n
        scale = lens.distortion_scale(np.sqrt(ux * ux + uy * uy), k1).astype(np.float32)
        assert np.array_equal(mx, (ux * scale * n + cx).astype(np.float32))
        assert np.array_equal(my, (uy * scale * n + cy).astype(np.float32))
