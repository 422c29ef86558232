"""Pieces of the trained detector's runtime that do not need the model file."""
from __future__ import annotations

import numpy as np
import pytest

from vision.classes import CLASS_INDEX, CLASS_NAMES, CLASSES
from vision.synth.camera import Camera
from vision.train import TILE, tile_origins
from vision.yolo import DEFAULT_MODEL, camera_nadir


class TestTiles:
    @pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (320, 320), (1000, 500)])
    def test_tiles_cover_the_frame_inside_it(self, size):
        w, h = size
        covered = np.zeros((h, w), bool)
        for x, y in tile_origins(w, h):
            assert 0 <= x <= w - TILE and 0 <= y <= h - TILE
            covered[y:y + TILE, x:x + TILE] = True
        assert covered.all()


class TestNadir:
    @pytest.mark.parametrize("tilt, yaw", [(20, 0), (35, 40), (45, 200)])
    def test_nadir_from_the_homography_matches_the_camera(self, tilt, yaw):
        cam = Camera.looking_at(1280, 720, 65, (700, 500), 1800, tilt, yaw)
        nadir_world = cam.centre.copy()
        nadir_world[2] = 0.0
        truth = cam.project(nadir_world[None], distort=False)[0]
        est = camera_nadir(cam.homography(), (1280, 720))
        assert est is not None and np.linalg.norm(est - truth) < 1.0

    def test_straight_down_has_no_nadir_direction(self):
        cam = Camera.looking_at(1280, 720, 65, (700, 500), 1800, 0, 0)
        assert camera_nadir(cam.homography(), (1280, 720)) is None


class TestClasses:
    def test_one_class_per_kind_and_colour(self):
        assert len(CLASSES) == len(set(CLASSES)) == 16
        assert CLASS_NAMES[CLASS_INDEX[("trireme", "black")]] == "trireme_black"


def test_shipped_model_runs_without_torch():
    if not DEFAULT_MODEL.is_file():
        pytest.skip(f"no trained model shipped at {DEFAULT_MODEL}")
    import sys
    import onnxruntime as ort
    sess = ort.InferenceSession(str(DEFAULT_MODEL), providers=["CPUExecutionProvider"])
    out = sess.run(None, {sess.get_inputs()[0].name: np.zeros((2, 3, TILE, TILE), np.float32)})[0]
    assert out.shape[0] == 2 and out.shape[1] == 4 + len(CLASSES)
    assert "torch" not in sys.modules
