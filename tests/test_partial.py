"""Reading again only what changed (vision.partial, DensityCounter.detect_in_run, SummitMemory)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.test_density import FakeSession, calibrated_scene
from tests.test_touched import with_piece
from vision.count import count
from vision.density import DEFAULT_COUNTER, MULTIPLE, N_OUT, STRIDE, DensityCounter
from vision.partial import EDGE, MAX_BOXES, REACH, Box, ReadSoFar, changed_boxes
from vision.records import Detections
from vision.summits import CHANNELS, PATCH, PIECE_CLASSES, SummitMemory, SummitReading


def pooled(x: np.ndarray) -> np.ndarray:
    """A stand-in network that sees only its own cell: each output cell is the mean of the 2 x 2
    input pixels under it (of the frame's three planes), on every output channel."""
    _, _, h, w = x.shape
    cell = x[0, :3].mean(axis=0).reshape(h // STRIDE, STRIDE, w // STRIDE, STRIDE).mean(axis=(1, 3))
    return np.broadcast_to(cell, (N_OUT,) + cell.shape).astype(np.float32)


def covered(boxes, cells_shape: tuple[int, int]) -> np.ndarray:
    """The output cells (``cells_shape``) that ``boxes`` of input pixels cover."""
    inside = np.zeros(cells_shape, bool)
    for box in boxes:
        cells = box.cells(STRIDE)
        inside[cells.rows, cells.cols] = True
    return inside


class LocalSession(FakeSession):
    """onnxruntime's stand-in: :func:`pooled`, recording the shape of every input it is given."""

    def __init__(self):
        super().__init__(np.zeros(0, np.float32))

    def run(self, _outputs, feeds):
        super().run(_outputs, feeds)
        return [pooled(feeds["input"])[None]]


class TestBox:
    def test_grown_lands_on_the_stride_grid_inside_the_input(self):
        b = Box(100, 13, 130, 29).grown(10, (400, 600), 8)
        assert (b.y0, b.x0, b.y1, b.x1) == (88, 0, 144, 40)
        assert Box(380, 590, 399, 600).grown(48, (400, 600), 8) == Box(328, 536, 400, 600)

    def test_union_overlap_within_and_cells(self):
        a, b = Box(8, 16, 24, 32), Box(0, 24, 16, 48)
        u = a.union(b)
        assert u == Box(0, 16, 24, 48) and a.union(None) == a
        assert a.overlap(b) == b.overlap(a) == Box(8, 24, 16, 32)
        assert a.overlap(Box(24, 16, 40, 32)) is None          # edge to edge: they do not meet
        assert a.within(u) == (slice(8, 24), slice(0, 16))
        assert u.cells(2) == Box(0, 8, 12, 24) and u.area == 24 * 32


class TestChangedBoxes:
    def test_each_patch_of_changed_pixels_gives_its_box_and_specks_give_none(self):
        rng = np.random.default_rng(3)
        before = rng.integers(60, 200, (120, 160, 3), dtype=np.uint8)
        now = before.copy()
        now[40:52, 70:85] = (20, 20, 240)
        assert changed_boxes(now, before) == (Box(40, 70, 53, 86),)     # a pixel more: see changed_boxes
        now[90:100, 10:20] = (240, 20, 20)
        assert sorted(changed_boxes(now, before), key=lambda b: b.y0) == [Box(40, 70, 53, 86), Box(90, 10, 101, 21)]
        specks = before.copy()
        specks[10, 10] = specks[90, 150] = (255, 255, 255)        # the sensor's lone specks
        assert changed_boxes(specks, before) == ()
        assert changed_boxes(before, before) == ()


def boxes_to_read(so_far: ReadSoFar, frame: np.ndarray) -> tuple[Box, ...]:
    return so_far.to_read(so_far.changes(frame))


class TestReadSoFar:
    def test_the_first_frame_is_read_whole_then_only_around_what_changed(self):
        rng = np.random.default_rng(4)
        frame = rng.integers(60, 200, (240, 320, 3), dtype=np.uint8)
        so_far = ReadSoFar((240, 320), MULTIPLE, STRIDE)
        whole = Box.whole((240, 320))
        assert boxes_to_read(so_far, frame) == (whole,)
        so_far.paste(whole, whole, np.ones((N_OUT, 120, 160), np.float32), frame)
        assert boxes_to_read(so_far, frame) == ()
        moved = frame.copy()
        moved[100:110, 150:160] = 255
        (box,) = boxes_to_read(so_far, moved)
        assert box == Box(100, 150, 111, 161).grown(REACH, (240, 320), MULTIPLE)     # see changed_boxes
        assert so_far.window(box) == box.grown(EDGE, (240, 320), MULTIPLE)

    def test_changes_far_apart_are_read_in_boxes_of_their_own(self):
        rng = np.random.default_rng(5)
        frame = rng.integers(60, 200, (480, 640, 3), dtype=np.uint8)
        so_far = ReadSoFar((480, 640), MULTIPLE, STRIDE)
        so_far.paste(so_far.whole, so_far.whole, np.ones((N_OUT, 240, 320), np.float32), frame)
        moved = frame.copy()
        moved[20:30, 20:30] = moved[440:450, 600:610] = 255
        boxes = boxes_to_read(so_far, moved)
        assert len(boxes) == 2
        around_both = boxes[0].union(boxes[1])
        assert sum(so_far.window(b).area for b in boxes) < so_far.window(around_both).area / 4
        # two changes whose boxes overlap are one box
        near = frame.copy()
        near[200:210, 300:310] = near[200:210, 360:370] = 255
        (box,) = boxes_to_read(so_far, near)
        assert box.x0 <= 300 - REACH and box.x1 >= 370 + REACH

    def test_merged_joins_boxes_that_overlap_or_cost_no_more_read_as_one(self):
        so_far = ReadSoFar((480, 640), MULTIPLE, STRIDE)
        a, b = Box(100, 100, 200, 200), Box(150, 150, 250, 250)
        assert so_far.merged([a, b]) == (a.union(b),)
        side_by_side = Box(100, 208, 200, 300)        # 8 px apart: their windows nearly coincide
        assert so_far.merged([a, side_by_side]) == (a.union(side_by_side),)
        far = Box(380, 500, 440, 600)
        assert so_far.merged([far, a, a]) == (a, far)
        inside = Box(120, 120, 140, 140)
        assert so_far.merged([a, inside, far]) == (a, far)

    def test_a_change_all_over_is_read_in_one_box(self):
        rng = np.random.default_rng(6)
        frame = rng.integers(60, 200, (960, 1280, 3), dtype=np.uint8)
        so_far = ReadSoFar((960, 1280), MULTIPLE, STRIDE)
        so_far.paste(so_far.whole, so_far.whole, np.ones((N_OUT, 480, 640), np.float32), frame)

        def flickering(n: int) -> np.ndarray:
            """``n`` patches too far apart for one pass to read two of them as cheaply as two."""
            out = frame.copy()
            for k in range(n):
                y, x = 20 + 300 * (k // 4), 20 + 400 * (k % 4)
                out[y:y + 8, x:x + 8] = 255
            return out

        assert len(boxes_to_read(so_far, flickering(MAX_BOXES))) == MAX_BOXES
        (box,) = boxes_to_read(so_far, flickering(MAX_BOXES + 1))
        assert box.y0 <= 20 and box.x0 <= 20 and box.y1 >= 628 and box.x1 >= 1228

    def test_paste_keeps_the_rest_of_the_output_and_remembers_the_pixels_read(self):
        frame = np.zeros((64, 64, 3), np.uint8)
        so_far = ReadSoFar((64, 64), MULTIPLE, STRIDE)
        whole = Box.whole((64, 64))
        so_far.paste(whole, whole, np.zeros((2, 32, 32), np.float32), frame)
        new = frame.copy()
        new[16:32, 16:32] = 200
        box, window = Box(16, 16, 32, 32), Box(8, 8, 40, 40)
        out = so_far.paste(box, window, np.full((2, 16, 16), 5.0, np.float32), new)
        assert out[:, 8:16, 8:16].min() == 5.0 and out.sum() == 5.0 * 2 * 8 * 8
        assert np.array_equal(so_far.frame, new)
        so_far.forget()
        assert boxes_to_read(so_far, new) == (whole,)


class TestSummitMemory:
    class Counting:
        """A classifier whose word at a point is its x; it records the points it read."""

        def __init__(self):
            self.read_at: list[list[int]] = []

        def read_windows(self, cut):
            at = cut.centres
            self.read_at.append([int(x) for x in at[:, 0]])
            pieces = np.zeros((len(at), PIECE_CLASSES))
            pieces[:, 1] = 1.0
            return SummitReading(at[:, 0] / 100.0, pieces)

    def test_a_standing_summit_keeps_its_word_and_the_others_are_read(self):
        cls, memory = self.Counting(), SummitMemory()
        points = np.array([[10, 0], [20, 0], [30, 0]])
        first, = memory.read((cls,), None, points, np.array([7, 3, 5]))
        assert cls.read_at == [[10, 20, 30]] and np.allclose(first.vexillum, [0.1, 0.2, 0.3])
        # the same cells, read from other pixels: the standing ones keep their word
        again, = memory.read((cls,), None, points + [[1, 0]], np.array([7, 3, 5]), np.array([True, False, True]))
        assert cls.read_at[-1] == [21]
        assert np.allclose(again.vexillum, [0.1, 0.21, 0.3])
        # a summit at a cell not read before is read, standing or not
        new, = memory.read((cls,), None, np.array([[40, 0], [50, 0]]), np.array([3, 9]), np.array([True, True]))
        assert cls.read_at[-1] == [50] and np.allclose(new.vexillum, [0.21, 0.5])
        # without standing, every summit is read
        memory.read((cls,), None, points, np.array([7, 3, 5]))
        assert cls.read_at[-1] == [10, 20, 30]

    def test_two_classifiers_read_one_cut_of_the_windows_and_keep_their_words_apart(self):
        class Cutting(self.Counting):
            def read_windows(self, cut):
                self.cut = cut
                return super().read_windows(cut)

        one, two, memory = Cutting(), Cutting(), SummitMemory()
        planes = np.zeros((6, 40, 120), np.uint8)
        points, cells = np.array([[10, 20], [60, 20], [100, 20]]), np.array([7, 3, 5])
        first, second = memory.read((one, two), planes, points, cells)
        assert one.cut is two.cut and one.cut.array.shape == (3, CHANNELS, PATCH, PATCH)
        assert np.allclose(first.vexillum, [0.1, 0.6, 1.0]) and np.allclose(second.vexillum, first.vexillum)
        # each keeps its own word where the summit stands
        memory.readings[two] = SummitReading(np.array([0.5, 0.5, 0.5]), memory.readings[two].pieces)
        first, second = memory.read((one, two), planes, points + [[1, 0]], cells, np.array([True, False, True]))
        assert one.read_at[-1] == two.read_at[-1] == [61] and len(one.cut) == 1
        assert np.allclose(first.vexillum, [0.1, 0.61, 1.0]) and np.allclose(second.vexillum, [0.5, 0.61, 0.5])
        # a classifier the memory has no word from: every summit is read, by each of them
        three = Cutting()
        memory.read((one, three), planes, points, cells, np.array([True, True, True]))
        assert one.read_at[-1] == three.read_at[-1] == [10, 60, 100]


class TestPartialReading:
    """The live loop's counter reads again only what changed since it last read."""

    def counter(self, partial: bool = True):
        img, truth, profile = calibrated_scene("easy")
        session = LocalSession()
        counter = DensityCounter(profile, session=session, partial=partial)
        # each reading: the output, the boxes of changed pixels, the boxes the run read again
        read: list[tuple[np.ndarray, tuple[Box, ...] | None, tuple[Box, ...]]] = []
        counter.read = lambda out, fresh=None: read.append((out.copy(), fresh, counter._run_boxes)) \
            or Detections.empty("density")
        return img, profile, counter, session, read

    def pieces_added(self, *regions: str):
        """A counter that read the easy table whole, then a new run with a piece added in each of
        ``regions``: the network's input shapes, the boxes read again, and over the output cells
        which of them the boxes cover and which the pieces changed."""
        img, profile, counter, session, read = self.counter()
        counter.detect_in_run(img, True)
        before = pooled(counter._input)
        for region in regions:
            img = with_piece(img, profile, region)
        counter.detect_in_run(img, True)
        out, fresh, boxes = read[1]
        after = pooled(counter._input)
        inside = covered(boxes, out.shape[1:])
        # the output read so far is the new pass inside the boxes and the old one outside
        assert np.array_equal(out[:, inside], after[:, inside])
        assert np.array_equal(out[:, ~inside], before[:, ~inside])
        assert len(fresh) == len(boxes)
        return session.seen, boxes, inside, np.abs(after[0] - before[0]) > 1

    def test_a_new_run_reads_only_around_the_change_and_pastes_it_into_the_last_reading(self):
        seen, boxes, inside, changed = self.pieces_added("italia")
        assert len(seen) == 2 and len(boxes) == 1
        assert seen[1][2] * seen[1][3] < seen[0][2] * seen[0][3] / 4
        # the piece's pixels lie inside the box read again
        assert changed.any() and inside[changed].all()

    def test_changes_far_apart_are_read_in_windows_of_their_own(self):
        seen, boxes, inside, changed = self.pieces_added("lusitania", "mesopotamia")
        assert len(seen) == 3 and len(boxes) == 2
        assert sum(h * w for *_, h, w in seen[1:]) < seen[0][2] * seen[0][3] / 4
        assert changed.any() and inside[changed].all()
        # each piece lies in a box of its own
        for box in boxes:
            cells = box.cells(STRIDE)
            assert changed[cells.rows, cells.cols].any()

    def test_the_run_reads_its_box_in_every_frame_plain_and_mirrored(self):
        img, profile, counter, session, read = self.counter()
        counter.detect_in_run(img, True)
        moved = with_piece(img, profile, "italia")
        for first in (True, False, False):
            counter.detect_in_run(moved, first)
        assert len(session.seen) == 4 and len(set(session.seen[1:])) == 1
        assert read[1][1:] == read[2][1:] == read[3][1:]
        # the summit classifiers are asked again near the changed pixels, a box well inside the one read
        (changes,), (box,) = read[1][1:]
        assert box.union(changes) == box and changes.area < box.area / 4
        # the stand-in network reads a mirrored window as it reads the window: the mean changes nothing
        assert np.allclose(read[2][0], read[1][0]) and np.allclose(read[3][0], read[1][0])

    def test_a_box_grown_late_in_the_run_is_averaged_where_the_last_pass_read(self):
        """The stand-in network's frames are told apart by an offset (0, then 10): where both
        frames read, the reading is their mean; where the boxes grew, the new frame's alone."""
        img, profile, counter, session, read = self.counter()
        counter.detect_in_run(img, True)
        offset = [0.0]
        run = session.run
        session.run = lambda outputs, feeds: [run(outputs, feeds)[0] + offset[0]]
        one = with_piece(img, profile, "italia")
        counter.detect_in_run(one, True)
        offset[0] = 10.0
        for region in ("dalmazia", "mesopotamia"):      # a change next to the first, and one far off
            one = with_piece(one, profile, region)
        counter.detect_in_run(one, False)
        (_, _, first), (out, _, grown) = read[1], read[2]
        assert len(first) == 1 and len(grown) == 2
        assert any(box.union(first[0]) == box for box in grown)
        exact = pooled(counter._input)
        a, b = covered(first, out.shape[1:]), covered(grown, out.shape[1:])
        assert np.allclose(out[:, a], exact[:, a] + 5.0)
        only_new = b & ~a
        assert only_new.any() and np.allclose(out[:, only_new], exact[:, only_new] + 10.0)

    def test_a_summit_classifier_reads_again_only_the_summits_near_the_changed_pixels(self):
        img, profile, counter, session, read = self.counter()
        classifier = TestSummitMemory.Counting()
        w = counter.labels.shape[1]
        at = np.array([50 * w + 50, 50 * w + 100, 50 * w + 150])      # input pixels x 101, 201 and 301
        counter._look((classifier,), counter._legion_memory, at, None)
        assert classifier.read_at[-1] == [101, 201, 301]
        # changed pixels from x 174 to 199: x 101 is PATCH / 2 + REACH + 1 px off, x 201 next to them
        assert PATCH // 2 + REACH == 72
        counter._look((classifier,), counter._legion_memory, at, (Box(90, 174, 110, 200),))
        assert classifier.read_at[-1] == [201]
        counter._look((classifier,), counter._legion_memory, at, (Box(90, 173, 110, 200),))
        assert classifier.read_at[-1] == [101, 201]                      # 72 px off: read
        counter._look((classifier,), counter._legion_memory, at, ())
        assert classifier.read_at[-1] == []

    def test_a_run_with_nothing_changed_is_not_read_at_all(self):
        img, profile, counter, session, read = self.counter()
        first = counter.detect_in_run(img, True)
        counter.read = lambda out, fresh=None: pytest.fail("nothing changed, nothing to read")
        assert counter.detect_in_run(img, True) is first
        assert len(session.seen) == 1

    def test_the_first_run_reads_whole_to_its_end_and_a_photo_resets(self):
        img, profile, counter, session, read = self.counter()
        for first in (True, False, False):
            counter.detect_in_run(img, first)
        assert len(set(session.seen)) == 1 and len(session.seen) == 3
        assert all(fresh is None for _, fresh, _ in read)
        counter.detect(img)
        counter.detect_in_run(with_piece(img, profile, "italia"), True)
        assert session.seen[-1] == session.seen[0] and read[-1][1] is None

    def test_without_partial_every_frame_is_read_whole(self):
        img, profile, counter, session, read = self.counter(partial=False)
        counter.detect_in_run(img, True)
        counter.detect_in_run(img, True)
        counter.detect_in_run(with_piece(img, profile, "italia"), True)
        assert len(session.seen) == 3 and len(set(session.seen)) == 1


@pytest.mark.skipif(not DEFAULT_COUNTER.is_file(), reason="no counting model shipped in models/")
class TestShippedCounterReadsPartly:
    def test_a_piece_added_is_counted_as_a_whole_reading_counts_it(self):
        img, truth, profile = calibrated_scene("easy")
        geo = profile.geometry
        moved = with_piece(img, profile, "italia")
        live = DensityCounter(profile)
        live.detect_in_run(img, True)
        shapes = []
        run = live.session.run
        live.session = type("Recording", (), {
            "run": lambda self, outputs, feeds: shapes.append(feeds["input"].shape) or run(outputs, feeds),
            "get_inputs": lambda self: []})()
        partly = count(live.detect_in_run(moved, True), geo, frozenset())
        whole = count(DensityCounter(profile).detect(moved), geo, frozenset())
        assert len(shapes) == 1 and shapes[0][2] * shapes[0][3] < live._input.shape[2] * live._input.shape[3] / 4
        assert partly.to_dict()["regions"] == whole.to_dict()["regions"]
        assert partly.regions["italia"] != count(DensityCounter(profile).detect(img), geo, frozenset()).regions.get("italia")


class TestPipelineReadsPartly:
    def test_the_pipeline_asks_its_counter_to_read_partly_unless_told_otherwise(self):
        from vision.pipeline import Pipeline
        img, truth, profile = calibrated_scene("easy")
        assert Pipeline(profile, which="density").detector.partial
        assert not Pipeline(profile, which="density", partial=False).detector.partial
