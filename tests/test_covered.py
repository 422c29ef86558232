"""Something over the map in the calibration photo (calibration.covered)."""
from __future__ import annotations

import subprocess
import sys

import cv2
import numpy as np

from calibration.covered import (COVERED_AREA, LINED_UP, WINDOW, CoveredMap, area_needed, covered_map, covered_notice,
                                 profile_covered)
from calibration.profile import CalibrationProfile, calibrate
from tests.conftest import shared_file
from tracker.state import ObservedState
from vision.geometry import load_geometry
from vision.synth.board_art import procedural_art
from vision.synth.render import HandPose, render

EMPTY = ObservedState.from_dict({"regions": {}})
PLAYERS = ("red", "blue", "yellow")


def _photo(tier: str, seed: int, hand_at: str | None = None) -> tuple[np.ndarray, object]:
    """The calibration photo of a rendered table, with an arm reaching from the nearest edge of the
    frame to the label point of ``hand_at`` (found through a clean calibration's pose)."""
    vp = {c: 0 for c in PLAYERS}
    clean, truth = render(EMPTY, tier, seed=seed, vp=vp, hands=0)
    if hand_at is None:
        return clean, truth
    pose = calibrate(clean, procedural_art(), players=PLAYERS).pose
    tip = pose.to_image([load_geometry().label_points[hand_at]])[0]
    w, h = truth.size
    starts = [(tip[0], -0.05 * h), (tip[0], 1.05 * h), (-0.05 * w, tip[1]), (1.05 * w, tip[1])]
    start = min(starts, key=lambda s: np.hypot(s[0] - tip[0], s[1] - tip[1]))
    hand = HandPose((float(start[0]), float(start[1])), (float(tip[0]), float(tip[1])), 0.07 * w, 2, (60.0, 90.0, 150.0))
    covered, truth = render(EMPTY, tier, seed=seed, vp=vp, hands=0, hand_poses=[hand])
    return covered, truth


class TestCoveredMap:
    def test_an_arm_over_the_map_is_found_and_its_regions_named(self):
        photo, _ = _photo("medium", 3, hand_at="italia")
        found = profile_covered(calibrate(photo, procedural_art(), players=PLAYERS))
        assert found
        assert found.area > area_needed(found.contrast) >= COVERED_AREA
        assert "italia" in found.regions

    def test_a_clean_photo_has_nothing_over_the_map(self):
        photo, _ = _photo("medium", 3)
        found = profile_covered(calibrate(photo, procedural_art(), players=PLAYERS))
        assert not found
        assert found.regions == () and found.lined_up
        assert found.area < area_needed(found.contrast)         # measured 1,779 of 3,000

    def test_a_blank_patch_over_many_borders_is_found_on_the_map_alone(self):
        """The function itself, on the procedural art: a flat grey square over the middle of the map
        hides its borders; outside the view nothing is searched."""
        geo = load_geometry()
        art = cv2.resize(procedural_art(), geo.size, interpolation=cv2.INTER_AREA)
        assert not covered_map(art, geo.labels, geo.region_ids)
        x, y = (int(v) for v in geo.label_points["italia"])
        blank = art.copy()
        blank[y - 120:y + 120, x - 120:x + 120] = 128
        found = covered_map(blank, geo.labels, geo.region_ids)
        assert "italia" in found.regions
        near = np.zeros(geo.labels.shape, bool)
        near[y - 120 - WINDOW:y + 120 + WINDOW, x - 120 - WINDOW:x + 120 + WINDOW] = True
        assert found.mask.any() and not (found.mask & ~near).any()
        out_of_view = np.ones(geo.labels.shape, bool)
        out_of_view[y - 150:y + 150, x - 150:x + 150] = False
        assert not covered_map(blank, geo.labels, geo.region_ids, in_view=out_of_view)


class TestTheRealPrint:
    def test_the_real_photo_has_nothing_over_the_map(self):
        photo = cv2.imread(str(shared_file("reference", "spqrisiko", "board-photo-topdown.jpeg")))
        small = cv2.resize(photo, None, fx=0.35, fy=0.35, interpolation=cv2.INTER_AREA)
        found = profile_covered(calibrate(small, procedural_art()))
        assert not found and found.lined_up
        assert found.area < area_needed(found.contrast) / 2          # measured 1,220 of 3,000 (contrast 3.66)


class TestTheNotice:
    def test_what_the_players_are_told(self):
        geo = load_geometry()
        nothing = np.zeros(geo.labels.shape, bool)
        assert covered_notice(CoveredMap(nothing, (), 800.0, 3.0), geo) == ""
        seven = ("italia", "sicilia", "corsica", "sardinia", "tyrrenum", "ionium", "creta")
        line = covered_notice(CoveredMap(nothing, seven, 9000.0, 3.0), geo, "cal.preview.jpg")
        assert line.startswith("something lay over the map in the calibration photo, over Italia, Sicilia, ")
        assert "and 2 more" in line and "tinted red in cal.preview.jpg" in line and "Creta" not in line
        off = covered_notice(CoveredMap(nothing, seven, 9000.0, LINED_UP / 2), geo)
        assert off.startswith("the fitted region map does not follow the board's printed borders")
        assert not CoveredMap(nothing, (), 800.0, LINED_UP).__bool__()
        assert CoveredMap(nothing, (), 800.0, LINED_UP / 2)


class TestCalibrateCommand:
    def test_calibrate_warns_of_an_arm_over_the_map_and_still_writes_the_profile(self, tmp_path):
        photo, _ = _photo("medium", 3, hand_at="italia")
        cv2.imwrite(str(tmp_path / "empty.png"), photo)
        r = subprocess.run([sys.executable, "-m", "augur", "calibrate", str(tmp_path / "empty.png"), "--players",
                            "red,blue,yellow", "-o", str(tmp_path / "cal.json")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "board found in a 1280x720 frame" in r.stdout
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("warning: something lay over the map in the calibration photo, over ")
        assert f"tinted red in {tmp_path / 'cal.preview.jpg'}" in lines[0] and lines[0].endswith("calibrate again")
        assert CalibrationProfile.load(tmp_path / "cal.json").pose is not None


class TestPreview:
    def test_the_preview_tints_what_was_covered_and_nothing_else(self):
        from calibration.overlay import draw_overlay
        photo, _ = _photo("medium", 3)
        profile = calibrate(photo, procedural_art(), players=PLAYERS)
        geo = profile.geometry
        covered = np.zeros(geo.labels.shape, bool)
        x, y = (int(v) for v in geo.label_points["italia"])
        covered[y - 40:y + 40, x - 40:x + 40] = True
        plain = draw_overlay(photo, profile.pose, geo, names=False)
        tinted = draw_overlay(photo, profile.pose, geo, names=False, covered=covered)
        changed = np.any(plain != tinted, axis=2)
        ix, iy = profile.pose.to_image([[x, y]])[0]
        assert changed[int(iy), int(ix)]
        assert tinted[int(iy), int(ix), 2] > plain[int(iy), int(ix), 2]          # redder
        corners = profile.pose.to_image([[x - 40, y - 40], [x + 40, y - 40], [x + 40, y + 40], [x - 40, y + 40]])
        (x0, y0), (x1, y1) = corners.min(axis=0) - 3, corners.max(axis=0) + 3
        ys, xs = np.nonzero(changed)
        assert xs.min() >= x0 and xs.max() <= x1 and ys.min() >= y0 and ys.max() <= y1


class TestTheLiveLoopSaysSo:
    def test_every_still_frame_carries_the_calibration_s_notice(self):
        """A table calibrated under an arm is told so on the dashboard for the whole game (the
        status line), not only when ``augur calibrate`` ran; a clean calibration says nothing."""
        from vision.pipeline import Pipeline
        clean, _ = _photo("medium", 3)
        covered, _ = _photo("medium", 3, hand_at="italia")
        notices = {}
        for name, photo in (("clean", clean), ("covered", covered)):
            pipeline = Pipeline(calibrate(photo, procedural_art(), players=PLAYERS), agree=2)
            results = [pipeline.process(clean) for _ in range(4)]
            notices[name] = {r.notice for r in results if r.gate is not None and r.gate.still}
        assert notices["clean"] == {""}
        assert len(notices["covered"]) == 1
        assert next(iter(notices["covered"])).startswith("something lay over the map in the calibration photo, over ")
