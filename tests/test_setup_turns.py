"""The order of play during the opening occupation (§3.7–3.8): ``tracker.spqrisiko.setup_turns``
and the set-up followed by ``Game`` placement by placement."""
from __future__ import annotations

from tracker.board import load_board
from tracker.game import Game
from tracker.spqrisiko.setup_turns import follow_turns, in_turns, misplaced
from tracker.state import ObservedState

PLAYERS = ("red", "blue", "yellow")          # neutrals: black and green (§3.3)
PROVINCES = sorted(load_board().provinces)


class Table:
    """A set-up being made on the empty board, committed as the camera would see it."""

    def __init__(self, players=PLAYERS):
        self.game = Game(players)
        self.placed: dict[str, tuple[str, int]] = {}
        self.last: list[str] = []
        self.hidden: set[str] = set()
        self.free = [p for p in PROVINCES if p != self.game.plan.fixed_neutral]
        if self.game.plan.fixed_neutral:
            self.placed[self.game.plan.fixed_neutral] = (self.game.plan.neutrals[0], 3)
        self.first = self.game.begin_setup(self.state())

    def state(self, confidence=None) -> ObservedState:
        """The board as the camera reads it: what lies under :attr:`hidden` (a card) unseen."""
        d = ObservedState.from_summary(load_board(), self.placed).to_dict()
        d["confidence"] = confidence or {}
        d["regions"] = {r: v for r, v in d["regions"].items() if r not in self.hidden}
        d["unseen"] = sorted(self.hidden)
        return ObservedState.from_dict(d)

    def put(self, *armies: str) -> list[str]:
        """Each army's placement on the next free province (a pair, or a neutral group of 3)."""
        out = []
        for army in armies:
            province = self.free.pop(0)
            self.placed[province] = (army, 2 if army in self.game.players else 3)
            out.append(province)
        self.last = out
        return out

    def commit(self, *armies: str, corrected: bool = False):
        """``armies`` placed, then one commit; its verdicts."""
        self.put(*armies)
        return self.game.observe_setup(self.state(), corrected=corrected)[1]

    def turn(self) -> str:
        return self.game.setup_turn().describe()


def in_order(rounds: int, table: Table):
    """``rounds`` of turns made right, one commit each placement: the verdicts."""
    verdicts = []
    for _ in range(rounds):
        for c in table.game.players:
            verdicts += table.commit(c)
            if table.game.setup_turn() and table.game.setup_turn().group:
                plan, held = table.game.plan, [c for c, _ in table.placed.values()]
                verdicts += table.commit(next(n for n in plan.neutrals if held.count(n) < plan.neutral_groups[n]))
    return verdicts


class TestOrderOfPlay:
    def test_a_setup_made_in_turn_raises_nothing(self):
        t = Table()
        assert t.first == [] and in_order(3, t) == []
        assert t.turn() == "red to place a pair and a neutral group"

    def test_a_player_placing_twice_is_named(self):
        t = Table()
        assert t.commit("red", "black") == []
        (v,) = t.commit("red")
        assert v.level == "warning" and v.rule == "§3.7" and v.regions == tuple(t.last)
        assert "red occupied" in v.message and "in blue's turn" in v.message
        # the likeliest reading: that pair was blue's, read as red's, and blue's group is to come
        assert t.turn() == "blue to place a neutral group"

    def test_a_pair_read_in_the_wrong_colour_is_named_once(self):
        """Blue's pair read as yellow's: the order names it; yellow's own pair after it is in turn."""
        t = Table()
        t.commit("red", "black")
        (v,) = t.commit("yellow")                 # blue's, misread
        misread = t.last[0]
        assert v.regions == (misread,) and "yellow occupied" in v.message and "in blue's turn" in v.message
        assert t.commit("green") == []             # blue's neutral group
        assert t.commit("yellow", "black") == []   # yellow's own turn: nothing more
        assert t.turn() == "red to place a pair and a neutral group"
        # the player sets the misread pair right on the tablet: the order is whole again
        t.placed[misread] = ("blue", 2)
        assert t.game.observe_setup(t.state(), corrected=True)[1] == []
        assert t.turn() == "red to place a pair and a neutral group"

    def test_a_pile_read_first_in_another_colour_is_dated_where_the_order_explains_it(self):
        """Red's neutral group spills into the free province beside it, read as a black pile;
        blue's second pair goes there, in blue's turn, and the camera reads it blue from then.
        Dated at its first reading, blue's pair came a round early: every later turn looked out
        of order. Dated when it was read blue, the set-up was made in turn."""
        t = Table()
        verdicts = t.commit("red")
        t.put("black")
        phantom = t.free.pop()
        t.placed[phantom] = ("black", 3)
        verdicts += t.game.observe_setup(t.state())[1]
        for army in ("blue", "black", "yellow", "black", "red", "black"):
            verdicts += t.commit(army)
        t.placed[phantom] = ("blue", 2)                     # blue's pair, in blue's turn
        verdicts += t.game.observe_setup(t.state())[1]
        for army in ("black", "yellow", "black", "red", "black"):
            verdicts += t.commit(army)
        assert not [v for v in verdicts if "'s turn (order of play" in v.message or "has passed" in v.message]
        assert t.turn() == "blue to place a pair and a neutral group"
        assert misplaced(t.game.placement_log, t.state(), t.game.plan) == {}
        # the one warning: the province read in two colours
        (v,) = [v for v in verdicts if v.regions == (phantom,)]
        assert "read as black's and now as blue's" in v.message

    def test_pairs_placed_where_the_camera_cannot_see_take_their_turns(self):
        """A card lies over three free provinces, and red puts two pairs under it: the camera sees
        red's turns pass with no pair, which the card explains (each of the two was named as blue
        placing in red's turn). When the card is lifted, the two pairs are the ones it hid."""
        t = Table()
        card = t.free[-3:]
        t.hidden = set(card)
        verdicts = []
        for _ in range(2):
            t.placed[t.free.pop()] = ("red", 2)            # under the card
            for army in ("black", "blue", "black", "yellow", "black"):
                verdicts += t.commit(army)
        assert t.turn() == "red to place a pair and a neutral group"
        t.hidden = set()
        verdicts += t.game.observe_setup(t.state())[1]
        verdicts += t.commit("red", "black")
        assert not [v for v in verdicts if v.rule == "§3.7"], verdicts
        assert t.turn() == "blue to place a pair and a neutral group"

    def test_the_hypotheses_cost_what_they_leave_unexplained(self):
        plan = Game(PLAYERS).plan
        assert follow_turns([], plan)[0] == {"red": 0}
        assert follow_turns([{"a": "red"}, {"b": "blue"}], plan)[0] == {"yellow": 0, "red": 1, "blue": 2}
        turns, (first, step) = follow_turns([{"a": "red"}, {"b": "red"}], plan)
        assert min(turns.values()) == 1 and first is None
        assert step.unexplained == {"b": "red"} and step.passed == ("blue",)

    def test_a_pair_the_camera_never_sees_is_named_once(self):
        t = Table()
        t.commit("red", "black")
        hidden = t.put("blue")[0]
        del t.placed[hidden]                       # on a print of its own colour: read empty
        assert t.commit("green") == []
        (v,) = t.commit("yellow")
        assert v.regions == tuple(t.last) and "blue's pair not seen by the camera" in v.message
        assert t.commit("black") + t.commit("red", "green") + t.commit("blue", "black") == []

    def test_placements_of_one_commit_are_taken_in_any_order(self):
        t = Table()
        assert t.commit("yellow", "black", "blue", "green", "red", "black") == []
        assert t.turn() == "red to place a pair and a neutral group"

    def test_the_first_board_may_show_a_setup_under_way(self):
        game = Game(PLAYERS)
        placed = dict(zip(PROVINCES, [("red", 2), ("black", 3), ("blue", 2), ("green", 3), ("yellow", 2),
                                      ("black", 3), ("red", 2), ("green", 3)]))
        assert game.begin_setup(ObservedState.from_summary(load_board(), placed)) == []
        assert game.setup_turn().describe() == "blue to place a pair and a neutral group"

    def test_in_turns_makes_a_setup_in_the_order_of_play(self):
        game = Game(PLAYERS)
        order = in_turns({"red": ["a", "b"], "blue": ["c"], "yellow": ["d"], "black": ["e", "f"], "green": ["g"]},
                         game.plan)
        # each turn's group from the first neutral army (green, then black) with groups left
        assert order == [("red", "a"), ("red", "g"), ("blue", "c"), ("blue", "e"), ("yellow", "d"),
                         ("yellow", "f"), ("red", "b")]


class TestMisreadPairSettled:
    def test_the_pair_placed_in_anothers_turn_goes_back_to_that_player_at_the_start(self):
        """Two players' pairs look alike (2 legionaries): only the order of play tells which of
        blue's ten provinces is yellow's, read in blue's colour, when yellow is one short (§3.9)."""
        import random
        from tracker.spqrisiko.setup import random_setup
        game = Game(PLAYERS)
        final = random_setup(game.board, PLAYERS, random.Random(4))
        order = [p for _, p in in_turns({c: sorted(final.provinces_of(c)) for c in game.plan.shares}, game.plan)]
        misread = next(p for p in order[10:] if final.owners[p] == "yellow")
        placed = {}
        game.begin_setup(ObservedState.from_summary(game.board, {}))
        for p in order:
            placed[p] = ("blue" if p == misread else final.owners[p], final.legions[p])
            state = ObservedState.from_summary(game.board, placed)
            if len(placed) < len(order):
                game.observe_setup(state)
        overrides, (note,) = game.settle_setup(state)
        assert set(overrides) == {misread} and overrides[misread].value == {"yellow": {"legionary": 2}}
        assert "taken as 2 yellow legionaries" in note.message
        # without the order of play, nothing says which of blue's pairs it was
        from tracker.spqrisiko.setup import settle_setup
        assert settle_setup(state, game.plan) == {}


class TestFleetsDuringTheSetup:
    def test_a_fleet_read_during_the_setup_is_named_once_where_it_stands_3_10(self):
        """Nobody puts a fleet down during the set-up (§3.10). A fleet the camera reads on every
        commit from then on (the print's hard set-up of seed 14: a black trireme in Sinus
        Gallicus) is one breach, named with its sea, not one at every commit."""
        t = Table()
        t.commit("red", "black")
        sea = load_board().seas[0]
        t.put("blue")
        d = t.state().to_dict()
        d["regions"][sea] = {"black": {"trireme": 1}}
        (v,) = [v for v in t.game.observe_setup(ObservedState.from_dict(d))[1] if v.rule == "§3.10"]
        assert v.level == "violation" and v.regions == (sea,) and load_board().name(sea) in v.message
        t.put("green")
        d = t.state().to_dict()
        d["regions"][sea] = {"black": {"trireme": 1}}
        assert not [v for v in t.game.observe_setup(ObservedState.from_dict(d))[1] if v.rule == "§3.10"]


class TestNeutralGroups:
    def test_the_group_owed_is_the_next_placement(self):
        t = Table()
        t.commit("red")
        assert t.turn() == "red to place a neutral group"
        t.commit("black")
        assert t.turn() == "blue to place a pair and a neutral group"
        t.commit("green")                          # blue puts the group down first
        assert t.turn() == "blue to place a pair"

    def test_a_turn_without_its_group_is_named_once(self):
        t = Table()
        t.commit("red")                            # red forgets the neutral group
        (v,) = t.commit("blue")
        assert v.rule == "§3.8" and v.level == "warning" and v.regions == (PROVINCES[1],)
        assert t.commit("black") + t.commit("yellow", "green") == []
        # the groups stay one behind the pairs for the rest of the set-up: named once, not each turn
        assert [t.commit(*turn) for turn in [("red",), ("black",), ("blue",), ("green",), ("yellow", "black")]] == [[]] * 5
        assert t.commit("red") == []               # red's group to come...
        (v,) = t.commit("blue")                    # ... or missed: one further behind
        assert v.rule == "§3.8" and "8 pairs and 5 neutral groups" in v.message

    def test_a_neutral_army_has_nine_groups(self):
        t = Table(("red", "blue", "yellow", "green"))     # black neutral: Italia and 8 groups
        assert t.first == []
        in_order(8, t)
        assert t.turn() == "red to place a pair"           # the groups have run out (§3.8)
        verdicts = t.commit("black")
        assert any(v.rule == "§3.3" and "neutral black has 9 groups" in v.message for v in verdicts)

    def test_with_four_players_the_set_up_ends_on_pairs_alone(self):
        t = Table(("red", "blue", "yellow", "green"))
        assert in_order(9, t) == [] and not t.game.placing and t.game.current == "red"

    def test_whole_setups_of_three_and_five_players(self):
        three = Table()                                     # 18 groups, 6 rounds with them
        assert in_order(9, three) == [] and not three.game.placing
        five = Table(("red", "blue", "yellow", "green", "black"))     # no neutral army (§2.6)
        assert five.turn() == "red to place a pair"
        assert in_order(9, five) == [] and not five.game.placing and five.game.current == "red"


class TestUnknownAtTheStart:
    def test_a_region_seen_while_the_setup_was_followed_is_known_when_the_game_starts_under_a_card(self):
        """A card over a sea from the empty board on, and over the first pair as the last is
        placed (the camera keeps that pair's count): the game starts with the sea unknown, never
        seen, and the pair known."""
        players = ("red", "blue", "yellow", "green")
        t = Table(players)
        sea = sorted(load_board().seas)[0]
        t.hidden = {sea}
        t.game.begin_setup(t.state())
        in_order(8, t)
        for c in players[:-1]:
            t.commit(c)
        first = next(p for p in PROVINCES if p in t.placed and p != t.game.plan.fixed_neutral)
        t.put(players[-1])
        d = t.state().to_dict()
        d["unseen"] = sorted({sea, first})                  # its count kept, as the pipeline keeps it
        t.game.observe_setup(ObservedState.from_dict(d))
        assert not t.game.placing and t.game.current == "red"
        assert t.game.unknown == {sea}
        # a game the tracker begins following with the same board: neither was ever shown
        fresh = Game(players)
        fresh.start(ObservedState.from_dict(d))
        assert fresh.unknown == {sea, first}


class TestFirstBoard:
    """Piles on the set-up's first board that no placement leaves (§3.7)."""

    @staticmethod
    def board(regions: dict, confidence: dict) -> tuple[Game, ObservedState]:
        """A 3-player game and its set-up's first board as the camera reads it."""
        game = Game(PLAYERS)
        return game, ObservedState.from_dict({"board": game.board.id, "regions": regions, "confidence": confidence})

    def test_a_doubtful_odd_pile_on_an_empty_board_is_taken_as_nothing(self):
        game, state = self.board({"galatia": {"yellow": {"legionary": 1}}, "raetia": {"blue": {"legionary": 3}},
                                  "dacia": {"red": {"legionary": 4}}},
                                 {"galatia": 0.15, "raetia": 0.34, "dacia": 0.95})
        overrides, (note,) = game.settle_first_board(state)
        # Dacia's 4 red legionaries are read surely: the camera is not doubted there
        assert sorted(overrides) == ["galatia", "raetia"] and overrides["galatia"].value == {}
        assert overrides["galatia"].camera_value == {"yellow": {"legionary": 1}}
        assert note.rule == "§3.7" and note.regions == ("galatia", "raetia") and "2 piles" in note.message

    def test_a_board_filmed_after_the_setup_began_loses_nothing(self):
        """A pair already placed says the camera began late: an odd pile is then a placement
        misread, as :func:`tracker.spqrisiko.setup.settle_placements` takes it."""
        game, state = self.board({"galatia": {"yellow": {"legionary": 1}}, "dacia": {"red": {"legionary": 2}}},
                                 {"galatia": 0.15})
        assert game.settle_first_board(state) == ({}, [])

    def test_a_doubtful_pair_or_neutral_group_is_a_placement(self):
        for pile in ({"yellow": {"legionary": 2}}, {"green": {"legionary": 3}}):     # green: neutral with 3 players
            game, state = self.board({"galatia": pile}, {"galatia": 0.15})
            assert game.settle_first_board(state) == ({}, [])

    def test_italias_group_read_a_piece_off_is_taken_at_3(self):
        """With 4 players a neutral group stands on Italia from the start (§3.4). Hard seed 19
        read it as 2 from the first board on: a §3.7 violation until the set-up was done."""
        game = Game(("red", "blue", "yellow", "green"))
        italia, neutral = game.plan.fixed_neutral, game.plan.neutrals[0]
        state = ObservedState.from_dict({"board": game.board.id, "regions": {italia: {neutral: {"legionary": 2}}}})
        overrides, (note,) = game.settle_first_board(state)
        assert overrides[italia].value == {neutral: {"legionary": 3}} and note.rule == "§3.9"
        from tracker.overrides import apply_overrides
        assert not [v for v in game.begin_setup(apply_overrides(overrides, state)) if v.level == "violation"]
        assert [v.rule for v in game.begin_setup(state) if v.level == "violation"] == ["§3.7"]     # as read
        for pile in ({neutral: {"legionary": 3}}, {neutral: {"legionary": 6}}, {"red": {"legionary": 2}}):
            state = ObservedState.from_dict({"board": game.board.id, "regions": {italia: pile}})
            assert game.settle_first_board(state) == ({}, [])
