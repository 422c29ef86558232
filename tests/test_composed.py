"""The empty board composed from several photos taken from the same place (calibration.composed)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.composed import FEWEST, NotTheSamePlace, composed_photo, onto_first
from calibration.covered import profile_covered
from calibration.profile import CalibrationProfile, calibrate
from tracker.state import ObservedState
from vision.synth.board_art import procedural_art
from vision.synth.render import HandPose, render

EMPTY = ObservedState.from_dict({"regions": {}})
PLAYERS = ("red", "blue", "yellow")
SEED = (7600, 5)
FRAMES = 9
ARM_IN = (3, 4, 5)          # the frames an arm passes through


def _arm(w: int, h: int, reach: float) -> HandPose:
    """An arm from the bottom edge towards the middle of the frame, ``reach`` of the way."""
    start, tip = np.array([0.45 * w, 1.05 * h]), np.array([0.5 * w, 0.45 * h])
    return HandPose(tuple(float(v) for v in start), tuple(float(v) for v in start + (tip - start) * reach),
                    0.07 * w, 3, (50.0, 80.0, 160.0))


def _frame(k: int, arm: float | None = None) -> np.ndarray:
    """Frame ``k`` of a still table's empty board (its own sensor noise), an arm reaching ``arm``
    of the way to the middle if given."""
    size = (1280, 720)
    poses = [_arm(*size, arm)] if arm else None
    return render(EMPTY, "medium", seed=SEED, size=size, vp={c: 0 for c in PLAYERS}, hands=0, hand_poses=poses,
                  sensor_seed=(*SEED, k) if k else None)[0]


@pytest.fixture(scope="module")
def clean() -> list[np.ndarray]:
    return [_frame(k) for k in range(FRAMES)]


@pytest.fixture(scope="module")
def passing(clean) -> list[np.ndarray]:
    """The same frames with an arm reaching in and out over three of them."""
    reach = dict(zip(ARM_IN, (0.6, 1.0, 0.8)))
    return [_frame(k, reach[k]) if k in reach else clean[k] for k in range(FRAMES)]


def _moved(image: np.ndarray, angle: float, shift: tuple[float, float]) -> np.ndarray:
    """``image`` as a camera turned by ``angle`` degrees and moved by ``shift`` pixels sees it."""
    h, w = image.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    M[:, 2] += shift
    return cv2.warpAffine(image, M, (w, h), borderMode=cv2.BORDER_REPLICATE)


class TestComposedPhoto:
    def test_an_arm_in_three_of_nine_frames_is_taken_out(self, clean, passing):
        """Under the arm, the median is the board: it differs from a clean frame there by about the
        sensor noise, where the arm's own frame differs by far more."""
        composed = composed_photo(passing)
        arm = np.abs(passing[4].astype(int) - clean[0]).max(axis=2) > 60
        assert arm.sum() > 20_000                          # the arm covers a good part of the frame
        under_arm = np.abs(composed.astype(int) - clean[0])[arm].mean()
        assert under_arm < 6, under_arm
        assert np.abs(passing[4].astype(int) - clean[0])[arm].mean() > 60

    def test_the_photo_kept_is_one_of_the_frames_not_their_smoother_median(self, clean, passing):
        """The network was trained on references with one photo's sensor noise: with nothing passing,
        the composed photo is one of the frames as it came; with the arm in three, one of the six
        without it."""
        assert any(np.array_equal(composed_photo(clean), frame) for frame in clean)
        without = [passing[k] for k in range(FRAMES) if k not in ARM_IN]
        assert any(np.array_equal(composed_photo(passing), frame) for frame in without)
        median = np.median(np.stack(clean), axis=0).round().astype(np.uint8)
        assert not any(np.array_equal(median, frame) for frame in clean)

    def test_frames_of_a_still_camera_are_composed_without_a_copy_of_them_all(self, clean, passing):
        """A phone's nine 4K frames are 225 MB; a stack copied from them doubled that, the peak of
        its calibration. Frames the camera took from one place in one light are read as they are:
        the composition costs the median and the photo kept, not the frames again."""
        import tracemalloc
        frame = passing[0].nbytes
        tracemalloc.start()
        try:
            composed_photo(passing)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < len(passing) * frame, (peak / frame)     # 14.4 frames with the copy, 6.1 without

    def test_the_calibration_no_longer_warns_of_the_arm(self, passing):
        """The arm's frame alone is warned about; the frames' median is not."""
        alone = profile_covered(calibrate(passing[4], procedural_art(), players=PLAYERS))
        assert alone and alone.area > 0
        composed = profile_covered(calibrate(composed_photo(passing), procedural_art(), players=PLAYERS))
        assert not composed and composed.lined_up

    def test_photos_lit_otherwise_leave_no_patch_where_the_hand_was(self, clean, passing):
        """A webcam's exposure moves between photos: one a fifth darker, one a fifth brighter, the
        arm in the middle one. Brought to the first's light, the board under the arm matches the
        board around it (unmatched, the median took it from the darker photo: a patch 17 levels
        darker than its surroundings)."""
        dim = cv2.convertScaleAbs(clean[0], alpha=0.8)
        bright = cv2.convertScaleAbs(clean[2], alpha=1.2)
        arm = np.abs(passing[4].astype(int) - clean[4]).max(axis=2) > 60
        off = composed_photo([dim, passing[4], bright]).astype(int) - dim
        assert abs(off[arm].mean() - off[~arm].mean()) < 4, (off[arm].mean(), off[~arm].mean())

    def test_one_photo_is_taken_as_it_is(self, clean):
        assert composed_photo(clean[:1]) is clean[0]

    def test_two_photos_cannot_outvote_a_hand(self, clean):
        assert FEWEST == 3
        with pytest.raises(NotTheSamePlace, match="3 or more taken from the same place"):
            composed_photo(clean[:2])

    def test_photos_of_other_sizes_are_refused(self, clean):
        small = cv2.resize(clean[2], (640, 360))
        with pytest.raises(NotTheSamePlace, match="photo 3 is 640x360, photo 1 1280x720"):
            composed_photo([clean[0], clean[1], small])

    def test_frames_of_a_still_camera_are_not_warped(self, clean):
        """Warping frames that already line up would only blur them."""
        assert onto_first(clean[0], clean[1]) is clean[1]

    def test_a_camera_moved_a_little_is_brought_back(self, clean):
        moved = _moved(clean[1], 0.6, (5.0, -3.0))
        back = onto_first(clean[0], moved)
        assert back is not moved
        inner = (slice(60, -60), slice(60, -60))
        before = np.abs(moved.astype(int) - clean[0])[inner].mean()
        after = np.abs(back.astype(int) - clean[0])[inner].mean()
        assert after < before / 2, (before, after)

    def test_a_photo_from_another_place_or_of_something_else_is_refused(self, clean):
        with pytest.raises(NotTheSamePlace, match="photo 2 was taken from another place"):
            onto_first(clean[0], _moved(clean[1], 12.0, (80.0, 40.0)))
        noise = np.random.default_rng(0).integers(0, 256, clean[0].shape, dtype=np.uint8)
        with pytest.raises(NotTheSamePlace, match="photo 3 does not show the table as photo 1 does"):
            composed_photo([clean[0], clean[1], noise])


class _Camera:
    """Stands in for ``cv2.VideoCapture``: read number n (from 1) delivers ``frame_at(n)``."""

    def __init__(self, frame_at):
        self.frame_at, self.reads = frame_at, 0

    def __call__(self, index):
        return self

    def isOpened(self):
        return True

    def set(self, prop, value):
        return True

    def read(self):
        self.reads += 1
        return True, self.frame_at(self.reads)

    def release(self):
        pass


class TestCalibrateCommand:
    def test_three_photos_with_an_arm_in_one_calibrate_without_a_warning(self, passing, tmp_path, capsys):
        from augur.cli import main
        paths = []
        for k in (2, 4, 6):                     # frame 4 shows the arm at its farthest
            paths.append(str(tmp_path / f"empty{k}.png"))
            cv2.imwrite(paths[-1], passing[k])
        out = tmp_path / "cal.json"
        code = main(["calibrate", *paths, "--players", ",".join(PLAYERS), "-o", str(out)])
        captured = capsys.readouterr()
        assert code == 0 and "warning" not in captured.err
        assert "(composed of 3 photos)" in captured.out
        assert CalibrationProfile.load(out).board_id == "spqrisiko"

    def test_two_photos_are_one_line_and_write_nothing(self, clean, tmp_path, capsys):
        from augur.cli import main
        paths = []
        for k in (0, 1):
            paths.append(str(tmp_path / f"empty{k}.png"))
            cv2.imwrite(paths[-1], clean[k])
        out = tmp_path / "cal.json"
        code = main(["calibrate", *paths, "-o", str(out)])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and "3 or more" in err
        assert not out.exists()

    def test_the_camera_path_composes_its_still_frames(self, passing, monkeypatch, tmp_path, capsys):
        """A camera whose frames show an arm passing while the calibration watches: the profile is
        made without the arm, and no warning is given."""
        import vision.frames
        from augur.cli import main
        from vision.frames import CALIBRATION_FRAMES, CALIBRATION_SPACING, WARMUP_FRAMES

        def frame_at(read: int) -> np.ndarray:
            # the frames the calibration keeps are the warm-up's last and every spacing-th after it
            return passing[min(max(0, (read - WARMUP_FRAMES - 1) // CALIBRATION_SPACING), FRAMES - 1)]

        camera = _Camera(frame_at)
        monkeypatch.setattr(vision.frames.cv2, "VideoCapture", camera)
        out = tmp_path / "cal.json"
        code = main(["calibrate", "--camera", "0", "--players", ",".join(PLAYERS), "-o", str(out)])
        captured = capsys.readouterr()
        assert code == 0 and "warning" not in captured.err, captured.err
        assert f"(composed of {CALIBRATION_FRAMES} frames)" in captured.out
        assert camera.reads == WARMUP_FRAMES + 1 + (CALIBRATION_FRAMES - 1) * CALIBRATION_SPACING
        profile = CalibrationProfile.load(out)
        assert not profile_covered(profile)


class TestCalibrateFromTheCameraWaits:
    def _run(self, camera, monkeypatch, tmp_path, capsys):
        import vision.frames
        from augur.cli import main
        monkeypatch.setattr(vision.frames.cv2, "VideoCapture", camera)
        out = tmp_path / "cal.json"
        code = main(["calibrate", "--camera", "0", "--players", ",".join(PLAYERS), "-o", str(out)])
        return code, capsys.readouterr().err.strip().splitlines(), CalibrationProfile.load(out)

    def test_an_arm_resting_through_the_first_round_is_waited_out(self, clean, passing, monkeypatch, tmp_path,
                                                                   capsys):
        """The first three seconds show an arm over the map in every frame, so the median keeps
        it: the camera is read again, and the clear round is kept, with no warning."""
        from augur.cli import CAMERA_ROUNDS
        from vision.frames import CALIBRATION_FRAMES, CALIBRATION_SPACING, WARMUP_FRAMES
        per_round = WARMUP_FRAMES + 1 + (CALIBRATION_FRAMES - 1) * CALIBRATION_SPACING
        camera = _Camera(lambda read: passing[4] if read <= per_round else clean[read % FRAMES])
        code, err, profile = self._run(camera, monkeypatch, tmp_path, capsys)
        assert code == 0 and CAMERA_ROUNDS == 3 and camera.reads == 2 * per_round
        assert len(err) == 1 and err[0].startswith("something lies over the map (over ")
        assert err[0].endswith("reading the camera again (round 2 of 3)")
        assert not profile_covered(profile)

    def test_an_arm_that_stays_is_warned_of_after_the_last_round(self, clean, passing, monkeypatch, tmp_path,
                                                                  capsys):
        from augur.cli import CAMERA_ROUNDS
        camera = _Camera(lambda read: passing[4])
        code, err, profile = self._run(camera, monkeypatch, tmp_path, capsys)
        assert code == 0
        assert [line.split(" (round ")[-1] for line in err[:-1]] == ["2 of 3)", "3 of 3)"]
        assert err[-1].startswith("warning: something lay over the map") and len(err) == CAMERA_ROUNDS
        assert profile_covered(profile)                  # the profile is still written, as with a photo

    def test_a_camera_gone_in_a_later_round_keeps_the_round_read_before(self, clean, passing, monkeypatch, tmp_path,
                                                                        capsys):
        """The camera stops delivering while the calibration waits for an arm to go: the first
        round's calibration is written, with its warning, not lost to an error."""
        from vision.frames import CALIBRATION_FRAMES, CALIBRATION_SPACING, WARMUP_FRAMES
        per_round = WARMUP_FRAMES + 1 + (CALIBRATION_FRAMES - 1) * CALIBRATION_SPACING
        camera = _Camera(lambda read: passing[4])
        delivered = camera.read

        def read():
            ok, frame = delivered()
            return (ok, frame) if camera.reads <= per_round else (False, None)

        camera.read = read
        code, err, profile = self._run(camera, monkeypatch, tmp_path, capsys)
        assert code == 0 and profile_covered(profile)
        assert err[0].endswith("(round 2 of 3)")
        assert err[1] == "camera 0 is not available: keeping the round read before"
        assert err[2].startswith("warning: something lay over the map")
