"""The per-region confidence (a small network) and the hidden-region model (a logistic regression):
their fits, their file, and how counting and the counter use them."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests.test_density import FakeSession, _cell_of, _maps_with_blobs, calibrated_scene
from dataclasses import replace

from vision.confidence import (DEFAULT_CONFIDENCE, FEATURES, HIDDEN_FEATURES, ConfidenceError, RegionConfidence,
                               MeanConfidence, confidence_for, file_sha256, fit_logistic, fit_network, flag_figures,
                               hidden_for, model_from_dict, pooled_rows)
from vision.count import count
from vision.density import DEFAULT_COUNTER, N_OUT, DensityCounter
from vision.geometry import load_geometry
from vision.records import Detections


def _model(coef=None, intercept=0.0, sha=""):
    n = len(FEATURES)
    return RegionConfidence(np.zeros(n), np.ones(n), np.zeros(n) if coef is None else np.asarray(coef, float),
                            intercept, sha)


class TestLogisticFit:
    def test_it_learns_which_sign_means_doubt_and_is_calibrated(self):
        rng = np.random.default_rng(0)
        X = rng.normal(size=(4000, len(FEATURES)))
        p_true = 1 / (1 + np.exp(-(1.5 - 2.0 * X[:, 3])))         # "residual" high: likely wrong
        y = rng.random(4000) < p_true
        model = fit_logistic(X, y)
        assert model.coef[3] < -1.5 and abs(model.coef[0]) < 0.2
        p = model.predict(X)
        for lo, hi in ((0.2, 0.4), (0.6, 0.8), (0.9, 1.0)):
            sel = (p >= lo) & (p < hi)
            assert lo - 0.07 <= y[sel].mean() <= hi + 0.07

    def test_a_constant_feature_does_not_break_it(self):
        X = np.zeros((50, len(FEATURES)))
        X[:, 1] = np.arange(50)
        y = np.arange(50) < 40
        model = fit_logistic(X, y)
        assert np.all(np.isfinite(model.coef)) and model.predict(X)[0] > model.predict(X)[-1]


class TestNetworkFit:
    """The confidence model since session 44: one hidden layer between the signs and the output."""

    @staticmethod
    def _interaction(n=6000, seed=1):
        """A sign whose meaning turns with another's: a large residual is doubt in a province (sea 0)
        and no sign at all in a sea (sea 1). No straight line through the signs can say that."""
        rng = np.random.default_rng(seed)
        X = np.zeros((n, len(FEATURES)))
        X[:, 1:4] = rng.normal(size=(n, 3))
        X[:, 0] = rng.random(n) < 0.5
        p_true = np.where(X[:, 0] > 0.5, 0.9, 1 / (1 + np.exp(-(1.0 - 3.0 * X[:, 3]))))
        return X, rng.random(n) < p_true, p_true

    def test_it_learns_what_a_logistic_regression_cannot(self):
        X, y, p_true = self._interaction()
        test_X, _, test_p = self._interaction(seed=2)
        network = fit_network(X, y, epochs=100)
        logistic = fit_logistic(X, y)
        seas = test_X[:, 0] > 0.5
        big = seas & (test_X[:, 3] > 1.5)           # a sea with a large residual: still 0.9 right
        assert abs(network.predict(test_X)[big].mean() - 0.9) < 0.06
        assert logistic.predict(test_X)[big].mean() < 0.7
        err = lambda m: np.abs(m.predict(test_X) - test_p).mean()  # noqa: E731
        assert err(network) < 0.5 * err(logistic)

    def test_it_is_calibrated_and_the_same_for_a_seed(self):
        X, y, _ = self._interaction()
        a, b = fit_network(X, y, epochs=20, seed=3), fit_network(X, y, epochs=20, seed=3)
        assert np.array_equal(a.predict(X), b.predict(X))
        assert not np.array_equal(a.predict(X), fit_network(X, y, epochs=20, seed=4).predict(X))
        p = a.predict(X)
        for lo, hi in ((0.2, 0.5), (0.5, 0.8), (0.8, 0.95)):
            sel = (p >= lo) & (p < hi)
            assert sel.sum() > 100 and lo - 0.07 <= y[sel].mean() <= hi + 0.07

    def test_a_few_rows_and_a_constant_feature_do_not_break_it(self):
        X = np.zeros((40, len(FEATURES)))
        X[:, 1] = np.arange(40)
        model = fit_network(X, np.arange(40) < 30, epochs=300)
        p = model.predict(X)
        assert np.all(np.isfinite(p)) and p[0] > 0.8 and p[-1] < 0.5

    def test_it_round_trips_through_its_file(self):
        X, y, _ = self._interaction(n=500)
        m = replace(fit_network(X, y, units=5, epochs=2), counter_sha256="abc")
        back = RegionConfidence.from_dict(json.loads(json.dumps(m.to_dict())))
        assert back.hidden_weights.shape == (len(FEATURES), 5)
        assert np.allclose(back.predict(X), m.predict(X)) and back.counter_sha256 == "abc"
        d = m.to_dict()
        with pytest.raises(ConfidenceError, match="malformed"):
            RegionConfidence.from_dict({**d, "hidden_bias": d["hidden_bias"][:-1]})
        with pytest.raises(ConfidenceError, match="malformed"):
            RegionConfidence.from_dict({**d, "hidden_weights": "none"})
        logistic = {k: v for k, v in d.items() if not k.startswith("hidden")}   # a logistic's coef is per sign
        with pytest.raises(ConfidenceError, match="malformed"):
            RegionConfidence.from_dict(logistic)


class TestModelFile:
    def test_round_trip(self):
        m = _model(coef=np.arange(len(FEATURES)) / 10, intercept=0.5, sha="abc")
        back = RegionConfidence.from_dict(json.loads(json.dumps(m.to_dict())))
        x = np.ones((3, len(FEATURES)))
        assert np.allclose(back.predict(x), m.predict(x)) and back.counter_sha256 == "abc"

    def test_a_model_of_other_features_or_malformed_is_refused(self):
        d = _model().to_dict()
        with pytest.raises(ConfidenceError, match="other features"):
            RegionConfidence.from_dict({**d, "features": d["features"][:-1]})
        with pytest.raises(ConfidenceError, match="malformed"):
            RegionConfidence.from_dict({**d, "scale": [0.0] * len(FEATURES)})
        with pytest.raises(ConfidenceError, match="malformed"):
            RegionConfidence.from_dict({k: v for k, v in d.items() if k != "coef"})

    def test_the_hidden_region_model_shares_the_file(self, tmp_path):
        weights = tmp_path / "net.onnx"
        weights.write_bytes(b"one network")
        path = tmp_path / "conf.json"
        sha = file_sha256(weights)
        path.write_text(json.dumps({"model": _model(sha=sha).to_dict()}))
        assert hidden_for(weights, path) is None                 # an older file: the cover decides
        hidden = replace(_model(sha=sha), mean=np.zeros(len(HIDDEN_FEATURES)), scale=np.ones(len(HIDDEN_FEATURES)),
                         coef=np.zeros(len(HIDDEN_FEATURES)), features=HIDDEN_FEATURES)
        path.write_text(json.dumps({"model": _model(sha=sha).to_dict(), "hidden_model": hidden.to_dict()}))
        hidden_for.cache_clear()
        got = hidden_for(weights, path)
        assert got is not None and got.features == HIDDEN_FEATURES
        # a hidden model of the confidence's features is refused
        path.write_text(json.dumps({"model": _model(sha=sha).to_dict(), "hidden_model": _model(sha=sha).to_dict()}))
        hidden_for.cache_clear()
        with pytest.raises(ConfidenceError, match="fitted on other features: run augur fit-confidence again"):
            hidden_for(weights, path)
        hidden_for.cache_clear()

    def test_a_model_fitted_for_other_weights_is_not_used(self, tmp_path):
        weights = tmp_path / "net.onnx"
        weights.write_bytes(b"one network")
        path = tmp_path / "conf.json"
        path.write_text(json.dumps({"model": _model(sha=file_sha256(weights)).to_dict()}))
        assert confidence_for(weights, path) is not None
        other = tmp_path / "other.onnx"
        other.write_bytes(b"another network")
        assert confidence_for(other, path) is None
        path.write_text("{not json")
        confidence_for.cache_clear()
        with pytest.raises(ConfidenceError):
            confidence_for(weights, path)
        confidence_for.cache_clear()


class TestMeanConfidence:
    def _mean(self, sha=""):
        return MeanConfidence((_model(coef=np.arange(len(FEATURES)) / 10, sha=sha), _model(intercept=-1.0, sha=sha)),
                              sha)

    def test_it_is_the_mean_of_its_members(self):
        m = self._mean()
        x = np.random.default_rng(3).normal(size=(5, len(FEATURES)))
        assert np.allclose(m.predict(x), (m.members[0].predict(x) + m.members[1].predict(x)) / 2)
        assert not np.allclose(m.predict(x), m.members[0].predict(x))

    def test_it_round_trips_through_its_file_and_is_used_for_its_network(self, tmp_path):
        weights = tmp_path / "net.onnx"
        weights.write_bytes(b"one network")
        m = self._mean(sha=file_sha256(weights))
        path = tmp_path / "conf.json"
        path.write_text(json.dumps({"model": m.to_dict()}))
        confidence_for.cache_clear()
        back = confidence_for(weights, path)
        x = np.ones((2, len(FEATURES)))
        assert isinstance(back, MeanConfidence) and len(back.members) == 2
        assert np.allclose(back.predict(x), m.predict(x))
        confidence_for.cache_clear()

    def test_a_malformed_mean_is_refused(self, tmp_path):
        d = self._mean().to_dict()
        with pytest.raises(ConfidenceError, match="no member networks"):
            model_from_dict({**d, "members": []})
        with pytest.raises(ConfidenceError, match="other features"):
            model_from_dict({**d, "features": d["features"][:-1]})
        with pytest.raises(ConfidenceError, match="malformed"):
            model_from_dict({**d, "members": [{**d["members"][0], "scale": [0.0] * len(FEATURES)}]})
        weights = tmp_path / "net.onnx"
        weights.write_bytes(b"w")
        path = tmp_path / "conf.json"
        path.write_text(json.dumps({"model": {**d, "members": ["not a network"]}}))
        confidence_for.cache_clear()
        with pytest.raises(ConfidenceError, match="cannot read the confidence model"):
            confidence_for(weights, path)
        confidence_for.cache_clear()


class TestFlagFigures:
    def test_what_a_player_sees(self):
        f = flag_figures([0.2, 0.5, 0.9, 0.95, 0.99], [False, True, True, False, True], 0.8)
        assert f["flagged"] == pytest.approx(0.4) and f["wrong"] == 2 and f["wrong_flagged"] == 1
        assert f["unflagged_right"] == pytest.approx(2 / 3)


class TestCountingWithConfidence:
    def test_every_seen_region_gets_the_detectors_confidence_empty_ones_too(self):
        geo = load_geometry()
        det = Detections(np.array([geo.label_points["italia"]]), ("legionary",), ("red",), np.array([0.9]),
                         region_confidence={"italia": 0.42, "africa": 0.97, "sicilia": 0.3}, source="t",
                         unseen=frozenset({"sicilia"}))
        state = count(det, geo, det.unseen)
        assert state.confidence_of("italia") == 0.42 and state.confidence_of("africa") == 0.97
        assert state.confidence_of("sicilia") == 0.0            # unseen: no confidence at all
        assert state.regions["italia"] == {"red": {"legionary": 1}}

    def test_a_piece_that_cannot_stand_there_still_lowers_it(self):
        geo = load_geometry()
        at = geo.label_points["tyrrenum"]
        det = Detections(np.array([at, at]), ("trireme", "legionary"), ("red", "red"), np.array([1.0, 1.0]),
                         region_confidence={"tyrrenum": 0.8})
        assert count(det, geo).confidence_of("tyrrenum") == pytest.approx(0.4)


class TestCounterConfidence:
    def test_the_counter_reports_signs_of_doubt_for_every_region(self):
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        x, y = _cell_of(profile, counter, "italia")
        # two legionaries merged into one summit (a twin), nothing hidden
        counter.session = FakeSession(_maps_with_blobs(counter.labels.shape, [((x, y), 2.0)], "legionary", "red"))
        det, signs = counter.reading(counter.predict(img))
        geo = load_geometry()
        assert signs.shape == (len(geo.region_ids) + 1, len(HIDDEN_FEATURES))
        row = signs[geo.region_ids.index("italia") + 1]
        named = dict(zip(HIDDEN_FEATURES, row))
        assert named["cover_near"] == named["cover_wide"] == 0 and named["occluder_mean"] < 0.01
        assert named["pieces"] == 2 and named["twin_summits"] == 1 and named["sea"] == 0 and named["empty"] == 0
        assert named["mass"] == pytest.approx(2.0, abs=0.05) and named["cover"] == 0
        other = dict(zip(HIDDEN_FEATURES, signs[geo.region_ids.index("africa") + 1]))
        assert other["empty"] == 1 and other["pieces"] == 0

    def test_a_hand_beside_a_region_shows_in_its_occlusion_signs_and_the_hidden_model_decides(self):
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        x, y = _cell_of(profile, counter, "italia")
        maps = _maps_with_blobs(counter.labels.shape, [((x, y), 1.0)], "legionary", "red")
        # an occluder patch just beside Italia's pieces, touching few of its cells
        a = int(round(counter.across))
        maps[-1, y - a:y + a, x + a:x + 3 * a] = 9.0
        counter.session = FakeSession(maps)
        out = counter.predict(img)
        _, signs = counter.reading(out)
        geo = load_geometry()
        named = dict(zip(HIDDEN_FEATURES, signs[geo.region_ids.index("italia") + 1]))
        assert named["cover_wide"] >= named["cover_near"] >= named["cover"] and named["cover_near"] > 0
        # by the cover alone Italia is seen; a model that reads a hand nearby marks it unseen
        assert "italia" not in counter.read(out).unseen
        k = HIDDEN_FEATURES.index("cover_near")
        coef = np.zeros(len(HIDDEN_FEATURES))
        coef[k] = 1.0
        counter.hidden = RegionConfidence(np.zeros(len(HIDDEN_FEATURES)), np.full(len(HIDDEN_FEATURES), 0.01), coef,
                                          -0.5, features=HIDDEN_FEATURES)        # hidden when cover_near > 0.005
        det = counter.read(out)
        assert "italia" in det.unseen and "africa" not in det.unseen
        assert count(det, geo, det.unseen).confidence_of("italia") == 0.0

    def test_a_given_model_sets_every_seen_regions_confidence(self):
        img, truth, profile = calibrated_scene("easy")
        k = FEATURES.index("twin_summits")
        coef = np.zeros(len(FEATURES))
        coef[k] = -3.0                                           # a twin summit is a doubt
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)),
                                 confidence=_model(coef=coef, intercept=2.0))
        x, y = _cell_of(profile, counter, "italia")
        counter.session = FakeSession(_maps_with_blobs(counter.labels.shape, [((x, y), 2.0)], "legionary", "red"))
        state = count(counter.detect(img), load_geometry())
        assert state.confidence_of("italia") == pytest.approx(1 / (1 + np.exp(1.0)), abs=1e-3)
        assert state.confidence_of("africa") == pytest.approx(1 / (1 + np.exp(-2.0)), abs=1e-3)


@pytest.mark.skipif(not (DEFAULT_COUNTER.is_file() and DEFAULT_CONFIDENCE.is_file()),
                    reason="no counting network or confidence model shipped in models/")
class TestShippedConfidence:
    def test_it_belongs_to_the_shipped_network(self):
        shipped = confidence_for(DEFAULT_COUNTER.resolve())
        from vision.confidence import FIT_NETWORKS
        assert isinstance(shipped, MeanConfidence) and len(shipped.members) == FIT_NETWORKS   # session 118
        assert all(m.hidden_weights is not None for m in shipped.members)                   # session 44's network
        assert hidden_for(DEFAULT_COUNTER.resolve()) is not None

    def test_fit_confidence_defaults_are_the_shipped_cards_seeds_and_networks(self):
        from augur.cli import build_parser
        from vision.confidence import FIT_SEED, FIT_SEEDS
        card = json.loads(DEFAULT_CONFIDENCE.read_text(encoding="utf-8"))
        args = build_parser().parse_args(["fit-confidence"])
        assert args.render_seed is None and list(FIT_SEEDS) == card["recipe"]["render_seeds"]
        assert args.networks == card["networks"] == len(card["model"]["members"])
        # the hidden-region model was kept from the seed-7070 fit, and says so
        assert card["recipe"]["hidden_model_recipe"]["render_seed"] == FIT_SEED

    def test_wrong_regions_are_less_sure_than_right_ones(self):
        """On held-out tables (not the fitting tables' seed) the regions read wrong have a lower
        mean confidence than those read right: the model points at what to check. Three tables
        per tier: two tables held too few wrong regions for a steady mean (with the summit
        classifier counting better, a dozen)."""
        from tracker.state import ObservedState
        geo = load_geometry()
        right, wrong = [], []
        for tier, k in ((tier, k) for tier in ("easy", "medium", "hard") for k in range(3)):
            img, truth, profile = calibrated_scene(tier, k)
            det = DensityCounter(profile).detect(img)
            got, want = count(det, profile.geometry, det.unseen), ObservedState.from_dict(truth.state)
            for r in geo.region_ids:
                if r not in got.unseen:
                    (right if got.regions.get(r, {}) == want.regions.get(r, {}) else wrong).append(got.confidence_of(r))
        assert wrong and np.mean(wrong) < np.mean(right) - 0.1


@pytest.mark.skipif(not DEFAULT_COUNTER.is_file(), reason="no counting network shipped in models/")
class TestFitCommand:
    def test_fit_confidence_writes_a_model_for_the_shipped_network(self, tmp_path, capsys):
        from augur.cli import main
        out = tmp_path / "models" / "conf.json"
        assert main(["fit-confidence", "--images", "1", "1", "0", "--render-seed", "31", "--out", str(out)]) == 0
        card = json.loads(out.read_text())
        assert card["recipe"]["render_seeds"] == [31] and card["recipe"]["renders_per_tier"]["hard"] == 0
        assert card["model"]["counter_sha256"] == file_sha256(DEFAULT_COUNTER)
        # the confidence is the mean of small networks (their settings recorded), the hidden-region model logistic
        from vision.confidence import FIT_NETWORKS, NETWORK
        assert card["model_network"] == NETWORK and card["networks"] == FIT_NETWORKS
        assert len(card["model"]["members"]) == FIT_NETWORKS
        assert all(np.shape(m["hidden_weights"]) == (len(FEATURES), NETWORK["units"]) for m in card["model"]["members"])
        assert "hidden_weights" not in card["hidden_model"]
        from vision.summits import DEFAULT_SUMMITS
        assert card["recipe"]["summit_classifier_sha256"] == (file_sha256(DEFAULT_SUMMITS)
                                                              if DEFAULT_SUMMITS.is_file() else None)
        assert set(card["figures_on_fitting_tables"]) == {"easy", "medium"}
        assert "regions flagged" in capsys.readouterr().out
        assert "unseen_really_hidden" in card["figures_on_fitting_tables"]["easy"]
        confidence_for.cache_clear()
        hidden_for.cache_clear()
        assert confidence_for(DEFAULT_COUNTER.resolve(), out) is not None
        assert hidden_for(DEFAULT_COUNTER.resolve(), out) is not None

    def test_several_networks_are_averaged_the_first_the_single_fit(self, tmp_path):
        from augur.cli import main
        one, three = tmp_path / "one.json", tmp_path / "three.json"
        assert main(["fit-confidence", "--images", "1", "1", "0", "--render-seed", "31", "--out", str(one),
                     "--networks", "1"]) == 0
        assert main(["fit-confidence", "--images", "1", "1", "0", "--render-seed", "31", "--out", str(three),
                     "--networks", "3"]) == 0
        single, mean = json.loads(one.read_text()), json.loads(three.read_text())
        assert single["networks"] == 1 and mean["networks"] == 3 and len(mean["model"]["members"]) == 3
        assert mean["model"]["members"][0] == single["model"]          # seed 0 first, as fitted alone
        assert mean["model"]["members"][1] != single["model"]
        assert mean["hidden_model"] == single["hidden_model"]
        confidence_for.cache_clear()
        assert isinstance(confidence_for(DEFAULT_COUNTER.resolve(), three), MeanConfidence)
        confidence_for.cache_clear()

    def test_a_kept_hidden_region_model_is_kept_byte_for_byte_with_its_recipe(self, tmp_path):
        from augur.cli import main
        out = tmp_path / "conf.json"
        assert main(["fit-confidence", "--images", "1", "0", "0", "--render-seed", "31", "--out", str(out),
                     "--keep-hidden", str(DEFAULT_CONFIDENCE)]) == 0
        card, shipped = json.loads(out.read_text()), json.loads(DEFAULT_CONFIDENCE.read_text())
        assert card["hidden_model"] == shipped["hidden_model"]
        assert card["recipe"]["hidden_model_recipe"] == shipped["recipe"].get("hidden_model_recipe",
                                                                              shipped["recipe"])
        assert card["recipe"]["render_seeds"] == [31]
        # kept again from the new file, the first fit's recipe is carried on, not nested
        again = tmp_path / "again.json"
        assert main(["fit-confidence", "--images", "1", "0", "0", "--render-seed", "32", "--out", str(again),
                     "--keep-hidden", str(out)]) == 0
        assert json.loads(again.read_text())["recipe"]["hidden_model_recipe"] == card["recipe"]["hidden_model_recipe"]
        hidden_for.cache_clear()

    def test_a_hidden_region_model_that_cannot_be_kept_is_one_line(self, tmp_path, capsys):
        from augur.cli import main
        out = tmp_path / "conf.json"
        assert main(["fit-confidence", "--images", "1", "0", "0", "--out", str(out),
                     "--keep-hidden", str(tmp_path / "none.json")]) == 2
        assert "--keep-hidden: no such file" in capsys.readouterr().err
        other = tmp_path / "other.json"
        data = json.loads(DEFAULT_CONFIDENCE.read_text())
        data["hidden_model"]["counter_sha256"] = "0" * 64
        other.write_text(json.dumps(data))
        hidden_for.cache_clear()
        assert main(["fit-confidence", "--images", "1", "0", "0", "--out", str(out), "--keep-hidden", str(other)]) == 2
        err = capsys.readouterr().err
        assert "holds no hidden-region model fitted for" in err and err.count("\n") == 1 and not out.exists()
        hidden_for.cache_clear()

    def test_several_seeds_pool_their_tables(self, tmp_path, capsys):
        from augur.cli import main
        one, both = tmp_path / "one.json", tmp_path / "both.json"
        assert main(["fit-confidence", "--images", "1", "0", "0", "--render-seed", "31", "--out", str(one)]) == 0
        assert main(["fit-confidence", "--images", "1", "0", "0", "--render-seed", "31", "32", "31",
                     "--out", str(both)]) == 0
        pooled, single = json.loads(both.read_text()), json.loads(one.read_text())
        assert pooled["recipe"]["render_seeds"] == [31, 32]          # a seed given twice is drawn once
        regions = lambda card: card["figures_on_fitting_tables"]["easy"]["regions"]  # noqa: E731
        assert regions(pooled) == 2 * regions(single)                 # each seed's table: 57 regions
        assert "[easy] counted (seed 32) 1/1" in capsys.readouterr().out

    def test_a_print_share_fits_on_tables_rendered_on_the_real_print(self, tmp_path, capsys):
        from augur.cli import main
        from tests.conftest import shared_file
        photo = shared_file("reference", "spqrisiko", "board-photo-topdown.jpeg")
        out = tmp_path / "conf.json"
        assert main(["fit-confidence", "--images", "1", "1", "0", "--render-seed", "31", "--out", str(out),
                     "--board-photo", str(photo), "--rotate", "ccw", "--print-share", "1"]) == 0
        card = json.loads(out.read_text())
        assert set(card["figures_on_fitting_tables"]) == {"easy on the print", "medium on the print"}
        assert card["recipe"]["print"] == "1 of the tables on board-photo-topdown.jpeg turned ccw"
        assert "[medium on the print] below" in capsys.readouterr().out

    def test_a_print_share_out_of_range_is_one_line(self, tmp_path, capsys):
        from augur.cli import main
        assert main(["fit-confidence", "--images", "1", "0", "0", "--out", str(tmp_path / "c.json"),
                     "--board-photo", "board.jpg", "--print-share", "0"]) == 2
        assert "--print-share must lie" in capsys.readouterr().err and not (tmp_path / "c.json").exists()

    def test_an_unwritable_destination_is_one_line(self, tmp_path, capsys):
        from augur.cli import main
        blocker = tmp_path / "file"
        blocker.write_text("not a folder")
        assert main(["fit-confidence", "--images", "1", "0", "0", "--out", str(blocker / "conf.json")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("augur: error: cannot write the confidence model") and err.count("\n") == 1


class TestFitConfidenceKeepsAHiddenModel:
    def _rows(self):
        rng = np.random.default_rng(5)
        X = rng.normal(size=(300, len(HIDDEN_FEATURES)))
        return {"easy": (X, X[:, 3] < 0.5, X[:, 11] > 1.5)}

    def test_it_keeps_the_given_model_and_fits_the_confidence_on_what_it_leaves_seen(self, tmp_path):
        from vision.confidence import fit_confidence
        weights = tmp_path / "net.onnx"
        weights.write_bytes(b"w")
        sha = file_sha256(weights)
        n = len(HIDDEN_FEATURES)
        blind = RegionConfidence(np.zeros(n), np.ones(n), np.zeros(n), -5.0, sha, HIDDEN_FEATURES)  # sees all
        card = fit_confidence(self._rows(), weights, {}, tmp_path / "c.json", hidden=blind)
        assert card["hidden_model"] == blind.to_dict()
        assert card["figures_on_fitting_tables"]["easy"]["regions"] == 300     # nothing marked unseen
        with pytest.raises(ConfidenceError, match="fitted for another counting network"):
            fit_confidence(self._rows(), weights, {}, tmp_path / "d.json", hidden=replace(blind, counter_sha256="x"))
        assert not (tmp_path / "d.json").exists()
        confidence_for.cache_clear()
        hidden_for.cache_clear()


class TestPooledRows:
    @staticmethod
    def _draw(offset, keys):
        return {k: (np.full((2, 3), offset + i, float), np.array([True, False]), np.array([False, False]))
                for i, k in enumerate(keys)}

    def test_one_draw_comes_back_as_it_went_in(self):
        draw = self._draw(0, ["easy on the print", "easy"])
        pooled = pooled_rows([draw])
        assert list(pooled) == list(draw)
        for k in draw:
            assert all(np.array_equal(a, b) for a, b in zip(pooled[k], draw[k]))

    def test_each_key_holds_every_draws_rows_in_order(self):
        a, b = self._draw(0, ["easy", "medium"]), self._draw(10, ["medium on the print", "easy"])
        pooled = pooled_rows([a, b])
        assert list(pooled) == ["easy", "medium", "medium on the print"]
        assert pooled["easy"][0][:, 0].tolist() == [0, 0, 11, 11]
        assert len(pooled["medium"][1]) == 2 and len(pooled["medium on the print"][2]) == 2
