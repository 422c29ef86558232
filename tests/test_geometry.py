"""The committed S.P.Q.RisiKo! region map and the tool that derives it."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import shared_file
from vision.geometry import load_geometry


@pytest.fixture(scope="module")
def geo():
    return load_geometry("spqrisiko")


def _touching_pairs(geo) -> set[tuple[str, str]]:
    lab = geo.labels.astype(np.int32)
    ids = geo.region_ids
    pairs = set()
    for a, c in ((lab[:, :-1], lab[:, 1:]), (lab[:-1, :], lab[1:, :])):
        m = (a != c) & (a > 0) & (c > 0)
        for x, y in set(zip(a[m].tolist(), c[m].tolist())):
            pairs.add(tuple(sorted((ids[x - 1], ids[y - 1]))))
    return pairs


class TestRegionMap:
    def test_every_region_is_drawn(self, geo):
        areas = {r: int(geo.mask(r).sum()) for r in geo.region_ids}
        assert set(areas) == set(geo.board.regions)
        assert min(areas.values()) > 500, min(areas, key=areas.get)   # even Cipro holds a few pieces

    def test_label_points_lie_in_their_own_region(self, geo):
        assert all(geo.region_at(x, y) == r for r, (x, y) in geo.label_points.items())

    def test_board_aspect_and_map_above_the_track(self, geo):
        w, h = geo.size
        assert h == 1000 and 1.33 < w / h < 1.45
        ys, _ = np.nonzero(geo.labels)
        assert geo.track_top == min(b[1] for b in geo.track_boxes)
        assert ys.max() < geo.track_top

    def test_41_score_boxes_left_to_right(self, geo):
        boxes = geo.track_boxes
        assert len(boxes) == 41
        assert all(b[0] < c[0] for b, c in zip(boxes, boxes[1:]))
        assert all(b[2] <= c[0] + 1 for b, c in zip(boxes, boxes[1:]))   # no overlaps

    def test_every_land_border_of_the_topology_is_drawn(self, geo):
        b = geo.board
        land = {tuple(sorted((p, q))) for p in b.provinces for q in b.land_neighbours[p]}
        assert land <= _touching_pairs(geo)

    def test_coasts_and_sea_borders_mostly_drawn(self, geo):
        # Thin straits (Bosporus, Gibraltar, the Gulf of Issus) are a few pixels wide in the
        # drawing; the topology, not the picture, decides adjacency.
        b = geo.board
        touching = _touching_pairs(geo)
        coast = {tuple(sorted((p, s))) for p in b.provinces for s in b.coast_of[p]}
        seas = {tuple(sorted((s, t))) for s in b.seas for t in b.sea_neighbours[s]}
        assert len(coast & touching) / len(coast) >= 0.95
        assert len(seas & touching) / len(seas) >= 0.85

    def test_islands_touch_no_province_but_their_straits(self, geo):
        touching = _touching_pairs(geo)
        for island in ("creta", "cipro", "sicilia", "baleares"):
            assert not any(island in pair and all(geo.board.is_province(r) for r in pair) for pair in touching), island

    def test_region_lookup_off_the_map(self, geo):
        assert geo.region_at(-5, 10) is None
        assert geo.region_at(*geo.track_box_centre(0)) is None
        assert geo.regions_at(np.array([geo.label_points["italia"], [-1, -1]])) == ["italia", None]


class TestRegionMapTool:
    def test_rebuild_from_the_shared_reference_matches_the_committed_map(self, geo):
        import cv2

        from calibration.region_map import build_geometry, load_north_up_photo
        drawing = cv2.imread(str(shared_file("reference", "spqrisiko", "region-colour-map.png")))
        photo = load_north_up_photo(shared_file("reference", "spqrisiko", "board-photo-topdown.jpeg"))
        labels, meta = build_geometry(drawing, photo, geo.board)
        assert tuple(meta["size"]) == geo.size
        assert (labels == geo.labels).mean() > 0.995
        assert meta["track_boxes"] == [list(b) for b in geo.track_boxes]

    def test_a_photo_without_a_board_is_refused(self):
        import cv2

        from calibration.region_map import RegionMapError, build_geometry
        drawing = cv2.imread(str(shared_file("reference", "spqrisiko", "region-colour-map.png")))
        table = np.full((900, 1200, 3), (60, 90, 120), np.uint8)
        with pytest.raises(RegionMapError):
            build_geometry(drawing, table, load_geometry().board)
