"""The summit and hull classifiers: their windows, how the counter uses them, their training data, the shipped models."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.test_density import FakeSession, _cell_of, _maps_with_blobs, calibrated_scene
from tracker.errors import AugurError
from vision.count import count
from vision.density import N_OUT, STRIDE, DensityCounter
from vision.geometry import load_geometry
from vision.summits import (CHANNELS, DEFAULT_HULLS, DEFAULT_SUMMITS, MARK, PATCH, PIECE_CLASSES, SummitModelError,
                            SummitReading, patches, summit_marks, windows)


class TestWindows:
    def test_a_window_is_centred_on_its_point(self):
        planes = np.zeros((6, 100, 120), np.float32)
        planes[:, 40, 70] = 200.0
        win = patches(planes, np.array([[70, 40]]))
        assert win.shape == (1, 6, PATCH, PATCH)
        assert win[0, :, PATCH // 2, PATCH // 2].tolist() == [200.0] * 6
        assert win.sum() == 6 * 200.0

    def test_beyond_the_input_edge_a_window_is_black(self):
        planes = np.full((6, 60, 60), 9.0, np.float32)
        win = patches(planes, np.array([[0, 59]]), size=10)
        assert (win[0, :, :, :5] == 0).all()                   # left of x = 0: outside
        assert (win[0, :, 6:, :] == 0).all()                   # below y = 59: outside
        assert (win[0, :, :6, 5:] == 9.0).all()

    def test_the_other_summits_are_marked_where_they_stand(self):
        points = np.array([[30, 40], [36, 40], [30 + PATCH, 40]])
        marks = summit_marks(points, points, PATCH)
        c, h = PATCH // 2, MARK // 2
        first = marks[0, 0]
        assert (first[c - h:c + h + 1, c - h:c + h + 1] == 255).all()             # itself, at the centre
        assert (first[c - h:c + h + 1, c + 6 - h:c + 6 + h + 1] == 255).all()     # its neighbour, 6 to the right
        assert first.sum() == 2 * MARK * MARK * 255                                # the far one is outside
        assert marks[2, 0].sum() == MARK * MARK * 255                              # alone in its window
        assert summit_marks(np.zeros((0, 2)), points).shape == (3, 1, PATCH, PATCH)

    def test_the_classifier_sees_the_six_planes_and_the_marks(self):
        planes = np.random.default_rng(0).uniform(0, 255, (6, 60, 80)).astype(np.float32)
        points = np.array([[20, 30], [25, 30]])
        got = windows(planes, points)
        assert got.shape == (2, CHANNELS, PATCH, PATCH)
        np.testing.assert_array_equal(got[:, :6], patches(planes, points))
        np.testing.assert_array_equal(got[:, 6:], summit_marks(points, points))

    def test_windows_cut_from_8_bit_planes_stay_8_bit_and_hold_the_same_pixels(self):
        planes = np.random.default_rng(1).integers(0, 256, (6, 60, 80)).astype(np.uint8)
        points = np.array([[20, 30], [25, 30], [2, 58]])
        got = windows(planes, points)
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got, windows(planes.astype(np.float32), points))

    @pytest.mark.parametrize("kind, dtype", [("tensor(float)", np.float32), ("tensor(uint8)", np.uint8)])
    def test_a_classifier_is_given_its_windows_in_the_type_it_takes(self, kind, dtype):
        from vision.summits import SummitClassifier
        session = LeftHeavySession(sure=True, kind=kind)
        planes = np.random.default_rng(2).integers(0, 256, (6, 64, 96)).astype(np.uint8)
        for given in (planes, planes.astype(np.float32)):
            SummitClassifier("fake.onnx", session=session).read(given, np.array([[40, 20]]))
        assert session.dtypes == [dtype, dtype]

    def test_a_classifier_that_does_not_take_pixels_is_one_clear_error(self):
        from vision.summits import SummitClassifier
        with pytest.raises(SummitModelError, match="takes its input as tensor\\(int64\\)"):
            SummitClassifier("fake.onnx", session=LeftHeavySession(sure=True, kind="tensor(int64)"))

    def test_the_counter_asks_about_the_centre_of_each_summit_cell(self):
        _, _, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        w = counter.labels.shape[1]
        got = counter.summit_pixels(np.array([0, w + 3]))
        assert got.tolist() == [[STRIDE // 2, STRIDE // 2], [3 * STRIDE + STRIDE // 2, STRIDE + STRIDE // 2]]


class FakeSummits:
    """Stands in for the classifier: sure of a vexillum at the given input pixels and of the given
    counts, unsure of the count elsewhere; remembers what it was asked."""

    def __init__(self, vexilla=(), counts=None):
        self.vexilla = [tuple(p) for p in vexilla]
        self.counts = {tuple(p): n for p, n in (counts or {}).items()}
        self.asked: list[np.ndarray] = []
        self.planes_shape = None

    @staticmethod
    def _near(x, y, points):
        return [q for q in points if abs(x - q[0]) + abs(y - q[1]) <= STRIDE]

    def read(self, planes, points):
        self.asked.append(np.asarray(points))
        self.planes_shape = planes.shape
        vex, pieces = [], []
        for x, y in points:
            vex.append(0.99 if self._near(x, y, self.vexilla) else 0.01)
            near = self._near(x, y, self.counts)
            row = np.full(PIECE_CLASSES, 1.0 / PIECE_CLASSES)           # unsure
            if near:
                row[:] = 0.01
                row[self.counts[near[0]]] = 0.97
            pieces.append(row)
        return SummitReading(np.array(vex), np.array(pieces).reshape(-1, PIECE_CLASSES))

    def read_windows(self, cut):
        return self.read(cut.planes, cut.centres)


class TestCountingWithTheClassifier:
    def counted(self, rid, offsets, masses, kind="legionary", colour="red", vexilla=(), counts=None):
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        x, y = _cell_of(profile, counter, rid)
        blobs = [((x + dx, y + dy), m) for (dx, dy), m in zip(offsets, masses)]
        counter.session = FakeSession(_maps_with_blobs(counter.labels.shape, blobs, kind, colour))
        pixel = lambda dx, dy: (STRIDE * (x + dx) + STRIDE // 2, STRIDE * (y + dy) + STRIDE // 2)  # noqa: E731
        counter.summits = FakeSummits([pixel(*d) for d in vexilla],
                                      {pixel(*d): n for d, n in (counts or {}).items()})
        det = counter.detect(img)
        return count(det, counter.geo, det.unseen).regions.get(rid, {}), counter

    def test_a_summit_the_classifier_is_sure_of_is_a_vexillum(self):
        got, counter = self.counted("italia", [(0, 0), (4, 0), (0, 4)], [1.0, 1.0, 1.0], vexilla=[(4, 0)])
        assert got == {"red": {"legionary": 2, "vexillum": 1}}
        assert counter.summits.planes_shape == counter._input[0].shape

    def test_without_a_sure_answer_every_summit_stays_a_legionary(self):
        got, _ = self.counted("italia", [(0, 0), (4, 0), (0, 4)], [1.0, 1.0, 1.0])
        assert got == {"red": {"legionary": 3}}

    def test_the_classifiers_count_replaces_the_basins(self):
        # a merged pair the basin reads as one; a summit on nothing
        got, _ = self.counted("italia", [(0, 0), (4, 0), (0, 4)], [1.0, 1.0, 1.0], counts={(0, 0): 2, (4, 0): 0})
        assert got == {"red": {"legionary": 3}}
        got, _ = self.counted("italia", [(0, 0), (4, 0)], [1.0, 1.0], counts={(0, 0): 3})
        assert got == {"red": {"legionary": 4}}

    def test_a_vexillum_counted_with_a_neighbour_stands_beside_a_legionary(self):
        got, _ = self.counted("italia", [(0, 0), (4, 0)], [1.0, 1.0], vexilla=[(0, 0)], counts={(0, 0): 2})
        assert got == {"red": {"legionary": 2, "vexillum": 1}}
        # a vexillum is at least one piece, whatever the count says
        got, _ = self.counted("italia", [(0, 0)], [1.0], vexilla=[(0, 0)], counts={(0, 0): 0})
        assert got == {"red": {"vexillum": 1}}

    def test_where_it_is_not_sure_the_basin_decides(self):
        # one summit (on the heavier blob) whose basin holds both masses
        got, _ = self.counted("italia", [(0, 0), (1, 0)], [0.9, 1.1], vexilla=[(1, 0)])
        assert got == {"red": {"legionary": 1, "vexillum": 1}}

    def test_the_classifier_is_not_asked_about_fleets(self):
        got, counter = self.counted("tyrrenum", [(0, 0), (9, 0)], [1.0, 1.0], kind="trireme", colour="blue")
        assert got == {"blue": {"trireme": 2}}
        assert all(len(a) == 0 for a in counter.summits.asked)

    def test_how_unsure_the_classifiers_were_is_a_sign_of_doubt(self):
        """Each region's signs sum the classifiers' doubt (1 - the likeliest count's probability)
        over its summits: the summit classifier's in a province, the hull classifier's in a sea."""
        from vision.confidence import HIDDEN_FEATURES
        img, _, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        (x, y), (sx, sy) = _cell_of(profile, counter, "italia"), _cell_of(profile, counter, "tyrrenum")
        blobs = [((x, y), 1.0), ((x + 4, y), 1.0)]
        maps = _maps_with_blobs(counter.labels.shape, blobs, "legionary", "red")
        fleet = _maps_with_blobs(counter.labels.shape, [((sx, sy), 1.0)], "trireme", "blue")
        ys, xs = np.mgrid[:counter.labels.shape[0], :counter.labels.shape[1]]
        at_sea = (xs - sx) ** 2 + (ys - sy) ** 2 <= 36          # the fleet's kind and colour near it
        maps[0] += fleet[0]
        maps[1:-1] = np.where(at_sea, fleet[1:-1], maps[1:-1])
        counter.session = FakeSession(maps)
        pixel = lambda cx, cy: (STRIDE * cx + STRIDE // 2, STRIDE * cy + STRIDE // 2)  # noqa: E731
        counter.summits = FakeSummits(counts={pixel(x, y): 1})         # sure of one summit, not the other
        counter.hulls = FakeSummits()                                  # unsure of the fleet
        _, signs = counter.reading(counter.predict(img))
        row = lambda rid: dict(zip(HIDDEN_FEATURES, signs[counter.geo.region_ids.index(rid) + 1]))  # noqa: E731
        assert row("italia")["summit_doubt"] == pytest.approx(0.03 + 0.75, abs=1e-6)
        assert row("italia")["hull_doubt"] == 0
        assert row("tyrrenum")["hull_doubt"] == pytest.approx(0.75, abs=1e-6) and row("tyrrenum")["summit_doubt"] == 0
        assert row("africa")["summit_doubt"] == row("africa")["hull_doubt"] == 0

    def test_a_vexillum_called_is_a_sign_of_doubt(self):
        """A region's signs hold the vexilla counted there and the highest vexillum probability
        the classifier gave one of its summits: a vexillum is ten legionaries' strength, and on
        hard tables most calls are wrong."""
        from vision.confidence import HIDDEN_FEATURES
        _, counter = self.counted("italia", [(0, 0), (4, 0), (0, 4)], [1.0, 1.0, 1.0], vexilla=[(4, 0)])
        img, _, _ = calibrated_scene("easy")
        _, signs = counter.reading(counter.predict(img))
        row = lambda rid: dict(zip(HIDDEN_FEATURES, signs[counter.geo.region_ids.index(rid) + 1]))  # noqa: E731
        assert row("italia")["vexilla"] == 1 and row("italia")["flag_peak"] == pytest.approx(0.99)
        assert row("africa")["vexilla"] == row("africa")["flag_peak"] == 0
        _, counter = self.counted("italia", [(0, 0), (4, 0)], [1.0, 1.0])
        _, signs = counter.reading(counter.predict(img))
        assert row("italia")["vexilla"] == 0 and row("italia")["flag_peak"] == pytest.approx(0.01)

    def test_the_classifier_overrules_the_networks_vexillum(self):
        # the counting network scores vexillum at the summit; the classifier is sure it is not one
        got, _ = self.counted("italia", [(0, 0)], [1.0], kind="vexillum")
        assert got == {"red": {"legionary": 1}}


class TestCountingWithTheHullClassifier:
    def counted(self, rid, offsets, masses, kind="trireme", counts=None):
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        x, y = _cell_of(profile, counter, rid)
        blobs = [((x + dx, y + dy), m) for (dx, dy), m in zip(offsets, masses)]
        counter.session = FakeSession(_maps_with_blobs(counter.labels.shape, blobs, kind, "blue"))
        pixel = lambda dx, dy: (STRIDE * (x + dx) + STRIDE // 2, STRIDE * (y + dy) + STRIDE // 2)  # noqa: E731
        counter.hulls = FakeSummits(counts={pixel(*d): n for d, n in (counts or {}).items()})
        det = counter.detect(img)
        return count(det, counter.geo, det.unseen).regions.get(rid, {}), counter

    def test_its_count_replaces_one_trireme_a_summit(self):
        # moored hulls merged into one summit
        got, counter = self.counted("tyrrenum", [(0, 0), (9, 0)], [2.0, 1.0], counts={(0, 0): 2})
        assert got == {"blue": {"trireme": 3}}
        assert counter.hulls.planes_shape == counter._input[0].shape
        assert len(counter.hulls.asked[0]) == 2                 # both summits, marked together
        # one hull's second summit
        got, _ = self.counted("tyrrenum", [(0, 0), (9, 0)], [1.0, 1.0], counts={(9, 0): 0})
        assert got == {"blue": {"trireme": 1}}

    def test_where_it_is_not_sure_a_summit_is_one_trireme(self):
        got, _ = self.counted("tyrrenum", [(0, 0), (9, 0)], [2.0, 1.0])
        assert got == {"blue": {"trireme": 2}}

    def test_an_unreadable_hull_file_is_one_clear_line(self, tmp_path):
        from vision.summits import hulls_for
        bad = tmp_path / "pieces-hulls.onnx"
        bad.write_bytes(b"not a model")
        with pytest.raises(SummitModelError, match="cannot load the hull classifier pieces-hulls.onnx"):
            hulls_for(bad)
        assert hulls_for(tmp_path / "absent.onnx") is None

    def test_it_is_not_asked_about_provinces(self):
        got, counter = self.counted("italia", [(0, 0), (4, 0)], [1.0, 1.0], kind="legionary")
        assert got == {"blue": {"legionary": 2}}
        assert all(len(a) == 0 for a in counter.hulls.asked)


class TestSpilledPileTakenForAFleet:
    """A pile on the sea off Corsica's coast that the counting network scores trireme: the hull
    classifier says whether a trireme stands there, the summit classifier whether pieces do."""

    def counted(self, hull_counts, summit_counts, where="off"):
        img, truth, profile = calibrated_scene("easy")
        geo = load_geometry()
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        corsica = geo.region_ids.index("corsica") + 1
        if where == "off":      # on the sea, within Corsica's spill reach, as far from it as can be
            cells = np.argwhere((counter.land_labels == corsica) & (counter.labels != corsica) & (counter.labels > 0))
            on = np.argwhere(counter.labels == corsica)
            y, x = cells[np.argmax(np.hypot(*(cells - on.mean(axis=0)).T))]
        else:                   # on the sea, beyond every province's spill reach
            seas = [geo.region_ids.index(r) + 1 for r in geo.region_ids if geo.board.is_sea(r)]
            cells = np.argwhere(np.isin(counter.labels, seas) & (counter.land_labels == counter.labels))
            y, x = cells[len(cells) // 2]
        counter.session = FakeSession(_maps_with_blobs(counter.labels.shape, [((x, y), 1.0)], "trireme", "red"))
        pixel = (STRIDE * x + STRIDE // 2, STRIDE * y + STRIDE // 2)
        counter.hulls = FakeSummits(counts={pixel: n for n in hull_counts})
        counter.summits = FakeSummits(counts={pixel: n for n in summit_counts})
        det = counter.detect(img)
        return count(det, counter.geo, det.unseen).regions, geo.region_ids[counter.labels[y, x] - 1], counter

    def test_no_trireme_but_two_pieces_is_the_islands_pile(self):
        got, sea, counter = self.counted(hull_counts=[0], summit_counts=[2])
        assert got == {"corsica": {"red": {"legionary": 2}}}
        assert len(counter.summits.asked) == 2          # asked at the hull summit, then as a legionary summit

    def test_a_trireme_the_hull_classifier_is_sure_of_stays_a_fleet(self):
        got, sea, counter = self.counted(hull_counts=[1], summit_counts=[2])
        assert got == {sea: {"red": {"trireme": 1}}}
        assert all(len(a) == 0 for a in counter.summits.asked)

    def test_no_trireme_and_no_piece_is_nothing(self):
        got, sea, _ = self.counted(hull_counts=[0], summit_counts=[0])
        assert got == {}

    def test_where_the_summit_classifier_is_unsure_there_is_no_pile(self):
        got, sea, _ = self.counted(hull_counts=[0], summit_counts=[])
        assert got == {}                                # no trireme (the hull classifier is sure of none), no legionary

    def test_far_from_every_coast_no_trireme_is_no_pile(self):
        got, sea, counter = self.counted(hull_counts=[0], summit_counts=[2], where="open sea")
        assert got == {}
        assert all(len(a) == 0 for a in counter.summits.asked)


class TestSummitReading:
    def test_logits_become_probabilities(self):
        seen = SummitReading.from_logits(np.array([[0.0, 0.0, 9.0, 0.0, 0.0], [4.0, 0.0, 0.0, 0.0, 0.0]]))
        assert seen.vexillum == pytest.approx([0.5, 0.982], abs=1e-3)
        assert seen.pieces.sum(axis=1) == pytest.approx([1.0, 1.0])
        assert seen.sure_pieces(0.9).tolist() == [1, -1]
        assert seen.sure_pieces(0.2).tolist() == [1, 0]

    def test_the_hull_classifier_has_no_vexillum_output(self):
        seen = SummitReading.from_logits(np.array([[0.0, 9.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]))
        assert seen.vexillum.tolist() == [0.0, 0.0]
        assert seen.sure_pieces(0.9).tolist() == [1, -1]

    def test_a_model_with_other_outputs_is_refused(self):
        with pytest.raises(SummitModelError, match="gives 4 or 5 scores a window, not 3"):
            SummitReading.from_logits(np.zeros((2, 3)))


class LeftHeavySession(FakeSession):
    """A classifier session whose answer depends on which half of the window is brighter, so a
    mirror image reads otherwise: 3 pieces where the left half is, 1 where the right half is; its
    vexillum logit is the window's first row mean, scaled. Remembers the batch sizes it ran."""

    def __init__(self, sure: bool, kind: str = "tensor(float)"):
        super().__init__(np.zeros(0))
        self.sure = sure
        self.kind = kind
        self.batches: list[int] = []
        self.dtypes: list[type] = []

    def get_inputs(self):
        return [type("Input", (), {"name": "input", "type": self.kind})()]

    def run(self, _outputs, feeds):
        win = feeds["input"]
        self.batches.append(len(win))
        self.dtypes.append(win.dtype.type)
        half = win.shape[-1] // 2
        left = win[:, 0, :, :half].mean(axis=(1, 2)) > win[:, 0, :, half:].mean(axis=(1, 2))
        logits = np.zeros((len(win), 1 + PIECE_CLASSES), np.float32)
        logits[:, 0] = win[:, 0, 0, :].mean(axis=1) / 255.0 * 8.0 - 4.0
        gap = 20.0 if self.sure else 1.0
        logits[np.arange(len(win)), np.where(left, 4, 2)] = gap
        return [logits]


class TestViews:
    def test_the_other_views_are_the_mirror_image_the_half_turn_and_upside_down(self):
        from vision.summits import VIEWS, other_views
        win = np.arange(2 * 3 * 4 * 4).reshape(2, 3, 4, 4)
        mirrored, turned, upside_down = other_views(win)
        assert len(other_views(win)) == VIEWS - 1
        assert (mirrored == np.flip(win, axis=3)).all()
        assert (turned == np.rot90(win, 2, axes=(2, 3))).all()
        assert (upside_down == np.flip(win, axis=2)).all()

    @staticmethod
    def planes():
        planes = np.zeros((6, 64, 96), np.float32)
        planes[0, :, :40] = 200.0          # bright on the left of the first summit's window
        planes[0, 0, :] = 255.0            # a bright top row: the window's top row and bottom read otherwise
        return planes

    def test_a_sure_reading_is_read_once(self):
        from vision.summits import VIEWS, SummitClassifier
        session = LeftHeavySession(sure=True)
        seen = SummitClassifier("fake.onnx", session=session, views=VIEWS).read(self.planes(), np.array([[40, 20]]))
        assert session.batches == [1]
        assert seen.pieces.argmax(axis=1).tolist() == [3]

    def test_a_reading_in_doubt_is_the_mean_of_the_four_views(self):
        from vision.summits import VIEWS, SummitClassifier, other_views, windows
        session = LeftHeavySession(sure=False)
        clf = SummitClassifier("fake.onnx", session=session, views=VIEWS)
        points = np.array([[40, 20], [70, 40]])
        seen = clf.read(self.planes(), points)
        assert session.batches == [2, 3 * 2]             # every window in doubt: three more views each
        once = SummitClassifier("fake.onnx", session=LeftHeavySession(sure=False)).read(self.planes(), points)
        # the window itself reads 3 pieces (left half brighter); two of its other views read 1
        assert once.pieces[0].argmax() == 3
        win = windows(self.planes(), points)
        each = [SummitReading.from_logits(LeftHeavySession(False).run(None, {"input": np.ascontiguousarray(v)})[0])
                for v in [win] + other_views(win)]
        assert seen.pieces == pytest.approx(np.mean([r.pieces for r in each], axis=0))
        assert seen.vexillum == pytest.approx(np.mean([r.vexillum for r in each], axis=0))
        assert len({round(float(r.vexillum[0]), 6) for r in each}) > 1
        assert seen.pieces[0, 3] < once.pieces[0, 3] and seen.pieces[0, 1] > once.pieces[0, 1]

    def test_at_most_so_many_windows_are_read_again_the_least_certain_first(self, monkeypatch):
        import vision.summits as summits

        class CentreSession(LeftHeavySession):
            """Less sure of a window's count the darker its centre; remembers the centres it saw."""

            def run(self, _outputs, feeds):
                win = feeds["input"]
                self.batches.append(len(win))
                self.centres = win[:, 0, PATCH // 2, PATCH // 2].tolist()
                logits = np.full((len(win), 1 + PIECE_CLASSES), -9.0, np.float32)
                logits[:, 2] = win[:, 0, PATCH // 2, PATCH // 2] / 40.0     # one piece, against...
                logits[:, 3] = 0.0                                          # ...two
                return [logits]

        planes = np.zeros((6, 40, 200), np.float32)
        points = np.array([[20, 20], [60, 20], [100, 20], [140, 20], [180, 20]])
        for (x, y), value in zip(points, (160.0, 20.0, 80.0, 10.0, 60.0)):
            planes[0, y - 1:y + 2, x - 1:x + 2] = value             # the centre in every view
        monkeypatch.setattr(summits, "AGAIN_AT_MOST", 2)
        session = CentreSession(sure=False)
        seen = summits.SummitClassifier("fake.onnx", session=session, views=summits.VIEWS).read(planes, points)
        assert session.batches == [5, 3 * 2]
        assert sorted(set(session.centres)) == [10.0, 20.0]          # the two least certain, in every view
        assert seen.pieces.shape == (5, PIECE_CLASSES)

    def test_only_the_windows_in_doubt_are_read_again(self):
        from vision.summits import SummitReading as Reading
        seen = Reading(np.array([0.01, 0.5, 0.001, 0.999]),
                       np.array([[0.0, 0.995, 0.005, 0.0], [0.0, 0.995, 0.005, 0.0], [0.0, 0.6, 0.4, 0.0],
                                 [0.0, 1.0, 0.0, 0.0]]))
        # sure of one piece and no flag; sure of the count but not of the flag; unsure of the count; sure of both
        assert seen.in_doubt().tolist() == [False, True, True, False]

    def test_the_shipped_summit_classifier_reads_doubts_in_four_views_and_the_hull_classifier_once(self):
        from vision.summits import VIEWS, hulls_for, summits_for
        if not (DEFAULT_SUMMITS.is_file() and DEFAULT_HULLS.is_file()):
            pytest.skip("no summit or hull classifier shipped in models/")
        assert summits_for().views == VIEWS and hulls_for().views == 1


class TestTraining:
    def test_held_out_figures_weigh_the_lone_summits_back(self):
        from vision.summits_train import held_out_figures
        data = {"label": np.array([1, 1, 0, 0, 0]), "weight": np.array([1.0, 1.0, 1.0, 4.0, 4.0]),
                "pieces": np.array([1, 1, 2, 1, 0]), "rule": np.array([1, 1, 1, 1, 1]),
                "game": np.zeros(5, int), "tier": np.array(["easy"] * 5)}
        # vexillum logits, then pieces logits: sure of 2 at the third summit, of 0 at the last
        logits = np.zeros((5, 5))
        logits[:, 0] = [5.0, -5.0, 1.0, 3.0, -5.0]
        logits[2, 3] = logits[4, 1] = 9.0
        got = held_out_figures(data, np.arange(5), logits, thresholds=(0.5, 0.9))
        assert got["summits"] == 11 and got["vexilla"] == 2
        assert got["pieces_right_by_mass"] == pytest.approx(6 / 11, abs=1e-4)
        assert got["at_0.5"]["vexilla_found"] == 0.5 and got["at_0.5"]["false_vexilla"] == 5.0
        assert got["at_0.9"]["false_vexilla"] == 4.0
        assert got["at_0.9"]["pieces_right"] == 1.0

    def test_held_out_hull_figures_have_no_vexilla(self):
        from vision.summits_train import held_out_figures
        data = {"label": np.zeros(3, np.uint8), "weight": np.ones(3), "pieces": np.array([1, 2, 0]),
                "rule": np.ones(3, np.uint8), "game": np.zeros(3, int), "tier": np.array(["easy"] * 3)}
        logits = np.zeros((3, PIECE_CLASSES))
        logits[1, 2] = 9.0                                      # sure of the merged pair only
        got = held_out_figures(data, np.arange(3), logits, thresholds=(0.9,))
        assert "vexilla" not in got and "vexilla_found" not in got["at_0.9"]
        assert got["triremes_right_as_one"] == pytest.approx(1 / 3, abs=1e-4)
        assert got["at_0.9"]["pieces_right"] == pytest.approx(2 / 3, abs=1e-4)

    def test_every_few_tables_show_a_new_game(self):
        from vision.synth.dataset import TABLES_PER_GAME, game_of, table_game
        first = table_game(5, 0)
        assert table_game(5, TABLES_PER_GAME - 1) is first                  # the same game, cached
        assert game_of(TABLES_PER_GAME - 1) == 0 and game_of(TABLES_PER_GAME) == 1
        states = lambda steps: [s.state.to_dict() for s in steps[:5]]      # noqa: E731
        assert states(table_game(5, TABLES_PER_GAME)) != states(first)
        assert states(table_game(5, 0)) == states(first)                   # reproducible after the cache moved on

    def test_windows_cut_for_the_six_plane_classifier_are_refused(self, tmp_path):
        from vision.summits_train import load_windows
        f = tmp_path / "easy-00000.npz"
        np.savez(f, windows=np.zeros((2, 6, 52, 52), np.uint8), label=np.zeros(2, np.uint8), weight=np.ones(2),
                 standing=np.ones(2, np.uint8), rule=np.ones(2, np.uint8))
        with pytest.raises(AugurError, match="have 6 planes, not 7: they were cut for an older classifier"):
            load_windows([f])

    def test_a_windows_folder_of_another_render_seed_is_refused(self, tmp_path):
        from vision.summits_train import write_windows
        assert write_windows(tmp_path, {"easy": 0}, 11) == []
        with pytest.raises(AugurError, match="rendered with seed '11', not '12'"):
            write_windows(tmp_path, {"easy": 0}, 12)

    def test_a_windows_folder_of_the_other_classifier_is_refused(self, tmp_path):
        from vision.summits_train import write_windows
        write_windows(tmp_path, {"easy": 0}, 11, look="hulls")
        with pytest.raises(AugurError, match="were cut at 'hulls', not 'summits'"):
            write_windows(tmp_path, {"easy": 0}, 11)

    def test_a_windows_folder_of_other_prints_is_refused_and_an_old_one_shows_none(self, tmp_path):
        from vision.density_train import PrintChoice
        from vision.summits_train import write_windows
        write_windows(tmp_path, {"easy": 0}, 11)
        assert (tmp_path / "print.txt").read_text().strip() == "none"
        (tmp_path / "print.txt").unlink()              # a folder written before prints existed
        with pytest.raises(AugurError, match="were rendered with prints 'none', not '0.5 of the tables on b.jpeg"):
            write_windows(tmp_path, {"easy": 0}, 11, prints=PrintChoice("b.jpeg", "ccw", 0.5))

    def test_a_windows_folder_of_other_knocked_over_pieces_is_refused(self, tmp_path):
        from vision.summits_train import write_windows
        write_windows(tmp_path, {"easy": 0}, 11)
        assert (tmp_path / "toppled.txt").read_text().strip() == "none"
        with pytest.raises(AugurError, match="knocked-over pieces 'none', not '0.1 on 0.5 of the tables'"):
            write_windows(tmp_path, {"easy": 0}, 11, toppled=0.1)
        (tmp_path / "toppled.txt").unlink()            # a folder written before pieces were knocked over
        with pytest.raises(AugurError, match="knocked-over pieces 'none'"):
            write_windows(tmp_path, {"easy": 0}, 11, toppled=0.1)

    def test_the_tables_picked_are_rendered_with_their_pieces_knocked_over(self, monkeypatch):
        import vision.summits_train as st
        from vision.synth.dataset import toppled_of_table
        asked = []

        def render_table(*args, toppled=0.0, **kwargs):
            asked.append(toppled)
            raise AugurError("rendered no further")
        monkeypatch.setattr(st, "render_table", render_table)
        for i in range(12):
            with pytest.raises(AugurError):
                st.table_windows("hard", 11, i, toppled=0.2)
        assert asked == [toppled_of_table(0.2, "hard", 11, i) for i in range(12)] and 0.0 in asked and 0.2 in asked

    def test_a_table_on_the_print_is_rendered_and_read_on_the_print(self, monkeypatch):
        from tests.conftest import shared_file
        import vision.summits_train as st
        from vision.density_train import PrintChoice
        photo = shared_file("reference", "spqrisiko", "board-photo-topdown.jpeg")
        boards, render = [], st.render_table

        def recording(*args, board_print=None, **kwargs):
            boards.append(board_print)
            return render(*args, board_print=board_print, **kwargs)

        monkeypatch.setattr(st, "render_table", recording)
        on_print = st.table_windows("easy", 4242, 1, PrintChoice(str(photo), "ccw", 1.0))
        plain = st.table_windows("easy", 4242, 1)
        assert boards[0] is not None and boards[0].art.shape[:2] != (0, 0) and boards[1] is None
        assert len(on_print["label"]) >= 3 and len(plain["label"]) >= 3
        assert not np.array_equal(on_print["windows"][0], plain["windows"][0])
        # the hull classifier's seas too (session 40); the same table, so the same triremes
        hulls_on_print = st.table_hull_windows("easy", 4242, 1, PrintChoice(str(photo), "ccw", 1.0))
        hulls_plain = st.table_hull_windows("easy", 4242, 1)
        assert boards[2] is boards[0] and boards[3] is None
        assert len(hulls_on_print["standing"]) >= 3 and hulls_on_print["standing"].sum() >= 3
        assert abs(int(hulls_on_print["standing"].sum()) - int(hulls_plain["standing"].sum())) <= 1
        assert not np.array_equal(hulls_on_print["windows"][0], hulls_plain["windows"][0])

    def test_a_tables_hull_windows_are_labelled_by_the_rendered_triremes(self):
        from tracker.pieces import TRIREME
        from vision.summits_train import SHIFT, table_hull_windows
        from vision.synth.dataset import table_game
        from vision.density_train import render_table
        got = table_hull_windows("easy", 4242, 1)
        n = len(got["standing"])
        assert n >= 3 and got["windows"].shape == (n, CHANNELS, PATCH + 2 * SHIFT, PATCH + 2 * SHIFT)
        centre = (PATCH + 2 * SHIFT) // 2
        assert (got["windows"][:, 6, centre, centre] == 255).all()
        assert not got["label"].any() and (got["rule"] == 1).all()
        # on an easy table nearly every trireme stands for a summit, and most summits for one trireme
        _, truth, _ = render_table("easy", 4242, 1, table_game(4242, 1))
        hulls = sum(p.kind == TRIREME for p in truth.pieces)
        assert 0.8 * hulls <= got["standing"].sum() <= hulls
        assert np.median(got["standing"]) == 1

    def test_a_tables_windows_are_labelled_by_the_rendered_pieces(self):
        from vision.summits_train import SHIFT, table_windows
        got = table_windows("medium", 4242, 1)
        n = len(got["label"])
        assert n > 10 and got["windows"].shape == (n, CHANNELS, PATCH + 2 * SHIFT, PATCH + 2 * SHIFT)
        centre = (PATCH + 2 * SHIFT) // 2
        assert (got["windows"][:, 6, centre, centre] == 255).all()                 # each summit marked
        assert got["windows"].dtype == np.uint8 and got["windows"].max() > 0
        # every summit kept is near a rendered piece, and vexilla are labelled only near one
        assert np.median(got["dist"]) < 2.0
        assert set(np.unique(got["weight"])) <= {1.0, 4.0}
        # most summits stand on one piece; no summit claims more pieces than were rendered there
        assert np.median(got["standing"]) == 1 and got["standing"].max() <= 6

    def test_summits_on_the_sea_off_an_island_stand_for_its_spilled_pile(self):
        # easy table 7 of render seed 19 stands part of a pile on the sea off an island's coast:
        # those summits are the island's, so their pieces are the spilled legionaries (labelled by
        # the sea they stand on, every one of them would stand for nothing)
        from vision.summits_train import table_windows
        got = table_windows("easy", 19, 7)
        sea = got["at_sea"]
        assert sea.sum() >= 5 and (got["standing"][sea] >= 1).mean() >= 0.8
        assert (got["weight"][sea] == 1.0).all()                  # every summit at sea is kept

    def test_windows_cut_before_the_summits_at_sea_were_marked_load_unmarked(self, tmp_path):
        from vision.summits_train import load_windows
        arrays = dict(windows=np.zeros((2, CHANNELS, 52, 52), np.uint8), label=np.zeros(2, np.uint8),
                      weight=np.ones(2), standing=np.ones(2, np.uint8), rule=np.ones(2, np.uint8))
        np.savez(tmp_path / "easy-00001.npz", **arrays)
        np.savez(tmp_path / "easy-00002.npz", **arrays, at_sea=np.array([True, False]))
        data = load_windows(sorted(tmp_path.glob("*.npz")))
        assert data["at_sea"].tolist() == [False, False, True, False]

    def test_continuing_from_weights_of_another_shape_is_one_clear_line(self, tmp_path):
        torch = pytest.importorskip("torch", reason="building the classifier needs torch (the [train] extra)")
        from vision.summits_train import build_net, load_weights
        torch.save(build_net(16, 3, flag=False).state_dict(), tmp_path / "hulls.pt")
        with pytest.raises(AugurError, match="cannot continue from .*hulls.pt: not weights of this classifier's shape"):
            load_weights(build_net(24, 3), tmp_path / "hulls.pt")
        with pytest.raises(AugurError, match="no weights to continue from"):
            load_weights(build_net(16, 3, flag=False), tmp_path / "missing.pt")
        net = build_net(16, 3, flag=False)
        load_weights(net, tmp_path / "hulls.pt")
        saved = torch.load(tmp_path / "hulls.pt", weights_only=True)
        assert all(torch.equal(v, saved[k]) for k, v in net.state_dict().items())

    def test_full_tens_are_the_vexilla_a_states_armies_could_stand_as(self):
        from tracker.state import ObservedState
        from vision.density_train import full_tens
        state = ObservedState.from_dict({"regions": {
            "achaia": {"red": {"legionary": 9}}, "aegyptus": {"red": {"legionary": 12, "vexillum": 1}},
            "africa": {"blue": {"legionary": 30}, "neutral": {"centre": 1}}, "aegeum": {"blue": {"trireme": 4}}}})
        assert full_tens(state) == 0 + 2 + 3

    def test_vexillum_rich_tables_show_the_games_most_crowded_states(self):
        from vision.density_train import RICH_SHARE, full_tens, rich_steps
        from vision.synth.dataset import table_game
        steps = table_game(11, 8)
        rich = rich_steps(steps)
        assert len(rich) == round(RICH_SHARE * len(steps))
        tens = sorted(full_tens(s.state) for s in steps)
        assert min(full_tens(s.state) for s in rich) >= tens[int(0.85 * len(tens))] > 0
        assert [steps.index(s) for s in rich] == sorted(steps.index(s) for s in rich)    # in game order
        assert rich_steps(steps[:3]) and len(rich_steps(steps[:3])) == 1

    def test_vexillum_rich_tables_are_numbered_apart_and_flagged_when_loaded(self, tmp_path):
        from vision.summits_train import RICH_FIRST, is_rich, load_windows
        from vision.synth.dataset import game_of
        assert not is_rich(RICH_FIRST - 1) and is_rich(RICH_FIRST)
        assert game_of(RICH_FIRST) > game_of(800 * 3)                      # their games are new games
        for i in (3, RICH_FIRST + 3):
            np.savez(tmp_path / f"easy-{i:05d}.npz", windows=np.zeros((2, CHANNELS, 52, 52), np.uint8),
                     label=np.zeros(2, np.uint8), weight=np.ones(2), standing=np.ones(2, np.uint8),
                     rule=np.ones(2, np.uint8))
        data = load_windows(sorted(tmp_path.glob("*.npz")))
        assert data["rich"].tolist() == [False, False, True, True]

    def test_training_without_torch_is_one_clear_line(self):
        from augur.cli import _require_training
        with pytest.raises(AugurError, match=r"training needs no_such_module_x: install the \[train\] extra"):
            _require_training("no_such_module_x")


@pytest.mark.skipif(not DEFAULT_SUMMITS.is_file(), reason="no summit classifier shipped in models/")
class TestShippedClassifier:
    def test_the_shipped_classifier_reads_windows_of_its_size(self):
        from vision.summits import summits_for
        planes = np.random.default_rng(0).uniform(0, 255, (6, 120, 160)).astype(np.float32)
        seen = summits_for().read(planes, np.array([[30, 40], [100, 60], [0, 0]]))
        assert seen.vexillum.shape == (3,) and seen.pieces.shape == (3, PIECE_CLASSES)
        assert np.isfinite(seen.pieces).all() and seen.pieces.sum(axis=1) == pytest.approx(np.ones(3))

    def test_train_summits_run_with_its_defaults_reproduces_the_shipped_card(self):
        from augur.cli import build_parser
        from vision.summits import model_card
        _assert_recipe(build_parser().parse_args(["train-summits"]), _from_scratch(model_card()))

    def test_a_fine_tuned_card_records_the_command_that_reproduces_it(self):
        from vision.summits import model_card
        card = model_card()
        if "init" not in card:
            pytest.skip("the shipped summit classifier was trained from scratch")
        args = _reproduce_args(card, "train-summits")
        assert args.init
        _assert_recipe(args, card)


@pytest.mark.skipif(not DEFAULT_HULLS.is_file(), reason="no hull classifier shipped in models/")
class TestShippedHullClassifier:
    def test_the_shipped_hull_classifier_reads_windows_of_its_size(self):
        from vision.summits import hulls_for
        planes = np.random.default_rng(0).uniform(0, 255, (6, 120, 160)).astype(np.float32)
        seen = hulls_for().read(planes, np.array([[30, 40], [100, 60]]))
        assert seen.vexillum.tolist() == [0.0, 0.0] and seen.pieces.shape == (2, PIECE_CLASSES)
        assert seen.pieces.sum(axis=1) == pytest.approx(np.ones(2))

    def test_train_hulls_run_with_its_defaults_reproduces_the_shipped_card(self):
        from augur.cli import build_parser
        from vision.summits import model_card
        card = _from_scratch(model_card(DEFAULT_HULLS))
        args = build_parser().parse_args(["train-hulls"])
        assert args.hulls and card["data"]["command"] == "augur train-hulls"
        _assert_recipe(args, card)

    def test_a_fine_tuned_card_records_the_command_that_reproduces_it(self):
        from vision.summits import model_card
        card = model_card(DEFAULT_HULLS)
        if "init" not in card:
            pytest.skip("the shipped hull classifier was trained from scratch")
        args = _reproduce_args(card, "train-hulls")
        assert args.hulls and args.init
        _assert_recipe(args, card)


def _from_scratch(card: dict) -> dict:
    """The card of the run from scratch behind a shipped classifier: a fine-tune keeps the card it
    started from (``previous_classifier``) and the command that reproduces it."""
    while "init" in card:
        assert "--init" in card["reproduce"] and card["previous_classifier"]["model"] == card["model"]
        card = card["previous_classifier"]
    return card


def _reproduce_args(card: dict, command: str):
    """The options of the ``augur COMMAND`` step of a card's ``reproduce`` recipe, parsed."""
    from augur.cli import build_parser
    step = next(c for c in card["reproduce"].split(";") if f" -m augur {command} " in c)
    return build_parser().parse_args(step.split(" -m augur ")[1].split())


def _assert_recipe(args, card: dict) -> None:
    """The parsed options of train-summits, train-hulls or train-lying are the recipe the card
    records."""
    tiers = ("easy", "medium", "hard")
    assert tuple(args.images) == tuple(card["data"]["renders_per_tier"][t] for t in tiers)
    if hasattr(args, "rich"):              # train-summits alone renders vexillum-rich tables
        assert tuple(args.rich) == tuple(card["data"].get("vexillum_rich_per_tier", {}).get(t, 0) for t in tiers)
    assert args.render_seed == card["data"]["render_seed"]
    if "print" in card["data"]:            # a share of the tables on a real print (session 39)
        assert args.board_photo and card["data"]["print"] == \
            f"{args.print_share:g} of the tables on {Path(args.board_photo).name} turned {args.rotate}"
    else:
        assert not getattr(args, "board_photo", None)
    if "toppled" in card["data"]:          # pieces knocked over on half the tables (session 113)
        from vision.density_train import describe_toppled
        assert args.toppled and describe_toppled(args.toppled) == card["data"]["toppled"]
    else:
        assert not getattr(args, "toppled", None)
    for key in ("seed", "epochs", "batch", "lr", "width", "depth"):
        assert getattr(args, key) == card[key], key
