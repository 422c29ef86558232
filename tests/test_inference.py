"""Event inference and legality verdicts, one class per rule concept.

The scenario follows the rulebook's sea-attack figure (§12): red holds Bithynia on the Pontus
Euxinus with 2 triremes, blue holds Thracia with 1 trireme there, yellow holds Moesia with 2.
Green and black are neutral armies (3 players). Red is in turn, in round 5 unless a test says.
"""
from __future__ import annotations

import copy
import dataclasses


from tests.conftest import make_state
from tracker import events as ev
from tracker.game import Game, TurnFollower
from tracker.readings import LOW_CONFIDENCE
from tracker.spqrisiko.options import ruleset_options
from tracker.spqrisiko.reinforcements import entitlement
from tracker.state import ObservedState

PLAYERS = ("red", "blue", "yellow")
BASE = {
    "bithynia": ("red", 8), "galatia": ("red", 4), "ponto": ("red", 3), "cappadocia": ("red", 3),
    "thracia": ("blue", 3), "macedonia": ("blue", 3), "asia": ("blue", 2),
    "moesia": ("yellow", 3), "dacia": ("yellow", 2),
}
SEAS = {"pontus_euxinus": {"red": 2, "blue": 1, "yellow": 2}, "aegeum": {"blue": 1}}


class Table:
    """A game in progress plus the board as the test edits it."""

    def __init__(self, round_no=5, garrisons=None, seas=None, centres=(), options=None):
        self.g = dict(garrisons or BASE)
        self.seas = copy.deepcopy(seas if seas is not None else SEAS)
        self.centres = set(centres)
        self.game = Game(PLAYERS, options or ruleset_options())
        self.game.start(self.state(), first_player="red", round_no=round_no)

    def state(self, confidence=None):
        s = make_state(self.g, self.seas, self.centres, fill="green")
        if confidence:
            d = s.to_dict()
            d["confidence"] = confidence
            from tracker.state import ObservedState
            s = ObservedState.from_dict(d)
        return s

    def set(self, **changes):
        for p, v in changes.items():
            if isinstance(v, int):
                self.g[p] = (self.g.get(p, ("green", 3))[0], v)
            else:
                self.g[p] = v
        return self

    def ships(self, sea, colour, n):
        self.seas.setdefault(sea, {})[colour] = n
        return self

    def push(self, turn=None, confidence=None):
        return self.game.observe(self.state(confidence), turn)


def kinds(report):
    return [e.kind for e in report.events if e.kind != ev.VEXILLUM_EXCHANGE]


def rules(report, level="violation"):
    return {v.rule for v in report.verdicts if v.level == level}


class TestReinforcements:
    def test_within_entitlement_is_ok_6(self):
        t = Table()
        r = t.set(bithynia=10, galatia=5).push()   # 4 provinces -> 3 legionaries
        assert kinds(r) == [ev.REINFORCEMENT, ev.REINFORCEMENT]
        assert r.verdicts == []

    def test_beyond_entitlement_is_a_violation_6(self):
        r = Table().set(bithynia=13).push()
        assert rules(r) == {"§6"}

    def test_one_legionary_over_is_named_in_the_singular_6(self):
        t = Table()
        t.set(bithynia=11).push()
        [v] = t.set(galatia=5).push().verdicts
        assert v.rule == "§6" and "red placed 1 legionary but is entitled to 0" in v.message

    def test_card_set_raises_the_entitlement_8(self):
        t = Table()
        t.game.hands["red"].count = 3
        assert t.game.play_cards("red", ["vexillum"] * 3) == []
        r = t.set(bithynia=8 + 3 + 14).push()
        assert r.verdicts == []

    def test_unentered_cards_give_a_warning_not_a_violation_8(self):
        t = Table()
        t.game.hands["red"].count = 4
        r = t.set(bithynia=8 + 3 + 10).push()
        assert rules(r) == set() and rules(r, "warning") == {"§8"}

    def test_pieces_from_nowhere_after_the_attacks_4_2(self):
        t = Table()
        t.set(bithynia=11).push()
        t.set(asia=("red", 3), bithynia=8).push()          # conquest: phase moves to attacks
        r = t.set(galatia=6).push()
        assert "§4.2" in rules(r)

    def test_growth_of_a_player_out_of_turn_4_2(self):
        r = Table().set(moesia=6).push()   # yellow is neither in turn nor next
        assert "§4.2" in rules(r)

    def test_an_excess_the_unsure_counts_can_make_is_a_warning_6(self):
        t = Table()                                         # red is entitled to 3 (4 provinces)
        r = t.set(bithynia=10, galatia=7).push(confidence={"galatia": 0.4})
        assert "§6" not in rules(r) and "§6" in rules(r, "warning")
        assert set(t.game.questioned) == {"galatia"}       # Bithynia, read surely, is the context
        # read fairly surely, Bithynia may be the count read over (hard seed 385): it is marked too
        t = Table()
        t.set(bithynia=10, galatia=7).push(confidence={"galatia": 0.4, "bithynia": 0.84})
        assert set(t.game.questioned) == {"galatia", "bithynia"}
        r = Table().set(bithynia=12, galatia=7).push(confidence={"galatia": 0.4})
        assert "§6" in rules(r)                             # the 4 the camera is sure of in Bithynia are too many

    def test_an_excess_a_doubted_trireme_paid_for_is_a_warning_6(self):
        """A rendered hard game (seed 273): blue, its reinforcements placed, moved a legionary
        from Creta to Judea as the camera read a second trireme in the Creticum, at 0.65. The
        three legionaries that trireme costs were "placed" over the entitlement: with no
        trireme there, no legionary was placed, so the excess rests on the sea's count."""
        t = Table()
        t.set(bithynia=11).push()                           # red places its 3
        r = t.set(galatia=3, ponto=4).ships("pontus_euxinus", "red", 3).push(confidence={"pontus_euxinus": 0.65})
        assert "§6" not in rules(r) and "§6" in rules(r, "warning")
        assert "pontus_euxinus" in t.game.questioned        # the sea is asked for, where the doubt is
        t = Table()
        t.set(bithynia=11).push()
        r = t.set(galatia=3, ponto=4).ships("pontus_euxinus", "red", 3).push()
        assert "§6" in rules(r)                             # read surely, a breach

    def test_an_excess_moved_on_into_a_doubted_province_is_a_warning_6(self):
        """The print's hard seed 340: yellow's three placed in Bithynia, read as 4 at 0.21 where a
        conquest the camera missed had left it, were read as four placed beside it and moved in:
        "placed 4 legionaries but is entitled to 3". The excess rests on the doubted count."""
        r = Table().set(asia=("red", 4)).push(confidence={"asia": 0.3})
        assert kinds(r) == [ev.REINFORCEMENT, ev.LAND_ATTACK]
        assert "§6" not in rules(r) and "§6" in rules(r, "warning")
        (note,) = [v for v in r.verdicts if v.rule == "§6"]
        assert "asia" in note.regions                       # the doubted province is asked for
        r = Table().set(asia=("red", 4)).push()
        assert "§6" in rules(r)                             # read surely, a breach

    def test_an_excess_beyond_one_per_doubted_gain_asks_for_the_fairly_sure_gains_too_6(self):
        """Red, due 3, is read placing one in Galatia at 0.97 and four in Ponto at 0.28: "placed 5
        but is entitled to 3". Ponto read one over leaves one legionary over still: Galatia, read
        fairly surely, is asked for too. Read at its surest, it is the warning's context; and with
        an excess of one, Ponto alone may make it. (Hard seed 497: blue's Aegyptus, a legionary
        over at 0.97 beside Thracia at 0.28, stood unmarked for 28 commits.)"""
        from tracker.overrides import to_check
        for galatia, excess, sure, asked in ((0.97, 2, 0.28, {"galatia", "ponto"}), (0.99, 2, 0.28, {"ponto"}),
                                             (0.97, 1, 0.28, {"ponto"})):
            t = Table()
            t.set(galatia=5, ponto=3 + 2 + excess).push(confidence={"galatia": galatia, "ponto": sure})
            assert to_check(t.game.state, t.game.questioned, {}) == asked, (galatia, excess)

    def test_a_trireme_the_turn_cannot_build_sailed_from_a_doubted_sea_9(self):
        """A rendered hard game (seed 286): blue's trireme, built in the Tyrrenum as the camera
        read it empty (doubted since, a hand having changed it), sailed into the Balearicum,
        read as built there: "placed 3 legionaries but is entitled to 0". A trireme more than the
        turn can build, beside a sea the camera doubts, is taken to have sailed from there."""
        t = Table()
        t.set(bithynia=11).push()                           # red places its 3
        r = t.ships("aegeum", "red", 1).push(confidence={"pontus_euxinus": 0.5})
        assert ev.NAVAL_MOVE in kinds(r) and ev.LEGIONARIES_TO_TRIREME not in kinds(r)
        assert not rules(r) and "§9" in rules(r, "warning")
        assert {"aegeum", "pontus_euxinus"} <= set(t.game.questioned)
        t = Table()
        t.set(bithynia=11).push()
        r = t.ships("aegeum", "red", 1).push()              # the Pontus read surely: no fleet to sail
        assert "§7.2" in rules(r) and ev.NAVAL_MOVE not in kinds(r)

    def test_a_trireme_the_turn_cannot_build_sailed_from_a_sea_out_of_sight_9(self):
        """Hard seed 326: green attacked Epirus by sea from the Ionium under a card, then sailed
        on into the Creticum, read as a trireme built there: "placed 3 legionaries but is entitled
        to 0". A sea beside it that the camera cannot see may hold the fleet that sailed."""
        from tracker.state import ObservedState
        t = Table()
        t.set(bithynia=11).push()                           # red places its 3
        d = t.ships("aegeum", "red", 1).state().to_dict()
        d["unseen"] = ["pontus_euxinus"]
        r = t.game.observe(ObservedState.from_dict(d))
        assert ev.NAVAL_MOVE in kinds(r) and not rules(r) and "§9" in rules(r, "warning")
        (note,) = [v for v in r.verdicts if v.rule == "§9"]
        assert "sailed from Pontus Euxinus, which the camera could not see" in note.message

    def test_a_violation_rests_on_the_regions_that_changed(self):
        """Moesia read a legionary short at 0.5: the sea attack that would need more triremes in
        the Pontus Euxinus (unchanged, read surely) rests on Moesia's doubtful count alone."""
        r = Table().set(moesia=2).push(confidence={"moesia": 0.5})
        assert "§12.2" not in rules(r) and "§12.2" in rules(r, "warning")
        r = Table().set(moesia=2).push(confidence={"moesia": 0.97})
        assert "§12.2" in rules(r)                          # both read surely: a breach

    def test_a_violation_rests_on_the_seas_it_lacked_triremes_in(self):
        """Moesia's loss read surely, the Pontus Euxinus in doubt: the attack is surely there, but
        whether it broke §12.2 is the sea's count, which may hide a trireme of red's."""
        t = Table()
        r = t.set(moesia=2).push(confidence={"pontus_euxinus": 0.5})
        assert "§12.2" not in rules(r) and "§12.2" in rules(r, "warning")
        assert "pontus_euxinus" in t.game.questioned

    def test_a_sea_the_attack_needed_is_context_even_where_it_changed(self):
        """A rendered hard game (seed 108): red turned its trireme in Creticum into legionaries
        in Cipro, and the camera read Creta, beside it, a legionary short at 0.48. The attack
        on Creta that loss implies named Creticum for the triremes it lacked, and Creticum had
        changed (surely, by the trireme turned): the violation stood on a doubtful count."""
        t = Table()
        r = t.set(bithynia=10, moesia=2).ships("pontus_euxinus", "red", 1).push(confidence={"moesia": 0.48})
        assert [e.kind for e in r.events if e.kind == ev.TRIREME_TO_LEGIONARIES]
        assert "§12.2" not in rules(r) and "§12.2" in rules(r, "warning")
        assert t.game.questioned.keys() == {"moesia"}           # the sea, read surely, is not asked for
        r = Table().set(bithynia=10, moesia=2).ships("pontus_euxinus", "red", 1).push()
        assert "§12.2" in rules(r)                              # read surely, a breach

    def test_low_camera_confidence_turns_a_violation_into_a_warning(self):
        t = Table().set(moesia=6)
        r = t.push(confidence={"moesia": 0.4})
        assert "§4.2" not in rules(r) and "§4.2" in rules(r, "warning")


class TestConversions:
    def test_three_legionaries_make_a_trireme_7_2(self):
        r = Table().set(bithynia=5).ships("pontus_euxinus", "red", 3).push()
        assert kinds(r) == [ev.LEGIONARIES_TO_TRIREME]
        assert r.events[0].source == "bithynia" and r.verdicts == []

    def test_trireme_becomes_two_legionaries_6_6(self):
        r = Table().set(ponto=5).ships("pontus_euxinus", "red", 1).push()
        assert kinds(r) == [ev.TRIREME_TO_LEGIONARIES] and r.verdicts == []

    def test_trireme_far_from_own_provinces_7_2(self):
        r = Table().set(bithynia=5).ships("ibericum", "red", 1).push()
        assert "§7.2" in rules(r)


class TestTriremeBuiltBesideAndSailed:
    """A red trireme appears in the Aegeum as Cappadocia, on the shore of the Creticum beside it,
    loses three legionaries. Where the turn has legionaries left to place, they built it on
    Asia's shore (§7.2) and Cappadocia's loss was an attack; where it has none, Cappadocia's
    three built it in the Creticum and it sailed on (§7, §9), both in one change the camera
    committed whole. (A rendered hard game, seed 225.)"""

    @staticmethod
    def built(placed_before, asia=True):
        garrisons = {**BASE, "cappadocia": ("red", 5), **({"asia": ("red", 2)} if asia else {})}
        t = Table(garrisons=garrisons, seas={"pontus_euxinus": {"red": 2, "blue": 1, "yellow": 2}})
        if placed_before:
            t.set(bithynia=8 + placed_before).push()
        t.ships("aegeum", "red", 1)
        return t.set(cappadocia=2).push()

    def test_with_the_turn_placed_it_was_built_beside_and_sailed_7_9(self):
        for placed, asia in ((3, True), (2, True), (3, False)):
            r = self.built(placed, asia)
            assert [(e.kind, e.source, e.target) for e in r.events] == [
                (ev.LEGIONARIES_TO_TRIREME, "cappadocia", "creticum"), (ev.NAVAL_MOVE, "creticum", "aegeum")], (placed, asia)
            assert r.verdicts == []

    def test_with_legionaries_left_to_place_it_was_built_on_the_shore_7_2(self):
        r = self.built(0)
        assert (r.events[0].kind, r.events[0].source, r.events[0].target) == (ev.LEGIONARIES_TO_TRIREME, "asia", "aegeum")
        assert ev.NAVAL_MOVE not in kinds(r) and r.verdicts == []

    def test_not_after_the_turns_naval_movement_9_4(self):
        t = Table(garrisons={**BASE, "cappadocia": ("red", 5), "asia": ("red", 2)},
                  seas={"pontus_euxinus": {"red": 2, "blue": 1, "yellow": 2}})
        t.set(bithynia=11).push()
        t.ships("pontus_euxinus", "red", 1).ships("aegeum", "red", 1)       # a trireme sailed in
        t.push()
        t.ships("aegeum", "red", 2)
        r = t.set(cappadocia=2).push()
        assert ev.NAVAL_MOVE not in kinds(r) and "§6" in rules(r)


class TestNavalMovement:
    def test_one_move_is_ok_9_3(self):
        r = Table().ships("pontus_euxinus", "red", 0).ships("aegeum", "red", 2).push()
        assert kinds(r) == [ev.NAVAL_MOVE] and r.events[0].amount == 2 and r.verdicts == []
        # said as the dashboard lists it, in words a player reads aloud
        assert r.events[0].describe() == "red sails 2 triremes from pontus_euxinus to aegeum"
        launched = ev.Event(kind=ev.CARD_TRIREME, actor="red", target="aegeum", amount=1)
        assert launched.describe() == "red launches 1 trireme from a card set in aegeum"

    def test_second_move_is_a_violation_9_4(self):
        t = Table()
        t.ships("pontus_euxinus", "red", 1).ships("aegeum", "red", 1).push()
        r = t.ships("aegeum", "red", 0).ships("creticum", "red", 1).push()
        assert "§9.4" in rules(r)

    def test_short_sheet_allows_several_moves(self):
        t = Table(options=ruleset_options("short-sheet"))
        t.ships("aegeum", "red", 1).ships("pontus_euxinus", "red", 1).push()
        r = t.ships("aegeum", "red", 0).ships("creticum", "red", 1).push()
        assert "§9.4" not in rules(r)


class TestNavalCombat:
    def test_combat_in_one_sea_11(self):
        r = Table().ships("pontus_euxinus", "red", 1).ships("pontus_euxinus", "yellow", 1).push()
        assert kinds(r) == [ev.NAVAL_COMBAT]
        e = r.events[0]
        assert (e.defender, e.attacker_losses, e.defender_losses) == ("yellow", 1, 1)
        assert r.verdicts == []

    def test_one_combat_per_sea_per_turn_11_4(self):
        t = Table()
        t.ships("pontus_euxinus", "yellow", 1).push()
        r = t.ships("pontus_euxinus", "blue", 0).push()
        assert "§11.4" in rules(r)

    def test_sinking_where_the_player_has_no_fleet_11_4(self):
        r = Table().ships("aegeum", "blue", 0).push()
        assert "§11.4" in rules(r)


class TestSeaAttack:
    def test_rulebook_figure_bithynia_takes_thracia_12(self):
        r = Table().set(thracia=("red", 4), bithynia=3).push()
        assert kinds(r) == [ev.SEA_ATTACK]
        e = r.events[0]
        assert (e.source, e.target, e.sea, e.conquered, e.amount) == ("bithynia", "thracia", "pontus_euxinus", True, 4)
        assert r.verdicts == []

    def test_rulebook_figure_no_superiority_over_yellow_12_2(self):
        r = Table().set(moesia=1, bithynia=6).push()
        assert "§12.2" in rules(r)

    def test_same_province_twice_by_sea_12_6(self):
        t = Table()
        t.set(thracia=2, bithynia=5).push()
        r = t.set(thracia=1, bithynia=3).push()
        assert "§12.6" in rules(r)

    def test_no_second_sea_attack_from_a_province_taken_by_sea_12_7(self):
        t = Table().ships("aegeum", "red", 2)
        t.game.state = t.state()
        t.set(thracia=("red", 5), bithynia=3).push()
        r = t.set(achaia=("red", 2), thracia=2).push()
        assert "§12.7" in rules(r)

    def test_sea_attacks_come_before_land_attacks_4_2(self):
        t = Table()
        t.set(asia=1, galatia=3).push()                       # land attack on Asia
        r = t.set(thracia=2, bithynia=6).push()               # then a sea attack
        assert "§4.2" in rules(r)


class TestLandAttack:
    def test_conquest_with_move_in_13(self):
        r = Table().set(asia=("red", 3), galatia=1).push()
        e = r.events[0]
        assert (e.kind, e.source, e.target, e.conquered, e.amount) == (ev.LAND_ATTACK, "galatia", "asia", True, 3)
        assert r.verdicts == []

    def test_non_adjacent_attack_13_1(self):
        r = Table().set(raetia=2).push()
        assert "§13.1" in rules(r)
        # the dashboard's line says where it came from: nowhere the camera sees, not "from None"
        [e] = [e for e in r.events if e.kind == ev.LAND_ATTACK]
        assert e.source is None
        from tracker.board import load_board
        said = e.describe(load_board())
        assert said.startswith("red attacks Raetia (") and "None" not in said
        assert ", from no province of red's the camera sees beside it: loses 0" in said

    def test_fewer_dice_than_the_defender_10_13(self):
        t = Table(garrisons={**BASE, "cappadocia": ("red", 2)})
        r = t.set(armenia=2).push()
        assert "§10.13" in rules(r)
        t = Table(garrisons={**BASE, "cappadocia": ("red", 2), "ponto": ("red", 2)})
        [v] = t.set(armenia=2).push().verdicts
        assert v.rule == "§10.13" and "could roll 1 die against 3 defending Armenia" in v.message

    def test_chain_of_conquests_in_one_transition_13_5(self):
        t = Table(garrisons={**BASE, "galatia": ("red", 8)})
        r = t.set(asia=("red", 2), cilicia=("red", 2), galatia=2).push()
        assert sorted((e.target, e.conquered) for e in r.events) == [("asia", True), ("cilicia", True)]
        assert r.verdicts == []

    def test_neutral_armies_never_attack_2_6(self):
        r = Table().set(galatia=("green", 3)).push()
        assert "§2.6" in rules(r)

    def test_a_source_the_camera_lost_is_no_source(self):
        """Asia taken while Galatia, red beside it, is read empty or blue (a hand, a miscount):
        the move-in came from Bithynia, red beside it too. Galatia used to be weighed as a source
        as well, and its strength change looked up where there was none: a KeyError, in a live
        game (session 36's print games)."""
        for galatia in (("red", 0), ("blue", 1)):
            r = Table().set(asia=("red", 3), galatia=galatia).push()
            attack = [e for e in r.events if e.target == "asia"]
            assert [(e.source, e.conquered, e.amount) for e in attack] == [("bithynia", True, 3)]
            assert "galatia" in {region for v in r.verdicts for region in v.regions}

    def test_attack_repelled_shows_only_attacker_losses(self):
        r = Table().set(cappadocia=1).push()
        assert kinds(r) == [ev.LAND_ATTACK] and r.events[0].attacker_losses == 2


class TestGarrisons:
    def test_strategic_move_leaving_one_next_to_an_enemy_14_2(self):
        r = Table().set(bithynia=1, galatia=11).push()
        assert kinds(r) == [ev.STRATEGIC_MOVE]
        assert "§14.2" in rules(r)

    def test_move_in_of_the_last_attack_dice_is_the_exception_14_2(self):
        t = Table(garrisons={**BASE, "galatia": ("red", 4)})
        r = t.set(asia=("red", 3), galatia=1).push()
        assert "§14.2" not in rules(r)

    def test_moving_more_than_the_dice_and_leaving_one_14_2(self):
        # Galatia still borders neutral Cilicia after taking Asia.
        t = Table(garrisons={**BASE, "galatia": ("red", 12)})
        r = t.set(asia=("red", 10), galatia=1).push()
        assert "§14.2" in rules(r)


class TestStrategicMove:
    def test_move_between_neighbours_15_1(self):
        r = Table().set(bithynia=5, galatia=7).push()
        assert kinds(r) == [ev.STRATEGIC_MOVE] and r.verdicts == []

    def test_nothing_after_the_strategic_move_15_6(self):
        t = Table()
        t.set(bithynia=5, galatia=7).push()
        r = t.set(asia=("red", 1), galatia=6).push()        # red takes Asia after its move
        assert "§15.6" in rules(r) and r.actor == "red"

    def test_a_repelled_attack_and_the_move_in_one_change_15_1(self):
        """Galatia's attack on Asia loses 2, then 1 legionary moves from Cappadocia to Ponto: the
        move's source is the province whose loss matches the gain, not the larger loss."""
        t = Table()
        t.set(bithynia=11).push()
        r = t.set(galatia=2, cappadocia=2, ponto=4).push()
        assert r.verdicts == []
        assert [(e.kind, e.source, e.target) for e in r.events] == [
            (ev.LAND_ATTACK, "galatia", "asia"), (ev.STRATEGIC_MOVE, "cappadocia", "ponto")]

    def test_the_move_goes_to_the_surely_read_of_two_targets_alike_15_1(self):
        """Red has placed its due; Galatia loses one while Bithynia and Cappadocia beside it each
        read one more. One is the move's target, the other a piece placed beyond the due. Where
        the camera doubts Bithynia, the move goes to Cappadocia, and the placement it leaves rests
        on the doubted count: a warning that names it. Read surely, the first by name takes the
        move (the print's hard seed 443, game 444: a phantom legionary read at 0.59 made a breach)."""
        t = Table()
        t.set(bithynia=11).push()
        r = t.set(galatia=3, cappadocia=4, bithynia=12).push(confidence={"bithynia": 0.5})
        assert [(e.kind, e.source, e.target) for e in r.best.events] == [
            (ev.REINFORCEMENT, None, "bithynia"), (ev.STRATEGIC_MOVE, "galatia", "cappadocia")]
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§6", ("bithynia",))
        t = Table()
        t.set(bithynia=11).push()
        r = t.set(galatia=3, cappadocia=4, bithynia=12).push()
        assert (ev.STRATEGIC_MOVE, "galatia", "bithynia") in [(e.kind, e.source, e.target) for e in r.best.events]
        assert "§6" in rules(r)


def centre_with_an_arena() -> Table:
    """Red plays a card set with an arena and builds a centre in Ponto (not yet pushed)."""
    t = Table()
    t.game.hands["red"].count = 3
    t.game.play_cards("red", ["arena", "legionary", "trireme"])
    t.centres.add("ponto")
    return t


class TestPowerCentres:
    def test_centre_needs_an_arena_card_16_3(self):
        t = Table()
        t.centres.add("ponto")
        assert "§16.3" in rules(t.push())

    def test_centre_with_an_arena_set_is_ok_16_3(self):
        assert rules(centre_with_an_arena().push()) == set()

    def test_not_next_to_another_centre_16_4(self):
        t = Table(centres=["galatia"])
        t.game.hands["red"].count = 3
        t.game.play_cards("red", ["arena"] * 3)
        t.centres.add("bithynia")
        assert rules(t.push()) == {"§16.4"}

    def test_centre_in_someone_elses_province_16_4(self):
        t = Table()
        t.game.hands["red"].count = 3
        t.game.play_cards("red", ["arena"] * 3)
        t.centres.add("dacia")
        assert "§16.4" in rules(t.push())


class TestCentresStay:
    """§16.2: a power centre is never removed, so one the camera stops seeing is kept."""

    def placed(self):
        t = centre_with_an_arena()
        assert rules(t.push()) == set()
        return t

    def test_a_centre_the_camera_lost_is_held_over_its_reading_16_2(self):
        from tracker.overrides import apply_overrides
        t = self.placed()
        t.centres.discard("ponto")
        lost = t.state()
        held, notes = t.game.hold_permanent(lost)
        assert list(held) == ["ponto"] and held["ponto"].camera_value == {"red": {"legionary": 3}}
        assert held["ponto"].value == {"red": {"legionary": 3}, "neutral": {"centre": 1}}
        assert [(v.level, v.rule, v.regions) for v in notes] == [("warning", "§16.2", ("ponto",))]
        kept = apply_overrides(held, lost)
        assert kept.centres == {"ponto": 1}
        report = t.game.observe(kept)
        assert not [v for v in report.verdicts if v.rule == "§16.2"]       # nothing vanished
        assert t.game.score("red").centres == 1

    def test_without_the_hold_the_centre_vanishes_with_a_warning_16_2(self):
        t = self.placed()
        t.centres.discard("ponto")
        assert "§16.2" in rules(t.push(), "warning") and t.game.score("red").centres == 0

    def test_a_centre_still_seen_holds_nothing(self):
        t = self.placed()
        assert t.game.hold_permanent(t.state()) == ({}, [])

    def test_a_centre_the_rules_refused_is_not_held_16_3(self):
        t = Table()
        t.centres.add("ponto")                      # no arena paid for it: perhaps a misread
        assert "§16.3" in rules(t.push())
        t.centres.discard("ponto")
        assert t.game.hold_permanent(t.state()) == ({}, [])

    def test_a_centre_read_only_in_doubt_is_held_once_read_clearly(self):
        """Hard seed 393: a centre the camera read at 0.39 and then clearly not at all was a
        phantom; held, it gave its province's owner a point a turn. Read clearly at a later commit,
        it is held from then on."""
        t = centre_with_an_arena()
        t.push(confidence={"ponto": 0.39})
        assert t.game.centres_held == set() and t.game.centres_doubted == {"ponto"}
        t.centres.discard("ponto")
        assert t.game.hold_permanent(t.state()) == ({}, [])          # read clearly without it: gone
        t.push()
        assert t.game.centres_doubted == set() and t.game.score("red").centres == 0
        again = centre_with_an_arena()
        again.push(confidence={"ponto": 0.39})
        again.set(galatia=5).push()                                  # read clearly with it
        assert again.game.centres_held == {"ponto"} and again.game.centres_doubted == set()
        again.centres.discard("ponto")
        assert list(again.game.hold_permanent(again.state())[0]) == ["ponto"]

    def test_a_centre_standing_when_the_game_was_resumed_is_held(self):
        t = Table(centres=["galatia"])
        t.centres.discard("galatia")
        held, _ = t.game.hold_permanent(t.state())
        assert list(held) == ["galatia"]

    def test_a_centre_read_in_doubt_when_the_game_was_resumed_is_held_once_read_clearly(self):
        """A calibration with the game laid out can leave a piece in the photo the counter compares
        with; when it leaves, the camera reads a phantom centre there, in doubt
        (vision.density.STALE_MASS). Held from the start, it gave its owner a point a turn for the
        rest of the game. It is held once a commit reads it clearly, and forgotten if one reads
        the province clearly without it."""
        t = Table()
        t.centres.add("galatia")
        t.game.start(t.state(confidence={"galatia": 0.4}), first_player="red", round_no=5)
        assert t.game.centres_held == set() and t.game.centres_doubted == {"galatia"}
        t.centres.discard("galatia")
        assert t.game.hold_permanent(t.state()) == ({}, [])         # read clearly without it: gone
        again = Table()
        again.centres.add("galatia")
        again.game.start(again.state(confidence={"galatia": 0.4}), first_player="red", round_no=5)
        again.push()                                                 # read clearly with it
        assert again.game.centres_held == {"galatia"} and again.game.centres_doubted == set()
        again.centres.discard("galatia")
        assert list(again.game.hold_permanent(again.state())[0]) == ["galatia"]

    def test_a_held_centre_survives_a_conquest_of_its_province(self):
        from tracker.overrides import apply_overrides
        t = Table(centres=["thracia"])
        conquered = t.set(thracia=("red", 3), bithynia=5)
        conquered.centres.discard("thracia")
        held, _ = t.game.hold_permanent(t.state())
        assert held["thracia"].value == {"red": {"legionary": 3}, "neutral": {"centre": 1}}
        report = t.game.observe(apply_overrides(held, t.state()))
        assert report.level != "violation" and t.game.state.owners["thracia"] == "red"
        assert t.game.state.centres == {"thracia": 1}



def read_without(state, *regions, unseen=()):
    """``state`` as a camera that sees nothing in ``regions`` reads it (``unseen``: marked so)."""
    from tracker.state import ObservedState
    d = state.to_dict()
    d["regions"] = {r: c for r, c in d["regions"].items() if r not in regions}
    d["unseen"] = sorted(unseen)
    return ObservedState.from_dict(d)


class TestProvincesNeverEmpty:
    """§14.1: once the game has begun every province holds an army, so one the camera reads
    empty keeps the army that held it, at the one legionary the rules guarantee."""

    def test_a_province_read_empty_keeps_its_army_at_one_legionary_14_1(self):
        from tracker.overrides import apply_overrides
        t = Table()
        empty = read_without(t.state(), "asia")
        assert "asia" not in empty.owners and len(empty.provinces_of("blue")) == 2
        held, notes = t.game.hold_permanent(empty)
        assert list(held) == ["asia"] and held["asia"].camera_value == {}
        assert held["asia"].value == {"blue": {"legionary": 1}}
        assert [(v.level, v.rule, v.regions) for v in notes] == [("warning", "§14.1", ("asia",))]
        kept = apply_overrides(held, empty)
        assert kept.owners["asia"] == "blue" and len(kept.provinces_of("blue")) == 3
        assert kept.confidence_of("asia") < LOW_CONFIDENCE           # the count is a guess: check it
        report = t.game.observe(kept)
        assert not [v for v in report.verdicts if v.rule == "§14.1"]       # nothing emptied

    def test_without_the_hold_the_province_looks_emptied_14_1(self):
        t = Table()
        t.g.pop("asia")
        report = t.game.observe(read_without(t.state(), "asia"))
        assert "§14.1" in rules(report, "warning")

    def test_a_province_marked_unseen_is_left_to_the_pipeline(self):
        t = Table()
        assert t.game.hold_permanent(read_without(t.state(), "asia", unseen=["asia"])) == ({}, [])

    def test_during_the_set_up_a_free_province_is_not_held(self):
        from tests.conftest import make_state
        game = Game(PLAYERS, ruleset_options())
        game.begin_setup(make_state({"asia": ("blue", 2)}))
        assert game.hold_permanent(make_state({})) == ({}, [])

    def test_a_province_with_a_held_centre_read_empty_keeps_both(self):
        t = Table(centres=["galatia"])
        held, notes = t.game.hold_permanent(read_without(t.state(), "galatia"))
        assert held["galatia"].value == {"red": {"legionary": 1}, "neutral": {"centre": 1}}
        assert held["galatia"].confidence < LOW_CONFIDENCE
        assert sorted(v.rule for v in notes) == ["§14.1", "§16.2"]


class TestCentresOwed:
    """§16.3: an arena's centre the camera never saw placed is asked for on the tablet, and
    seen (or marked) later it is that centre, not a new one built without a card."""

    def played_unseen(self):
        t = Table(centres=["galatia"])
        t.game.hands["red"].count = 3
        t.game.play_cards("red", ["arena", "legionary", "trireme"])
        assert rules(t.set(bithynia=10).push()) == set()        # the set's legionaries, no centre seen
        return t

    def test_an_arena_paid_centre_not_seen_is_owed_where_the_rules_allow_it(self):
        t = self.played_unseen()
        [owed] = t.game.centres_owed()
        assert (owed.colour, owed.count) == ("red", 1)
        # red's provinces without a centre and not beside one by land (§16.4): Galatia holds a
        # centre, and Bithynia and Cappadocia border it
        assert owed.where == ("ponto",)
        assert owed.to_dict() == {"colour": "red", "count": 1, "where": list(owed.where)}

    def test_a_centre_seen_in_the_turn_pays_the_debt(self):
        t = centre_with_an_arena()
        assert [o.count for o in t.game.centres_owed()] == [1]
        t.push()
        assert t.game.centres_owed() == []

    def test_the_turn_ends_with_a_warning_and_the_debt_carries(self):
        t = self.played_unseen()
        r = t.set(thracia=5).push("blue")
        assert r.turn_changed and "§16.3" in rules(r, "warning") and rules(r) == set()
        assert [(o.colour, o.count) for o in t.game.centres_owed()] == [("red", 1)]

    def test_seen_in_a_later_turn_it_is_that_centre_not_a_new_one(self):
        t = Table()
        t.game.hands["red"].count = 3
        t.game.play_cards("red", ["arena", "legionary", "trireme"])
        t.set(bithynia=10).push()
        t.set(thracia=5).push("blue")
        t.centres.add("ponto")                  # marked on the tablet during blue's turn
        r = t.push()
        assert rules(r) == set() and rules(r, "warning") == set()
        assert [(e.kind, e.actor, e.target) for e in r.events] == [(ev.CENTRE_PLACED, "red", "ponto")]
        assert t.game.centres_owed() == [] and "ponto" in t.game.centres_held
        assert t.game.score("red").centres == 1

    def test_red_may_place_it_in_a_later_turn_of_theirs(self):
        t = Table()
        t.game.hands["red"].count = 3
        t.game.play_cards("red", ["arena", "legionary", "trireme"])
        t.set(bithynia=10).push()
        t.game.start_turn("blue")
        t.game.start_turn("yellow")
        t.game.start_turn("red")
        t.centres.add("ponto")
        assert "§16.3" not in rules(t.push())

    def test_without_a_debt_a_centre_in_another_colours_province_is_refused(self):
        t = Table()
        t.set(thracia=5).push("blue")
        t.centres.add("ponto")                  # red's province, blue's turn, no arena anywhere
        assert {"§16.3", "§16.4"} <= rules(t.push())

    def test_a_full_box_owes_nothing(self):
        t = self.played_unseen()
        full = [p for p, c in t.game.state.owners.items() if c in ("green", "black")][:11]
        t.centres.update(full)
        t.game.state = t.state()
        assert sum(t.game.state.centres.values()) == 12 and t.game.centres_owed() == []


class TestElimination:
    GARRISONS = {**BASE, "dacia": ("green", 3), "moesia": ("green", 3), "ponto": ("yellow", 1)}

    def test_not_before_the_end_of_round_4_18_4(self):
        t = Table(round_no=3, garrisons=self.GARRISONS)
        r = t.set(ponto=("red", 3), bithynia=5).push()
        assert ev.ELIMINATION in kinds(r)
        assert "§18.4" in rules(r)
        assert "§18.3" in rules(r, "warning")   # yellow's triremes are still on the Pontus

    def test_allowed_from_round_5_and_cards_change_hands_18_2(self):
        t = Table(round_no=5, garrisons=self.GARRISONS)
        t.game.hands["yellow"].count = 2
        t.ships("pontus_euxinus", "yellow", 0)
        r = t.set(ponto=("red", 3), bithynia=5).push()
        assert rules(r) == set()
        assert "yellow" in t.game.eliminated and t.game.hands["red"].count == 2
        assert t.game.next_player("red") == "blue" and t.game.next_player("blue") == "red"


class TestCards:
    def test_card_without_conquest_17_1(self):
        """Red draws having conquered nothing. The camera may not have committed the conquest
        yet, so the tablet waits for the next commit: blue's first legionary shows none."""
        t = Table()
        t.set(bithynia=11).push()
        assert t.game.draw_card("red") == []
        r = t.set(thracia=4).push()
        assert (r.actor, rules(r)) == ("blue", {"§17.1"})
        assert [v.message for v in r.verdicts] == ["red drew a card without conquering a province"]
        assert rules(t.set(macedonia=4).push()) == set()        # judged once

    def test_card_judged_once_the_table_has_settled_17_1(self):
        """Red draws having conquered nothing, and nothing moves after: the camera's settled table
        judges the card at once, not at blue's first move, and only once."""
        t = Table()
        t.set(bithynia=11).push()
        assert t.game.draw_card("red") == [] and t.game.draws_waiting
        said = t.game.judge_draws()
        assert [(v.level, v.rule, v.message) for v in said] == [
            ("violation", "§17.1", "red drew a card without conquering a province")]
        assert not t.game.draws_waiting and t.game.judge_draws() == []
        assert rules(t.set(thracia=4).push()) == set()            # blue's first move: nothing left to judge

    def test_a_card_earned_by_a_committed_conquest_waits_for_nothing_17_1(self):
        t = Table()
        t.set(thracia=("red", 2)).push()                             # red takes blue's Thracia
        assert t.game.draw_card("red") == [] and not t.game.draws_waiting
        assert t.game.judge_draws() == []

    def test_a_card_drawn_by_a_player_not_seen_in_turn_waits_for_a_commit_17_1(self):
        """Red draws in blue's turn (as the camera sees it): a settled table cannot say whose turn
        it is, so the card is judged by the commit that next shows a move, as before."""
        t = Table()
        t.set(bithynia=11).push()
        t.set(thracia=4).push()                                      # blue's turn now
        t.game.draw_card("red")
        assert not t.game.draws_waiting and t.game.judge_draws() == []
        r = t.set(macedonia=4).push()
        assert [v.message for v in r.verdicts if v.rule == "§17.1"] == ["red drew a card outside their own turn"]

    def test_a_card_drawn_by_the_next_player_says_their_turn_went_by_17_1(self):
        """Blue's whole turn is played under a card over Thracia, and blue draws at its end; the
        next commit shows yellow's legionary in Moesia, beside Thracia. Without the draw, red
        going on is the cheaper reading (the legionary may have come from under the card, a
        warning); with it, that reading would make blue's card a breach, and the change is read
        as blue's turn gone by and yellow's begun. The card is then judged in blue's turn."""
        for drawn in (False, True):
            t = Table()
            t.set(bithynia=11).push()
            if drawn:
                t.game.draw_card("blue")
            covered = ObservedState.from_dict(dict(t.set(moesia=4).state().to_dict(), unseen=["thracia"]))
            r = t.game.observe(covered)
            assert (r.actor, [s.colour for s in r.scores]) == (("yellow", ["blue", "yellow"]) if drawn else ("red", []))
            assert rules(r) == set()
        [v] = r.verdicts
        assert (v.level, v.rule) == ("warning", "§17.1") and "could not see Thracia" in v.message

    def test_card_while_a_province_is_out_of_sight_17_1(self):
        """A card over Asia when red draws: a conquest there is out of the camera's sight, so the
        unearned card is a warning that says where it could not see."""
        t = Table()
        t.set(bithynia=11).push()
        t.game.draw_card("red")
        d = t.set(thracia=4).state().to_dict()
        d["unseen"] = ["asia"]
        r = t.game.observe(ObservedState.from_dict(d))
        assert rules(r) == set() and rules(r, "warning") == {"§17.1"}
        assert "could not see Asia" in r.verdicts[-1].message

    def test_card_beside_a_province_the_camera_doubts_17_1(self):
        """The camera doubts Asia, beside red's Galatia: red may have taken it unseen (a count
        read in doubt, as an empty province at 0.16 in a rendered game). A warning naming it; a
        doubted province out of red's reach changes nothing."""
        for doubted, level in (("asia", "warning"), ("lusitania", "violation")):
            t = Table()
            t.set(bithynia=11).push()
            t.game.draw_card("red")
            r = t.set(thracia=4).push(confidence={doubted: 0.3})
            [v] = [v for v in r.verdicts if v.rule == "§17.1"]
            assert v.level == level and (v.regions == ("asia",)) == (level == "warning")

    def test_card_of_a_turn_the_camera_has_not_seen_17_1(self):
        """Blue places three legionaries in Asia, takes Galatia from it and draws before the
        camera committed any of it (a hand never left the board long enough): its turn and the
        conquest come with the next commit, and its turn is over."""
        t = Table()
        t.set(bithynia=11).push()
        assert t.game.draw_card("blue") == []
        r = t.set(asia=("blue", 1), galatia=("blue", 3)).push()
        assert r.actor == "blue" and r.verdicts == []
        assert t.game.ctx.card_drawn and t.game.ctx.phase == ev.Phase.CARD_DRAW
        assert t.game.hands["blue"].count == 1
        r = t.set(moesia=4).push()                              # yellow's turn follows
        assert (r.actor, r.verdicts) == ("yellow", [])

    def test_card_outside_the_own_turn_17_1(self):
        """Yellow draws while red plays: the next commit shows no turn of yellow's."""
        t = Table()
        t.set(bithynia=11).push()
        assert t.game.draw_card("yellow") == []
        r = t.set(bithynia=9, galatia=6).push()
        assert r.actor == "red"
        assert [v.message for v in r.verdicts] == ["yellow drew a card outside their own turn"]

    def test_card_after_conquest_and_only_one_17_3(self):
        t = Table()
        t.set(asia=("red", 3), galatia=1).push()
        assert t.game.draw_card("red") == []
        assert {v.rule for v in t.game.draw_card("red")} == {"§17.3"}

    def test_a_card_entered_before_the_last_move_is_committed_comes_after_it_17(self):
        """Red draws its card at the tablet as it takes Asia, before the camera has committed the
        conquest: the conquest came before the draw. What a later commit shows came after it."""
        t = Table()
        t.set(bithynia=11).push()
        assert t.game.draw_card("red") == []        # no conquest seen yet: judged at the commit
        r = t.set(asia=("red", 3), bithynia=8).push()
        assert r.verdicts == [] and t.game.ctx.conquered
        r = t.set(galatia=5, ponto=2).push()     # a strategic move after the draw
        assert "§15.6" in rules(r)


class TestResight:
    """The camera sees the standing board otherwise (a hand resting on some regions) and no
    count changed: the tracker takes the marks and infers nothing."""

    def _seen_otherwise(self, t):
        d = t.state().to_dict()
        d["unseen"] = ["bithynia", "pontus_euxinus"]
        return d

    def test_the_marks_are_taken_and_nothing_is_inferred(self):
        from tracker.state import ObservedState
        t = Table()
        t.set(bithynia=11).push()
        turn, vp, history = t.game.turn_no, dict(t.game.vp), len(t.game.history)
        t.game.resight(ObservedState.from_dict(self._seen_otherwise(t)))
        assert t.game.state.unseen == {"bithynia", "pontus_euxinus"}
        assert (t.game.turn_no, t.game.vp, len(t.game.history)) == (turn, vp, history)
        r = t.push()            # seen again, same counts, as a full observation: still nothing happened
        assert kinds(r) == [] and not r.turn_changed and not t.game.state.unseen

    def test_a_changed_count_is_refused(self):
        import pytest

        from tracker.errors import GameError
        from tracker.state import ObservedState
        t = Table()
        d = self._seen_otherwise(t)
        d["regions"]["bithynia"] = {"red": {"legionary": 9}}
        before = t.game.state
        with pytest.raises(GameError, match="counts changed"):
            t.game.resight(ObservedState.from_dict(d))
        assert t.game.state is before


class TestFirstSight:
    """A region the camera could not see when the tracker began following (a cup over it) holds
    no count at all: the first time the camera shows it, it is taken as it stands, not as a move."""

    @staticmethod
    def _begun_with(hidden, marked=True, centres=()):
        """A table in round 5 whose first committed state reads ``hidden`` empty and (``marked``)
        unseen: the pipeline had no earlier count to keep there."""
        t = Table(centres=centres)
        t.game = Game(PLAYERS, ruleset_options())
        t.game.start(read_without(t.state(), *hidden, unseen=hidden if marked else ()), first_player="red",
                     round_no=5)
        return t

    def test_a_province_first_seen_is_taken_as_it_stands_not_placed(self):
        t = self._begun_with(["galatia"])
        assert t.game.unknown == {"galatia"}
        r = t.push()                                    # the cup is lifted: red's 4 legionaries in Galatia
        assert kinds(r) == [] and not rules(r)
        assert [(v.level, v.rule, v.regions) for v in r.verdicts] == [("warning", "§3.9", ("galatia",))]
        assert "Galatia: 4 red legionaries" in r.verdicts[0].message
        assert t.game.state.legions["galatia"] == 4 and not t.game.unknown
        r = t.set(galatia=6).push()                     # from now on it is read like any other
        assert kinds(r) == [ev.REINFORCEMENT] and not r.verdicts

    def test_a_province_first_seen_beside_a_conquest_held_the_pieces_moved_in(self):
        """Red reinforces Bithynia while Galatia is still under the cup, then takes Asia from
        Galatia and moves three in: the cup is lifted on Galatia's last legionary. Taken as it
        stands, the conquest had no source but Bithynia, which lost nothing, and the three moved
        in read as placed beyond the entitlement. Galatia is taken to have held them too. (A
        rendered hard game, seed 207: red took Illiria from Cisalpina so.)"""
        t = self._begun_with(["galatia"])
        t.game.observe(read_without(t.set(bithynia=11).state(), "galatia", unseen=["galatia"]))
        r = t.set(galatia=1, asia=("red", 3)).push()
        assert [(e.kind, e.source, e.target) for e in r.events] == [(ev.LAND_ATTACK, "galatia", "asia")]
        assert r.events[0].conquered and not rules(r)
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§3.9", ("galatia",))
        assert "Galatia: 1 red legionary (and to have held 4 red legionaries before red moved into Asia" in v.message
        assert t.game.state.legions["galatia"] == 1

    def test_a_province_first_seen_beside_a_conquest_a_seen_source_made_is_taken_as_it_stands(self):
        """As above, but Bithynia, seen, lost the three moved into Asia: the conquest came from
        there, and Galatia is taken as it stands."""
        t = self._begun_with(["galatia"])
        t.game.observe(read_without(t.set(bithynia=11).state(), "galatia", unseen=["galatia"]))
        r = t.set(galatia=4, bithynia=8, asia=("red", 3)).push()
        assert [(e.kind, e.source, e.target) for e in r.events] == [(ev.LAND_ATTACK, "bithynia", "asia")]
        assert "held" not in r.verdicts[0].message and t.game.state.legions["galatia"] == 4

    @staticmethod
    def _sailed_from_aegeum(into):
        """Red's trireme in the Aegeum sails into ``into`` as the card over the Creticum, empty,
        is lifted."""
        t = Table(seas=dict(SEAS, aegeum={"blue": 1, "red": 1}))
        t.game = Game(PLAYERS, ruleset_options())
        t.game.start(read_without(t.state(), "creticum", unseen=["creticum"]), first_player="red", round_no=5)
        t.game.observe(read_without(t.set(bithynia=11).state(), "creticum", unseen=["creticum"]))
        t.seas["aegeum"] = {"blue": 1}
        t.ships(into, "red", 1)
        return t, t.push()

    def test_a_sea_first_seen_beside_a_fleet_gone_took_it_in(self):
        """Taken as it stands, the Creticum held red's trireme all along, and the one that left
        the Aegeum vanished with no combat (§6.6). It is taken to have sailed in. (A rendered hard
        game on the print, seed 544: red sailed from the Ibericum into the Cantabricum so.)"""
        t, r = self._sailed_from_aegeum("creticum")
        assert [(e.kind, e.source, e.target) for e in r.events] == [(ev.NAVAL_MOVE, "aegeum", "creticum")]
        assert not rules(r)
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§3.9", ("creticum",))
        assert "Creticum: 1 red trireme (and to have held nothing before red's triremes sailed into it from Aegeum)" \
            in v.message
        assert t.game.state.triremes_of("red", "creticum") == 1 and not t.game.unknown

    def test_a_fleet_gone_elsewhere_leaves_a_sea_first_seen_as_it_stands(self):
        """Red's trireme sails into the Ionium, seen all along, as the Creticum is lifted on
        nothing: a move, and the Creticum first seen empty."""
        t, r = self._sailed_from_aegeum("ionium")
        assert [(e.kind, e.source, e.target) for e in r.events] == [(ev.NAVAL_MOVE, "aegeum", "ionium")]
        assert not rules(r) and not r.verdicts and not t.game.unknown

    def test_the_same_province_seen_empty_at_the_start_is_a_move(self):
        t = self._begun_with(["galatia"], marked=False)
        assert not t.game.unknown
        r = t.push()            # seen empty, then holding an army: "occupied again after looking empty"
        assert [(v.level, v.rule) for v in r.verdicts] == [("warning", "§14.1")]

    def test_a_region_seen_before_and_hidden_since_is_read_as_ever(self):
        t = Table()
        t.set(bithynia=11).push()
        t.game.resight(read_without(t.state(), unseen=["bithynia"]))     # a hand rests there
        assert not t.game.unknown
        r = t.set(bithynia=12).push()
        assert not [v for v in r.verdicts if v.rule == "§3.9"] and kinds(r)

    def test_a_region_first_seen_empty_says_nothing_and_is_known_from_then_on(self):
        t = self._begun_with(["aegeum"])
        t.seas.pop("aegeum")
        t.game.resight(t.state())                       # the card is lifted off an empty sea
        assert not t.game.unknown and not t.game.state.unseen
        t.ships("aegeum", "blue", 1)
        r = t.push()
        assert kinds(r)                                 # a trireme there now is a move

    def test_a_centre_first_seen_is_held_16_2(self):
        t = self._begun_with(["galatia"], centres=["galatia"])
        t.push()
        assert "galatia" in t.game.centres_held
        held, _ = t.game.hold_permanent(read_without(t.state(), "galatia"))
        assert held["galatia"].value == {"red": {"legionary": 1}, "neutral": {"centre": 1}}

    def test_a_region_still_hidden_stays_unknown(self):
        t = self._begun_with(["galatia", "ponto"])
        r = t.game.observe(read_without(t.state(), "ponto", unseen=["ponto"]))
        assert [v.regions for v in r.verdicts if v.rule == "§3.9"] == [("galatia",)]
        assert t.game.unknown == {"ponto"}


class TestBesideUnseen:
    """Pieces may move to or from a region the camera cannot see: a violation about regions that
    each touch one becomes a warning naming it."""

    @staticmethod
    def _after_an_attack():
        t = Table()
        t.set(bithynia=11).push()
        t.set(asia=("red", 3), bithynia=8).push()          # conquest: the reinforcements are over
        return t.set(galatia=6)

    def test_pieces_appearing_beside_a_hidden_province_are_a_warning_4_2(self):
        t = self._after_an_attack()
        r = t.game.observe(read_without(t.state(), unseen=["cappadocia"]))    # a cup over Cappadocia
        assert "§4.2" not in rules(r) and "§4.2" in rules(r, "warning")
        assert any("beside Cappadocia, which the camera could not see" in v.message for v in r.verdicts)

    def test_a_hidden_region_elsewhere_changes_nothing_4_2(self):
        t = self._after_an_attack()
        r = t.game.observe(read_without(t.state(), unseen=["dacia"]))          # nowhere near Galatia
        assert "§4.2" in rules(r)

    def test_a_hidden_region_in_the_state_before_counts_too(self):
        t = Table()
        t.set(bithynia=11).push()
        t.set(asia=("red", 3), bithynia=8)
        t.game.observe(read_without(t.state(), unseen=["cappadocia"]))
        r = t.set(galatia=6).push()                        # the cup is lifted as the pieces appear
        assert "§4.2" not in rules(r) and "§4.2" in rules(r, "warning")

    @staticmethod
    def _beside_cilicia_never_seen(**change):
        """Cilicia under a card since the game began (Galatia blue's here); red places 3 in Ponto,
        then the board changes by ``change``: the report on that commit."""
        t = Table(garrisons=dict(BASE, galatia=("blue", 4)))
        t.game = Game(PLAYERS, ruleset_options())

        def camera():
            return read_without(t.state(), "cilicia", unseen=["cilicia"])
        t.game.start(camera(), first_player="red", round_no=5)
        t.set(ponto=6)
        t.game.observe(camera())
        t.set(**change)
        return t.game.observe(camera())

    def test_a_conquest_beside_a_province_never_seen_may_come_from_there_13_1(self):
        """Cilicia under a card since the game began: nobody knows whose it is. Red places in
        Ponto, then takes Asia moving three in, Bithynia beside it read as before. Read from
        Bithynia, the three were placed there beyond the due; the conquest may have come from
        Cilicia, out of sight: a warning that says so. (Hard seed 449, game 450: Armenia taken
        from Ponto under a card, "yellow placed 3 legionaries but is entitled to 1".)"""
        r = self._beside_cilicia_never_seen(asia=("red", 3))
        assert [(e.kind, e.source, e.target, e.amount) for e in r.best.events] == [(ev.LAND_ATTACK, None, "asia", 3)]
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§13.1", ("asia",))
        assert "it borders Cilicia, which the camera could not see: the attack may have come from there" in v.message

    def test_a_conquest_beside_another_army_s_province_out_of_sight_may_come_from_there_13_1(self):
        """Cilicia was blue's when a cover came over it: red may have taken it unseen. Red takes
        Asia beside it moving three in, Bithynia read as before: the conquest may have come
        from Cilicia. (The print's hard seed 479: blue took Numidia under a cover, then
        Cyrenaica from it, "attacked by sea without more triremes than red".)"""
        t = Table(garrisons=dict(BASE, galatia=("blue", 4), cilicia=("blue", 3)))
        t.game = Game(PLAYERS, ruleset_options())
        t.game.start(t.state(), first_player="red", round_no=5)

        def camera():       # the pipeline keeps a count it cannot see as last read: blue's 3
            d = t.state().to_dict()
            d["unseen"] = ["cilicia"]
            return ObservedState.from_dict(d)
        t.set(ponto=6)
        t.game.observe(camera())
        t.set(asia=("red", 3))
        r = t.game.observe(camera())
        assert [(e.kind, e.source, e.target, e.amount) for e in r.best.events] == [(ev.LAND_ATTACK, None, "asia", 3)]
        [v] = r.verdicts
        assert (v.level, v.rule) == ("warning", "§13.1") and "it borders Cilicia, which the camera" in v.message

    def test_a_loss_beside_a_province_never_seen_is_read_from_the_province_in_sight(self):
        """Asia only loses pieces: an attack out of sight that took nothing is no story to keep a
        turn going on, so the attack comes from a province in sight, as read."""
        r = self._beside_cilicia_never_seen(asia=("blue", 1), bithynia=7)
        assert [(e.kind, e.source, e.target) for e in r.best.events] == [(ev.LAND_ATTACK, "bithynia", "asia")]


class TestAcrossASeaFromUnseen:
    """Red has reinforced; Asia then gains a legionary while Thracia, red's across the Aegeum, is
    under a cup: a strategic move across the sea (§15.2) may have brought it, where red's fleet
    there allows the crossing. (The print's hard seed 156.)"""

    GARRISONS = {**BASE, "asia": ("red", 6), "thracia": ("red", 3), "macedonia": ("blue", 3)}

    def _gained(self, seas, unseen=("thracia",)):
        t = Table(garrisons=self.GARRISONS, seas=seas)
        t.set(bithynia=11).push()
        t.set(asia=7)
        return t.game.observe(read_without(t.state(), unseen=list(unseen)))

    def test_a_crossing_the_fleet_allows_is_a_warning_6(self):
        [v] = self._gained({"aegeum": {"red": 2, "blue": 1}}).verdicts
        assert (v.level, v.rule) == ("warning", "§6")
        assert "across a sea from Thracia, which the camera could not see" in v.message

    def test_without_superiority_it_stays_a_breach_6(self):
        [v] = self._gained({"aegeum": {"red": 1, "blue": 1}}).verdicts
        assert (v.level, v.rule) == ("violation", "§6")

    def test_another_army_out_of_sight_across_the_sea_changes_nothing_6(self):
        [v] = self._gained({"aegeum": {"red": 2, "blue": 1}}, unseen=("macedonia",)).verdicts
        assert (v.level, v.rule) == ("violation", "§6")


class TestNeutralArmyReadShort:
    """Green is a neutral army here: it never reinforces (§2.6). Italia read with 3 green
    legionaries, then with 4: read at 0.90 before, one of the two counts is the camera's misread
    (a warning that names the count before); read surely before, a piece put there is a breach as
    ever."""

    def test_a_neutral_count_read_fairly_surely_before_was_the_camera_s_2_6(self):
        for was, level in ((0.9, "warning"), (0.97, "violation")):
            t = Table()
            t.set(bithynia=11).push(confidence={"italia": was})
            [v] = t.set(italia=("green", 4)).push().verdicts
            assert (v.level, v.regions) == (level, ("italia",))
            assert ("misread it now or when it read 3 at 0.90" in v.message) == (level == "warning")

    def test_a_player_s_army_grown_out_of_turn_stays_a_breach_4_2(self):
        t = Table()
        t.set(bithynia=11).push(confidence={"dacia": 0.9})
        r = t.set(dacia=3).push()
        assert "§4.2" in rules(r) and "§2.6" not in rules(r, "warning")


class TestVanishedBesideADoubtedCount:
    """Red moves a legionary from Mauretania to Numidia, and the camera goes on reading Numidia
    at its old count, unsure of it: the legionary seems to vanish. A province beside it, red's,
    whose count the camera doubts, may hold it: a warning naming it, not a violation."""

    @staticmethod
    def _moved(confidence):
        t = Table(garrisons=dict(BASE, mauretania=("red", 2), numidia=("red", 3)))
        t.set(bithynia=11).push()
        return t.set(mauretania=1).push(confidence=confidence)

    def test_a_doubted_neighbour_makes_it_a_warning_10_9(self):
        r = self._moved({"numidia": 0.48})
        assert rules(r) == set() and rules(r, "warning") == {"§10.9"}
        [v] = r.verdicts
        assert "Numidia (read at 0.48)" in v.message and v.regions == ("mauretania", "numidia")

    def test_the_doubted_neighbour_is_asked_for_not_the_province_read_surely_10_9(self):
        from tracker.overrides import to_check
        for sure, asked in ((None, {"numidia"}), (0.9, {"mauretania", "numidia"})):
            t = Table(garrisons=dict(BASE, mauretania=("red", 2), numidia=("red", 3)))
            t.set(bithynia=11).push()
            t.set(mauretania=1).push(confidence={"numidia": 0.48, **({"mauretania": sure} if sure else {})})
            assert to_check(t.game.state, t.game.questioned, {}) == asked, sure

    def test_a_sure_neighbour_leaves_the_violation_10_9(self):
        assert rules(self._moved({"numidia": 0.95})) == {"§10.9"}

    def test_the_classic_tracker_reads_it_so_too(self):
        from tests.test_risiko import CLASSIC, classic_board, started, st
        # Iceland and every territory beside it red's, so that an army gone from it fought nobody
        p = "islanda"
        g = dict(classic_board(), **{q: ("red", 3) for q in CLASSIC.land_neighbours[p] | {p}})
        q = sorted(CLASSIC.land_neighbours[p])[0]
        state = st(CLASSIC, dict(g, **{p: ("red", 2)})).to_dict()
        for confidence, level in ((0.95, "violation"), (0.4, "warning")):
            game = started("classic", g, ("red", "blue", "yellow"))
            [v] = game.observe(ObservedState.from_dict(dict(state, confidence={q: confidence}))).verdicts
            assert v.level == level and (q in v.regions) == (level == "warning")


class TestVanishedBesideAPileMissedWhole:
    """Green's Numidia, beside red's Mauretania, has been read empty in doubt: a pile the camera
    missed whole. Red attacks it from Mauretania and loses four, and the camera now reads Numidia
    as green's two: read from the empty province, red's legionaries vanished with no combat. They
    may have died attacking Numidia: a warning naming it, not a violation."""

    @staticmethod
    def _attacked(before, now, numidia=("green", 2)):
        t = Table(garrisons=dict(BASE, mauretania=("red", 5), numidia=("green", 0)))
        t.set(bithynia=11).push(confidence={"numidia": before})
        return t.set(mauretania=1, numidia=numidia).push(confidence={"numidia": now})

    def test_a_pile_missed_beside_makes_it_a_warning_10_9(self):
        r = self._attacked(0.02, 0.23)
        assert rules(r) == set()
        [v] = [v for v in r.verdicts if v.rule == "§10.9"]
        assert v.level == "warning" and v.regions == ("mauretania", "numidia") and v.context == ("mauretania",)
        assert "Numidia, read empty at 0.02 before and as 2 green legionaries at 0.23 now" in v.message

    def test_a_province_read_empty_surely_leaves_the_violation_10_9(self):
        assert rules(self._attacked(0.99, 0.99)) == {"§10.9"}

    def test_a_province_still_read_empty_leaves_the_violation_10_9(self):
        assert rules(self._attacked(0.02, 0.23, numidia=("green", 0))) == {"§10.9"}


class TestDoubtedLossWithoutAttack:
    """Bithynia is blue's here and red has no fleet, so that Galatia is red's only way into Asia
    (blue 2). Red moves a legionary from Galatia to Cappadocia as the camera reads Asia one
    short, unsure of it. Read as red's attack on Asia from Galatia, the legionary in Cappadocia
    is a placement after the attacks; read as Asia misread, it is the strategic move it was."""

    @staticmethod
    def _moved(confidence):
        t = Table(garrisons=dict(BASE, bithynia=("blue", 8)), seas={"aegeum": {"blue": 1}})
        t.set(ponto=6).push()
        return t.set(galatia=3, cappadocia=4, asia=1).push(confidence=confidence)

    def test_a_doubted_loss_is_taken_for_a_misread_10_9(self):
        r = self._moved({"asia": 0.47})
        assert kinds(r) == [ev.STRATEGIC_MOVE] and rules(r) == set()
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§10.9", ("asia",)) and "0.47" in v.message

    def test_a_sure_loss_is_an_attack_10_9(self):
        r = self._moved({"asia": 0.95})
        assert ev.LAND_ATTACK in kinds(r) and rules(r)

    def test_the_classic_tracker_reads_it_so_too(self):
        """Red places its armies in Ukraine, then moves one from Scandinavia (red's only way into
        Iceland, yellow 3) to Ukraine as the camera reads Iceland one short."""
        from tests.test_risiko import CLASSIC, classic_board, started, st
        g = classic_board()
        game = started("classic", g, ("red", "blue", "yellow"))
        g["ucraina"] = ("red", 3 + game.ctx.entitlement)
        game.observe(st(CLASSIC, g))
        state = st(CLASSIC, dict(g, scandinavia=("red", 2), ucraina=("red", g["ucraina"][1] + 1),
                                 islanda=("yellow", 2))).to_dict()
        for confidence, misread in ((0.95, False), (0.4, True)):
            trial = copy.deepcopy(game)
            r = trial.observe(ObservedState.from_dict(dict(state, confidence={"islanda": confidence})))
            assert (ev.LAND_ATTACK not in kinds(r)) == misread
            assert [v.level for v in r.verdicts] == (["warning"] if misread else ["violation"])

    def test_a_repelled_attack_on_a_doubted_count_stays_an_attack(self):
        t = Table(garrisons=dict(BASE, bithynia=("blue", 8)), seas={"aegeum": {"blue": 1}})
        t.set(ponto=6).push()
        r = t.set(galatia=3, asia=1).push(confidence={"asia": 0.6})
        assert kinds(r) == [ev.LAND_ATTACK] and r.verdicts == []


class TestProvinceReadInAnotherColour:
    """Red places in Ponto, then takes Asia from Galatia and moves in three; the camera reads the
    legionary left in Galatia in blue's colour. Nobody else moves in red's turn: read in doubt,
    Galatia is taken for red's still, and the conquest came from there."""

    @staticmethod
    def _conquest(confidence):
        t = Table()
        t.set(ponto=6).push()
        return t.set(galatia=("blue", 1), asia=("red", 3)).push(confidence={"galatia": confidence})

    def test_a_doubted_colour_is_taken_for_the_actors_4_2(self):
        r = self._conquest(0.5)
        assert r.actor == "red" and kinds(r) == [ev.LAND_ATTACK]
        assert [(e.source, e.target) for e in r.best.events] == [("galatia", "asia")]
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§4.2", ("galatia",))
        assert "blue's colour (confidence 0.50)" in v.message and "taken for red's" in v.message

    def test_a_sure_colour_stays_as_read_4_2(self):
        r = self._conquest(0.95)
        assert "§4.2" in rules(r) and all("taken for" not in v.message for v in r.verdicts)

    def test_the_classic_tracker_reads_it_so_too(self):
        """Red places its armies in Scandinavia (red's only way into Iceland) and takes Iceland
        from there; the camera reads what is left in Scandinavia in blue's colour."""
        from tests.test_risiko import CLASSIC, classic_board, started, st
        g = classic_board()
        game = started("classic", g, ("red", "blue", "yellow"))
        entitled = game.ctx.entitlement
        g["scandinavia"] = ("red", 3 + entitled)
        game.observe(st(CLASSIC, g))
        state = st(CLASSIC, dict(g, scandinavia=("blue", entitled), islanda=("red", 3))).to_dict()
        for confidence, misread in ((0.95, False), (0.4, True)):
            trial = copy.deepcopy(game)
            r = trial.observe(ObservedState.from_dict(dict(state, confidence={"scandinavia": confidence})))
            assert [v.level for v in r.verdicts] == (["warning"] if misread else ["violation"])
            assert (r.actor == "red" and kinds(r) == [ev.LAND_ATTACK]) == misread


class TestFleetReadInAnotherColour:
    """Blue's trireme in the Aegeum, as the camera read it in doubt, was red's: red reinforces,
    then sails it to Creticum. Nobody else's fleet leaves in red's turn: read in doubt before,
    the Aegeum's fleet is taken for red's, and the change is its naval move (a rendered hard
    game, seed 101: read plainly, "red placed 3 legionaries but is entitled to 0")."""

    @staticmethod
    def _sailed(confidence, creticum=1):
        t = Table(seas={"pontus_euxinus": {"red": 2, "yellow": 2}, "aegeum": {"blue": 1}})
        t.set(bithynia=11).push(confidence={"aegeum": confidence})
        t.seas["aegeum"] = {}
        t.seas["creticum"] = {"red": creticum}
        return t.push()

    def test_a_doubted_fleet_gone_beside_the_actors_new_one_is_taken_for_the_actors(self):
        r = self._sailed(0.3)
        assert kinds(r) == [ev.NAVAL_MOVE]
        assert [(e.source, e.target, e.amount) for e in r.best.events] == [("aegeum", "creticum", 1)]
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§4.2", ("aegeum",))
        assert "Aegeum read with 1 blue trireme before (confidence 0.30)" in v.message and "taken for red's" in v.message

    def test_a_fleet_read_surely_before_stays_as_read(self):
        r = self._sailed(0.95)
        assert "§6" in rules(r) and all("taken for" not in v.message for v in r.verdicts)

    def test_a_fleet_that_grew_by_fewer_than_it_lost_takes_nothing(self):
        r = self._sailed(0.3, creticum=0)
        assert all("taken for" not in v.message for v in r.verdicts)


class TestMoveToACountReadUnchanged:
    """Red moves a legionary from Galatia (3) to Cappadocia at the end of its turn; the camera
    reads Galatia one fewer and Cappadocia as it stood. Read plainly, Galatia's loss is an attack
    on Asia repelled, which its three legionaries could not make against three (§10.13). Read
    in doubt, Cappadocia is taken to hold the legionary: a strategic move, and a warning."""

    @staticmethod
    def _moved(confidence):
        t = Table(garrisons=dict(BASE, galatia=("red", 3), asia=("blue", 3)))
        t.set(bithynia=11).push()
        return t.set(galatia=2).push(confidence={"cappadocia": confidence})

    def test_a_doubted_destination_is_read_one_more_15_1(self):
        r = self._moved(0.5)
        assert [(e.kind, e.source, e.target, e.amount) for e in r.best.events] == [
            (ev.STRATEGIC_MOVE, "galatia", "cappadocia", 1)]
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§15.1", ("cappadocia",))
        assert "Cappadocia (confidence 0.50) read unchanged" in v.message and "1 more" in v.message

    def test_a_sure_destination_leaves_the_attack_10_13(self):
        r = self._moved(0.95)
        assert kinds(r) == [ev.LAND_ATTACK] and "§10.13" in rules(r)


class TestMoveAcrossASeaToACountReadUnchanged:
    """Red moves a legionary from Asia (3) across the Aegeum, where its fleet sails, to Thracia;
    the camera reads Asia one fewer and Thracia as it stood. Read plainly, Asia's loss is an
    attack on Cilicia repelled, which its three legionaries could not make against three
    (§10.13). Read in doubt, Thracia is taken to hold the legionary, as a province beside Asia
    by land would be (above). (A rendered hard game, seed 185: Creta to Cipro.)"""

    GARRISONS = {**BASE, "asia": ("red", 3), "thracia": ("red", 3), "macedonia": ("blue", 3)}

    def _moved(self, confidence, aegeum):
        t = Table(garrisons=self.GARRISONS, seas={"aegeum": aegeum})
        t.set(bithynia=11).push()
        return t.set(asia=2).push(confidence={"thracia": confidence})

    def test_a_doubted_count_across_the_fleets_sea_is_read_one_more_15_1(self):
        r = self._moved(0.5, {"red": 2, "blue": 1})
        assert [(e.kind, e.source, e.target, e.sea, e.amount) for e in r.best.events] == [
            (ev.STRATEGIC_MOVE, "asia", "thracia", "aegeum", 1)]
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§15.1", ("thracia",))
        assert "Thracia (confidence 0.50) read unchanged as Asia across the sea from it lost 1" in v.message

    def test_no_fleet_of_the_mover_there_leaves_the_attack_10_13(self):
        r = self._moved(0.5, {"blue": 1})
        assert kinds(r) == [ev.LAND_ATTACK] and "§10.13" in rules(r)

    def test_a_sure_count_leaves_the_attack_10_13(self):
        r = self._moved(0.95, {"red": 2, "blue": 1})
        assert kinds(r) == [ev.LAND_ATTACK] and "§10.13" in rules(r)


class TestFleetSailedToASeaReadUnchanged:
    """Red reinforces, then sails a trireme from the Pontus Euxinus to the Aegeum, which the camera
    reads as it stood (blue's trireme alone). Read in doubt, the Aegeum is taken to hold red's
    trireme too, and the change is red's naval move (§9.3); read surely, the trireme left with no
    combat and no legionaries landed (§6.6). (A rendered hard game, seed 122.) No other fleet
    shares the Pontus Euxinus, so the loss is no naval combat lost."""

    SEAS = {"pontus_euxinus": {"red": 2}, "aegeum": {"blue": 1}}

    def _sailed(self, confidence, **landed):
        t = Table(seas=self.SEAS)
        t.set(bithynia=11).push()
        t.ships("pontus_euxinus", "red", 1)
        return t.set(**landed).push(confidence={"aegeum": confidence})

    def test_a_doubted_sea_beside_is_taken_to_hold_the_fleet_9_3(self):
        r = self._sailed(0.4)
        assert [(e.kind, e.source, e.target, e.amount) for e in r.best.events] == [
            (ev.NAVAL_MOVE, "pontus_euxinus", "aegeum", 1)]
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§9.3", ("aegeum",))
        assert "Aegeum (confidence 0.40)" in v.message and "taken to have sailed to Aegeum" in v.message

    def test_a_sure_sea_beside_leaves_the_violation_6_6(self):
        r = self._sailed(0.95)
        assert "§6.6" in rules(r) and all("sailed" not in v.message for v in r.verdicts)

    def test_a_fleet_read_one_short_in_a_doubted_sea_beside_is_a_warning_6_6(self):
        """The print's hard seed 343: red sailed both triremes of the Pontus Euxinus into the
        Aegeum, read as one at 0.57. One is a naval move; the other "left with no combat", which
        the doubted sea may hold."""
        t = Table(seas=self.SEAS)
        t.set(bithynia=11).push()
        t.ships("pontus_euxinus", "red", 0).ships("aegeum", "red", 1)
        r = t.push(confidence={"aegeum": 0.57})
        assert "§6.6" not in rules(r) and "§6.6" in rules(r, "warning")
        (v,) = [v for v in r.verdicts if v.rule == "§6.6"]
        assert "aegeum" in v.regions and "Aegeum (read at 0.57)" in v.message
        t = Table(seas=self.SEAS)
        t.set(bithynia=11).push()
        t.ships("pontus_euxinus", "red", 0).ships("aegeum", "red", 1)
        assert "§6.6" in rules(t.push(confidence={"aegeum": 0.95}))      # read surely, a breach

    def test_a_trireme_turned_into_legionaries_stays_so_6_6(self):
        """Two legionaries landed in Bithynia on the same shore: the plain reading explains the
        change without a warning, and is ranked first."""
        r = self._sailed(0.4, bithynia=13)
        assert kinds(r) == [ev.TRIREME_TO_LEGIONARIES] and r.verdicts == []

    def test_a_fleet_that_sailed_to_a_sea_read_so_is_a_plain_move(self):
        t = Table(seas=self.SEAS)
        t.set(bithynia=11).push()
        t.ships("pontus_euxinus", "red", 1).ships("aegeum", "red", 1)
        r = t.push(confidence={"aegeum": 0.4})
        assert kinds(r) == [ev.NAVAL_MOVE] and r.verdicts == []


class TestFleetReadGoneInDoubt:
    """Red moves a legionary from Cipro to Cilicia across the Creticum, where its trireme stands;
    the camera reads the Creticum empty. Read in doubt, the trireme is taken to stand there still
    (a §6.6 warning), so the move crosses it legally; read surely, the trireme's leaving and the
    move across the Aegeum, where blue's fleet is, are breaches. (A rendered hard game, seed 226.)"""

    @staticmethod
    def moved(confidence):
        t = Table(garrisons={**BASE, "cipro": ("red", 3), "cilicia": ("red", 2)},
                  seas={**SEAS, "creticum": {"red": 1}})
        t.set(bithynia=11).push()
        t.seas["creticum"] = {}
        return t.set(cipro=2, cilicia=3).push(confidence={"creticum": confidence})

    def test_read_in_doubt_the_fleet_stands_still_6_6(self):
        r = self.moved(0.3)
        assert [(e.kind, e.source, e.target, e.sea) for e in r.events] == [
            (ev.STRATEGIC_MOVE, "cipro", "cilicia", "creticum")]
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§6.6", ("creticum",))
        assert "Creticum read with 1 red trireme fewer (confidence 0.30)" in v.message

    def test_read_surely_it_left_and_the_move_breaks_the_rules(self):
        r = self.moved(0.9)
        assert rules(r) == {"§6.6", "§15.2"}


class TestLandingReadShortOnADoubtedShore:
    """Red reinforces, then lands a trireme of the Pontus Euxinus in Ponto (3): two legionaries
    (§6.6). The camera reads Ponto one more, or as it stood. Read in doubt, Ponto is taken to
    hold the two landed, a warning that names it; read surely, the trireme left with no combat
    and no legionaries landed (§6.6), and Ponto's one more is a placement beyond the entitlement.
    (A rendered hard game, seed 206: Baetica read one more at 0.46 as green's trireme in the
    Ibericum landed there.)"""

    SEAS = {"pontus_euxinus": {"red": 2}, "aegeum": {"blue": 1}}

    def _landed(self, confidence, gained):
        t = Table(seas=self.SEAS)
        t.set(bithynia=11).push()
        t.ships("pontus_euxinus", "red", 1)
        return t.set(ponto=3 + gained).push(confidence={"ponto": confidence})

    def test_a_doubted_shore_is_taken_to_hold_the_landing_6_6(self):
        for gained in (1, 0):
            r = self._landed(0.5, gained)
            assert [(e.kind, e.source, e.target, e.amount) for e in r.best.events] == [
                (ev.TRIREME_TO_LEGIONARIES, "pontus_euxinus", "ponto", 1)]
            [v] = r.verdicts
            assert (v.level, v.rule, v.regions) == ("warning", "§6.6", ("ponto",))
            assert f"Ponto (confidence 0.50) on its shore gained {gained}: taken to have landed in Ponto, " \
                   f"{2 - gained} more than read" in v.message

    def test_a_sure_shore_leaves_the_violation_6_6(self):
        r = self._landed(0.95, 1)
        assert "§6.6" in rules(r) and all("taken to have landed" not in v.message for v in r.verdicts)

    def test_a_landing_read_whole_is_a_plain_landing(self):
        r = self._landed(0.5, 2)
        assert kinds(r) == [ev.TRIREME_TO_LEGIONARIES] and r.verdicts == []


class TestUnseenReinforcements:
    """An attack read with too few dice, in a turn whose reinforcements are not yet placed and not
    in sight elsewhere, from a province that lost pieces or gained some: the reinforcements may
    have been placed there and lost in it, the camera committing both as one change (hard seeds
    529 and 393)."""

    def test_a_loss_both_sides_after_the_strategic_move_may_be_the_next_turn_s_attack_6(self):
        """Red ends its turn with its strategic move; then Asia (blue 2) and Galatia (red 7) each
        lose one. Read as red's act, a breach of §15.6; but blue may have placed its three in Asia
        and lost four of the five attacking Galatia with them, which the camera committed as one
        change: the turn is blue's, and the table is told its reinforcements were not seen."""
        t = Table()
        t.set(bithynia=5, galatia=7).push()
        r = t.set(asia=1, galatia=6).push()
        assert r.actor == "blue" and r.turn_changed and rules(r) == set()
        assert [(e.kind, e.source, e.target, e.amount, e.attacker_losses, e.defender_losses) for e in r.events] == [
            (ev.REINFORCEMENT, None, "asia", 3, 0, 0), (ev.LAND_ATTACK, "asia", "galatia", 0, 4, 1)]
        [v] = r.verdicts
        assert (v.level, v.rule) == ("warning", "§6")
        assert "3 of blue's reinforcements were not seen: taken as placed in Asia and lost with the others" in v.message

    def test_a_conquest_from_a_province_that_gained_one_10_13(self):
        """Red takes Asia (blue 3) from Galatia (2), moving two in; Galatia is read one short, so
        one placed there shows and two do not: read with all three placed, Galatia rolled three
        dice. With its reinforcements already placed, the breach stands."""
        garrisons = {**BASE, "galatia": ("red", 2), "asia": ("blue", 3)}
        t = Table(garrisons=garrisons)
        r = t.set(galatia=1, asia=("red", 2)).push()
        assert rules(r) == set() and t.game.ctx.placed == 3
        [v] = r.verdicts
        assert "2 of red's reinforcements were not seen: taken as placed in Galatia" in v.message
        attack = next(e for e in r.events if e.kind == ev.LAND_ATTACK)
        assert (attack.source, attack.attacker_losses, attack.defender_losses, attack.conquered) == (
            "galatia", 2, 3, True)
        t = Table(garrisons=garrisons)
        t.set(bithynia=11).push()
        assert "§10.13" in rules(t.set(galatia=1, asia=("red", 2)).push())

    def test_a_whole_turn_read_inside_one_change_shows_its_reinforcements_10_13(self):
        """Where the change is read as a whole turn beside the next one's start (the context's
        ``unseen_reinforcements`` off), the story is not told: a property test found it reading
        another player's legal attack as that turn, to excuse a bystander's pieces."""
        from dataclasses import replace
        from tracker.spqrisiko.explain import explain
        t = Table(garrisons={**BASE, "galatia": ("red", 2), "asia": ("blue", 3)})
        prev, nxt = t.state(), t.set(galatia=1, asia=("red", 2)).state()
        for allowed in (True, False):
            best = explain(prev, nxt, replace(t.game.ctx, unseen_reinforcements=allowed), PLAYERS)[0]
            assert ("§10.13" in {v.rule for v in best.verdicts if v.level == "violation"}) != allowed

    def test_reinforcements_seen_elsewhere_leave_the_breach_standing_10_13(self):
        t = Table(garrisons={**BASE, "galatia": ("red", 2), "asia": ("blue", 3)})
        r = t.set(galatia=1, asia=("red", 2), bithynia=9).push()
        assert "§10.13" in rules(r) and "not seen" not in " ".join(v.message for v in r.verdicts)


class TestMoveFromACountReadUnchanged:
    """Red places in Ponto, then moves a legionary from Galatia to Cappadocia; the camera reads
    Cappadocia one more but Galatia as it stood. Read in doubt, Galatia is taken for the move's
    source, one fewer; read surely, the legionary is a placement beyond red's entitlement."""

    @staticmethod
    def _moved(confidence):
        t = Table()
        t.set(ponto=6).push()
        return t.set(cappadocia=4).push(confidence={"galatia": confidence})

    def test_a_doubted_source_is_read_one_fewer_15_1(self):
        r = self._moved(0.5)
        assert [(e.kind, e.source, e.target, e.amount) for e in r.best.events] == [
            (ev.STRATEGIC_MOVE, "galatia", "cappadocia", 1)]
        [v] = r.verdicts
        assert (v.level, v.rule, v.regions) == ("warning", "§15.1", ("galatia",))
        assert "Galatia (confidence 0.50) read unchanged" in v.message and "1 fewer" in v.message

    def test_a_sure_source_leaves_a_placement_6(self):
        # Galatia read as it stood, at its confidence before: no hand was over it
        r = self._moved(1.0)
        assert kinds(r) == [ev.REINFORCEMENT] and "§6" in rules(r)
        # counted again (another confidence) as it stood, Galatia may still have lost the legionary:
        # the placement stands, its breach a warning naming Galatia (test_hindsight's
        # TestOneOffUnderAHand)
        r = self._moved(0.95)
        [v] = r.verdicts
        assert kinds(r) == [ev.REINFORCEMENT] and (v.level, v.rule) == ("warning", "§6")
        assert "Galatia read as 4 red legionaries at 0.95; as 3 red legionaries" in v.message

    def test_a_legal_placement_beside_a_doubted_province_stays_a_placement(self):
        t = Table()
        r = t.set(cappadocia=6).push(confidence={"galatia": 0.5})
        assert kinds(r) == [ev.REINFORCEMENT] and r.verdicts == []

    def test_a_misread_colour_is_read_without_a_false_move_beside_it(self):
        """Red places three in Ponto and takes Asia from Galatia, whose last legionary the camera
        reads blue; Cappadocia beside Ponto is read in doubt too, unchanged (rightly). Each kind of
        misread is read on its own board: the attack from Galatia with the placement, not with a
        move from Cappadocia that never was."""
        t = Table(garrisons=dict(BASE, cappadocia=("red", 5)))
        r = t.set(ponto=6, galatia=("blue", 1), asia=("red", 3)).push(confidence={"galatia": 0.5, "cappadocia": 0.5})
        assert [(e.kind, e.source, e.target) for e in r.best.events] == [
            (ev.REINFORCEMENT, None, "ponto"), (ev.LAND_ATTACK, "galatia", "asia")]
        assert [(v.level, v.rule, v.regions) for v in r.verdicts] == [("warning", "§4.2", ("galatia",))]

    def test_the_classic_tracker_reads_it_so_too(self):
        """Red places its armies in Scandinavia, then moves two to Ukraine; the camera reads
        Scandinavia as it stood."""
        from tests.test_risiko import CLASSIC, classic_board, started, st
        g = classic_board()
        game = started("classic", g, ("red", "blue", "yellow"))
        g["scandinavia"] = ("red", 3 + game.ctx.entitlement)
        game.observe(st(CLASSIC, g))
        state = st(CLASSIC, dict(g, ucraina=("red", 5))).to_dict()
        for confidence, misread in ((0.95, False), (0.4, True)):
            trial = copy.deepcopy(game)
            r = trial.observe(ObservedState.from_dict(dict(state, confidence={"scandinavia": confidence})))
            assert (kinds(r) == [ev.STRATEGIC_MOVE]) == misread
            assert [(v.level, v.rule) for v in r.verdicts] == (
                [("warning", "classic: spostamento")] if misread else [("violation", "classic: rinforzi")])


class TestPhaseEndedOnADoubtedCount:
    """Red places, then Asia (blue, beside Galatia) is read one short with no loss of red's: read as
    red's attack, which ends the reinforcement phase. Red then turns three legionaries of Bithynia
    into a trireme. Where the camera read Asia's loss surely, that is a breach of the phases'
    order (§4.2); where it read it below ONE_OFF_BELOW, the attack may be its misread, and the
    breach is a warning that asks the table to check Asia. (A rendered hard game, seed 147.)"""

    @staticmethod
    def _attacked(confidence, placed=3):
        t = Table()
        t.set(bithynia=8 + placed).push()
        r = t.set(asia=1).push(confidence={"asia": confidence})
        assert kinds(r) == [ev.LAND_ATTACK] and r.verdicts == []
        return t

    @staticmethod
    def _converted(t):
        t.ships("pontus_euxinus", "red", 3)
        return t.set(bithynia=8).push()

    def test_after_a_sure_attack_it_is_a_breach_4_2(self):
        r = self._converted(self._attacked(0.99))
        assert kinds(r) == [ev.LEGIONARIES_TO_TRIREME]
        [v] = r.verdicts
        assert (v.level, v.rule) == ("violation", "§4.2") and "outside the reinforcement phase" in v.message

    def test_after_a_doubted_attack_it_names_the_count_4_2(self):
        t = self._attacked(0.9)
        r = self._converted(t)
        assert kinds(r) == [ev.LEGIONARIES_TO_TRIREME]
        [v] = r.verdicts
        assert (v.level, v.rule) == ("warning", "§4.2") and "asia" in v.regions
        assert "outside the reinforcement phase" in v.message and "Asia at 0.90" in v.message
        assert "asia" in t.game.questioned         # the dashboard marks the count for a check

    def test_a_sure_attack_since_ends_the_phase_for_sure(self):
        t = self._attacked(0.9)
        r = t.set(asia=("red", 3), galatia=1).push()
        assert kinds(r) == [ev.LAND_ATTACK] and r.verdicts == []
        [v] = self._converted(t).verdicts
        assert (v.level, v.rule) == ("violation", "§4.2")

    def test_an_attack_that_cost_its_source_nothing_rests_on_its_target_4_2(self):
        """Red places one more in Galatia as Cilicia (blue, beside Galatia alone) is read one
        short, Cilicia read at 0.62 before: red's attack from Galatia, which lost nothing, rests
        on Cilicia alone, not on Galatia's sure placement, so the conversion after it is a
        warning that names Cilicia. (A rendered hard game, seed 234: Moesia and Dacia.)"""
        t = Table(garrisons={**BASE, "cilicia": ("blue", 3), "cappadocia": ("blue", 3)})
        t.set(galatia=6).push(confidence={"cilicia": 0.62})
        r = t.set(galatia=7, cilicia=2).push()
        assert kinds(r) == [ev.REINFORCEMENT, ev.LAND_ATTACK] and r.events[1].source == "galatia"
        t.ships("pontus_euxinus", "red", 3)
        [v] = t.set(bithynia=5).push().verdicts
        assert (v.level, v.rule) == ("warning", "§4.2") and "Cilicia at 0.62" in v.message

    def test_a_doubted_strategic_move_leaves_a_warning_15_6(self):
        t = Table()
        t.set(bithynia=11).push()
        r = t.set(bithynia=10, galatia=5).push(confidence={"bithynia": 0.9, "galatia": 0.85})
        assert kinds(r) == [ev.STRATEGIC_MOVE]
        [v] = t.set(asia=1).push().verdicts
        assert (v.level, v.rule) == ("warning", "§15.6")
        assert {"bithynia", "galatia"} <= set(v.regions) and "Bithinya at 0.90, Galatia at 0.85" in v.message

    def test_a_misread_that_needs_no_breach_comes_first(self):
        """Red placed two of its three, then the camera reads Cappadocia one more and Galatia beside
        it unchanged, in doubt: read as a late placement, excused by the doubted attack, or as a
        move from Galatia that the camera missed. The move costs a warning; the excused breach
        half a violation (PHASE_DOUBT_COST), so the move comes first. (A rendered hard game, seed
        126: red's strategic move from Belgica.)"""
        t = self._attacked(0.9, placed=2)
        r = t.set(cappadocia=4).push(confidence={"galatia": 0.5})
        assert [(e.kind, e.source, e.target) for e in r.best.events] == [(ev.STRATEGIC_MOVE, "galatia", "cappadocia")]
        assert [(v.level, v.rule) for v in r.verdicts] == [("warning", "§15.1")]


class TestTurnsAndScore:
    def test_next_players_reinforcements_start_their_turn_5(self):
        t = Table()
        t.set(bithynia=11).push()
        r = t.set(thracia=6).push()
        assert r.actor == "blue" and r.turn_changed
        assert [s.colour for s in r.scores] == ["blue"]
        assert kinds(r) == [ev.REINFORCEMENT] and r.verdicts == []

    def test_round_advances_after_the_last_player(self):
        t = Table(round_no=5)
        t.set(bithynia=11).push()
        t.set(thracia=6).push()
        t.set(moesia=6).push()
        r = t.set(galatia=7).push()
        assert (r.actor, r.round_no) == ("red", 6)

    def test_score_track_and_target_4_3_1(self):
        garrisons = {**BASE, **{p: ("red", 2) for p in ("armenia", "mesopotamia", "syria", "judea", "arabia")}}
        game = Game(PLAYERS, target_vp=1)
        game.start(make_state(garrisons, SEAS, fill="green"), first_player="red", round_no=5)
        assert game.vp["red"] >= 1 and game.winner == "red"

    def test_turn_hint_from_the_tablet_wins(self):
        t = Table()
        r = t.set(moesia=4).push(turn="yellow")   # 2 provinces: 1 legionary
        assert r.actor == "yellow" and rules(r) == set()

    def test_ambiguous_source_is_ranked_and_said(self):
        t = Table(garrisons={**BASE, "galatia": ("red", 6), "bithynia": ("red", 6)})
        r = t.set(asia=1).push()
        assert len(r.readings) >= 2
        assert r.readings[0].cost <= r.readings[1].cost


class TestTurnsInOneChange:
    """The camera committed nothing between the last moves of a turn and the first of the next
    (the next hand came in before the board was still long enough, or a card hid the moves)."""

    @staticmethod
    def unsplit(monkeypatch):
        monkeypatch.setattr(TurnFollower, "_split_turn", lambda self, prev, state, last, hinted=False: None)

    def test_a_repelled_attack_and_the_next_players_reinforcements(self, monkeypatch):
        """Red attacks Asia from Galatia and loses 2; blue places its legionary in Thracia."""
        t = Table()
        t.set(bithynia=11).push()
        r = t.set(galatia=2, thracia=4).push()
        assert (r.actor, r.turn_changed) == ("blue", True) and r.verdicts == []
        assert [(e.kind, e.actor) for e in r.events] == [(ev.LAND_ATTACK, "red"), (ev.REINFORCEMENT, "blue")]
        assert [s.colour for s in r.scores] == ["blue"] and t.game.current == "blue"
        self.unsplit(monkeypatch)
        t = Table()
        t.set(bithynia=11).push()
        assert rules(t.set(galatia=2, thracia=4).push())                # read whole: a breach either way

    def test_a_move_before_the_next_turn_in_the_same_change_is_the_ending_turns(self):
        t = Table()
        t.set(bithynia=10, cappadocia=4).push()
        r = t.set(cappadocia=3, galatia=5, thracia=4).push()
        assert r.verdicts == [] and r.actor == "blue"
        assert [(e.kind, e.actor, e.source, e.target) for e in r.events] == [
            (ev.STRATEGIC_MOVE, "red", "cappadocia", "galatia"), (ev.REINFORCEMENT, "blue", None, "thracia")]

    def test_the_next_turn_claims_its_points_on_the_board_it_began_on_5(self):
        """Red takes Asia, then blue reinforces: blue's claim and entitlement are on the board
        without Asia, as they were when blue's turn began."""
        t = Table()
        t.set(bithynia=11).push()
        between = t.set(asia=("red", 3), bithynia=8).state()
        r = t.set(thracia=4).push()
        assert r.verdicts == [] and [e.kind for e in r.events][0] == ev.LAND_ATTACK
        [claim] = r.scores
        assert claim.colour == "blue" and claim.score == t.game.score("blue", between)
        assert t.game.ctx.entitlement == entitlement(between, "blue").total

    def test_a_whole_turn_under_a_card_then_the_next_players_reinforcements(self, monkeypatch):
        """Blue's whole turn (a legionary placed in Thracia) and yellow's first legionary in Moesia."""
        t = Table()
        t.set(bithynia=11).push()
        r = t.set(thracia=4, moesia=4).push()
        assert (r.actor, r.verdicts) == ("yellow", [])
        assert [s.colour for s in r.scores] == ["blue", "yellow"] and t.game.turn_no == 3
        assert [(e.kind, e.actor) for e in r.events] == [(ev.REINFORCEMENT, "blue"), (ev.REINFORCEMENT, "yellow")]
        self.unsplit(monkeypatch)
        t = Table()
        t.set(bithynia=11).push()
        assert "§4.2" in rules(t.set(thracia=4, moesia=4).push())

    def test_a_whole_turn_out_of_sight_then_the_next_players_reinforcements(self):
        """Blue's turn shows nothing: a card lies over Thracia, blue's, where it may have been
        played. Yellow's legionary in Dacia begins yellow's turn after it. With the whole board in
        sight, a turn that shows nothing did not happen, and the legionary is out of turn."""
        t = Table()
        t.set(bithynia=11).push()
        covered = ObservedState.from_dict(dict(t.set(dacia=3).state().to_dict(), unseen=["thracia"]))
        r = t.game.observe(covered)
        assert (r.actor, r.verdicts) == ("yellow", []) and [s.colour for s in r.scores] == ["blue", "yellow"]
        t = Table()
        t.set(bithynia=11).push()
        assert "§4.2" in rules(t.set(dacia=3).push())

    def test_the_next_turn_may_open_out_of_sight(self):
        """Red ends its turn with a strategic move. Thracia, blue's, then loses two legionaries:
        blue's attack on Moesia, repelled, with blue's reinforcements placed under the card that
        lies over Macedonia, blue's too. With the whole board in sight a turn opens with
        reinforcements, so the loss is red's doing after its strategic move: a breach either way.
        (A rendered hard game on the print, seed 512: yellow's first attack of its turn, with its
        reinforcements in Arabia under a cover, read as blue's act after its strategic move.)"""
        strong = dict(BASE, thracia=("blue", 6))
        t = Table(garrisons=strong)
        t.set(galatia=2, cappadocia=5).push()
        assert [e.kind for e in t.game.history[-1].events] == [ev.STRATEGIC_MOVE]
        covered = ObservedState.from_dict(dict(t.set(thracia=4).state().to_dict(), unseen=["macedonia"]))
        r = t.game.observe(covered)
        assert (r.actor, r.verdicts) == ("blue", []) and [s.colour for s in r.scores] == ["blue"]
        assert [(e.kind, e.actor, e.source) for e in r.events] == [(ev.LAND_ATTACK, "blue", "thracia")]
        t = Table(garrisons=strong)
        t.set(galatia=2, cappadocia=5).push()
        assert rules(t.set(thracia=4).push())

    def test_after_the_players_card_a_change_without_them_is_no_part_of_their_turn(self):
        """Red takes Asia and draws its card, which ends its turn; blue's turn goes by under a
        card over Thracia, and yellow's legionary in Dacia is read in doubt. Read as red's turn
        going on, the legionary is a doubtful warning and the tracker stays a turn behind; red
        does nothing in the change, so after its card that reading costs a breach, and the change
        is yellow's, after blue's turn unseen. Without the card, red's turn goes on as before.
        (The print's hard seed 170.)"""
        for drawn in (True, False):
            t = Table()
            t.set(bithynia=11).push()
            t.set(asia=("red", 3), galatia=1).push()
            if drawn:
                t.game.draw_card("red")
            seen = t.set(dacia=3).state().to_dict()
            r = t.game.observe(ObservedState.from_dict(dict(seen, unseen=["thracia"], confidence={"dacia": 0.5})))
            if drawn:
                assert (r.actor, r.verdicts) == ("yellow", []) and [s.colour for s in r.scores] == ["blue", "yellow"]
            else:
                assert r.actor == "red" and [v.rule for v in r.verdicts] == ["§4.2"]

    def test_after_the_players_card_and_a_late_move_of_theirs_still_no_part_of_their_turn(self):
        """As above, but red's strategic move, made before its card, is committed after it and
        read in red's turn; the change after that, without red, is still no part of red's turn
        (the print's hard seed 177: second thoughts had taken the next turn back into the
        drawer's, and three turns were then read in it)."""
        t = Table()
        t.set(bithynia=11).push()
        t.set(asia=("red", 3), galatia=1).push()
        t.game.draw_card("red")
        r = t.set(bithynia=10, ponto=4).push()
        assert r.actor == "red" and kinds(r) == [ev.STRATEGIC_MOVE] and r.verdicts == []
        seen = t.set(dacia=3).state().to_dict()
        r = t.game.observe(ObservedState.from_dict(dict(seen, unseen=["thracia"], confidence={"dacia": 0.5})))
        assert (r.actor, r.verdicts) == ("yellow", []) and [s.colour for s in r.scores] == ["blue", "yellow"]

    @staticmethod
    def _yellow_sails(asia=None):
        """Red attacks Asia; then yellow's fleet sails from the Pontus Euxinus to the Aegeum and
        sinks blue's trireme there, blue's turn and yellow's reinforcements not seen between."""
        t = Table()
        t.set(bithynia=11).push()
        t.set(asia=1).push()
        t.seas["pontus_euxinus"]["yellow"] = 1
        t.seas["aegeum"] = {"yellow": 1}
        return t, t.push(confidence={"asia": asia} if asia else None)

    def test_a_whole_turn_read_in_doubt_then_the_next_but_one_player_moves(self):
        """Blue's turn shows nothing the camera is sure of (Asia, blue's, read in doubt), and
        yellow's first move seen is its fleet's: read in red's turn it breaks the rules three times
        over, or twice as a split turn, and the tracker stays two turns behind. Read as yellow's
        turn after blue's passed unseen, it breaks none."""
        t, r = self._yellow_sails(asia=0.3)
        assert (r.actor, r.verdicts, t.game.current) == ("yellow", [], "yellow")
        assert [s.colour for s in r.scores] == ["blue", "yellow"]
        assert [(e.kind, e.actor, e.source, e.target) for e in r.events] == [
            (ev.NAVAL_MOVE, "yellow", "pontus_euxinus", "aegeum"), (ev.NAVAL_COMBAT, "yellow", None, "aegeum")]

    def test_a_turn_never_passes_unseen_where_the_camera_is_sure_of_that_player(self):
        t, r = self._yellow_sails()
        assert [e.kind for e in r.events if e.kind == ev.NAVAL_MOVE] == [] and rules(r)

    def test_a_card_set_entered_for_the_next_player_before_the_last_move_was_committed_8(self):
        """Blue enters a card set at the tablet (its turn begins there) before the camera has
        committed red's conquest of Asia; the commit shows the conquest and blue's placement. The
        conquest is red's, and blue's claim and entitlement are taken again on the board without
        Asia, where blue's turn began."""
        t = Table()
        t.set(bithynia=11).push()
        t.game.hands["blue"].count = 3
        assert t.game.play_cards("blue", ["legionary"] * 3) == [] and t.game.current == "blue"
        between = t.set(asia=("red", 3), bithynia=8).state()
        due = entitlement(between, "blue").total + t.game.ctx.card_legionaries
        r = t.set(thracia=3 + due).push()
        assert r.verdicts == [] and r.actor == "blue"
        assert [(e.kind, e.actor) for e in r.events] == [(ev.LAND_ATTACK, "red"), (ev.REINFORCEMENT, "blue")]
        [claim] = r.scores
        assert claim.score == t.game.score("blue", between) and t.game.vp["blue"] == claim.total_after
        assert [e.colour for e in t.game.score_track].count("blue") == 1

    def test_a_gain_of_the_next_player_the_camera_doubts_does_not_end_the_turn(self):
        t = Table()
        t.set(bithynia=10, cappadocia=4).push()
        r = t.set(cappadocia=3, galatia=5, thracia=4).push(confidence={"thracia": LOW_CONFIDENCE / 2})
        assert (r.actor, r.turn_changed) == ("red", False) and "§4.2" in rules(r, "warning")

    def test_the_tablet_saying_whose_turn_it_is_still_allows_it(self):
        t = Table()
        t.set(bithynia=11).push()
        r = t.set(galatia=2, thracia=4).push("blue")
        assert r.actor == "blue" and r.verdicts == [] and [e.actor for e in r.events] == ["red", "blue"]
        t = Table()
        t.set(bithynia=11).push()
        r = t.set(galatia=2, thracia=4).push("red")                   # the tablet says red goes on
        assert r.actor == "red" and not r.turn_changed


class TestStrategicMoveBySea:
    # Ponto and Bithynia both border the Pontus Euxinus but are also land neighbours; Asia and
    # Cilicia share the Aegeum only (Cilicia is green here, so use Asia <-> Thracia for red).
    GARRISONS = {**BASE, "asia": ("red", 6), "thracia": ("red", 3), "macedonia": ("blue", 3)}

    def test_across_a_sea_with_superiority_15_2(self):
        t = Table(garrisons=self.GARRISONS, seas={"aegeum": {"red": 2, "blue": 1}})
        r = t.set(asia=2, thracia=7).push()
        assert kinds(r) == [ev.STRATEGIC_MOVE] and r.events[0].sea == "aegeum" and rules(r) == set()

    def test_across_a_sea_without_superiority_15_2(self):
        t = Table(garrisons=self.GARRISONS, seas={"aegeum": {"red": 1, "blue": 1}})
        r = t.set(asia=2, thracia=7).push()
        assert "§15.2" in rules(r)

    def test_across_a_sea_the_camera_doubts_15_2(self):
        """A rendered hard game (seed 465): green built a trireme in the Pontus Euxinus that the
        camera missed, read empty at 0.83 and held in doubt on the tablet; its strategic move
        across that sea, read surely at both ends, stood as a sure breach of §15.2."""
        t = Table(garrisons=self.GARRISONS, seas={"aegeum": {"red": 1, "blue": 1}})
        t.set(bithynia=11).push(confidence={"aegeum": 0.5})
        r = t.set(asia=2, thracia=7).push(confidence={"aegeum": 0.5})
        assert kinds(r) == [ev.STRATEGIC_MOVE] and "§15.2" not in rules(r) and "§15.2" in rules(r, "warning")
        assert "aegeum" in t.game.questioned


class TestSetupObservation:
    def _empty(self, extra=None):
        from tracker.state import ObservedState
        from tracker.board import load_board
        return ObservedState.from_summary(load_board(), extra or {})

    def test_whole_setup_then_first_turn_3_7_3_9(self):
        import random
        from tracker.spqrisiko.setup import random_setup
        from tracker.spqrisiko.setup_turns import in_turns
        players = ("red", "blue", "yellow", "green")
        final = random_setup(self._empty().board, players, random.Random(5))
        game = Game(players)
        assert game.begin_setup(self._empty({"italia": (final.owners["italia"], 3)})) == []
        placed = {"italia": (final.owners["italia"], 3)}
        armies = {c: sorted(p for p in final.provinces_of(c) if p != "italia") for c in game.plan.shares}
        for _, p in in_turns(armies, game.plan):
            placed[p] = (final.owners[p], final.legions[p])
            events, verdicts = game.observe_setup(self._empty(placed))
            assert verdicts == [] and [e.target for e in events] == [p]
        assert game.current == "red" and game.turn_no == 1

    def test_bad_placements_3_7_and_3_4(self):
        game = Game(("red", "blue", "yellow", "green"))
        # the bare board: the players have yet to put Italia's group on it (a film opening on the
        # calibration's empty board); the first pair placed without it is a breach
        assert game.begin_setup(self._empty()) == []
        _, verdicts = game.observe_setup(self._empty({"baetica": ("red", 2)}))
        assert {v.rule for v in verdicts} == {"§3.4"}
        # said once: the next commit without Italia's group is judged on its own placements
        _, verdicts = game.observe_setup(self._empty({"baetica": ("red", 2), "galicia": ("black", 3)}))
        assert verdicts == []
        _, verdicts = game.observe_setup(self._empty({"italia": ("black", 3), "baetica": ("red", 3)}))
        assert {v.rule for v in verdicts} == {"§3.7"}
        # read gone again: said again
        _, verdicts = game.observe_setup(self._empty({"baetica": ("red", 3)}))
        assert {v.rule for v in verdicts} == {"§3.4"}
        # a first board filmed once the set-up had begun without it: said at once
        late = Game(("red", "blue", "yellow", "green"))
        assert {v.rule for v in late.begin_setup(self._empty({"baetica": ("red", 2)}))} == {"§3.4"}

    def _finished(self, players=("red", "blue", "yellow"), seed=5):
        import random
        from tracker.spqrisiko.setup import random_setup
        return random_setup(self._empty().board, players, random.Random(seed))

    def _less(self, state, provinces, confidence=None):
        """``state`` without the armies of ``provinces`` (piles the camera missed, or not placed yet)."""
        from tracker.state import ObservedState
        d = state.to_dict()
        for p in provinces:
            d["regions"].pop(p)
        d["confidence"] = dict(confidence or {})
        return ObservedState.from_dict(d)

    def test_which_boards_are_a_setup_under_way(self):
        from tracker.state import ObservedState
        from tracker.spqrisiko.setup import SETUP_MISSES, setup_under_way
        final = self._finished()
        held = sorted(final.owners)
        assert setup_under_way(self._empty())                                   # the empty board
        assert setup_under_way(self._less(final, held[:20]))                    # half placed
        assert not setup_under_way(final)                                       # done
        assert not setup_under_way(self._less(final, held[:SETUP_MISSES]))     # done, piles missed
        assert setup_under_way(self._less(final, held[:SETUP_MISSES + 1]))
        d = self._less(final, held[:20]).to_dict()
        d["regions"]["aegeum"] = {"red": {"trireme": 1}}                        # a fleet: a game on
        assert not setup_under_way(ObservedState.from_dict(d))

    def test_setup_followed_ends_when_every_province_is_held(self):
        final = self._finished()
        held = sorted(final.owners)
        game = Game(("red", "blue", "yellow"))
        game.begin_setup(self._empty())
        assert game.placing and game.setup_over(self._less(final, held[:1])) is None
        assert game.setup_over(final) == "now"
        assert [e.target for e in game.setup_placements(self._less(final, held[:2]), final)] == held[:2]

    def test_first_turn_on_a_setup_read_with_a_pile_missed(self):
        from tracker.state import ObservedState
        final = self._finished()
        missed = sorted(final.owners)[0]
        game = Game(("red", "blue", "yellow"))
        game.begin_setup(self._empty())
        game.observe_setup(self._less(final, [missed]))
        assert game.placing
        own = next(p for p, c in sorted(final.owners.items()) if c == "red" and p != missed)
        d = self._less(final, [missed]).to_dict()
        d["regions"][own] = {"red": {"legionary": 5}}        # red's reinforcements on a held province
        assert game.setup_over(ObservedState.from_dict(d)) == "before"

    def test_pieces_added_to_a_held_province_mid_setup_break_3_7(self):
        from tracker.state import ObservedState
        final = self._finished()
        held = sorted(final.owners)
        game = Game(("red", "blue", "yellow"))
        game.begin_setup(self._empty())
        half = self._less(final, held[20:])
        game.observe_setup(half)
        d = half.to_dict()
        d["regions"][held[0]] = {final.owners[held[0]]: {"legionary": 4}}
        more = ObservedState.from_dict(d)
        assert game.setup_over(more) is None           # still the set-up's: many provinces are free
        _, verdicts = game.observe_setup(more)
        assert [(v.rule, v.level) for v in verdicts] == [("§3.7", "violation")]

    def test_a_held_province_read_in_another_army_mid_setup_is_a_misreading(self):
        """Nobody clears an army off a province during the set-up (§3.7): a province read as one
        army's and then another's was misread once; a warning, not pieces put on it."""
        from tracker.state import ObservedState
        game = Game(("red", "blue", "yellow"))
        game.begin_setup(self._empty())
        game.observe_setup(self._empty({"cilicia": ("black", 3)}))
        _, verdicts = game.observe_setup(ObservedState.from_dict(
            {"regions": {"cilicia": {"blue": {"legionary": 2}}}, "confidence": {"cilicia": 0.95}}))
        assert [(v.rule, v.level) for v in verdicts if v.regions == ("cilicia",)] == [("§3.7", "warning")]
        assert "read as black's and now as blue's" in verdicts[0].message

    def test_the_rules_vouch_for_placements_read_as_made(self):
        from tracker.state import ObservedState
        from tracker.spqrisiko.setup import vouched_placements
        game = Game(("red", "blue", "yellow"))
        regions = {"baetica": {"red": {"legionary": 2}}, "galicia": {"green": {"legionary": 3}},
                   "italia": {"blue": {"legionary": 3}}}
        state = ObservedState.from_dict({"board": "spqrisiko", "regions": regions, "unseen": []})
        assert vouched_placements(state, game.plan) == {"baetica", "galicia"}      # blue's 3 is no placement
        too_many = dict(regions, **{p: {"red": {"legionary": 2}} for p in sorted(game.board.provinces)[:10]})
        assert vouched_placements(ObservedState.from_dict({"board": "spqrisiko", "regions": too_many}),
                                  game.plan) == set()        # red over its share of 9: a colour misread somewhere

    def test_a_breach_in_the_setup_rests_on_the_new_reading_alone(self):
        """Every free province reads doubtfully (none is free once the game is on): that doubt
        before a placement does not soften its breach; a doubtful reading of the placement does."""
        from tracker.state import ObservedState
        free = {p: 0.15 for p in self._empty().board.provinces}
        for sure, level in ((0.95, "violation"), (0.5, "warning")):
            game = Game(("red", "blue", "yellow"))
            game.begin_setup(ObservedState.from_dict({"board": "spqrisiko", "regions": {}, "confidence": free}))
            placed = ObservedState.from_dict({"board": "spqrisiko", "regions": {"baetica": {"red": {"legionary": 3}}},
                                              "confidence": dict(free, baetica=sure)})
            _, verdicts = game.observe_setup(placed)
            assert [(v.rule, v.level) for v in verdicts] == [("§3.7", level)]


class TestPlacementsSettled:
    """§3.7 fixes the count of each placement (``tracker.spqrisiko.setup.settle_placements``)."""

    def boards(self, read, unseen=()):
        from tracker.state import ObservedState
        before = {"baetica": {"red": {"legionary": 2}}}
        return (ObservedState.from_dict({"regions": before}),
                ObservedState.from_dict({"regions": dict(before, **read), "unseen": list(unseen)}))

    def plan(self):
        return Game(("red", "blue", "yellow")).plan

    def test_a_new_placement_read_a_piece_or_two_off_takes_its_count(self):
        from tracker.spqrisiko.setup import settle_placements
        prev, state = self.boards({"galicia": {"green": {"legionary": 4}}, "italia": {"blue": {"legionary": 1}},
                                   "sicilia": {"red": {"legionary": 2}}})
        assert settle_placements(prev, state, self.plan()) == {
            "galicia": ({"green": {"legionary": 4}}, {"green": {"legionary": 3}}),
            "italia": ({"blue": {"legionary": 1}}, {"blue": {"legionary": 2}})}

    def test_what_the_rules_leave_alone(self):
        from tracker.spqrisiko.setup import settle_placements
        for read, unseen in (({"galicia": {"green": {"legionary": 6}}}, ()),                 # 3 off: placed so
                             ({"galicia": {"green": {"legionary": 2, "vexillum": 1}}}, ()),  # a vexillum read
                             ({"galicia": {"green": {"legionary": 4}}}, ("galicia",)),      # not seen
                             ({"baetica": {"red": {"legionary": 3}}}, ())):                 # held before
            prev, state = self.boards(read, unseen)
            assert settle_placements(prev, state, self.plan()) == {}, read


class TestTimeLimit:
    def test_leader_wins_when_time_is_up_2_5(self):
        t = Table()
        t.game.vp.update({"red": 5, "blue": 7, "yellow": 7})
        assert t.game.time_up() == ["blue", "yellow"] and t.game.winner is None
        t.game.vp["yellow"] = 8
        assert t.game.time_up() == ["yellow"] and t.game.winner == "yellow"


class TestQuestionedCounts:
    """Counts a rule questioned stay marked for a check while the camera reads them so
    (``Game.questioned``, ``tracker.overrides.to_check``): the verdict is shown once, the
    misread would otherwise stand unmarked for the rest of the game."""

    def test_a_sure_count_that_breaks_a_rule_stays_marked_until_it_changes(self):
        t = Table()
        t.set(bithynia=11).push()
        assert t.game.questioned == {}                   # a legal reinforcement questions nothing
        refused = t.set(moesia=6).push(confidence={"moesia": 0.95})
        assert "§4.2" in {v.rule for v in refused.verdicts if v.level == "violation"}
        assert t.game.questioned == {"moesia": {"yellow": {"legionary": 6}}}
        quiet = t.push()                                  # another commit: Moesia still reads 6
        assert quiet.verdicts == [] and set(t.game.questioned) == {"moesia"}
        t.set(moesia=7).push(confidence={"moesia": 0.95})    # read otherwise: the old question is moot
        assert t.game.questioned.get("moesia") != {"yellow": {"legionary": 6}}

    def test_only_the_regions_a_verdict_rests_on_are_marked(self):
        """A sea attack names the seas whose triremes it needed; they did not change, so they
        are its context, not a count to check."""
        from tracker.readings import verdict_basis
        from tracker.verdicts import Verdict
        v = Verdict.violation("§12.2", "attacked by sea without more triremes", ("mauretania", "ibericum"))
        assert verdict_basis(v, {"mauretania", "numidia"}) == ["mauretania"]
        assert verdict_basis(v, {"numidia"}) == ["mauretania", "ibericum"]      # nothing it names changed

    def test_a_second_thought_asks_for_no_check_of_a_count_now_read_clearly(self):
        """It changes the past; the table can only check the count it sees now, which the camera
        reads clearly and the second thought takes as read. (Moesia, read as 6 surely, would
        have been questioned by its breach had it stayed so.)"""
        t = Table()
        t.set(bithynia=11).push()
        t.set(moesia=6).push(confidence={"moesia": 0.95})
        assert "moesia" in t.game.questioned
        report = t.set(moesia=3, thracia=2).push()
        assert any("second thoughts" in v.message and v.regions == ("moesia",) for v in report.verdicts)
        assert t.game.questioned == {}

    def test_a_breach_of_the_phases_order_only_a_doubted_move_made_asks_for_that_count(self):
        """Galatia read one fewer in doubt (an attack repelled, ending red's reinforcements), then
        red places its 3 in Bithynia, read surely: the warning asks for Galatia, where the doubt
        is, not for the placement it judged."""
        t = Table()
        t.set(galatia=3).push(confidence={"galatia": 0.5})
        r = t.set(bithynia=11).push(confidence={"galatia": 0.5})
        [v] = r.verdicts
        assert v.level == "warning" and "ended that phase: check them" in v.message
        assert set(t.game.questioned) == {"galatia"}

    def test_an_attack_that_may_have_been_a_trireme_built_in_a_doubted_sea_ends_its_phase_in_doubt(self):
        """Hard seed 402: red turns three of Bithynia's legionaries into a trireme in the Pontus
        Euxinus, which the camera misses (the sea read at 0.4): read as an attack on Asia, lost.
        That trireme's sailing next is no breach of the phases' order but a warning naming the
        sea, where the doubt is. Before, the attack ended the naval moves for sure: a violation."""
        from tracker import readings
        t = Table()
        t.set(bithynia=11).push()
        attack = t.set(bithynia=8).push(confidence={"pontus_euxinus": 0.4})
        [e] = attack.events
        assert (e.kind, e.target_guessed, e.defender_losses) == (ev.LAND_ATTACK, True, 0)
        assert readings.doubted_move(e, t.game.state, t.game.state) == {"pontus_euxinus": 0.4}
        sailed = t.ships("aegeum", "red", 1).push(confidence={"pontus_euxinus": 0.4})
        [v] = [v for v in sailed.verdicts if v.rule == "§4.2"]
        assert v.level == "warning" and "Pontus Euxinus at 0.40" in v.message
        assert "pontus_euxinus" in t.game.questioned
        # an attack that killed a defender was an attack: it rests on its counts as before
        hit = dataclasses.replace(e, defender_losses=1)
        assert readings.doubted_move(hit, t.game.state, t.game.state) == {}

    def test_the_dashboard_marks_doubted_and_questioned_counts_but_not_set_or_unseen_ones(self):
        from tracker.overrides import Override, to_check
        from tracker.state import ObservedState
        t = Table()
        d = t.state().to_dict()
        d["confidence"] = {"asia": 0.5, "dacia": 0.95}
        d["unseen"] = ["thracia"]
        state = ObservedState.from_dict(d)
        questioned = {"moesia": {"yellow": {"legionary": 3}}, "ponto": {"red": {"legionary": 3}},
                      "thracia": {"blue": {"legionary": 3}}}
        overrides = {"ponto": Override(1, {"red": {"legionary": 3}}, {"red": {"legionary": 3}})}
        assert to_check(state, questioned, overrides) == {"asia", "moesia"}


class TestReinforcementsLeftUnplaced:
    """A turn that ends with fewer legionaries placed than it was due, where a placement was read
    in doubt and that province has changed since and is read fairly surely: a warning names it,
    and the dashboard marks it for a check (``Game._end_of_turn_checks``)."""

    @staticmethod
    def turn(placed=9, placed_at=0.5, now_at=0.85):
        """Red (due 3) places in Bithynia (8), read as ``placed`` at ``placed_at``, attacks Asia
        from it and loses 2, read at ``now_at``; then blue's turn begins. The table and the
        report on blue's first commit."""
        t = Table()
        t.set(bithynia=placed).push(confidence={"bithynia": placed_at})
        t.set(bithynia=placed - 2).push(confidence={"bithynia": now_at})
        return t, t.set(thracia=6).push()

    def test_a_placement_read_in_doubt_and_changed_since_is_named(self):
        t, report = self.turn()
        assert report.turn_changed and report.actor == "blue"
        [v] = report.verdicts
        assert v.level == "warning" and v.rule == "§6" and v.regions == ("bithynia",)
        assert "red placed 1 of the 3 legionaries due this turn" in v.message
        assert "Bithinya now read as 7 red legionaries at 0.85" in v.message
        assert t.game.questioned == {"bithynia": {"red": {"legionary": 7}}}

    def test_nothing_is_said_where_the_placement_was_read_surely_or_the_count_is_sure_now(self):
        for kw in (dict(placed_at=0.9), dict(now_at=0.97)):
            t, report = self.turn(**kw)
            assert report.verdicts == [] and t.game.questioned == {}, kw

    def test_nothing_is_said_of_a_turn_that_placed_all_it_was_due(self):
        _, report = self.turn(placed=11)
        assert report.verdicts == []

    def test_a_second_thought_never_weighs_the_pointer(self):
        """It asks the table to look and judges no reading: a reading of the past again that
        only drops it saves nothing (``hindsight._cost``)."""
        import tracker.hindsight as hindsight
        _, report = self.turn()
        assert [v.rule for v in report.verdicts] == ["§6"]
        assert hindsight._cost([report]) == hindsight._cost([dataclasses.replace(report, verdicts=[])])


class TestPlacementMissedOnAPileCounted:
    """A turn that ends short of its due, where a hand was over a province of its army as it
    placed elsewhere and the camera read that province unchanged: a legionary put on the pile
    may have been missed at any confidence, and a warning names it (the print's hard seed 411,
    Cyrenaica read as the two it held at 0.99 all game)."""

    @staticmethod
    def turn(galatia_at=0.99, galatia=4):
        """Red (due 3) places 2 in Bithynia (8 to 10) while Galatia (4) is counted again, read
        as ``galatia`` at ``galatia_at``; then blue's turn begins."""
        t = Table()
        t.set(bithynia=10, galatia=galatia).push(confidence={"galatia": galatia_at})
        return t, t.set(thracia=6).push(confidence={"galatia": galatia_at})

    def test_a_province_counted_again_and_read_unchanged_is_named(self):
        t, report = self.turn()
        [v] = report.verdicts
        assert v.level == "warning" and v.rule == "§6" and v.regions == ("galatia",)
        assert "red placed 2 of the 3 legionaries due this turn" in v.message
        assert "a hand was over Galatia as they were placed, read unchanged (4 red legionaries at 0.99)" in v.message
        assert "galatia" in t.game.questioned

    def test_a_province_the_camera_did_not_count_again_is_not_named(self):
        """At the confidence it was committed with, the pipeline kept the count untouched."""
        t, report = self.turn(galatia_at=1.0)
        assert report.verdicts == [] and t.game.questioned == {}

    def test_a_province_read_changed_is_not_named(self):
        """Galatia read one fewer: an attack from it that lost one."""
        t, report = self.turn(galatia=3)
        assert report.turn_changed and report.verdicts == [] and t.game.questioned == {}

    def test_nothing_is_said_of_a_turn_that_placed_all_it_was_due(self):
        t = Table()
        t.set(bithynia=11).push(confidence={"galatia": 0.99})
        assert t.set(thracia=6).push(confidence={"galatia": 0.99}).verdicts == []


class TestPlacementsThatAddUp:
    """A turn whose placements add up to exactly what it was due vouches for the counts the camera
    doubted where it placed them: the dashboard does not ask for them while the camera reads them
    so (``Game.vouched``, ``tracker.overrides.to_check``). Red is due 3; Bithynia holds 8."""

    @staticmethod
    def marked(t):
        from tracker.overrides import to_check
        return to_check(t.game.state, t.game.questioned, {}, t.game.vouched)

    def test_a_doubted_placement_that_makes_the_due_is_not_marked(self):
        t = Table()
        t.set(bithynia=11).push(confidence={"bithynia": 0.5})
        assert t.game.vouched == {"bithynia": (t.game.state.regions["bithynia"], 0.5)}
        assert self.marked(t) == set()

    def test_earlier_doubted_placements_are_vouched_for_once_the_due_is_placed(self):
        t = Table()
        t.set(bithynia=10).push(confidence={"bithynia": 0.5})
        assert t.game.vouched == {} and self.marked(t) == {"bithynia"}       # one short: it may be misread
        t.set(galatia=5).push(confidence={"bithynia": 0.5})
        assert set(t.game.vouched) == {"bithynia"} and self.marked(t) == set()

    def test_a_placement_past_the_due_takes_the_vouch_back(self):
        t = Table(garrisons=dict(BASE, aegyptus=("red", 3)))        # far from Bithynia: no move from it
        t.set(bithynia=11).push(confidence={"bithynia": 0.5})
        t.set(aegyptus=4).push(confidence={"bithynia": 0.5})     # one more than due: a count read over
        assert t.game.vouched == {} and "bithynia" in self.marked(t)

    def test_the_vouch_ends_where_a_hand_counted_the_region_again(self):
        """A hand that takes a piece the camera misses leaves the count as it was, at another
        confidence: the rules vouched for the placement, not for what the hand did since."""
        t = Table()
        t.set(bithynia=11).push(confidence={"bithynia": 0.5})
        t.push(confidence={"bithynia": 0.5})
        assert set(t.game.vouched) == {"bithynia"}                  # read as before, as surely
        t.push(confidence={"bithynia": 0.6})
        assert t.game.vouched == {} and self.marked(t) == {"bithynia"}

    def test_nothing_is_vouched_for_in_a_change_read_with_a_move_beside_the_placement(self):
        """The placement may be the count of pieces a move brought, read over."""
        t = Table()
        t.set(bithynia=10).push(confidence={"bithynia": 0.5})
        t.set(asia=("red", 2), galatia=2, bithynia=11).push(confidence={"bithynia": 0.5})
        assert t.game.vouched == {} and "bithynia" in self.marked(t)

    def test_nothing_is_vouched_for_where_another_province_a_hand_touched_is_in_doubt(self):
        """Galatia, counted again in doubt as before, may hide a placement the camera missed,
        which Bithynia's count, read over, makes up for."""
        t = Table()
        t.set(bithynia=11).push(confidence={"bithynia": 0.5, "galatia": 0.6})
        assert t.game.vouched == {} and self.marked(t) == {"bithynia", "galatia"}

    def test_a_rule_questioning_a_vouched_count_marks_it(self):
        from tracker.overrides import Override, to_check
        t = Table()
        t.set(bithynia=11).push(confidence={"bithynia": 0.5})
        questioned = {"bithynia": {"red": {"legionary": 11}}}
        assert to_check(t.game.state, questioned, {}, t.game.vouched) == {"bithynia"}
        # a count set over the camera's carries its own doubt (a hand moved pieces there since)
        guessed = Override(None, {"red": {"legionary": 11}}, {"red": {"legionary": 11}}, 0.5, moved=True)
        assert to_check(t.game.state, {}, {"bithynia": guessed}, t.game.vouched) == {"bithynia"}


class TestCountsSetOverTheCamera:
    """A count a player or a rule set over the camera's holds while the camera reads the region as
    it did, until a hand moves pieces there (``tracker.overrides.doubt_moved``)."""

    CAMERA = {"judea": {"yellow": {"legionary": 3}}, "syria": {"red": {"legionary": 2}}}

    def overrides(self):
        from tracker.overrides import Override
        return {"judea": Override(7, {"yellow": {"legionary": 3}}, {"yellow": {"legionary": 2}}),
                "syria": Override(8, {"red": {"legionary": 2}}, {"red": {"legionary": 4}})}

    def camera(self, **regions):
        from tracker.state import ObservedState
        return ObservedState.from_dict({"regions": dict(self.CAMERA, **regions), "confidence": {"judea": 0.97}})

    def test_a_set_count_stands_while_nobody_touches_its_region(self):
        from tracker.overrides import apply_overrides, doubt_moved
        overrides = self.overrides()
        assert doubt_moved(overrides, self.camera(), frozenset({"aegyptus"})) == []
        assert doubt_moved(overrides, self.camera(), None) == []          # the pipeline could not tell
        tracked = apply_overrides(overrides, self.camera())
        assert tracked.regions["judea"] == {"yellow": {"legionary": 2}} and "judea" not in tracked.confidence

    def test_once_pieces_moved_there_the_set_count_is_flagged_for_a_check(self):
        """Set-up read Judea's two legionaries as three; the rules settled two. Yellow then places
        a third, and the camera reads three as before: the settled two may be out of date."""
        from tracker.overrides import GUESSED, apply_overrides, doubt_moved, to_check
        from tracker.readings import LOW_CONFIDENCE
        overrides = self.overrides()
        assert doubt_moved(overrides, self.camera(), frozenset({"judea", "aegyptus"})) == ["judea"]
        tracked = apply_overrides(overrides, self.camera())
        assert tracked.regions["judea"] == {"yellow": {"legionary": 2}}             # it stands...
        assert tracked.confidence_of("judea") == GUESSED < LOW_CONFIDENCE          # ... in doubt
        assert "judea" in to_check(tracked, {}, overrides)
        assert tracked.regions["syria"] == {"red": {"legionary": 4}}                 # untouched: sure
        assert "syria" not in tracked.confidence
        assert overrides["judea"].moved and overrides["judea"].correction_id == 7
        # doubted once: a later move there changes nothing more
        assert doubt_moved(overrides, self.camera(), frozenset({"judea"})) == []

    def test_a_region_the_camera_reads_otherwise_is_left_to_the_camera(self):
        from tracker.overrides import apply_overrides, doubt_moved
        overrides = self.overrides()
        moved = self.camera(judea={"yellow": {"legionary": 4}})
        assert doubt_moved(overrides, moved, frozenset({"judea"})) == []
        assert apply_overrides(overrides, moved).regions["judea"] == {"yellow": {"legionary": 4}}
        assert "judea" not in overrides

    def test_a_players_count_stands_over_a_re_read_where_no_hand_changed_the_pieces(self):
        """A player set Judea at two where the camera read three. A hand beside it has the camera
        read Judea afresh as four, then as two: no hand changed Judea, so the player's two stands,
        both times. A rule's count (not ``player``) falls to the first such reading, as before."""
        from tracker.overrides import Override, apply_overrides
        two, three, four = ({"yellow": {"legionary": n}} for n in (2, 3, 4))
        overrides = {"judea": Override(7, three, two, player=True), "syria": self.overrides()["syria"]}
        beside = frozenset({"aegyptus"})
        for read in (four, two, four):
            tracked = apply_overrides(overrides, self.camera(judea=read, syria={"red": {"legionary": 3}}), beside)
            assert tracked.regions["judea"] == two and "judea" not in tracked.confidence
            assert "syria" not in overrides                  # the rules' count fell to the new reading
        # a hand in Judea: the camera is trusted again
        assert apply_overrides(overrides, self.camera(judea=four), frozenset({"judea"})).regions["judea"] == four
        assert "judea" not in overrides

    def test_a_players_count_falls_to_a_re_read_where_the_pipeline_cannot_tell_or_after_a_cover(self):
        from tracker.overrides import Override, apply_overrides
        from tracker.state import ObservedState
        two, three, four = ({"yellow": {"legionary": n}} for n in (2, 3, 4))
        overrides = {"judea": Override(7, three, two, player=True)}
        assert apply_overrides(dict(overrides), self.camera(judea=four), None).regions["judea"] == four
        # out of sight once (a card over it: pieces may have changed unseen), then read as four
        # with no hand in it: four, the camera's
        covered = ObservedState.from_dict({"regions": {"judea": three}, "unseen": ["judea"]})
        assert apply_overrides(overrides, covered, frozenset()).regions["judea"] == two
        assert not overrides["judea"].player
        assert apply_overrides(overrides, self.camera(judea=four), frozenset()).regions["judea"] == four

    def test_a_misread_army_read_as_before_is_carried_past_a_change_in_the_others(self):
        """Set-up read a yellow trireme in the empty Balearicum, surely, for the whole game; the
        rules took it as nothing. Green then builds a trireme there: the camera reads both. The
        yellow one is the same misread, carried over, and the count is asked for a check."""
        from tracker.overrides import GUESSED, Override, apply_overrides, carry_misreads, to_check
        from tracker.state import ObservedState
        phantom = {"yellow": {"trireme": 1}}
        overrides = {"balearicum": Override(5, phantom, {})}

        def camera(balearicum):
            return ObservedState.from_dict({"regions": {"balearicum": balearicum}, "confidence": {"balearicum": 0.98}})
        assert carry_misreads(overrides, camera(phantom)) == []             # read as set: it stands as it is
        assert overrides["balearicum"].correction_id == 5
        both = camera({**phantom, "green": {"trireme": 1}})
        assert carry_misreads(overrides, both) == ["balearicum"]
        o = overrides["balearicum"]
        assert (o.camera_value, o.value, o.confidence, o.moved) == (
            {**phantom, "green": {"trireme": 1}}, {"green": {"trireme": 1}}, GUESSED, True)
        tracked = apply_overrides(overrides, both)
        assert tracked.regions["balearicum"] == {"green": {"trireme": 1}}
        assert "balearicum" in to_check(tracked, {}, overrides)

    def test_a_change_in_the_misread_army_itself_is_left_to_the_camera(self):
        """Judea's three, set at two, read as four: the army set is the one that changed, so the
        camera's reading stands (a piece placed, or the misread gone); so does a colour set over
        another (Syria's red read as blue) once the colour read changes, and a pile the camera
        missed. What the rules keep is held afresh each commit, and a region out of sight is not
        carried."""
        from tracker.overrides import Override, apply_overrides, carry_misreads
        overrides = self.overrides()
        moved = self.camera(judea={"yellow": {"legionary": 4}})
        assert carry_misreads(overrides, moved) == []
        assert apply_overrides(overrides, moved).regions["judea"] == {"yellow": {"legionary": 4}}
        recoloured = {"syria": Override(2, {"blue": {"legionary": 2}}, {"red": {"legionary": 2}})}
        assert carry_misreads(recoloured, self.camera(syria={"blue": {"legionary": 3}})) == []
        # a pile the camera missed reads the same whether it stands or has gone: not carried (here it
        # would put a second army in the province)
        missed = {"syria": Override(4, {}, {"yellow": {"legionary": 2}})}
        assert carry_misreads(missed, self.camera(syria={"blue": {"legionary": 2}})) == []
        assert apply_overrides(missed, self.camera(syria={"blue": {"legionary": 2}})).regions["syria"] == {
            "blue": {"legionary": 2}}
        kept = {"syria": Override(3, {}, {"red": {"legionary": 1}}, kept=True)}
        assert carry_misreads(kept, self.camera(syria={"neutral": {"centre": 1}})) == []
        from tracker.state import ObservedState
        hidden = ObservedState.from_dict({"regions": {"balearicum": {"yellow": {"trireme": 1}, "green": {"trireme": 1}}},
                                          "unseen": ["balearicum"]})
        assert carry_misreads({"balearicum": Override(5, {"yellow": {"trireme": 1}}, {})}, hidden) == []

    def test_what_the_rules_keep_on_the_board_is_never_doubted(self):
        """A province's last legionary (§14.1) and a power centre (§16.2) stay whatever a hand does
        there: the camera reading the province empty again is no news."""
        from tracker.overrides import GUESSED, Override, apply_overrides, doubt_moved
        overrides = {"judea": Override(3, {}, {"yellow": {"legionary": 1}}, GUESSED, kept=True)}
        camera = self.camera(judea={})
        assert doubt_moved(overrides, camera, frozenset({"judea"})) == []
        assert apply_overrides(overrides, camera).regions["judea"] == {"yellow": {"legionary": 1}}

    def test_a_province_a_hand_changed_and_the_camera_reads_as_before_is_asked_for_a_check(self):
        """Yellow moves a legionary from Judea to Syria; the camera reads Judea one fewer, surely,
        and Syria as before at 0.90: the piece placed in Syria was most likely missed."""
        from tracker.overrides import GUESSED, Override, apply_overrides, doubt_unchanged, to_check
        from tracker.state import ObservedState
        before = ObservedState.from_dict({"regions": {"judea": {"yellow": {"legionary": 3}},
                                                      "syria": {"yellow": {"legionary": 2}},
                                                      "aegeum": {"red": {"trireme": 1}}},
                                          "confidence": {"syria": 0.9}})

        def camera(syria=0.9, aegeum=0.97, unseen=()):
            return ObservedState.from_dict({"regions": {"judea": {"yellow": {"legionary": 2}},
                                                        "syria": {"yellow": {"legionary": 2}},
                                                        "aegeum": {"red": {"trireme": 1}}},
                                            "confidence": {"syria": syria, "aegeum": aegeum}, "unseen": list(unseen)})
        moved = frozenset({"judea", "syria", "aegeum"})
        doubted = doubt_unchanged({}, before, camera(), moved)
        assert set(doubted) == {"syria"}            # Judea reads otherwise, the Aegeum surely
        o = doubted["syria"]
        assert (o.camera_value, o.value, o.confidence, o.moved) == ({"yellow": {"legionary": 2}},) * 2 + (GUESSED, True)
        tracked = apply_overrides(doubted, camera())
        assert tracked.regions["syria"] == {"yellow": {"legionary": 2}} and "syria" in to_check(tracked, {}, doubted)
        # the camera surest of it, or already doubting it, or unable to see it, or a count set there: nothing
        assert doubt_unchanged({}, before, camera(syria=0.97), moved) == {}
        assert doubt_unchanged({}, before, camera(syria=0.6), moved) == {}
        assert doubt_unchanged({}, before, camera(unseen=["syria"]), moved) == {}
        assert doubt_unchanged({"syria": Override(4, {}, {})}, before, camera(), moved) == {}
        assert doubt_unchanged({}, before, camera(), frozenset({"judea"})) == {}     # no hand in Syria
        assert doubt_unchanged({}, None, camera(), moved) == {}                     # no commit before
        # once the camera reads Syria otherwise, the mark goes with the reading
        apply_overrides(doubted, ObservedState.from_dict({"regions": {"syria": {"yellow": {"legionary": 3}}}}))
        assert doubted == {}

    def test_a_sea_a_hand_changed_and_the_camera_reads_as_before_is_asked_for_a_check_empty_or_not(self):
        """A trireme sailed into the empty Ionium, read empty as before at 0.83, and the Aegeum's
        trireme read as before at 0.9: both asked (the print's hard seed 265: blue's trireme in the
        Aegeum, unflagged for 30 commits). A province is never asked for as empty."""
        from tracker.overrides import apply_overrides, doubt_unchanged, to_check
        from tracker.state import ObservedState

        def camera(conf):
            return ObservedState.from_dict({"regions": {"aegeum": {"red": {"trireme": 1}}},
                                            "confidence": {"aegeum": conf, "ionium": conf, "syria": conf}})
        before = camera(0.99)
        moved = frozenset({"aegeum", "ionium", "syria"})
        doubted = doubt_unchanged({}, before, camera(0.83), moved)
        assert set(doubted) == {"aegeum", "ionium"}
        assert doubted["ionium"].value == {} and doubted["aegeum"].value == {"red": {"trireme": 1}}
        tracked = apply_overrides(doubted, camera(0.83))
        assert {"aegeum", "ionium"} <= to_check(tracked, {}, doubted) and "ionium" not in tracked.regions
        assert doubt_unchanged({}, before, camera(0.96), moved) == {}

    def test_a_sea_read_surely_as_before_beside_a_fleet_that_sailed_off_is_asked_for_a_check(self):
        """The print's hard seed 291: blue's trireme sailed from the Cantabricum into the
        Britannicus, which the camera read empty as before at 0.97, unflagged for 8 commits. A
        hand changed both; the fleet the Cantabricum lost went to no sea the camera read."""
        from tracker.overrides import doubt_unchanged
        from tracker.state import ObservedState

        def camera(cantabricum, **more):
            regions = {"cantabricum": {"blue": {"trireme": cantabricum}} if cantabricum else {}, **more}
            return ObservedState.from_dict({"regions": regions, "confidence": {"britannicus": 0.97}})
        before = camera(1)
        both = frozenset({"britannicus", "cantabricum"})
        assert set(doubt_unchanged({}, before, camera(0), both)) == {"britannicus"}
        assert doubt_unchanged({}, before, camera(1), both) == {}                 # no fleet left
        assert doubt_unchanged({}, before, camera(0), frozenset({"britannicus"})) == {}   # no hand there
        assert doubt_unchanged({}, before, camera(0), frozenset({"cantabricum"})) == {}   # none here
        gained = camera(0, balearicum={"blue": {"trireme": 1}})                   # it sailed elsewhere
        assert doubt_unchanged({}, before, gained, both) == {}

    def test_a_province_read_surely_as_before_beside_one_no_hand_touched_that_gained_is_asked_for(self):
        """The print's hard seed 348: yellow placed a legionary in Baetica, read as before at 0.99;
        Terraconensis beside it, which no hand touched, was read one more at 0.99. Both are asked
        for: the piece most likely leans over the border."""
        from tracker.overrides import apply_overrides, doubt_unchanged, to_check
        from tracker.state import ObservedState

        def camera(terraconensis, owner="yellow", sure=0.99):
            return ObservedState.from_dict({"regions": {"baetica": {"yellow": {"legionary": 2}},
                                                        "terraconensis": {owner: {"legionary": terraconensis}}},
                                            "confidence": {"baetica": sure, "terraconensis": 0.99}})
        before = camera(2)
        doubted = doubt_unchanged({}, before, camera(3), frozenset({"baetica"}))
        assert set(doubted) == {"baetica", "terraconensis"} and all(o.moved for o in doubted.values())
        tracked = apply_overrides(doubted, camera(3))
        assert {"baetica", "terraconensis"} <= to_check(tracked, {}, doubted)
        # a hand in Terraconensis too (a placement there), or no gain: nothing
        assert doubt_unchanged({}, before, camera(3), frozenset({"baetica", "terraconensis"})) == {}
        assert doubt_unchanged({}, before, camera(2), frozenset({"baetica"})) == {}
        # another army's gain: no piece of Baetica's leaned there, but no hand reached into it either
        other = doubt_unchanged({}, camera(2, "red"), camera(3, "red"), frozenset({"baetica"}))
        assert set(other) == {"terraconensis"} and other["terraconensis"].untouched

    def test_a_sea_read_surely_as_before_beside_a_trireme_paid_for_is_asked_for_a_check(self):
        """Hard seed 310: blue paid three legionaries of Germania Inferior for a trireme in the
        Britannicus, read empty as before at 0.98; taken for an attack repelled, the trireme later
        "appeared outside blue's turn". A hand changed both; the three went to no region."""
        from tracker.overrides import doubt_unchanged
        from tracker.state import ObservedState

        def camera(legionaries, **more):
            regions = {"germania_inferior": {"blue": {"legionary": legionaries}}, **more}
            return ObservedState.from_dict({"regions": regions, "confidence": {"britannicus": 0.98}})
        before = camera(5)
        both = frozenset({"britannicus", "germania_inferior"})
        assert set(doubt_unchanged({}, before, camera(2), both)) == {"britannicus"}
        assert doubt_unchanged({}, before, camera(3), both) == {}                  # short of a trireme's price
        assert doubt_unchanged({}, before, camera(1), both) == {}                  # four: no whole trireme's
        lost = ObservedState.from_dict({"regions": {"germania_inferior": {"red": {"legionary": 1}}},
                                        "confidence": {"britannicus": 0.98}})
        assert doubt_unchanged({}, before, lost, both) == {}                       # conquered, not paid
        assert doubt_unchanged({}, before, camera(2), frozenset({"germania_inferior"})) == {}  # no hand there
        # no hand in Germania Inferior: the sea is not asked for, the province read otherwise is
        assert set(doubt_unchanged({}, before, camera(2), frozenset({"britannicus"}))) == {"germania_inferior"}
        built = camera(2, balearicum={"blue": {"trireme": 1}})                    # the trireme read elsewhere
        assert doubt_unchanged({}, before, built, both) == {}
        marched = camera(2, belgica={"blue": {"legionary": 3}})                   # they moved on land
        assert doubt_unchanged({}, before, marched, both | {"belgica"}) == {}
        inland = ObservedState.from_dict({"regions": {"pannonia": {"blue": {"legionary": 5}}},
                                          "confidence": {"britannicus": 0.98}})
        assert doubt_unchanged({}, inland, ObservedState.from_dict(
            {"regions": {"pannonia": {"blue": {"legionary": 2}}}, "confidence": {"britannicus": 0.98}}),
            frozenset({"britannicus", "pannonia"})) == {}                        # not on its coast

    def test_a_province_no_hand_reached_into_read_otherwise_is_asked_for_a_check(self):
        """The print's hard seed 367: blue placed two legionaries in Lusitania, and Galicia beside
        it, which no hand reached into, was read one more at 0.96, unflagged for 10 commits."""
        from tracker.overrides import GUESSED, Override, apply_overrides, doubt_unchanged, to_check
        from tracker.state import ObservedState

        def camera(galicia, sure=0.96, unseen=(), aegeum=0):
            regions = {"lusitania": {"blue": {"legionary": 7}}, "galicia": {"blue": {"legionary": galicia}}}
            if aegeum:
                regions["aegeum"] = {"red": {"trireme": aegeum}}
            return ObservedState.from_dict({"regions": regions, "confidence": {"galicia": sure},
                                            "unseen": list(unseen)})
        before = ObservedState.from_dict({"regions": {"lusitania": {"blue": {"legionary": 5}},
                                                      "galicia": {"blue": {"legionary": 2}}}})
        moved = frozenset({"lusitania"})
        doubted = doubt_unchanged({}, before, camera(3), moved)
        assert set(doubted) == {"galicia"}
        o = doubted["galicia"]
        assert (o.value, o.confidence, o.moved, o.untouched, o.leaned) == ({"blue": {"legionary": 3}}, GUESSED,
                                                                             True, True, False)
        assert "galicia" in to_check(apply_overrides(doubted, camera(3)), {}, doubted)
        # read as before, or a hand in it, or doubted already, or out of sight, or a count set there,
        # or a sea (a fleet is read off its coast less): nothing
        assert doubt_unchanged({}, before, camera(2), moved) == {}
        assert doubt_unchanged({}, before, camera(3), moved | {"galicia"}) == {}
        assert doubt_unchanged({}, before, camera(3, sure=0.6), moved) == {}
        assert doubt_unchanged({}, before, camera(3, unseen=["galicia"]), moved) == {}
        assert doubt_unchanged({"galicia": Override(4, {}, {})}, before, camera(3), moved) == {}
        assert doubt_unchanged({}, before, camera(2, aegeum=1), moved) == {}
        # a count the set-up vouched for as read sets nothing over the camera's: read otherwise, it
        # is weighed as any other (print seed 471: black's Arabia, vouched for, read one short at
        # 0.89, unflagged for 10 commits); one the set-up settled otherwise than read is left alone
        two = {"blue": {"legionary": 2}}
        vouched = {"galicia": Override(None, two, two, GUESSED, vouched=True)}
        assert set(doubt_unchanged(vouched, before, camera(3), moved)) == {"galicia"}
        settled = {"galicia": Override(None, {"blue": {"legionary": 1}}, two, GUESSED)}
        assert doubt_unchanged(settled, before, camera(3), moved) == {}

    def test_the_rules_hold_marks_its_counts_as_kept(self):
        t = Table()
        d = t.state().to_dict()
        province = sorted(t.state().provinces_of("yellow"))[0]
        d["regions"].pop(province)
        from tracker.state import ObservedState
        held, _ = t.game.hold_permanent(ObservedState.from_dict(d))
        assert set(held) == {province} and held[province].kept


class TestCorrections:
    """A count a player sets on the tablet over the camera's (``Game.correct``)."""

    PLAYERS = ("red", "blue", "yellow", "green")

    @classmethod
    def _setup(cls):
        import random
        from tracker.board import load_board
        from tracker.spqrisiko.setup import random_setup
        return random_setup(load_board(), cls.PLAYERS, random.Random(7))

    @staticmethod
    def _with(state, **regions):
        d = state.to_dict()
        d["regions"].update(regions)
        for r in regions:
            d.get("confidence", {}).pop(r, None)
        return ObservedState.from_dict(d)

    def _misread(self):
        """The set-up as the camera read it: one of red's pairs in blue's colour, at 0.5."""
        true = self._setup()
        red = sorted(true.provinces_of("red"))[0]
        d = self._with(true, **{red: {"blue": {"legionary": 2}}}).to_dict()
        d["confidence"] = {red: 0.5}
        return true, ObservedState.from_dict(d), red

    def test_a_setup_count_set_before_any_move_starts_the_game_again_on_it(self):
        """Hard seed 342: the table set the set-up counts the dashboard marked; read as moves in
        red's turn, they ended its reinforcement phase, and red's reinforcements "appeared
        outside red's reinforcement phase"."""
        true, read, red = self._misread()
        game = Game(self.PLAYERS)
        game.start(read)
        assert game.score_track[0].score.province_count == 8
        report = game.correct(self._with(read, **{red: {"red": {"legionary": 2}}}))
        assert report.events == () and not [v for v in report.verdicts if v.level == "violation"]
        assert not game.history and game.state.owners[red] == "red" and game.current == "red"
        ref = Game(self.PLAYERS)
        ref.start(true)
        assert game.score_track == ref.score_track and game.vp == ref.vp
        assert game.ctx.entitlement == ref.ctx.entitlement
        # red places its reinforcements in the province set: no breach
        placed = self._with(game.state, **{red: {"red": {"legionary": 2 + ref.ctx.entitlement}}})
        report = game.observe(placed)
        assert [e.kind for e in report.events] == [ev.REINFORCEMENT] and report.verdicts == []

    def test_a_setup_warning_already_given_is_not_given_again(self):
        """Two misreads at the set-up, set one at a time: the warning about the second, word for
        word as the start gave it, is not repeated with the first correction."""
        true, read, red = self._misread()
        yellow = sorted(true.provinces_of("yellow"))[0]
        short = self._with(read, **{yellow: {"yellow": {"legionary": 1}}})
        game = Game(self.PLAYERS)
        assert "§3.7" in {v.rule for v in game.start(short)}
        report = game.correct(self._with(short, **{red: {"red": {"legionary": 2}}}))
        assert "§3.7" not in {v.rule for v in report.verdicts} and game.state.legions[yellow] == 1
        assert game.correct(self._with(game.state, **{yellow: {"yellow": {"legionary": 2}}})).verdicts == []

    def test_a_setup_finding_that_names_fewer_provinces_is_not_given_again(self):
        """The print's hard seed 427, game 428: answering, one at a time, the provinces a set-up
        finding names takes one off its list at each answer; its words stay the same, and it is
        not told again with each."""
        true = self._setup()
        yellow = sorted(true.provinces_of("yellow"))[:3]
        short = self._with(true, **{p: {"yellow": {"legionary": 1}} for p in yellow})
        game = Game(self.PLAYERS)
        [first] = [v for v in game.start(short) if v.rule == "§3.7"]
        assert set(first.regions) == set(yellow)
        report = game.correct(self._with(short, **{yellow[0]: {"yellow": {"legionary": 2}}}))
        assert "§3.7" not in {v.rule for v in report.verdicts}
        assert game.correct(self._with(game.state, **{p: {"yellow": {"legionary": 2}} for p in yellow[1:]})
                            ).verdicts == []

    def test_the_tablet_entries_before_the_correction_are_kept(self):
        true, read, red = self._misread()
        game = Game(self.PLAYERS)
        game.start(read)
        d = read.to_dict()
        d["confidence"] = {red: 0.4}
        game.resight(ObservedState.from_dict(d))           # the camera sees it otherwise, same counts
        game.hands["red"].count = 3
        game.play_cards("red", ["legionary", "legionary", "legionary"])
        played = game.ctx.card_legionaries
        assert played > 0
        game.correct(self._with(read, **{red: {"red": {"legionary": 2}}}))
        assert game.ctx.card_legionaries == played and game.hands["red"].count == 0

    def test_a_count_set_once_a_move_was_read_is_a_commit(self):
        true, read, red = self._misread()
        game = Game(self.PLAYERS)
        game.start(true)
        other = sorted(true.provinces_of("red"))[1]
        placed = self._with(true, **{other: {"red": {"legionary": 2 + game.ctx.entitlement}}})
        game.observe(placed)
        blue = sorted(true.provinces_of("blue"))[0]
        report = game.correct(self._with(placed, **{blue: {"blue": {"legionary": 5}}}))
        assert len(game.history) == 2 and [e.kind for e in report.events] == [ev.REINFORCEMENT]   # read as a move
