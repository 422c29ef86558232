"""The dashboard server, the recording store, live updates, crash safety and archives."""
from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest

from tracker.board import load_board
from tracker.spqrisiko.setup import setup_plan
from tracker.spqrisiko.setup_turns import in_turns
from tracker.spqrisiko.simulator import Simulator
from tracker.state import ObservedState
from vision.geometry import load_geometry
from webui.app import create_app
from webui.live import LiveGame
from webui.loop import export_archive, import_archive, serve
from webui.store import Store, StoreError

PLAYERS = ["red", "blue", "yellow"]


def game_states(n: int = 6):
    sim = Simulator(tuple(PLAYERS), seed=8, max_turns=10)
    return [sim.initial_state] + [s.state for s in list(sim.steps())[: n - 1]]


def misread_setup():
    """A set-up, its first province, that province's pieces, and the set-up as the camera read it:
    that province one legionary short, at 0.95 (the set-up rules settle it back)."""
    setup = game_states(1)[0]
    region = sorted(setup.owners)[0]
    d = setup.to_dict()
    d["regions"][region] = {setup.owners[region]: {"legionary": setup.legions[region] - 1}}
    d["confidence"] = {region: 0.95}
    return setup, region, setup.to_dict()["regions"][region], ObservedState.from_dict(d)


@pytest.fixture
def live(tmp_path):
    store = Store(tmp_path / "rec")
    lg = LiveGame.open(store, PLAYERS, resume=False)
    yield lg
    store.close()


@pytest.fixture
def client(live):
    app = create_app(live)
    c = app.test_client()
    c.csrf = app.config["AUGUR_CSRF"]
    return c


def post(client, url, data, csrf=True, **headers):
    if csrf:
        headers["X-CSRF-Token"] = client.csrf
    return client.post(url, data=json.dumps(data), content_type="application/json", headers=headers)


def old_recording(tmp_path, tables: str):
    """A recording folder whose database an older Augur made: its game table as it first was (one
    game, red and blue), and ``tables`` (SQL) for the rest."""
    folder = tmp_path / "old"
    folder.mkdir()
    db = sqlite3.connect(str(folder / "game.sqlite"))
    db.executescript("""
        CREATE TABLE game (id INTEGER PRIMARY KEY, created REAL NOT NULL, players TEXT NOT NULL,
                           ruleset TEXT NOT NULL, target_vp INTEGER, board TEXT NOT NULL);
        INSERT INTO game VALUES (1, 0, '["red", "blue"]', '2005', NULL, 'spqrisiko');""" + tables)
    db.commit()
    db.close()
    return folder


class TestLiveGame:
    def test_commits_are_tracked_and_recorded(self, live):
        for s in game_states(4):
            live.commit(s, b"\xff\xd8jpeg")
        snaps = live.store.snapshots(live.game_id)
        assert len(snaps) == 4 and snaps[0].source == "setup"
        assert snaps[1].events and snaps[1].actor == "red"
        assert live.store.frame_path(snaps[1].id).read_bytes() == b"\xff\xd8jpeg"

    def test_correction_is_kept_apart_from_the_camera_count(self, live):
        states = game_states(3)
        live.commit(states[0])
        region = next(iter(states[0].owners))
        colour = states[0].owners[region]
        live.correct(region, {colour: {"legionary": 9}})
        corr = live.store.corrections(live.game_id)
        assert corr[0]["before"] != corr[0]["after"] and corr[0]["after"] == {colour: {"legionary": 9}}
        assert live.store.snapshots(live.game_id)[0].state == states[0].to_dict()   # the camera's count stays
        # the camera still reads the old value: the correction goes on applying
        live.commit(states[0])
        assert live.game.state.legions[region] == 9
        # the tablet is told what an undo would undo, in words, to ask the players first
        before = live.game.board.pieces.describe(corr[0]["before"])
        assert live.view()["undo"] == {"region": region, "before_text": before, "after_text": f"9 {colour} legionaries"}
        live.undo()
        assert live.game.state.legions[region] == states[0].legions[region]
        assert [c["undoes"] for c in live.store.corrections(live.game_id)] == [None, corr[0]["id"]]
        assert live.view()["undo"] is None              # nothing left to undo

    def test_a_players_count_stands_over_a_re_read_where_no_hand_changed_the_pieces(self, tmp_path):
        """A player sets a province the camera read one over. A hand beside it has the camera
        read it afresh, two over: no hand changed it, so the player's count stands (and no move is
        read there). A hand in it: the camera's reading is taken. After a restart a player's count
        falls to the camera's next reading otherwise, as any set count does."""
        live = LiveGame.open(Store(tmp_path / "p"), PLAYERS, resume=False)
        s0 = game_states(1)[0]
        region = sorted(s0.provinces_of("blue"))[0]
        right = s0.to_dict()["regions"][region]

        def read(extra: int, **d):
            misread = s0.to_dict()
            misread["regions"][region] = {"blue": {"legionary": s0.legions[region] + extra}}
            return ObservedState.from_dict(dict(misread, **d))

        elsewhere = frozenset({sorted(s0.provinces_of("red"))[0]})
        live.commit(read(1))
        live.correct(region, right)
        view = live.commit(read(2, confidence={region: 0.97}), moved=elsewhere)
        assert live.game.state.regions[region] == right and not view["latest"]["events"]
        live.commit(read(2, confidence={region: 0.97}), moved=frozenset({region}))
        assert live.game.state.legions[region] == s0.legions[region] + 2
        live.correct(region, right)
        live.commit(read(1), moved=elsewhere)
        assert live.game.state.regions[region] == right
        live.store.close()
        live = LiveGame.open(Store(tmp_path / "p"), PLAYERS)               # a restart
        assert live.game.state.regions[region] == right
        live.commit(read(3), moved=elsewhere)
        assert live.game.state.legions[region] == s0.legions[region] + 3
        live.store.close()

    def test_a_count_a_rule_questions_stays_marked_until_a_player_sets_it(self, tmp_path):
        """A sure reading that breaks a rule is marked on the map (``questioned``) at every later
        view, not only beside its commit's verdict, and after a restart, until a player sets the
        region's count."""
        live = LiveGame.open(Store(tmp_path / "q"), PLAYERS, resume=False)
        states = game_states(2)
        live.commit(states[0])
        live.commit(states[1])
        region = sorted(states[1].provinces_of("yellow"))[0]         # yellow is not in turn
        d = states[1].to_dict()
        d["regions"][region] = {"yellow": {"legionary": states[1].legions[region] + 4}}
        d["confidence"] = {region: 0.95}
        view = live.commit(ObservedState.from_dict(d))
        assert any(v["level"] == "violation" and region in v["regions"] for v in view["latest"]["verdicts"])
        assert view["questioned"] == [region]
        view = live.commit(ObservedState.from_dict(d))                  # read so again: still marked
        assert view["questioned"] == [region]
        live.store.close()
        live = LiveGame.open(Store(tmp_path / "q"), PLAYERS)              # a restart replays the game
        assert live.view()["questioned"] == [region]
        view = live.correct(region, d["regions"][region])               # a player confirms it as read
        assert view["questioned"] == []
        view = live.undo()                                              # ... and takes that back
        assert view["questioned"] == [region]
        view = live.correct(region, states[1].to_dict()["regions"][region])     # or sets it right
        assert view["questioned"] == []
        view = live.commit(ObservedState.from_dict(d))                  # the camera still reads it so
        assert view["questioned"] == [] and live.game.state.legions[region] == states[1].legions[region]
        live.store.close()

    def test_undoing_a_count_set_over_a_piece_seen_lying_gives_the_mark_back(self, tmp_path):
        """A player sets the count of a region where the camera saw a piece lying knocked over
        (the mark lifts), then undoes it: the camera's reading is the count again, with its doubt
        and its mark, so the dashboard asks again to stand the piece up."""
        live = LiveGame.open(Store(tmp_path / "l"), PLAYERS, resume=False)
        states = game_states(2)
        live.commit(states[0])
        region = sorted(states[1].provinces_of("yellow"))[0]
        d = states[1].to_dict()
        d.update(confidence={region: 0.4}, lying=[region])
        live.commit(ObservedState.from_dict(d))
        assert live.game.state.lying == frozenset({region})
        live.correct(region, {"yellow": {"legionary": states[1].legions[region] + 1}})
        assert live.game.state.lying == frozenset() and region not in live.game.state.confidence
        live.undo()
        assert live.game.state.lying == frozenset({region}) and live.game.state.confidence[region] == 0.4
        live.store.close()

    def test_a_doubted_placement_the_turn_s_due_accounts_for_is_not_asked_for(self, tmp_path):
        """The player in turn places all it is due in one province, read at 0.5: the view lists it
        as vouched for (the map asks no check of it), after a restart too; one legionary short,
        it is not."""
        for short in (0, 1):
            store = Store(tmp_path / f"v{short}")
            live = LiveGame.open(store, PLAYERS, resume=False)
            s0 = game_states(1)[0]
            live.commit(s0)
            actor, due = live.game.current, live.game.ctx.due
            region = sorted(s0.provinces_of(actor))[0]
            d = s0.to_dict()
            d["regions"][region] = {actor: {"legionary": s0.legions[region] + due - short}}
            d["confidence"] = {region: 0.5}
            view = live.commit(ObservedState.from_dict(d))
            assert view["latest"]["state"]["confidence"][region] < view["low_confidence"]
            assert view["vouched"] == ([] if short else [region]), short
            sid = view["snapshot"]
            # the review of the commit says the same (the snapshot records the vouch)
            assert live.snapshot_detail(sid)["changed"][region]["vouched"] == (not short), short
            store.close()
            live = LiveGame.open(Store(tmp_path / f"v{short}"), PLAYERS)
            assert live.view()["vouched"] == ([] if short else [region]), short
            assert live.snapshot_detail(sid)["changed"][region]["vouched"] == (not short), short
            live.store.close()

    def test_a_region_never_seen_is_asked_for_until_a_player_sets_it_or_the_camera_sees_it(self, tmp_path):
        """A card over two provinces of two armies from the first commit: no count is known there
        (the set-up rules cannot tell whose each is), and the scores count them empty, so the view
        lists them as unknown (the tablet asks for their counts), through a restart, until a
        player sets them (undo asks again) or the camera first sees them."""
        live = LiveGame.open(Store(tmp_path / "u"), PLAYERS, resume=False)
        states = game_states(2)
        a = sorted(states[0].owners)[2]
        b = next(p for p in sorted(states[0].owners) if states[0].owners[p] not in (states[0].owners[a], "neutral")
                 and states[0].owners[p] in PLAYERS)
        colour, right = states[0].owners[a], states[0].to_dict()["regions"][a]
        d = states[0].to_dict()
        for p in (a, b):
            d["regions"].pop(p)
        d["unseen"] = sorted([a, b])
        view = live.commit(ObservedState.from_dict(d))
        assert view["unknown"] == sorted([a, b])
        assert live.game.score(colour).province_count == len(states[0].provinces_of(colour)) - 1
        assert live.commit(ObservedState.from_dict(d))["unknown"] == sorted([a, b])   # still under the card
        live.store.close()
        live = LiveGame.open(Store(tmp_path / "u"), PLAYERS)              # a restart replays the game
        assert live.view()["unknown"] == sorted([a, b])
        view = live.correct(a, right)
        assert view["unknown"] == [b] and live.game.score(colour).province_count == len(states[0].provinces_of(colour))
        assert live.commit(ObservedState.from_dict(d))["unknown"] == [b]      # the set count stands
        assert live.undo()["unknown"] == sorted([a, b])
        view = live.commit(states[0])                                      # the card lifted: seen at last
        assert view["unknown"] == [] and live.game.state.same_counts(states[0])
        live.store.close()

    def test_the_turns_claim_names_the_marked_counts_it_hangs_on(self, live):
        """Every army holds nine provinces after the set-up, so red, first to play, claims no
        province point. Read in doubt at the next commit, a blue province might be red's, which
        would give red the point: the claim hangs on it. A red one would leave red eight against
        nine, still no point: the claim does not hang on it. A player's count ends the doubt."""
        s0 = game_states(1)[0]
        blue, red = sorted(s0.provinces_of("blue"))[0], sorted(s0.provinces_of("red"))[0]
        assert live.commit(s0)["claim"] == {"colour": "red", "round": 1, "turn": 1, "total": 0, "rests_on": []}
        d = s0.to_dict()
        d["confidence"] = {blue: 0.3, red: 0.3}
        view = live.commit(ObservedState.from_dict(d))
        assert view["claim"]["rests_on"] == [blue] and view["current"] == "red"
        view = live.correct(blue, s0.to_dict()["regions"][blue])
        assert view["claim"]["rests_on"] == []

    def test_a_province_never_seen_that_only_one_army_can_hold_is_settled_by_the_set_up_rules(self, live):
        states = game_states(1)
        hidden = sorted(states[0].owners)[2]
        d = states[0].to_dict()
        d["regions"].pop(hidden)
        d["unseen"] = [hidden]
        view = live.commit(ObservedState.from_dict(d))
        assert view["unknown"] == [] and live.game.state.same_counts(states[0])
        (note,) = [v for v in view["latest"]["verdicts"] if v["rule"] == "§3.9"]
        assert note["regions"] == [hidden] and f"{live.game.board.name(hidden)} not seen, taken as" in note["message"]

    def test_set_up_counts_the_rules_fix_stand_over_the_camera_until_undone(self, tmp_path):
        store = Store(tmp_path / "s")
        live = LiveGame.open(store, PLAYERS, resume=False)
        setup, region, right, misread = misread_setup()
        view = live.commit(misread)
        assert live.game.state.same_counts(setup) and region not in live.game.state.confidence
        notes = [v for v in view["latest"]["verdicts"] if v["rule"] == "§3.9"]
        assert len(notes) == 1 and notes[0]["level"] == "warning" and notes[0]["regions"] == [region]
        assert not [v for v in view["latest"]["verdicts"] if v["level"] == "violation"]
        (c,) = store.corrections(live.game_id)
        assert (c["region"], c["before"], c["after"], c["author"]) == (region, misread.regions[region], right,
                                                                       "set-up rules")
        # the camera reads the same again: the set-up's count stands; a restart keeps it
        live.commit(misread)
        assert live.game.state.same_counts(setup)
        store.close()
        live = LiveGame.open(Store(tmp_path / "s"), PLAYERS)
        live.commit(misread)
        assert live.game.state.same_counts(setup)
        # the players say the camera was right: undo lifts the settlement
        live.undo()
        assert live.game.state.same_counts(misread)
        live.store.close()

    def test_set_up_counts_read_as_set_in_doubt_are_vouched_for_and_not_undone(self, tmp_path):
        """The camera read a set-up right but doubted one province's pair: the rules vouch for it, so
        the map does not ask for a check, a restart keeps it so, and Undo leaves it alone (it has
        a settled count to lift, and nothing else)."""
        store = Store(tmp_path / "v")
        live = LiveGame.open(store, PLAYERS, resume=False)
        setup, region, right, misread = misread_setup()
        doubted = sorted(setup.owners)[1]
        d = misread.to_dict()
        d["confidence"][doubted] = 0.5
        read = ObservedState.from_dict(d)
        view = live.commit(read)
        assert live.game.state.same_counts(setup) and doubted not in view["latest"]["state"].get("confidence", {})
        notes = [v for v in view["latest"]["verdicts"] if v["rule"] == "§3.9"]
        assert [n["regions"] for n in notes] == [[region]]                 # the warning names the settled one only
        assert {(c["region"], c["author"]) for c in store.corrections(live.game_id)} == {
            (region, "set-up rules"), (doubted, "set-up rules vouch for it")}
        store.close()
        live = LiveGame.open(Store(tmp_path / "v"), PLAYERS)
        view = live.commit(read)
        assert doubted not in view["latest"]["state"].get("confidence", {})
        live.undo()                                                   # lifts the settled count...
        assert live.game.state.regions[region] == misread.regions[region]
        with pytest.raises(ValueError):                               # ... and nothing more
            live.undo()
        assert doubted not in live.view()["latest"]["state"].get("confidence", {})
        live.store.close()

    def test_a_set_count_is_doubted_once_a_hand_moves_pieces_in_its_region(self, tmp_path):
        """The rules settled a misread set-up count. A hand then changes the region's pieces while
        the camera reads it as before: the count stands but is flagged for a check, and that is
        recorded, so that a restart flags it too; a player's count settles it."""
        store = Store(tmp_path / "m")
        live = LiveGame.open(store, PLAYERS, resume=False)
        setup, region, right, misread = misread_setup()
        live.commit(misread)
        assert live.game.state.same_counts(setup)              # settled by the rules
        view = live.commit(misread, moved=frozenset({sorted(setup.owners)[1]}))   # a hand elsewhere
        assert view["moved"] == [] and region not in view["latest"]["state"].get("confidence", {})
        view = live.commit(misread, moved=frozenset({region}))
        assert live.game.state.same_counts(setup)              # the settled count stands...
        assert view["moved"] == [region] and view["guessed"] == []
        assert view["latest"]["state"]["confidence"][region] < view["low_confidence"]     # ... in doubt
        c = store.corrections(live.game_id)[-1]
        assert (c["region"], c["before"], c["after"], c["author"]) == (
            region, misread.regions[region], right, "pieces moved since it was set")
        store.close()
        live = LiveGame.open(Store(tmp_path / "m"), PLAYERS)          # a restart doubts it too
        view = live.commit(misread)
        assert live.game.state.same_counts(setup) and view["moved"] == [region]
        assert view["latest"]["state"]["confidence"][region] < view["low_confidence"]
        view = live.undo()                                            # "the camera is right"
        assert view["moved"] == [] and live.game.state.regions[region] == misread.regions[region]
        assert view["latest"]["state"]["confidence"][region] == misread.confidence_of(region)   # the camera's
        view = live.correct(region, right)                            # no: a player counts it
        assert view["moved"] == [] and live.game.state.same_counts(setup)
        view = live.commit(misread)
        assert view["moved"] == [] and region not in view["latest"]["state"].get("confidence", {})
        live.store.close()

    def test_set_up_counts_settled_with_the_army_in_doubt_stay_flagged_after_a_restart(self, tmp_path):
        """A yellow pair read as nothing beside a neutral group read as 4 yellow legionaries, both in
        deep doubt (hard set-up seed 297): the rules settle both, but which army stands in each is
        their guess, so the map asks for both, says why, and a restart asks again."""
        setup = game_states(1)[0]
        board = setup.board
        pair, group = next((p, q) for p in sorted(setup.provinces_of("yellow"))
                           for q in sorted(board.land_neighbours[p]) if setup.owners.get(q) == "black")
        d = setup.to_dict()
        d["regions"].pop(pair)
        d["regions"][group] = {"yellow": {"legionary": 4}}
        d["confidence"] = {pair: 0.07, group: 0.09}
        read = ObservedState.from_dict(d)
        store = Store(tmp_path / "d")
        live = LiveGame.open(store, PLAYERS, resume=False)
        view = live.commit(read)
        assert view["setup_doubt"] == sorted([pair, group]) and view["guessed"] == []
        assert all(view["latest"]["state"]["confidence"][r] < view["low_confidence"] for r in (pair, group))
        assert {c["author"] for c in store.corrections(live.game_id)} == {"set-up rules, army in doubt"}
        store.close()
        live = LiveGame.open(Store(tmp_path / "d"), PLAYERS)
        view = live.commit(read)
        assert view["setup_doubt"] == sorted([pair, group])
        assert all(live.game.state.confidence_of(r) < view["low_confidence"] for r in (pair, group))
        view = live.correct(pair, {"yellow": {"legionary": 2}})        # a player sets it: asked no more
        assert view["setup_doubt"] == [group]
        live.store.close()

    def test_a_misread_the_rules_settled_is_carried_past_a_move_in_its_region(self, tmp_path):
        """Set-up read a yellow trireme in the empty Hadriaticum; the rules took it as nothing. Red
        then builds a trireme there and the camera reads both: the yellow one is the same misread,
        so the tracker reads red's trireme alone, flagged for a check, and that is recorded, so
        that a restart carries it too."""
        setup = game_states(1)[0]
        phantom = {"yellow": {"trireme": 1}}

        def read(hadriaticum):
            d = setup.to_dict()
            d["regions"]["hadriaticum"], d["confidence"] = hadriaticum, {"hadriaticum": 0.98}
            return ObservedState.from_dict(d)
        store = Store(tmp_path / "p")
        live = LiveGame.open(store, PLAYERS, resume=False)
        live.commit(read(phantom))
        assert "hadriaticum" not in live.game.state.regions                  # settled as nothing
        built = read({**phantom, "red": {"trireme": 1}})
        view = live.commit(built, moved=frozenset({"hadriaticum"}))
        assert live.game.state.regions["hadriaticum"] == {"red": {"trireme": 1}}
        assert [v for v in view["latest"]["verdicts"] if v["level"] == "violation"] == []
        assert "legionaries_to_trireme" in [e["kind"] for e in view["latest"]["events"]]
        assert view["moved"] == ["hadriaticum"]
        assert view["latest"]["state"]["confidence"]["hadriaticum"] < view["low_confidence"]
        c = store.corrections(live.game_id)[-1]
        assert (c["region"], c["before"], c["after"], c["author"]) == (
            "hadriaticum", built.to_dict()["regions"]["hadriaticum"], {"red": {"trireme": 1}},
            "misread carried past a change")
        store.close()
        live = LiveGame.open(Store(tmp_path / "p"), PLAYERS)           # a restart carries it too
        view = live.commit(built)
        assert live.game.state.regions["hadriaticum"] == {"red": {"trireme": 1}} and view["moved"] == ["hadriaticum"]
        live.store.close()

    def test_a_count_a_hand_changed_and_the_camera_reads_as_before_is_flagged_until_a_player_sets_it(self, tmp_path):
        """A hand changes a province's pieces and the camera reads it as before, short of sure: the
        piece was most likely missed, so the count is flagged for a check, recorded so that a
        restart flags it too; Undo passes it by, and a player's count (or a new reading) clears it."""
        store = Store(tmp_path / "u")
        live = LiveGame.open(store, PLAYERS, resume=False)
        s0, s1 = game_states(2)
        live.commit(s0)
        live.commit(s1)
        region = sorted(s1.provinces_of("blue"))[0]
        d = s1.to_dict()
        d["confidence"] = {region: 0.9}
        read = ObservedState.from_dict(d)
        view = live.commit(read, moved=frozenset({region}))
        assert view["moved"] == [region] and view["latest"]["state"]["confidence"][region] < view["low_confidence"]
        assert live.game.state.same_counts(s1)                          # the camera's count, in doubt
        c = store.corrections(live.game_id)[-1]
        assert (c["region"], c["before"], c["after"], c["author"]) == (
            region, s1.to_dict()["regions"][region], s1.to_dict()["regions"][region], "pieces moved, read as before")
        assert live.commit(read)["moved"] == [region]                  # read so again: still flagged
        store.close()
        live = LiveGame.open(Store(tmp_path / "u"), PLAYERS)           # a restart flags it too
        assert live.commit(read)["moved"] == [region]
        with pytest.raises(ValueError, match="no correction to undo"):
            live.undo()                                                # not a count a player set
        view = live.correct(region, s1.to_dict()["regions"][region])   # a player counts it: as read
        assert view["moved"] == [] and region not in view["latest"]["state"].get("confidence", {})
        assert live.commit(read)["moved"] == []
        live.store.close()

    def test_a_piece_placed_and_read_across_the_border_flags_both_provinces(self, tmp_path):
        """The print's hard seed 348: a hand placed a piece in one province, read as before, and
        the province beside it, of the same army, that no hand touched, read one more. Both are
        flagged, the second saying that no hand touched it, after a restart too."""
        store = Store(tmp_path / "l")
        live = LiveGame.open(store, PLAYERS, resume=False)
        s0, s1 = game_states(2)
        live.commit(s0)
        live.commit(s1)
        board = s1.board
        touched, beside = next((p, q) for p in sorted(s1.owners) for q in sorted(board.land_neighbours[p])
                               if s1.owners.get(q) == s1.owners[p])
        colour = s1.owners[beside]
        d = s1.to_dict()
        d["regions"][beside] = {colour: {"legionary": s1.legions[beside] + 1}}
        read = ObservedState.from_dict(d)
        view = live.commit(read, moved=frozenset({touched}))
        assert view["moved"] == [touched] and view["leaned"] == [beside]
        authors = {c["region"]: c["author"] for c in store.corrections(live.game_id)}
        assert authors == {touched: "pieces moved, read as before", beside: "pieces placed beside it, read here"}
        store.close()
        live = LiveGame.open(Store(tmp_path / "l"), PLAYERS)
        view = live.commit(read)
        assert view["moved"] == [touched] and view["leaned"] == [beside]
        live.store.close()

    def test_a_province_no_hand_reached_into_read_otherwise_is_flagged_after_a_restart_too(self, tmp_path):
        """The print's hard seed 367: a hand placed pieces in one province, and the province beside
        it, which no hand reached into, was read one more, surely. It is flagged, saying that no
        hand reached into it, after a restart too; a player setting its count clears the flag."""
        store = Store(tmp_path / "n")
        live = LiveGame.open(store, PLAYERS, resume=False)
        s0, s1 = game_states(2)
        live.commit(s0)
        live.commit(s1)
        region = sorted(s1.owners)[0]
        colour = s1.owners[region]
        d = s1.to_dict()
        d["regions"][region] = {colour: {"legionary": s1.legions[region] + 1}}
        d["confidence"] = {region: 0.9}
        read = ObservedState.from_dict(d)
        view = live.commit(read, moved=frozenset())
        assert view["untouched"] == [region] and view["moved"] == [] and view["leaned"] == []
        authors = {c["region"]: c["author"] for c in store.corrections(live.game_id)}
        assert authors == {region: "counted otherwise with no hand in it"}
        store.close()
        live = LiveGame.open(Store(tmp_path / "n"), PLAYERS)
        assert live.commit(read)["untouched"] == [region]
        view = live.correct(region, d["regions"][region])      # a player counts it: as read
        assert view["untouched"] == [] and live.commit(read)["untouched"] == []
        live.store.close()

    def test_an_empty_sea_a_hand_changed_and_the_camera_reads_empty_is_flagged_after_a_restart_too(self, tmp_path):
        """A trireme sailed into an empty sea that the camera read empty as before, short of sure:
        the empty sea is flagged, recorded with nothing in it, and flagged again after a restart."""
        store = Store(tmp_path / "s")
        live = LiveGame.open(store, PLAYERS, resume=False)
        s0, s1 = game_states(2)
        live.commit(s0)
        live.commit(s1)
        sea = sorted(r for r in s1.board.seas if not s1.regions.get(r))[0]
        d = s1.to_dict()
        d["confidence"] = {sea: 0.85}
        read = ObservedState.from_dict(d)
        view = live.commit(read, moved=frozenset({sea}))
        assert view["moved"] == [sea] and sea not in live.game.state.regions
        c = store.corrections(live.game_id)[-1]
        assert (c["region"], c["before"], c["after"], c["author"]) == (sea, {}, {}, "pieces moved, read as before")
        store.close()
        live = LiveGame.open(Store(tmp_path / "s"), PLAYERS)
        assert live.commit(read)["moved"] == [sea]
        live.store.close()

    def test_a_power_centre_the_camera_lost_is_kept_until_undone(self, tmp_path):
        store = Store(tmp_path / "c")
        live = LiveGame.open(store, PLAYERS, resume=False)
        setup = game_states(1)[0]
        live.commit(setup)
        province = sorted(setup.provinces_of("red"))[0]
        live.game.hands["red"].count = 3
        live.enter("cards", {"player": "red", "cards": ["arena", "arena", "arena"]})
        d = setup.to_dict()
        d["regions"][province]["neutral"] = {"centre": 1}
        built = ObservedState.from_dict(d)
        live.commit(built)
        assert live.game.state.centres == {province: 1}
        lost = setup           # the camera reads the province as before the centre came
        view = live.commit(lost)
        assert live.game.state.centres == {province: 1}
        notes = [v for v in view["latest"]["verdicts"] if v["rule"] == "§16.2"]
        assert len(notes) == 1 and notes[0]["level"] == "warning" and notes[0]["regions"] == [province]
        assert "kept" in notes[0]["message"]
        (c,) = store.corrections(live.game_id)
        assert (c["region"], c["before"], c["after"], c["author"]) == (
            province, setup.to_dict()["regions"][province], built.to_dict()["regions"][province], "kept by the rules")
        live.commit(lost)                       # read the same again: the centre stays, nothing new recorded
        assert live.game.state.centres == {province: 1} and len(store.corrections(live.game_id)) == 1
        store.close()
        live = LiveGame.open(Store(tmp_path / "c"), PLAYERS)          # a restart keeps it
        live.commit(lost)
        assert live.game.state.centres == {province: 1}
        live.undo()                             # the players say it really left
        assert live.game.state.centres == {}
        live.commit(lost)
        assert live.game.state.centres == {}
        live.store.close()

    def test_a_province_the_camera_reads_empty_keeps_its_army_until_undone(self, tmp_path):
        """§14.1: a province always keeps a legionary, so one read empty after the set-up keeps its
        army at one, recorded like the rules' other holds: a restart keeps it, undo lifts it."""
        store = Store(tmp_path / "e")
        live = LiveGame.open(store, PLAYERS, resume=False)
        setup = game_states(1)[0]
        live.commit(setup)
        province = sorted(setup.provinces_of("blue"))[0]
        d = setup.to_dict()
        d["regions"].pop(province)
        blind = ObservedState.from_dict(d)
        view = live.commit(blind)
        assert live.game.state.regions[province] == {"blue": {"legionary": 1}}
        notes = [v for v in view["latest"]["verdicts"] if v["rule"] == "§14.1"]
        assert len(notes) == 1 and notes[0]["level"] == "warning" and notes[0]["regions"] == [province]
        # the count is a guess: the map goes on asking for a check, and says the rules guessed it
        assert view["latest"]["state"]["confidence"][province] < view["low_confidence"]
        assert view["guessed"] == [province]
        changed = live.snapshot_detail(view["snapshot"])["changed"]
        assert changed[province]["guessed"] and not any(c["guessed"] for r, c in changed.items() if r != province)
        (c,) = store.corrections(live.game_id)
        assert (c["region"], c["before"], c["after"], c["author"]) == (
            province, {}, {"blue": {"legionary": 1}}, "guessed by the rules")
        store.close()
        live = LiveGame.open(Store(tmp_path / "e"), PLAYERS)          # a restart keeps it, still in doubt
        view = live.commit(blind)
        assert live.game.state.owners[province] == "blue"
        assert view["latest"]["state"]["confidence"][province] < view["low_confidence"]
        assert view["guessed"] == [province]
        live.undo()                             # the players say the camera was right
        assert province not in live.game.state.owners
        view = live.commit(blind)
        assert province not in live.game.state.owners and view["guessed"] == []
        live.store.close()

    def test_an_arena_centre_the_camera_missed_is_asked_for_and_marked(self, tmp_path):
        store = Store(tmp_path / "o")
        live = LiveGame.open(store, PLAYERS, resume=False)
        states = game_states(2)
        live.commit(states[0])
        live.game.hands["red"].count = 3
        live.enter("cards", {"player": "red", "cards": ["arena", "legionary", "trireme"]})
        view = live.commit(states[1])                  # red's reinforcements; the centre not seen
        [owed] = view["centres_owed"]
        assert (owed["colour"], owed["count"]) == ("red", 1) and owed["where"]
        province = owed["where"][0]
        assert all(states[1].owners[p] == "red" for p in owed["where"])
        pieces = dict(states[1].to_dict()["regions"][province], neutral={"centre": 1})
        view = live.correct(province, pieces)          # "Centre is here" on the tablet
        assert view["centres_owed"] == [] and live.game.state.centres == {province: 1}
        assert [e["kind"] for e in view["latest"]["events"]] == ["centre_placed"]
        assert not [v for v in view["latest"]["verdicts"] if v["level"] == "violation"]
        live.commit(states[1])                         # the camera still misses it: the mark stands
        assert live.game.state.centres == {province: 1}
        store.close()
        live = LiveGame.open(Store(tmp_path / "o"), PLAYERS)       # a restart replays it all
        assert live.view()["centres_owed"] == [] and live.game.state.centres == {province: 1}
        live.store.close()

    def test_a_set_up_read_as_set_records_no_correction(self, live):
        setup = game_states(1)[0]
        live.commit(setup)
        assert live.store.corrections(live.game_id) == [] and live.game.state.same_counts(setup)

    def test_resume_after_restart(self, tmp_path):
        store = Store(tmp_path / "r")
        lg = LiveGame.open(store, PLAYERS)
        for s in game_states(5):
            lg.commit(s)
        vp, turn = dict(lg.game.vp), lg.game.turn_no
        store.close()
        again = LiveGame.open(Store(tmp_path / "r"), PLAYERS)
        assert again.game_id == lg.game_id and again.game.vp == vp and again.game.turn_no == turn

    def test_a_change_the_tracker_cannot_read_is_recorded_and_the_game_goes_on(self, tmp_path, monkeypatch):
        """An error inside the tracker's reading of one change (here made on purpose, as a bad
        second thought once did) does not stop the game or lose the commit: it is recorded with a
        violation saying so, the tracker stays at the state before it, the next change is read
        as usual, and a restart replays the same."""
        import tracker.hindsight as hindsight
        from tracker.errors import StateError
        states = game_states(4)
        live = LiveGame.open(Store(tmp_path / "x"), PLAYERS, resume=False)
        live.commit(states[0])
        live.commit(states[1])
        before = live.game.state
        real = hindsight._one_off

        def broken(game, journal, state, turn_hint):
            if state.same_counts(states[2]):
                raise StateError("a reading no state can hold")
            return real(game, journal, state, turn_hint)
        monkeypatch.setattr(hindsight, "_one_off", broken)
        view = live.commit(states[2])
        snaps = live.store.snapshots(live.game_id)
        assert len(snaps) == 3 and view["snapshot"] == snaps[-1].id
        [v] = snaps[-1].verdicts
        assert v["level"] == "violation" and "could not read this change (a reading no state can hold)" in v["message"]
        assert live.game.state is before
        live.commit(states[3])
        assert live.game.state.same_counts(states[3])
        live.store.close()
        again = LiveGame.open(Store(tmp_path / "x"), PLAYERS)           # a restart replays it all
        assert again.game.state.same_counts(states[3]) and len(again.game.history) == len(live.game.history)

    def test_truncated_database_is_refused_not_overwritten(self, tmp_path):
        folder = tmp_path / "bad"
        folder.mkdir()
        (folder / "game.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00" * 50)
        with pytest.raises(StoreError):
            Store(folder)
        assert (folder / "game.sqlite").read_bytes().startswith(b"SQLite format 3")


class TestDashboardApi:
    def test_page_and_geometry(self, client):
        page = client.get("/")
        assert page.status_code == 200 and b'name="csrf-token"' in page.data
        geo = client.get("/api/geometry").get_json()
        assert len(geo["polygons"]) == 57 and len(geo["track_boxes"]) == 41

    def test_the_correction_form_asks_for_the_board_s_pieces(self, client):
        from webui.schematic import piece_form
        from tracker.pieces import PIECE_SETS
        pieces = client.get("/api/geometry").get_json()["pieces"]
        assert pieces["army"] == ["legionary", "vexillum", "trireme"] and pieces["neutral"] == ["centre"]
        assert pieces["plurals"]["vexillum"] == "vexilla" and "purple" not in pieces["colours"]
        lotr = piece_form(PIECE_SETS["lotr"])
        assert lotr["army"] == ["infantry", "cavalry", "creature", "leader"] and lotr["neutral"] == ["ring"]
        assert piece_form(PIECE_SETS["risiko"])["army"] == ["tank", "flag"]

    def test_state_after_commits(self, client, live):
        for s in game_states(3):
            live.commit(s)
        v = client.get("/api/state").get_json()
        assert v["players"] == PLAYERS and v["current"] and v["state"]["regions"]
        assert set(v["scores"]) == set(PLAYERS)

    def test_writes_need_the_csrf_token(self, client, live):
        live.commit(game_states(1)[0])
        r = post(client, "/api/corrections", {"region": "italia", "pieces": {}}, csrf=False)
        assert r.status_code == 403
        r = client.post("/api/corrections", data="region=italia", content_type="application/x-www-form-urlencoded",
                        headers={"X-CSRF-Token": client.csrf})
        assert r.status_code == 415

    def test_correction_confirm_and_cards(self, client, live):
        states = game_states(3)
        for s in states:
            live.commit(s)
        region = next(iter(states[-1].owners))
        colour = states[-1].owners[region]
        r = post(client, "/api/corrections", {"region": region, "pieces": {colour: {"legionary": 7}}})
        assert r.status_code == 200 and r.get_json()["state"]["regions"][region][colour] == {"legionary": 7}
        snap = next(s for s in live.store.snapshots(live.game_id) if s.events)
        r = post(client, "/api/decisions", {"snapshot": snap.id, "event": 0, "verdict": "confirmed"})
        assert r.status_code == 200 and live.store.decisions(snap.id)[0]["verdict"] == "confirmed"
        r = post(client, "/api/entries", {"kind": "draw", "payload": {"player": live.game.current}})
        assert r.status_code == 200 and live.store.entries(live.game_id)[0]["kind"] == "draw"
        assert post(client, "/api/corrections", {"region": "atlantis", "pieces": {}}).status_code == 400
        assert post(client, "/api/corrections", {"region": region, "pieces": {"red": {"trireme": 1}}}).status_code == 400

    def test_a_card_drawn_is_judged_and_recorded_with_the_next_commit(self, client, live):
        """Red draws in blue's turn: the tablet answers at once that it recorded the card, and the
        commit after it carries "outside their own turn" into the recording, for a dispute."""
        states = game_states(4)
        for s in states[:3]:
            live.commit(s)
        assert live.game.current == "blue"
        r = post(client, "/api/entries", {"kind": "draw", "payload": {"player": "red"}})
        assert r.status_code == 200 and r.get_json()["entry_verdicts"] == []
        live.commit(states[3])
        last = live.store.snapshots(live.game_id)[-1]
        assert [v["message"] for v in last.verdicts] == ["red drew a card outside their own turn"]
        assert [v["message"] for v in live.view()["recent"][0]["verdicts"]] == [
            "red drew a card outside their own turn"]

    def test_a_card_drawn_with_nothing_after_it_is_judged_once_the_table_settles(self, client, live, tmp_path):
        """The player in turn draws with no conquest committed and nothing moves: once the grace
        has passed, a settled table judges the card; the judgement is recorded as the camera's
        entry, joins the Rules list, is judged once, and is replayed at the same point."""
        from webui.live import DRAW_GRACE_S, LiveGame
        states = game_states(4)
        for s in states[:3]:
            live.commit(s)
        drawer = live.game.current
        assert not live.game.ctx.conquered
        assert live.table_settled() is None                      # nothing drawn: nothing to judge
        post(client, "/api/entries", {"kind": "draw", "payload": {"player": drawer}})
        assert live.game.draws_waiting
        assert live.table_settled(now=live.draw_entered + DRAW_GRACE_S / 2) is None     # a hand may still come
        said = live.table_settled(now=live.draw_entered + DRAW_GRACE_S)
        assert [(v["level"], v["message"]) for v in said] == [
            ("violation", f"{drawer} drew a card without conquering a province")]
        assert live.table_settled(now=live.draw_entered + 2 * DRAW_GRACE_S) is None       # judged once
        drawn, judged = live.store.entries(live.game_id)
        assert (drawn["kind"], judged["kind"], judged["verdicts"]) == ("draw", "judge_draws", said)
        assert [j["verdicts"] for j in live.view()["judged"]] == [said] and live.view()["out_of_sync"]
        review = client.get("/api/entries").get_json()
        assert review[-1]["text"].startswith("the table stood still after the card drawn")
        live.commit(states[3])
        assert "§17.1" not in [v["rule"] for v in live.store.snapshots(live.game_id)[-1].verdicts]
        again = LiveGame.open(live.store, list(live.game.players))
        assert again.game_id == live.game_id and not again.game.draws_waiting
        assert again.game.hands[drawer].count == live.game.hands[drawer].count
        assert post(client, "/api/entries", {"kind": "judge_draws", "payload": {}}).status_code == 400

    def test_a_settled_frame_lets_the_loop_judge_a_card(self, live):
        import numpy as np

        from vision.gate import GateResult
        from vision.pipeline import FrameResult
        from webui.loop import feed
        states = game_states(3)
        for s in states:
            live.commit(s)
        live.enter("draw", {"player": live.game.current})
        live.draw_entered -= 10.0                                   # entered a while ago
        still = GateResult(True, 0.0, 0.0)
        script = iter([FrameResult(1, still), FrameResult(2, still, settled=True)])

        class Scripted:
            def process(self, image):
                return next(script)

        lines: list[str] = []
        feed(live, Scripted(), iter([np.zeros((4, 4, 3), np.uint8)] * 2), log=lines.append)
        assert [e["kind"] for e in live.store.entries(live.game_id)] == ["draw", "judge_draws"]
        assert len(lines) == 1 and "drew a card without conquering" in lines[0]

    def test_tablet_entries_are_recorded_with_their_verdicts_and_reviewed_beside_the_next_commit(self, client, live):
        """Red sets cards in blue's turn and draws: the recording keeps the answer the table was
        given; the review lists both entries after the last commit, then before the next one."""
        states = game_states(4)
        for s in states[:3]:
            live.commit(s)
        post(client, "/api/entries", {"kind": "cards", "payload": {"player": "red",
                                                                   "cards": ["legionary", "legionary", "legionary"]}})
        post(client, "/api/entries", {"kind": "draw", "payload": {"player": "red"}})
        played, drawn = live.store.entries(live.game_id)
        assert "§8.2" in [v["rule"] for v in played["verdicts"]] and drawn["verdicts"] == []
        pending = client.get("/api/entries").get_json()
        assert [(e["text"], e["before"]) for e in pending] == [
            ("red played cards: legionary, legionary, legionary", None), ("red drew a card", None)]
        live.commit(states[3])
        snaps = client.get("/api/snapshots").get_json()
        assert [s["entries"] for s in snaps] == [0, 0, 0, 2] and snaps[-1]["level"] == "violation"
        d = client.get(f"/api/snapshots/{snaps[-1]['id']}").get_json()
        assert [e["text"] for e in d["entries"]] == ["red played cards: legionary, legionary, legionary",
                                                      "red drew a card"]
        assert d["entries"][0]["verdicts"][0]["level"] == "violation"
        assert client.get(f"/api/snapshots/{snaps[-2]['id']}").get_json()["entries"] == []
        assert all(e["before"] == snaps[-1]["id"] for e in client.get("/api/entries").get_json())

    def test_an_old_recording_without_the_vouch_opens_and_keeps_its_snapshots(self, tmp_path):
        """A recording made before snapshots kept the counts the rules vouched for opens: its
        snapshots read as vouching for none, and a new one records its own."""
        store = Store(old_recording(tmp_path, """
            CREATE TABLE snapshot (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL, t REAL NOT NULL,
                source TEXT NOT NULL, state TEXT NOT NULL, actor TEXT, round INTEGER, turn INTEGER,
                events TEXT NOT NULL DEFAULT '[]', verdicts TEXT NOT NULL DEFAULT '[]',
                scores TEXT NOT NULL DEFAULT '{}', frame TEXT, detections TEXT NOT NULL DEFAULT '[]');
            INSERT INTO snapshot (id, game_id, t, source, state) VALUES (1, 1, 5.0, 'camera', '{"regions": {}}');"""))
        assert store.snapshot(1).vouched == () and store.snapshot(1).state == {"regions": {}}
        sid = store.add_snapshot(1, "camera", {"regions": {}}, vouched=["raetia", "dacia"])
        assert store.snapshot(sid).vouched == ("dacia", "raetia") and store.snapshot(sid).to_dict()["vouched"] == ["dacia", "raetia"]
        store.close()

    def test_an_old_recording_without_entry_verdicts_opens_and_keeps_its_entries(self, tmp_path):
        store = Store(old_recording(tmp_path, """
            CREATE TABLE entry (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL, t REAL NOT NULL,
                                kind TEXT NOT NULL, payload TEXT NOT NULL);
            INSERT INTO entry VALUES (1, 1, 5.0, 'draw', '{"player": "red"}');"""))
        assert store.entries(1) == [{"id": 1, "t": 5.0, "kind": "draw", "payload": {"player": "red"}, "verdicts": []}]
        store.add_entry(1, "draw", {"player": "blue"}, [{"level": "ok", "rule": "§17", "message": "m"}])
        assert store.entries(1)[-1]["verdicts"][0]["rule"] == "§17"
        store.close()

    def test_review_endpoints(self, client, live):
        states = game_states(3)
        for k, s in enumerate(states):
            if k == 1:      # the camera doubted one region of the second state and could not see another
                d = s.to_dict()
                changed = sorted(r for r in set(d["regions"]) | set(states[0].to_dict()["regions"])
                                 if d["regions"].get(r) != states[0].to_dict()["regions"].get(r))
                d["confidence"] = {changed[0]: 0.42}
                d["unseen"] = changed[1:2]
                s = ObservedState.from_dict(d)
            live.commit(s, b"\xff\xd8x")
        snaps = client.get("/api/snapshots").get_json()
        assert len(snaps) == 3
        d = client.get(f"/api/snapshots/{snaps[1]['id']}").get_json()
        assert d["changed"] and d["previous"] == snaps[0]["id"]
        assert d["changed"][changed[0]]["confidence"] == 0.42 and d["changed"][changed[0]]["seen"]
        assert d["changed"][changed[1]]["confidence"] == 0.0 and not d["changed"][changed[1]]["seen"]
        assert all(c["confidence"] == 1.0 for r, c in d["changed"].items() if r not in changed[:2])
        # each change in words too, as the review lists it: "empty", or each army's pieces
        for c in d["changed"].values():
            for side in ("before", "after"):
                text, pieces = c[f"{side}_text"], c[side]
                assert "{" not in text and (text == "empty") == (not pieces), text
                assert all(f"{n} {colour} " in text for colour, kinds in pieces.items() for n in kinds.values())
        assert client.get(f"/api/snapshots/{snaps[1]['id']}/frame.jpg").data == b"\xff\xd8x"
        assert d["frame_size"] is None                  # a frame whose header gives no size
        assert client.get("/api/snapshots/999/frame.jpg").status_code == 404
        assert client.get("/api/snapshots/..%2f..%2fgame.sqlite/frame.jpg").status_code == 404

    def test_body_size_limit(self, client):
        r = post(client, "/api/corrections", {"region": "italia", "pieces": {"x": "y" * 100_000}})
        assert r.status_code == 413

    def test_lan_mode_needs_the_join_pin(self, live):
        app = create_app(live, join_token="123456")
        c = app.test_client()
        live.commit(game_states(1)[0])
        h = {"X-CSRF-Token": app.config["AUGUR_CSRF"]}
        body = json.dumps({"kind": "draw", "payload": {"player": "red"}})
        assert c.post("/api/entries", data=body, content_type="application/json", headers=h).status_code == 403
        h["X-Join-Token"] = "123456"
        assert c.post("/api/entries", data=body, content_type="application/json", headers=h).status_code == 200


class TestMalformedRequests:
    """Whatever a tablet (or anything else on the network) posts, the answer is a 4xx with a reason,
    never a 500 and a traceback in the server's log. Each case below was a 500 found by throwing
    nearly 3,000 malformed requests at every endpoint (session 109)."""

    @pytest.fixture
    def played(self, client, live):
        for s in game_states(4):
            live.commit(s)
        return client

    def test_a_body_nested_deeper_than_python_parses_is_refused(self, played):
        deep = '{"region": ' + "[" * 5000 + "]" * 5000 + "}"
        for url in ("/api/corrections", "/api/decisions", "/api/entries", "/api/setup", "/api/calibration/anchors"):
            r = played.post(url, data=deep, content_type="application/json", headers={"X-CSRF-Token": played.csrf})
            assert r.status_code == 400 and "JSON object" in r.get_json()["error"], url

    def test_a_snapshot_number_past_sqlites_integers_does_not_exist(self, played, live):
        huge = 10 ** 30
        assert played.get(f"/api/snapshots/{huge}").status_code == 404
        r = post(played, "/api/decisions", {"snapshot": huge, "event": 0, "verdict": "confirmed"})
        assert r.status_code == 400 and r.get_json()["error"] == "no such event"
        assert live.store.snapshot(-(10 ** 30)) is None and live.store.detections(huge) == []

    @pytest.mark.parametrize("payload", ["red", 3, [["red"]], True])
    def test_an_entry_whose_payload_is_not_an_object_is_refused(self, played, live, payload):
        for kind in ("dice", "draw", "cards"):
            r = post(played, "/api/entries", {"kind": kind, "payload": payload})
            assert r.status_code == 400 and "payload" in r.get_json()["error"], (kind, r.get_json())
        assert live.store.entries(live.game_id) == []

    @pytest.mark.parametrize("target", [[1], {"red": 1}])
    def test_a_target_that_is_no_number_is_refused(self, played, live, target):
        before = live.game_id
        r = post(played, "/api/setup", {"players": PLAYERS, "target_vp": target})
        assert r.status_code == 400 and live.game_id == before

    def test_nothing_malformed_is_a_server_error(self, played, live):
        """A seeded sample of odd values in every field of every endpoint that writes."""
        import itertools
        import random
        odd = [None, True, 0, -1, 10 ** 30, "", "x", "red", "italia", [], [1], {}, {"a": 1},
               {"red": {"legionary": -3}}, {"red": {"legionary": "3"}}, {"red": []}, {"player": "red"},
               {"attacker": "66", "defender": [1]}, {"player": [], "cards": [None]}]
        bodies = {
            "/api/corrections": lambda a, b: {"region": a, "pieces": b},
            "/api/decisions": lambda a, b: {"snapshot": a, "event": b, "verdict": "confirmed"},
            "/api/entries": lambda a, b: {"kind": random.choice(["cards", "draw", "dice", "declare", a]),
                                          "payload": b},
            "/api/setup": lambda a, b: {"players": a, "target_vp": b, "ruleset": random.choice(["2005", "lotr", a])},
            "/api/calibration/anchors": lambda a, b: {"anchors": a, "reset": b},
        }
        random.seed(109)
        codes = {}
        for url, make in bodies.items():
            for a, b in itertools.product(odd, odd):
                r = post(played, url, make(a, b))
                codes[r.status_code] = codes.get(r.status_code, 0) + 1
                assert r.status_code < 500, (url, a, b)
        assert codes.get(400, 0) > 1000


class TestLiveUpdates:
    def test_eight_tablets_receive_every_update(self, live):
        _, server = serve(create_app(live), "127.0.0.1", 0)
        port = server.server_port
        received = [[] for _ in range(8)]
        ready = threading.Barrier(9)

        def tablet(k):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/stream", timeout=20) as resp:
                ready.wait()
                for raw in resp:
                    line = raw.decode().strip()
                    if line.startswith("data: "):
                        received[k].append(json.loads(line[6:]).get("snapshot"))
                        if len(received[k]) >= 6:
                            return

        threads = [threading.Thread(target=tablet, args=(k,), daemon=True) for k in range(8)]
        for t in threads:
            t.start()
        ready.wait(timeout=10)
        time.sleep(0.3)
        sids = [live.commit(s)["snapshot"] for s in game_states(5)]
        for t in threads:
            t.join(timeout=20)
        server.shutdown()
        for r in received:
            assert [x for x in r if x is not None] == sids


class TestCrashSafety:
    def test_sigkill_mid_game_loses_nothing_committed(self, tmp_path):
        record = tmp_path / "rec"
        script = f"""
import sys, time
sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})
from tests.test_webui import game_states
from webui.live import LiveGame
from webui.store import Store
live = LiveGame.open(Store({str(record)!r}), ["red", "blue", "yellow"])
states = game_states(30)
live.commit(states[0])
r = next(iter(states[0].owners))
live.correct(r, {{states[0].owners[r]: {{"legionary": 7}}}})
print("corrected", flush=True)
for s in states[1:]:
    live.commit(s)
    print("committed", flush=True)
    time.sleep(0.05)
time.sleep(60)
"""
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        seen = 0
        for line in proc.stdout:
            seen += line.startswith("committed")
            if seen == 12:
                break
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        store = Store(record)
        snaps = store.snapshots(store.last_game()["id"])
        assert len(snaps) >= 2 + 12 - 1        # set-up, correction, and every state it said it committed
        assert store.corrections(store.last_game()["id"])[0]["after"]
        db = sqlite3.connect(str(record / "game.sqlite"))
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        again = LiveGame.open(store, PLAYERS)
        assert again.game.turn_no >= 1


class TestArchive:
    def test_export_import_round_trip_and_tamper_check(self, live, tmp_path):
        for s in game_states(3):
            live.commit(s, b"\xff\xd8frame")
        archive = export_archive(live.store.folder, tmp_path / "game.augur.zip")
        dest = import_archive(archive, tmp_path / "opened")
        other = Store(dest)
        assert len(other.snapshots(other.last_game()["id"])) == 3
        import zipfile
        bad = tmp_path / "bad.zip"
        with zipfile.ZipFile(archive) as src, zipfile.ZipFile(bad, "w") as out:
            for item in src.namelist():
                data = src.read(item)
                out.writestr(item, data + b"x" if item.startswith("frames/") else data)
        from tracker.errors import AugurError
        with pytest.raises(AugurError, match="checksum mismatch"):
            import_archive(bad, tmp_path / "bad")
        with pytest.raises(AugurError, match="not an Augur game archive"):
            import_archive(tmp_path / "game.augur.zip.missing", tmp_path / "x")


class TestDamagedRecordings:
    """A recording damaged outside Augur is refused in one line that says where, and left as it
    is: by ``augur export`` before anything is written, and by whatever reads the damaged row
    (a review, a resumed game). Until session 109 these were sqlite3 and JSON tracebacks."""

    @pytest.fixture
    def recording(self, live, tmp_path):
        for s in game_states(3):
            live.commit(s, b"\xff\xd8frame")
        live.store.close()
        return live.store.folder

    def _digest(self, folder):
        return {p.name: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}

    @pytest.mark.parametrize("damage, said", [
        (lambda db: db.write_bytes(db.read_bytes()[: len(db.read_bytes()) // 3]), "is not a usable recording"),
        (lambda db: db.write_bytes(b"not sqlite" * 100), "is not a usable recording (file is not a database)"),
        (lambda db: db.write_bytes(b""), "is not a usable recording (no such table: game)"),
    ])
    def test_export_refuses_a_damaged_database_and_writes_nothing(self, recording, tmp_path, damage, said):
        damage(recording / "game.sqlite")
        before = self._digest(recording)
        with pytest.raises(StoreError, match=re.escape(said)):
            export_archive(recording, tmp_path / "game.zip")
        assert not (tmp_path / "game.zip").exists() and self._digest(recording) == before

    @pytest.mark.parametrize("sql, said", [
        ("UPDATE snapshot SET state = '{bad' WHERE id = 2", "snapshot 2's state cannot be read"),
        ("UPDATE snapshot SET state = '[1, 2]' WHERE id = 2", "snapshot 2's state cannot be read"),
        ("UPDATE snapshot SET events = '7' WHERE id = 3", "snapshot 3's events cannot be read"),
        ("UPDATE game SET players = 'red'", "game 1's players cannot be read"),
        ("INSERT INTO track_reading (game_id, t, snapshot_id, boxes, vp) VALUES (1, 0, 3, '{\"red\": \"5\"}', '{}')",
         "track reading 1's boxes cannot be read"),
        ("INSERT INTO track_reading (game_id, t, snapshot_id, boxes, vp) VALUES (1, 0, 3, '{}', '[]')",
         "track reading 1's score cannot be read"),
    ])
    def test_a_damaged_row_is_refused_where_it_is_read_and_left_as_it_is(self, recording, tmp_path, capsys, sql, said):
        from augur.cli import main
        db = sqlite3.connect(str(recording / "game.sqlite"))
        db.execute(sql)
        db.commit()
        db.close()
        before = self._digest(recording)
        with pytest.raises(StoreError, match=re.escape(f"the recording is damaged ({said}); it was left untouched")):
            store = Store(recording)
            LiveGame.open(store, PLAYERS, resume=True)
        store.close()
        assert main(["export", str(recording), "-o", str(tmp_path / "game.zip")]) == 0     # the evidence, as it is
        capsys.readouterr()
        assert main(["review", str(tmp_path / "game.zip"), "--no-serve"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err
        assert self._digest(recording) == before


class TestSetup:
    def test_new_game_from_the_setup_form(self, client, live):
        states = game_states(3)
        for s in states:
            live.commit(s)
        old = live.game_id
        r = post(client, "/api/setup", {"players": ["blue", "red", "yellow", "green"], "ruleset": "english-sheet",
                                        "target_vp": "12"})
        v = r.get_json()
        assert r.status_code == 200 and v["game_id"] != old and v["players"] == ["blue", "red", "yellow", "green"]
        assert v["ruleset"] == "english-sheet" and v["target_vp"] == 12
        assert live.store.latest(live.game_id).source == "setup"     # started on the board in view
        assert post(client, "/api/setup", {"players": ["red", "red", "blue"]}).status_code == 400
        assert post(client, "/api/setup", {"players": "red"}).status_code == 400

    def test_a_setup_count_set_before_the_first_move_is_no_move(self, live):
        """A set-up misread in the first player's colour, set right on the tablet before anyone
        moved: the game starts again on the set-up as set (no conquest in red's turn), red's
        first placement is no breach, and a restart reads the recording so again."""
        states = game_states(2)
        setup, first = states
        red = sorted(setup.provinces_of("red"))[0]
        d = setup.to_dict()
        d["regions"][red] = {"blue": {"legionary": 2}}
        d["confidence"] = {red: 0.5}
        live.commit(ObservedState.from_dict(d))
        v = live.correct(red, {"red": {"legionary": 2}})
        assert not [x for x in v["recent"][0]["verdicts"] if x["level"] == "violation"]
        assert live.game.history == [] and live.game.current == "red"
        v = live.commit(first)
        assert [x for x in v["recent"][0]["verdicts"] if x["level"] == "violation"] == []
        track = [(e.colour, e.score.total) for e in live.game.score_track]
        again = LiveGame.open(live.store, PLAYERS)
        assert [(e.colour, e.score.total) for e in again.game.score_track] == track
        assert len(again.game.history) == 1 and again.game.state.same_counts(live.game.state)

    def test_preview_needs_a_calibrated_frame(self, client):
        assert client.get("/api/calibration/preview.jpg").status_code == 404

    def test_preview_draws_the_fitted_map_on_the_latest_frame(self, client, live):
        import cv2

        from calibration.profile import calibrate
        from tests.test_vision import PLAYERS as MARKERS, scene
        from vision.synth.board_art import procedural_art
        img, _, cal = scene()
        live.profile = calibrate(cal, procedural_art(), players=MARKERS)
        ok, buf = cv2.imencode(".jpg", img)
        live.commit(game_states(1)[0], buf.tobytes())
        r = client.get("/api/calibration/preview.jpg")
        assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data[:2] == b"\xff\xd8"

    def test_the_view_gives_the_camera_frame_size_once_calibrated(self, live):
        from calibration.profile import calibrate
        from tests.test_vision import PLAYERS as MARKERS, scene
        from vision.synth.board_art import procedural_art
        img, _, cal = scene()
        assert live.view()["camera_size"] is None       # no camera followed: no size to keep room for
        live.profile = calibrate(cal, procedural_art(), players=MARKERS)
        assert live.view()["camera_size"] == [img.shape[1], img.shape[0]]

    def test_map_fitted_from_drags_on_the_preview_and_saved(self, client, live, tmp_path):
        import cv2
        import numpy as np

        from calibration.profile import CalibrationProfile, calibrate
        from tests.test_vision import PLAYERS as MARKERS, scene
        from vision.synth.board_art import procedural_art
        img, _, cal = scene()
        live.profile = calibrate(cal, procedural_art(), players=MARKERS)
        live.profile_path = tmp_path / "cal.json"
        live.profile.save(live.profile_path)
        live.commit(game_states(1)[0], cv2.imencode(".jpg", img)[1].tobytes())
        before = client.get("/api/calibration/preview.jpg")
        geo = live.profile.geometry
        points = [geo.label_points[r] for r in ("britannia", "aegyptus", "mauretania")]
        at = lambda H, pts: cv2.perspectiveTransform(np.float64(pts).reshape(-1, 1, 2), H).reshape(-1, 2)  # noqa: E731
        moved = np.array([[1, 0, 6], [0, 1, -4], [0, 0, 1.0]])
        drags = [{"from": a.tolist(), "to": b.tolist()}
                 for a, b in zip(at(live.profile.H, points), at(live.profile.H @ moved, points))]
        assert post(client, "/api/calibration/anchors", {"anchors": drags}, csrf=False).status_code == 403
        r = post(client, "/api/calibration/anchors", {"anchors": drags})
        assert r.status_code == 200 and r.get_json()["saved"] == str(tmp_path / "cal.json")
        np.testing.assert_allclose(r.get_json()["map_warp"], moved, atol=1e-6)
        assert live.profile.geometry.region_at(*at(moved, points[:1])[0]) == "britannia"
        np.testing.assert_allclose(CalibrationProfile.load(tmp_path / "cal.json").map_warp, moved, atol=1e-6)
        after = client.get("/api/calibration/preview.jpg")
        assert after.status_code == 200 and after.data != before.data        # drawn with the moved map
        # wrong drags: a one-line reason, nothing changed
        r = post(client, "/api/calibration/anchors", {"anchors": [{"from": [1, 2]}]})
        assert r.status_code == 400 and "anchor 1" in r.get_json()["error"]
        r = post(client, "/api/calibration/anchors", {"anchors": [{"from": [0, 0], "to": [900, 0]}]})
        assert r.status_code == 400 and "too far" in r.get_json()["error"]
        np.testing.assert_allclose(live.profile.map_warp, moved, atol=1e-6)
        r = post(client, "/api/calibration/anchors", {"reset": True})
        assert r.status_code == 200 and r.get_json()["map_warp"] is None
        assert CalibrationProfile.load(tmp_path / "cal.json").map_warp is None
        # a calibration file that cannot be written: said in one line, the old file untouched
        live.profile_path = tmp_path / "gone" / "cal.json"
        r = post(client, "/api/calibration/anchors", {"anchors": drags})
        assert r.status_code == 400 and "could not be written" in r.get_json()["error"]
        assert CalibrationProfile.load(tmp_path / "cal.json").map_warp is None

    def test_no_map_to_fit_without_a_calibration(self, client):
        r = post(client, "/api/calibration/anchors", {"anchors": [{"from": [1, 2], "to": [3, 4]}]})
        assert r.status_code == 404


def setup_order(final: ObservedState) -> list[str]:
    """The provinces of ``final``'s set-up in an order of play that makes it (§3.7): each army's
    in the order of their names."""
    plan = setup_plan(final.board, PLAYERS)
    return [p for _, p in in_turns({c: sorted(final.provinces_of(c)) for c in plan.shares}, plan)]


def setup_steps(final: ObservedState, missed: tuple[str, ...] = ()):
    """The boards of ``final``'s set-up being made, one province occupied at a time in the order
    of play (:func:`setup_order`), every free province read at 0.15 (the camera doubts an empty
    province: none is empty once the game is on); ``missed``: provinces the camera never sees."""
    board = final.board
    regions, out = {}, []
    order = [p for p in setup_order(final) if p not in missed]
    for k in range(len(order) + 1):
        if k:
            regions[order[k - 1]] = final.to_dict()["regions"][order[k - 1]]
        confidence = {p: 0.15 for p in board.provinces if p not in regions}
        out.append(ObservedState.from_dict({"board": board.id, "regions": dict(regions), "confidence": confidence}))
    return out


class TestSetupFollowed:
    """A game begun on the empty board follows the set-up (§3.7-3.9) placement by placement."""

    def test_whole_setup_followed_then_the_first_turn(self, live):
        final = game_states(1)[0]
        steps = setup_steps(final)
        v = live.commit(steps[0])
        assert v["current"] is None and len(v["placing"]["free"]) == 45 and v["recent"][0]["verdicts"] == []
        assert v["placing"]["shares"] == {"red": 9, "blue": 9, "yellow": 9, "green": 9, "black": 9}
        v = live.commit(steps[1])
        first = setup_order(final)[0]
        assert [e["target"] for e in v["recent"][0]["events"]] == [first]
        assert v["placing"]["held"][final.owners[first]] == 1 and live.store.latest(live.game_id).source == "placing"
        for s in steps[2:]:
            v = live.commit(s)
        assert v["placing"] is None and v["current"] == "red" and v["recent"][0]["verdicts"] == []
        assert live.store.latest(live.game_id).source == "setup" and not v["out_of_sync"]
        # a restart follows the recorded set-up again and goes on in the same turn
        again = LiveGame.open(live.store, PLAYERS)
        assert again.game.current == "red" and not again.game.placing
        assert again.game.state.same_counts(live.game.state)

    def test_restart_in_the_middle_of_the_setup(self, live):
        steps = setup_steps(game_states(1)[0])
        for s in steps[:4]:
            live.commit(s)
        again = LiveGame.open(live.store, PLAYERS)
        assert again.game.placing and len(again.view()["placing"]["free"]) == 42
        v = again.commit(steps[4])
        assert len(v["recent"][0]["events"]) == 1 and v["recent"][0]["verdicts"] == []

    def test_first_turn_on_a_setup_read_with_a_pile_missed(self, live):
        final = game_states(1)[0]
        missed = sorted(p for p, c in final.owners.items() if c == "blue")[0]
        steps = setup_steps(final, missed=(missed,))
        for s in steps:
            live.commit(s)
        assert live.game.placing           # one province free: the set-up may go on
        d = steps[-1].to_dict()
        own = sorted(p for p, c in final.owners.items() if c == "red")[0]
        d["regions"][own] = {"red": {"legionary": 5}}     # red's first reinforcements
        v = live.commit(ObservedState.from_dict(d))
        started, turn = live.store.snapshots(live.game_id)[-2:]
        assert started.source == "setup" and turn.source == "camera" and v["placing"] is None
        # the province read empty was blue's, the one army short: the set-up rules settled it
        assert started.state["regions"][missed] == {"blue": {"legionary": 2}}
        assert [e["kind"] for e in turn.events] == ["reinforcement"] and turn.events[0]["target"] == own
        again = LiveGame.open(live.store, PLAYERS)
        assert again.game.current == live.game.current and again.game.state.same_counts(live.game.state)

    @staticmethod
    def _misread_in_two_ways(live, touched: bool):
        """Yellow's pair read as 3 blue legionaries, a neutral group never seen, then red's first
        reinforcements, the hand over the misread pair too where ``touched``."""
        final = game_states(1)[0]
        order = setup_order(final)
        misread = next(p for p in order[6:] if final.owners[p] == "yellow")
        missed = next(p for p in reversed(order) if final.owners[p] not in PLAYERS)
        steps = []
        for s in setup_steps(final, missed=(missed,)):
            d = s.to_dict()
            if misread in d["regions"]:
                d["regions"][misread] = {"blue": {"legionary": 3}}
                d["confidence"][misread] = 0.95
            steps.append(ObservedState.from_dict(d))
        for s in steps:
            live.commit(s)
        assert live.game.placing and live.game.state.regions[misread] == {"blue": {"legionary": 2}}
        d = steps[-1].to_dict()
        own = sorted(p for p, c in final.owners.items() if c == "red")[0]
        d["regions"][own] = {"red": {"legionary": 5}}
        live.commit(ObservedState.from_dict(d), moved=frozenset({own, misread} if touched else {own}))
        return final, misread, missed, own

    def test_a_pair_misread_in_two_ways_goes_back_when_the_first_turn_begins(self, live):
        """The print's hard set-up of seed 12: yellow's pair read as 3 blue legionaries (held at
        blue's 2 as it was placed), a neutral group never seen, and the game started by red's
        first reinforcements. The finished set-up gives the pair back to yellow (placed in
        yellow's turn) and the free province to the neutral army short of one. The camera still
        reads 3 blue there: yellow's 2 hold, and the turn shows red's reinforcements alone."""
        final, misread, missed, own = self._misread_in_two_ways(live, touched=False)
        started, turn = live.store.snapshots(live.game_id)[-2:]
        assert started.source == "setup"
        assert started.state["regions"][misread] == {"yellow": {"legionary": 2}}
        assert started.state["regions"][missed] == {final.owners[missed]: {"legionary": 3}}
        assert [(e["kind"], e["target"]) for e in turn.events] == [("reinforcement", own)]
        assert live.game.state.regions[misread] == {"yellow": {"legionary": 2}}
        assert not live.overrides[misread].moved
        again = LiveGame.open(live.store, PLAYERS)
        assert again.game.state.same_counts(live.game.state)

    def test_a_count_the_set_up_settled_as_the_first_turn_began_is_doubted_where_that_hand_went(self, live):
        """The same, the first hand over the misread pair too: the count the set-up settled there
        may be out of date already, so it holds, doubted, and the dashboard asks for a check."""
        _, misread, _, _ = self._misread_in_two_ways(live, touched=True)
        assert live.game.state.regions[misread] == {"yellow": {"legionary": 2}}
        assert live.view()["moved"] == [misread]

    def test_a_hand_resting_on_the_board_during_the_setup_is_only_marked(self, live):
        steps = setup_steps(game_states(1)[0])
        for s in steps[:3]:
            live.commit(s)
        n = len(live.store.snapshots(live.game_id))
        d = steps[2].to_dict()
        d["unseen"] = ["italia"]
        live.resight(ObservedState.from_dict(d))
        v = live.view()
        assert v["state"]["unseen"] == ["italia"] and "italia" not in v["placing"]["free"]
        assert len(live.store.snapshots(live.game_id)) == n and live.game.placing

    def test_a_game_file_replayed_on_the_dashboard_follows_its_setup(self, live):
        """``augur replay --serve`` commits a file's states as "replay": a file that begins on the
        empty board is followed the same way, and a restart of its recording agrees."""
        final = game_states(1)[0]
        for s in setup_steps(final):
            v = live.commit(s, source="replay")
        sources = [s.source for s in live.store.snapshots(live.game_id)]
        assert sources == ["placing"] * 45 + ["replay"] and v["current"] == "red" and v["placing"] is None
        again = LiveGame.open(live.store, PLAYERS)
        assert again.game.current == "red" and again.game.state.same_counts(final)

    def test_a_count_corrected_during_the_setup_is_judged_as_placed_so(self, live):
        """A player's count is no piece put on an occupied province, and near the set-up's end no
        first move: the province is judged as occupied with what the player set (§3.7)."""
        final = game_states(1)[0]
        steps = setup_steps(final)
        for s in steps[:-2]:                       # two provinces left free
            live.commit(s)
        first = setup_order(final)[0]
        colour = final.owners[first]
        v = live.correct(first, {colour: {"legionary": 2}})
        assert v["recent"][0]["verdicts"] == [] and v["placing"] is not None
        v = live.correct(first, {colour: {"legionary": 3}})
        assert [(x["rule"], x["level"]) for x in v["recent"][0]["verdicts"]] == [("§3.7", "violation")]
        assert "exactly 2" in v["recent"][0]["verdicts"][0]["message"] and v["placing"] is not None
        again = LiveGame.open(live.store, PLAYERS)
        assert again.game.placing and again.game.state.legions[first] == 3

    def test_the_next_placement_is_shown_and_one_out_of_turn_is_marked(self, live):
        """§3.7: the status line says whose placement is next; a pair in a colour the order of
        play does not expect (blue's read as yellow's, say) is a warning, and its province is
        marked for a check although its count reads as a placement leaves it."""
        final = game_states(1)[0]
        steps = setup_steps(final)
        v = live.commit(steps[0])
        assert v["placing"]["turn"]["text"] == "red to place a pair and a neutral group"
        v = live.commit(steps[1])
        assert v["placing"]["turn"]["text"] == "red to place a neutral group"
        v = live.commit(steps[2])
        assert v["placing"]["turn"] == {"player": "blue", "pair": True, "group": True,
                                        "text": "blue to place a pair and a neutral group"}
        blue = setup_order(final)[2]
        d = steps[3].to_dict()
        d["regions"][blue] = {"yellow": {"legionary": 2}}
        v = live.commit(ObservedState.from_dict(d))
        (warning,) = v["recent"][0]["verdicts"]
        assert warning["level"] == "warning" and warning["regions"] == [blue] and "in blue's turn" in warning["message"]
        assert not v["out_of_sync"] and blue in v["placing"]["vouched"] and blue in v["questioned"]

    def test_a_placement_read_with_a_wrong_count_is_held_at_the_rules_count(self, live):
        """§3.7 fixes a placement's count: a neutral group read surely as 4 is taken as 3 (a
        warning names it, and the correction is recorded), not a violation, and a restart keeps it."""
        final = game_states(1)[0]
        steps = setup_steps(final)
        live.commit(steps[0])
        live.commit(steps[1])
        group = setup_order(final)[1]
        army = final.owners[group]
        assert army not in PLAYERS
        d = steps[2].to_dict()
        d["regions"][group] = {army: {"legionary": 4}}
        d["confidence"][group] = 0.95
        v = live.commit(ObservedState.from_dict(d))
        (warning,) = v["recent"][0]["verdicts"]
        assert warning["level"] == "warning" and warning["regions"] == [group] and not v["out_of_sync"]
        assert v["state"]["regions"][group] == {army: {"legionary": 3}}
        assert [e["amount"] for e in v["recent"][0]["events"]] == [3]
        (c,) = live.store.corrections(live.game_id)
        assert c["author"] == "set-up rules" and c["after"] == {army: {"legionary": 3}}
        live.commit(steps[3])          # the camera still reads 4 there: the rules' 3 holds
        assert live.game.state.legions[group] == 3
        again = LiveGame.open(live.store, PLAYERS)
        assert again.game.placing and again.game.state.legions[group] == 3
        # undo lifts the rules' count: the camera's 4 is judged as placed so (§3.7)
        v = live.undo()
        assert v["state"]["regions"][group] == {army: {"legionary": 4}} and v["out_of_sync"]
        assert [(x["rule"], x["level"]) for x in v["recent"][0]["verdicts"]] == [("§3.7", "violation")]

    def test_a_fleet_read_during_the_setup_is_taken_as_the_rules_leave_the_sea(self, live):
        """The print's hard set-up of seed 14 read a black trireme in Sinus Gallicus, surely, from
        its fourth commit on: a §3.10 violation at every commit, the dashboard out of sync for the
        whole set-up. Nobody puts a fleet down then, so the sea is taken empty, as a finished
        set-up's is: a warning names what the camera read, and the rules' count holds."""
        steps = setup_steps(game_states(1)[0])
        sea = "sinus_gallicus"
        for k, s in enumerate(steps[:12]):
            d = s.to_dict()
            if k >= 3:
                d["regions"][sea] = {"black": {"trireme": 1}}
                d["confidence"][sea] = 0.97
            v = live.commit(ObservedState.from_dict(d))
            verdicts = v["recent"][0]["verdicts"]
            assert not v["out_of_sync"] and not [x for x in verdicts if x["level"] == "violation"]
            assert sea not in v["state"]["regions"]
            if k == 3:
                (w,) = verdicts
                assert w["rule"] == "§3.9" and w["regions"] == [sea] and "1 black trireme, taken as nothing" in w["message"]
            elif k > 3:
                assert verdicts == []

    def test_a_doubtful_pile_on_the_first_board_is_no_placement(self, live):
        """The print's hard set-up of seed 15 read 1 yellow legionary in Galatia (0.15) from its
        first board on, where blue's pair went later: taken as placed, it was named out of turn,
        without its neutral group, and again when the pair went there. No placement leaves one
        legionary, and nothing else is placed yet: it is held as nothing while the camera reads it
        so, said once, and the pair placed there later is followed as any other."""
        final = game_states(1)[0]
        order = setup_order(final)
        ghost = next(p for p in order[8:] if final.owners[p] == "blue")
        steps = setup_steps(final)
        placed_at = next(k for k, s in enumerate(steps) if ghost in s.regions)
        for k, s in enumerate(steps):
            d = s.to_dict()
            if k < placed_at:
                d["regions"][ghost] = {"yellow": {"legionary": 1}}
            v = live.commit(ObservedState.from_dict(d))
            verdicts = v["recent"][0]["verdicts"]
            if k == 0:
                (w,) = verdicts
                assert w["rule"] == "§3.7" and w["regions"] == [ghost] and "1 yellow legionary" in w["message"]
                assert ghost not in v["state"]["regions"]
            else:
                assert verdicts == [], (k, verdicts)
            if k == 4:           # a restart holds it as nothing too
                live = LiveGame.open(live.store, PLAYERS)
                assert ghost not in live.game.state.regions
            if k == placed_at:
                assert [e["target"] for e in v["recent"][0]["events"]] == [ghost]
        assert v["placing"] is None and live.game.state.regions[ghost] == {"blue": {"legionary": 2}}

    def test_a_board_in_play_starts_at_once(self, live):
        v = live.commit(game_states(1)[0])
        assert v["placing"] is None and v["current"] == "red"


class TestDisputeTools:
    def test_dice_entered_for_a_dispute(self, client, live):
        live.commit(game_states(1)[0])
        r = post(client, "/api/entries", {"kind": "dice", "payload": {"attacker": [6, 3, 1], "defender": [5, 3]}})
        v = r.get_json()
        assert r.status_code == 200 and "attacker loses 1, defender loses 1" in v["entry_verdicts"][0]["message"]
        assert live.store.entries(live.game_id)[-1]["payload"]["losses"] == {"attacker": 1, "defender": 1}
        assert post(client, "/api/entries", {"kind": "dice", "payload": {"attacker": [7], "defender": [1]}}).status_code == 400

    def test_detection_overlay_on_demand(self, client, live):
        import cv2

        from calibration.profile import calibrate
        from tests.test_vision import PLAYERS as MARKERS, scene
        from vision.synth.board_art import procedural_art
        img, _, cal = scene()
        live.profile = calibrate(cal, procedural_art(), players=MARKERS)
        ok, buf = cv2.imencode(".jpg", img)
        sid = live.commit(game_states(1)[0], buf.tobytes(),
                          detections=[{"foot": [500.0, 400.0], "kind": "legionary", "colour": "red", "score": 0.9}])["snapshot"]
        r = client.get(f"/api/snapshots/{sid}/overlay.jpg")
        assert r.status_code == 200 and r.data[:2] == b"\xff\xd8"
        assert live.store.detections(sid)[0]["colour"] == "red"
        # a frame file damaged on disk: no overlay, and the snapshot's state is still served
        path = live.store.frame_path(sid)
        path.write_bytes(path.read_bytes()[:path.stat().st_size // 2])
        r = client.get(f"/api/snapshots/{sid}/overlay.jpg")
        assert r.status_code == 404 and b"damaged" in r.data
        r = client.get(f"/api/snapshots/{sid}/frame.jpg")     # nor the frame, drawn grey where it is cut
        assert r.status_code == 404 and b"damaged" in r.data
        assert client.get(f"/api/snapshots/{sid}").status_code == 200


class TestOtherRulesets:
    """The dashboard follows every ruleset: a schematic map where no region geometry is fitted yet."""

    def test_lotr_game_replayed_into_the_dashboard(self, tmp_path):
        from tracker.replay import replay_lines
        from tracker.risiko.rules import risiko_rules
        from tracker.risiko.simulator import simulate_game
        start, steps, header = simulate_game(risiko_rules("lotr"), seed=4, max_turns=8)
        lg = LiveGame.open(Store(tmp_path / "rec"), header["game"]["players"], "lotr", resume=False)
        for ln in replay_lines(start, steps):
            for e in ln.entries:
                lg.enter(e["kind"], {k: v for k, v in e.items() if k != "kind"})
            out = lg.commit(ln.state, source="replay")
        assert out["board"] == "lotr" and out["current"] == steps[-1].actor
        assert all(v["level"] != "violation" for s in out["recent"] for v in s["verdicts"])
        app = create_app(lg)
        c = app.test_client()
        geo = c.get("/api/geometry").get_json()
        assert geo["schematic"] and set(geo["polygons"]) == set(load_board("lotr").provinces)
        assert geo["values"] == {"infantry": 1, "cavalry": 3, "creature": 5}
        state = c.get("/api/state").get_json()
        assert state["scores"][steps[-1].actor]["points"] == lg.game.score(steps[-1].actor).points > 0

    @pytest.mark.parametrize("ruleset, symbols, dice", [
        ("classic", ["infantry", "cavalry", "artillery", "wild"], {"attack": 3, "defence": 3, "naval": False}),
        ("lotr", ["infantry", "cavalry", "creature", "wild"], {"attack": 3, "defence": 2, "naval": False}),
        ("tournament-2v2", ["infantry", "cavalry", "artillery", "wild"], None)])
    def test_the_tablet_s_cards_and_dice_follow_the_ruleset(self, tmp_path, ruleset, symbols, dice):
        """The card symbols and dice the tablet offers are the ruleset's: a set of infantry is
        played in a classic game (the form offered S.P.Q.RisiKo!'s legionaries until session
        124, refused there), the LotR defender rolls two dice at most, and the dice-free
        tournament has no dice to enter."""
        from tracker.replay import replay_lines
        from tracker.risiko.rules import risiko_rules
        from tracker.risiko.simulator import simulate_game
        start, steps, header = simulate_game(risiko_rules(ruleset), seed=5, max_turns=3)
        lg = LiveGame.open(Store(tmp_path / "rec"), header["game"]["players"], ruleset, resume=False,
                           extra={"neutrals": header["game"].get("neutrals", [])})
        app = create_app(lg)
        c = app.test_client()
        c.csrf = app.config["AUGUR_CSRF"]
        v = c.get("/api/state").get_json()
        assert v["card_symbols"] == symbols and v["dice"] == dice
        first = next(iter(replay_lines(start, steps)))
        lg.commit(first.state, source="replay")
        names = {g.name for g in risiko_rules(ruleset).reinforcement_groups(lg.game.board.groups)}
        for standing in c.get("/api/state").get_json()["scores"].values():      # the groups held, by name
            assert len(standing["group_names"]) == len(standing["groups"]) and set(standing["group_names"]) <= names
        played = post(c, "/api/entries", {"kind": "cards", "payload": {"player": lg.game.current, "cards": symbols[:1] * 3}})
        assert played.status_code == 200, played.get_json()
        r = post(c, "/api/entries", {"kind": "dice", "payload": {"attacker": [6, 2], "defender": [5, 4, 1]}})
        if dice is None:
            assert r.status_code == 400 and "fights without dice" in r.get_json()["error"]
        elif dice["defence"] == 2:
            assert r.status_code == 400 and "defender's dice are a list of 1 to 2 values" in r.get_json()["error"]
        else:       # attacking with fewer dice than the defender is no breach outside S.P.Q.RisiKo! (§10.13)
            said = r.get_json()["entry_verdicts"]
            assert r.status_code == 200 and [x["level"] for x in said] == ["ok"] and said[0]["rule"] == "classic: attacco"
        r = post(c, "/api/entries", {"kind": "dice", "payload": {"attacker": [6], "defender": [5], "naval": True}})
        assert r.status_code == 400

    def test_a_player_s_card_names_the_continents_held(self, tmp_path):
        from tracker.replay import replay_lines
        from tracker.risiko.rules import risiko_rules
        from tracker.risiko.simulator import simulate_game
        start, steps, header = simulate_game(risiko_rules("classic"), seed=5, max_turns=3)
        players = header["game"]["players"]
        lg = LiveGame.open(Store(tmp_path / "rec"), players, "classic", resume=False)
        state = next(iter(replay_lines(start, steps))).state.to_dict()
        oceania = min(lg.game.board.groups.values(), key=lambda g: len(g.members))
        for member in oceania.members:
            state["regions"][member] = {players[0]: {"tank": 2}}
        lg.commit(ObservedState.from_dict(state), source="replay")
        standing = lg.view()["scores"][players[0]]
        assert standing["groups"] == [oceania.id] and standing["group_names"] == [oceania.name]

    def test_a_card_set_before_any_turn_is_refused_in_words(self, client, live):
        r = post(client, "/api/entries", {"kind": "cards", "payload": {"player": "red", "cards": ["legionary"] * 3}})
        assert r.status_code == 400
        assert r.get_json()["error"] == ("a card set played before any turn has begun: the camera has not yet "
                                         "committed the game's first turn; enter it in its player's turn")
        assert live.store.entries(live.game_id) == []

    def test_a_tournament_without_neutral_colour_is_refused_at_setup(self, client):
        r = post(client, "/api/setup", {"players": ["red", "blue", "yellow", "green"], "ruleset": "tournament-2v2"})
        assert r.status_code == 400 and "neutral" in r.get_json()["error"]
        ok = post(client, "/api/setup", {"players": ["red", "blue", "yellow", "green"], "ruleset": "tournament-2v2",
                                         "neutrals": ["purple"]})
        assert ok.status_code == 200 and ok.get_json()["board"] == "risiko-classic"

    def test_recordings_keep_the_neutral_colours(self, tmp_path):
        store = Store(tmp_path / "r")
        LiveGame.open(store, ["green", "red"], "lotr", resume=False, extra={"neutrals": ["yellow"]})
        again = LiveGame.open(Store(tmp_path / "r"), ["green", "red"], "lotr")
        assert again.game.neutrals == ("yellow",)


class TestCameraNotice:
    def test_a_notice_reaches_the_tablets_when_it_changes_and_clears_on_a_clear_still_frame(self, live):
        import numpy as np

        from vision.gate import GateResult
        from vision.pipeline import FrameResult
        from webui.loop import feed
        still, moving = GateResult(True, 0.0, 0.0), GateResult(False, 0.1, 0.0, "motion")
        out_of_view = "the board is out of view or has moved; keeping the last committed state"
        light = "the light has changed a lot since calibration (blue x1.9 to match it): calibrate again if the counts go wrong"
        script = iter([FrameResult(1, still, error=out_of_view), FrameResult(2, still, error=out_of_view),
                       FrameResult(3, moving), FrameResult(4, None, error="unreadable frame"),
                       FrameResult(5, still, notice=light), FrameResult(6, still)])

        class Scripted:
            def process(self, image):
                return next(script)

        tablet = live.subscribe()
        lines: list[str] = []
        feed(live, Scripted(), iter([np.zeros((4, 4, 3), np.uint8)] * 6), log=lines.append)
        heard = []
        while not tablet.empty():
            heard.append(tablet.get_nowait()["camera_notice"])
        assert heard == [out_of_view, light, ""]         # a hand moving or a bad frame changes nothing
        assert lines == [f"  camera: {out_of_view}", f"  camera: {light}"]
        assert live.view()["camera_notice"] == ""
        # a frame refused for its size (a camera that changed its resolution) says so until a still
        # frame of the calibration's size clears it
        resized = "the camera now delivers 640x360 frames, the calibration was made at 1280x720; keeping ..."
        script = iter([FrameResult(7, None, error=resized, notice=resized), FrameResult(8, still)])
        feed(live, Scripted(), iter([np.zeros((4, 4, 3), np.uint8)] * 2), log=lines.append)
        heard = []
        while not tablet.empty():
            heard.append(tablet.get_nowait()["camera_notice"])
        assert heard == [resized, ""] and lines[-1] == f"  camera: {resized}"

    def test_marks_alone_reach_the_tablets_and_the_record_keeps_its_snapshots(self, live):
        """A state the pipeline resighted (the same counts, other unseen marks) updates what the
        tablets show and records nothing; one whose counts differ is left for a commit."""
        import numpy as np

        from vision.gate import GateResult
        from vision.pipeline import FrameResult
        from webui.loop import feed
        states = game_states(2)
        live.commit(states[0])
        live.commit(states[1])
        region = next(iter(states[1].owners))
        hidden = ObservedState.from_dict(dict(states[1].to_dict(), unseen=[region]))
        still = GateResult(True, 0.0, 0.0)
        script = iter([FrameResult(1, still, resighted=hidden)])

        class Scripted:
            def process(self, image):
                return next(script)

        tablet = live.subscribe()
        snaps, turn = len(live.store.snapshots(live.game_id)), live.game.turn_no
        feed(live, Scripted(), iter([np.zeros((4, 4, 3), np.uint8)]))
        assert tablet.get_nowait()["state"]["unseen"] == [region]
        assert live.game.state.unseen == {region} and live.game.turn_no == turn
        assert len(live.store.snapshots(live.game_id)) == snaps
        live.resight(states[0])             # other counts: a move, for a commit
        assert live.game.state.unseen == {region} and live.game.state.to_dict()["regions"] == states[1].to_dict()["regions"]
        assert live.last_camera is hidden and len(live.store.snapshots(live.game_id)) == snaps


class TestEarlierGames:
    """A recording holds every game played at the table (a new game from the Set-up form, a film
    followed as a new game): the review lists them and shows an earlier one's snapshots, entries
    and changes, on the same board. Until session 110 it showed the game being played alone."""

    @pytest.fixture
    def two_games(self, live):
        for s in game_states(3):
            live.commit(s, b"\xff\xd8frame")
        post_dice = {"attacker": [6, 3, 1], "defender": [5, 3]}
        live.enter("dice", post_dice)
        first = live.game_id
        live.restart(PLAYERS)           # the next game at this table, on the board as it stands
        return first, live.game_id

    def test_every_game_is_listed_and_an_earlier_one_reviewed(self, client, live, two_games):
        first, second = two_games
        games = client.get("/api/games").get_json()
        assert [(g["id"], g["current"], g["reviewable"], g["snapshots"]) for g in games] == \
            [(first, False, True, 3), (second, True, True, 1)]
        earlier = [s.id for s in live.store.snapshots(first)]
        assert [s["id"] for s in client.get(f"/api/snapshots?game={first}").get_json()] == earlier
        assert [s["id"] for s in client.get("/api/snapshots").get_json()] == [s.id for s in live.store.snapshots(second)]
        detail = client.get(f"/api/snapshots/{earlier[-1]}").get_json()
        assert detail["previous"] == earlier[-2] and detail["changed"]
        entries = client.get(f"/api/entries?game={first}").get_json()
        assert [e["kind"] for e in entries] == ["dice"] and entries[0]["before"] is None
        assert client.get("/api/entries").get_json() == []

    def test_a_game_on_another_board_or_none_at_all_is_refused(self, client, live, two_games):
        other = live.store.new_game(list(PLAYERS), "classic", None, "risiko-classic")
        sid = live.store.add_snapshot(other, "camera", {"board": "risiko-classic", "regions": {}})
        assert [g["reviewable"] for g in client.get("/api/games").get_json()] == [True, True, False]
        assert client.get(f"/api/snapshots?game={other}").status_code == 404
        assert client.get(f"/api/snapshots/{sid}").status_code == 404
        r = client.get("/api/snapshots?game=999")
        assert r.status_code == 404 and "no game 999 on this board" in r.get_json()["error"]
        assert client.get("/api/entries?game=two").status_code == 400


class TestRecordedCameraView:
    """Each committed frame is recorded with the calibration and the pose it was read with
    (``webui.camera_view``): the review draws the map and a region's close-up where the board lay
    then, after a bump too, and from an archive reviewed without any calibration. Until session
    110 every overlay was drawn with the calibration in use now, and an archive's not at all."""

    REGION = "italia"

    @pytest.fixture
    def table(self, live, tmp_path):
        """A calibrated camera's frame committed, then the board bumped 48 pixels right and down
        (the pose found again, as the pipeline does) and a second frame committed; yields the
        two snapshot ids and the pose before the bump."""
        import cv2
        import numpy as np

        from calibration.profile import CalibrationProfile
        from tests.test_vision import calibrated_file_text, scene
        img, _, _ = scene()
        (tmp_path / "cal.json").write_text(calibrated_file_text())
        live.profile = CalibrationProfile.load(tmp_path / "cal.json")
        assert live.profile.k1 == 0.0       # a bump moves the undistorted frame as it moves the raw one
        feet = [{"foot": list(live.profile.geometry.label_points[self.REGION]), "kind": "legionary",
                 "colour": "red", "score": 0.9}]
        states = game_states(2)
        first = live.commit(states[0], cv2.imencode(".jpg", img)[1].tobytes(), detections=feet)["snapshot"]
        H0 = live.profile.H.copy()
        shift = np.float64([[1, 0, 48], [0, 1, 48], [0, 0, 1]])
        bumped = cv2.warpAffine(img, shift[:2], img.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
        live.profile.H = shift @ H0
        second = live.commit(states[1], cv2.imencode(".jpg", bumped)[1].tobytes(), detections=feet)["snapshot"]
        return first, second, H0

    @staticmethod
    def image(response):
        import cv2
        import numpy as np
        assert response.status_code == 200 and response.mimetype == "image/jpeg", response.data[:200]
        return cv2.imdecode(np.frombuffer(response.data, np.uint8), cv2.IMREAD_COLOR)

    def test_each_frame_keeps_its_pose_and_the_calibration_is_kept_once(self, live, table):
        import numpy as np
        first, second, H0 = table
        a, b = live.store.camera(first), live.store.camera(second)
        assert a["calibration"] == b["calibration"]
        assert [p.name for p in live.store.calibrations.iterdir()] == [a["calibration"]]
        np.testing.assert_allclose(a["H"], H0)
        np.testing.assert_allclose(b["H"], live.profile.H)
        # a map fitted on the Set-up tab is another calibration: kept beside the first
        from calibration.map_fit import parse_anchors
        live.fit_map(parse_anchors([{"from": [600, 300], "to": [604, 303]}, {"from": [300, 500], "to": [303, 504]},
                                    {"from": [900, 500], "to": [903, 503]}], "anchors"))
        third = live.commit(game_states(3)[2], b"\xff\xd8frame")["snapshot"]
        assert live.store.camera(third)["calibration"] != a["calibration"]
        assert len(list(live.store.calibrations.iterdir())) == 2
        assert live.store.camera(live.correct(self.REGION, {"red": {"legionary": 2}})["snapshot"]) is None

    def test_a_close_up_shows_the_region_where_the_board_lay_then(self, client, live, table):
        import numpy as np

        from calibration.profile import board_pose
        from vision.image_file import read_image
        from webui.camera_view import SeenAs, close_up
        first, second, _ = table
        before = self.image(client.get(f"/api/snapshots/{first}/regions/{self.REGION}.jpg"))
        after = self.image(client.get(f"/api/snapshots/{second}/regions/{self.REGION}.jpg"))
        # the same province in both frames, though the board moved between them
        assert before.shape == after.shape and before.shape[1] >= 300
        same = np.abs(before.astype(int) - after.astype(int)).mean()
        # drawn with the pose in use now (after the bump), the first frame shows another patch
        wrong = close_up(read_image(live.store.frame_path(first)), SeenAs(live.profile, board_pose(live.profile.H)),
                         live.store.detections(first), self.REGION)
        assert same < 12 < np.abs(before.astype(int) - wrong.astype(int)).mean(), same
        # the whole frame's overlay too: the map where the board lay
        assert self.image(client.get(f"/api/snapshots/{first}/overlay.jpg")).shape[:2] == (720, 1280)

    def test_a_map_fitted_since_does_not_move_the_map_on_older_frames(self, client, live, table):
        import numpy as np

        from calibration.map_fit import parse_anchors
        first, _, _ = table
        url = f"/api/snapshots/{first}/regions/{self.REGION}.jpg"
        before = self.image(client.get(url))
        live.fit_map(parse_anchors([{"from": [600, 300], "to": [625, 320]}, {"from": [300, 500], "to": [325, 520]},
                                    {"from": [900, 500], "to": [925, 520]}], "anchors"))
        assert np.abs(self.image(client.get(url)).astype(int) - before.astype(int)).mean() < 1
        # a frame committed with the map so fitted shows it there
        sid = live.commit(game_states(3)[2], live.store.frame_path(first).read_bytes())["snapshot"]
        moved = self.image(client.get(f"/api/snapshots/{sid}/regions/{self.REGION}.jpg"))
        assert moved.shape != before.shape or np.abs(moved.astype(int) - before.astype(int)).mean() > 5

    def test_every_close_up_is_one_square_the_page_can_hold_room_for(self, client, live, table):
        from webui.camera_view import CLOSE_UP_SIDE
        first, _, _ = table
        assert client.get("/api/geometry").get_json()["close_up_side"] == CLOSE_UP_SIDE
        for rid in live.profile.geometry.region_ids:
            shape = self.image(client.get(f"/api/snapshots/{first}/regions/{rid}.jpg")).shape
            assert shape[:2] == (CLOSE_UP_SIDE, CLOSE_UP_SIDE), rid

    def test_a_close_up_square_shows_the_board_not_past_the_frame_s_edge(self):
        import numpy as np

        from webui.camera_view import CLOSE_UP_PAD, _cut, _squared
        assert _squared(100, 140, 80, 1280) == (80, 160)            # widened about its middle
        assert _squared(0, 40, 80, 1280) == (0, 80)                 # at the edge: slid inside, not padded
        assert _squared(1250, 1280, 60, 1280) == (1220, 1280)
        assert _squared(10, 700, 100, 720) == (10, 700)             # already the longer side
        assert _squared(0, 720, 800, 720) == (-40, 760)             # longer than the frame: centred, padded
        frame = np.full((720, 1280, 3), 200, np.uint8)
        cut = _cut(frame, 100, -40, 900, 760)
        assert cut.shape == (800, 800, 3)
        assert (cut[:40] == CLOSE_UP_PAD).all() and (cut[760:] == CLOSE_UP_PAD).all() and (cut[40:760] == 200).all()

    def test_a_close_up_is_turned_north_up_whichever_side_the_camera_stands(self, live, table):
        import cv2
        import numpy as np

        from calibration.profile import board_pose
        from vision.image_file import read_image
        from webui.camera_view import SeenAs, close_up
        first, _, H0 = table
        frame, dets = read_image(live.store.frame_path(first)), live.store.detections(first)
        upright = close_up(frame, SeenAs(live.profile, board_pose(H0)), dets, self.REGION)
        turned, M = frame, np.eye(3)
        for _ in range(3):      # the camera a quarter turn further round the table each time
            turned = cv2.rotate(turned, cv2.ROTATE_90_CLOCKWISE)
            M = np.float64([[0, -1, turned.shape[1] - 1], [1, 0, 0], [0, 0, 1]]) @ M
            seen = SeenAs(live.profile, board_pose(M @ H0))
            got = close_up(turned, seen, dets, self.REGION)
            # the same picture (but for the lines' anti-aliasing), not the same turned upside down
            assert got.shape == upright.shape and np.abs(got.astype(int) - upright.astype(int)).mean() < 4
            assert np.abs(cv2.rotate(got, cv2.ROTATE_180).astype(int) - upright.astype(int)).mean() > 30

    def test_an_archive_is_reviewed_with_its_own_calibrations(self, live, table, tmp_path):
        first, second, _ = table
        archive = export_archive(live.store.folder, tmp_path / "game.zip")
        store = Store(import_archive(archive, tmp_path / "opened"))
        review = LiveGame.open(store, PLAYERS, resume=True)
        assert review.profile is None
        c = create_app(review).test_client()
        for sid in (first, second):
            assert self.image(c.get(f"/api/snapshots/{sid}/overlay.jpg")).shape[:2] == (720, 1280)
            self.image(c.get(f"/api/snapshots/{sid}/regions/{self.REGION}.jpg"))
        # a calibration file missing from the recording is said, not a server error
        for f in store.calibrations.iterdir():
            f.unlink()
        r = create_app(review).test_client().get(f"/api/snapshots/{first}/regions/{self.REGION}.jpg")
        assert r.status_code == 404 and "is not in the recording" in r.get_json()["error"]
        store.close()

    def test_what_cannot_be_drawn_is_a_404_with_the_reason(self, client, live, table):
        first, _, _ = table
        r = client.get(f"/api/snapshots/{first}/regions/atlantis.jpg")
        assert r.status_code == 404 and "no region 'atlantis'" in r.get_json()["error"]
        sid = live.commit(game_states(3)[2])["snapshot"]        # no frame
        assert client.get(f"/api/snapshots/{sid}/regions/{self.REGION}.jpg").status_code == 404
        live.store.db.execute("UPDATE snapshot SET camera = ? WHERE id = ?", ('{"calibration": 3}', first))
        r = client.get(f"/api/snapshots/{first}/overlay.jpg")
        assert r.status_code == 404 and f"snapshot {first}'s camera view cannot be read" in r.get_json()["error"]
        live.store.db.execute("UPDATE snapshot SET camera = ? WHERE id = ?",
                              (json.dumps({"calibration": "../../cal.json", "H": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}),
                               first))
        r = client.get(f"/api/snapshots/{first}/overlay.jpg")
        assert r.status_code == 404 and "is not in the recording" in r.get_json()["error"]

    def test_a_recording_made_before_keeps_working_with_the_calibration_in_use(self, tmp_path):
        import cv2

        from calibration.profile import CalibrationProfile
        from tests.test_vision import calibrated_file_text, scene
        folder = old_recording(tmp_path, """
            CREATE TABLE snapshot (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL, t REAL NOT NULL,
                source TEXT NOT NULL, state TEXT NOT NULL, actor TEXT, round INTEGER, turn INTEGER,
                events TEXT NOT NULL DEFAULT '[]', verdicts TEXT NOT NULL DEFAULT '[]',
                scores TEXT NOT NULL DEFAULT '{}', frame TEXT, detections TEXT NOT NULL DEFAULT '[]');""")
        (folder / "frames").mkdir()
        cv2.imwrite(str(folder / "frames" / "00000001.jpg"), scene()[0])
        db = sqlite3.connect(str(folder / "game.sqlite"))
        db.execute("UPDATE game SET players = ?", (json.dumps(PLAYERS),))
        db.execute("INSERT INTO snapshot (id, game_id, t, source, state, frame) VALUES (1, 1, 0, 'camera', ?, "
                   "'00000001.jpg')", (json.dumps(game_states(1)[0].to_dict()),))
        db.commit()
        db.close()
        store = Store(folder)
        assert store.camera(1) is None
        review = LiveGame.open(store, PLAYERS, resume=True)
        c = create_app(review).test_client()
        r = c.get(f"/api/snapshots/1/regions/{self.REGION}.jpg")
        assert r.status_code == 404 and "none is in use" in r.get_json()["error"]
        (tmp_path / "cal.json").write_text(calibrated_file_text())
        review.profile = CalibrationProfile.load(tmp_path / "cal.json")
        self.image(c.get(f"/api/snapshots/1/regions/{self.REGION}.jpg"))
        store.close()


class TestTapTargets:
    """Round tap targets over the small islands (webui.tap_targets): a finger beside the board
    must be able to open Corsica without opening the sea or the province next to it."""

    def test_the_six_small_islands_get_one_and_no_other_region(self):
        from webui.tap_targets import SMALL_REGION, tap_targets
        geo = load_geometry()
        targets = tap_targets(geo)
        assert set(targets) == {"baleares", "corsica", "creta", "cipro", "sicilia", "sardinia"}
        for rid, (x, y, r) in targets.items():
            inside = (geo.labels == geo.region_ids.index(rid) + 1).astype(np.uint8)
            widest = cv2.distanceTransform(inside, cv2.DIST_L2, 5).max()
            # at least 60 units across (37 pixels on a tablet 1,280 wide), where the island's widest disc is 22 to 35
            assert widest < SMALL_REGION and r >= 30 > widest, (rid, r, widest)

    def test_a_target_covers_no_other_region_s_land_nor_another_target(self):
        from webui.tap_targets import tap_targets
        geo = load_geometry()
        targets = tap_targets(geo)
        seas = set(geo.board.seas)
        yy, xx = np.mgrid[:geo.labels.shape[0], :geo.labels.shape[1]]
        for rid, (x, y, r) in targets.items():
            under = {geo.region_ids[i - 1] for i in np.unique(geo.labels[np.hypot(xx - x, yy - y) <= r]) if i}
            assert under - seas == {rid}, (rid, under - seas)
            for other, (ox, oy, orad) in targets.items():
                assert other == rid or np.hypot(ox - x, oy - y) >= r + orad, (rid, other)

    def test_the_dashboard_s_geometry_carries_them(self, client):
        from webui.tap_targets import tap_targets
        geo = client.get("/api/geometry").get_json()
        assert {k: tuple(v) for k, v in geo["tap_targets"].items()} == tap_targets(load_geometry())


class TestWhereTheDashboardIs:
    """`augur run --lan` serves on every interface: the console must name an address a tablet
    can type, not 0.0.0.0."""

    def test_served_on_the_lan_it_names_the_lan_addresses(self, monkeypatch):
        import webui.loop as loop
        monkeypatch.setattr(loop, "lan_addresses", lambda: ["192.168.1.23", "10.0.0.5"])
        said = loop.dashboard_urls(loop.ALL_INTERFACES, 8351)
        assert said == ("http://192.168.1.23:8351/ or http://10.0.0.5:8351/ on the tablets, "
                        "http://127.0.0.1:8351/ on this machine")
        monkeypatch.setattr(loop, "lan_addresses", lambda: [])
        said = loop.dashboard_urls(loop.ALL_INTERFACES, 8351)
        assert "0.0.0.0" not in said and said.startswith("http://127.0.0.1:8351/ (no local network found")

    def test_served_on_this_machine_it_names_that(self):
        from webui.loop import dashboard_urls
        assert dashboard_urls("127.0.0.1", 8350) == "http://127.0.0.1:8350/"

    def test_the_lan_addresses_are_no_loopback(self):
        from webui.loop import lan_addresses
        found = lan_addresses()
        assert all(a.count(".") == 3 and not a.startswith(("127.", "0.")) for a in found)
        assert len(found) == len(set(found))
