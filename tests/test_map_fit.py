"""Fitting the region map to the players' own print of the board, from anchors on the preview."""
from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from calibration.borders import with_borders
from calibration.map_fit import MapFitError, fit_map_warp, parse_anchors, read_anchors
from calibration.profile import CalibrationError, CalibrationProfile, calibrate
from vision.geometry import load_geometry

#: A camera's view of the board: board units to preview pixels (scaled, turned a little, moved).
H_VIEW = np.array([[0.8, 0.05, 120.0], [-0.04, 0.82, 60.0], [0.00002, 0.00001, 1.0]])


def project(H, pts):
    return cv2.perspectiveTransform(np.float64(pts).reshape(-1, 1, 2), np.asarray(H, float)).reshape(-1, 2)


def anchors_for(M, map_points, H=H_VIEW):
    """The drags a user would make: from where the drawn map shows each point to where the print has it."""
    src, dst = project(H, map_points), project(H @ M, map_points)
    return [(tuple(a), tuple(b)) for a, b in zip(src, dst)]


def shift(dx, dy):
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]])


@pytest.fixture(scope="module")
def geo():
    return load_geometry()


@pytest.fixture(scope="module")
def spread_points(geo):
    return [geo.label_points[r] for r in ("britannia", "mauretania", "aegyptus", "armenia", "italia", "dacia")]


class TestFitMapWarp:
    def test_one_anchor_is_a_shift(self, geo, spread_points):
        M = fit_map_warp(H_VIEW, anchors_for(shift(6, -4), spread_points[:1]), geo.size)
        np.testing.assert_allclose(M, shift(6, -4), atol=1e-6)

    def test_two_anchors_also_turn_and_scale(self, geo, spread_points):
        c, s = 1.02 * np.cos(0.01), 1.02 * np.sin(0.01)
        want = np.array([[c, -s, 4], [s, c, -7], [0, 0, 1.0]])
        M = fit_map_warp(H_VIEW, anchors_for(want, spread_points[:2]), geo.size)
        np.testing.assert_allclose(M, want, atol=1e-6)

    def test_three_anchors_are_affine_and_four_a_homography(self, geo, spread_points):
        affine = np.array([[1.03, 0.01, -5], [-0.02, 0.98, 9], [0, 0, 1.0]])
        np.testing.assert_allclose(fit_map_warp(H_VIEW, anchors_for(affine, spread_points[:3]), geo.size), affine,
                                   atol=1e-6)
        persp = np.array([[1.01, 0.0, 3], [0.01, 1.02, -2], [1e-5, -1e-5, 1.0]])
        M = fit_map_warp(H_VIEW, anchors_for(persp, spread_points), geo.size)
        corners = [(0, 0), (geo.size[0], 0), geo.size, (0, geo.size[1])]
        np.testing.assert_allclose(project(M, corners), project(persp, corners), atol=1e-3)   # board units

    def test_a_second_fit_moves_the_map_already_fitted(self, geo, spread_points):
        first = shift(5, 0)
        # the preview now shows the map moved by the first fit; the user drags it 3 units further down
        M = fit_map_warp(H_VIEW, anchors_for(shift(0, 3), project(first, spread_points[:2])), geo.size, first)
        np.testing.assert_allclose(M, shift(5, 3), atol=1e-6)

    def test_contradictory_anchors_are_refused(self, geo, spread_points):
        anchors = anchors_for(shift(4, 4), spread_points)
        (a, b) = anchors[2]
        anchors[2] = (a, (b[0] + 40, b[1]))           # one anchor dropped on the wrong place
        with pytest.raises(MapFitError, match="contradict"):
            fit_map_warp(H_VIEW, anchors, geo.size)

    @pytest.mark.parametrize("M", [np.diag([1.4, 1.4, 1.0]), shift(150, 0)])
    def test_a_warp_no_print_could_need_is_refused(self, geo, spread_points, M):
        with pytest.raises(MapFitError, match="too far"):
            fit_map_warp(H_VIEW, anchors_for(M, spread_points[:3]), geo.size)

    def test_degenerate_anchors_are_refused(self, geo):
        p = geo.label_points["italia"]
        with pytest.raises(MapFitError):
            fit_map_warp(H_VIEW, anchors_for(shift(1, 1), [p, p]), geo.size)
        with pytest.raises(MapFitError):
            fit_map_warp(H_VIEW, anchors_for(shift(1, 1), [(100, 100), (200, 200), (300, 300)]), geo.size)


class TestAnchorFiles:
    def test_read(self, tmp_path):
        path = tmp_path / "a.json"
        path.write_text(json.dumps([{"from": [1, 2], "to": [3, 4.5]}]))
        assert read_anchors(path) == [((1.0, 2.0), (3.0, 4.5))]

    @pytest.mark.parametrize("data", [[], {}, [{"from": [1, 2]}], [{"from": [1], "to": [2, 3]}],
                                      [{"from": ["a", 2], "to": [2, 3]}], [{"from": [1, 2], "to": [float("nan"), 3]}]])
    def test_malformed_anchors_say_which(self, data):
        with pytest.raises(MapFitError, match="anchor"):
            parse_anchors(data)

    def test_unreadable_file(self, tmp_path):
        (tmp_path / "a.json").write_text("{not json")
        with pytest.raises(MapFitError, match="not an anchor file"):
            read_anchors(tmp_path / "a.json")
        with pytest.raises(MapFitError, match="not found"):
            read_anchors(tmp_path / "missing.json")


class TestWarpedGeometry:
    def test_every_region_moves_with_the_warp(self, geo):
        M = np.array([[1.02, 0.01, -6], [-0.01, 1.01, 8], [0, 0, 1.0]])
        moved = geo.warped(M)
        assert moved.size == geo.size and moved.region_ids == geo.region_ids
        for r, p in geo.label_points.items():
            q = project(M, [p])[0]
            assert moved.region_at(*q) == r
            np.testing.assert_allclose(moved.label_points[r], q, atol=1e-9)
        # a point of the committed map near a border now lies in its region only after the move
        ys, xs = np.nonzero(geo.labels != moved.labels)
        assert len(xs) > 1000

    def test_identity_changes_nothing(self, geo):
        same = geo.warped(np.eye(3))
        assert np.array_equal(same.labels, geo.labels) and same.label_points == geo.label_points


@pytest.fixture(scope="module")
def table():
    """An easy rendered table, its calibration photo and the profile calibrated on it."""
    from vision.synth.board_art import procedural_art
    from vision.synth.dataset import iter_renders
    from vision.synth.render import calibration_render
    _, img, truth = next(iter(iter_renders("easy", 1, 4242)))
    cal = calibration_render(truth)
    profile = calibrate(cal, procedural_art(), players=truth.players)
    return img, cal, truth, profile


def _regions_right(profile, img, truth) -> float:
    from tracker.state import ObservedState
    from vision.count import count
    from vision.pipeline import make_detector
    det = make_detector(profile).detect(img)
    got = count(det, profile.geometry, det.unseen)
    want = ObservedState.from_dict(truth.state)
    return np.mean([got.regions.get(r, {}) == want.regions.get(r, {}) for r in profile.geometry.region_ids])


class TestFittedProfile:
    def test_a_map_off_on_this_print_is_put_right_by_anchors(self, table, geo):
        """A copy whose map sits 14 board units from where its frame puts it: counted with the committed
        map, pieces near the borders land in their neighbours; four anchors on the preview fix it."""
        img, cal, truth, good = table
        off = shift(14, -10)
        H = good.H @ off                       # the frame-based pose of a print whose map lies elsewhere
        rect = cv2.warpPerspective(good.undistort(cal), np.linalg.inv(H), geo.size, flags=cv2.INTER_LINEAR)
        bad = CalibrationProfile(good.board_id, good.image_size, H, rect, good.gains, dict(good.colours_lab),
                                 good.legionary_area, good.learned, k1=good.k1)
        points = [geo.label_points[r] for r in ("britannia", "mauretania", "aegyptus", "armenia")]
        drags = [(tuple(a), tuple(b)) for a, b in zip(project(H, points), project(good.H, points))]
        fitted = CalibrationProfile(bad.board_id, bad.image_size, H, rect, bad.gains, dict(bad.colours_lab),
                                    bad.legionary_area, bad.learned, k1=bad.k1)
        fitted.fit_map(drags)
        np.testing.assert_allclose(fitted.map_warp, np.linalg.inv(off), atol=1e-6)
        right, wrong, fixed = (_regions_right(p, img, truth) for p in (good, bad, fitted))
        assert wrong < right - 0.05
        assert fixed >= right - 0.02

    def test_saved_and_loaded_with_its_map(self, table, tmp_path):
        _, _, _, good = table
        profile = CalibrationProfile.load(_saved(good, tmp_path / "plain.json"))
        assert profile.map_warp is None
        fitted = with_borders(load_geometry().displaced(profile.surface), profile.borders)
        assert np.array_equal(profile.geometry.labels, fitted.labels)
        profile.map_warp = shift(5, 5)
        again = CalibrationProfile.load(_saved(profile, tmp_path / "fitted.json"))
        np.testing.assert_allclose(again.map_warp, shift(5, 5))
        # the anchors move the map as the preview showed it: displaced by the surface field and its
        # borders traced on the print first
        assert np.array_equal(again.geometry.labels, fitted.warped(shift(5, 5)).labels)
        again.surface = again.borders = None
        again.reset_map()
        assert again.geometry is load_geometry()

    @pytest.mark.parametrize("warp", [[[1, 0], [0, 1]], np.diag([2.0, 2.0, 1.0]).tolist()])
    def test_a_damaged_map_warp_is_refused(self, table, tmp_path, warp):
        _, _, _, good = table
        data = good.to_dict()
        data["map_warp"] = warp
        (tmp_path / "c.json").write_text(json.dumps(data))
        with pytest.raises(CalibrationError, match="damaged"):
            CalibrationProfile.load(tmp_path / "c.json")

    def test_the_pipeline_reads_with_the_fitted_map(self, table):
        from vision.pipeline import Pipeline
        _, _, _, good = table
        profile = CalibrationProfile(good.board_id, good.image_size, good.H, good.reference, good.gains,
                                     k1=good.k1, map_warp=shift(3, 0))
        pipeline = Pipeline(profile)
        assert pipeline.geo is profile.geometry and pipeline.detector.geo is profile.geometry
        assert pipeline.gate.geo is profile.geometry

    def test_a_map_fitted_during_play_is_read_from_the_next_frame(self, table):
        from vision.pipeline import Pipeline
        img, _, _, good = table
        profile = CalibrationProfile(good.board_id, good.image_size, good.H, good.reference, good.gains,
                                     k1=good.k1)
        pipeline = Pipeline(profile)
        pipeline.process(img)                          # the gate's first frame
        p = profile.geometry.label_points["italia"]
        profile.fit_map([(tuple(project(profile.H, [p])[0]), tuple(project(profile.H @ shift(3, 2), [p])[0]))])
        assert pipeline.geo is not profile.geometry
        assert pipeline.process(img).state is not None     # still: counted, with the new map
        assert pipeline.geo is profile.geometry and pipeline.detector.geo is profile.geometry


def _saved(profile, path):
    profile.save(path)
    return path


class TestCalibrateCommand:
    def test_anchors_move_the_map_and_bad_anchors_are_one_line(self, table, tmp_path):
        _, cal, _, good = table
        cv2.imwrite(str(tmp_path / "empty.png"), cal)
        p = good.geometry.label_points["italia"]
        a, b = project(good.H, [p])[0], project(good.H @ shift(4, 0), [p])[0]
        (tmp_path / "anchors.json").write_text(json.dumps([{"from": a.tolist(), "to": b.tolist()}]))
        run = [sys.executable, "-m", "augur", "calibrate", str(tmp_path / "empty.png"), "-o", str(tmp_path / "c.json")]
        proc = subprocess.run(run + ["--anchors", str(tmp_path / "anchors.json")], capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert "region map moved by 1 anchor" in proc.stdout
        warp = CalibrationProfile.load(tmp_path / "c.json").map_warp
        assert warp is not None and abs(warp[0, 2] - 4) < 0.5 and abs(warp[1, 2]) < 0.5
        (tmp_path / "bad.json").write_text("[{\"from\": [1, 2]}]")
        proc = subprocess.run(run + ["--anchors", str(tmp_path / "bad.json")], capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "anchor 1" in proc.stderr
