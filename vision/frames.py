"""Where frames come from: a camera, a recorded video, and a reader that keeps only the newest.

A camera delivers 30 frames a second and the counter reads about ten. Read in order, frames
queue up (OpenCV's capture keeps several in its buffer, a paced video keeps all of them), each
one older than the last, and every state is committed later than the players expect: the
staleness that camera-chess users complain of. :class:`NewestFrame` reads the source on a thread
of its own as fast as it delivers and hands the loop only the newest frame when the loop is
ready for one; the frames in between are dropped, as a person watching would.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from collections.abc import Iterable, Iterator

import cv2
import numpy as np

from tracker.errors import AugurError


class CameraLost(AugurError):
    """The camera cannot be opened."""


class VideoUnreadable(AugurError):
    """A recorded video file is missing, not a video, or holds no frame that can be read."""


#: The frame size a camera is asked for. OpenCV opens most webcams at 640 x 480 unless told
#: otherwise, and the far pieces of a tilted view need every pixel: on the same 80 hard renders
#: the shipped counter read 93.2 % of regions right at 1920 x 1080 and 88.5 % at 1280 x 720 (see
#: models/README.md). The driver falls back to its nearest mode; the counting network's input is
#: capped, so a larger frame costs only its undistortion and resize.
CAPTURE_SIZE = (1920, 1080)


def open_camera(index: int, size: tuple[int, int] | None = None) -> cv2.VideoCapture:
    """Camera ``index``, asked for frames of ``size`` (default CAPTURE_SIZE)."""
    cap = _capture(index, size)
    if not cap.isOpened():
        raise CameraLost(f"camera {index} is not available")
    return cap


#: Frames a camera is read for before the one kept as a still photo (the calibration's): a webcam
#: just opened delivers its first frames before its automatic exposure and white balance have
#: settled, often nearly black, and about 30 frames (a second at 30 fps) covers the slow ones.
#: The live loop needs no such wait: it reads continuously and commits only still frames.
WARMUP_FRAMES = 30


def settled_frame(cap: cv2.VideoCapture, warmup: int = WARMUP_FRAMES) -> np.ndarray | None:
    """One frame from an opened camera once its exposure has settled: the last of ``warmup`` + 1
    reads that delivered (a frame it failed to deliver is skipped), or None when none did."""
    frame = None
    for _ in range(warmup + 1):
        ok, got = cap.read()
        if ok and got is not None:
            frame = got
    return frame


#: Frames kept for a calibration from the camera, one every CALIBRATION_SPACING reads (about
#: three seconds at 30 fps): composed (calibration.composed), they take out a hand that passes
#: over the board in fewer than half of them, that is for up to a second and a half.
CALIBRATION_FRAMES = 9
CALIBRATION_SPACING = 10


def still_frames(cap: cv2.VideoCapture, count: int = CALIBRATION_FRAMES, spacing: int = CALIBRATION_SPACING,
                 warmup: int = WARMUP_FRAMES) -> list[np.ndarray]:
    """Up to ``count`` frames of an opened camera once its exposure has settled: the first as
    :func:`settled_frame` takes it, then the last delivered of every ``spacing`` reads. Fewer
    when the camera stops delivering (none when it never did)."""
    first = settled_frame(cap, warmup)
    frames = [] if first is None else [first]
    while frames and len(frames) < count:
        got = settled_frame(cap, spacing - 1)
        if got is None:
            break
        frames.append(got)
    return frames


def _capture(index: int, size: tuple[int, int] | None) -> cv2.VideoCapture:
    cap = cv2.VideoCapture(index)
    if cap.isOpened():
        width, height = size or CAPTURE_SIZE
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
    return cap


def video_frames(folder: Path, fps: float, realtime: bool = True, limit: int | None = None) -> Iterator[np.ndarray]:
    """The frames of a recorded video folder (``frames/*.jpg``), paced at ``fps`` when ``realtime``."""
    files = sorted((Path(folder) / "frames").glob("*.jpg"))
    start = time.monotonic()
    for i, f in enumerate(files[:limit] if limit else files):
        if realtime:
            delay = start + i / fps - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        yield cv2.imread(str(f), cv2.IMREAD_COLOR)


#: The rate a recorded video file is read at (``augur run --video``): the gate counts its still
#: spells in frames, and its counts were tuned on the rendered games' 12 frames a second
#: (:data:`vision.synth.video.DEFAULT_FPS`; ``SETTLE_FRAMES`` is about 1.3 s there). A phone's
#: 30 fps video read frame by frame would pass a pause of half a second as still; every
#: ``round(its rate / PLAYBACK_FPS)``-th frame is read instead, and the others are skipped.
PLAYBACK_FPS = 12


def open_video(path: Path) -> tuple[cv2.VideoCapture, float]:
    """A recorded video file, opened, and its frame rate (PLAYBACK_FPS when the file does not say)."""
    path = Path(path)
    if not path.is_file():
        raise VideoUnreadable(f"{path}: no such video")
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise VideoUnreadable(f"{path}: not a video this OpenCV can read")
    rate = cap.get(cv2.CAP_PROP_FPS)
    return cap, float(rate) if rate and np.isfinite(rate) and rate > 0 else float(PLAYBACK_FPS)


class VideoFile:
    """The frames of a recorded video file (a phone's film of the table, say), iterated in order
    and thinned to about ``fps`` (see PLAYBACK_FPS), none dropped for the counter's pace: a
    recording has no newer frame waiting. A file whose first frame cannot be read is refused
    (:class:`VideoUnreadable`, on the first ``next``); one cut short ends where its frames stop,
    and :attr:`cut_short` says so afterwards."""

    def __init__(self, path: Path, fps: float = PLAYBACK_FPS):
        self.path = Path(path)
        self._cap, rate = open_video(self.path)
        self.step = max(1, round(rate / fps))
        #: the frames the file says it holds (0 where it does not say), and how many were read or skipped
        self.total = max(0, int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0))
        self.passed = 0
        self._frames = self._read()

    def __iter__(self) -> VideoFile:
        return self

    def __next__(self) -> np.ndarray:
        return next(self._frames)

    @property
    def cut_short(self) -> bool:
        """The file ended more than a read's step before the frames it says it holds."""
        return self.total > 0 and self.passed < self.total - self.step

    def _read(self) -> Iterator[np.ndarray]:
        cap = self._cap
        try:
            while True:
                if self.passed % self.step:
                    if not cap.grab():
                        return
                    self.passed += 1
                    continue
                ok, frame = cap.read()
                if not ok or frame is None:
                    if self.passed == 0:
                        raise VideoUnreadable(f"{self.path}: no frame can be read (not a video, or cut short)")
                    return
                self.passed += 1
                yield frame
        finally:
            cap.release()


def video_start_frames(path: Path, count: int = CALIBRATION_FRAMES, seconds: float = 3.0) -> list[np.ndarray]:
    """Up to ``count`` frames spread over the first ``seconds`` of a recorded video file, for a
    calibration composed as a camera's is (:func:`still_frames`): the film should open on the
    empty board, score markers on box 0."""
    cap, rate = open_video(path)
    try:
        frames = still_frames(cap, count, spacing=max(1, round(rate * seconds / count)), warmup=0)
    finally:
        cap.release()
    if not frames:
        raise VideoUnreadable(f"{path}: no frame can be read (not a video, or cut short)")
    return frames


def camera_frames(index: int, retries: int = 50, size: tuple[int, int] | None = None) -> Iterator[np.ndarray | None]:
    """Frames of a camera, asked for ``size`` (:func:`open_camera`; the calibration's, during a
    game); ``None`` for each frame it fails to deliver (the pipeline keeps the last committed
    state meanwhile), and after ``retries`` misses in a row the camera is opened again."""
    cap = open_camera(index, size)
    misses = 0
    while True:
        ok, frame = cap.read()
        if ok:
            misses = 0
            yield frame
            continue
        misses += 1
        yield None
        if misses > retries:
            cap.release()
            time.sleep(1.0)
            cap = _capture(index, size)     # if it is not back yet, its frames stay None
            misses = 0


class NewestFrame:
    """Iterate over a frame source, getting only the newest frame each time (see the module doc).

    ``delivered`` counts the frames the source gave, ``dropped`` those replaced by a newer one
    before the loop took them, and ``index`` is the number of the frame last handed to the loop
    (from 0). With ``keep_times``, ``times`` holds the moment (``time.monotonic``) each frame was
    delivered, so that a benchmark can tell how late the loop acted on it. An exception raised by
    the source is raised again in the loop once the frames before it have been taken."""

    def __init__(self, source: Iterable, keep_times: bool = False):
        self.delivered = self.dropped = 0
        self._cv = threading.Condition()
        self._item = None
        self.index = -1
        self._fresh = self._done = False
        self._error: BaseException | None = None
        self._stop = threading.Event()
        self.times: list[float] | None = [] if keep_times else None
        self._thread = threading.Thread(target=self._pump, args=(iter(source),), daemon=True, name="frames")
        self._thread.start()

    def _pump(self, source: Iterator) -> None:
        try:
            for item in source:
                with self._cv:
                    if self._fresh:
                        self.dropped += 1
                    self._item, self._fresh = item, True
                    if self.times is not None:
                        self.times.append(time.monotonic())
                    self.delivered += 1
                    self._cv.notify()
                if self._stop.is_set():
                    break
        except BaseException as exc:  # noqa: BLE001 - handed to the loop, which decides
            self._error = exc
        finally:
            with self._cv:
                self._done = True
                self._cv.notify()

    def __iter__(self) -> NewestFrame:
        return self

    def __next__(self):
        with self._cv:
            while not self._fresh and not self._done:
                self._cv.wait()
            if self._fresh:
                self._fresh = False
                item, self._item = self._item, None
                self.index = self.delivered - 1
                return item
        if self._error is not None:
            raise self._error
        raise StopIteration

    @property
    def finished(self) -> bool:
        """The source has given its last frame (or failed)."""
        return self._done

    def close(self) -> None:
        """Stop reading the source (after the frame it is reading now)."""
        self._stop.set()
