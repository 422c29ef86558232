"""The observed-state JSON contract and its validation."""
import json

import pytest

from tracker.errors import StateError
from tracker.state import ObservedState

EXAMPLE = {"board": "spqrisiko", "regions": {
    "baetica": {"red": {"legionary": 3, "vexillum": 1}, "neutral": {"centre": 1}},
    "ibericum": {"blue": {"trireme": 2}}}}


class TestObservedState:
    def test_example_from_the_issue(self):
        s = ObservedState.from_dict(EXAMPLE)
        assert s.owners == {"baetica": "red"}
        assert s.legions == {"baetica": 13}          # a vexillum is worth ten (§3.10)
        assert s.triremes == {"ibericum": {"blue": 2}}
        assert s.centres == {"baetica": 1}
        assert s.controller("ibericum") == "blue"

    def test_round_trip(self):
        s = ObservedState.from_dict(EXAMPLE)
        assert ObservedState.from_json(s.to_json()).to_dict() == s.to_dict()

    def test_zero_counts_are_dropped(self):
        s = ObservedState.from_dict({"regions": {"baetica": {"red": {"legionary": 0}}}})
        assert s.regions == {} and s.owners == {}

    def test_same_counts_leaves_out_the_marks_and_the_empty_counts(self):
        s = ObservedState.from_dict(EXAMPLE)
        marked = ObservedState.from_dict(dict(EXAMPLE, confidence={"baetica": 0.4}, unseen=["creta"]))
        padded = json.loads(json.dumps(EXAMPLE))
        padded["regions"]["creta"] = {"red": {"legionary": 0}}
        assert s.same_counts(marked) and s.same_counts(ObservedState.from_dict(padded))
        padded["regions"]["creta"] = {"red": {"legionary": 1}}
        assert not s.same_counts(ObservedState.from_dict(padded))

    def test_with_regions_of_takes_those_regions_whole_from_the_other_state(self):
        s = ObservedState.from_dict(dict(EXAMPLE, confidence={"baetica": 0.4}, unseen=["creta"]))
        other = ObservedState.from_dict({"regions": {"creta": {"blue": {"legionary": 2}}}, "confidence": {"creta": 0.9},
                                         "unseen": ["baetica"]})
        mixed = s.with_regions_of(other, {"baetica", "creta", "ibericum"})
        assert mixed.same_counts(other) and mixed.unseen == {"baetica"} and mixed.confidence == {"creta": 0.9}
        kept = s.with_regions_of(other, {"creta"})
        assert kept.regions == {**s.regions, "creta": other.regions["creta"]} and kept.owners == {"baetica": "red", "creta": "blue"}
        assert kept.unseen == frozenset() and kept.confidence_of("baetica") == 0.4
        assert s.with_regions_of(other, set()) == s

    def test_changed_regions_names_the_regions_whose_pieces_differ_either_way(self):
        s = ObservedState.from_dict(EXAMPLE)
        marked = ObservedState.from_dict(dict(EXAMPLE, confidence={"baetica": 0.4}, unseen=["creta"]))
        assert s.changed_regions(marked) == set()
        moved = json.loads(json.dumps(EXAMPLE))
        moved["regions"]["creta"] = {"red": {"legionary": 1}}
        gone = next(iter(moved["regions"].keys() - {"creta"}))
        del moved["regions"][gone]
        other = ObservedState.from_dict(moved)
        assert s.changed_regions(other) == other.changed_regions(s) == {"creta", gone}

    def test_sea_control_tie_gives_nobody(self):
        s = ObservedState.from_dict({"regions": {"ibericum": {"blue": {"trireme": 2}, "red": {"trireme": 2}}}})
        assert s.controller("ibericum") is None

    @pytest.mark.parametrize("data, fragment", [
        ({"regions": {"atlantis": {}}}, "unknown region 'atlantis'"),
        ({"regions": {"baetica": {"pink": {"legionary": 1}}}}, "unknown colour 'pink'"),
        ({"regions": {"baetica": {"red": {"tank": 1}}}}, "unknown piece kind 'tank'"),
        ({"regions": {"baetica": {"red": {"legionary": -1}}}}, "negative count -1"),
        ({"regions": {"baetica": {"red": {"legionary": 1.5}}}}, "whole number"),
        ({"regions": {"baetica": {"red": {"legionary": 1}, "blue": {"legionary": 2}}}}, "two colours (blue, red)"),
        ({"regions": {"baetica": {"red": {"trireme": 1}}}}, "trireme on land"),
        ({"regions": {"ibericum": {"red": {"legionary": 1}}}}, "legionary at sea"),
        ({"regions": {"baetica": {"red": {"centre": 1}}}}, "centre must be neutral"),
        ({"regions": {"baetica": {"neutral": {"legionary": 1}}}}, "colour of centres only"),
        ({"board": "narnia", "regions": {}}, "unknown board 'narnia'"),
        ({"board": ["spqrisiko"], "regions": {}}, "'board' must be a board's id"),        # was a TypeError
        ({"board": {"red": 1}, "regions": {}}, "'board' must be a board's id"),
        ({"board": "../boards/spqrisiko", "regions": {}}, "unknown board '../boards/spqrisiko'"),   # no paths
        ([], "JSON object"),
        ({"regions": []}, "'regions' must be an object"),
        ({"board": "spqrisiko"}, "must have 'regions'"),
        ({"turn": "blue"}, "must have 'regions'"),
        ({"regions": {}, "confidence": {"baetica": 2}}, "between 0 and 1"),
    ])
    def test_bad_states_are_rejected_with_the_problem_named(self, data, fragment):
        with pytest.raises(StateError) as err:
            ObservedState.from_dict(data)
        assert fragment in str(err.value)

    def test_malformed_json(self):
        with pytest.raises(StateError, match="malformed JSON"):
            ObservedState.from_json('{"regions": ')

    def test_confidence_and_unseen(self):
        s = ObservedState.from_dict({"regions": {}, "confidence": {"baetica": 0.5}, "unseen": ["creta"]})
        assert s.confidence_of("baetica") == 0.5
        assert s.confidence_of("creta") == 0.0
        assert s.confidence_of("italia") == 1.0
        assert json.loads(s.to_json())["unseen"] == ["creta"]


class TestChangedRegions:
    """:meth:`ObservedState.changed_regions` keeps its last answers: asked again of the same state it
    gives the same regions, and of another state with equal counts no stale answer."""

    def test_kept_answers_are_right_for_each_state_asked(self):
        from tracker.board import load_board
        board = load_board("spqrisiko")
        a = ObservedState.from_dict({"regions": {"italia": {"red": {"legionary": 2}}}}, board)
        b = ObservedState.from_dict({"regions": {"italia": {"red": {"legionary": 3}}}}, board)
        c = ObservedState.from_dict({"regions": {"italia": {"red": {"legionary": 2}}, "sicilia": {"blue": {"legionary": 1}}}}, board)
        assert a.changed_regions(b) == {"italia"} and a.changed_regions(b) == {"italia"}
        assert a.changed_regions(c) == {"sicilia"}
        assert a.changed_regions(a) == frozenset()
        assert a.changed_regions(b) == {"italia"}      # pushed out of the two kept, worked out again
        assert b.changed_regions(c) == {"italia", "sicilia"}

    def test_a_state_does_not_keep_the_one_it_was_compared_with_alive(self):
        """Each committed state is compared with the one before it; held strongly, that chained every
        state a game had committed (33 KB a commit, until session 110)."""
        import copy
        import gc
        import pickle
        import weakref

        from tracker.board import load_board
        board = load_board("spqrisiko")
        a = ObservedState.from_dict({"regions": {"italia": {"red": {"legionary": 2}}}}, board)
        b = ObservedState.from_dict({"regions": {"italia": {"red": {"legionary": 3}}}}, board)
        assert b.changed_regions(a) == {"italia"}
        gone = weakref.ref(a)
        del a
        gc.collect()
        assert gone() is None
        # a new state that may take the old one's id is worked out afresh
        c = ObservedState.from_dict({"regions": {"sicilia": {"blue": {"legionary": 1}}}}, board)
        assert b.changed_regions(c) == {"italia", "sicilia"}
        # a copy is the state itself (states never change); a pickle carries the state, not the cache
        assert copy.deepcopy(b) is b
        twin = pickle.loads(pickle.dumps(b))
        assert twin == b and "_changed" not in twin.__dict__ and twin.changed_regions(c) == {"italia", "sicilia"}

    def test_a_followed_game_keeps_only_the_states_it_needs(self):
        """The tracker following 200 commits keeps the states its score track was claimed on and a
        few recent ones, not every state it was given."""
        import gc
        import weakref

        from tracker.game import Game
        from tracker.replay import replay_lines
        from tracker.spqrisiko.simulator import Simulator
        sim = Simulator(("red", "blue", "yellow"), seed=8, max_turns=60)
        lines = replay_lines(sim.initial_state, list(sim.steps()))
        game = Game(sim.players)
        game.start(ObservedState.from_dict(lines[0].state.to_dict()))
        given = []
        for ln in lines[1:201]:
            if ln.cards_played:
                game.play_cards(ln.cards_player, ln.cards_played)
            state = ObservedState.from_dict(ln.state.to_dict())      # as the camera's, each new
            given.append(weakref.ref(state))
            game.observe(state)
            if ln.card_drawn:
                game.draw_card(game.current)
        del state
        gc.collect()
        kept = sum(ref() is not None for ref in given)
        assert len(given) == 200 and kept <= len(game.score_track) + 20, (kept, len(game.score_track))
