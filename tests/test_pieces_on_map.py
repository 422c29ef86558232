"""Pieces standing on the map in the calibration photo (calibration.pieces_on_map)."""
from __future__ import annotations

import subprocess
import sys
from functools import lru_cache

import cv2

from calibration.pieces_on_map import PIECES_ON_MAP, PiecesOnMap, pieces_notice, pieces_on_map
from calibration.profile import CalibrationProfile, calibrate
from tests.test_vision import PLAYERS, scene
from vision.geometry import load_geometry
from vision.synth.board_art import procedural_art

WARNING = "pieces stand on the map in the calibration photo (about "


@lru_cache(maxsize=None)
def profiles():
    """The same rendered table calibrated on its empty board, and on its game photo (a board
    with the game laid out on it, as a camera set up mid-game sees it)."""
    img, _, cal = scene()
    return calibrate(cal, procedural_art(), players=PLAYERS), calibrate(img, procedural_art(), players=PLAYERS)


class TestPiecesOnMap:
    def test_an_empty_board_has_none_to_speak_of(self):
        empty, _ = profiles()
        found = pieces_on_map(empty)
        assert found.pieces < PIECES_ON_MAP and not found
        assert pieces_notice(found, empty.geometry) == ""

    def test_a_board_calibrated_with_the_game_on_it_is_named(self):
        _, laid_out = profiles()
        _, truth, _ = scene()
        found = pieces_on_map(laid_out)
        assert found and found.pieces >= PIECES_ON_MAP
        # most of the regions the game holds are among those named
        held = {r for r, content in truth.state["regions"].items() if content}
        assert len(held & set(found.regions)) >= 0.6 * len(held)
        line = pieces_notice(found, laid_out.geometry)
        assert line.startswith(WARNING) and line.endswith("calibrate again") and "\n" not in line

    def test_the_notice_names_a_few_regions_and_counts_the_rest(self):
        geo = load_geometry()
        line = pieces_notice(PiecesOnMap(40, tuple(geo.region_ids[:20])), geo)
        assert f"over {geo.board.name(geo.region_ids[0])}, " in line and " and 15 more)" in line
        assert pieces_notice(PiecesOnMap(PIECES_ON_MAP - 1, ("italia",)), geo) == ""


class TestCalibrateCommand:
    def test_calibrate_warns_and_still_writes_the_profile(self, tmp_path):
        img, _, cal = scene()
        for name, photo in (("laid-out", img), ("empty", cal)):
            cv2.imwrite(str(tmp_path / f"{name}.png"), photo)
            r = subprocess.run([sys.executable, "-m", "augur", "calibrate", str(tmp_path / f"{name}.png"), "--players",
                                ",".join(PLAYERS), "-o", str(tmp_path / f"{name}.json")], capture_output=True, text=True)
            assert r.returncode == 0, r.stderr
            assert CalibrationProfile.load(tmp_path / f"{name}.json").pose is not None
            warned = [line for line in r.stderr.splitlines() if line.startswith("warning: " + WARNING)]
            assert len(warned) == (name == "laid-out"), r.stderr


class TestTheLiveLoopSaysSo:
    def test_the_status_line_carries_it_for_the_whole_game(self):
        from vision.pipeline import Pipeline
        img, _, _ = scene()
        for profile, said in zip(profiles(), (False, True)):
            pipeline = Pipeline(profile, agree=2)
            results = [pipeline.process(img) for _ in range(4)]
            notices = {r.notice for r in results if r.gate is not None and r.gate.still}
            assert notices and all((WARNING in n) == said for n in notices), notices


class TestTheBenchCountsFalseWarnings:
    def test_the_bench_reads_its_empty_calibration_photos_for_pieces(self, capsys):
        """`augur bench vision` reads every table's calibration photo of the empty board for pieces,
        so that a warning given falsely shows in its figures."""
        from vision.bench import HELD_OUT_SEED, _bench_detector
        res = _bench_detector("classical", 2, ("easy",), HELD_OUT_SEED)["easy"]
        read = res["calibration_pieces_on_map"]
        assert len(read) == 2 and all(0 <= n < PIECES_ON_MAP for n in read)
        assert f"pieces read on the map of the (empty) calibration photos: none on {read.count(0)} of 2" \
            in capsys.readouterr().out
