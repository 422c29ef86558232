"""The light drifting between calibration and play (vision.light), and the renderer's relit tables."""
from __future__ import annotations

import numpy as np
import pytest

from calibration.profile import calibrate
from tracker.state import ObservedState
from vision.bench import hidden_regions, regions_right
from vision.classical import ClassicalDetector
from vision.count import count
from vision.density import DEFAULT_COUNTER, DensityCounter
from vision.geometry import load_geometry
from vision.light import GAIN_RANGE, NOTICE_GAIN, LightMatch, light_notice
from vision.synth.board_art import procedural_art
from vision.synth.dataset import iter_still_tables
from vision.synth.render import calibration_render

EVENING = (-2000.0, 0.7)        # 2,000 K warmer and 0.7 times as bright: a lamp at dusk
NIGHT = (-2500.0, 0.5)          # 2,500 K warmer and half as bright: one weak bulb


def board_view(seed: int = 0, size: tuple[int, int] = (200, 240)) -> np.ndarray:
    """A textured board (levels 40 to 200) with a black margin round it, as the reference is."""
    rng = np.random.default_rng(seed)
    ref = np.zeros(size + (3,), np.uint8)
    ref[20:-20, 20:-20] = rng.integers(40, 200, (size[0] - 40, size[1] - 40, 3))
    return ref


def lit(image: np.ndarray, gains) -> np.ndarray:
    return np.clip(np.rint(image * np.float32(gains)), 0, 255).astype(np.uint8)


def with_pieces(frame: np.ndarray, share: float, seed: int = 1) -> np.ndarray:
    """``frame`` with a ``share`` of its pixels (in blocks) painted in random piece colours."""
    rng = np.random.default_rng(seed)
    out = frame.copy()
    h, w = frame.shape[:2]
    while (out != frame).any(axis=2).mean() < share:
        y, x = rng.integers(0, h - 6), rng.integers(0, w - 6)
        out[y:y + 6, x:x + 6] = rng.integers(0, 256, 3)
    return out


class TestLightMatch:
    def test_the_gains_of_a_drifted_light_are_found_despite_the_pieces_on_the_board(self):
        ref = board_view()
        drift = np.float32([0.55, 0.66, 0.75])           # warmer and dimmer, blue the most
        frame = with_pieces(lit(ref, drift), share=0.25)
        gains = LightMatch(ref).gains(frame)
        assert np.allclose(gains, 1 / drift, rtol=0.02)
        matched = LightMatch(ref)(frame)
        board = ref.min(axis=2) > 20
        untouched = (frame == lit(ref, drift)).all(axis=2) & board
        assert np.abs(matched[untouched].astype(int) - ref[untouched]).mean() < 1.5

    def test_a_frame_under_the_calibrations_light_is_left_as_it_is(self):
        ref = board_view()
        frame = with_pieces(ref, share=0.2)
        assert LightMatch(ref)(frame) is frame

    def test_the_margin_off_the_board_is_not_compared(self):
        ref = board_view()
        frame = ref.copy()
        frame[:20] = 255 - 5           # a bright table cloth round the board: the reference is black there
        frame[:, :20] = 7
        assert np.allclose(LightMatch(ref).gains(frame), 1.0, atol=1e-6)

    def test_a_black_or_blown_out_frame_is_left_alone(self):
        ref = board_view()
        for level in (0, 255):
            frame = np.full_like(ref, level)
            assert np.array_equal(LightMatch(ref).gains(frame), np.ones(3, np.float32))

    def test_the_gains_stay_within_their_range(self):
        ref = board_view()
        frame = lit(ref, 0.1)          # a frame at a tenth of the light: levels 4 to 20
        frame = np.maximum(frame, 6)
        gains = LightMatch(ref).gains(frame)
        assert np.all(gains <= GAIN_RANGE[1]) and np.all(gains >= GAIN_RANGE[0])

    def test_the_last_gains_are_kept_for_the_players_notice(self):
        ref = board_view()
        match = LightMatch(ref)
        assert match.last is None
        match(lit(ref, [0.5, 0.8, 0.95]))
        assert np.allclose(match.last, [2.0, 1.25, 1.05], rtol=0.03)
        assert light_notice(match.last).startswith("the light has changed a lot since calibration (blue x2.0 ")
        match(ref)
        assert light_notice(match.last) == ""

    def test_the_notice_speaks_of_the_channels_past_its_factor_either_way(self):
        inside, outside = NOTICE_GAIN * 0.98, NOTICE_GAIN * 1.05
        assert light_notice(np.float32([inside, 1 / inside, 1.0])) == ""
        notice = light_notice(np.float32([1.0, outside, 1 / outside]))
        assert "green x" in notice and "red x0." in notice and "blue" not in notice

    def test_a_frame_of_another_size_is_refused(self):
        with pytest.raises(ValueError, match="reference"):
            LightMatch(board_view())(np.zeros((10, 10, 3), np.uint8))


class TestRelitTables:
    def test_relighting_changes_the_light_and_nothing_else(self):
        (_, img, truth, _), = iter_still_tables("easy", 1, 4242)
        (_, evening, evening_truth, _), = iter_still_tables("easy", 1, 4242, relight=EVENING)
        assert evening_truth.state == truth.state and evening_truth.board_corners == truth.board_corners
        ratio = evening.astype(np.float32).mean(axis=(0, 1)) / img.astype(np.float32).mean(axis=(0, 1))
        assert ratio[0] < ratio[1] < ratio[2] < 1.0          # warmer: blue drops most; dimmer: all drop
        # the pieces are lit by the new light too: a piece's centre darkens as the board does
        centres = [(int((p.box[1] + p.box[3]) / 2), int((p.box[0] + p.box[2]) / 2)) for p in truth.pieces
                   if p.region and p.occluded == 0][:30]
        ys, xs = np.array(centres).T
        on_pieces = evening[ys, xs].astype(np.float32).mean(axis=0) / img[ys, xs].astype(np.float32).mean(axis=0)
        assert np.allclose(on_pieces, ratio, atol=0.08)
        # the calibration photo of the relit table is taken under the table's own light
        assert np.array_equal(calibration_render(evening_truth), calibration_render(truth))


def _regions_right(detector, img, truth) -> int:
    """Regions read right by the bench's rule."""
    geo = load_geometry()
    det = detector.detect(img)
    return regions_right(count(det, detector.geo, det.unseen), ObservedState.from_dict(truth.state), hidden_regions(truth), geo)


@pytest.mark.skipif(not DEFAULT_COUNTER.is_file(), reason="no counting model shipped in models/")
class TestCountingAfterTheLightChanged:
    """Two easy tables calibrated under their own light, then lit 2,500 K warmer and at half the
    brightness: the shipped counter reads them as if nothing had changed only because each frame
    is brought back to the calibration's light (56 and 57 regions of 57 right by the bench's rule,
    against 2 and 2 without: unmatched, visible regions are also marked unseen). At the milder
    EVENING light the session-100 network reads them 56 and 55 right even unmatched, so the match
    is no longer what the test would show there."""

    def test_the_counter_reads_a_relit_table_as_well_as_under_the_calibrations_light(self):
        for _, img, truth, _ in iter_still_tables("easy", 2, 4242, relight=NIGHT):
            profile = calibrate(calibration_render(truth), procedural_art(), players=truth.players)
            counter = DensityCounter(profile)
            matched = _regions_right(counter, img, truth)
            counter.light = lambda frame: frame            # the frame as the camera gave it
            unmatched = _regions_right(counter, img, truth)
            assert matched >= 55 and unmatched <= 50

    def test_the_pipeline_tells_the_players_when_the_light_has_changed_a_lot(self):
        from vision.pipeline import Pipeline
        (_, img, truth, _), = iter_still_tables("easy", 1, 4242, relight=NIGHT)
        profile = calibrate(calibration_render(truth), procedural_art(), players=truth.players)
        pipeline = Pipeline(profile)
        results = [pipeline.process(img) for _ in range(6)]
        counted = [r for r in results if r.state is not None]
        assert counted and all("the light has changed a lot since calibration" in r.notice for r in counted)
        (_, same, *_), = iter_still_tables("easy", 1, 4242)
        counted = [r for r in (pipeline.process(same) for _ in range(20)) if r.state is not None]
        assert counted and counted[-1].notice == ""

    def test_the_classical_baseline_is_matched_too(self):
        (_, img, truth, _), = iter_still_tables("easy", 1, 4242, relight=EVENING)
        profile = calibrate(calibration_render(truth), procedural_art(), players=truth.players)
        detector = ClassicalDetector(profile)
        matched = _regions_right(detector, img, truth)
        detector.light = lambda frame: frame
        assert matched > _regions_right(detector, img, truth)
