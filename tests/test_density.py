"""The density counter: input preparation, reading counts off the maps, and the shipped model."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profile import calibrate
from tests.conftest import swapped_map
from tracker.pieces import LEGIONARY, TRIREME
from tracker.state import ObservedState
from vision.bench import hidden_regions
from vision.count import count
from vision.density import (COLOURS, DEFAULT_COUNTER, KINDS, MULTIPLE, N_OUT, STRIDE, Crop, DensityCounter,
                            _split, counting_crop, output_to_image, region_labels_in_output)
from vision.density_train import ideal_output, sample_from, targets
from vision.geometry import load_geometry
from vision.records import Detections
from vision.synth.board_art import procedural_art
from vision.synth.dataset import iter_renders
from vision.synth.render import calibration_render, render



@lru_cache(maxsize=None)
def calibrated_scene(tier: str, k: int = 0):
    """A held-out game image, its truth and the calibration profile made from its empty table."""
    for i, img, truth in iter_renders(tier, k + 1, 4242):
        if i == k:
            return img, truth, calibrate(calibration_render(truth), procedural_art(), players=truth.players)


class FakeSession:
    """Stands in for onnxruntime: returns fixed maps, and checks the input it is given."""

    def __init__(self, maps: np.ndarray):
        self.maps = maps
        self.seen: list[tuple] = []

    def get_inputs(self):
        return [type("Input", (), {"name": "input", "type": "tensor(float)"})()]

    def run(self, _outputs, feeds):
        x = feeds["input"]
        self.seen.append(x.shape)
        return [self.maps[None]]


class TestCrop:
    @pytest.mark.parametrize("size", [(1280, 720), (640, 480)])
    def test_crop_holds_the_board_and_fits_the_network(self, size):
        corners = np.array([[100.3, 50.2], [600.8, 70.0], [590.0, 400.9], [90.0, 380.0]])
        c = Crop.around(corners, size)
        assert c.size[0] % MULTIPLE == 0 and c.size[1] % MULTIPLE == 0
        assert 0 <= c.x0 and c.x1 <= size[0] and 0 <= c.y0 and c.y1 <= size[1]
        assert c.x0 <= 90 - 20 and c.y0 <= 50 - 20 and c.x1 >= 600 and c.y1 >= 400

    @pytest.mark.parametrize("scale", [0.75, 1.0, 1.3])
    def test_output_cells_map_back_to_the_image_pixels_they_were_resized_from(self, scale):
        corners = np.array([[100.0, 50.0], [600.0, 70.0], [590.0, 400.0], [90.0, 380.0]])
        crop = Crop.around(corners, (1280, 720), scale=scale)
        iw, ih = crop.input_size
        assert iw % MULTIPLE == 0 and ih % MULTIPLE == 0 and abs(iw / crop.size[0] - scale) < 0.02
        image = np.zeros((720, 1280), np.float32)
        image[300:305, 400:405] = 1.0                      # a dot centred on pixel (402, 302)
        seen = crop.resize(image[crop.y0:crop.y1, crop.x0:crop.x1])
        ys, xs = np.mgrid[:ih, :iw]
        cx, cy = (xs * seen).sum() / seen.sum(), (ys * seen).sum() / seen.sum()
        cell = np.array([(cx - (STRIDE - 1) / 2) / STRIDE, (cy - (STRIDE - 1) / 2) / STRIDE, 1.0])
        back = output_to_image(crop) @ cell
        assert back[:2] == pytest.approx([402, 302], abs=0.3)


    @pytest.mark.parametrize("tier", ["easy", "hard"])
    def test_the_counting_crop_brings_a_legionary_to_one_width(self, tier):
        import dataclasses
        from vision.density import FAR_ACROSS, MAX_INPUT_PIXELS, SCALES, TARGET_ACROSS, legionary_across
        _, _, profile = calibrated_scene(tier)
        geo = load_geometry()
        scales, unbounded = [], 0
        for factor in (0.25, 0.5, 0.8, 1.0, 1.25, 2.0, 4.0):    # pieces drawn smaller or larger
            p = dataclasses.replace(profile, legionary_area=profile.legionary_area * factor)
            crop = counting_crop(p, geo)
            at_centre, farthest = legionary_across(p, geo), legionary_across(p, geo, smallest=True)
            assert SCALES[0] <= crop.scale <= SCALES[1]
            assert crop.input_size[0] * crop.input_size[1] <= MAX_INPUT_PIXELS * 1.05
            cap = np.sqrt(MAX_INPUT_PIXELS / (crop.size[0] * crop.size[1]))
            # the far side never shrinks past the floor, unless the pixel budget forces it
            assert crop.scale >= min(1.0, FAR_ACROSS / farthest, cap) - 1e-6
            if SCALES[0] < crop.scale < min(SCALES[1], cap) - 1e-6:
                # the centre's legionary at the target width, or the farthest one at the floor, or
                # (a far side already narrower than the floor) not shrunk at all
                assert (at_centre * crop.scale == pytest.approx(TARGET_ACROSS, rel=1e-6)
                        or farthest * crop.scale == pytest.approx(FAR_ACROSS, rel=1e-6)
                        or (crop.scale == 1.0 and farthest < FAR_ACROSS and at_centre > TARGET_ACROSS))
                unbounded += 1
            scales.append(crop.scale)
        assert scales == sorted(scales, reverse=True) and scales[0] > scales[-1]
        assert unbounded >= 1


class TestTargets:
    def test_every_visible_piece_adds_mass_one_to_its_kind(self):
        img, truth, profile = calibrated_scene("easy")
        s = sample_from(img, truth, profile)
        h, w = s["occ"].shape
        dens, colour, kind_map, _ = targets(s, 0, 0, w, h)
        for k, kind in enumerate(KINDS):
            assert dens[k].sum() == pytest.approx(sum(p.kind == kind for p in truth.pieces), abs=1e-3)
        assert set(np.unique(colour)) - {-1} <= set(range(len(COLOURS)))
        assert set(np.unique(kind_map)) - {-1} == {KINDS.index(p.kind) for p in truth.pieces}
        assert ((colour >= 0) == (kind_map >= 0)).all()

    def test_a_window_keeps_only_the_pieces_inside_it(self):
        img, truth, profile = calibrated_scene("easy")
        s = sample_from(img, truth, profile)
        dens, _, _, _ = targets(s, 40, 30, 64, 64)
        inside = sum(1 for x, y in s["pts"] if 42 <= x < 102 and 32 <= y < 92)
        around = sum(1 for x, y in s["pts"] if 37 <= x < 107 and 27 <= y < 97)
        assert inside <= dens.sum() + 1e-3 and dens.sum() <= around + 1e-3

    def test_pieces_spilled_off_their_island_are_marked(self):
        """A pile of nine on Corsica stands partly on the sea: the sample marks exactly the pieces
        standing outside their own province, so training crops can be centred on them."""
        geo = load_geometry()
        state = ObservedState.from_dict({"board": "spqrisiko", "regions": {
            "corsica": {"red": {LEGIONARY: 9}}, "sardinia": {"blue": {LEGIONARY: 2}},
            "tyrrenum": {"blue": {TRIREME: 1}}}})
        img, truth = render(state, "easy", seed=11)
        profile = calibrate(calibration_render(truth), procedural_art(), players=truth.players)
        s = sample_from(img, truth, profile)
        assert s["spilled"].dtype == bool and len(s["spilled"]) == len(s["pts"]) == len(truth.pieces)
        off = [p.region == "corsica" and geo.region_at(*p.board_xy) != "corsica" for p in truth.pieces]
        assert 0 < sum(off) < 9 and s["spilled"].tolist() == off
        assert not s["spilled"][s["kind"] == KINDS.index(TRIREME)].any()     # a fleet at sea is at home


class TestReadingTheMaps:
    @pytest.mark.parametrize("tier", ["easy", "hard"])
    def test_perfect_maps_give_the_true_counts_of_every_visible_region(self, tier):
        """The maps a perfect network would make are read back to the exact state: this checks the
        crop, the half-resolution grid, the projected region labels and the colour rules."""
        img, truth, profile = calibrated_scene(tier)
        maps = ideal_output(sample_from(img, truth, profile, counter_view=True))
        session = FakeSession(maps)
        counter = DensityCounter(profile, session=session)
        det = counter.detect(img)
        assert session.seen[0][1] == 6 and session.seen[0][2] == maps.shape[1] * STRIDE
        geo = load_geometry()
        got, want = count(det, counter.geo, det.unseen), ObservedState.from_dict(truth.state)
        hidden = hidden_regions(truth)
        wrong = [r for r in geo.region_ids if r not in hidden and got.regions.get(r) != want.regions.get(r)]
        # footprints within a cell or two of a printed border may be given to the neighbour
        assert len(wrong) <= 1, wrong
        assert det.unseen <= hidden

    def test_an_empty_map_counts_nothing(self):
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        h, w = counter.labels.shape
        counter.session = FakeSession(np.zeros((N_OUT, h, w), np.float32))
        assert len(counter.detect(img)) == 0

    def test_wrong_frame_size_is_a_clear_error(self):
        from vision.density import CounterError
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        with pytest.raises(CounterError, match="calibration was made at"):
            counter.detect(img[:400, :600])

    def test_region_labels_follow_the_homography(self):
        img, truth, profile = calibrated_scene("easy")
        geo = load_geometry()
        crop = Crop.around(profile.pose.corners, tuple(profile.image_size))
        labels = region_labels_in_output(profile.H, geo, crop)
        for rid in ("italia", "tyrrenum", "aegyptus"):
            bx, by = geo.label_points[rid]
            u = profile.H @ np.array([bx, by, 1.0])
            ox = int(round((u[0] / u[2] - crop.x0 - (STRIDE - 1) / 2) / STRIDE))
            oy = int(round((u[1] / u[2] - crop.y0 - (STRIDE - 1) / 2) / STRIDE))
            assert geo.region_ids[labels[oy, ox] - 1] == rid


def _cell_of(profile, counter, rid):
    """The output cell under a region's label point."""
    bx, by = load_geometry().label_points[rid]
    u = np.linalg.inv(output_to_image(counter.crop)) @ profile.H @ np.array([bx, by, 1.0])
    return int(round(u[0] / u[2])), int(round(u[1] / u[2]))


def _maps_with_blobs(shape, blobs, kind, colour):
    """Output maps holding Gaussian density blobs (sigma one cell) of the given masses."""
    maps = np.zeros((N_OUT,) + shape, np.float32)
    maps[-1] = -9.0                                     # nothing hidden
    ys, xs = np.mgrid[:shape[0], :shape[1]]
    for (x, y), mass in blobs:
        maps[0] += mass / (2 * np.pi) * np.exp(-((xs - x) ** 2 + (ys - y) ** 2) / 2)
    maps[1 + KINDS.index(kind)] = 5.0
    maps[1 + len(KINDS) + COLOURS.index(colour)] = 5.0
    return maps


class TestPeakCounting:
    """A region's count is the number of its density peaks, not its rounded mass."""

    def counted(self, rid, offsets, masses, kind, colour):
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        x, y = _cell_of(profile, counter, rid)
        blobs = [((x + dx, y + dy), m) for (dx, dy), m in zip(offsets, masses)]
        counter.session = FakeSession(_maps_with_blobs(counter.labels.shape, blobs, kind, colour))
        det = counter.detect(img)
        return count(det, counter.geo, det.unseen).regions.get(rid, {})

    def test_a_pile_whose_mass_comes_out_short_still_counts_every_summit(self):
        # three touching legionaries whose summed mass (1.8) would round to two
        got = self.counted("italia", [(0, 0), (3, 0), (0, 3)], [0.6, 0.6, 0.6], "legionary", "red")
        assert got == {"red": {"legionary": 3}}

    def test_two_legionaries_merged_into_one_summit_count_two(self):
        got = self.counted("italia", [(0, 0), (1, 0)], [1.0, 1.0], "legionary", "red")
        assert got == {"red": {"legionary": 2}}

    def test_a_long_hull_with_two_summits_is_one_trireme(self):
        got = self.counted("tyrrenum", [(0, 0), (3, 0)], [0.5, 0.5], "trireme", "blue")
        assert got == {"blue": {"trireme": 1}}

    def test_two_hulls_apart_are_two_triremes(self):
        got = self.counted("tyrrenum", [(0, 0), (9, 0)], [1.0, 1.0], "trireme", "blue")
        assert got == {"blue": {"trireme": 2}}

    def test_two_fleets_in_a_sea_keep_a_trireme_each_whatever_their_blobs_mass(self):
        """Colours go by summit: shared out by mass, the light blob's trireme (0.5 against 1.6)
        went to the other fleet."""
        img, truth, profile = calibrated_scene("easy")
        counter = self.counter()
        x, y = _cell_of(profile, counter, "tyrrenum")
        blue = _maps_with_blobs(counter.labels.shape, [((x, y), 1.6)], "trireme", "blue")
        black = _maps_with_blobs(counter.labels.shape, [((x + 9, y), 0.5)], "trireme", "black")
        maps = blue.copy()
        maps[0] += black[0]
        colour = slice(1 + len(KINDS), 1 + len(KINDS) + len(COLOURS))
        maps[colour, :, x + 5:] = black[colour, :, x + 5:]          # black east of the middle
        counter.session = FakeSession(maps)
        det = counter.detect(img)
        got = count(det, counter.geo, det.unseen).regions.get("tyrrenum", {})
        assert got == {"blue": {"trireme": 1}, "black": {"trireme": 1}}

    def test_the_peak_window_follows_the_apparent_size_of_a_legionary(self):
        import dataclasses
        from vision.density import PEAK_WINDOWS, legionary_across, peak_window
        _, _, profile = calibrated_scene("easy")
        geo = load_geometry()
        across = legionary_across(profile, geo)
        assert legionary_across(dataclasses.replace(profile, legionary_area=profile.legionary_area * 4),
                                geo) == pytest.approx(2 * across)
        assert (peak_window(0.5), peak_window(20.0)) == PEAK_WINDOWS
        assert all(peak_window(a) % 2 == 1 for a in np.linspace(0.5, 20, 40))

    def test_a_pile_spilled_off_an_island_counts_for_the_island(self):
        """Two legionaries on the sea off Corsica's coast and one on it: three in Corsica, none at
        sea; a trireme blob at the same spot stays a fleet of that sea."""
        img, truth, profile = calibrated_scene("easy")
        geo = load_geometry()
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        corsica = geo.region_ids.index("corsica") + 1
        off = np.argwhere((counter.land_labels == corsica) & (counter.labels != corsica) & (counter.labels > 0))
        on = np.argwhere(counter.labels == corsica)
        assert len(off) and len(on)
        cy, cx = on.mean(axis=0)
        far = off[np.argsort(-np.hypot(off[:, 0] - cy, off[:, 1] - cx))]
        (y1, x1), (y2, x2) = far[0], next(c for c in far if np.hypot(*(c - far[0])) >= 3 * counter.peak_window)
        y0, x0 = on[np.argmin(np.hypot(on[:, 0] - cy, on[:, 1] - cx))]
        blobs = [((x0, y0), 1.0), ((x1, y1), 1.0), ((x2, y2), 1.0)]
        counter.session = FakeSession(_maps_with_blobs(counter.labels.shape, blobs, LEGIONARY, "red"))
        det = counter.detect(img)
        assert count(det, counter.geo, det.unseen).regions == {"corsica": {"red": {LEGIONARY: 3}}}
        counter.session = FakeSession(_maps_with_blobs(counter.labels.shape, blobs[1:2], TRIREME, "red"))
        det = counter.detect(img)
        sea = geo.region_ids[counter.labels[y1, x1] - 1]
        assert count(det, counter.geo, det.unseen).regions == {sea: {"red": {TRIREME: 1}}}

    def test_a_faint_summit_is_no_piece(self):
        got = self.counted("italia", [(0, 0), (4, 0)], [1.0, 0.1], "legionary", "red")
        assert got == {"red": {"legionary": 1}}

    def test_a_wide_centre_blob_with_two_summits_is_one_centre(self):
        # two summits less than a legionary apart, inside the disc (a legionary's window splits them)
        apart = int(self.counter().across) - 1
        assert apart > self.counter().peak_window // 2
        got = self.counted("italia", [(0, 0), (apart, 0)], [0.6, 0.5], "centre", "neutral")
        assert got == {"neutral": {"centre": 1}}

    def counter(self):
        img, truth, profile = calibrated_scene("easy")
        return DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))


class TestCentresWithoutSummit:
    """A power centre the density missed is found by the kind output alone: a patch of cells
    scoring centre, about a centre's size, confidently."""

    def counted(self, rid, radius_in_legionaries, centre_logit):
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        x, y = _cell_of(profile, counter, rid)
        maps = np.zeros((N_OUT,) + counter.labels.shape, np.float32)
        maps[-1] = -9.0
        ys, xs = np.mgrid[:maps.shape[1], :maps.shape[2]]
        disc = (xs - x) ** 2 + (ys - y) ** 2 <= (radius_in_legionaries * counter.across) ** 2
        maps[1 + KINDS.index("centre")][disc] = centre_logit          # no density anywhere
        counter.session = FakeSession(maps)
        det = counter.detect(img)
        return count(det, counter.geo, det.unseen).regions.get(rid, {}), det

    def test_a_confident_centre_sized_patch_is_a_centre(self):
        got, det = self.counted("italia", 1.0, 4.0)
        assert got == {"neutral": {"centre": 1}}
        assert det.scores[0] > 0.9

    def test_a_hesitant_patch_is_no_centre(self):
        # p = e^1 / (e^1 + 3) = 0.48: below one half everywhere
        assert self.counted("italia", 1.0, 1.0)[0] == {}
        # p = e^1.5 / (e^1.5 + 3) = 0.6: a patch, but as unsure as the untrained background
        assert self.counted("italia", 1.0, 1.5)[0] == {}

    def test_a_patch_too_small_or_too_large_for_a_centre_is_none(self):
        assert self.counted("italia", 0.3, 4.0)[0] == {}
        assert self.counted("italia", 3.0, 4.0)[0] == {}

    def test_a_region_whose_centre_has_a_summit_gets_no_second_one(self):
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        x, y = _cell_of(profile, counter, "italia")
        maps = _maps_with_blobs(counter.labels.shape, [((x, y), 1.0)], "centre", "neutral")
        maps[1:1 + len(KINDS)] = 0.0
        ys, xs = np.mgrid[:maps.shape[1], :maps.shape[2]]
        near = (xs - x) ** 2 + (ys - y) ** 2 <= counter.across ** 2
        maps[1 + KINDS.index("centre")][near] = 4.0
        maps[1 + KINDS.index("centre")][np.roll(near, int(3 * counter.across), axis=1)] = 4.0
        counter.session = FakeSession(maps)
        det = counter.detect(img)
        assert count(det, counter.geo, det.unseen).regions.get("italia") == {"neutral": {"centre": 1}}



class TestStrayLegionaries:
    """A province holds one army: a summit of another army's colour by the border is the piece of
    the neighbour across it that holds that colour (``DensityCounter._to_its_army``)."""

    def read(self, stray_at: str, monkeypatch=None):
        """Three yellow legionaries in Moesia, three green ones in Thracia, and one green one in
        Moesia, either by the border with Thracia (``"border"``) or deep inside (``"inside"``)."""
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        geo = counter.geo
        assert "thracia" in geo.board.land_neighbours["moesia"]
        moesia, thracia = (geo.region_ids.index(r) + 1 for r in ("moesia", "thracia"))
        shape = counter.labels.shape
        maps = np.zeros((N_OUT,) + shape, np.float32)
        maps[-1] = -9.0
        maps[1 + KINDS.index(LEGIONARY)] = 5.0
        ys, xs = np.mgrid[:shape[0], :shape[1]]
        gap = 2 * counter.peak_window

        def blob(x, y, colour):
            maps[0] += 1 / (2 * np.pi) * np.exp(-((xs - x) ** 2 + (ys - y) ** 2) / 2)
            near = (np.abs(xs - x) <= 2) & (np.abs(ys - y) <= 2)
            maps[1 + len(KINDS):1 + len(KINDS) + len(COLOURS), near] = 0.0
            maps[1 + len(KINDS) + COLOURS.index(colour), near] = 5.0

        placed = []
        for rid, colour in (("moesia", "yellow"), ("thracia", "green")):
            x, y = _cell_of(profile, counter, rid)
            for dx in (-gap, 0, gap):
                blob(x + dx, y, colour)
                placed.append((x + dx, y))
        inside = np.argwhere(counter.land_labels == moesia)
        by_thracia = cv2.dilate((counter.land_labels == thracia).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        border = np.argwhere((counter.land_labels == moesia) & by_thracia)
        cells = border if stray_at == "border" else inside[np.argsort([-min(np.hypot(*(c - b)) for b in border[::5])
                                                                        for c in inside])]
        y, x = next(c for c in cells if min(np.hypot(c[1] - px, c[0] - py) for px, py in placed) > gap)
        blob(x, y, "green")
        counter.session = FakeSession(maps)
        det = counter.detect(img)
        got = count(det, geo, det.unseen).regions
        return got.get("moesia"), got.get("thracia")

    def test_a_summit_of_the_neighbours_colour_by_the_border_is_the_neighbours(self):
        assert self.read("border") == ({"yellow": {LEGIONARY: 3}}, {"green": {LEGIONARY: 4}})

    def test_without_the_rule_it_made_one_province_long_and_the_other_short(self, monkeypatch):
        import vision.density
        monkeypatch.setattr(vision.density, "STRAY_P", 2.0)
        assert self.read("border") == ({"yellow": {LEGIONARY: 4}}, {"green": {LEGIONARY: 3}})

    def test_a_summit_of_another_colour_deep_inside_a_province_stays_there(self):
        assert self.read("inside") == ({"yellow": {LEGIONARY: 4}}, {"green": {LEGIONARY: 3}})


class TestColourRules:
    def test_split_shares_by_mass_and_keeps_the_total(self):
        assert _split(5, np.array([3.0, 1.0, 1.0])) == [3, 1, 1]
        assert _split(3, np.array([0.0, 0.0])) == [3, 0]
        assert sum(_split(7, np.array([0.2, 0.5, 0.3]))) == 7

    def test_a_province_has_one_army_colour_and_a_centre_is_neutral(self):
        mass = np.array([0.4, 3.0, 0.1, 0.0, 0.0, 0.5])
        legions = DensityCounter._colours_of("legionary", 4, mass)
        assert legions[1] == 4 and sum(legions) == 4
        centre = DensityCounter._colours_of("centre", 1, mass)
        assert centre[COLOURS.index("neutral")] == 1 and sum(centre) == 1
        fleets = DensityCounter._colours_of("trireme", 4, np.array([2.0, 2.0, 0, 0, 0, 9.0]))
        assert fleets[:2] == [2, 2] and fleets[-1] == 0


class TestMirroredPass:
    """With ``mirrored``, the network reads the frame as it is and mirrored, and the two outputs
    are averaged once the mirrored one is turned back."""

    def test_the_mirrored_output_is_turned_back_before_averaging(self):
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        h, w = counter.labels.shape
        ramp = np.broadcast_to(np.arange(w, dtype=np.float32), (N_OUT, h, w)).copy()
        counter.session = FakeSession(ramp)
        counter.mirrored = False
        assert np.array_equal(counter.predict(img), ramp)
        counter.mirrored = True
        # a session blind to its input gives the ramp both times: turned back, it runs the other way
        assert np.allclose(counter.predict(img), (w - 1) / 2)

    def test_both_readings_see_the_same_frame_and_leave_the_input_as_it_was(self):
        img, truth, profile = calibrated_scene("easy")
        seen = []

        class Recording(FakeSession):
            def run(self, outputs, feeds):
                seen.append(feeds["input"].copy())
                return super().run(outputs, feeds)

        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)),
                                 mirrored=True)
        counter.session = Recording(np.zeros((N_OUT,) + counter.labels.shape, np.float32))
        counter.predict(img)
        assert len(seen) == 2
        assert np.array_equal(seen[1], seen[0][..., ::-1])
        assert np.array_equal(counter._input, seen[0])

    def test_a_still_run_is_read_plain_and_mirrored_in_turn_and_averaged(self):
        img, truth, profile = calibrated_scene("easy")
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)), partial=False)
        h, w = counter.labels.shape
        ramp = np.broadcast_to(np.arange(w, dtype=np.float32), (N_OUT, h, w)).copy()
        seen, read = [], []

        class Recording(FakeSession):
            def run(self, outputs, feeds):
                seen.append(feeds["input"].copy())
                return super().run(outputs, feeds)

        counter.session = Recording(ramp)
        counter.read = lambda out, fresh=None: read.append(out.copy()) or Detections.empty("density")
        for first in (True, False, False, True):
            counter.detect_in_run(img, first)
        # one pass a frame: plain, mirrored, plain, and plain again at the new run
        assert len(seen) == 4
        assert np.array_equal(seen[1], seen[0][..., ::-1]) and np.array_equal(seen[2], seen[0])
        assert np.array_equal(read[0], ramp) and np.array_equal(read[3], ramp)
        # from the second frame on, the mean of the latest two (the mirrored one turned back)
        assert np.allclose(read[1], (w - 1) / 2) and np.allclose(read[2], (w - 1) / 2)
        assert np.array_equal(counter._input[0], seen[0][0])

    def test_one_reading_unless_the_mirrored_detector_is_asked_for(self):
        from vision.pipeline import Pipeline, make_detector
        from vision.records import DENSITY_MIRRORED, DETECTORS
        img, truth, profile = calibrated_scene("easy")
        assert DENSITY_MIRRORED in DETECTORS
        plain, mirrored = make_detector(profile, "density"), make_detector(profile, DENSITY_MIRRORED)
        assert not plain.mirrored and plain.name == "density"
        assert mirrored.mirrored and mirrored.name == DENSITY_MIRRORED
        assert Pipeline(profile, which=DENSITY_MIRRORED).detector.name == DENSITY_MIRRORED
        assert Pipeline(profile).detector.name == "density"


@pytest.mark.skipif(not DEFAULT_COUNTER.is_file(), reason="no counting model shipped in models/")
class TestShippedCounter:
    def test_shipped_model_counts_held_out_easy_boards(self):
        """A regression check of the shipped weights, not the acceptance figure: ``augur bench
        vision`` measured 97.9 % of easy regions exact in session 15 (target 99.5 %), and these two
        tables read 100 % (80 % with the small network shipped until session 14); a broken export
        or input preparation drops far below the 90 % asked here."""
        geo = load_geometry()
        right = total = 0
        for k in range(2):
            img, truth, profile = calibrated_scene("easy", k)
            det = DensityCounter(profile).detect(img)
            got, want = count(det, profile.geometry, det.unseen), ObservedState.from_dict(truth.state)
            right += sum(got.regions.get(r) == want.regions.get(r) for r in geo.region_ids)
            total += len(geo.region_ids)
        assert right / total >= 0.9

    def test_the_counter_reads_channels_first_to_the_same_bit_as_onnxruntimes_default_layout(self):
        """The counter leaves out onnxruntime's channels-last rewrite (its 8-bit upsampling went
        pixel by pixel). The integer arithmetic is the same in either order, so the output must be
        too; a difference here would mean the confidence fitted for this file no longer fits."""
        import onnxruntime as ort
        img, _, profile = calibrated_scene("easy")
        counter = DensityCounter(profile)
        ours = counter.predict(img)
        default = ort.InferenceSession(str(DEFAULT_COUNTER), providers=["CPUExecutionProvider"])
        theirs = default.run(None, {counter.input_name: counter._input})[0][0]
        assert np.array_equal(ours, theirs)


class TestShippedNetworkCard:
    def test_the_checkpoints_the_shipped_weights_average_are_committed_as_the_card_lists_them(self):
        """``augur average-counter`` makes the shipped weights from these files bit for bit; a
        checkpoint replaced or lost would leave the card's recipe unreproducible."""
        import hashlib
        from vision.density import FLOAT_COUNTER, model_card
        card = model_card()
        assert "ingredients" in card, "the shipped counting network's card names no checkpoints it was made from"
        models = FLOAT_COUNTER.parent
        assert len(card["ingredients"]) >= 2
        for item in card["ingredients"]:
            path = models / item["file"]
            assert path.is_file(), f"{item['file']} is not committed"
            assert hashlib.sha256(path.read_bytes()).hexdigest() == item["sha256"]
        assert " ".join(f"models/{item['file']}" for item in card["ingredients"]) in card["reproduce"]


class TestTrainingSamples:
    def test_a_tables_later_frames_show_other_states_through_the_calibration_photos_camera(self):
        """Frames of one table are calibrated once: each must be taken by the camera of that
        calibration (the same homography), in the same light (the same board pixels where no piece
        stands), and show a state of its own."""
        from vision.density_train import _states, frame_steps
        from vision.synth.dataset import TIER_SEED
        steps = _states(11)
        chosen = frame_steps(steps, "medium", 11, 3, 3)
        assert len({id(step) for step in chosen}) == 3
        assert frame_steps(steps, "medium", 11, 3, 1) == chosen[:1]
        shots = [render(step.state, "medium", seed=(11, 3, TIER_SEED["medium"]), vp=step.vp) for step in chosen]
        (img0, truth0), (img1, truth1) = shots[0], shots[1]
        assert truth1.homography == truth0.homography
        assert truth1.state != truth0.state
        empty = calibration_render(truth0)
        far = np.ones(img0.shape[:2], bool)
        for truth in (truth0, truth1):
            far &= truth.occluder == 0
            for piece in truth.pieces:
                x, y = (int(v) for v in piece.footprint)
                far[max(0, y - 40):y + 40, max(0, x - 40):x + 40] = False
        assert far.mean() > 0.3
        for img in (img0, img1):
            assert np.abs(img.astype(int) - empty.astype(int))[far].mean() < 6

    def test_a_deadline_leaves_later_tables_out_and_keeps_the_mix(self, tmp_path):
        from vision.density_train import interleaved, write_data
        order = interleaved({"easy": 2, "hard": 4})
        assert sorted(order) == [("easy", 0), ("easy", 1), ("hard", 0), ("hard", 1), ("hard", 2), ("hard", 3)]
        assert [tier for tier, _ in order[:3]] == ["hard", "easy", "hard"]
        assert write_data(tmp_path, {"easy": 3}, 11, render_for=1e-6) == []
        assert (tmp_path / "frames.txt").read_text().strip() == "1"

    def test_a_samples_folder_of_other_frames_per_table_is_refused(self, tmp_path):
        from tracker.errors import AugurError
        from vision.density_train import SampleFolderError, write_data
        write_data(tmp_path, {"easy": 0}, 11)
        with pytest.raises(SampleFolderError, match="frames per table '1', not '3'"):
            write_data(tmp_path, {"easy": 0}, 11, frames=3)
        with pytest.raises(AugurError, match="at least one frame"):
            write_data(tmp_path / "none", {"easy": 0}, 11, frames=0)

    def test_a_table_of_two_frames_is_saved_frame_zero_last(self, tmp_path, monkeypatch):
        """Frame 0 marks a table done, so it is written after the others."""
        from vision.density_train import save_frames, table_paths
        paths = table_paths(tmp_path, "hard", 7, 2)
        assert [p.name for p in paths] == ["hard-00007.npz", "hard-00007-1.npz"]
        written = []
        real = np.savez_compressed
        monkeypatch.setattr(np, "savez_compressed", lambda path, **a: (written.append(Path(path).name), real(path, **a)))
        assert save_frames(paths, lambda: [{"x": np.zeros(2)}, {"x": np.ones(2)}]) == [p.name for p in paths]
        monkeypatch.undo()
        assert written == ["hard-00007-1.tmp.npz", "hard-00007.tmp.npz"]
        assert np.load(paths[1])["x"].tolist() == [1, 1]
        assert save_frames(paths, lambda: pytest.fail("a done table is not rendered again")) == [p.name for p in paths]

    def test_a_samples_folder_of_another_render_seed_is_refused(self, tmp_path):
        from vision.density_train import SampleFolderError, write_data
        assert write_data(tmp_path, {"easy": 0}, 11) == []
        assert (tmp_path / "seed.txt").read_text().strip() == "11"
        with pytest.raises(SampleFolderError, match="rendered with seed '11', not '12'"):
            write_data(tmp_path, {"easy": 0}, 12)

    def test_a_samples_folder_cut_from_another_view_is_refused(self, tmp_path):
        from vision.density_train import SampleFolderError, write_data
        (tmp_path / "seed.txt").write_text("11\n")          # a folder from before view.txt: the camera's
        with pytest.raises(SampleFolderError, match="rendered with view 'camera', not 'counter'"):
            write_data(tmp_path, {"easy": 0}, 11, counter_view=True)
        write_data(tmp_path / "new", {"easy": 0}, 11, counter_view=True)
        with pytest.raises(SampleFolderError, match="view 'counter', not 'camera'"):
            write_data(tmp_path / "new", {"easy": 0}, 11)

    def test_a_samples_folder_with_other_prints_is_refused(self, tmp_path):
        from vision.density_train import PrintChoice, SampleFolderError, write_data
        write_data(tmp_path, {"easy": 0}, 11)                       # no table on a print
        half = PrintChoice("board.jpeg", "ccw", 0.5)
        assert half.describe() == "0.5 of the tables on board.jpeg turned ccw"
        with pytest.raises(SampleFolderError, match="prints 'none', not '0.5 of the tables on board.jpeg"):
            write_data(tmp_path, {"easy": 0}, 11, prints=half)
        (tmp_path / "print.txt").unlink()                           # a folder from before print.txt: none
        with pytest.raises(SampleFolderError, match="prints 'none'"):
            write_data(tmp_path, {"easy": 0}, 11, prints=half)

    def test_a_samples_folder_with_other_knocked_over_pieces_is_refused(self, tmp_path):
        from vision.density_train import SampleFolderError, write_data
        write_data(tmp_path, {"easy": 0}, 11)
        assert (tmp_path / "toppled.txt").read_text().strip() == "none"
        with pytest.raises(SampleFolderError, match="knocked-over pieces 'none', not '0.1 on 0.5 of the tables'"):
            write_data(tmp_path, {"easy": 0}, 11, toppled=0.1)

    def test_every_frame_of_a_table_picked_shows_its_pieces_knocked_over(self, monkeypatch):
        import vision.density_train as dt
        from vision.synth.dataset import toppled_of_table
        i = next(i for i in range(20) if toppled_of_table(0.2, "easy", 11, i))
        asked = []
        monkeypatch.setattr(dt, "render_table", lambda *a, toppled=0.0, **k: (asked.append(toppled), (0, 0, 0))[1])
        monkeypatch.setattr(dt, "render_frame", lambda *a: (asked.append(a[-1]), (0, 0))[1])
        monkeypatch.setattr(dt, "sample_from", lambda *a: {})
        dt.make_samples("easy", 11, i, frames=3, toppled=0.2)
        assert asked == [0.2, 0.2, 0.2]

    def test_a_samples_folder_with_another_rich_share_is_refused(self, tmp_path):
        from vision.density_train import SampleFolderError, write_data
        write_data(tmp_path, {"easy": 0}, 11)
        assert (tmp_path / "rich.txt").read_text().strip() == "0"
        with pytest.raises(SampleFolderError, match="vexillum-rich share '0', not '0.25'"):
            write_data(tmp_path, {"easy": 0}, 11, rich_share=0.25)
        (tmp_path / "rich.txt").unlink()                            # a folder from before rich.txt: none rich
        with pytest.raises(SampleFolderError, match="vexillum-rich share '0'"):
            write_data(tmp_path, {"easy": 0}, 11, rich_share=0.25)

    def test_a_rich_share_of_the_tables_shows_vexillum_rich_states_in_every_frame(self, monkeypatch):
        """The tables :func:`is_rich_table` picks (a seeded share, from their own stream) show states
        of their game with the most full tens, in every frame; the others are drawn as before, from
        all its states."""
        import vision.density_train as dt
        shown = []
        monkeypatch.setattr(dt, "render_table", lambda tier, seed, i, steps, **_: (shown.append(steps) or (0, 0, 0)))
        monkeypatch.setattr(dt, "render_frame", lambda tier, seed, i, step, board_print=None, toppled=0.0: (step, 0))
        monkeypatch.setattr(dt, "sample_from", lambda img, truth, profile, counter_view=False: img)
        picked = [i for i in range(80) if dt.is_rich_table(0.25, "hard", 11, i)]
        assert 10 <= len(picked) <= 30
        assert not any(dt.is_rich_table(0.0, "hard", 11, i) for i in range(80))
        assert all(dt.is_rich_table(1.0, "hard", 11, i) for i in range(80))
        states, rich = dt._states(11), dt.rich_steps(dt._states(11))
        assert len(rich) < len(states) / 5
        lowest = min(dt.full_tens(step.state) for step in rich)
        for i in (picked[0], next(i for i in range(80) if i not in picked)):
            frames = dt.make_samples("hard", 11, i, frames=3, rich_share=0.25)
            assert [id(step) for step in shown.pop()] == [id(step) for step in (rich if i in picked else states)]
            assert len(frames) == 3                                   # frames 1 and 2: the states shown
            if i in picked:
                assert all(dt.full_tens(step.state) >= lowest for step in frames[1:])
            assert frames[1:] == dt.frame_steps(rich if i in picked else states, "hard", 11, i, 3)[1:]
        plain = dt.make_samples("hard", 11, picked[0], frames=3)    # no share: as before
        assert shown.pop() is states and plain[1:] == dt.frame_steps(states, "hard", 11, picked[0], 3)[1:]

    def test_a_table_on_a_print_shows_that_print_with_its_pieces_inside_its_borders(self):
        """A "print" with a black square on the Ionian sea, whose map has Judea and Arabia swapped:
        the training table and its calibration photo show the square, and Arabia's legionaries
        stand on the committed map's Judea (inside the print's own Arabia)."""
        from types import SimpleNamespace
        from vision.density_train import render_table
        from vision.synth.board_art import ART_SCALE, PrintedBoard
        geo = load_geometry()
        other = swapped_map(geo, "judea", "arabia")
        x, y = geo.label_points["ionium"]
        art = procedural_art().copy()
        art[int((y - 30) * ART_SCALE):int((y + 30) * ART_SCALE), int((x - 30) * ART_SCALE):int((x + 30) * ART_SCALE)] = 0
        state = ObservedState.from_dict({"regions": {"arabia": {"red": {"legionary": 5}}}})
        steps = [SimpleNamespace(state=state, vp=None)]
        img, truth, profile = render_table("easy", 18, 3, steps, board_print=PrintedBoard(art, other))
        placed = [p for p in truth.pieces if p.region == "arabia"]
        assert len(placed) == 5
        assert [geo.region_at(*p.board_xy) for p in placed] == ["judea"] * 5
        def square(board):            # the square's mean grey, and that of the ring around it
            grey = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY).astype(float)
            inner = grey[int(y) - 20:int(y) + 20, int(x) - 20:int(x) + 20].mean()
            ring = grey[int(y) - 60:int(y) + 60, int(x) - 60:int(x) + 60].mean()
            return inner, ring
        ref = cv2.resize(profile.reference, geo.size)       # the calibration photo, rectified
        inner, ring = square(ref)
        assert inner < 0.5 * ring
        shot = cv2.warpPerspective(profile.undistort(img), np.array(truth.homography), geo.size,
                                   flags=cv2.WARP_INVERSE_MAP)
        inner, ring = square(shot)
        assert inner < 0.5 * ring

    def test_samples_are_read_by_spawned_workers_after_threaded_opencv_ran_here(self, tmp_path):
        """The readers are spawned processes: forked after this process's OpenCV threads had run (as
        the print's map is fitted before training), they hung in session 35. A hang is not certain
        to show here; what is checked is that spawned readers get every sample back, in order."""
        from vision.density_train import load_samples
        cv2.setNumThreads(2)
        cv2.GaussianBlur(np.zeros((512, 512), np.float32), (31, 31), 5)
        files = []
        for k in range(3):
            files.append(tmp_path / f"easy-{k:05d}.npz")
            np.savez(files[-1], x=np.full((4, 4, 6), k, np.uint8), pts=np.zeros((0, 2), np.float32))
        got = load_samples(files, whole=False, workers=2)
        assert [int(s["x"][0, 0, 0]) for s in got] == [0, 1, 2]

    def test_the_share_of_tables_on_the_print_is_drawn_per_table(self):
        from vision.density_train import PrintChoice
        def on(share):
            return [PrintChoice("p", share=share).on_print(t, 18, i) for t in ("easy", "hard") for i in range(400)]
        assert not any(on(0.0)) and all(on(1.0))
        half = on(0.5)
        assert 0.45 < np.mean(half) < 0.55
        assert on(0.5) == half                                      # seeded
        assert all(a <= b for a, b in zip(on(0.3), on(0.6)))         # a larger share only adds tables

    def test_a_sample_cut_from_the_counters_view_is_the_counters_input(self):
        img, truth, profile = calibrated_scene("hard", 6)   # a strong lens, read as such
        assert profile.k1 != 0 and counting_crop(profile, load_geometry()).scale != 1.0
        s = sample_from(img, truth, profile, counter_view=True)
        counter = DensityCounter(profile, session=FakeSession(np.zeros((N_OUT, 8, 8), np.float32)))
        counter.predict(img)
        assert s["x"].shape[:2] == counter._input.shape[2:]
        assert np.array_equal(s["x"].transpose(2, 0, 1), counter._input[0])
        assert s["occ"].shape == counter.labels.shape

    def test_kind_balanced_crops_centre_on_a_rare_kind_as_often_as_on_a_common_one(self):
        from vision.density_train import _Crops
        kinds = np.array([0] * 99 + [1], np.int8)
        plain, balanced = _Crops([], 3), _Crops([], 3, balance_kinds=True)
        rare_plain = sum(kinds[plain._piece(kinds)] == 1 for _ in range(400))
        rare_balanced = sum(kinds[balanced._piece(kinds)] == 1 for _ in range(400))
        assert rare_plain < 20 and 150 < rare_balanced < 250

    def test_crops_centre_on_spilled_pieces_as_often_as_asked(self):
        from vision.density_train import _Crops
        kinds = np.zeros(60, np.int8)
        spilled = np.zeros(60, bool)
        spilled[[7, 41]] = True
        plain, spill = _Crops([], 3), _Crops([], 3, spill_share=0.3)
        on_spilled = sum(spilled[spill._piece(kinds, spilled)] for _ in range(1000))
        assert 250 < on_spilled < 360          # 0.3 asked, plus 1 in 30 of the other draws
        assert sum(spilled[plain._piece(kinds, spilled)] for _ in range(1000)) < 80
        # no share asked, or a table without a spilled piece: the draws of the earlier recipes
        a, b, c = _Crops([], 5), _Crops([], 5), _Crops([], 5, spill_share=0.3)
        first = [a._piece(kinds) for _ in range(50)]
        assert first == [b._piece(kinds, spilled) for _ in range(50)]
        assert first == [c._piece(kinds, np.zeros(60, bool)) for _ in range(50)]

    def test_crops_on_spilled_pieces_need_samples_that_mark_them(self):
        from vision.density_train import SampleFolderError, _Crops
        old = {"x": np.zeros((8, 8, 6), np.uint8), "pts": np.zeros((1, 2), np.float32), "kind": np.zeros(1, np.int8)}
        assert _Crops([old], 3).places[0][2].tolist() == [False]
        with pytest.raises(SampleFolderError, match="render them again"):
            _Crops([old], 3, spill_share=0.3)


class TestTrainingOnAGpu:
    """The GPU path of the training: whole targets drawn once and cropped on the device must be the
    crops the CPU path cuts (torch-only checks run where the ``[train]`` extra is installed)."""

    @staticmethod
    def _samples():
        img, truth, profile = calibrated_scene("medium")
        return [sample_from(img, truth, profile)]

    def test_a_window_of_the_whole_targets_is_the_windows_own_targets(self):
        from vision.density_train import whole_targets
        s = self._samples()[0]
        whole = whole_targets(s)
        h, w = s["occ"].shape
        for x0, y0, size in ((0, 0, 128), (w - 128, h - 128, 128), (37, 52, 64)):
            dens, colour, kind, occ = targets(s, x0, y0, size, size)
            win = (slice(y0, y0 + size), slice(x0, x0 + size))
            assert np.allclose(whole["dens"][0][win], dens.sum(axis=0), atol=1e-6)
            assert np.array_equal(whole["colour_map"][win], colour)
            assert np.array_equal(whole["kind_map"][win], kind)
            assert np.array_equal(whole["occ_map"][win], occ)
        assert abs(whole["dens"].sum() - len(s["pts"])) < 0.5       # blobs at the border hang over

    def test_tensor_crops_cut_the_same_crops_as_the_numpy_ones(self):
        torch = pytest.importorskip("torch", reason="the GPU crops need torch (the [train] extra)")
        from vision.density_train import _Crops, _TensorCrops, whole_targets
        samples = self._samples()
        plain = _Crops(samples, 5).batch(6)
        held = _TensorCrops([whole_targets(s) for s in samples], 5, device="cpu").batch(6)
        assert torch.equal(plain[0].float(), held[0])                       # the input, jittered alike
        assert torch.allclose(plain[1].sum(1, keepdim=True), held[1], atol=1e-6)
        for a, b in zip(plain[2:], held[2:]):
            assert torch.equal(a.float(), b.float())

    def test_the_density_floor_costs_nothing_above_it_and_grows_below(self):
        torch = pytest.importorskip("torch", reason="the loss needs torch (the [train] extra)")
        from vision.density_train import RAW_FLOOR, loss_fn
        n = 16
        out = torch.zeros(1, N_OUT, n, n)
        dens = torch.zeros(1, 1, n, n)
        colour = kind = torch.full((1, n, n), -1, dtype=torch.long)
        occ = torch.zeros(1, n, n)
        _, above = loss_fn(out, dens, colour, kind, occ, raw=torch.full((1, 1, n, n), -RAW_FLOOR))
        _, below = loss_fn(out, dens, colour, kind, occ, raw=torch.full((1, 1, n, n), -RAW_FLOOR - 3.0))
        _, none = loss_fn(out, dens, colour, kind, occ)
        assert float(above["floor"]) == 0.0 and float(below["floor"]) == pytest.approx(9.0)
        assert "floor" not in none
        # no piece near any cell: the kind and colour terms are zero, not NaN
        assert float(none["kind"]) == 0.0 and float(none["colour"]) == 0.0

    def test_a_student_is_taught_the_teachers_maps(self):
        """The distillation loss is least where the student's maps are the teacher's, grows with
        their distance in density, kind, colour and occluder alike, and stays finite on a crop with
        no piece."""
        torch = pytest.importorskip("torch", reason="the loss needs torch (the [train] extra)")
        from vision.density import COLOUR_AT, KIND_AT
        from vision.density_train import distill_loss
        n = 16
        gen = torch.Generator().manual_seed(3)
        teach = torch.randn(2, N_OUT, n, n, generator=gen)
        teach[:, :1] = teach[:, :1].relu() * 0.05
        near = torch.zeros(2, n, n, dtype=torch.long)
        none = torch.full((2, n, n), -1, dtype=torch.long)
        same = float(distill_loss(teach, teach, near, near))
        for at in (slice(0, 1), KIND_AT, COLOUR_AT, slice(N_OUT - 1, N_OUT)):
            other = teach.clone()
            other[:, at] += torch.randn(other[:, at].shape, generator=gen) * (0.05 if at.start == 0 else 2.0)
            assert float(distill_loss(other, teach, near, near)) > same + 1e-3, at
        assert np.isfinite(float(distill_loss(teach, teach, none, none)))

    def test_a_checkpoint_tells_its_shape(self):
        torch = pytest.importorskip("torch", reason="building the network needs torch (the [train] extra)")
        from tracker.errors import AugurError
        from vision.density_train import ARCHS, arch_of, build_net
        for arch in ARCHS:
            assert arch_of(build_net(arch).state_dict()) == arch
        state = build_net("lean").state_dict()
        state["head.weight"] = torch.zeros(3, 16, 1, 1)
        with pytest.raises(AugurError, match="not of any counting network's shape"):
            arch_of(state)

    @pytest.mark.parametrize("narrow, wider, n_widened", [("lean", "lean24", 11), ("wide", "broad", 46)])
    def test_a_wider_shape_starts_computing_what_the_narrower_checkpoint_did(self, narrow, wider, n_widened):
        """lean24 started from a lean checkpoint, broad from a wide one: the narrower tensors fill
        the leading channels (part by part where a decoder stage reads two stages concatenated,
        both wider in broad), the weights from the new channels are zero, and the two networks
        give the same maps."""
        torch = pytest.importorskip("torch", reason="building the network needs torch (the [train] extra)")
        from vision.density_train import build_net, widened_state
        gen = torch.Generator().manual_seed(5)
        lean = build_net(narrow)
        for k, v in lean.state_dict().items():        # trained-looking batch statistics too
            if v.is_floating_point():
                v.copy_(torch.rand(v.shape, generator=gen) + 0.5 if "running_var" in k else torch.randn(v.shape, generator=gen) * 0.2)
        wide = build_net(wider)
        found, widened = widened_state(lean.state_dict(), wide.state_dict())
        assert len(found) == len(wide.state_dict()) and widened == n_widened
        wide.load_state_dict(found)
        x = torch.rand(1, 6, 4 * MULTIPLE, 3 * MULTIPLE, generator=gen) * 255
        assert torch.allclose(lean.eval()(x), wide.eval()(x), atol=1e-4)
        # the new channels do compute something (their inputs' weights are not all zero), so they
        # can learn: only the weights that read them start at zero
        assert any(float(found[k][v.shape[0]:].abs().sum()) > 0 for k, v in lean.state_dict().items()
                   if v.dim() == 4 and found[k].shape[0] > v.shape[0])
        # a checkpoint of a wider shape than the network's is skipped where it does not fit
        back, widened = widened_state(wide.state_dict(), lean.state_dict())
        assert widened == 0 and len(back) == len(lean.state_dict()) - n_widened

    def test_a_run_continued_from_no_checkpoint_is_refused_in_one_line(self, tmp_path):
        pytest.importorskip("torch", reason="training needs torch (the [train] extra)")
        from tracker.errors import AugurError
        from vision.density_train import train, write_data
        files = write_data(tmp_path / "samples", {"easy": 1}, 11, workers=1)
        assert files
        (tmp_path / "init.pt").write_bytes(b"not a checkpoint")
        with pytest.raises(AugurError, match="not a checkpoint of weights"):
            train(tmp_path / "samples", tmp_path / "m", epochs=1, steps=1, batch=1, init=tmp_path / "init.pt",
                  log=lambda _: None)

    @pytest.mark.parametrize("arch", ["small", "wide", "lean", "lean24", "broad"])
    def test_each_shape_outputs_every_map_at_half_the_input(self, arch):
        torch = pytest.importorskip("torch", reason="building the network needs torch (the [train] extra)")
        from vision.density_train import build_net
        net = build_net(arch)
        x = torch.zeros(2, 6, 8 * MULTIPLE, 6 * MULTIPLE)
        maps, raw = net.train()(x)
        assert maps.shape == (2, N_OUT, 4 * MULTIPLE, 3 * MULTIPLE) and raw.shape == (2, 1, 4 * MULTIPLE, 3 * MULTIPLE)
        assert net.eval()(x).shape == maps.shape
