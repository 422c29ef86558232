"""``augur bench game``: the live loop over whole rendered games, as a table would live them.

The single-image bench scores one reading of a still table. A game is a stream: hands come
and go, the gate decides when the scene is still, the fusion commits a state, the tracker
reads each commit as a move. What the players see is the commits, so this bench plays a
rendered game video (:func:`vision.synth.video.frames`) through :class:`vision.pipeline.Pipeline`
and scores every commit against the true board at that frame:

- the moves committed (a hand that left the board changed), and how soon after the last hand
  left, in video time. A move made wholly under something the camera cannot see through (a card
  left on the board) is counted apart: no camera could commit it. A hand off the board but not
  yet out of the picture no longer hides anything, and a commit then that already shows the move
  commits it, with a delay of zero or less. Any other move not committed before the next hand
  came was taken in by a later commit together with the next move;
- the states committed while a hand covered more than ``HAND_OVER`` of the board (the renderer
  knows where its hands are): the gate should have held them, as camera-chess users' first
  complaint is a tracker that commits a half-made move. Where it does not, the counter marks the
  regions the hand hides unseen and the pipeline keeps their last counts;
- the regions read wrong in the committed states (regions the counter marked unseen left out:
  the pipeline keeps their last count), and in the states the tracker follows: the committed
  ones with the set-up's counts that the rules fix put in where the camera read otherwise, and
  what the rules keep on the board put back where the camera lost it (a power centre, which is
  never removed; a province's army, at the one legionary a province always keeps), each for as
  long as the camera reads its region as it did (:meth:`tracker.game.TurnFollower.settle_setup`
  and :meth:`~tracker.game.TurnFollower.hold_permanent`, as the dashboard does; ``settle=False``
  leaves the camera's counts). Of those, the ones the dashboard does not mark for a check once
  the tracker has read the commit (:func:`tracker.overrides.to_check`: a confidence below
  ``LOW_CONFIDENCE``, a count a rule questioned, or one a hand changed that the camera reads as
  before, :func:`tracker.overrides.doubt_unchanged`): the wrong counts a table would not notice;
  and the right counts it marks, the checks that cost the players for nothing. Those two count a
  mark at every state it stays; the **checks asked** count it once, as a table lives it: a region
  newly marked, or marked again at another count (a player answers a mark by setting the count,
  which clears it until the camera reads the region otherwise);
- **phantom changes**: regions whose count in the tracked state changed between two commits
  while their true contents did not. The tracker takes each one for a move nobody made;
- **missed changes**: regions whose true contents changed between two commits while their
  tracked count did not;
- the power centres the dashboard asks the players to point at: card sets with an arena,
  entered at the tablet as the video's players play them (``entries`` on the frame their hand
  comes in, with the cards drawn), pay for centres the tracker then awaits
  (:meth:`tracker.game.Game.centres_owed`); one the camera did not show when the true state
  did is one the tablet asks for;
- the victory points: each claim the tracker made at the start of a turn (§5) on the tracked
  states, against the claim the same player made at the same round on the true states, and the
  track each ends the game with. A count one legionary off seldom moves a claim; a province read
  empty, a lost power centre or a fleet majority read wrong does, and the players would then argue
  over the track;
- the tracker's verdicts on the tracked states (the set-up's settlement warning among them),
  beside its verdicts on the true states of the same frames. The true states are a legal
  game, so what the first has more than the second comes from the counting (the second is
  not always empty: a commit can fall between two moves of one turn, or one commit can take
  in two moves the gate saw as one).

With ``answer`` (``--answer-checks``) the table also answers every mark as it comes, as an
attentive table would: after each commit a player sets each marked region, and each region the
camera has never seen (the dashboard asks for those), to its true count on the tablet, one at a
time (a correction, :meth:`tracker.game.TurnFollower.correct`, held over the camera's reading until
it reads the region otherwise, as the dashboard does). The figures
then say what such a table ends up with: the checks it answered, the verdicts its answers drew,
and the claims and verdicts that still went wrong.
"""
from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from calibration.localise import BoardNotFound
from calibration.profile import CalibrationError, calibrate
from tracker.game import ScoreEntry
from tracker.overrides import Override, apply_overrides, carry_misreads, doubt_moved, doubt_unchanged, to_check
from tracker.rulesets import apply_entry, make_game
from tracker.state import ObservedState
from tracker.verdicts import VIOLATION
from vision.synth.board_art import PrintedBoard, procedural_art
from vision.synth.render import FRAME_SIZE

#: a hand over more than this share of the board is over it: a fingertip at the board's rim is
#: about 0.4 %, a hand reaching for a piece 3 to 7 %
HAND_OVER = 0.005


@dataclass
class GameVideoFigures:
    """What one game video's live loop did (see the module docstring for each figure)."""

    tier: str
    seed: int
    turns: int
    frames: int = 0
    moves: int = 0
    commits: int = 0
    commit_after_hand_s: list[float] = field(default_factory=list)
    #: states committed while a hand covered more than HAND_OVER of the board
    commits_under_hand: int = 0
    #: moves whose every changed region the next commit marked unseen (made under a card, say)
    moves_hidden: int = 0
    wrong_regions: int = 0
    #: regions wrong in the states the tracker follows, and the set-up counts the rules settled
    tracked_wrong_regions: int = 0
    #: of those, the ones the dashboard does not ask the players to check
    #: (:func:`tracker.overrides.to_check`): wrong counts no one is told about
    tracked_wrong_unflagged: int = 0
    #: regions the dashboard asks the players to check whose count is right: the checks it costs them
    tracked_right_flagged: int = 0
    #: the checks the dashboard asks for as a table lives them: a region newly marked for a check
    #: (or marked still but at another count) once the tracker has read a commit. A mark that stays
    #: over several states is one check: a player who answers it sets the count, and the mark goes
    #: until the camera reads that region otherwise. The figures per state above count it at
    #: every state it stays (``checks_asked_right``: those of a count that was right)
    checks_asked: int = 0
    checks_asked_right: int = 0
    settled_regions: int = 0
    #: set-up counts the camera read as the rules leave them but doubted, held as read (sure)
    #: because the rules fix them (:func:`tracker.spqrisiko.setup.vouched_setup`)
    vouched_regions: int = 0
    #: regions where the tracker kept what the rules keep on the board (a power centre, a
    #: province's last legionary) that the camera stopped seeing
    #: (:meth:`tracker.game.TurnFollower.hold_permanent`)
    held_regions: int = 0
    #: counts set over the camera's (settled or kept by the rules) doubted once a hand changed
    #: their region and the camera still read it as before (:func:`tracker.overrides.doubt_moved`)
    doubted_regions: int = 0
    #: camera counts read as at the last commit in a province a hand changed, or otherwise in one no
    #: hand reached into, doubted for a check
    #: (:func:`tracker.overrides.doubt_unchanged`)
    unchanged_doubted: int = 0
    #: power centres an arena paid for that the tracked states did not show when the true ones
    #: did: the dashboard asked the players where they stand
    centres_asked: int = 0
    boards_wrong: int = 0
    phantom_changes: int = 0
    missed_changes: int = 0
    violations: int = 0
    warnings: int = 0
    truth_violations: int = 0
    truth_warnings: int = 0
    #: claims on the victory-point track (§5) the tracker made on the true states, and how many of
    #: them it made alike (same player, same round, same points) on the tracked states
    claims: int = 0
    claims_right: int = 0
    #: of the claims made otherwise on the tracked states, how many the dashboard showed hanging on
    #: a count it marked (:meth:`tracker.game.Game.claim_rests_on`, with the marks of the commit
    #: after which the claim was the latest); and how many of the right claims it showed so too
    claims_wrong_marked: int = 0
    claims_right_marked: int = 0
    #: the victory-point track at the end of the video, followed on the tracked and the true states
    vp_read: dict[str, int] = field(default_factory=dict)
    vp_true: dict[str, int] = field(default_factory=dict)
    #: the score markers the live loop read (once a still run has had its last say, vision.track)
    #: against where the film shows them: read on their box, on another, or not at all
    markers_right: int = 0
    markers_wrong: int = 0
    markers_unread: int = 0
    gate_s: list[float] = field(default_factory=list)
    #: seconds the pipeline took to detect and count each still frame it read (a frame read again
    #: only where it changed, :mod:`vision.partial`, takes a fraction of a whole one)
    counting_s: list[float] = field(default_factory=list)
    #: replayed from a recording (:mod:`vision.game_recording`): nothing was gated or counted, timed
    replayed: bool = False
    #: with ``answer``: the marks the table answered by setting the true count, and the violations
    #: and warnings the tracker gave on those corrections (apart from ``violations`` and ``warnings``:
    #: a set-up's warnings, read again as its counts are set, would swamp them)
    answered: int = 0
    answer_violations: int = 0
    answer_warnings: int = 0
    #: what ``--verbose`` prints, one line each, with the frame: every verdict on the tracked
    #: states and on the true ones, every true change missed and every phantom change
    messages: list[str] = field(default_factory=list)

    @property
    def gate_fps(self) -> float:
        return 1 / float(np.median(self.gate_s)) if self.gate_s else float("nan")


def _tally(game, state: ObservedState) -> list:
    """Feed ``state`` to the tracker; return its verdicts."""
    return game.start(state) if game.state is None else game.observe(state).verdicts


def _levels(verdicts) -> tuple[int, int]:
    """(violations, warnings) among ``verdicts``."""
    violations = sum(v.level == VIOLATION for v in verdicts)
    return violations, len(verdicts) - violations


def _owed(game) -> int:
    """How many power centres ``game`` awaits (an arena paid for them, no state has shown them)."""
    return sum(o.count for o in game.centres_owed())


class GameScorer:
    """Scores a live loop frame by frame: each frame's truth (the renderer's line: ``frame``,
    ``hand_present``, ``state``) and the state the pipeline committed on it, if any."""

    def __init__(self, figures: GameVideoFigures, players, fps: int, settle: bool = True, answer: bool = False):
        self.out, self.fps, self.settle, self.answer = figures, fps, settle, answer
        self.read, self.true = make_game("2005", players), make_game("2005", players)
        #: the set-up counts the rules settled, standing over the camera's (as on the dashboard)
        self._overrides: dict[str, Override] = {}
        #: the moves awaiting a commit: the frame the hand left on, and the regions the move changed
        self._pending: list[tuple[int, set[str]]] = []
        self._last: tuple[ObservedState, ObservedState] | None = None     # (tracked, true) at the last commit
        self._camera_before: ObservedState | None = None                    # the camera's reading at the last commit
        self._prev_hand, self._board_then = False, None
        self._hand_came = self._committed_at = -1       # frames: the last hand came in, the last commit
        #: tablet entries (card sets, draws) made before the game started, entered once it has
        self._entries: list[dict] = []
        self._asked = 0
        #: the regions marked for a check at the last commit, with the count they were marked at
        self._marked: dict[str, dict] = {}
        #: each claim of the tracked states' tracker (by id, kept alive here), with the marked counts
        #: the dashboard showed it hanging on at the first commit after which it was the latest
        self._claim_marks: dict[int, tuple[ScoreEntry, tuple[str, ...]]] = {}

    def _enter(self, entries) -> None:
        """Enter the tablet's entries in both trackers, as the players do (once each follows a game),
        counting what the tablet answers them at once (a card set out of turn) with the verdicts."""
        self._entries += list(entries)
        if self.read.state is None or self.true.state is None:
            return
        out = self.out
        for e in self._entries:
            said = [apply_entry(game, e["kind"], e["payload"]) for game in (self.read, self.true)]
            self._note(f"tablet {e['kind']}", *said)
            (v, w), (tv, tw) = (_levels(verdicts) for verdicts in said)
            out.violations, out.warnings = out.violations + v, out.warnings + w
            out.truth_violations, out.truth_warnings = out.truth_violations + tv, out.truth_warnings + tw
        self._entries = []

    def see(self, truth: dict, committed: ObservedState | None, moved: frozenset[str] | None = None) -> None:
        """``moved``: with a commit, the regions whose pieces a hand changed since the last one
        (:attr:`vision.pipeline.FrameResult.changed`)."""
        out = self.out
        out.frames += 1
        self._enter(truth.get("entries", ()))
        now = ObservedState.from_dict(truth["state"])
        if truth["hand_present"] and not self._prev_hand:
            self._board_then, self._hand_came = now, truth["frame"]
        # (not ``moved``: that is the pipeline's word for the commit on this frame, used below)
        if self._prev_hand and not truth["hand_present"] and (made := now.changed_regions(self._board_then)):
            out.moves += 1
            if self._committed_early(made, now):
                out.commit_after_hand_s.append((self._committed_at - truth["frame"] + 1) / self.fps)
            else:
                self._pending.append((truth["frame"], made))
        self._prev_hand = truth["hand_present"]
        if committed is None:
            return
        out.commits += 1
        out.commits_under_hand += truth.get("hand_fraction", 0.0) > HAND_OVER
        out.wrong_regions += len(committed.changed_regions(now) - committed.unseen)
        notes = []
        carry_misreads(self._overrides, committed)
        out.doubted_regions += len(doubt_moved(self._overrides, committed, moved))
        if self.read.state is not None and not self.read.placing:
            unchanged = doubt_unchanged(self._overrides, self._camera_before, committed, moved)
            self._overrides.update(unchanged)
            out.unchanged_doubted += len(unchanged)
        self._camera_before = committed
        if self.read.state is None and self.settle:
            self._overrides, notes = self.read.settle_setup(committed)
            out.settled_regions += sum(not o.vouched for o in self._overrides.values())
            out.vouched_regions += sum(o.vouched for o in self._overrides.values())
        elif self.settle:       # what the rules keep on the board, kept where the camera lost it
            held, notes = self.read.hold_permanent(apply_overrides(self._overrides, committed, moved))
            self._overrides.update(held)
            out.held_regions += len(held)
        tracked = apply_overrides(self._overrides, committed, moved)
        wrong = tracked.changed_regions(now) - tracked.unseen
        out.tracked_wrong_regions += len(wrong)
        out.boards_wrong += bool(wrong)
        if self._last is not None:
            was_read, was_true = self._last
            read_changed, truly_changed = tracked.changed_regions(was_read), now.changed_regions(was_true)
            phantom, missed = read_changed - truly_changed, truly_changed - read_changed - tracked.unseen
            out.phantom_changes += len(phantom)
            out.missed_changes += len(missed)
            for kind, regions in (("phantom change", phantom), ("true change missed", missed)):
                for r in sorted(regions):
                    out.messages.append(f"frame {truth['frame']}: {kind} in {r}: tracked "
                                        f"{_contents(tracked, r)} (was {_contents(was_read, r)}), "
                                        f"true {_contents(now, r)} (was {_contents(was_true, r)})")
        self._last, self._committed_at = (tracked, now), truth["frame"]
        read_verdicts = _tally(self.read, tracked)
        v, w = _levels(read_verdicts)
        out.violations, out.warnings = out.violations + v, out.warnings + w + len(notes)
        # what the dashboard marks for a check once the tracker has read the commit
        checked = self._checked(tracked)
        out.tracked_wrong_unflagged += len(wrong - checked)
        out.tracked_right_flagged += len(checked - wrong)
        self._claim_marked(checked | tracked.unseen)     # every mark on the map (overrides.marked)
        marked = self._marks(tracked, checked)
        new_marks = {r for r, content in marked.items() if self._marked.get(r) != content}
        out.checks_asked += len(new_marks)
        out.checks_asked_right += len(new_marks - wrong)
        self._marked = marked
        true_verdicts = _tally(self.true, now)
        self._note("commit", list(notes) + list(read_verdicts), true_verdicts, truth["frame"])
        v, w = _levels(true_verdicts)
        out.truth_violations, out.truth_warnings = out.truth_violations + v, out.truth_warnings + w
        self._enter(())
        asked = _owed(self.read) - _owed(self.true)
        out.centres_asked += max(0, asked - self._asked)
        self._asked = max(0, asked)
        seen = [frame for frame, regions in self._pending if not regions <= committed.unseen]
        out.moves_hidden += len(self._pending) - len(seen)
        if seen:        # the latest move the camera could see; earlier ones came in with it
            out.commit_after_hand_s.append((truth["frame"] - seen[-1] + 1) / self.fps)
        self._pending = []
        if self.answer:
            self._answer_marks(committed, now, truth["frame"])
        self._claims()

    def _answer_marks(self, camera: ObservedState, now: ObservedState, frame: int) -> None:
        """A player sets each region marked for a check, and each the camera has never seen (the
        dashboard asks for their counts), to its true count, one correction at a time, as on the
        tablet (:meth:`webui.live.LiveGame.correct`): held over the camera's reading until the
        camera reads the region otherwise."""
        out = self.out
        asked = set(self._marked) | {r for r in self.read.unknown if r not in self._overrides}
        for region in sorted(asked):
            state = self.read.state
            if region in state.unseen and region not in self.read.unknown:
                continue
            value = copy.deepcopy(now.regions.get(region, {}))
            self._overrides[region] = Override(None, camera.regions.get(region, {}), value, player=True)
            verdicts = self.read.correct(state.counted(region, value)).verdicts
            self._note(f"answer {region}", verdicts, [], frame)
            v, w = _levels(verdicts)
            out.answered += 1
            out.answer_violations, out.answer_warnings = out.answer_violations + v, out.answer_warnings + w
        tracked = self.read.state
        self._last = (tracked, now)
        self._marked = self._marks(tracked, self._checked(tracked))

    def _checked(self, tracked: ObservedState) -> set[str]:
        """The regions of the ``tracked`` state the dashboard marks for a check (:func:`to_check`)."""
        return to_check(tracked, self.read.questioned, self._overrides, self.read.vouched)

    def _claim_marked(self, marked: set[str]) -> None:
        """Note which of the ``marked`` counts (for a check or out of sight) the latest claim
        hangs on, the first time it is the latest at a commit: what the dashboard shows by it."""
        track = self.read.score_track
        if track and id(track[-1]) not in self._claim_marks:
            self._claim_marks[id(track[-1])] = (track[-1], self.read.claim_rests_on(track[-1], marked))

    @staticmethod
    def _marks(tracked: ObservedState, checked: set[str]) -> dict[str, dict]:
        """The regions marked for a check, each with the count it is marked at."""
        return {r: tracked.regions.get(r, {}) for r in checked}

    def _note(self, what: str, read, true, frame: int | None = None) -> None:
        """Keep, for ``--verbose``, the verdicts given on the tracked states (``read``) and on the
        true ones (``true``) at a commit or a tablet entry."""
        at = f"frame {frame}: " if frame is not None else ""
        self.out.messages += [f"{at}{what}, tracked: {v}" for v in read]
        self.out.messages += [f"{at}{what}, true: {v}" for v in true]

    def _committed_early(self, moved: set[str], now: ObservedState) -> bool:
        """Whether a commit made while the hand that made this move was still in the picture
        already showed the move: the hand had left the board, the gate saw it still, and nothing
        the move changed has changed since (print game 24's legionaries into Dacia and Moesia were
        committed on the frame before the hand was gone, and scored as never committed)."""
        if self._last is None or self._committed_at <= self._hand_came:
            return False
        tracked, true_then = self._last
        return not (now.changed_regions(true_then) & moved) and not moved <= tracked.unseen

    def _claims(self) -> None:
        """Compare the two trackers' victory-point claims so far (a claim is matched by its player
        and round: the tracker on the tracked states may see a turn begin on another commit)."""
        read = {(e.round_no, e.colour): e for e in self.read.score_track}
        true = [((e.round_no, e.colour), e.score.total) for e in self.true.score_track]
        self.out.claims = len(true)
        right = [key for key, points in true if key in read and read[key].score.total == points]
        self.out.claims_right = len(right)
        hangs = {key for key, e in read.items() if self._claim_marks.get(id(e), (None, ()))[1]}
        self.out.claims_right_marked = len(hangs & set(right))
        self.out.claims_wrong_marked = len(hangs & ({key for key, _ in true} - set(right)))
        self.out.vp_read, self.out.vp_true = dict(self.read.vp), dict(self.true.vp)


def play_game_video(tier: str, seed: int, turns: int, fps: int = 12, size: tuple[int, int] = FRAME_SIZE,
                    hold_untouched: bool = True, settle: bool = True, board_print: PrintedBoard | None = None,
                    partial: bool = True, record: Path | None = None, answer: bool = False) -> GameVideoFigures:
    """Render the game of ``seed`` on a ``tier`` table, calibrate on its empty-table photo, play
    every frame through the pipeline and score the commits. With ``board_print`` the table shows
    that real print, its pieces inside the print's own borders; the calibration still compares
    with the procedural art, as at a player's table. ``partial=False`` reads every still frame whole
    (:mod:`vision.partial`). ``record``: a folder to record what the scorer saw in
    (:mod:`vision.game_recording`); ``answer``: the table answers every mark (:class:`GameScorer`)."""
    from vision.synth.video import calibration_photo, frames
    art, geometry = PrintedBoard.parts(board_print)
    rendered = ((img, truth) for img, truth, _ in frames(seed, turns, tier, size=size, fps=fps, art=art,
                                                          geometry=geometry))
    return _play(calibration_photo(seed, tier, size, art=art), rendered, GameVideoFigures(tier, seed, turns), fps,
                 hold_untouched, settle, partial, record, answer)


def read_video_folder(folder) -> tuple[dict, list[dict], np.ndarray]:
    """A game video written to a folder (``augur synth video``, the demo's): its ``video.json``,
    its per-frame truth and its calibration photo."""
    import json

    import cv2
    folder = Path(folder)
    meta = json.loads((folder / "video.json").read_text())
    truth = [json.loads(line) for line in (folder / "truth.jsonl").read_text().splitlines()]
    return meta, truth, cv2.imread(str(folder / "calibration.jpg"))


def play_video_folder(folder, hold_untouched: bool = True, settle: bool = True) -> GameVideoFigures:
    """The same for a game video written to a folder: its frames read from their JPEG files, as
    a camera's would arrive."""
    from vision.frames import video_frames
    meta, truth, calibration_image = read_video_folder(folder)
    return _play(calibration_image, zip(video_frames(folder, meta["fps"], realtime=False), truth),
                 GameVideoFigures(meta["tier"], meta["seed"], meta["turns"]), meta["fps"], hold_untouched,
                 settle)


def _play(calibration_image: np.ndarray, frames, out: GameVideoFigures, fps: int,
          hold_untouched: bool, settle: bool, partial: bool = True, record: Path | None = None,
          answer: bool = False) -> GameVideoFigures:
    """Calibrate, then run (image, truth) ``frames`` through the pipeline, scoring into ``out``
    (and recording what the scorer saw in the folder ``record``, when given)."""
    from vision.game_recording import GameRecording, recording_path
    from vision.gate import Gate
    from vision.pipeline import Pipeline
    from vision.synth.video import PLAYERS
    profile = calibrate(calibration_image, procedural_art(), players=PLAYERS)
    gate, pipeline = Gate(profile), Pipeline(profile, hold_untouched=hold_untouched, partial=partial, players=PLAYERS)
    scorer = GameScorer(out, PLAYERS, fps, settle, answer)
    recording = (GameRecording(recording_path(record, out.tier, out.seed), out.tier, out.seed, out.turns, fps, settle)
                 if record is not None else None)
    for img, truth in frames:
        t0 = time.perf_counter()
        gate.check(img)                      # timed alone: the pipeline's frame also counts still ones
        out.gate_s.append(time.perf_counter() - t0)
        res = pipeline.process(img)
        if res.state is not None:
            out.counting_s.append(res.timings["detect"] + res.timings["count"])
        scorer.see(truth, res.committed, res.changed)
        if res.track is not None and "track" in truth:       # films written before session 126 have none
            for colour, box in truth["track"].items():
                read = res.track.boxes.get(colour)
                out.markers_right += read == box
                out.markers_wrong += read is not None and read != box
                out.markers_unread += read is None
        if recording is not None:
            recording.see(truth, res.committed, res.changed)
    if recording is not None:
        recording.close()
    return out


def _contents(state: ObservedState, region: str) -> str:
    """A region's pieces as a short text ("2 red legionary", "empty"), or "unseen"."""
    if region in state.unseen:
        return "unseen"
    pieces = [f"{n} {colour} {kind}" for colour, kinds in sorted(state.regions.get(region, {}).items())
              for kind, n in sorted(kinds.items()) if n]
    return ", ".join(pieces) or "empty"


def print_games(figures: list[GameVideoFigures], fps: int, verbose: bool = False) -> None:
    """Print one line for a tier's games (and, ``verbose``, each game's messages first)."""
    if verbose:
        for f in figures:
            for m in f.messages:
                print(f"  {f.tier} seed {f.seed}: {m}", flush=True)
    print(describe(figures, fps), flush=True)


def describe(figures: list[GameVideoFigures], fps: int) -> str:
    """One line for a tier's games together."""
    f0 = figures[0]
    delays = [d for f in figures for d in f.commit_after_hand_s]
    moves, commits = sum(f.moves for f in figures), sum(f.commits for f in figures)
    hidden = sum(f.moves_hidden for f in figures)
    total = {k: sum(getattr(f, k) for f in figures) for k in
             ("wrong_regions", "tracked_wrong_regions", "tracked_wrong_unflagged", "tracked_right_flagged",
              "checks_asked", "checks_asked_right", "settled_regions", "vouched_regions", "held_regions",
              "doubted_regions", "unchanged_doubted", "centres_asked", "boards_wrong",
              "phantom_changes", "missed_changes", "violations", "warnings", "truth_violations", "truth_warnings",
              "claims", "claims_right", "claims_wrong_marked", "claims_right_marked", "commits_under_hand",
              "answered", "answer_violations", "answer_warnings", "markers_right", "markers_wrong",
              "markers_unread")}
    track_off = sum(abs(f.vp_read.get(c, 0) - v) for f in figures for c, v in f.vp_true.items())
    gate_fps = float(np.median([f.gate_fps for f in figures]))
    counting = [1000 * t for f in figures for t in f.counting_s]
    counted = (f"counting a still frame {np.median(counting):.0f} ms (p50), {np.percentile(counting, 95):.0f} ms (p95)"
               if counting else "no still frame counted")
    timed = ("gating and counting not timed (replayed from a recording)" if all(f.replayed for f in figures)
             else f"gating {gate_fps:.0f} frames/s (target >= 30), {counted}")
    seeds = ", ".join(str(f.seed) for f in figures)
    delay = (f"{np.median(delays):.2f} s of video after the last hand left (median; worst {max(delays):.2f} s; "
             f"target <= 0.5 s at {fps} fps, counting time not included)") if delays else "none committed"
    return (f"[game {f0.tier}] {len(figures)} game(s) (seed {seeds}), {f0.turns} turns each, "
            f"{sum(f.frames for f in figures)} frames: {timed}; "
            f"{len(delays)} of {moves} moves committed"
            f"{f' ({hidden} made under a cover the camera cannot see through)' if hidden else ''}, {delay}; "
            f"{commits} states committed ({total['commits_under_hand']} with a hand over the board), "
            f"{total['wrong_regions'] / max(commits, 1):.2f} regions read wrong per state; "
            f"{total['settled_regions']} set-up counts settled by the rules ({total['vouched_regions']} more read "
            f"as the set-up leaves them, in doubt, vouched for) and {total['held_regions']} regions "
            f"kept as the rules keep them where the camera lost their centre or army, "
            f"{total['doubted_regions']} of these counts doubted once a hand moved pieces in their region "
            f"(and {total['unchanged_doubted']} of the camera's, read as before where a hand moved pieces or otherwise "
            f"where none reached in), then "
            f"{total['tracked_wrong_regions'] / max(commits, 1):.2f} regions wrong per tracked state "
            f"({total['tracked_wrong_unflagged']} of those {total['tracked_wrong_regions']} not flagged for a check; "
            f"{total['tracked_right_flagged'] / max(commits, 1):.2f} right counts flagged per state; "
            f"{total['checks_asked']} checks asked as marks came, {total['checks_asked'] / max(moves, 1):.2f} a move, "
            f"{total['checks_asked_right']} of them of a right count), "
            f"{total['boards_wrong']} tracked states with a region wrong; {total['centres_asked']} arena-paid power "
            f"centres the camera did not show asked for on the tablet; {total['phantom_changes']} phantom changes "
            f"(a count changed with nobody touching it), {total['missed_changes']} true changes missed; "
            + (f"the table answered {total['answered']} marks with the true count ({total['answer_violations']} "
               f"violations / {total['answer_warnings']} warnings on its answers); "
               if any(f.answered for f in figures) else "") +
            f"tracker {total['violations']} violations / {total['warnings']} warnings "
            f"(on the true states of the same frames: {total['truth_violations']} / {total['truth_warnings']}); "
            f"victory points: {total['claims_right']} of {total['claims']} claims as on the true states "
            f"({total['claims_wrong_marked']} of the {total['claims'] - total['claims_right']} others shown hanging "
            f"on a count marked for a check, and {total['claims_right_marked']} of the right ones), the final "
            f"track{'s' if len(figures) > 1 else ''} {track_off} point{'' if track_off == 1 else 's'} off in all; "
            f"score markers read once each still run had its last say: {total['markers_right']} on their box, "
            f"{total['markers_wrong']} on another, {total['markers_unread']} not read")


def bench_game_videos(tiers=("easy", "hard"), seeds=(5,), turns: int = 2, fps: int = 12,
                      size: tuple[int, int] = FRAME_SIZE, hold_untouched: bool = True, settle: bool = True,
                      board_print: PrintedBoard | None = None, partial: bool = True,
                      record: Path | None = None, verbose: bool = False, answer: bool = False) -> dict:
    """Every game of ``seeds`` on each tier (on ``board_print`` when given); prints one line per
    tier (and, ``verbose``, each verdict and missed or phantom change) and returns the figures.
    ``record``: a folder to record each game in, for :func:`vision.game_recording.bench_replays`;
    ``answer``: the table answers every mark with the true count (:class:`GameScorer`)."""
    out = {}
    for tier in tiers:
        out[tier] = []
        for s in seeds:
            try:
                out[tier].append(play_game_video(tier, s, turns, fps, size, hold_untouched, settle, board_print,
                                                 partial, record, answer))
            except (BoardNotFound, CalibrationError) as exc:
                # a table the calibration refuses is one a player would calibrate again, not a
                # game to measure: said and skipped, so that one hard table does not end the run
                print(f"[game {tier}] seed {s}: calibration refused ({exc}); skipped", flush=True)
        if out[tier]:
            print_games(out[tier], fps, verbose)
    return out
