"""The S.P.Q.RisiKo! board topology (45 provinces, 12 sea areas) and its match with the reference."""
import json

from tests.conftest import shared_file
from tracker.boards.build import OUTPUT, build_spqrisiko


class TestBoardTopology:
    def test_counts(self, board):
        assert len(board.provinces) == 45
        assert len(board.seas) == 12

    def test_ids_are_lower_case_reference_ids(self, board):
        assert {"pontus_euxinus", "germania_inferior", "bithynia", "italia"} <= set(board.regions)
        assert all(r == r.lower() for r in board.regions)

    def test_islands_have_no_land_neighbours(self, board):
        islands = {p for p in board.provinces if board.is_island(p)}
        assert islands == {"britannia", "corsica", "sardinia", "sicilia", "baleares", "creta", "cipro"}
        assert all(not board.land_neighbours[p] for p in islands)

    def test_adjacency_is_symmetric(self, board):
        for p, ns in board.land_neighbours.items():
            assert all(p in board.land_neighbours[q] for q in ns)
        for s, ns in board.sea_neighbours.items():
            assert all(s in board.sea_neighbours[q] for q in ns)
        for p, seas in board.coast_of.items():
            assert all(p in board.shores_of[s] for s in seas)

    def test_touching_is_one_step_of_any_kind_and_symmetric(self, board):
        assert board.touching("galatia") == {"asia", "bithynia", "cappadocia", "cilicia"}       # landlocked
        assert board.touching("creta") == board.coast_of["creta"]                              # an island
        assert board.touching("pontus_euxinus") >= {"bithynia", "thracia", "aegeum"}
        assert all(r in board.touching(q) for r in board.regions for q in board.touching(r))

    def test_sea_never_joins_land_13_6(self, board):
        # §13.6: provinces split by even a short stretch of sea are not adjacent.
        assert not board.land_adjacent("italia", "sicilia")
        assert not board.land_adjacent("baetica", "mauretania")
        assert not board.land_adjacent("cilicia", "syria")   # the reference's rejected edge

    def test_landlocked_provinces(self, board):
        for p in ("raetia", "noricum", "pannonia", "dalmazia", "galatia", "armenia", "mesopotamia", "arabia"):
            assert not board.coast_of[p], p

    def test_sea_attack_figure_geometry_12(self, board):
        # The rulebook figure: Bithynia and Thracia (and Moesia) all border Pontus Euxinus.
        assert {"bithynia", "thracia", "moesia"} <= board.shores_of["pontus_euxinus"]


class TestBoardFileMatchesReference:
    def test_committed_file_is_regenerated_from_reference(self):
        ref = shared_file("reference", "spqrisiko", "board.json")
        derived = build_spqrisiko(json.loads(ref.read_text(encoding="utf-8")))
        committed = json.loads(OUTPUT.read_text(encoding="utf-8"))
        assert derived == committed

    def test_reference_counts(self):
        ref = json.loads(shared_file("reference", "spqrisiko", "board.json").read_text(encoding="utf-8"))
        committed = json.loads(OUTPUT.read_text(encoding="utf-8"))
        assert len(committed["land_edges"]) == ref["meta"]["counts"]["land_edges"]
        assert len(committed["coast_edges"]) == ref["meta"]["counts"]["coast_edges"]
        assert len(committed["sea_edges"]) == ref["meta"]["counts"]["sea_edges"]


class TestPiecesInWords:
    """A region's pieces as the players read them (verdicts, the review's changes)."""

    def test_plurals_are_words_not_hedges(self):
        from tracker.pieces import SPQR_PIECES
        assert SPQR_PIECES.describe({"red": {"legionary": 1}}) == "1 red legionary"
        assert SPQR_PIECES.describe({"red": {"legionary": 3, "vexillum": 2}}) == "3 red legionaries, 2 red vexilla"
        assert SPQR_PIECES.describe({"blue": {"trireme": 2}}) == "2 blue triremes"
        assert SPQR_PIECES.describe({}) == "nothing"

    def test_armies_in_the_set_s_order_then_the_neutral_pieces(self):
        from tracker.pieces import LOTR_PIECES, RISIKO_PIECES, SPQR_PIECES
        assert (SPQR_PIECES.describe({"neutral": {"centre": 1}, "yellow": {"vexillum": 1, "legionary": 4}, "red": {"legionary": 1}})
                == "1 red legionary, 4 yellow legionaries, 1 yellow vexillum, 1 neutral centre")
        assert RISIKO_PIECES.describe({"purple": {"flag": 2, "tank": 3}}) == "3 purple tanks, 2 purple flags"
        assert (LOTR_PIECES.describe({"black": {"leader": 1, "creature": 2, "cavalry": 2, "infantry": 5}})
                == "5 black infantry, 2 black cavalry, 2 black creatures, 1 black leader")
