"""Pieces lying knocked over: the classifier that finds them (vision.lying), how the mark flows
from the counter through the state, the fusion and the held regions to the dashboard, and its
training data (vision.lying_train)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tracker.errors import StateError
from tracker.readings import LOW_CONFIDENCE
from tracker.state import ObservedState
from vision.lying import DEFAULT_LYING, LYING_CONFIDENCE, LyingReading, lying_regions
from vision.summits import SummitMemory


def _state(regions: dict, **extra) -> ObservedState:
    return ObservedState.from_dict({"board": "spqrisiko", "regions": regions, **extra})


ITALIA = {"red": {"legionary": 3}}


class TestLyingRegions:
    def test_a_region_needs_one_summit_at_the_threshold(self):
        region = np.array([3, 3, 5, 0])
        assert lying_regions(np.array([0.2, 0.95, 0.89, 0.99]), region) == {3}     # label 0 is off the map
        assert lying_regions(np.array([0.2, 0.95, 0.89, 0.99]), region, at_least=0.8) == {3, 5}
        assert lying_regions(np.zeros(0), np.zeros(0, int)) == set()

    def test_its_confidence_is_below_the_check_level(self):
        assert LYING_CONFIDENCE < LOW_CONFIDENCE


class TestLyingMemory:
    """The knocked-over classifier reads the summit classifier's windows, cut once, and keeps its
    word in the same memory (SummitMemory)."""

    class Counting:
        """A classifier that says ``p`` at every summit it is asked about and counts them."""

        def __init__(self, p):
            self.p, self.asked, self.cuts = p, 0, []

        def read_windows(self, cut):
            self.asked += len(cut)
            self.cuts.append(cut)
            return LyingReading(np.full(len(cut), self.p))

    def test_a_standing_summit_keeps_its_word_and_the_others_are_asked_again(self):
        memory, summit, lying = SummitMemory(), self.Counting(0.2), self.Counting(0.9)
        points = np.array([[10, 10], [30, 30], [50, 50]])
        _, first = memory.read((summit, lying), None, points, np.array([1, 2, 3]))
        assert lying.asked == 3 and first.lying.tolist() == [0.9] * 3
        memory.readings[lying] = LyingReading(np.array([0.1, 0.2, 0.3]))   # what it last said, by cell
        _, again = memory.read((summit, lying), None, points, np.array([1, 2, 3]),
                               standing=np.array([True, False, True]))
        assert lying.asked == 4 and again.lying.tolist() == [0.1, 0.9, 0.3]
        assert summit.cuts[-1] is lying.cuts[-1]                       # one cut for both


class TestStateMark:
    def test_it_round_trips_through_json(self):
        s = _state({"italia": ITALIA}, lying=["italia"], confidence={"italia": LYING_CONFIDENCE})
        back = ObservedState.from_json(s.to_json())
        assert back.lying == frozenset({"italia"}) and back == s
        assert "lying" not in _state({"italia": ITALIA}).to_dict()

    @pytest.mark.parametrize("bad", ["italia", ["atlantis"], [3]])
    def test_a_malformed_mark_is_refused(self, bad):
        with pytest.raises(StateError, match="'lying'"):
            _state({}, lying=bad)

    def test_a_player_s_count_lifts_it(self):
        s = _state({"italia": ITALIA, "dacia": {"blue": {"legionary": 2}}}, lying=["italia", "dacia"])
        assert s.counted("italia", {"red": {"legionary": 2}}).lying == frozenset({"dacia"})

    def test_a_state_part_way_takes_it_from_the_side_the_region_comes_from(self):
        before = _state({"italia": ITALIA}, lying=["italia"])
        after = _state({"italia": ITALIA, "dacia": {"blue": {"legionary": 2}}}, lying=["dacia"])
        assert before.with_regions_of(after, {"dacia"}).lying == frozenset({"italia", "dacia"})
        assert before.with_regions_of(after, {"italia"}).lying == frozenset()

    def test_an_override_lifts_it(self):
        from tracker.overrides import Override, apply_overrides
        camera = _state({"italia": ITALIA}, lying=["italia"], confidence={"italia": LYING_CONFIDENCE})
        o = Override(None, camera_value=ITALIA, value={"red": {"legionary": 2}})
        held = apply_overrides({"italia": o}, camera)
        assert held.lying == frozenset() and held.regions["italia"] == {"red": {"legionary": 2}}


class TestCountAndFusion:
    def test_count_keeps_the_detector_s_mark_for_seen_regions(self):
        from vision.count import count
        from vision.geometry import load_geometry
        from vision.records import Detections
        geo = load_geometry()
        det = Detections(np.array([geo.label_points["italia"]], float), ("legionary",), ("red",), np.ones(1),
                         lying=frozenset({"italia", "dacia"}))
        got = count(det, geo, unseen=frozenset({"dacia"}))
        assert got.lying == frozenset({"italia"})

    def test_the_fused_state_marks_a_region_half_its_frames_marked(self):
        from vision.fuse import Fusion
        fusion = Fusion(agree=3)
        marked = _state({"italia": ITALIA}, lying=["italia"])
        plain = _state({"italia": ITALIA})
        committed = None
        for s in (marked, plain, marked):
            committed = fusion.offer(s) or committed
        assert committed is not None and committed.lying == frozenset({"italia"})
        fusion = Fusion(agree=3)
        committed = None
        for s in (plain, plain, marked):
            committed = fusion.offer(s) or committed
        assert committed is not None and committed.lying == frozenset()


needs_model = pytest.mark.skipif(not DEFAULT_LYING.is_file(), reason="models/pieces-lying.onnx is not shipped")


@needs_model
class TestShippedClassifier:
    """The shipped classifier on rendered easy tables, read as `augur count` reads a photo."""

    @staticmethod
    def _read(n: int, toppled: float):
        """The first ``n`` easy bench tables (seed 4242, not a training seed), each read once: the
        detections and the regions where a rendered piece lies knocked over."""
        from calibration.profile import calibrate
        from vision.bench import lying_regions as truly_lying
        from vision.density import DensityCounter
        from vision.synth.board_art import procedural_art
        from vision.synth.dataset import iter_still_tables
        from vision.synth.render import calibration_render
        for _, img, truth, _ in iter_still_tables("easy", n, 4242, toppled=toppled):
            profile = calibrate(calibration_render(truth), procedural_art(), players=truth.players)
            yield DensityCounter(profile).detect(img), truly_lying(truth)

    def test_the_counter_cuts_no_window_twice_in_a_reading(self, monkeypatch):
        import vision.summits as summits
        from tests.test_density import calibrated_scene
        from vision.density import DensityCounter
        img, _, profile = calibrated_scene("easy")
        counter = DensityCounter(profile)
        assert counter.summits is not None and counter.lying is not None
        cut, real = [], summits.windows
        monkeypatch.setattr(summits, "windows", lambda planes, points, *a, **k:
                            cut.append(np.asarray(points).tobytes()) or real(planes, points, *a, **k))
        counter.detect(img)
        # the province summits (read by both classifiers) and the seas' trireme summits, each once
        assert len(cut) >= 2 and len(set(cut)) == len(cut)

    def test_it_finds_pieces_knocked_over_and_marks_their_regions_for_a_check(self):
        found = lying = false = 0
        for det, truth in self._read(2, 0.2):
            found, lying, false = found + len(det.lying & truth), lying + len(truth), false + len(det.lying - truth)
            assert all(det.region_confidence[r] <= LYING_CONFIDENCE for r in det.lying)
        # held-out easy tables: about nine in ten of such regions found (models/pieces-lying.json)
        assert lying >= 10 and found >= 0.6 * lying and false <= 1, (found, lying, false)

    def test_it_is_quiet_where_every_piece_stands(self):
        for det, truth in self._read(2, 0.0):
            assert not truth and not det.lying

    def test_train_lying_with_its_defaults_on_the_print_reproduces_the_card(self):
        from augur.cli import build_parser
        from tests.test_summits import _from_scratch
        card = _from_scratch(json.loads(DEFAULT_LYING.with_suffix(".json").read_text()))
        args = build_parser().parse_args(["train-lying", "--board-photo", "board-photo-topdown.jpeg", "--rotate", "ccw"])
        assert card["data"]["command"] == "augur train-lying" and not args.init
        _assert_lying_recipe(args, card)

    def test_a_fine_tuned_card_records_the_command_that_reproduces_it(self):
        from tests.test_summits import _reproduce_args
        card = json.loads(DEFAULT_LYING.with_suffix(".json").read_text())
        if "init" not in card:
            pytest.skip("the shipped knocked-over piece classifier was trained from scratch")
        args = _reproduce_args(card, "train-lying")
        assert args.init
        _assert_lying_recipe(args, card)


def _assert_lying_recipe(args, card: dict) -> None:
    """The parsed options of train-lying are the recipe the card records (the classifiers' shared
    check), every epoch of it in the history, and figures held out on each tier."""
    from tests.test_summits import _assert_recipe
    _assert_recipe(args, card)
    assert card["epochs"] == len(card["history"])
    assert set(card["held_out"]) == {"easy", "medium", "hard"}


class TestTrainingData:
    def test_the_windows_label_the_summit_each_lying_piece_stands_for(self):
        from vision.lying_train import table_lying_windows
        from vision.summits import CHANNELS, PATCH
        from vision.summits_train import SHIFT
        d = table_lying_windows("easy", 120, 3, None, 0.2)
        n = len(d["label"])
        assert d["windows"].shape == (n, CHANNELS, PATCH + 2 * SHIFT, PATCH + 2 * SHIFT)
        assert d["toppled"] == np.float32(0.2) and len(d["lying_regions"]) > 5
        ones = d["label"] == 1
        assert ones.sum() >= len(d["lying_regions"])        # one summit at least per region holding one
        assert set(d["region"][ones]) <= set(d["lying_regions"].tolist())
        assert (d["dist"][ones] <= 2.0).all() and (d["dist"][d["label"] == 0] > 1.5).all()

    def test_a_short_run_writes_a_classifier_the_counter_can_read(self, tmp_path):
        pytest.importorskip("torch", reason="training needs torch (the [train] extra)")
        pytest.importorskip("onnx", reason="the 8-bit export needs onnx (the [train] extra)")
        from vision.lying import LyingClassifier
        from vision.lying_train import train
        from vision.summits import CHANNELS, PATCH
        from vision.summits_train import write_windows
        # two games' tables (the first is held out), a fifth of the pieces knocked over on half of them
        write_windows(tmp_path / "w", {"easy": 16}, 120, workers=1, look="lying", toppled=0.2)
        card = train(tmp_path / "w", tmp_path / "m", epochs=1, batch=32, log=lambda _: None)
        assert card["data"]["lying_summits"] > 0 and len(card["history"]) == 1
        p = LyingClassifier(tmp_path / "m" / "pieces-lying.onnx")._probabilities(
            np.zeros((3, CHANNELS, PATCH, PATCH), np.uint8))
        assert p.shape == (3,) and ((p >= 0) & (p <= 1)).all()

    def test_the_command_refuses_to_learn_without_knocked_over_pieces(self, tmp_path, capsys):
        from augur.cli import main
        assert main(["train-lying", "--images", "0", "0", "0", "--toppled", "0", "--work", str(tmp_path)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "--toppled must be above 0" in err
