"""The live game: committed states in, tracker verdicts and scores out, every change recorded and
pushed to every connected tablet.

Order of work for each committed state: apply the standing corrections, let the tracker read
it, write the snapshot to the store (durable), then broadcast. After a restart
:meth:`LiveGame.open` replays the recorded snapshots through a fresh tracker, so the game goes
on where it stopped.
"""
from __future__ import annotations

import copy
import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tracker.errors import AugurError, GameError
from tracker.game import TransitionReport
from tracker.hindsight import snapshot
from tracker.overrides import (GUESSED, Override, apply_overrides, carry_misreads, doubt_moved, doubt_unchanged,
                               marked, still_questioned, still_vouched)
from tracker.pieces import VP_TRACK_MAX
from tracker.readings import LOW_CONFIDENCE
from tracker.rulesets import JUDGE_DRAWS, apply_entry, describe_entry, make_game
from tracker.spqrisiko.setup import free_provinces, vouched_placements
from tracker.state import ObservedState, lift_camera_doubt
from tracker.verdicts import Verdict
from webui.store import Snapshot, Store

UNDO_DEPTH = 10
#: who the store names as the author of a set-up count the rules settled
SETUP_RULES = "set-up rules"
#: ... and of a piece the rules never remove, kept where the camera stopped seeing it
KEPT_BY_RULES = "kept by the rules"
#: ... and of a count the rules only bound, kept where the camera read none (a province's last
#: legionary, §14.1): still flagged for a check after a restart
GUESSED_BY_RULES = "guessed by the rules"
#: ... and of a count set over the camera's that is doubted since a hand moved pieces in its region
#: while the camera read it as before (:func:`tracker.overrides.doubt_moved`): flagged after a restart too
MOVED_SINCE_SET = "pieces moved since it was set"
#: ... and of a count the camera read as a finished set-up leaves it but doubted, which the rules
#: vouch for (:func:`tracker.spqrisiko.setup.vouched_setup`): recorded so that a restart holds it
#: too, and never undone by the Undo button (it changed nothing a player could see)
VOUCHED_BY_SETUP = "set-up rules vouch for it"
#: ... and of a camera count doubted since a hand changed the region's pieces and the camera read
#: it as before (:func:`tracker.overrides.doubt_unchanged`): flagged after a restart too, and never
#: undone by the Undo button (the count is the camera's; a player clears the mark by setting it)
MOVED_READ_AS_BEFORE = "pieces moved, read as before"
#: ... and of a count set over the camera's carried past a change the camera read in other armies'
#: pieces only, the misread armies' pieces as they were set (:func:`tracker.overrides.carry_misreads`):
#: flagged after a restart too
CARRIED_PAST_CHANGE = "misread carried past a change"
#: ... and of a set-up count whose army is the rules' guess (a province read empty, a pile read two
#: over beside one, one read in doubt for an army then beyond its share, and so on:
#: :func:`tracker.spqrisiko.setup.settled_in_doubt`): still flagged after a restart
SETUP_RULES_IN_DOUBT = "set-up rules, army in doubt"
#: ... and of a camera count in a province no hand changed that gained the pieces a hand placed
#: beside it, read there instead (:func:`tracker.overrides.doubt_unchanged`): flagged after a restart
#: too, and never undone by the Undo button, as MOVED_READ_AS_BEFORE
LEANED_INTO = "pieces placed beside it, read here"
#: ... and of a camera count in a province no hand reached into, read otherwise than at the last
#: commit (:func:`tracker.overrides.doubt_unchanged`): flagged after a restart too, and never undone
#: by the Undo button, as MOVED_READ_AS_BEFORE
COUNTED_UNTOUCHED = "counted otherwise with no hand in it"
#: the authors whose counts the dashboard still asks the players to check
_DOUBTED_BY = (GUESSED_BY_RULES, MOVED_SINCE_SET, MOVED_READ_AS_BEFORE, CARRIED_PAST_CHANGE, SETUP_RULES_IN_DOUBT,
               LEANED_INTO, COUNTED_UNTOUCHED)
#: ... and those a hand's change put in doubt
_MOVED_BY = (MOVED_SINCE_SET, MOVED_READ_AS_BEFORE, CARRIED_PAST_CHANGE, LEANED_INTO, COUNTED_UNTOUCHED)
#: ... and those the Undo button passes by: they set no count a player could take back
_NOT_UNDONE = (VOUCHED_BY_SETUP, MOVED_READ_AS_BEFORE, LEANED_INTO, COUNTED_UNTOUCHED)
#: How long (seconds) after a card is entered the camera may judge it on a settled table
#: (:meth:`LiveGame.table_settled`): a player who taps "card drawn" before moving the conquering
#: pieces in has this long to reach over the board, which unsettles it; the commit of the move
#: then judges the card.
DRAW_GRACE_S = 3.0
#: How many recent snapshots the dashboard lists the events and verdicts of
RECENT = 8
#: the source the store gives the camera's commit of a finished set-up, on which the game starts
SETUP = "setup"
#: ... and each of its commits while the set-up is being made (S.P.Q.RisiKo! §3.7–3.8), the
#: camera's or a game file's
PLACING = "placing"
#: ... and of a state a player's correction (or its undo) made
CORRECTION = "correction"


def _doubt_author(o: Override) -> str:
    """Who a camera count doubted where a hand's changes and the reading disagree is recorded as
    set by (:func:`tracker.overrides.doubt_unchanged`), so that a restart doubts it alike."""
    return LEANED_INTO if o.leaned else COUNTED_UNTOUCHED if o.untouched else MOVED_READ_AS_BEFORE


@dataclass
class LiveGame:
    store: Store
    game_id: int
    #: a :class:`~tracker.game.Game` or a :class:`~tracker.risiko.game.RisikoGame` (see tracker.rulesets)
    game: object
    ruleset: str
    overrides: dict[str, Override] = field(default_factory=dict)
    listeners: list[queue.Queue] = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock)
    last_camera: ObservedState | None = None
    out_of_sync: bool = False
    frame_jpeg: bytes | None = None
    #: what the camera side wants the players to know: the board out of view, the light changed a lot
    camera_notice: str = ""
    #: the calibration in use, for the set-up view's fitted-map preview
    profile: object | None = None
    #: where that calibration was loaded from: a map fitted on the dashboard is saved back there
    profile_path: Path | None = None
    #: when the last card drawn was entered (``time.time()``; see DRAW_GRACE_S)
    draw_entered: float = 0.0
    #: keeps, with each committed frame, the calibration and pose it was read with (for the review)
    recorder: object | None = None
    #: where the camera last saw each player's score marker (box 0 to 40; None: not seen), beside
    #: the score the tracker keeps (:mod:`vision.track`); empty until the camera reads the track
    track: dict[str, int | None] = field(default_factory=dict)

    # -- opening ---------------------------------------------------------------------------
    @classmethod
    def open(cls, store: Store, players: list[str], ruleset: str = "2005", target_vp: int | None = None,
             resume: bool = True, extra: dict | None = None) -> "LiveGame":
        """Resume the recording's last game when it is the same table, else start a new one.
        ``extra`` holds ``neutrals`` and ``objectives`` for the rulesets that need them."""
        last = store.last_game()
        if resume and last and last["players"] == list(players) and last["ruleset"] == ruleset:
            game = make_game(ruleset, players, last["target_vp"], **last.get("extra", {}))
            live = cls(store, last["id"], game, ruleset)
            live._replay()
            return live
        extra = dict(extra or {})
        game = make_game(ruleset, players, target_vp, **extra)
        gid = store.new_game(list(players), ruleset, target_vp, game.board.id, extra)
        return cls(store, gid, game, ruleset)

    def _replay(self) -> None:
        """Rebuild the tracker from the recording (corrected states are recorded as such); tablet
        entries (cards, draws, dice) are applied in time order between the snapshots."""
        entries = iter(self.store.entries(self.game_id))
        pending = next(entries, None)
        for snap in self.store.snapshots(self.game_id):
            while pending is not None and pending["t"] <= snap.t:
                self._apply_entry(pending["kind"], pending["payload"])
                pending = next(entries, None)
            state = ObservedState.from_dict(snap.state)
            if self.game.state is None and snap.source == PLACING:
                self.game.begin_setup(state)
            elif self.game.state is None or (self.game.placing and snap.source == SETUP):
                self.game.start(state)
            elif self.game.placing:
                self.game.observe_setup(state, corrected=snap.source == CORRECTION)
            else:
                self._observe(state, corrected=snap.source == CORRECTION)
        while pending is not None:
            self._apply_entry(pending["kind"], pending["payload"])
            pending = next(entries, None)
        # where the camera last saw the markers: the tablets show it again until the camera reads anew
        readings = self.store.track_readings(self.game_id)
        self.track = dict(readings[-1]["boxes"]) if readings else {}
        # a player's count comes back as any count set over the camera's (not ``player``): the
        # recording does not say whether its region stayed in sight and untouched since, so the
        # camera's next reading otherwise drops it (tracker.overrides.apply_overrides)
        for c in self.store.corrections(self.game_id):
            if c["undoes"] is None:
                self.overrides[c["region"]] = Override(c["id"], c["before"], c["after"],
                                                       GUESSED if c["author"] in _DOUBTED_BY else None,
                                                       moved=c["author"] in _MOVED_BY,
                                                       kept=c["author"] in (KEPT_BY_RULES, GUESSED_BY_RULES),
                                                       vouched=c["author"] == VOUCHED_BY_SETUP,
                                                       leaned=c["author"] == LEANED_INTO,
                                                       untouched=c["author"] == COUNTED_UNTOUCHED)
            else:
                self.overrides = {k: o for k, o in self.overrides.items() if o.correction_id != c["undoes"]}

    def restart(self, players: list[str], ruleset: str = "2005", target_vp: int | None = None,
                neutrals: list[str] | None = None) -> dict:
        """A new game at this table (the set-up form), on the board the camera sees now: it starts
        on it, or follows the set-up being made there (:meth:`commit`)."""
        players = list(players)
        extra = {"neutrals": list(neutrals)} if neutrals else {}
        game = make_game(ruleset, players, target_vp, **extra)
        with self.lock:
            self.game_id = self.store.new_game(players, ruleset, target_vp, game.board.id, extra)
            self.game, self.ruleset, self.overrides, self.out_of_sync = game, ruleset, {}, False
            self.track = {}         # the old game's markers; the camera reads the new game's anew
            current = self.last_camera
        if current is not None:
            return self.commit(current, self.frame_jpeg)
        view = self.view()
        self.broadcast(view)
        return view

    # -- the feed from the camera -------------------------------------------------------------
    def commit(self, state: ObservedState, jpeg: bytes | None = None, source: str = "camera",
               detections: list | None = None, moved: frozenset[str] | None = None) -> dict:
        """Track and record a state. ``moved``, with the camera's: the regions whose pieces a hand
        changed since its last commit (:attr:`vision.pipeline.FrameResult.changed`); a count set
        over the camera's there is doubted (:func:`tracker.overrides.doubt_moved`), and that is
        recorded, so that a restart doubts it too.

        A new game whose first board is a set-up still being made (S.P.Q.RisiKo!: more provinces
        free than the camera misses, nothing but legionaries; :meth:`tracker.game.Game.setup_under_way`)
        follows it placement by placement (:meth:`_placed`), each step recorded as PLACING, and
        starts when the set-up is done (:meth:`_started`); any other first board starts the game
        at once."""
        doubted: list[tuple[str, str]] = []
        with self.lock:
            if source == "camera":
                camera_before, self.last_camera = self.last_camera, state
                self.frame_jpeg = jpeg
                doubted = [(r, CARRIED_PAST_CHANGE) for r in carry_misreads(self.overrides, state)]
                doubted += [(r, MOVED_SINCE_SET) for r in doubt_moved(self.overrides, state, moved)]
                if self.game.state is not None and not self.game.placing:
                    unchanged = doubt_unchanged(self.overrides, camera_before, state, moved)
                    self.overrides.update(unchanged)
                    doubted += [(r, _doubt_author(o)) for r, o in unchanged.items()]
                state = self._with_overrides(state, moved)
            if self.game.state is None and source != CORRECTION and self.game.setup_under_way(state):
                sid = self._placed(state, jpeg, source, detections, first=True)
            elif self.game.state is None:
                sid = self._started(state, jpeg, source, detections)
            elif self.game.placing:
                over = self.game.setup_over(state, corrected=source == CORRECTION)
                if over is None:
                    sid = self._placed(state, jpeg, source, detections)
                elif over == "now":
                    sid = self._started(state, jpeg, source, detections, last_placed=True)
                else:       # the first turn began on a set-up read with a pile or two missed:
                    # the game starts on the set-up as last read
                    before = dict(self.overrides)
                    self._started(self.game.state, None, source, None, recorded=SETUP)
                    if source == "camera":      # the counts the set-up rules settled hold over this reading too
                        settled = {r: o for r, o in self.overrides.items() if before.get(r) is not o}
                        doubted += [(r, MOVED_SINCE_SET) for r in doubt_moved(settled, self.last_camera, moved)]
                        state = self._with_overrides(self.last_camera, moved)
                    sid = self._observed(state, jpeg, source, detections)
            else:
                sid = self._observed(state, jpeg, source, detections)
            for region, author in doubted:
                o = self.overrides[region]
                o.correction_id = self.store.add_correction(sid, region, o.camera_value, o.value, author=author)
            payload = self.view()
            payload["snapshot"] = sid
        self.broadcast(payload)
        return payload

    def _placed(self, state: ObservedState, jpeg: bytes | None, source: str, detections: list | None,
                first: bool = False) -> int:
        """One step of the set-up followed (§3.7–3.8): the provinces occupied, and what breaks
        the rules for occupying them; recorded as PLACING (a camera's) so that a restart follows
        the set-up again. The camera's counts of new placements that §3.7 fixes otherwise are
        held at the rules' count, as the finished set-up's are (:meth:`_started`); on the ``first``
        board, the doubtful piles no placement leaves are held as nothing
        (:meth:`tracker.game.Game.settle_first_board`)."""
        if source != "camera":
            settling, notes = {}, []
        elif first:
            settling, notes = self.game.settle_first_board(state)
        else:
            settling, notes = self.game.settle_placements(state)
        state = apply_overrides(settling, state)
        if first:
            events, verdicts = [], self.game.begin_setup(state)
        else:
            events, verdicts = self.game.observe_setup(state, corrected=source == CORRECTION)
        verdicts += notes
        self.out_of_sync = any(v.level == "violation" for v in verdicts)
        sid = self.store.add_snapshot(self.game_id, source if source == CORRECTION else PLACING, state.to_dict(),
                                      None, 0, 0, self._described(events),
                                      [v.to_dict() for v in verdicts], self._scores(), jpeg, detections,
                                      camera=self._camera_record(jpeg))
        self._hold(sid, settling, lambda o: SETUP_RULES)
        return sid

    def _started(self, state: ObservedState, jpeg: bytes | None, source: str, detections: list | None,
                 last_placed: bool = False, recorded: str | None = None) -> int:
        """The game starts on a finished set-up (§3.9): the camera's counts the set-up rules settle
        are held over its reading (recorded as corrections, so that a restart keeps them and undo
        can lift them), and the first player claims. ``last_placed``: the set-up was followed,
        and this state makes its last placements, recorded as its events; ``recorded``: the
        snapshot's source, if not the commit's (the camera's is SETUP)."""
        settling, notes = self.game.settle_setup(state) if source == "camera" else ({}, [])
        state = apply_overrides(settling, state)
        events = self.game.setup_placements(self.game.state, state) if last_placed else []
        verdicts = [v.to_dict() for v in self.game.start(state) + notes]
        entry = self.game.score_track[-1]
        sid = self.store.add_snapshot(self.game_id, recorded or (SETUP if source == "camera" else source), state.to_dict(),
                                      entry.colour, entry.round_no, entry.turn_no, self._described(events),
                                      verdicts, self._scores(), jpeg, detections,
                                      camera=self._camera_record(jpeg))
        self._hold(sid, settling, lambda o: VOUCHED_BY_SETUP if o.vouched else
                   SETUP_RULES if o.confidence is None else SETUP_RULES_IN_DOUBT)
        return sid

    def _hold(self, sid: int, overrides: dict[str, Override], author: Callable[[Override], str]) -> None:
        """Counts the rules set over the camera's in snapshot ``sid``: held from now on, and
        recorded as corrections by ``author(override)``, so that a restart keeps them and undo
        lifts them.

        A count set over one already set over the camera's (a placement's count the set-up rules
        held, then given to another army when the set-up was done) holds while the camera reads
        the region as it did under the first: Galicia's pair, read as 3 blue legionaries, held at
        2 blue, then given to green, was read as 3 blue again at the next commit, and green's
        pair went back to blue as a conquest (the print's hard set-up of seed 12)."""
        for region, o in overrides.items():
            under = self.overrides.get(region)
            if under is not None and o.camera_value == under.value:
                o.camera_value = copy.deepcopy(under.camera_value)
            o.correction_id = self.store.add_correction(sid, region, o.camera_value, o.value, author=author(o))
            self.overrides[region] = o

    def _observed(self, state: ObservedState, jpeg: bytes | None, source: str, detections: list | None) -> int:
        """A change in the game: the tracker reads it, and the pieces the rules never take off the
        board that the camera stopped seeing are held (a player's correction stands over them)."""
        held, notes = self.game.hold_permanent(state) if source == "camera" else ({}, [])
        held = {r: o for r, o in held.items() if r not in self.overrides}
        notes = [v for v in notes if set(v.regions) & set(held)]
        state = apply_overrides(held, state)
        report = self._observe(state, corrected=source == CORRECTION)
        verdicts = [v.to_dict() for v in report.verdicts + notes]
        self.out_of_sync = report.level == "violation"
        sid = self.store.add_snapshot(self.game_id, source, state.to_dict(), report.actor, report.round_no,
                                      report.turn_no, self._described(report.events), verdicts, self._scores(), jpeg, detections,
                                      self._vouched_now(), camera=self._camera_record(jpeg))
        self._hold(sid, held, lambda o: KEPT_BY_RULES if o.confidence is None else GUESSED_BY_RULES)
        return sid

    def _camera_record(self, jpeg: bytes | None) -> dict | None:
        """How the camera saw the board in a frame about to be recorded: the calibration in use
        (kept in the recording once) and its pose now (:mod:`webui.camera_view`); None for a
        commit without a frame or without a calibration (a replay, a correction)."""
        if not jpeg or self.profile is None:
            return None
        from webui.camera_view import CameraRecorder
        if self.recorder is None:
            self.recorder = CameraRecorder(self.store)
        return self.recorder.record(self.profile)

    def _vouched_now(self) -> list[str]:
        """The placements the camera doubted that the turn's due accounts for and it still reads so
        (:func:`tracker.overrides.still_vouched`): the map asks no check of them, and a snapshot
        records them for the review."""
        g = self.game
        return sorted(still_vouched(g.state, g.vouched, self.overrides)) if g.state is not None else []

    def _observe(self, state: ObservedState, corrected: bool = False) -> TransitionReport:
        """The tracker's report on the change to ``state`` (``corrected``: counts a player set,
        :meth:`tracker.game.TurnFollower.correct`, which before any move corrects the set-up the
        game started on rather than reading a move). Where the tracker cannot read it at
        all (an error of its own: a reading it tried built a board no state can hold), the
        tracker is put back as it stood, and the report is a violation that says so and asks the
        table to set the counts: the change is recorded all the same, the game goes on, and a
        restart replays it to the same report. (A one-off reading of a conquest once stopped a
        rendered game so, before it was mended in ``tracker.hindsight``.)"""
        kept = snapshot(self.game)
        try:
            return self.game.correct(state) if corrected else self.game.observe(state)
        except AugurError as exc:
            self.game = kept
            game = self.game
            return TransitionReport(len(game.history) + 1, game.current or "", game.round_no, game.turn_no, [], [
                Verdict.violation("tracker", f"the tracker could not read this change ({exc}); its counts "
                                             "stand as before it: set the counts on the tablet")])

    def _described(self, events) -> list[dict]:
        """Events as the store records them: each with its sentence for the tablets."""
        return [dict(e.to_dict(), text=e.describe(self.game.board)) for e in events]

    def resight(self, state: ObservedState) -> None:
        """The camera's committed counts stand, but it sees the board otherwise (a hand resting on
        some regions, or gone from them; :class:`vision.fuse.Fusion`): the tablets show the new
        marks. Nothing is recorded: no move was made, and the last snapshot holds what was seen
        when the board last changed. A state whose counts are not the camera's last committed
        ones is a move, left for :meth:`commit`."""
        with self.lock:
            if self.game.state is None or self.last_camera is None or \
                    not state.same_counts(self.last_camera):
                return
            try:
                self.game.resight(self._with_overrides(state))
            except GameError:       # the tracker follows other counts (a correction): they stand
                return
            self.last_camera = state
            view = self.view()
        self.broadcast(view)

    def table_settled(self, now: float | None = None) -> list[dict] | None:
        """The camera's still run has had its last say (:attr:`vision.pipeline.FrameResult.settled`),
        so every move made on the table is committed: a card drawn in the turn the tracker follows,
        entered DRAW_GRACE_S or more before ``now``, is judged on the board as it stands
        (:meth:`tracker.game.TurnFollower.judge_draws`), and that is recorded as an entry
        (JUDGE_DRAWS) that a restart replays at the same point. Returns what the rules said (as
        recorded), or None when there was nothing to judge."""
        with self.lock:
            now = time.time() if now is None else now
            if self.game.state is None or not self.game.draws_waiting or now - self.draw_entered < DRAW_GRACE_S:
                return None
            verdicts = [v.to_dict() for v in apply_entry(self.game, JUDGE_DRAWS, {})]
            self.store.add_entry(self.game_id, JUDGE_DRAWS, {}, verdicts)
            self.out_of_sync = self.out_of_sync or any(v["level"] == "violation" for v in verdicts)
            view = self.view()
        self.broadcast(view)
        return verdicts

    def set_track(self, boxes: dict[str, int | None]) -> None:
        """Where the camera sees the players' score markers now (:class:`vision.track.TrackReading`'s
        boxes); the tablets set each beside the score the tracker keeps, and hear only of a change."""
        with self.lock:
            boxes = {c: boxes[c] for c in self.game.players if c in boxes}
            if boxes == self.track:
                return
            # recorded before any tablet hears of it, with the score it was set beside: the review
            # shows where the markers stood after each commit
            self.store.add_track_reading(self.game_id, boxes, {c: self.game.vp[c] for c in boxes})
            self.track = boxes
            view = self.view()
        self.broadcast(view)

    def set_camera_notice(self, text: str) -> None:
        """Show ``text`` on every tablet ("" clears it); tablets hear only of a change."""
        with self.lock:
            if text == self.camera_notice:
                return
            self.camera_notice = text
            view = self.view()
        self.broadcast(view)

    def _with_overrides(self, state: ObservedState, moved: frozenset[str] | None = None) -> ObservedState:
        return apply_overrides(self.overrides, state, moved)

    # -- what the tablet sends ------------------------------------------------------------------
    def fit_map(self, anchors: list | None) -> dict:
        """Move the region map by anchors dragged on the set-up preview (``None``: back to the
        committed map). The pipeline reads with it from its next frame; the calibration file it
        was loaded from is rewritten (whole, then renamed over the old one), so it is kept."""
        if self.profile is None:
            raise ValueError("no camera calibration in use")
        with self.lock:
            if anchors is None:
                self.profile.reset_map()
            else:
                self.profile.fit_map(anchors)
            saved = None
            if self.profile_path is not None:
                try:
                    self.profile.save(self.profile_path)
                except AugurError as exc:        # CalibrationError: where and why it could not write
                    raise AugurError(f"the map is fitted for this game, but {exc}; the file is unchanged") from None
                saved = str(self.profile_path)
        warp = self.profile.map_warp
        return {"map_warp": None if warp is None else warp.tolist(), "saved": saved}

    def correct(self, region: str, value: dict) -> dict:
        """Set a region's pieces by hand (a miscount); recorded as a correction, then tracked."""
        with self.lock:
            if self.game.state is None:
                raise ValueError("nothing to correct yet: no board state has been committed")
            current = self.game.state.to_dict()
            if region not in self.game.board.regions:
                raise ValueError(f"unknown region '{region}'")
            corrected = self.game.state.counted(region, value)      # validates the counts
            camera_value = (self.last_camera.to_dict()["regions"].get(region, {}) if self.last_camera
                            else current["regions"].get(region, {}))
            latest = self.store.latest(self.game_id)
            cid = self.store.add_correction(latest.id, region, current["regions"].get(region, {}), value)
            self.overrides[region] = Override(cid, camera_value, value, player=True)
        return self.commit(corrected, source=CORRECTION)

    def undo(self) -> dict:
        """Undo the newest correction by appending its reverse (history is never rewritten). A count
        the set-up rules vouched for, and a camera count marked for a check after a hand moved
        pieces there, are passed by: they changed no count the players could undo."""
        with self.lock:
            c = self._next_undo()
            if c is None:
                raise ValueError("no correction to undo")
            latest = self.store.latest(self.game_id)
            self.store.add_correction(latest.id, c["region"], c["after"], c["before"], undoes=c["id"])
            self.overrides.pop(c["region"], None)
            d = self.game.state.to_dict()
            if c["before"]:
                d["regions"][c["region"]] = c["before"]
            else:
                d["regions"].pop(c["region"], None)
            # the count goes back with the doubt it had: the camera's, where it is the camera's
            # reading again (a set count lifted: its confidence, and its knocked-over piece mark),
            # else none (a player's earlier count)
            lift_camera_doubt(d, c["region"])
            camera = self.last_camera
            if camera is not None and camera.regions.get(c["region"], {}) == c["before"]:
                if c["region"] in camera.confidence:
                    d.setdefault("confidence", {})[c["region"]] = camera.confidence_of(c["region"])
                if c["region"] in camera.lying:
                    d.setdefault("lying", []).append(c["region"])
            state = ObservedState.from_dict(d, self.game.board)
        return self.commit(state, source=CORRECTION)

    def _next_undo(self) -> dict | None:
        """The correction :meth:`undo` undoes now: the newest of the last UNDO_DEPTH that is
        neither undone nor itself an undo, nor one the players could not undo (None: none)."""
        corrections = self.store.corrections(self.game_id)
        undoable = [c for c in corrections if c["author"] not in _NOT_UNDONE]
        live = [c for c in undoable[-UNDO_DEPTH:] if c["undoes"] is None]
        undone = {c["undoes"] for c in corrections if c["undoes"]}
        live = [c for c in live if c["id"] not in undone]
        return live[-1] if live else None

    def _undo_offer(self) -> dict | None:
        """What "Undo correction" would undo, for the tablet to ask before it does (None: nothing)."""
        c = self._next_undo()
        if c is None:
            return None
        return {"region": c["region"], "before_text": self._in_words(c["before"]), "after_text": self._in_words(c["after"])}

    def _in_words(self, content: dict) -> str:
        """A region's pieces as the tablets say them: "2 red legionaries", or "empty"."""
        return self.game.board.pieces.describe(content) if content else "empty"

    def decide(self, snapshot_id: int, event_index: int, verdict: str) -> dict:
        if verdict not in ("confirmed", "rejected"):
            raise ValueError("decision must be 'confirmed' or 'rejected'")
        snap = self.store.snapshot(snapshot_id)
        if snap is None or snap.game_id != self.game_id or not 0 <= event_index < len(snap.events):
            raise ValueError("no such event")
        self.store.add_decision(snapshot_id, event_index, verdict)
        payload = self.view()
        self.broadcast(payload)
        return payload

    def enter(self, kind: str, payload: dict) -> dict:
        """Cards played, a card drawn: what the camera cannot see."""
        if not isinstance(payload, dict):
            raise ValueError("an entry's payload is a JSON object")
        if kind == JUDGE_DRAWS:
            raise ValueError("the cards drawn are judged by the camera, not entered")
        with self.lock:
            verdicts = self._apply_entry(kind, payload)
            self.store.add_entry(self.game_id, kind, payload, [v.to_dict() for v in verdicts])
            if kind == "draw":
                self.draw_entered = time.time()
            view = self.view()
            view["entry_verdicts"] = [v.to_dict() for v in verdicts]
        self.broadcast(view)
        return view

    def _apply_entry(self, kind: str, payload: dict):
        if kind == "dice":
            return self._dice(payload)
        return apply_entry(self.game, kind, payload)

    def _dice(self, payload: dict):
        """Dice entered for a dispute: the losses they give by this ruleset's dice
        (:attr:`tracker.dice.DiceRules`; S.P.Q.RisiKo! §10.6-10.11, §11.5 at sea), recorded."""
        from tracker.dice import compare
        from tracker.verdicts import Verdict
        rules = self.game.dice
        if rules is None:
            raise ValueError(f"{self.game.rules.title} fights without dice: there are no dice to enter")
        att, dfn, naval = payload.get("attacker"), payload.get("defender"), bool(payload.get("naval"))
        rules.check(att, dfn, naval)
        a, d = compare(att, dfn, naval=naval)
        payload["losses"] = {"attacker": a, "defender": d}
        verdicts = [Verdict("ok", rules.naval_rule if naval else rules.rule,
                            f"the dice say: attacker loses {a}, defender loses {d}")]
        if len(att) < len(dfn) and rules.fewer_rule is not None:
            verdicts.append(Verdict.violation(rules.fewer_rule, "the attacker rolled fewer dice than the defender"))
        return verdicts

    # -- views -------------------------------------------------------------------------------------
    def _scores(self) -> dict:
        """Each player's standing; in the Risiko family with the names of the continents (or
        Middle-earth regions) held, which the standing gives by id."""
        if self.game.state is None:
            return {}
        out = {c: self.game.score(c).to_dict() for c in self.game.players}
        rules = getattr(self.game, "rules", None)
        if rules is not None:
            names = {g.id: g.name for g in rules.reinforcement_groups(self.game.board.groups)}
            for s in out.values():
                s["group_names"] = [names.get(g, g) for g in s.get("groups", ())]
        return out

    def _claim(self) -> dict | None:
        """The victory points the turn in play began with (§5.4), and the counts the map marks
        (for a check, or out of sight: :func:`tracker.overrides.marked`) that they hang on
        (:meth:`tracker.game.Game.claim_rests_on`): the table settles those before it moves the
        marker."""
        g = self.game
        if g.state is None or not g.score_track:
            return None
        entry = g.score_track[-1]
        return {"colour": entry.colour, "round": entry.round_no, "turn": entry.turn_no, "total": entry.score.total,
                "rests_on": list(g.claim_rests_on(entry, marked(g.state, g.questioned, self.overrides, g.vouched)))}

    def view(self) -> dict:
        g = self.game
        latest = self.store.latest(self.game_id)
        recent = self.store.recent(self.game_id, RECENT)
        since = recent[0].t if recent else 0.0
        return {
            "game_id": self.game_id, "players": list(g.players), "ruleset": self.ruleset, "target_vp": g.target_vp,
            "board": g.board.id,
            "vp": g.vp, "vp_max": VP_TRACK_MAX, "round": g.round_no, "turn": g.turn_no, "current": g.current,
            # where the camera last saw each score marker (vision.track), beside the score kept
            "track": self.track,
            "low_confidence": LOW_CONFIDENCE,
            # the tablet's entry form follows the ruleset: its card symbols, and its dice (none in
            # a dice-free ruleset; the most each side rolls, and whether a battle may be at sea)
            "card_symbols": list(g.card_symbols), "dice": g.dice.to_dict() if g.dice is not None else None,
            # and its other entries (LotR's adventure cards and the Fellowship's die, the
            # tournament's declarations and extra time), with the sites of power a mission names
            "tablet_entries": list(g.tablet_entries),
            "sites": sorted(g.board.features.get("site_of_power", ())) if "adventure" in g.tablet_entries else [],
            "phase": g.ctx.phase.name.lower() if g.ctx else None, "winner": g.winner,
            "placing": self._placing() if g.placing else None,
            "eliminated": sorted(g.eliminated), "state": g.state.to_dict() if g.state else None,
            "scores": self._scores(), "claim": self._claim(),
            "out_of_sync": self.out_of_sync, "camera_notice": self.camera_notice,
            "latest": latest.to_dict() if latest else None,
            # the camera's frame width and height: the live tab's frame keeps its place before it
            # loads (the overlay is drawn on the whole frame, undistorted to the same size)
            "camera_size": list(self.profile.image_size) if self.profile is not None else None,
            # the last frame the camera committed: the correction dialog shows the region in it
            "latest_frame": self.store.latest_frame(self.game_id),
            "recent": [{"id": s.id, "t": s.t, "actor": s.actor, "source": s.source, "events": s.events,
                        "verdicts": s.verdicts, "decisions": self.store.decisions(s.id)} for s in reversed(recent)],
            # cards the camera judged on a settled table since the oldest of those snapshots: their
            # verdicts join the Rules list beside the snapshots', by time
            "judged": [{"t": e["t"], "verdicts": e["verdicts"]} for e in self.store.entries(self.game_id)
                       if e["kind"] == JUDGE_DRAWS and e["t"] >= since and e["verdicts"]],
            "overrides": sorted(self.overrides),
            # the correction "Undo correction" would undo: the tablet names it and asks first
            "undo": self._undo_offer(),
            # counts the rules guessed, not the camera (§14.1): their low confidence is no camera's
            "guessed": sorted(r for r, o in self.overrides.items() if o.confidence is not None and o.kept),
            # set-up counts the rules settled where the camera left the army in doubt: which army
            # stands there is the rules' guess
            "setup_doubt": sorted(r for r, o in self.overrides.items()
                                  if o.confidence is not None and not o.kept and not o.moved),
            # counts set over the camera's in regions whose pieces were moved since, while the camera
            # read them as before: the set count may be out of date, so a player should look
            "moved": sorted(r for r, o in self.overrides.items() if o.moved and not o.leaned and not o.untouched),
            # camera counts in provinces no hand changed that gained the pieces a hand placed beside
            # them: most likely read across the border, so a player should look here and beside
            "leaned": sorted(r for r, o in self.overrides.items() if o.leaned),
            # camera counts in provinces no hand reached into, read otherwise than at the last commit:
            # a player should look here and beside
            "untouched": sorted(r for r, o in self.overrides.items() if o.untouched),
            # counts a rule questioned that still read so and nobody has set: the map marks them for a check
            "questioned": sorted(still_questioned(g.questioned, self.overrides)),
            # placements the camera doubted that the turn's due accounts for, still read so: the map
            # asks no check of them
            "vouched": self._vouched_now(),
            # regions the camera has never shown since the tracker began following (a card over them
            # from the first commit) and no player has set: no count is known there (the camera
            # commits none, so the scores count them empty), so the tablet asks for their counts
            "unknown": sorted(r for r in g.unknown if r not in self.overrides),
            "t": time.time(),
            # arena-paid power centres the camera has not seen placed: the tablet asks where they stand
            "centres_owed": [o.to_dict() for o in g.centres_owed()],
        }

    def _placing(self) -> dict:
        """The set-up being followed, for the tablets: the provinces the camera sees free, how
        many each army holds of its share (§3.9), and whose placement is next (§3.7). The
        dashboard asks no check of a free province then, nor of one the rules vouch for as
        placed (:func:`~tracker.spqrisiko.setup.vouched_placements`)."""
        g = self.game
        shares = g.plan.shares
        turn = g.setup_turn()
        return {"free": free_provinces(g.state), "provinces": len(g.board.provinces), "shares": shares,
                "held": {c: len(g.state.provinces_of(c)) for c in shares},
                "vouched": sorted(vouched_placements(g.state, g.plan)),
                # the next placement, as the order of play gives it (§3.7)
                "turn": turn.to_dict() if turn else None}

    def reviewable(self, game_id: int) -> bool:
        """Whether the review may show game ``game_id`` of the recording: this game, or an
        earlier one at this table on the same board (its map and names are this one's)."""
        return game_id == self.game_id or self.store.board_of(game_id) == self.game.board.id

    def snapshot_detail(self, sid: int) -> dict | None:
        """Snapshot ``sid`` as the review shows it, of this game or an earlier one (see
        :meth:`reviewable`): what changed since the one before and how sure the camera was, what
        the rules and the table said; None for a snapshot there is no such game for."""
        snap: Snapshot | None = self.store.snapshot(sid)
        if snap is None or not self.reviewable(snap.game_id):
            return None
        gid = snap.game_id
        prev = [s for s in self.store.snapshots(gid) if s.id < sid]
        before = prev[-1].state["regions"] if prev else {}
        after = snap.state["regions"]
        # how sure the camera was of each changed region: what a dispute turns on
        sure, unseen = snap.state.get("confidence", {}), set(snap.state.get("unseen", []))
        authors = {c["region"]: c["author"] for c in self.store.corrections(gid) if c["snapshot_id"] == sid}
        changed = {r: {"before": before.get(r, {}), "after": after.get(r, {}),
                       # in words, as the review lists them: the table settles a dispute reading these
                       "before_text": self._in_words(before.get(r, {})), "after_text": self._in_words(after.get(r, {})),
                       "confidence": 0.0 if r in unseen else sure.get(r, 1.0), "seen": r not in unseen,
                       "guessed": authors.get(r) == GUESSED_BY_RULES,
                       "lying": r in snap.state.get("lying", []),
                       "setup_doubt": authors.get(r) == SETUP_RULES_IN_DOUBT,
                       "leaned": authors.get(r) == LEANED_INTO,
                       "untouched": authors.get(r) == COUNTED_UNTOUCHED,
                       # the rules accounted for the count the camera doubted: no check was asked
                       "vouched": r in snap.vouched}
                   for r in sorted(set(before) | set(after)) if before.get(r) != after.get(r)}
        out = snap.to_dict()
        out.update({"changed": changed, "decisions": self.store.decisions(sid),
                    "frame_size": self._frame_size(sid),
                    "previous": prev[-1].id if prev else None,
                    # the frame before this one (a correction has none): the review shows each
                    # changed region in both
                    "previous_frame": self.store.latest_frame(gid, before=sid),
                    "entries": [e for e in self.entries(gid) if e["before"] == sid],
                    # where the camera saw the score markers while this was the latest snapshot
                    "track": [self._track_seen(r) for r in self.store.track_readings(gid, sid)]})
        return out

    @staticmethod
    def _track_seen(reading: dict) -> dict:
        """A recorded track reading as the review lists it: each marker in the players' order (a
        list: the page's JSON sorts an object's keys), with the score kept then and whether the
        marker stood off it."""
        vp = reading["vp"]
        return {"id": reading["id"], "t": reading["t"],
                "markers": [{"colour": c, "box": b, "score": vp.get(c),
                             "off": b is not None and vp.get(c) is not None and b != min(vp[c], VP_TRACK_MAX)}
                            for c, b in reading["boxes"].items()]}

    def _frame_size(self, sid: int) -> tuple[int, int] | None:
        """Snapshot ``sid``'s frame's width and height, read from its header: the review gives
        them to the page so that it keeps its place before the picture loads (None: no frame, or
        one whose header gives no size; the picture then says what is wrong with it)."""
        from vision.image_file import jpeg_size
        path = self.store.frame_path(sid)
        try:
            return jpeg_size(path.read_bytes()) if path is not None else None
        except OSError:
            return None

    def entries(self, game_id: int | None = None) -> list[dict]:
        """Every tablet entry of this game (or of the recording's game ``game_id``), each with a
        line saying what it was, what the rules said of it then, and ``before``: the snapshot it
        came before (None: after the last), by time, as :meth:`_replay` applies them. A dispute
        over a card set or the dice is reviewed beside the commit that followed it."""
        game_id = self.game_id if game_id is None else game_id
        times = self.store.snapshot_times(game_id)
        out, k = [], 0
        for e in self.store.entries(game_id):
            while k < len(times) and times[k][0] < e["t"]:
                k += 1
            out.append({"id": e["id"], "t": e["t"], "kind": e["kind"], "text": describe_entry(e["kind"], e["payload"]),
                        "verdicts": e["verdicts"], "before": times[k][1] if k < len(times) else None})
        return out

    # -- live updates --------------------------------------------------------------------------------
    def subscribe(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=64)
        with self.lock:
            self.listeners.append(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self.lock:
            if q in self.listeners:
                self.listeners.remove(q)

    def broadcast(self, payload: dict) -> None:
        with self.lock:
            for q in list(self.listeners):
                try:
                    q.put_nowait(payload)
                except queue.Full:          # a tablet that stopped reading: drop its oldest update
                    try:
                        q.get_nowait()
                        q.put_nowait(payload)
                    except queue.Empty:
                        pass
