"""Frame sources: the newest-frame reader the live loop uses, so that it never falls behind the camera."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from vision.frames import NewestFrame, video_frames


def _wait_until(condition, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        time.sleep(0.002)


class TestNewestFrame:
    def test_a_busy_loop_gets_the_newest_frame_and_the_rest_are_dropped(self):
        first_taken = threading.Event()

        def camera():
            yield 0
            first_taken.wait(10)
            yield from range(1, 10)       # nine frames arrive while the loop is busy with frame 0

        frames = NewestFrame(camera())
        assert next(frames) == 0 and frames.index == 0
        first_taken.set()
        _wait_until(lambda: frames.delivered == 10)
        assert next(frames) == 9 and frames.index == 9
        with pytest.raises(StopIteration):
            next(frames)
        assert frames.delivered == 10 and frames.dropped == 8

    def test_a_loop_faster_than_the_camera_gets_every_frame_in_order(self):
        taken = [threading.Event() for _ in range(6)]

        def camera():
            for i in range(6):
                yield i
                taken[i].wait(10)          # the next frame comes only after this one was taken

        frames = NewestFrame(camera())
        got = []
        for frame in frames:
            got.append(frame)
            taken[frame].set()
        assert got == list(range(6)) and frames.dropped == 0

    def test_missed_camera_frames_pass_through_as_none(self):
        assert list(NewestFrame(iter([None]))) == [None]

    def test_a_source_error_reaches_the_loop_after_its_frames(self):
        def camera():
            yield "frame"
            raise OSError("camera unplugged")

        frames = NewestFrame(camera())
        _wait_until(lambda: frames.finished)
        assert next(frames) == "frame"
        with pytest.raises(OSError, match="unplugged"):
            next(frames)

    def test_delivery_times_are_kept_for_benchmarks(self):
        frames = NewestFrame(iter(range(3)), keep_times=True)
        _wait_until(lambda: frames.delivered == 3)
        list(frames)
        assert len(frames.times) == 3 and frames.times == sorted(frames.times)

    def test_close_stops_reading_the_source(self):
        read = []

        def camera():
            for i in range(1000):
                read.append(i)
                time.sleep(0.001)
                yield i

        frames = NewestFrame(camera())
        next(frames)
        frames.close()
        _wait_until(lambda: frames.finished)
        assert len(read) < 1000


class TestVideoFrames:
    def test_paced_video_keeps_its_frame_rate(self, tmp_path):
        import cv2
        (tmp_path / "frames").mkdir()
        for i in range(4):
            cv2.imwrite(str(tmp_path / "frames" / f"{i:06d}.jpg"), np.full((8, 8, 3), 40 * i, np.uint8))
        t0 = time.monotonic()
        got = list(video_frames(tmp_path, fps=20))
        assert len(got) == 4 and all(f.shape == (8, 8, 3) for f in got)
        assert time.monotonic() - t0 >= 3 / 20          # the fourth frame is not shown before 0.15 s
        assert len(list(video_frames(tmp_path, fps=20, realtime=False, limit=2))) == 2


def write_video(path, levels, fps, size=(64, 48), grain: int = 0):
    """A small MJPG video whose frame ``i`` is grey at ``levels[i]`` (with seeded ``grain``, which
    makes each frame's JPEG far larger than the file's header)."""
    import cv2
    rng = np.random.default_rng(0)
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, size)
    for level in levels:
        noise = rng.integers(-grain, grain + 1, (size[1], size[0], 3)) if grain else np.zeros((size[1], size[0], 3))
        out.write(np.clip(level + noise, 0, 255).astype(np.uint8))
    out.release()
    return path


class TestVideoFile:
    """``augur run --video`` / ``augur calibrate --video``: a recorded film of the table."""

    def test_a_video_is_read_in_order_at_about_twelve_frames_a_second(self, tmp_path):
        from vision.frames import VideoFile
        levels = [10 * i for i in range(20)]
        video = VideoFile(write_video(tmp_path / "v.avi", levels, fps=24))
        got = [int(f.mean()) for f in video]
        assert video.step == 2 and len(got) == 10
        assert all(abs(g - want) <= 2 for g, want in zip(got, levels[::2]))
        assert video.total == 20 and not video.cut_short
        same = VideoFile(write_video(tmp_path / "w.avi", levels, fps=12))
        assert same.step == 1 and len(list(same)) == 20

    def test_a_video_cut_short_ends_where_its_frames_stop_and_says_so(self, tmp_path):
        from vision.frames import VideoFile
        path = write_video(tmp_path / "v.avi", [10 * i for i in range(20)], fps=12, size=(320, 240), grain=40)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        video = VideoFile(path)
        got = list(video)
        assert 0 < len(got) < 20 and video.cut_short

    def test_a_missing_or_unreadable_video_is_refused_in_one_line(self, tmp_path):
        from vision.frames import VideoFile, VideoUnreadable
        with pytest.raises(VideoUnreadable, match="no such video"):
            VideoFile(tmp_path / "none.avi")
        (tmp_path / "text.avi").write_text("not a film")
        with pytest.raises(VideoUnreadable, match="not a video"):
            next(iter(VideoFile(tmp_path / "text.avi")))

    def test_the_calibration_takes_frames_spread_over_the_first_three_seconds(self, tmp_path):
        from vision.frames import CALIBRATION_FRAMES, video_start_frames
        path = write_video(tmp_path / "v.avi", [2 * i for i in range(120)], fps=24)     # five seconds
        got = [int(f.mean()) for f in video_start_frames(path)]
        assert len(got) == CALIBRATION_FRAMES and got[0] <= 2
        assert all(abs(b - a - 2 * 8) <= 2 for a, b in zip(got, got[1:]))      # one frame in 8 (a third of a second)
        assert got[-1] <= 2 * 72                                               # within the first three seconds


class FakeCapture:
    """A stand-in for ``cv2.VideoCapture`` that delivers frames of the size it is given, if it can."""

    opened: list["FakeCapture"] = []
    modes = {(1920, 1080), (1280, 720), (640, 480)}
    present = True

    def __init__(self, index):
        self.index, self.size = index, (640, 480)
        FakeCapture.opened.append(self)

    def isOpened(self):
        return FakeCapture.present

    def set(self, prop, value):
        import cv2
        w, h = self.size
        self.size = (int(value), h) if prop == cv2.CAP_PROP_FRAME_WIDTH else (w, int(value))
        if prop == cv2.CAP_PROP_FRAME_HEIGHT and self.size not in self.modes:
            self.size = (640, 480)          # the driver's nearest mode, crudely
        return True

    def read(self):
        if not FakeCapture.present:
            return False, None
        return True, np.zeros((self.size[1], self.size[0], 3), np.uint8)

    def release(self):
        pass


@pytest.fixture
def fake_camera(monkeypatch):
    import vision.frames
    FakeCapture.opened, FakeCapture.present = [], True
    monkeypatch.setattr(vision.frames.cv2, "VideoCapture", FakeCapture)
    return FakeCapture


class TestCamera:
    def test_a_camera_is_asked_for_full_hd_frames(self, fake_camera):
        """OpenCV opens most webcams at 640 x 480 unless told otherwise."""
        from vision.frames import CAPTURE_SIZE, camera_frames
        frame = next(camera_frames(0))
        assert CAPTURE_SIZE == (1920, 1080) and frame.shape == (1080, 1920, 3)

    def test_during_a_game_it_is_asked_for_the_calibrations_size(self, fake_camera):
        from vision.frames import camera_frames
        assert next(camera_frames(0, size=(1280, 720))).shape == (720, 1280, 3)

    def test_a_camera_opened_again_after_misses_keeps_the_size(self, fake_camera):
        from vision.frames import camera_frames
        frames = camera_frames(0, retries=2, size=(1280, 720))
        assert next(frames) is not None
        fake_camera.present = False
        assert [next(frames) for _ in range(3)] == [None] * 3
        fake_camera.present = True
        t0 = time.monotonic()
        again = next(frames)                # the third miss opened the camera again (after a second's rest)
        assert len(fake_camera.opened) == 2 and again.shape == (720, 1280, 3) and time.monotonic() - t0 < 5

    def test_a_missing_camera_is_a_clear_error(self, fake_camera):
        from vision.frames import CameraLost, camera_frames
        fake_camera.present = False
        with pytest.raises(CameraLost, match="camera 3 is not available"):
            next(camera_frames(3))

    def test_the_calibration_photo_is_taken_once_the_exposure_has_settled(self):
        """A webcam just opened delivers dark frames until its exposure settles: the calibration
        keeps the last of WARMUP_FRAMES + 1 reads, skipping any it failed to deliver."""
        from vision.frames import WARMUP_FRAMES, settled_frame

        class Waking:
            def __init__(self, dark: int, fails: set[int] = frozenset()):
                self.reads, self.dark, self.fails = 0, dark, fails

            def read(self):
                self.reads += 1
                if self.reads in self.fails:
                    return False, None
                level = 0 if self.reads <= self.dark else 180
                return True, np.full((4, 4, 3), level, np.uint8)

        cam = Waking(dark=WARMUP_FRAMES // 2, fails={WARMUP_FRAMES + 1})
        frame = settled_frame(cam)
        assert cam.reads == WARMUP_FRAMES + 1 and frame is not None and frame.mean() == 180
        assert settled_frame(Waking(dark=0, fails=set(range(1, WARMUP_FRAMES + 2)))) is None

    def test_the_calibration_keeps_still_frames_spread_over_a_few_seconds(self):
        """After the warm-up, one frame every CALIBRATION_SPACING reads, CALIBRATION_FRAMES in all,
        so that their median can take out a hand passing by; fewer when the camera stops."""
        from vision.frames import CALIBRATION_FRAMES, CALIBRATION_SPACING, WARMUP_FRAMES, still_frames

        class Counting:
            def __init__(self, stops_after: int | None = None):
                self.reads, self.stops_after = 0, stops_after

            def read(self):
                self.reads += 1
                if self.stops_after is not None and self.reads > self.stops_after:
                    return False, None
                return True, np.full((2, 2, 3), self.reads % 256, np.uint8)

        cam = Counting()
        frames = still_frames(cam)
        kept = [WARMUP_FRAMES + 1 + k * CALIBRATION_SPACING for k in range(CALIBRATION_FRAMES)]
        assert CALIBRATION_FRAMES >= 3 and [int(f[0, 0, 0]) for f in frames] == [r % 256 for r in kept]
        assert cam.reads == kept[-1]
        stopping = still_frames(Counting(stops_after=kept[2]))
        assert len(stopping) == 3
        assert still_frames(Counting(stops_after=0)) == []

    def test_calibrate_from_a_missing_camera_is_one_line(self, fake_camera, tmp_path, capsys):
        from augur.cli import main
        fake_camera.present = False
        code = main(["calibrate", "--camera", "0", "-o", str(tmp_path / "cal.json")])
        err = capsys.readouterr().err
        assert code == 2 and "camera 0 is not available" in err and len(err.strip().splitlines()) == 1

    def test_run_refuses_a_camera_that_delivers_another_size_than_the_calibration(self, fake_camera, tmp_path, capsys,
                                                                                   monkeypatch):
        """The counter reads frames of the calibration's size only; say so before the game starts."""
        from augur.cli import main
        from tests.test_vision import scene
        from calibration.profile import calibrate
        from vision.synth.board_art import procedural_art
        _, truth, cal = scene()
        path = tmp_path / "cal.json"
        calibrate(cal, procedural_art(), players=truth.players).save(path)      # made at 1280 x 720
        monkeypatch.setattr(fake_camera, "modes", {(640, 480)})         # an old webcam
        code = main(["run", "--camera", "0", "--calibration", str(path), "--players", "red,blue,yellow",
                     "--record", str(tmp_path / "rec")])
        err = capsys.readouterr().err
        assert code == 2 and "delivers 640x480 frames, the calibration was made at 1280x720" in err
        assert not (tmp_path / "rec").exists()        # nothing recorded for a game that never started
