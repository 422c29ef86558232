"""The synthetic table renderer: exact ground truth, determinism, coverage, dataset layout."""
from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from tests.conftest import swapped_map
from tracker.pieces import CENTRE, LEGIONARY, NEUTRAL, TRIREME, VEXILLUM
from tracker.spqrisiko.simulator import Simulator
from tracker.state import ObservedState
from vision.classes import CLASS_NAMES
from vision.geometry import load_geometry
from vision.synth.dataset import write_dataset, yolo_lines
from vision.synth.render import PIECE_RADIUS, TIERS, TOUCHING, render


@lru_cache(maxsize=None)
def late_game():
    sim = Simulator(("red", "blue", "yellow", "green"), seed=5, max_turns=90)
    steps = list(sim.steps())
    return steps[-1]


def _board_point_of(truth, uv):
    """Image pixel -> board point through the inverse of the (undistorted) homography."""
    H = np.array(truth.homography)
    # undo the lens: the inverse model maps distorted pixels to ideal ones directly
    c = np.array(truth.size, float) / 2
    n = np.hypot(*truth.size) / 2
    u = (np.asarray(uv, float) - c) / n
    ideal = u * (1 + truth.k1 * (u ** 2).sum(axis=1, keepdims=True)) * n + c
    pts = cv2.perspectiveTransform(ideal.reshape(-1, 1, 2).astype(np.float64), np.linalg.inv(H)).reshape(-1, 2)
    return pts


def counted_in(geo, pieces, points=None) -> list[str | None]:
    """The region each piece counts towards where it stands: a fleet's sea, or for a province's
    piece the province, or the one whose coast it stands off (``land_labels``)."""
    points = np.array([p.board_xy for p in pieces]) if points is None else points
    plain, land = geo.regions_at(points), geo.regions_at(points, land=True)
    return [a if p.kind == TRIREME else b for p, a, b in zip(pieces, plain, land)]


class TestGroundTruth:
    @pytest.mark.parametrize("tier", TIERS)
    def test_footprints_lie_in_their_region(self, tier):
        """... or, for a pile spilled off a small island, on the sea nearer to it than to any other
        province (``land_labels``)."""
        step = late_game()
        geo = load_geometry()
        _, truth = render(step.state, tier, seed=(3, 1), vp=step.vp)
        on_map = [p for p in truth.pieces if p.region]
        assert counted_in(geo, on_map) == [p.region for p in on_map]
        inside = [geo.region_at(*p.board_xy) == p.region for p in on_map]
        assert all(inside[i] or (geo.board.is_sea(geo.region_at(*p.board_xy)) and p.kind in (LEGIONARY, VEXILLUM))
                   for i, p in enumerate(on_map))
        back = _board_point_of(truth, np.array([p.footprint for p in on_map]))
        hits = [r == p.region for r, p in zip(counted_in(geo, on_map, back), on_map)]
        assert np.mean(hits) > 0.99          # a footprint exactly on a border may round either way
        assert np.abs(back - np.array([p.board_xy for p in on_map])).max() < 0.5

    def test_counts_in_the_state_equal_the_pieces_drawn(self):
        step = late_game()
        _, truth = render(step.state, "medium", seed=(3, 2), vp=step.vp)
        drawn = Counter((p.region, p.colour, p.kind) for p in truth.pieces if p.region)
        stated = Counter({(r, c, k): n for r, cols in truth.state["regions"].items()
                          for c, kinds in cols.items() for k, n in kinds.items()})
        assert drawn == stated
        # the strength of every army is what the game state says, however it was stacked
        state = ObservedState.from_dict(truth.state)
        assert state.legions == step.state.legions and state.triremes == step.state.triremes
        assert state.centres == step.state.centres

    def test_score_markers_on_their_boxes(self):
        step = late_game()
        _, truth = render(step.state, "easy", seed=(3, 3), vp=step.vp)
        markers = {p.colour: p.track_box for p in truth.pieces if p.region is None}
        assert markers == {c: min(40, v) for c, v in step.vp.items()}

    def test_pieces_never_float_off_the_board(self):
        step = late_game()
        geo = load_geometry()
        for tier in TIERS:
            _, truth = render(step.state, tier, seed=(4, 1), vp=step.vp)
            quad = np.float32(truth.board_corners)
            for p in truth.pieces:
                x, y = p.board_xy
                assert 0 <= x < geo.size[0] and 0 <= y < geo.size[1]
                assert cv2.pointPolygonTest(quad, p.footprint, True) > -2.0

    def test_every_region_can_receive_pieces(self):
        geo = load_geometry()
        regions = {}
        colours = ["red", "blue", "yellow", "green", "black"]
        for i, rid in enumerate(geo.region_ids):
            c = colours[i % 5]
            regions[rid] = {c: {TRIREME: 2}} if geo.board.is_sea(rid) else {c: {LEGIONARY: 3, VEXILLUM: 1}}
        regions["italia"][NEUTRAL] = {CENTRE: 1}
        state = ObservedState.from_dict({"board": "spqrisiko", "regions": regions})
        _, truth = render(state, "easy", seed=9)
        assert {p.region for p in truth.pieces if p.region} == set(geo.region_ids)
        on_map = [p for p in truth.pieces if p.region]
        assert counted_in(geo, on_map) == [p.region for p in on_map]

    @pytest.mark.parametrize("tier", TIERS)
    def test_no_piece_stands_inside_another(self, tier):
        """Bases touch and may overlap a little (the figures taper), never more: a piece hidden
        inside another could be counted by nobody, so the truth would be unreadable."""
        step = late_game()
        _, truth = render(step.state, tier, seed=(3, 4), vp=step.vp)
        on_map = [p for p in truth.pieces if p.region]
        xy = np.array([p.board_xy for p in on_map])
        r = np.array([PIECE_RADIUS[p.kind] for p in on_map])
        apart = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1)) / (r[:, None] + r[None, :])
        np.fill_diagonal(apart, np.inf)
        assert apart.min() >= TOUCHING - 1e-6

    def test_a_pile_too_large_for_an_island_spills_onto_the_sea_off_its_coast(self):
        """Corsica holds three or four legionaries: players stand the rest of a pile of nine on the
        sea around it, and the truth still says nine in Corsica."""
        geo = load_geometry()
        state = ObservedState.from_dict({"board": "spqrisiko", "regions": {
            "corsica": {"red": {LEGIONARY: 9}}, "sardinia": {"blue": {LEGIONARY: 2}}}})
        _, truth = render(state, "easy", seed=11)
        corsica = [p for p in truth.pieces if p.region == "corsica"]
        assert truth.state["regions"]["corsica"] == {"red": {LEGIONARY: 9}} and len(corsica) == 9
        where = [geo.region_at(*p.board_xy) for p in corsica]
        assert 0 < where.count("corsica") < 9
        assert all(r == "corsica" or geo.board.is_sea(r) for r in where)
        assert set(geo.regions_at(np.array([p.board_xy for p in corsica]), land=True)) == {"corsica"}

    def test_hands_are_recorded_as_occlusion(self):
        step = late_game()
        _, truth = render(step.state, "hard", seed=(5, 5), vp=step.vp, hands=2)
        assert truth.hand_present and truth.occluded_fraction > 0
        assert 0 < truth.hand_fraction <= truth.occluded_fraction
        assert truth.occluded_regions and all(0 < v <= 1 for v in truth.occluded_regions.values())
        _, calm = render(step.state, "easy", seed=(5, 5), vp=step.vp)
        assert not calm.hand_present and calm.occluded_fraction == 0 == calm.hand_fraction

    def test_unknown_tier(self):
        with pytest.raises(ValueError, match="unknown tier"):
            render(late_game().state, "nightmare")


class TestPrintedMap:
    """Tables rendered on a real print stand their pieces inside the print's own borders."""

    def test_pieces_stand_inside_the_map_the_art_is_printed_by(self):
        """A map with Judea and Arabia swapped: Arabia's legionaries stand on the committed map's
        Judea, and its hidden-region truth is measured there too."""
        geo = load_geometry()
        other = swapped_map(geo, "judea", "arabia")
        state = ObservedState.from_dict({"regions": {"arabia": {"red": {"legionary": 6}}}})
        _, truth = render(state, "easy", seed=(8, 2), geometry=other)
        placed = [p for p in truth.pieces if p.region]
        assert len(placed) == 6
        assert [other.region_at(*p.board_xy) for p in placed] == ["arabia"] * 6
        assert [geo.region_at(*p.board_xy) for p in placed] == ["judea"] * 6

    def test_the_procedural_art_prints_the_committed_map(self):
        """The procedural art is drawn from the committed map, so fitting the map to it moves
        (almost) nothing: the fit reads the print, not its own guesses."""
        from vision.synth.board_art import printed_map, procedural_art
        geo = load_geometry()
        assert (printed_map(procedural_art()).labels != geo.labels).sum() < 0.0002 * geo.labels.size


class TestDeterminism:
    def test_same_seed_same_bytes(self):
        step = late_game()
        a = render(step.state, "hard", seed=(11, 2), vp=step.vp)[1]
        b = render(step.state, "hard", seed=(11, 2), vp=step.vp)[1]
        assert a.jpeg == b.jpeg and a.to_dict() == b.to_dict()

    def test_other_seed_other_image(self):
        step = late_game()
        assert render(step.state, "easy", seed=1)[1].jpeg != render(step.state, "easy", seed=2)[1].jpeg

    def test_sizes(self):
        img, truth = render(late_game().state, "easy", seed=1, size=(1920, 1080))
        assert img.shape == (1080, 1920, 3) and truth.size == (1920, 1080)


class TestKnockedOver:
    """Pieces knocked over in a battle (``render``'s ``toppled``): a Risk player's common complaint,
    and a piece the counter had never seen lying on its side."""

    def test_a_knocked_piece_lies_along_its_own_region_clear_of_the_others(self):
        from vision.synth.render import PIECE_HEIGHT, Placed, knock_over, place_pieces
        geo = load_geometry()
        step = late_game()
        placed, _ = place_pieces(step.state, np.random.default_rng(3), geo, step.vp)
        knocked = knock_over(placed, 1.0, np.random.default_rng(4), geo)
        lying = [(a, b) for a, b in zip(placed, knocked) if b.lying is not None]
        assert len(lying) > 20 and len(lying) < len(placed)     # in a crowded pile there is no room to fall
        for a, b in zip(placed, knocked):
            if b.lying is None:
                assert b == a
                continue
            assert a.kind in (LEGIONARY, VEXILLUM) and a.region is not None and (b.kind, b.colour) == (a.kind, a.colour)
            d = np.array([np.cos(b.lying), np.sin(b.lying)])
            length = PIECE_HEIGHT[a.kind]
            assert np.allclose(np.array([b.x, b.y]) - d * length / 2, (a.x, a.y))     # it fell from where it stood
            along = np.array([a.x, a.y]) + np.outer(np.linspace(0, length, 9), d)
            labels = geo.labels[np.round(along[:, 1]).astype(int), np.round(along[:, 0]).astype(int)]
            assert (labels == labels[0]).all()
            others = np.array([(o.x, o.y, PIECE_RADIUS[o.kind]) for o in placed if o is not a])
            gap = np.hypot(others[:, None, 0] - along[None, 1:, 0], others[:, None, 1] - along[None, 1:, 1]) \
                - others[:, 2:3]
            assert gap.min() > 0
        assert all(isinstance(b, Placed) and b.lying is None for b in knocked if b.region is None)   # score markers

    def test_knocking_pieces_over_changes_the_photo_only_where_they_lie(self):
        """The knocked pieces are drawn from a stream of their own: the camera, the light, the
        clutter and every other piece are as on the table where all stand, and the state too."""
        step = late_game()
        img, truth = render(step.state, "medium", seed=(11, 2), vp=step.vp)
        knocked, knocked_truth = render(step.state, "medium", seed=(11, 2), vp=step.vp, toppled=0.2)
        assert knocked_truth.state == truth.state
        lying = [(p, q) for p, q in zip(truth.pieces, knocked_truth.pieces) if q.lying]
        assert len(lying) >= 5 and not any(p.lying for p in truth.pieces)
        assert all(json.dumps(q.to_dict()).count('"lying": true') == 1 for _, q in lying)
        near = np.zeros(img.shape[:2], np.uint8)
        for p, q in lying:
            for x, y in (p.footprint, q.footprint):
                cv2.circle(near, (int(x), int(y)), 45, 255, -1)
        changed = np.abs(knocked.astype(np.int16) - img).max(axis=2) > 40
        assert changed.sum() > 100 and not (changed & (near == 0)).any()

    def test_half_the_training_tables_show_knocked_pieces(self):
        from vision.synth.dataset import TOPPLED_TABLES, toppled_of_table
        shares = [toppled_of_table(0.1, tier, 7, i) for tier in TIERS for i in range(200)]
        assert set(shares) == {0.0, 0.1}
        assert abs(shares.count(0.1) / len(shares) - TOPPLED_TABLES) < 0.06
        assert shares == [toppled_of_table(0.1, tier, 7, i) for tier in TIERS for i in range(200)]
        assert toppled_of_table(0.0, "hard", 7, 3) == 0.0


class TestStillFrames:
    """Another frame of the same still table differs from the photo by sensor noise alone."""

    @staticmethod
    def _smooth_gap(a, b) -> float:
        blur = lambda im: cv2.GaussianBlur(im, (0, 0), 3).astype(np.float32)  # noqa: E731
        return float(np.abs(blur(a) - blur(b)).mean())

    def test_another_frame_is_the_same_scene_with_new_noise(self):
        step = late_game()
        img, truth = render(step.state, "hard", seed=(11, 2), vp=step.vp)
        other, other_truth = render(step.state, "hard", seed=(11, 2), vp=step.vp, sensor_seed=(11, 2, 1))
        assert other_truth.to_dict() == truth.to_dict()
        assert np.abs(other.astype(np.int16) - img).mean() > 0.5          # new noise
        assert self._smooth_gap(img, other) < 1.5                          # same focus, light, pieces, hands
        elsewhere = render(step.state, "hard", seed=(11, 3), vp=step.vp)[0]
        assert self._smooth_gap(img, elsewhere) > 5 * self._smooth_gap(img, other)

    def test_frames_are_reproducible(self):
        step = late_game()
        a = render(step.state, "medium", seed=4, vp=step.vp, sensor_seed=(4, 1))[1]
        b = render(step.state, "medium", seed=4, vp=step.vp, sensor_seed=(4, 1))[1]
        c = render(step.state, "medium", seed=4, vp=step.vp, sensor_seed=(4, 2))[1]
        assert a.jpeg == b.jpeg != c.jpeg

    def test_still_tables_are_the_rendered_images_with_their_frames(self):
        from vision.synth.dataset import iter_renders, iter_still_tables
        (i, img, truth), = iter_renders("medium", 1, 77)
        (j, same, same_truth, frame), = iter_still_tables("medium", 1, 77)
        assert i == j and np.array_equal(img, same) and same_truth.to_dict() == truth.to_dict()
        assert np.array_equal(frame(0), img) and not np.array_equal(frame(1), img)
        assert self._smooth_gap(img, frame(1)) < 1.5


class TestDataset:
    def test_tables_come_from_a_new_game_every_few(self, monkeypatch):
        """A set of tables shows many simulated games (the bench's 200 tables of a tier once came
        from four, and measured those games), and table ``i`` the same state in every tier."""
        import vision.synth.dataset as ds

        shown: list[tuple[str, dict]] = []
        monkeypatch.setattr(ds, "render", lambda state, tier, **kw: (None, shown.append((tier, state.to_dict()))))
        n = ds.TABLES_PER_GAME + 1
        for tier in ("easy", "hard"):
            list(ds.iter_renders(tier, n, 77))
        easy, hard = [st for t, st in shown if t == "easy"], [st for t, st in shown if t == "hard"]
        assert easy == hard
        game = [step.state.to_dict() for step in ds.table_game(77, 0)]
        assert all(st in game for st in easy[:-1]) and easy[-1] not in game
        assert easy[-1] in [step.state.to_dict() for step in ds.table_game(77, ds.TABLES_PER_GAME)]

    def test_a_contact_sheet_on_a_print_renders_every_cell_on_it(self, monkeypatch):
        """``augur synth sheet --board-photo``: each tier's row is rendered on the print, its pieces
        by the print's map (before session 38 the photo was silently ignored)."""
        import vision.synth.dataset as ds
        art, other = np.zeros((8, 8, 3), np.uint8), swapped_map(load_geometry(), "judea", "arabia")
        asked = []
        def rendered(tier, n, seed, size=None, art=None, geometry=None):
            asked.append((tier, art, geometry))
            for i in range(n):
                yield i, np.zeros((90, 160, 3), np.uint8), SimpleNamespace(pieces=[], hand_present=False)
        monkeypatch.setattr(ds, "iter_renders", rendered)
        sheet = ds.contact_sheet(2, 5, cell=(48, 27), art=art, geometry=other)
        assert sheet.shape == (3 * 27, 2 * 48, 3)
        assert [t for t, _, _ in asked] == list(TIERS) and all(a is art and g is other for _, a, g in asked)

    def test_layout_and_labels(self, tmp_path):
        write_dataset(tmp_path, "medium", 10, seed=2)
        images = sorted((tmp_path / "images").rglob("*.jpg"))
        labels = sorted((tmp_path / "labels").rglob("*.txt"))
        assert len(images) == 10 and len(labels) == 10
        assert len(list((tmp_path / "images" / "val").glob("*.jpg"))) == 1
        for lbl in labels:
            for row in filter(None, lbl.read_text().splitlines()):
                cls, *box = row.split()
                assert 0 <= int(cls) < len(CLASS_NAMES)
                assert all(0 <= float(v) <= 1 for v in box)
        truth = json.loads((tmp_path / "truth" / "000000.json").read_text())
        assert {"state", "pieces", "board_corners", "homography", "hand_present"} <= set(truth)
        assert "names:" in (tmp_path / "data.yaml").read_text()

    def test_dataset_is_reproducible(self, tmp_path):
        write_dataset(tmp_path / "a", "easy", 3, seed=4)
        write_dataset(tmp_path / "b", "easy", 3, seed=4)
        for f in sorted((tmp_path / "a").rglob("*.jpg")):
            assert f.read_bytes() == (tmp_path / "b" / f.relative_to(tmp_path / "a")).read_bytes()

    def test_heavily_occluded_pieces_are_not_labelled(self):
        step = late_game()
        _, truth = render(step.state, "hard", seed=(5, 5), vp=step.vp, hands=2)
        assert len(yolo_lines(truth)) == sum(1 for p in truth.pieces if p.occluded <= 0.5
                                             and p.box[2] - p.box[0] >= 2 and p.box[3] - p.box[1] >= 2)


def watch_render(monkeypatch, video) -> list[dict]:
    """``video.render`` replaced by a stub that draws nothing and keeps the keywords of each call."""
    calls = []

    def watched(state, tier, **kw):
        calls.append(kw)
        return np.zeros((4, 4, 3), np.uint8), SimpleNamespace(state={}, occluded_fraction=0.0, board_corners=[],
                                                               jpeg=b"", hand_fraction=0.0, pieces=[])
    monkeypatch.setattr(video, "render", watched)
    return calls


class TestVideo:
    def test_game_video_frames_and_truth(self, tmp_path):
        from vision.synth.video import write_video
        n = write_video(tmp_path, seed=2, turns=1, size=(480, 270), fps=6)
        lines = [json.loads(x) for x in (tmp_path / "truth.jsonl").read_text().splitlines()]
        assert n == len(lines) == len(list((tmp_path / "frames").glob("*.jpg")))
        assert [x["frame"] for x in lines] == list(range(n))
        hands = [x["hand_present"] for x in lines]
        assert any(hands) and not hands[0] and not hands[-1]
        # the board only changes while a hand is over it; the score markers start on box 0
        for a, b in zip(lines, lines[1:]):
            if a["state"] != b["state"]:
                assert b["hand_present"]
            if a["track"] != b["track"]:
                assert b["hand_present"]
        assert lines[0]["track"] == {"red": 0, "blue": 0, "yellow": 0, "green": 0}
        assert (tmp_path / "game.jsonl").is_file()
        steps = len((tmp_path / "game.jsonl").read_text().splitlines()) - 2
        assert len({x["step"] for x in lines}) == steps + 1

    def test_a_game_on_a_print_is_filmed_on_it_with_its_pieces_inside_its_borders(self, monkeypatch):
        """``augur bench game --board-photo``: every frame and the calibration photo are rendered
        on the print, and the pieces stand by the print's map (here Judea and Arabia swapped), so
        Arabia's legionaries stand on the committed map's Judea."""
        import vision.synth.video as video
        geo = load_geometry()
        other = swapped_map(geo, "judea", "arabia")
        art = np.zeros((8, 8, 3), np.uint8)             # never drawn: render is only watched here
        calls = watch_render(monkeypatch, video)
        list(video.frames(seed=4, turns=1, size=(320, 180), fps=2, art=art, geometry=other))
        video.calibration_photo(4, "easy", (320, 180), art=art)
        assert len(calls) > 3 and all(kw["art"] is art for kw in calls)
        assert all(kw["geometry"] is other for kw in calls[:-1])
        placed = [p for p in calls[0]["placement"][0] if p.region in ("judea", "arabia")]
        assert len(placed) == 5                          # seed 4 sets up 2 in Judea and 3 in Arabia
        assert all(other.region_at(p.x, p.y) == p.region != geo.region_at(p.x, p.y) for p in placed)

    def test_a_setup_on_a_print_is_filmed_on_it(self, monkeypatch):
        """``augur bench setup --board-photo``: the set-up film is rendered on the print, with its
        pieces placed by the print's map, as a game's is."""
        import vision.synth.video as video
        other = swapped_map(load_geometry(), "judea", "arabia")
        art = np.zeros((8, 8, 3), np.uint8)
        calls = watch_render(monkeypatch, video)
        list(video.setup_frames(seed=4, size=(320, 180), fps=2, art=art, geometry=other))
        assert len(calls) > 45 and all(kw["art"] is art and kw["geometry"] is other for kw in calls)

    def test_card_sets_and_draws_are_entered_as_the_hand_comes_in(self, monkeypatch):
        """The truth lines carry what the players enter at the tablet: a step's card set on the
        frame its hand comes in, after the card the previous step's player drew (§17)."""
        import vision.synth.video as video
        def blank(state, tier, **kw):
            return np.zeros((4, 4, 3), np.uint8), SimpleNamespace(state=state.to_dict(), occluded_fraction=0.0,
                                                                   board_corners=[], jpeg=b"", hand_fraction=0.0,
                                                                   pieces=[])
        monkeypatch.setattr(video, "render", blank)
        steps = list(Simulator(video.PLAYERS, seed=27, max_turns=14).steps())
        lines = [t for _, t, _ in video.frames(seed=27, turns=14, size=(320, 180), fps=2)]
        entered = [(i, t["step"], t["entries"]) for i, t in enumerate(lines) if "entries" in t]
        for i, k, entries in entered:
            assert lines[i]["hand_present"] and not lines[i - 1]["hand_present"] and lines[i - 1]["step"] == k - 1
            step, previous = steps[k - 1], steps[k - 2]
            expected = ([{"kind": "draw", "payload": {"player": previous.actor}}] if previous.card_drawn else []) + \
                       ([{"kind": "cards", "payload": {"player": step.actor, "cards": list(step.cards_played)}}]
                        if step.cards_played else [])
            assert entries == expected
        kinds = [e["kind"] for _, _, entries in entered for e in entries]
        assert kinds.count("cards") == sum(bool(s.cards_played) for s in steps) == 1
        assert kinds.count("draw") == sum(s.card_drawn for s in steps[:-1]) > 3

    def test_a_video_written_on_a_print_films_it_and_says_so(self, monkeypatch, tmp_path):
        """``augur synth video --board-photo``: the frames and the calibration photo are both
        rendered on the print (its map for the pieces), and ``video.json`` records it. Before
        session 38 the photo was silently ignored."""
        import vision.synth.video as video
        art, other = np.zeros((8, 8, 3), np.uint8), swapped_map(load_geometry(), "judea", "arabia")
        seen = {}
        def filmed(seed, turns, tier, size, fps, art=None, geometry=None):
            seen["frames"] = (art, geometry)
            yield np.zeros((4, 4, 3), np.uint8), {"frame": 0}, b"jpeg"
        def photographed(seed, tier, size, art=None):
            seen["calibration"] = art
            return np.zeros((4, 4, 3), np.uint8)
        monkeypatch.setattr(video, "frames", filmed)
        monkeypatch.setattr(video, "calibration_photo", photographed)
        assert video.write_video(tmp_path, seed=4, turns=1, art=art, geometry=other) == 1
        assert seen["frames"][0] is art and seen["frames"][1] is other and seen["calibration"] is art
        assert json.loads((tmp_path / "video.json").read_text())["print"] is True
        video.write_video(tmp_path / "plain", seed=4, turns=1)
        assert seen["frames"] == (None, None) and seen["calibration"] is None
        assert json.loads((tmp_path / "plain" / "video.json").read_text())["print"] is False

    def test_a_move_changes_only_the_pieces_it_moves(self):
        """Between two hand-free frames around a move, only the moved pieces' pixels change: the
        other pieces' tints, the glare, dice and cards stay (they used to be drawn again, 8 % of
        the frame), and so do focus and compression; frames of a still table differ by sensor
        noise only."""
        from vision.synth.video import frames
        still = [(img, t["state"]) for img, t, _ in frames(seed=4, turns=1, tier="hard", size=(480, 270), fps=4)
                 if not t["hand_present"]]
        changed = [float((cv2.absdiff(a, b).max(axis=2) > 40).mean()) for (a, sa), (b, sb) in zip(still, still[1:])
                   if sa != sb]
        same = [float((cv2.absdiff(a, b).max(axis=2) > 40).mean()) for (a, sa), (b, sb) in zip(still, still[1:])
                if sa == sb]
        assert changed and same
        assert 0 < max(changed) < 0.002
        assert max(same) < 0.0005

    def test_video_is_reproducible(self, tmp_path):
        from vision.synth.video import write_video
        write_video(tmp_path / "a", seed=4, turns=1, size=(320, 180), fps=4)
        write_video(tmp_path / "b", seed=4, turns=1, size=(320, 180), fps=4)
        assert (tmp_path / "a" / "truth.jsonl").read_bytes() == (tmp_path / "b" / "truth.jsonl").read_bytes()
        assert (tmp_path / "a" / "frames" / "000005.jpg").read_bytes() == \
            (tmp_path / "b" / "frames" / "000005.jpg").read_bytes()
