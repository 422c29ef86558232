"""The bench's breakdown of wrong regions by cause and pile size (vision.failures)."""
from __future__ import annotations

import pytest

from tracker.pieces import BLUE, CENTRE, LEGIONARY, NEUTRAL, RED, TRIREME, VEXILLUM
from vision.failures import CAUSES, HIDDEN_READ, FailureTally, strength, strength_group, why_wrong


def legion(colour=RED, legionaries=0, vexilla=0, centre=False):
    kinds = {k: n for k, n in ((LEGIONARY, legionaries), (VEXILLUM, vexilla)) if n}
    out = {colour: kinds} if kinds else {}
    if centre:
        out[NEUTRAL] = {CENTRE: 1}
    return out


def fleet(colour=RED, triremes=1):
    return {colour: {TRIREME: triremes}} if triremes else {}


class TestStrength:
    def test_a_vexillum_counts_ten(self):
        assert strength(legion(legionaries=3, vexilla=1)) == 13
        assert strength(legion(legionaries=3, centre=True)) == 3      # a centre is no garrison

    @pytest.mark.parametrize("counts, group", [
        (legion(legionaries=1), "1-3"), (legion(legionaries=3), "1-3"), (legion(legionaries=4), "4-7"),
        (legion(legionaries=12), "8-12"), (legion(legionaries=2, vexilla=1), "8-12"),
        (legion(legionaries=3, vexilla=1), "13+"), ({}, "empty")])
    def test_provinces_are_grouped_by_true_strength(self, counts, group):
        assert strength_group(counts, sea=False) == group

    def test_a_sea_is_its_own_group(self):
        assert strength_group(fleet(triremes=3), sea=True) == "sea"


class TestWhyWrong:
    def test_a_hidden_region_read_wrong_is_the_cover_not_the_count(self):
        assert why_wrong(legion(legionaries=1), legion(legionaries=2), sea=False, hidden=True) == HIDDEN_READ

    @pytest.mark.parametrize("got, want, cause", [
        (fleet(triremes=1), fleet(triremes=2), "triremes short"),
        (fleet(triremes=2), fleet(triremes=1), "triremes over"),
        (fleet(BLUE, 1), fleet(RED, 1), "fleet colour"),
    ])
    def test_seas(self, got, want, cause):
        assert why_wrong(got, want, sea=True, hidden=False) == cause

    @pytest.mark.parametrize("got, want, cause", [
        (legion(BLUE, 3), legion(RED, 3), "army colour"),
        (legion(legionaries=4), legion(legionaries=3, vexilla=1), "vexillum missed"),
        (legion(legionaries=1, vexilla=1), legion(legionaries=2), "vexillum too many"),
        (legion(legionaries=2), legion(legionaries=2, centre=True), "centre missed"),
        (legion(legionaries=2, centre=True), legion(legionaries=2), "centre too many"),
        (legion(legionaries=2), legion(legionaries=3), "legionaries short by 1"),
        (legion(legionaries=1), legion(legionaries=4), "legionaries short by 2+"),
        (legion(legionaries=4), legion(legionaries=3), "legionaries over by 1"),
        (legion(legionaries=6), legion(legionaries=3), "legionaries over by 2+"),
        ({RED: {LEGIONARY: 2}, BLUE: {LEGIONARY: 1}}, {RED: {LEGIONARY: 1}, BLUE: {LEGIONARY: 2}}, "other colours"),
    ])
    def test_provinces(self, got, want, cause):
        assert cause in CAUSES
        assert why_wrong(got, want, sea=False, hidden=False) == cause

    def test_a_province_read_empty_is_short_not_another_army(self):
        assert why_wrong({}, legion(legionaries=2), sea=False, hidden=False) == "legionaries short by 2+"

    def test_a_missed_vexillum_outweighs_the_legionary_it_was_read_as(self):
        # a vexillum read as a legionary leaves the legionaries one over as well: the vexillum is the cause
        assert why_wrong(legion(legionaries=3), legion(legionaries=2, vexilla=1), sea=False,
                         hidden=False) == "vexillum missed"


class TestFailureTally:
    def test_right_regions_are_counted_in_their_group_but_not_as_wrong(self):
        tally = FailureTally()
        tally.add(legion(legionaries=2), legion(legionaries=2), sea=False, hidden=False)
        tally.add(legion(legionaries=1), legion(legionaries=2), sea=False, hidden=False)
        tally.add(fleet(triremes=1), fleet(triremes=1), sea=True, hidden=False)
        tally.add(legion(legionaries=9), legion(legionaries=10), sea=False, hidden=True)
        assert tally.as_dict() == {
            "causes": {HIDDEN_READ: 1, "legionaries short by 1": 1},
            "by_true_strength": {"1-3": {"regions": 2, "wrong": 1}, "8-12": {"regions": 1, "wrong": 1},
                                 "sea": {"regions": 1, "wrong": 0}}}

    def test_the_line_names_the_commonest_cause_first(self):
        tally = FailureTally()
        for _ in range(3):
            tally.add(fleet(triremes=0), fleet(triremes=1), sea=True, hidden=False)
        tally.add(legion(legionaries=4), legion(legionaries=3), sea=False, hidden=False)
        line = tally.describe()
        assert line.startswith("triremes short 3, legionaries over by 1 1;")
        assert line.endswith("1-3 1/1, sea 3/3")

    def test_nothing_wrong_says_so(self):
        assert FailureTally().describe().startswith("none;")


class TestTheBenchSaysWhereItFails:
    def test_every_seen_wrong_region_of_a_table_has_one_cause(self, capsys):
        """The classical baseline on one hard table: it gets many regions wrong, and the causes
        add up to the seen regions it got wrong."""
        from vision.bench import HELD_OUT_SEED, _bench_detector
        from vision.geometry import load_geometry

        regions = len(load_geometry().region_ids)
        res = _bench_detector("classical", 1, ("hard",), HELD_OUT_SEED)["hard"]
        failures = res["failures"]
        groups = failures["by_true_strength"]
        seen = sum(g["regions"] for g in groups.values())
        wrong = sum(g["wrong"] for g in groups.values())
        assert seen == regions - sum(res["unseen"].values())
        assert wrong == sum(failures["causes"].values()) > 0
        # the regions the bench scores wrong are the seen wrong ones and the visible regions marked unseen
        assert round(regions * (1 - res["per_region"])) == wrong + res["unseen"].get("visible", 0)
        assert "[hard]   where it fails" in capsys.readouterr().out
