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
