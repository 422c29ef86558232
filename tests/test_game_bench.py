"""The game-video bench's scoring: moves, commit delays, phantom and missed changes, verdicts."""
from __future__ import annotations

import json

import pytest

from tracker.spqrisiko.simulator import Simulator
from tracker.state import ObservedState
from vision.game_bench import GameScorer, GameVideoFigures, describe

PLAYERS = ("red", "blue", "yellow", "green")


def legal_game(turns: int = 2) -> list[ObservedState]:
    sim = Simulator(PLAYERS, seed=3, max_turns=turns)
    return [sim.initial_state] + [step.state for step in sim.steps()]


def changed(a: ObservedState, b: ObservedState) -> list[str]:
    return sorted(a.changed_regions(b))


def line(frame: int, state: ObservedState, hand: bool) -> dict:
    return {"frame": frame, "hand_present": hand, "state": state.to_dict()}


def json_corners(truth: dict) -> str:
    """A frame's board corners as one comparable string."""
    import json
    return json.dumps(truth["board_corners"])


def with_region(state: ObservedState, region: str, content: dict) -> ObservedState:
    d = state.to_dict()
    d["regions"] = dict(d["regions"], **{region: content})
    return ObservedState.from_dict(d)


class TestGameScorer:
    def play(self, script, settle: bool = True):
        """``script``: (true state, hand present, committed state or None) per frame."""
        figures = GameVideoFigures("easy", 0, 1)
        scorer = GameScorer(figures, PLAYERS, fps=10, settle=settle)
        for i, (truth, hand, committed) in enumerate(script):
            scorer.see(line(i, truth, hand), committed)
        return figures

    def test_a_move_committed_right_is_scored_clean_with_its_delay(self):
        s0, s1 = legal_game()[:2]
        f = self.play([(s0, False, s0), (s0, True, None), (s1, True, None), (s1, False, None),
                       (s1, False, None), (s1, False, s1)])
        assert (f.moves, f.commits, f.wrong_regions, f.phantom_changes, f.missed_changes) == (1, 2, 0, 0, 0)
        assert f.commit_after_hand_s == [0.3]          # the hand left on frame 3, the commit came on frame 5
        assert (f.violations, f.truth_violations) == (0, 0)

    def test_a_commit_on_the_frame_the_hand_leaves_keeps_the_pipeline_s_word_on_what_it_changed(self):
        """A hand reached into Mauretania and took nothing; the camera commits as it leaves, with
        Mauretania read as before at 0.9: a province a hand changed, read as before, is doubted.
        (The bench once took the true board's changes on that frame, none, for the pipeline's.)"""
        s0, s1 = legal_game()[:2]
        doubted = ObservedState.from_dict(dict(s1.to_dict(), confidence={"mauretania": 0.9}))
        figures = GameVideoFigures("easy", 0, 1)
        scorer = GameScorer(figures, PLAYERS, fps=10)
        script = [(s0, False, s0, None), (s0, True, None, None), (s1, True, None, None), (s1, False, s1, frozenset()),
                  (s1, True, None, None), (s1, False, doubted, frozenset({"mauretania"}))]
        for i, (truth, hand, committed, moved) in enumerate(script):
            scorer.see(line(i, truth, hand), committed, moved)
        assert figures.unchanged_doubted == 1 and "mauretania" in scorer._overrides

    def test_a_move_committed_before_the_hand_was_out_of_the_picture_is_committed(self):
        """The hand has left the board but not the picture (the renderer still says a hand is
        present): a still board then is committed, with the move, a frame before the hand is gone."""
        s0, s1 = legal_game()[:2]
        f = self.play([(s0, False, s0), (s0, True, None), (s1, True, None), (s1, True, s1), (s1, False, None),
                       (s1, False, None)])
        assert (f.moves, f.commits, f.moves_hidden, f.wrong_regions) == (1, 2, 0, 0)
        assert f.commit_after_hand_s == [0.0]          # committed on frame 3, the hand gone on frame 4

    def test_a_commit_under_the_hand_before_the_move_was_done_does_not_commit_it(self):
        s0, s1 = legal_game()[:2]
        f = self.play([(s0, False, s0), (s0, True, None), (s0, True, s0), (s1, True, None), (s1, False, None)])
        assert f.moves == 1 and f.commit_after_hand_s == []

    def test_a_state_committed_under_a_hand_is_counted(self):
        """A commit on a frame where a hand covers more than HAND_OVER of the board is one the gate
        should have held; a fingertip at the rim is not counted."""
        from vision.game_bench import HAND_OVER
        s0 = legal_game()[0]
        figures = GameVideoFigures("easy", 0, 1)
        scorer = GameScorer(figures, PLAYERS, fps=10)
        for i, (hand, committed) in enumerate([(0.0, s0), (0.04, None), (0.04, s0), (HAND_OVER / 2, s0)]):
            scorer.see(dict(line(i, s0, hand > 0), hand_fraction=hand), committed)
        assert (figures.commits, figures.commits_under_hand) == (3, 1)

    def test_a_hand_that_changed_nothing_is_no_move(self):
        s0 = legal_game()[0]
        f = self.play([(s0, False, s0), (s0, True, None), (s0, False, None)])
        assert f.moves == 0 and f.commit_after_hand_s == []

    def test_a_count_that_changes_with_nobody_touching_it_is_a_phantom_change(self):
        s0 = legal_game()[0]
        region, content = next((r, c) for r, c in s0.regions.items() if "legionary" in next(iter(c.values())))
        colour = next(iter(content))
        wrong = with_region(s0, region, {colour: {"legionary": content[colour]["legionary"] + 5}})
        f = self.play([(s0, False, s0), (s0, False, wrong)])
        assert (f.phantom_changes, f.missed_changes, f.wrong_regions, f.boards_wrong) == (1, 0, 1, 1)
        assert f.violations + f.warnings > 0 and f.truth_violations + f.truth_warnings == 0

    def test_a_move_the_commit_did_not_show_is_missed(self):
        s0, s1 = legal_game()[:2]
        f = self.play([(s0, False, s0), (s0, True, None), (s1, True, None), (s1, False, s0)])
        assert f.missed_changes == len(changed(s0, s1)) > 0
        assert f.phantom_changes == 0 and f.wrong_regions == len(changed(s0, s1))

    def test_each_missed_and_phantom_change_is_named_with_its_frame_and_contents(self):
        """``--verbose`` prints these: the region, what the tracked and the true state held."""
        s0, s1 = legal_game()[:2]
        f = self.play([(s0, False, s0), (s0, True, None), (s1, True, None), (s1, False, s0)])
        missed = [m for m in f.messages if "true change missed" in m]
        assert len(missed) == f.missed_changes > 0
        region = changed(s0, s1)[0]
        assert any(m.startswith(f"frame 3: true change missed in {region}: tracked ") for m in missed)
        s0 = legal_game()[0]
        region, content = next((r, c) for r, c in s0.regions.items() if "legionary" in next(iter(c.values())))
        colour = next(iter(content))
        n = content[colour]["legionary"]
        wrong = with_region(s0, region, {colour: {"legionary": n + 5}})
        f = self.play([(s0, False, s0), (s0, False, wrong)])
        assert (f"frame 1: phantom change in {region}: tracked {n + 5} {colour} legionary (was {n} {colour} "
                f"legionary), true {n} {colour} legionary (was {n} {colour} legionary)") in f.messages
        verdicts = [m for m in f.messages if m.startswith("frame 1: commit, tracked: ")]
        assert len(verdicts) == f.violations + f.warnings > 0
        assert not any(", true: " in m for m in f.messages)       # the true states gave none

    def test_a_piece_placed_where_the_camera_reads_the_count_as_before_is_flagged(self):
        """A hand puts a legionary in a province, and the camera reads it as before at 0.9 (above
        the dashboard's check): the wrong count is flagged, not left unflagged for the game."""
        s0, s1 = legal_game()[:2]
        region = sorted(s1.provinces_of("red"))[0]
        colour_count = s1.regions[region]["red"]["legionary"]
        true = with_region(s1, region, {"red": {"legionary": colour_count + 1}})
        read = ObservedState.from_dict(dict(s1.to_dict(), confidence={region: 0.9}))
        figures = GameVideoFigures("easy", 0, 1)
        scorer = GameScorer(figures, PLAYERS, fps=10)
        script = [(s0, False, s0, None), (s0, True, None, None), (s1, False, s1, frozenset(changed(s0, s1))),
                  (s1, True, None, None), (true, False, read, frozenset({region}))]
        for i, (truth, hand, committed, moved) in enumerate(script):
            scorer.see(line(i, truth, hand), committed, moved)
        assert figures.unchanged_doubted == 1 and figures.tracked_wrong_regions == 1
        assert figures.tracked_wrong_unflagged == 0

    def test_an_unseen_region_is_neither_wrong_nor_missed(self):
        s0, s1 = legal_game()[:2]
        moved = changed(s0, s1)
        d = s0.to_dict()
        d["unseen"] = moved
        blind = ObservedState.from_dict(d)
        f = self.play([(s0, False, s0), (s0, True, None), (s1, True, None), (s1, False, blind)])
        assert (f.wrong_regions, f.missed_changes) == (0, 0)

    def test_a_move_made_under_a_cover_is_counted_apart_from_the_moves_the_camera_could_commit(self):
        """Hard game 16 had a card over the east all game, and a move under it: the bench said
        one move of 44 was never committed, as if the gate had missed it."""
        s0, s1, s2 = legal_game()[:3]
        blind = ObservedState.from_dict(dict(s2.to_dict(), unseen=changed(s0, s1)))
        f = self.play([(s0, False, s0), (s0, True, None), (s1, True, None), (s1, False, None),
                       (s1, True, None), (s2, True, None), (s2, False, None), (s2, False, blind)])
        assert f.moves == 2 and f.moves_hidden == 1
        assert f.commit_after_hand_s == [0.2]          # the second move: its hand left on frame 6

    def test_a_seen_move_taken_in_by_the_next_commit_is_not_committed_and_not_hidden(self):
        s0, s1, s2 = legal_game()[:3]
        f = self.play([(s0, False, s0), (s0, True, None), (s1, True, None), (s1, False, None),
                       (s1, True, None), (s2, True, None), (s2, False, s2)])
        assert f.moves == 2 and f.moves_hidden == 0 and f.commit_after_hand_s == [0.1]

    def test_a_set_up_count_the_rules_settle_is_right_in_the_tracked_state_while_the_camera_reads_it(self):
        s0, s1 = legal_game()[:2]
        region = next(r for r in sorted(s0.owners) if r not in s0.changed_regions(s1))
        colour = s0.owners[region]
        misread = {colour: {"legionary": s0.legions[region] + 1}}
        script = [(s0, False, with_region(s0, region, misread)), (s0, True, None), (s1, True, None),
                  (s1, False, with_region(s1, region, misread))]
        f = self.play(script)
        assert (f.settled_regions, f.wrong_regions, f.tracked_wrong_regions) == (1, 2, 0)
        assert (f.phantom_changes, f.missed_changes, f.violations) == (0, 0, 0) and f.warnings == 1
        kept = self.play(script, settle=False)
        assert (kept.settled_regions, kept.wrong_regions, kept.tracked_wrong_regions) == (0, 2, 2)
        assert kept.violations == 1

    def test_a_set_up_count_read_right_in_doubt_is_vouched_for_and_asks_no_check(self):
        """The set-up read right, one province at 0.5: the rules vouch for it (no check asked), as
        they do not with ``settle=False``."""
        s0 = legal_game()[0]
        region = sorted(s0.owners)[0]
        doubted = ObservedState.from_dict(dict(s0.to_dict(), confidence={region: 0.5}))
        f = self.play([(s0, False, doubted)])
        assert (f.settled_regions, f.vouched_regions, f.checks_asked, f.tracked_right_flagged) == (0, 1, 0, 0)
        f = self.play([(s0, False, doubted)], settle=False)
        assert (f.vouched_regions, f.checks_asked, f.checks_asked_right) == (0, 1, 1)

    def test_a_power_centre_the_camera_lost_is_kept_in_the_tracked_state(self):
        s0 = legal_game()[0]
        province = sorted(s0.provinces_of("red"))[0]
        d = s0.to_dict()
        d["regions"][province] = dict(d["regions"][province], neutral={"centre": 1})
        s1 = ObservedState.from_dict(d)
        script = [(s0, False, s0), (s0, True, None), (s1, False, s1), (s1, True, None), (s1, False, s0)]
        for settle, held, tracked_wrong in ((True, 1, 0), (False, 0, 1)):
            figures = GameVideoFigures("easy", 0, 1)
            scorer = GameScorer(figures, PLAYERS, fps=10, settle=settle)
            for i, (truth, hand, committed) in enumerate(script):
                if i == 2:              # red holds a card set it has not entered: the centre is no violation
                    scorer.read.hands["red"].count = 3
                scorer.see(line(i, truth, hand), committed)
            assert (figures.held_regions, figures.wrong_regions, figures.tracked_wrong_regions) == \
                (held, 1, tracked_wrong)
            assert figures.phantom_changes == tracked_wrong and figures.violations == 0

    def test_a_province_read_empty_keeps_its_army_in_the_tracked_state(self):
        """§14.1: after the set-up no province stands empty; the tracked state keeps its army at
        one legionary, so its owner keeps the province in the count (§5, §6)."""
        s0 = legal_game()[0]
        province = min(s0.owners, key=lambda p: (s0.legions[p], p))
        d = s0.to_dict()
        d["regions"].pop(province)
        blind = ObservedState.from_dict(d)
        owner = s0.owners[province]
        for settle, held in ((True, 1), (False, 0)):
            f = GameVideoFigures("easy", 0, 1)
            scorer = GameScorer(f, PLAYERS, fps=10, settle=settle)
            for i, committed in enumerate((s0, blind)):
                scorer.see(line(i, s0, False), committed)
            tracked = scorer._last[0]
            assert (f.held_regions, f.wrong_regions, f.tracked_wrong_regions) == (held, 1, 1)
            if settle:
                assert tracked.regions[province] == {owner: {"legionary": 1}}
                assert set(tracked.provinces_of(owner)) == set(s0.provinces_of(owner))
            else:
                assert province not in tracked.owners

    def test_a_wrong_count_is_unflagged_unless_its_confidence_asks_for_a_check(self):
        """Red reinforces Mauretania by 3 and the camera reads 2: a placement the rules allow (the
        third may come later), so only the camera's confidence can ask for a check."""
        s0, s1 = legal_game()[:2]
        assert changed(s0, s1) == ["mauretania"] and s1.legions["mauretania"] == 5
        wrong = with_region(s1, "mauretania", {"red": {"legionary": 4}})
        for confidence, unflagged in ((0.4, 0), (0.95, 1), (None, 1)):
            committed = ObservedState.from_dict(dict(wrong.to_dict(), confidence={"mauretania": confidence})) \
                if confidence else wrong
            f = self.play([(s0, False, s0), (s0, True, None), (s1, False, committed)], settle=False)
            assert (f.violations, f.warnings) == (0, 0)
            assert (f.tracked_wrong_regions, f.tracked_wrong_unflagged, f.tracked_right_flagged) == (1, unflagged, 0)

    def test_a_sure_wrong_count_a_rule_questions_is_flagged(self):
        """Read 9 where red placed 3 of its 3, surely: "beyond the entitlement" questions
        Mauretania, and the dashboard marks it for a check although the camera was sure. A
        right count a rule questions is a check that costs the players for nothing."""
        s0, s1 = legal_game()[:2]
        wrong = ObservedState.from_dict(dict(with_region(s1, "mauretania", {"red": {"legionary": 9}}).to_dict(),
                                             confidence={"mauretania": 0.95}))
        f = self.play([(s0, False, s0), (s0, True, None), (s1, False, wrong), (s1, False, wrong)], settle=False)
        assert f.violations + f.warnings >= 1
        assert (f.tracked_wrong_regions, f.tracked_wrong_unflagged, f.tracked_right_flagged) == (2, 0, 0)
        # the set-up read one legionary over, surely: the set-up's rules question it
        region, content = next((r, c) for r, c in s0.regions.items() if "legionary" in next(iter(c.values())))
        colour = next(iter(content))
        over = with_region(s0, region, {colour: {"legionary": content[colour]["legionary"] + 1}})
        f = self.play([(s0, False, ObservedState.from_dict(dict(over.to_dict(), confidence={region: 0.95})))],
                      settle=False)
        assert (f.tracked_wrong_regions, f.tracked_wrong_unflagged) == (1, 0)

    def test_a_mark_that_stays_is_one_check_and_a_mark_at_another_count_is_another(self):
        """Mauretania read 4 of its 5 in doubt over two commits: the players are asked once. Read 6,
        still in doubt: asked again."""
        s0, s1 = legal_game()[:2]

        def read(n, confidence):
            return ObservedState.from_dict(dict(with_region(s1, "mauretania", {"red": {"legionary": n}}).to_dict(),
                                                confidence={"mauretania": confidence}))
        f = self.play([(s0, False, s0), (s0, True, None), (s1, False, read(4, 0.4)), (s1, False, read(4, 0.4)),
                       (s1, False, read(6, 0.3))], settle=False)
        assert (f.tracked_wrong_regions, f.tracked_wrong_unflagged) == (3, 0)
        assert (f.checks_asked, f.checks_asked_right) == (2, 0)
        # a right count in doubt is asked once too, and counted as a check of a right count
        def doubted(region, confidence):
            return ObservedState.from_dict(dict(s1.to_dict(), confidence={region: confidence}))
        f = self.play([(s0, False, s0), (s0, True, None), (s1, False, doubted("numidia", 0.4)),
                       (s1, False, doubted("numidia", 0.5))], settle=False)
        assert (f.tracked_right_flagged, f.checks_asked, f.checks_asked_right) == (2, 1, 1)
        # but not red's placement read right in doubt, once red has placed all it was due
        f = self.play([(s0, False, s0), (s0, True, None), (s1, False, read(5, 0.4)), (s1, False, read(5, 0.4))],
                      settle=False)
        assert (f.tracked_right_flagged, f.checks_asked, f.checks_asked_right) == (0, 0, 0)

    def test_an_arena_centre_the_camera_did_not_show_is_asked_for_once(self):
        """The card set is entered on the frame red's hand comes in, in both trackers; the camera
        misses the centre on two commits and shows it on the third."""
        s0 = legal_game()[0]
        province = sorted(s0.provinces_of("red"))[0]
        d = s0.to_dict()
        d["regions"][province] = dict(d["regions"][province], neutral={"centre": 1})
        s1 = ObservedState.from_dict(d)
        figures = GameVideoFigures("easy", 0, 1)
        scorer = GameScorer(figures, PLAYERS, fps=10)
        scorer.read.hands["red"].count = scorer.true.hands["red"].count = 3
        cards = {"kind": "cards", "payload": {"player": "red", "cards": ["arena", "legionary", "trireme"]}}
        script = [(s0, False, s0, ()), (s0, True, None, (cards,)), (s1, True, None, ()), (s1, False, s0, ()),
                  (s1, False, s0, ()), (s1, False, s1, ())]
        asked = []
        for i, (truth, hand, committed, entries) in enumerate(script):
            scorer.see(dict(line(i, truth, hand), entries=list(entries)), committed)
            asked.append(figures.centres_asked)
        assert asked == [0, 0, 0, 1, 1, 1]
        assert scorer.read.hands["red"].count == scorer.true.hands["red"].count == 0
        assert scorer.true.centres_owed() == [] == scorer.read.centres_owed()
        assert (figures.violations, figures.truth_violations) == (0, 0)

    def test_what_the_tablet_answers_an_entry_is_counted(self):
        """Blue enters a card set in red's turn: the tablet refuses it at once (§8.2, and a warning
        that it knew of no cards), in both trackers; red's card drawn without a conquest is judged
        with the next commit, in both."""
        s0, s1 = legal_game()[:2]
        figures = GameVideoFigures("easy", 0, 1)
        scorer = GameScorer(figures, PLAYERS, fps=10, settle=False)
        cards = {"kind": "cards", "payload": {"player": "yellow", "cards": ["legionary"] * 3}}
        draw = {"kind": "draw", "payload": {"player": "red"}}
        script = [(s0, False, s0, ()), (s0, True, None, (cards,)), (s0, False, None, (draw,)), (s1, True, None, ()),
                  (s1, False, s1, ())]
        for i, (truth, hand, committed, entries) in enumerate(script):
            scorer.see(dict(line(i, truth, hand), entries=list(entries)), committed)
        assert (figures.violations, figures.warnings) == (figures.truth_violations, figures.truth_warnings) == (2, 1)
        assert sum(m.startswith("tablet cards, tracked: violation §8.2") for m in figures.messages) == 1
        assert sum(m.startswith("tablet cards, true: violation §8.2") for m in figures.messages) == 1


class TestAnsweredChecks:
    """``--answer-checks``: the table answers every mark with the true count, as it comes."""

    def play(self, answer: bool):
        """A set-up with one of red's pairs read in blue's colour, in doubt (two players' pairs
        look alike: the rules cannot settle it), then red's first placement."""
        s0, s1 = legal_game()[:2]
        province = next(p for p in sorted(s0.provinces_of("red")) if p not in s0.changed_regions(s1))
        misread = ObservedState.from_dict(dict(with_region(s0, province, {"blue": {"legionary": 2}}).to_dict(),
                                               confidence={province: 0.5}))
        later = ObservedState.from_dict(dict(with_region(s1, province, {"blue": {"legionary": 2}}).to_dict(),
                                             confidence={province: 0.5}))
        figures = GameVideoFigures("hard", 0, 1)
        scorer = GameScorer(figures, PLAYERS, fps=10, answer=answer)
        for i, (truth, hand, committed) in enumerate([(s0, False, misread), (s0, True, None), (s1, False, later)]):
            scorer.see(line(i, truth, hand), committed, frozenset(changed(s0, s1)) if i == 2 else None)
        return figures

    def test_the_table_s_answers_put_the_tracked_state_right(self):
        unanswered = self.play(answer=False)
        assert unanswered.tracked_wrong_regions == 2 and unanswered.answered == 0
        answered = self.play(answer=True)
        assert answered.answered == 1 and answered.answer_violations == 0
        assert answered.tracked_wrong_regions == 1          # wrong at the set-up's commit only, until answered
        assert answered.violations == 0 and answered.claims_right == answered.claims == 1
        assert "the table answered 1 marks with the true count" in describe([answered], 10)
        assert "the table answered" not in describe([unanswered], 10)

    def test_a_region_the_camera_never_saw_is_answered_too(self):
        """A card over one of blue's provinces and one of yellow's from the first commit on (the
        set-up rules cannot tell whose is whose): the dashboard asks for their counts, and the
        table gives them."""
        s0, s1 = legal_game()[:2]
        hidden = [next(p for p in sorted(s0.provinces_of(c)) if p not in s0.changed_regions(s1))
                  for c in ("blue", "yellow")]

        def covered(state):
            d = state.to_dict()
            for p in hidden:
                d["regions"].pop(p)
            d["unseen"] = hidden
            return ObservedState.from_dict(d)
        figures = GameVideoFigures("hard", 0, 1)
        scorer = GameScorer(figures, PLAYERS, fps=10, answer=True)
        for i, (truth, hand, committed) in enumerate([(s0, False, covered(s0)), (s0, True, None),
                                                      (s1, False, covered(s1))]):
            scorer.see(line(i, truth, hand), committed)
        assert figures.answered == 2 and all(scorer.read.state.regions[p] == s1.regions[p] for p in hidden)
        assert figures.claims_right == figures.claims == 1


class TestVictoryPointClaims:
    """The game bench compares the claims on the victory-point track (§5) the tracker makes on
    the tracked states with those it makes on the true states."""

    def claims(self, committed: ObservedState, truth: ObservedState) -> GameVideoFigures:
        figures = GameVideoFigures("easy", 0, 1)
        GameScorer(figures, PLAYERS, fps=10, settle=False).see(line(0, truth, False), committed)
        return figures

    def test_a_board_read_right_claims_what_the_true_board_claims(self):
        s0 = legal_game()[0]
        f = self.claims(s0, s0)
        assert (f.claims, f.claims_right) == (1, 1) and f.vp_read == f.vp_true

    def test_a_legionary_too_many_leaves_the_claim_alone(self):
        s0 = legal_game()[0]
        province = sorted(s0.provinces_of("red"))[0]
        f = self.claims(with_region(s0, province, {"red": {"legionary": s0.legions[province] + 1}}), s0)
        assert (f.claims, f.claims_right) == (1, 1)

    def test_a_province_read_in_the_wrong_colour_changes_the_claim_and_the_track(self):
        """Every player holds nine provinces: a tie, no point. Read one of blue's as red's and red,
        first to play, claims the point for most provinces (§5.6.2)."""
        s0 = legal_game()[0]
        province = sorted(s0.provinces_of("blue"))[0]
        f = self.claims(with_region(s0, province, {"red": {"legionary": s0.legions[province]}}), s0)
        assert (f.claims, f.claims_right) == (1, 0)
        assert (f.vp_read["red"], f.vp_true["red"]) == (1, 0)

    def test_a_claim_is_counted_as_shown_hanging_on_a_mark_only_where_one_is_marked(self):
        """The same misread, once at 0.3 (marked for a check: the claim hangs on it) and once at
        0.99 (no mark: a wrong claim nobody is told about); and a right claim beside a marked blue
        province, which would give red the point if it were red's."""
        s0 = legal_game()[0]
        province = sorted(s0.provinces_of("blue"))[0]
        for sure, marked in ((0.3, 1), (0.99, 0)):
            d = with_region(s0, province, {"red": {"legionary": s0.legions[province]}}).to_dict()
            d["confidence"] = {province: sure}
            f = self.claims(ObservedState.from_dict(d), s0)
            assert (f.claims_right, f.claims_wrong_marked, f.claims_right_marked) == (0, marked, 0), sure
        d = s0.to_dict()
        d["confidence"] = {province: 0.3}
        f = self.claims(ObservedState.from_dict(d), s0)
        assert (f.claims_right, f.claims_wrong_marked, f.claims_right_marked) == (1, 0, 1)
        assert "(0 of the 0 others shown hanging on a count marked for a check, and 1 of the right ones)" in \
            describe([f], fps=10)


class TestDescribe:
    def test_the_line_says_how_long_counting_a_still_frame_took(self):
        f = GameVideoFigures("hard", 15, 5, frames=10, counting_s=[0.04, 0.05, 0.06, 0.2])
        text = describe([f], fps=12)
        assert "counting a still frame 55 ms (p50), 179 ms (p95)" in text
        assert "no still frame counted" in describe([GameVideoFigures("hard", 15, 5)], fps=12)

    def test_the_line_says_how_many_wrong_counts_went_unflagged_and_right_ones_were_flagged(self):
        f = GameVideoFigures("hard", 15, 5, commits=4, tracked_wrong_regions=6, tracked_wrong_unflagged=2,
                             tracked_right_flagged=10)
        assert "(2 of those 6 not flagged for a check; 2.50 right counts flagged per state;" in describe([f], fps=12)

    def test_the_line_says_how_many_set_up_counts_were_settled_and_vouched_for(self):
        f = GameVideoFigures("hard", 15, 5, commits=1, settled_regions=3, vouched_regions=7)
        assert "3 set-up counts settled by the rules (7 more read as the set-up leaves them, in doubt, " \
               "vouched for)" in describe([f], fps=12)

    def test_the_line_says_where_the_score_markers_were_read(self):
        f = GameVideoFigures("hard", 15, 5, markers_right=7, markers_wrong=1, markers_unread=2)
        assert describe([f], fps=12).endswith("score markers read once each still run had its last say: 7 on "
                                              "their box, 1 on another, 2 not read")

    def test_the_line_says_how_many_checks_were_asked_a_move(self):
        f = GameVideoFigures("hard", 15, 5, moves=8, commits=9, checks_asked=6, checks_asked_right=4)
        assert "6 checks asked as marks came, 0.75 a move, 4 of them of a right count)" in describe([f], fps=12)


class TestRecording:
    """``augur bench game --record DIR`` / ``--replay DIR`` (vision.game_recording): the tracker's
    part of the bench, replayed on the states the camera committed."""

    def script(self):
        """A legal game's first moves, the second committed with a count the camera doubted."""
        s = legal_game(3)
        doubted = with_region(s[2], "aegyptus", {"red": {"legionary": 2}})
        doubted = ObservedState.from_dict(dict(doubted.to_dict(), confidence={"aegyptus": 0.4}))
        return [(s[0], False, s[0]), (s[1], True, None), (s[1], False, s[1]), (s[2], True, None),
                (s[2], False, doubted), (s[3], True, None), (s[3], False, s[3])]

    def record(self, folder):
        from vision.game_recording import GameRecording, recording_path
        figures = GameVideoFigures("hard", 7, 3)
        scorer = GameScorer(figures, PLAYERS, fps=10)
        recording = GameRecording(recording_path(folder, "hard", 7), "hard", 7, 3, 10, True)
        last = None         # the true board at the last commit: a hand changed what differs from it
        for i, (truth, hand, committed) in enumerate(self.script()):
            moved = None
            if committed is not None:
                moved, last = frozenset(changed(truth, last) if last is not None else ()), truth
            scorer.see(line(i, truth, hand), committed, moved)
            recording.see(line(i, truth, hand), committed, moved)
        recording.close()
        return figures

    def test_a_replayed_game_scores_as_the_game_did(self, tmp_path):
        from dataclasses import asdict
        from vision.game_recording import recording_path, replay_recording
        played = self.record(tmp_path)
        replayed, fps = replay_recording(recording_path(tmp_path, "hard", 7))
        assert fps == 10 and played.commits == 4 and played.wrong_regions > 0
        assert replayed.replayed and asdict(replayed) == dict(asdict(played), replayed=True)

    def test_the_replay_prints_the_bench_line_untimed(self, tmp_path, capsys):
        from augur.cli import main
        self.record(tmp_path)
        assert main(["bench", "game", "--replay", str(tmp_path)]) == 0
        out = capsys.readouterr().out
        assert out.startswith("[game hard] 1 game(s) (seed 7), 3 turns each, 7 frames: gating and counting not timed")
        assert "4 states committed" in out

    def test_the_verbose_replay_prints_each_verdict_before_the_line(self, tmp_path, capsys):
        from augur.cli import main
        played = self.record(tmp_path)
        assert played.messages
        assert main(["bench", "game", "--replay", str(tmp_path), "--verbose"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out[:-1] == [f"  hard seed 7: {m}" for m in played.messages]
        assert out[-1].startswith("[game hard] 1 game(s) (seed 7)")

    def test_the_replay_answers_the_checks_when_asked(self, tmp_path, capsys):
        from augur.cli import main
        self.record(tmp_path)
        assert main(["bench", "game", "--replay", str(tmp_path), "--answer-checks"]) == 0
        out = capsys.readouterr().out
        # the doubted count; its answer's second thought takes it as now read clearly, and asks no more
        assert "the table answered 1 marks with the true count" in out
        assert main(["bench", "vision", "--answer-checks"]) != 0
        assert "only for augur bench game" in capsys.readouterr().err

    def test_a_truncated_or_missing_recording_is_a_one_line_error(self, tmp_path, capsys):
        from augur.cli import main
        from vision.game_recording import recording_path
        self.record(tmp_path)
        path = recording_path(tmp_path, "hard", 7)
        path.write_text(path.read_text()[:-40])
        assert main(["bench", "game", "--replay", str(tmp_path)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("augur: error: ") and "line 8: not JSON" in err and "\n" not in err
        assert main(["bench", "game", "--replay", str(tmp_path / "none")]) == 2
        assert "no game recordings" in capsys.readouterr().err

    @pytest.mark.parametrize("truth", [None, 3, "x", [1, 2]])
    def test_a_frame_whose_truth_is_no_object_is_a_one_line_error(self, tmp_path, capsys, truth):
        """Found by replaying 140 randomly damaged recordings (session 109): an AttributeError."""
        from augur.cli import main
        from vision.game_recording import recording_path
        self.record(tmp_path)
        path = recording_path(tmp_path, "hard", 7)
        lines = path.read_text().splitlines()
        frame = json.loads(lines[4])
        frame["truth"] = truth
        path.write_text("\n".join(lines[:4] + [json.dumps(frame)] + lines[5:]) + "\n")
        assert main(["bench", "game", "--replay", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "line 5: not a recorded frame (its truth is no object)" in err


class TestSetupBench:
    """The set-up film (vision.synth.video.setup_frames) and the scoring of the live game that
    followed it (vision.setup_bench)."""

    @staticmethod
    def truths(players=("red", "blue", "yellow")):
        from vision.synth.video import setup_frames
        return [t for _, t, _ in setup_frames(seed=6, size=(320, 180), fps=2, players=players)]

    def test_the_film_places_one_province_a_move_then_the_first_reinforcements(self):
        truths = self.truths()
        states = [ObservedState.from_dict(t["state"]) for t in truths]
        steps = sorted({t["step"] for t in truths})
        assert steps == list(range(len(steps))) and states[0].regions == {}
        by_step = {t["step"]: s for t, s in zip(truths, states)}
        for k in steps[1:-1]:           # each placement: one free province occupied, by its player's turn
            assert by_step[k].changed_regions(by_step[k - 1]) == {*by_step[k].owners} - {*by_step[k - 1].owners}
            assert len(by_step[k].changed_regions(by_step[k - 1])) == 1
        finished, first_turn = by_step[steps[-2]], by_step[steps[-1]]
        assert len(finished.owners) == 45 and sorted(finished.legions.values()).count(3) == 18     # 2 neutral armies
        (moved,) = first_turn.changed_regions(finished)
        assert finished.owners[moved] == "red" and first_turn.legions[moved] == finished.legions[moved] + 3
        assert {t["actor"] for t in truths if t["step"]} == {"red", "blue", "yellow"}
        assert len({json_corners(t) for t in truths}) == 1       # one camera, fixed
        # with 4 players a neutral group stands on Italia from the start (§3.4)
        four = self.truths(("red", "blue", "yellow", "green"))
        assert [r for r in four[0]["state"]["regions"]] == ["italia"]

    def score(self, truths, missed=()):
        """A live game fed every filmed board change as the camera would commit it, ``missed``
        provinces never seen; its figures."""
        import tempfile
        from pathlib import Path
        from vision.setup_bench import SetupFigures, _score, truth_ends
        from webui.live import LiveGame
        from webui.store import Store
        store = Store(Path(tempfile.mkdtemp()))
        live = LiveGame.open(store, ["red", "blue", "yellow"], resume=False)
        seen = None
        for t in truths:
            d = dict(t["state"], regions={r: v for r, v in t["state"]["regions"].items() if r not in missed})
            state = ObservedState.from_dict(d)
            if seen is None or not state.same_counts(seen):
                live.commit(state)
                seen = state
        figures = SetupFigures("easy", 6)
        _score(figures, live, truth_ends(truths))
        store.close()
        return figures

    def test_a_recorded_setup_replays_as_it_scored(self, tmp_path, capsys):
        """``augur bench setup --record`` / ``--replay``: the states the live game was given,
        fed to a new one, score as they did; a damaged recording is a one-line error."""
        import tempfile
        from pathlib import Path
        from augur.cli import main
        from vision.game_recording import RecordingError
        from vision.setup_bench import SetupFigures, _Given, _score, replay_setup, truth_ends, write_recording
        from webui.live import LiveGame
        from webui.store import Store
        truths = self.truths()
        last = ObservedState.from_dict(truths[-1]["state"])
        missed = sorted(p for p, c in last.owners.items() if c == "blue")[0]     # a warning to replay too
        store = Store(Path(tempfile.mkdtemp()))
        given = _Given(LiveGame.open(store, ["red", "blue", "yellow"], resume=False))
        seen = None
        for t in truths:
            state = ObservedState.from_dict(dict(t["state"], regions={r: v for r, v in t["state"]["regions"].items()
                                                                       if r != missed}))
            if seen is None or not state.same_counts(seen):
                given.commit(state, moved=frozenset(state.changed_regions(seen)) if seen else None)
                seen = state
        played = SetupFigures("easy", 6, frames=len(truths))
        _score(played, given.live, truth_ends(truths))
        store.close()
        path = write_recording(tmp_path, played, 2, truth_ends(truths), ["red", "blue", "yellow"], given.lines)
        assert replay_setup(path) == played and played.warnings == 2 and played.right == 44
        assert main(["bench", "setup", "--replay", str(tmp_path), "--verbose"]) == 0
        out = capsys.readouterr().out
        assert "easy: 1 set-ups" in out and "placements committed right 44 of 45" in out and "in blue's turn" in out
        lines = path.read_text().splitlines()
        path.write_text("\n".join(lines[:5] + [lines[5][:40]]))
        with pytest.raises(RecordingError, match="line 6: not JSON"):
            replay_setup(path)
        header = json.loads(lines[0])
        for key, value, said in (("players", 3, "players are not a list"), ("truth", {"first": {}}, "truth is not")):
            path.write_text("\n".join([json.dumps({**header, key: value})] + lines[1:]))
            with pytest.raises(RecordingError, match=f"its header's {said}"):
                replay_setup(path)
        assert main(["bench", "setup", "--replay", str(tmp_path / "none")]) == 2
        assert "no set-up recordings" in capsys.readouterr().err

    def test_a_setup_seen_whole_scores_clean(self):
        f = self.score(self.truths())
        assert (f.placements, f.right, f.wrong, f.violations, f.warnings) == (45, 45, 0, 0, 0)
        assert f.started == "at the last placement" and f.start_wrong == 0 and f.first_move and f.commits == 45

    def test_a_pile_never_seen_starts_the_game_at_the_first_move(self):
        truths = self.truths()
        last = ObservedState.from_dict(truths[-1]["state"])
        missed = sorted(p for p, c in last.owners.items() if c == "blue")[0]
        f = self.score(truths, missed=(missed,))
        assert (f.right, f.wrong, f.violations) == (44, 0, 0)
        # the set-up rules gave the province read empty to blue, the one army short: as placed
        assert f.started == "at the first move" and f.start_wrong == 0 and f.first_move
        # once, when the next placement passed blue's turn (§3.7), and at the start
        assert f.warnings == 2 and "differs from what the set-up leaves" in f.messages[1]
        assert "in blue's turn" in f.messages[0] and "blue's pair not seen by the camera" in f.messages[0]


class TestRefusedCalibration:
    def test_a_table_the_calibration_refuses_is_said_and_skipped(self, monkeypatch, capsys):
        """One hard table on the print whose board the calibration refuses ends nothing: it is
        named with the reason, and the other tables are played and described."""
        import vision.game_bench as game_bench
        from calibration.localise import BoardNotFound

        def play(tier, seed, *args):
            if seed == 145:
                raise BoardNotFound("a red frame was found but it does not look like this board (match 0.23)")
            return GameVideoFigures(tier, seed, 3)
        monkeypatch.setattr(game_bench, "play_game_video", play)
        out = game_bench.bench_game_videos(("hard",), seeds=(145, 146), turns=3)
        assert [f.seed for f in out["hard"]] == [146]
        printed = capsys.readouterr().out.splitlines()
        assert printed[0] == ("[game hard] seed 145: calibration refused (a red frame was found but it does not look "
                              "like this board (match 0.23)); skipped")
        assert printed[1].startswith("[game hard] 1 game(s) (seed 146)")
        game_bench.bench_game_videos(("hard",), seeds=(145,), turns=3)
        assert capsys.readouterr().out.count("\n") == 1
