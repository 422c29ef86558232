"""Reading the score track (vision.track): where each player's marker stands."""
from __future__ import annotations

import json
import subprocess
import sys
from functools import lru_cache

import cv2
import numpy as np
import pytest

from calibration.profile import calibrate
from tracker.state import ObservedState
from vision.synth.board_art import procedural_art
from vision.synth.render import render
from vision.track import TrackReader, TrackReading
from vision.track_bench import bench_track

PLAYERS = ("red", "blue", "yellow")
EMPTY = ObservedState.from_dict({"regions": {}})
#: a table's seed (light, camera, clutter); its calibration photo is rendered with the same
SEED = (4242, 3, 0)


@lru_cache(maxsize=None)
def table(tier: str = "easy") -> tuple:
    """A calibration photo of the empty board, markers on box 0, and its profile."""
    cal, _ = render(EMPTY, tier, seed=SEED, vp={c: 0 for c in PLAYERS}, hands=0)
    return cal, calibrate(cal, procedural_art(), players=PLAYERS)


def photo(vp: dict[str, int], tier: str = "easy", **kw) -> np.ndarray:
    """The same table, by the same camera and light, with the markers at ``vp``."""
    img, _ = render(EMPTY, tier, seed=SEED, vp=vp, hands=0, **kw)
    return img


def cover_box(img: np.ndarray, profile, box: int, bgr=(120, 160, 215)) -> np.ndarray:
    """``img`` with score box ``box`` painted over in one colour (a hand's, by default)."""
    x0, y0, x1, y1 = profile.geometry.track_boxes[box]
    quad = cv2.perspectiveTransform(np.float64([[[x0 - 6, y0 - 6], [x1 + 6, y0 - 6], [x1 + 6, y1 + 6],
                                                 [x0 - 6, y1 + 6]]]), profile.H)
    out = img.copy()
    cv2.fillConvexPoly(out, quad[0].round().astype(np.int32), bgr)
    return out


def in_box(img: np.ndarray, profile, box: int, bgr, y_from: float, y_to: float, half_width: float = 9) -> np.ndarray:
    """``img`` with an upright bar of colour ``bgr`` across score box ``box``'s middle, from
    ``y_from`` to ``y_to`` (shares of the box's height from its upper end; below 0 or above 1:
    beyond the box, over the track's frame)."""
    x0, y0, x1, y1 = profile.geometry.track_boxes[box]
    cx, ya, yb = (x0 + x1) / 2, y0 + (y1 - y0) * y_from, y0 + (y1 - y0) * y_to
    quad = cv2.perspectiveTransform(np.float64([[[cx - half_width, ya], [cx + half_width, ya], [cx + half_width, yb],
                                                 [cx - half_width, yb]]]), profile.H)
    out = img.copy()
    cv2.fillConvexPoly(out, quad[0].round().astype(np.int32), bgr)
    return out


def army_bgr(profile, colour: str) -> tuple[int, int, int]:
    """An army's colour as the calibration learned it (or its default), in BGR."""
    bgr = cv2.cvtColor(np.uint8([[profile.colours_lab[colour]]]), cv2.COLOR_LAB2BGR)[0, 0]
    return tuple(int(v) for v in bgr)


class TestReadingTheTrack:
    def test_markers_on_box_0_as_the_calibration_saw_them(self):
        cal, profile = table()
        assert TrackReader(profile).read(cal).boxes == {"red": 0, "blue": 0, "yellow": 0}

    @pytest.mark.parametrize("vp", [{"red": 7, "blue": 0, "yellow": 23},
                                    {"red": 20, "blue": 20, "yellow": 40},      # box 20 is half as wide
                                    {"red": 5, "blue": 12, "yellow": 35}])      # yellow on a yellow box
    def test_markers_moved_along_the_track(self, vp):
        _, profile = table()
        assert TrackReader(profile).read(photo(vp)).boxes == vp

    def test_a_dimmer_warmer_light_than_the_calibration_s(self):
        _, profile = table()
        vp = {"red": 9, "blue": 3, "yellow": 15}
        assert TrackReader(profile).read(photo(vp, relight=(-2000, 0.7))).boxes == vp

    def test_a_marker_under_a_hand_is_not_read_rather_than_read_elsewhere(self):
        _, profile = table()
        vp = {"red": 9, "blue": 3, "yellow": 15}
        img = cover_box(photo(vp), profile, 9)
        assert TrackReader(profile).read(img).boxes == {"red": None, "blue": 3, "yellow": 15}

    @pytest.mark.parametrize("box", [14, 22])
    def test_two_markers_tied_on_one_box(self, box):
        """Two markers that fill most of their box between them pull its median colour off the
        box's: it is read from the pixels still like the box, not taken as under a hand."""
        _, profile = table()
        img = in_box(photo({"red": 3, "blue": 7, "yellow": 25}), profile, box, army_bgr(profile, "green"),
                     0.1, 0.4, half_width=16)
        img = in_box(img, profile, box, army_bgr(profile, "black"), 0.6, 0.9, half_width=16)
        assert TrackReader(profile, ("green", "black")).read(img).boxes == {"green": box, "black": box}

    @pytest.mark.parametrize("upper", [True, False])
    @pytest.mark.parametrize("wide", [False, True])
    def test_what_comes_in_over_a_box_s_end_is_no_marker(self, upper, wide):
        """A sleeve of blue (or a card, a piece on the map leaning over) that lies over the track's
        frame and reaches into box 9 over its end: blue's marker stays on box 12. ``wide``: the
        sleeve lies over the frame from box 2 to box 16, wider than the frame's own colour is taken
        around a column (the calibration photo's frame tells it)."""
        _, profile = table()
        vp = {"red": 3, "blue": 12, "yellow": 25}
        img = photo(vp)
        if wide:
            x0, y0, _, y1 = profile.geometry.track_boxes[2]
            x1 = profile.geometry.track_boxes[16][2]
            ya, yb = (y0 - 16, y0 - 1) if upper else (y1 + 1, y1 + 16)
            quad = cv2.perspectiveTransform(np.float64([[[x0, ya], [x1, ya], [x1, yb], [x0, yb]]]), profile.H)
            cv2.fillConvexPoly(img, quad[0].round().astype(np.int32), army_bgr(profile, "blue"))
        span = (-0.25, 0.3) if upper else (0.7, 1.25)
        img = in_box(img, profile, 9, army_bgr(profile, "blue"), *span)
        assert TrackReader(profile).read(img).boxes == vp

    def test_a_marker_at_its_box_s_end_whose_shadow_falls_over_the_frame(self):
        """The frame beyond the box's end darkened by a shadow is no sleeve: the marker is read."""
        _, profile = table()
        img = photo({"red": 3, "blue": 12, "yellow": 25})
        x0, y0, x1, y1 = profile.geometry.track_boxes[9]
        quad = cv2.perspectiveTransform(np.float64([[[x0 - 4, y0 - 14], [x1 + 4, y0 - 14], [x1 + 4, y0 + 12],
                                                     [x0 - 4, y0 + 12]]]), profile.H)[0].round().astype(np.int32)
        shade = np.zeros(img.shape[:2], np.uint8)
        cv2.fillConvexPoly(shade, quad, 1)
        img = np.where(shade[..., None] > 0, (img * 0.55).astype(np.uint8), img)
        img = in_box(img, profile, 9, army_bgr(profile, "green"), 0.02, 0.22, half_width=10)
        assert TrackReader(profile, ("green",)).read(img).boxes == {"green": 9}

    @pytest.mark.parametrize("box", [10, 25])
    def test_a_yellow_learned_near_the_yellow_paint(self, box):
        """The calibration learns yellow from its marker on box 0, a yellow box, and may learn it
        half blended with the paint: a yellow marker on a yellow box then shows well beyond the
        yellow learned, and is read all the same."""
        import dataclasses
        _, profile = table()
        paint = TrackReader(profile).ref_colours[box]
        learned = (paint + np.float32(army_bgr(profile, "yellow"))) / 2
        lab = cv2.cvtColor(learned.astype(np.uint8)[None, None], cv2.COLOR_BGR2LAB)[0, 0]
        blended = dataclasses.replace(profile, colours_lab={**profile.colours_lab, "yellow": tuple(int(v) for v in lab)})
        vp = {"red": 3, "blue": 12, "yellow": box}
        assert TrackReader(blended).read(photo(vp)).boxes == vp

    def test_a_glare_over_the_track_s_frame_in_the_calibration_photo(self):
        """The calibration photo shows the frame above boxes 0 to 15 washed out by a glare: the
        frame in play, red again, is no sleeve over it, and a marker at its box's end is read."""
        cal, profile = table()
        x0, y0 = profile.geometry.track_boxes[0][:2]
        x1 = profile.geometry.track_boxes[15][2]
        quad = cv2.perspectiveTransform(np.float64([[[x0 - 4, y0 - 14], [x1 + 4, y0 - 14], [x1 + 4, y0 - 1],
                                                     [x0 - 4, y0 - 1]]]), profile.H)[0].round().astype(np.int32)
        glared = cal.copy()
        cv2.fillConvexPoly(glared, quad, (238, 242, 250))
        glared_profile = calibrate(glared, procedural_art(), players=PLAYERS)
        img = in_box(photo({"red": 3, "blue": 12, "yellow": 25}), profile, 9, army_bgr(profile, "green"), -0.03, 0.2,
                     half_width=10)
        assert TrackReader(glared_profile, ("green",)).read(img).boxes == {"green": 9}

    def test_a_calibration_made_with_the_markers_along_the_track(self):
        """A camera set up mid-game: its calibration photo shows the markers on their boxes, not
        on box 0. Each box is read against its own colour, so they are read all the same."""
        then, now = {"red": 5, "blue": 12, "yellow": 0}, {"red": 5, "blue": 14, "yellow": 3}
        profile = calibrate(photo(then), procedural_art(), players=PLAYERS)
        reader = TrackReader(profile, PLAYERS)
        assert reader.read(photo(then)).boxes == then
        assert reader.read(photo(now)).boxes == now

    def test_only_the_players_markers_are_read(self):
        cal, profile = table()
        assert set(TrackReader(profile, ("red",)).read(cal).boxes) == {"red"}
        assert set(TrackReader(profile).read(cal).boxes) == set(PLAYERS)     # those found on box 0

    def test_the_reading_as_json(self):
        assert TrackReading({"yellow": None, "red": 4}).to_dict() == {"red": 4, "yellow": None}
        assert list(TrackReading({"yellow": None, "red": 4}).to_dict()) == ["red", "yellow"]


class TestTheTrackInTheLiveLoop:
    def test_read_once_a_still_run_has_had_its_last_say(self):
        from vision.pipeline import Pipeline
        _, profile = table()
        vp = {"red": 6, "blue": 2, "yellow": 11}
        img = photo(vp)
        pipeline = Pipeline(profile, agree=2, players=PLAYERS)
        results = [pipeline.process(img) for _ in range(12)]
        read = [r for r in results if r.track is not None]
        assert len(read) == 1 and read[0].settled and read[0].track.boxes == vp
        assert "track" in read[0].timings
        # a hand over the board ends the run; the next still run is read again
        moved = photo({"red": 6, "blue": 4, "yellow": 11})
        pipeline.process(cv2.GaussianBlur(moved, (31, 31), 0) // 2)
        again = [r for r in (pipeline.process(moved) for _ in range(12)) if r.track is not None]
        assert len(again) == 1 and again[0].track.boxes == {"red": 6, "blue": 4, "yellow": 11}

    def test_the_tablets_hear_where_the_markers_stand(self, tmp_path):
        from webui.live import LiveGame
        from webui.store import Store
        store = Store(tmp_path / "rec")
        try:
            live = LiveGame.open(store, list(PLAYERS), resume=False)
            heard = live.subscribe()
            live.set_track({"red": 3, "blue": 0, "yellow": None, "green": 7})     # green is no player
            assert live.view()["track"] == {"red": 3, "blue": 0, "yellow": None}
            assert heard.get_nowait()["track"] == {"red": 3, "blue": 0, "yellow": None}
            live.set_track({"red": 3, "blue": 0, "yellow": None})                   # no change: no word
            assert heard.empty()
        finally:
            store.close()


class TestTheTrackIsRecorded:
    """Each change of the markers' reading is recorded with the score kept then, filed under the
    latest snapshot: the review settles "my marker stood on 12" from the recording."""

    @pytest.fixture
    def live(self, tmp_path):
        from tests.test_webui import PLAYERS as SIM_PLAYERS, game_states
        from webui.live import LiveGame
        from webui.store import Store
        store = Store(tmp_path / "rec")
        live = LiveGame.open(store, SIM_PLAYERS, resume=False)
        for s in game_states(4):
            live.commit(s, b"\xff\xd8jpeg")
        yield live
        store.close()

    def test_a_change_of_reading_is_recorded_under_the_latest_snapshot(self, live):
        vp = dict(live.game.vp)
        sid = live.store.latest(live.game_id).id
        off = {**vp, "blue": vp["blue"] + 3}
        live.set_track(off)
        live.set_track(off)                                         # the same reading: no second row
        live.set_track({**vp, "yellow": None})
        rows = live.store.track_readings(live.game_id)
        assert [r["boxes"] for r in rows] == [off, {**vp, "yellow": None}]
        assert all(r["snapshot_id"] == sid and r["vp"] == vp for r in rows)
        # the review of that snapshot lists both, and names the marker that stood off the score
        said = live.snapshot_detail(sid)["track"]
        assert [[m["colour"] for m in r["markers"] if m["off"]] for r in said] == [["blue"], []]
        assert said[0]["markers"][1] == {"colour": "blue", "box": vp["blue"] + 3, "score": vp["blue"], "off": True}
        assert [m["colour"] for m in said[0]["markers"]] == list(live.game.players)      # in turn order
        previous = live.snapshot_detail(live.store.snapshots(live.game_id)[-2].id)
        assert previous["track"] == []
        assert live.store.track_readings(live.game_id, snapshot_id=2 ** 70) == []

    def test_a_resumed_game_shows_the_markers_last_seen_and_a_new_game_none(self, live):
        from webui.live import LiveGame
        live.set_track({c: 1 for c in live.game.players})
        again = LiveGame.open(live.store, list(live.game.players), resume=True)
        assert again.game_id == live.game_id and again.track == {c: 1 for c in live.game.players}
        assert again.view()["track"] == again.track
        again.restart(list(live.game.players))
        assert again.track == {} and again.view()["track"] == {}


class TestTheTrackCommands:
    def test_count_prints_the_markers_beside_the_state(self, tmp_path):
        cal, _ = table()
        vp = {"red": 14, "blue": 1, "yellow": 30}
        cv2.imwrite(str(tmp_path / "empty.png"), cal)
        cv2.imwrite(str(tmp_path / "game.png"), photo(vp))
        run = lambda *a: subprocess.run([sys.executable, "-m", "augur", *a], capture_output=True, text=True)  # noqa: E731
        r = run("calibrate", str(tmp_path / "empty.png"), "--players", ",".join(PLAYERS),
                "-o", str(tmp_path / "cal.json"))
        assert r.returncode == 0, r.stderr
        r = run("count", "--calibration", str(tmp_path / "cal.json"), str(tmp_path / "game.png"))
        assert r.returncode == 0, r.stderr
        line = json.loads(r.stdout)
        assert line["track"] == vp
        assert ObservedState.from_json(r.stdout).regions == {}        # the tracker reads the counts alone

    def test_the_bench_reads_the_vision_bench_s_tables(self, capsys):
        out = bench_track(2, ("easy",))["easy"]
        assert out["tables"] == 2 and out["in_view"] >= 4
        assert out["right"] + out["wrong"] + out["unread"] == out["in_view"]
        assert out["right"] == out["in_view"]
        line = capsys.readouterr().out
        assert line.startswith("[easy] 2 tables: of ") and "read on their box" in line and "ms p95" in line


class TestTheTrackOnFilm:
    def test_a_filmed_game_s_markers_are_read_where_the_film_shows_them(self, tmp_path):
        """A short game film (its truth says where each marker stands, frame by frame): the live
        loop reads the markers once a still run has had its last say, each on its box."""
        from vision.game_bench import play_video_folder
        from vision.synth.video import write_video
        write_video(tmp_path, seed=2, turns=2)
        truth = [json.loads(x) for x in (tmp_path / "truth.jsonl").read_text().splitlines()]
        assert any(box for line in truth for box in line["track"].values())       # a marker leaves box 0
        f = play_video_folder(tmp_path)
        assert f.markers_right >= 8 and f.markers_wrong == f.markers_unread == 0
