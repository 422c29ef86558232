"""The summit-count model: how many legionaries stand at a summit, from its mass and the summit
classifier's word together (vision/summit_counts.py)."""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.test_density import FakeSession, _cell_of, _maps_with_blobs, calibrated_scene
from tests.test_summits import FakeSummits
from vision.confidence import file_sha256
from vision.count import count
from vision.density import N_OUT, STRIDE, DensityCounter, pieces_at_summit
from vision.summit_counts import (DEFAULT_SUMMIT_COUNTS, P0, SUMMIT_FEATURES, SummitCounts, SummitCountsError,
                                  fit_summit_counts, summit_counts_for, summit_signs)
from vision.summits import PIECE_CLASSES, PIECES_P

SHARP = 0.97


def _doubtful_pairs(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Summits whose basins hold 1.2 to 1.6 (the mass alone says one piece): two pieces stand at
    those the classifier leans to two (0.5 to 0.65, short of PIECES_P), one at those it leans to one."""
    rng = np.random.default_rng(seed)
    standing = rng.integers(1, 3, n)
    basin = rng.uniform(1.2, 1.6, n)
    lean = rng.uniform(0.5, 0.65, n)
    p = np.full((n, PIECE_CLASSES), 0.0)
    p[np.arange(n), standing] = lean
    p[np.arange(n), 3 - standing] = 1.0 - lean - 0.05
    p[:, 0] = 0.05
    return summit_signs(basin, p, np.full(n, 0.01), 4.5), standing


class TestSigns:
    def test_one_row_per_summit_in_the_models_order(self):
        p = np.array([[0.1, 0.6, 0.2, 0.1], [0.0, 0.0, 1.0, 0.0]])
        got = summit_signs(np.array([1.2, 5.0]), p, np.array([0.3, 0.9]), 4.0)
        assert got.shape == (2, len(SUMMIT_FEATURES))
        row = dict(zip(SUMMIT_FEATURES, got[1]))
        assert row["basin"] == 5.0 and row["basin_squared"] == 16.0            # the square's mass is capped at 4
        assert row["p2"] == 1.0 and row["log_p0"] == pytest.approx(np.log(1e-4))
        assert row["vexillum"] == 0.9 and row["across"] == 4.0


class TestFit:
    def test_it_reads_a_pair_the_threshold_rule_reads_as_one(self):
        signs, standing = _doubtful_pairs()
        model = fit_summit_counts(signs, standing)
        test, truth = _doubtful_pairs(seed=1)
        p = test[:, P0:P0 + PIECE_CLASSES]
        mass = pieces_at_summit(test[:, 0])
        rule = np.where(p.max(axis=1) >= PIECES_P, p.argmax(axis=1), mass)
        assert (rule == truth).mean() == pytest.approx((truth == 1).mean())     # the rule: always one
        assert (model.pieces(test, mass) == truth).mean() > 0.95

    def test_three_or_more_is_the_masses_count_when_that_is_more(self):
        model = SummitCounts(np.zeros(len(SUMMIT_FEATURES)), np.ones(len(SUMMIT_FEATURES)),
                             np.zeros((len(SUMMIT_FEATURES), PIECE_CLASSES)), np.array([0.0, 0.0, 0.0, 5.0]))
        signs = summit_signs(np.array([1.0, 5.2]), np.full((2, PIECE_CLASSES), 0.25), np.zeros(2), 4.0)
        assert model.pieces(signs, pieces_at_summit(signs[:, 0])).tolist() == [3, 5]

    def test_it_is_deterministic(self):
        signs, standing = _doubtful_pairs()
        a, b = fit_summit_counts(signs, standing), fit_summit_counts(signs, standing)
        np.testing.assert_array_equal(a.coef, b.coef)

    def test_no_summits_is_one_clear_error(self):
        with pytest.raises(SummitCountsError, match="no summits"):
            fit_summit_counts(np.zeros((0, len(SUMMIT_FEATURES))), np.zeros(0))


class TestModelFile:
    def model(self) -> SummitCounts:
        return fit_summit_counts(*_doubtful_pairs())

    def write(self, tmp_path: Path, data: dict) -> tuple[Path, Path, Path]:
        counter, summits = tmp_path / "counter.onnx", tmp_path / "summits.onnx"
        counter.write_bytes(b"counter")
        summits.write_bytes(b"summits")
        path = tmp_path / "counts.json"
        path.write_text(json.dumps(data))
        return counter, summits, path

    def test_it_reads_back_as_it_was_written(self):
        model = self.model()
        again = SummitCounts.from_dict(json.loads(json.dumps(model.to_dict())))
        signs, _ = _doubtful_pairs(seed=2)
        np.testing.assert_allclose(again.probabilities(signs), model.probabilities(signs))

    def test_it_is_read_only_for_the_networks_it_was_fitted_for(self, tmp_path):
        model = self.model()
        counter, summits, path = self.write(tmp_path, {})
        fitted = replace(model, counter_sha256=file_sha256(counter), summits_sha256=file_sha256(summits))
        path.write_text(json.dumps({"model": fitted.to_dict()}))
        summit_counts_for.cache_clear()
        assert summit_counts_for(counter, summits, path) is not None
        summits.write_bytes(b"another classifier")
        summit_counts_for.cache_clear()
        assert summit_counts_for(counter, summits, path) is None        # the threshold rule then
        assert summit_counts_for(counter, summits, tmp_path / "none.json") is None

    @pytest.mark.parametrize("data, message", [
        ({"model": {"features": ["basin"]}}, "other signs"),
        ({"model": {"features": list(SUMMIT_FEATURES), "mean": [0.0]}}, "malformed"),
        ({"nothing": 1}, "cannot read"),
    ])
    def test_a_broken_file_is_one_clear_error(self, tmp_path, data, message):
        counter, summits, path = self.write(tmp_path, data)
        summit_counts_for.cache_clear()
        with pytest.raises(SummitCountsError, match=message):
            summit_counts_for(counter, summits, path)


class FakeCounts:
    """Stands in for the model: a fixed count at every summit; remembers the signs it was given."""

    def __init__(self, n: int):
        self.n = n
        self.signs: list[np.ndarray] = []

    def pieces(self, signs, from_mass):
        self.signs.append(signs)
        return np.full(len(signs), self.n)


class TestCountingWithTheModel:
    def counted(self, offsets, masses, model, vexilla=(), counts=None):
        img, _, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        x, y = _cell_of(profile, counter, "italia")
        blobs = [((x + dx, y + dy), m) for (dx, dy), m in zip(offsets, masses)]
        counter.session = FakeSession(_maps_with_blobs(counter.labels.shape, blobs, "legionary", "red"))
        pixel = lambda dx, dy: (STRIDE * (x + dx) + STRIDE // 2, STRIDE * (y + dy) + STRIDE // 2)  # noqa: E731
        counter.summits = FakeSummits([pixel(*d) for d in vexilla], {pixel(*d): n for d, n in (counts or {}).items()})
        counter.summit_counts = model
        det = counter.detect(img)
        return count(det, counter.geo, det.unseen).regions.get("italia", {})

    def test_the_models_count_stands_at_every_summit_the_classifier_read(self):
        # the classifier is sure of one piece at the first summit: the model still decides
        got = self.counted([(0, 0), (4, 0), (0, 4)], [1.0, 1.0, 1.0], FakeCounts(2), counts={(0, 0): 1})
        assert got == {"red": {"legionary": 6}}

    def test_it_is_given_each_summits_mass_and_the_classifiers_word(self):
        model = FakeCounts(1)
        self.counted([(0, 0), (4, 0)], [1.0, 1.0], model, counts={(0, 0): 2})
        signs = np.concatenate(model.signs)
        assert signs.shape == (2, len(SUMMIT_FEATURES))
        rows = [dict(zip(SUMMIT_FEATURES, s)) for s in signs]
        assert sorted(r["p2"] for r in rows) == pytest.approx([0.25, SHARP])      # unsure, and sure of two
        assert all(0.5 < r["basin"] < 1.5 for r in rows)

    def test_a_vexillum_is_still_at_least_one_piece(self):
        got = self.counted([(0, 0), (4, 0)], [1.0, 1.0], FakeCounts(0), vexilla=[(0, 0)])
        assert got == {"red": {"vexillum": 1}}
        got = self.counted([(0, 0), (4, 0)], [1.0, 1.0], FakeCounts(2), vexilla=[(0, 0)])
        assert got == {"red": {"legionary": 3, "vexillum": 1}}


class TestShippedModel:
    def test_it_was_fitted_for_the_shipped_networks(self):
        from vision.density import DEFAULT_COUNTER
        from vision.summits import DEFAULT_SUMMITS
        summit_counts_for.cache_clear()
        assert summit_counts_for(DEFAULT_COUNTER.resolve(), DEFAULT_SUMMITS.resolve()) is not None, \
            "models/pieces-summit-counts.json was fitted for other networks: run augur fit-summit-counts"

    def test_its_card_says_how_it_was_made_and_that_it_beats_the_rule_on_hard_tables(self):
        card = json.loads(DEFAULT_SUMMIT_COUNTS.read_text(encoding="utf-8"))
        assert card["recipe"]["command"] == "augur fit-summit-counts"
        assert card["recipe"]["render_seed"] == 7171
        hard = card["figures_on_fitting_tables"]["hard"]
        assert hard["right_by_model"] > hard["right_by_threshold_rule"]

    def test_the_confidence_was_fitted_on_its_counts(self):
        from vision.confidence import DEFAULT_CONFIDENCE
        recipe = json.loads(DEFAULT_CONFIDENCE.read_text(encoding="utf-8"))["recipe"]
        assert recipe["summit_counts_sha256"] == file_sha256(DEFAULT_SUMMIT_COUNTS)

    def test_the_counter_reads_with_it(self):
        _, _, profile = calibrated_scene("easy")
        assert DensityCounter(profile).summit_counts is not None
        assert DensityCounter(profile, summits=None).summit_counts is None

    def test_fit_summit_counts_run_with_its_defaults_reproduces_the_shipped_card(self):
        from augur.cli import build_parser
        card = json.loads(DEFAULT_SUMMIT_COUNTS.read_text(encoding="utf-8"))
        args = build_parser().parse_args(["fit-summit-counts"])
        tiers = ("easy", "medium", "hard")
        assert tuple(args.images) == tuple(card["recipe"]["renders_per_tier"][t] for t in tiers)
        assert args.render_seed is None and card["recipe"]["render_seed"] == 7171
        assert card["recipe"]["print"] == "0.5 of the tables on board-photo-topdown.jpeg turned ccw"
        assert args.print_share == 0.5


class TestFitCommand:
    def test_it_writes_a_model_for_the_shipped_networks(self, tmp_path, capsys):
        from augur.cli import main
        from vision.density import DEFAULT_COUNTER
        from vision.summits import DEFAULT_SUMMITS
        out = tmp_path / "models" / "counts.json"
        assert main(["fit-summit-counts", "--images", "1", "1", "0", "--render-seed", "31", "--workers", "1",
                     "--out", str(out)]) == 0
        card = json.loads(out.read_text())
        assert card["recipe"]["render_seed"] == 31 and card["recipe"]["renders_per_tier"]["hard"] == 0
        assert set(card["figures_on_fitting_tables"]) == {"easy", "medium"}
        assert card["figures_on_fitting_tables"]["medium"]["summits"] > 20
        assert "read right by the model" in capsys.readouterr().out
        summit_counts_for.cache_clear()
        assert summit_counts_for(DEFAULT_COUNTER.resolve(), DEFAULT_SUMMITS.resolve(), out) is not None

    @pytest.mark.parametrize("argv, message", [
        (["--workers", "0"], "argument --workers: must be at least 1, not 0"),
        (["--board-photo", "board.jpg", "--print-share", "0"], "--print-share must lie"),
    ])
    def test_bad_options_are_one_line(self, tmp_path, capsys, argv, message):
        from augur.cli import main
        assert main(["fit-summit-counts", "--images", "1", "0", "0", "--out", str(tmp_path / "c.json")] + argv) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and not (tmp_path / "c.json").exists()

    def test_an_unwritable_destination_is_one_line(self, tmp_path, capsys):
        from augur.cli import main
        blocker = tmp_path / "file"
        blocker.write_text("not a folder")
        assert main(["fit-summit-counts", "--images", "1", "0", "0", "--workers", "1",
                     "--out", str(blocker / "counts.json")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("augur: error: cannot write the summit-count model") and err.count("\n") == 1
