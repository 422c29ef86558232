"""``augur bench confidence``: confidence models judging the same readings, scored as the vision
bench scores them, at the threshold and at a matched flag count."""
from __future__ import annotations

import json
import numpy as np
import pytest

from tracker.readings import LOW_CONFIDENCE
from vision.bench import HELD_OUT_SEED
from vision.confidence import (DEFAULT_CONFIDENCE, FEATURES, ConfidenceError, RegionConfidence, confidence_for,
                               hidden_for)
from vision.confidence_bench import (ConfidenceModels, Judged, compare, judge, load_models, read_tables, score)
from vision.count import count
from vision.density import DEFAULT_COUNTER, DensityCounter

shipped = pytest.mark.skipif(not (DEFAULT_COUNTER.is_file() and DEFAULT_CONFIDENCE.is_file()),
                             reason="no counting network and confidence shipped in models/")


def _judged(confidence, right, lying=None):
    right = np.asarray(right, bool)
    return Judged(np.asarray(confidence, float), right,
                  np.zeros(len(right), bool) if lying is None else np.asarray(lying, bool))


class TestScore:
    def test_at_the_threshold_it_counts_what_a_player_sees(self):
        j = _judged([0.5, 0.79, 0.8, 0.95, 0.99], [False, True, False, True, False], [0, 0, 0, 0, 1])
        s = score(j)
        assert (s.regions, s.wrong, s.flagged, s.unflagged_wrong) == (5, 3, 2, 2)
        assert s.knocked_unflagged_wrong == 1       # the wrong region at 0.99 has a knocked piece

    def test_a_model_that_only_flags_more_gains_nothing_at_the_matched_count(self):
        ranks_well = _judged([0.5, 0.7, 0.9, 0.95, 0.97, 0.99], [False, False, True, True, True, True])
        flags_all = _judged([0.6, 0.6, 0.1, 0.1, 0.1, 0.1], [False, False, True, True, True, True])
        first = int(ranks_well.at_threshold().sum())
        good, lazy = score(ranks_well, first), score(flags_all, first)
        assert good.unflagged_wrong == 0 and lazy.unflagged_wrong == 0      # alike at the threshold...
        assert lazy.flagged == 6 and good.flagged == 2
        assert good.matched_unflagged_wrong == 0 and lazy.matched_unflagged_wrong == 2  # ...not at two flags

    def test_the_least_sure_are_flagged_ties_in_reading_order(self):
        j = _judged([0.9, 0.3, 0.3, 0.99], [True] * 4)
        assert j.least_sure(2).tolist() == [False, True, True, False]
        assert j.least_sure(0).tolist() == [False] * 4 and j.least_sure(9).all()


class TestLoadModels:
    def test_a_missing_file_is_a_clear_error(self, tmp_path):
        with pytest.raises(ConfidenceError, match="confidence model not found"):
            load_models(tmp_path / "none.json")

    @shipped
    def test_a_file_fitted_for_another_network_is_refused(self, tmp_path):
        data = json.loads(DEFAULT_CONFIDENCE.read_text())
        data["model"]["counter_sha256"] = "0" * 64
        other = tmp_path / "other.json"
        other.write_text(json.dumps(data))
        with pytest.raises(ConfidenceError, match="fitted for another counting network"):
            load_models(other)

    @shipped
    def test_the_shipped_file_gives_both_models(self):
        models = load_models(DEFAULT_CONFIDENCE)
        assert models.confidence is confidence_for(DEFAULT_COUNTER.resolve(), DEFAULT_CONFIDENCE.resolve())
        assert models.hidden is hidden_for(DEFAULT_COUNTER.resolve(), DEFAULT_CONFIDENCE.resolve())


@shipped
class TestJudge:
    @pytest.fixture(scope="class")
    def readings(self):
        return read_tables("hard", 2, HELD_OUT_SEED)

    def test_the_shipped_models_judge_as_the_pipeline_counts(self, readings):
        """The same confidences and unseen marks as the counter with its own models, then count()."""
        from calibration.profile import calibrate
        from vision.synth.board_art import procedural_art
        from vision.synth.dataset import iter_still_tables
        from vision.synth.render import calibration_scene
        want_conf, want_unseen = [], 0
        for _, img, truth, _ in iter_still_tables("hard", 2, HELD_OUT_SEED):
            profile = calibrate(calibration_scene(truth)[0], procedural_art(), players=truth.players)
            det = DensityCounter(profile).detect(img)
            got = count(det, profile.geometry, det.unseen)
            want_unseen += len(got.unseen)
            want_conf += [got.confidence_of(r) for r in profile.geometry.region_ids if r not in got.unseen]
        j = judge(readings, load_models(DEFAULT_CONFIDENCE))
        assert len(readings) == 2
        assert j.confidence.tolist() == want_conf
        assert j.unseen_hidden + j.unseen_visible == want_unseen

    def test_other_models_change_only_the_judgement(self, readings):
        shipped_models = load_models(DEFAULT_CONFIDENCE)
        n = len(FEATURES)
        sure = RegionConfidence(np.zeros(n), np.ones(n), np.zeros(n), 30.0)
        blind = ConfidenceModels(DEFAULT_CONFIDENCE, sure, None)      # always sure; unseen by cover alone
        a, b = compare(readings, [shipped_models, blind])
        assert b.flagged == 0 and b.unflagged_wrong == b.wrong
        assert a.regions + a.unseen_hidden + a.unseen_visible == b.regions + b.unseen_hidden + b.unseen_visible
        assert b.matched_unflagged_wrong <= b.wrong and a.flagged == int(
            (judge(readings, shipped_models).confidence < LOW_CONFIDENCE).sum())


class TestCommand:
    def test_a_missing_confidence_file_is_one_line(self, tmp_path, capsys):
        from augur.cli import main
        assert main(["bench", "confidence", "--images", "1", "--confidence", str(tmp_path / "x.json")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("augur: error: confidence model not found") and err.count("\n") == 1

    def test_vision_only_options_are_refused(self, capsys):
        from augur.cli import main
        assert main(["bench", "confidence", "--images", "1", "--relief", "4"]) == 2
        assert "not for augur bench confidence" in capsys.readouterr().err

    @shipped
    def test_it_prints_every_model_per_tier_and_summed(self, tmp_path, capsys):
        from augur.cli import main
        copy = tmp_path / "copy.json"
        copy.write_text(DEFAULT_CONFIDENCE.read_text())
        assert main(["bench", "confidence", "--images", "1", "--tiers", "medium", "--confidence",
                     str(DEFAULT_CONFIDENCE), str(copy)]) == 0
        out = capsys.readouterr().out
        assert "[medium] read 1/1" in out                                   # progress, tier by tier
        lines = [line for line in out.splitlines() if line.startswith("[") and ": " in line]
        assert [line.split(":")[0] for line in lines] == [
            f"[medium] {DEFAULT_CONFIDENCE}", f"[medium] {copy}", f"[all] {DEFAULT_CONFIDENCE}", f"[all] {copy}"]
        # the same file judges alike
        assert lines[0].split(": ", 1)[1] == lines[1].split(": ", 1)[1]
