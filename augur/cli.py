"""The ``augur`` command: one front door for scoring, replaying, simulating, benchmarking and the demo.

Bad input never ends in a traceback: every :class:`~tracker.errors.AugurError`, a file or folder
that cannot be read or written (``OSError``) and a command line the parser refuses (a missing
argument, a number out of its range) becomes one line on stderr and exit status 2. Each command imports what it
needs when it runs, so the rules commands start without loading OpenCV, Flask or onnxruntime.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tracker.errors import AugurError, GameError, StateError
from tracker.verdicts import counted
from vision.records import DETECTORS
from webui.recording_lock import hold_recording

#: How ``--rotate`` may turn a board photo north up: the turns of
#: :func:`calibration.region_map.load_north_up_photo` (not imported here: it loads OpenCV, which
#: every command would then pay for) and "none".
ROTATIONS = ("none", "cw", "ccw", "180")

EXIT_BAD_INPUT = 2


def _whole(minimum: int, maximum: int | None = None):
    """An argparse type: a whole number from ``minimum`` (up to ``maximum``).

    Why: a count, seed, port or resolution out of range used to get through the command line
    and fail deep inside a command, as a traceback (``augur bench vision --images 0`` divided by
    zero, a negative seed was refused by NumPy after the rendering had begun) or worse, as
    nothing at all (``augur bench dashboard --commits -5`` waited forever for a commit that never
    came; ``augur demo --frames -3`` quietly left out the last three frames). Every whole-number
    option now says its range, and the parser refuses a value outside it in one line before any
    work starts (``tests/test_cli.py``, ``TestNumbersOnTheCommandLine``)."""
    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum or (maximum is not None and value > maximum):
            span = f"at least {minimum}" if maximum is None else f"from {minimum} to {maximum}"
            raise argparse.ArgumentTypeError(f"must be {span}, not {value}")
        return value
    whole.minimum, whole.maximum = minimum, maximum     # for the test that every option has a range
    return whole


def _real(minimum: float, above: bool = False):
    """An argparse type: a number of at least ``minimum`` (``above``: more than it), as
    :func:`_whole` for the options that take fractions (a learning rate, a gradient clip)."""
    def real(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or not (value > minimum if above else value >= minimum):
            raise argparse.ArgumentTypeError(f"must be {'more than' if above else 'at least'} {minimum:g}, not {text}")
        return value
    real.minimum = minimum
    return real


#: How many of something (images, games, turns, frames, commits, workers, steps): one or more.
COUNT = _whole(1)
#: Per-tier table counts and training epochs, where 0 means none (``--epochs 0``: render only).
NONE_OR_MORE = _whole(0)
#: A seed of the renderer, the simulator or training: NumPy takes whole numbers from 0.
SEED = _whole(0)
#: A port to serve the dashboard on.
PORT = _whole(1, 65535)
#: A camera's index, as OpenCV numbers them.
CAMERA = _whole(0)
#: The markers sheet's print resolution: below 72 dpi a marker is a few pixels (OpenCV refuses to
#: draw it under 8), above 1200 the A4 page no longer fits in memory comfortably.
DPI = _whole(72, 1200)
#: A victory-point target.
TARGET = _whole(1)
#: A learning rate: more than 0.
RATE = _real(0.0, above=True)


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad command line is one line on stderr and exit status 2, like every
    other bad input (``augur: error: ...``), with where the options are listed instead of the
    usage block."""

    def error(self, message: str):
        self.exit(EXIT_BAD_INPUT, f"augur: error: {message} (see {self.prog} --help)\n")


def _players(text: str | None) -> list[str] | None:
    if text is None:
        return None
    players = [p.strip() for p in text.split(",") if p.strip()]
    if not players:
        raise GameError("--players needs a comma-separated list of colours, e.g. red,blue,yellow")
    return players


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StateError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise StateError(f"{path}: is a directory") from None
    except UnicodeDecodeError:
        raise StateError(f"{path}: not a text (JSON) file") from None
    except OSError as exc:
        raise StateError(f"{path}: {exc.strerror}") from None


# -- score ------------------------------------------------------------------------------
def cmd_score(args: argparse.Namespace) -> int:
    from tracker.rulesets import check_ruleset, is_risiko, make_game
    from tracker.state import ObservedState

    check_ruleset(args.ruleset)
    objectives = json.loads(_read_text(args.objectives)) if getattr(args, "objectives", None) else None
    if objectives is not None and not isinstance(objectives, dict):
        raise StateError(f"{args.objectives}: objectives are an object of colour -> {{territories, continents}}")
    game = make_game(args.ruleset, _players(args.players), neutrals=_players(args.neutrals) or (),
                     objectives=objectives)
    for path in args.states:
        text = _read_text(path)         # its errors name the file already
        try:
            state = ObservedState.from_json(text)
        except StateError as exc:
            raise StateError(f"{path}: {exc}") from None
        if state.board.id != game.board.id:
            raise StateError(f"{path}: a {state.board.id} board, but the {args.ruleset} ruleset plays on {game.board.id}")
        if is_risiko(args.ruleset):
            print(json.dumps({c: game.score(c, state).to_dict() for c in game.players}))
        else:
            from tracker.spqrisiko.scoring import score_all
            scores = score_all(state, game.players, game.options)
            print(json.dumps({c: s.to_dict() for c, s in scores.items()}))
    return 0


# -- replay -----------------------------------------------------------------------------
def _print_step(step, board, as_json: bool) -> None:
    report = step.report
    if as_json:
        out = {"line": step.line, "verdicts": [v.to_dict() for v in step.verdicts],
               "scores": [{"colour": s.colour, "round": s.round_no, "turn": s.turn_no, "claimed": s.score.to_dict(),
                           "total": s.total_after, "rests_on": list(step.rests_on.get(s.turn_no, ()))}
                          for s in step.scores]}
        if step.placements:
            out["events"] = [e.to_dict() for e in step.placements]
        if report:
            out.update({"actor": report.actor, "round": report.round_no, "turn": report.turn_no,
                        "events": [e.to_dict() for e in report.events],
                        "alternatives": len(report.readings) - 1, "ambiguous": report.ambiguous})
        print(json.dumps(out))
        return
    for e in step.placements:
        print(f"[line {step.line}] {e.describe(board)}")
    if report is None and not step.placements:
        print(f"[line {step.line}] set-up board" + ("" if step.verdicts else ": ok"))
    for s in step.scores:
        hangs = step.rests_on.get(s.turn_no)
        doubt = f" (hangs on {', '.join(board.name(r) for r in hangs)}: marked for a check)" if hangs else ""
        print(f"== round {s.round_no}, turn {s.turn_no}: {s.colour} {s.score.describe()} -> {s.total_after}{doubt}")
    if report is not None:
        for e in report.events:
            print(f"[line {step.line}] {e.describe(board)}")
        if report.ambiguous:
            print(f"[line {step.line}]   (another reading fits as well; {counted(len(report.readings) - 1, 'alternative')})")
    for v in step.verdicts:
        print(f"[line {step.line}]   {v.level.upper()} {v.rule}: {v.message}")


def _print_summary(game) -> None:
    track = ", ".join(f"{c} {vp}" for c, vp in game.vp.items())
    label = "VP" if game.board.id == "spqrisiko" else ("territories" if getattr(game.rules, "scoring", "") == "standing"
                                                       else "points")
    print(f"-- after round {game.round_no}, turn {game.turn_no}: {label} {track}"
          + (f"; winner {game.winner}" if game.winner else ""))


def cmd_replay(args: argparse.Namespace) -> int:
    from tracker.replay import load_game_file

    game, steps = load_game_file(args.game, _players(args.players), args.ruleset, args.target)
    if args.serve:
        return _serve_replay(args, game)
    for step in steps:
        _print_step(step, game.board, args.json)
    if not args.json:
        _print_summary(game)
        counts = {lvl: sum(1 for s in steps for v in s.verdicts if v.level == lvl) for lvl in ("warning", "violation")}
        print(f"-- {counted(len(steps), 'state')}, {counted(counts['warning'], 'warning')}, {counted(counts['violation'], 'violation')}")
    return 0


def _serve_replay(args: argparse.Namespace, game) -> int:
    """Load a game file into a fresh recording and serve the dashboard on it (any ruleset)."""
    import tempfile
    import threading

    from tracker.replay import parse_lines
    from webui.app import create_app
    from webui.live import LiveGame
    from webui.store import Store
    header, lines = parse_lines(_read_text(args.game).splitlines())
    _port_free("127.0.0.1", args.port)
    extra = {k: header[k] for k in ("neutrals", "objectives") if header.get(k)}
    record = Path(args.record) if args.record else Path(tempfile.mkdtemp(prefix="augur-replay-"))
    hold_recording(record)
    store = Store(record)
    live = LiveGame.open(store, list(game.players), args.ruleset or header.get("ruleset", "2005"),
                         game.target_vp, resume=False, extra=extra)
    for ln in lines:
        for entry in ln.entries:
            live.enter(entry["kind"], {k: v for k, v in entry.items() if k != "kind"})
        if ln.cards_played:
            live.enter("cards", {"player": ln.cards_player or live.game.current, "cards": list(ln.cards_played)})
        live.commit(ln.state, source="replay")
        if ln.card_drawn:
            live.enter("draw", {"player": live.game.current})
    print(f"loaded {len(lines)} states of {args.game} into {store.folder}")
    _serve_and_wait(create_app(live, join_token="replay-only-" + str(id(live))), "127.0.0.1", args.port,
                    threading.Event(), None, "replay")
    return 0


# -- simulate ---------------------------------------------------------------------------
def cmd_simulate(args: argparse.Namespace) -> int:
    from tracker.rulesets import check_ruleset, is_risiko

    check_ruleset(args.ruleset)
    if is_risiko(args.ruleset):
        from tracker.risiko.rules import risiko_rules
        from tracker.risiko.simulator import write_game as write_risiko
        n = write_risiko(args.output, risiko_rules(args.ruleset), _players(args.players), args.seed, args.turns,
                         _players(args.neutrals))
    else:
        from tracker.spqrisiko.options import ruleset_options
        from tracker.spqrisiko.setup import check_players
        from tracker.spqrisiko.simulator import write_game
        players = check_players(_players(args.players) or ["red", "blue", "yellow"])
        n = write_game(args.output, players, args.seed, args.turns, ruleset_options(args.ruleset), args.target)
    print(f"wrote {n} steps to {args.output}")
    return 0


# -- bench ------------------------------------------------------------------------------
def cmd_bench(args: argparse.Namespace) -> int:
    if args.what == "tracker":
        from tracker.bench import run_tracker_bench
        run_tracker_bench(games=_or(args.games, 5), turns=_or(args.turns, 300), seed=_or(args.seed, 0))
        return 0
    if args.answer_checks and args.what != "game":
        raise AugurError("--answer-checks: only for augur bench game (the table answering every check the "
                         "dashboard marks)")
    if args.what == "game" and args.replay:
        from vision.game_recording import bench_replays
        bench_replays(Path(args.replay), verbose=args.verbose, answer=args.answer_checks)
        return 0
    if args.what == "setup" and args.replay:
        from vision.setup_bench import bench_setup_replays
        bench_setup_replays(Path(args.replay), verbose=args.verbose)
        return 0
    if args.what == "game":
        # the game videos are filmed flat, in the calibration's light: a vision-only option would
        # be ignored, and the figures taken for what it asked
        vision_only = [flag for flag, value in (("--relight", args.relight), ("--relief", args.relief),
                                                ("--toppled", args.toppled)) if value]
        if vision_only:
            raise AugurError(f"{', '.join(vision_only)}: only for augur bench vision; the game videos are filmed "
                             f"flat, in the calibration's light")
        from vision.environment import bench_environment
        from vision.game_bench import bench_game_videos
        from vision.synth.render import FRAME_SIZE
        first = _or(args.seed, GAME_BENCH_SEED)
        board_print = _board_print(args)
        print(f"environment: {bench_environment().describe()}")
        bench_game_videos(args.tiers, seeds=range(first, first + _or(args.games, 2)), turns=_or(args.turns, 3),
                          size=_size(args.size) if args.size else FRAME_SIZE, hold_untouched=not args.no_hold,
                          settle=not args.no_settle, board_print=board_print, partial=not args.read_whole,
                          record=Path(args.record) if args.record else None, verbose=args.verbose,
                          answer=args.answer_checks)
        return 0
    if args.what == "setup":
        from vision.environment import bench_environment
        from vision.setup_bench import bench_setup_videos
        from vision.synth.render import FRAME_SIZE
        first = _or(args.seed, GAME_BENCH_SEED)
        print(f"environment: {bench_environment().describe()}")
        bench_setup_videos(args.tiers, seeds=range(first, first + _or(args.games, 2)),
                           size=_size(args.size) if args.size else FRAME_SIZE, verbose=args.verbose,
                           record=Path(args.record) if args.record else None, board_print=_board_print(args))
        return 0
    if args.what == "vision":
        from vision.bench import run_vision_bench
        from vision.synth.render import FRAME_SIZE
        run_vision_bench(n=args.images, tiers=args.tiers, detector=args.detector, video=not args.no_video,
                         size=_size(args.size) if args.size else FRAME_SIZE,
                         relight=_relight(args.relight) if args.relight else None, relief=_relief(args.relief),
                         board_print=_board_print(args), toppled=_toppled(args.toppled))
        return 0
    if args.what == "confidence":
        from vision.bench import HELD_OUT_SEED
        from vision.confidence import DEFAULT_CONFIDENCE
        from vision.confidence_bench import run_confidence_bench
        from vision.environment import bench_environment
        if args.relight or args.relief or args.size:
            raise AugurError("--relight, --relief, --size: not for augur bench confidence (it reads the vision "
                             "bench's tables at 720p, in their calibration's light)")
        paths = [Path(c) for c in args.confidence] if args.confidence else [DEFAULT_CONFIDENCE]
        print(f"environment: {bench_environment().describe()}")
        run_confidence_bench(paths, args.images, args.tiers, _or(args.seed, HELD_OUT_SEED), _board_print(args),
                             _toppled(args.toppled), progress=_tier_progress("read"))
        return 0
    if args.what == "laid-out":
        from vision.environment import bench_environment
        from vision.laid_out_bench import LAID_OUT_SEED, bench_laid_out
        print(f"environment: {bench_environment().describe()}")
        bench_laid_out(args.images, args.tiers, _or(args.seed, LAID_OUT_SEED), _board_print(args))
        return 0
    if args.what == "track":
        from vision.environment import bench_environment
        from vision.track_bench import bench_track
        print(f"environment: {bench_environment().describe()}")
        bench_track(args.images, args.tiers, args.seed, _board_print(args))
        return 0
    if args.what == "memory":
        from vision.bench import PHONE_SIZE, bench_live_memory, bench_phone_film
        from vision.environment import bench_environment
        print(f"environment: {bench_environment().describe()}")
        bench_live_memory()
        bench_phone_film(_size(args.size) if args.size else PHONE_SIZE)
        return 0
    if args.what == "dashboard":
        from webui.bench import run_dashboard_bench
        run_dashboard_bench(commits=args.commits)
        return 0
    if args.what == "synth":
        from vision.synth.bench import run_synth_bench
        run_synth_bench(n=args.images, dataset=args.dataset, seed=_or(args.seed, 0))
        return 0
    raise GameError(f"unknown benchmark '{args.what}'")


#: The first game of ``augur bench game``: seeds 11 and 12 were the session-25 study's hard games.
GAME_BENCH_SEED = 11


def _or(value, default):
    """An option's value, or the bench's own default when it was not given."""
    return default if value is None else value


# -- calibrate / count -------------------------------------------------------------------
def _read_image(path: str):
    from vision.image_file import read_image
    return read_image(path)


#: Rounds of still frames ``augur calibrate --camera`` reads while something lies over the map (a
#: player still reaching over the board, a hand resting on it): it keeps the first round with
#: nothing over the map, or else the one with the least over it.
CAMERA_ROUNDS = 3


def _camera_rounds(index: int):
    """Rounds of still frames of camera ``index`` for a calibration, one per ``next``
    (:func:`vision.frames.still_frames`); the camera is released when the generator is closed."""
    from calibration.localise import BoardNotFound
    from vision.frames import open_camera, still_frames
    cap = open_camera(index)            # CameraLost: one line, like BoardNotFound

    def still_round() -> list:
        frames = still_frames(cap)
        if not frames:
            raise BoardNotFound(f"camera {index} is not available")
        return frames

    try:
        while True:
            yield still_round()         # not held here while the round is calibrated
    finally:
        cap.release()


def _photo_rounds(args: argparse.Namespace):
    """The photos a calibration may read: those given, once; the first seconds of a recorded
    video, once; or the camera's rounds of frames."""
    if sum((bool(args.image), args.camera is not None, args.video is not None)) != 1:
        raise GameError("give either photos of the empty board, --camera N or --video FILE")
    if args.image:
        yield [_read_image(path) for path in args.image]
        return
    if args.video is not None:
        from vision.frames import video_start_frames
        yield video_start_frames(Path(args.video))
        return
    yield from _camera_rounds(args.camera)


@dataclass
class _Calibrated:
    """A calibration as ``augur calibrate`` made it: the profile, the photo it read (composed of
    ``photos`` photos or frames, :mod:`calibration.composed`) and what lies over its map."""

    profile: object
    image: object
    photos: int
    covered: object
    notice: str

    @property
    def cover(self) -> float:
        """How much lies over the map: 0 with nothing to say, infinite with the map off the print."""
        if not self.notice:
            return 0.0
        return self.covered.area if self.covered.lined_up else float("inf")


def _calibrated(args: argparse.Namespace, players: tuple, anchors) -> _Calibrated:
    """Calibrate on the photos given, or on the camera's frames: with something over the map, the
    camera is read again, up to CAMERA_ROUNDS rounds, and the round with the least over it kept."""
    from calibration.composed import FEWEST, composed_photo
    from calibration.covered import covered_notice, profile_covered, region_names
    from calibration.localise import BoardNotFound
    from calibration.profile import calibrate
    from vision.synth.board_art import procedural_art
    art, best = procedural_art(args.board), None
    rounds = _photo_rounds(args)
    try:
        for k in range(1, CAMERA_ROUNDS + 1):
            try:
                photos = next(rounds)
            except StopIteration:
                break
            except BoardNotFound as exc:    # the camera went away: a round read before stands
                if best is None:
                    raise
                print(f"{exc}: keeping the round read before", file=sys.stderr)
                break
            last = args.camera is None or k == CAMERA_ROUNDS
            if not args.image and len(photos) < FEWEST:
                photos = photos[-1:]        # the camera stopped delivering (the video ended): its last frame alone
            count, image = len(photos), composed_photo(photos)
            del photos          # a phone's nine 4K frames are 225 MB the calibration has no use for
            try:
                profile = calibrate(image, art, args.board, players, anchors)
            except BoardNotFound as exc:
                if last and best is None:
                    raise
                if not last:
                    print(f"reading the camera again (round {k + 1} of {CAMERA_ROUNDS}): {exc}", file=sys.stderr)
                    continue
                break
            covered = profile_covered(profile)
            made = _Calibrated(profile, image, count, covered, covered_notice(covered, profile.geometry))
            if best is None or made.cover < best.cover:
                best = made
            if not made.notice or last:
                break
            where = region_names(covered.regions, profile.geometry) or "much of the board"
            print(f"something lies over the map (over {where}): clear it; reading the camera again "
                  f"(round {k + 1} of {CAMERA_ROUNDS})", file=sys.stderr)
    finally:
        rounds.close()
    return best


def cmd_calibrate(args: argparse.Namespace) -> int:
    from calibration.notices import calibration_notices
    from calibration.pieces_on_map import PAINT_RADIUS, paint_out_pieces
    from calibration.map_fit import read_anchors
    from vision.frames import CAPTURE_SIZE
    anchors = read_anchors(Path(args.anchors)) if args.anchors else None
    from tracker.spqrisiko.setup import check_colours
    players = check_colours(_players(args.players) or ())   # the score markers on box 0
    for out in (Path(args.output), Path(args.preview) if args.preview else None):
        if out is not None and not out.parent.is_dir():     # said before the camera is read, not after
            raise GameError(f"cannot write {out}: there is no folder {out.parent}")
    made = _calibrated(args, players, anchors)
    profile, image, photos, covered = made.profile, made.image, made.photos, made.covered
    on_map = paint_out_pieces(profile)      # a board calibrated with the game on it: warned below
    profile.save(Path(args.output))
    from calibration.overlay import draw_overlay
    preview = Path(args.preview) if args.preview else Path(args.output).with_suffix(".preview.jpg")
    _write_image(preview, draw_overlay(profile.undistort(image), profile.pose, profile.geometry, covered=covered.mask,
                                       painted=on_map.where, painted_radius=PAINT_RADIUS),
                 done=f"wrote {args.output}, but ")
    fitted = f"; region map moved by {counted(len(anchors), 'anchor')}" if anchors else ""
    local = (f"; map fitted to the print locally (by up to {profile.surface.largest:.0f} board units)"
             if profile.surface is not None else "; too little of the board matched to fit the map locally")
    if profile.borders is not None and profile.borders.any():
        local += f"; borders traced on the printed lines ({int((profile.borders > 0).sum())} square units moved)"
    w, h = image.shape[1], image.shape[0]
    small = "" if w * h >= CAPTURE_SIZE[0] * CAPTURE_SIZE[1] else \
        f" (a {CAPTURE_SIZE[0]}x{CAPTURE_SIZE[1]} frame reads the far pieces better)"
    unseen = [c for c in players if c in profile.colours_lab and c not in profile.learned]
    missed = (f" (no score marker of {', '.join(unseen)} seen on box 0: their default colours are used; "
              "put every player's marker on box 0, uncovered, and calibrate again to learn them)") if unseen else ""
    median = f" (composed of {photos} {'photos' if args.image else 'frames'})" if photos > 1 else ""
    learned = ", ".join(profile.learned) or ("none" if unseen else
                                             "none (no score marker seen on box 0: the default colours and piece size are used)")
    print(f"board found in a {w}x{h} frame{median}{small}; lens k1 {profile.k1:+.2f}; learned colours: {learned}"
          f"{missed}{local}{fitted}; wrote {args.output}; check the fitted map in {preview}")
    for notice in calibration_notices(profile, covered, on_map, preview):
        print(f"warning: {notice}", file=sys.stderr)
    return 0


def _write_image(path: Path, image, done: str = "") -> None:
    """Write an image, or say in one line why it could not be (``done``: what was written before it)."""
    import cv2
    try:
        written = cv2.imwrite(str(path), image)
    except cv2.error:  # OpenCV raises, rather than returning False, for an extension it has no encoder for
        written = False
    if not written:
        raise GameError(f"{done}cannot write {path} (use a .png or .jpg name in a folder that exists)")


def cmd_markers(args: argparse.Namespace) -> int:
    from calibration.markers import PRINT_MM, marker_sheet
    out = Path(args.output)
    _write_image(out, marker_sheet(args.dpi))
    print(f"wrote {out}: print it at 100 % on A4 ({args.dpi} dpi; each black square {PRINT_MM} mm), cut out the four "
          f"markers and lay each outside the board, the corner by its dot on the board corner it names")
    return 0


def cmd_count(args: argparse.Namespace) -> int:
    from calibration.profile import CalibrationProfile
    from vision.count import count
    from calibration.notices import calibration_notices
    from vision.pipeline import make_detector
    from vision.track import TrackReader
    profile = CalibrationProfile.load(Path(args.calibration), args.board)
    for notice in calibration_notices(profile):        # the counts below are read under it
        print(f"warning: {notice}", file=sys.stderr)
    detector = make_detector(profile, args.detector)
    geo = profile.geometry
    # the score markers, read beside the counts (the tracker takes no notice of them)
    track = TrackReader(profile) if geo.track_boxes else None
    failed = 0
    for path in args.images:
        try:
            image = _read_image(path)
        except AugurError as exc:
            print(f"augur: error: {exc}", file=sys.stderr)
            failed += 1
            continue
        if (image.shape[1], image.shape[0]) != tuple(profile.image_size):
            print(f"augur: error: {path}: image is {image.shape[1]}x{image.shape[0]}, the calibration was made at "
                  f"{profile.image_size[0]}x{profile.image_size[1]}", file=sys.stderr)
            failed += 1
            continue
        det = detector.detect(image)
        line = count(det, geo, det.unseen).to_dict()
        if track is not None:
            line["track"] = track.read(image).to_dict()
        print(json.dumps(line, separators=(",", ":")))
    return EXIT_BAD_INPUT if failed else 0


# -- train ------------------------------------------------------------------------------
def _require_training(*modules: str) -> None:
    """Training needs the [train] extra; say so in one line instead of an import traceback."""
    import importlib.util
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise AugurError(f"training needs {', '.join(missing)}: install the [train] extra "
                         f"(pip install -e '.[train]') in a separate environment")


def _per_tier(images: Sequence[int]) -> dict[str, int]:
    """``--images EASY MEDIUM HARD`` as tables per tier."""
    return dict(zip(("easy", "medium", "hard"), images))


def _tier_progress(verb: str):
    """Progress of a fitting command's tables, per tier: every fiftieth table, and the last."""
    def progress(tier: str, i: int, total: int) -> None:
        if i == total or i % 50 == 0:
            print(f"[{tier}] {verb} {i}/{total}", flush=True)
    return progress


def _rendered(i: int, total: int) -> None:
    """Progress of a rendering: every hundredth table, and the last."""
    if i == total or i % 100 == 0:
        print(f"rendered {i}/{total}", flush=True)


def cmd_train(args: argparse.Namespace) -> int:
    _require_training("torch", "ultralytics", "onnx")
    from vision.train import train
    card = train(Path(args.work), Path(args.models), images=args.images, epochs=args.epochs, seed=args.seed,
                 batch=args.batch, init=Path(args.init) if args.init else None)
    print(json.dumps(card["metrics_val_tiles"]))
    return 0


def _training_device(name: str) -> str:
    """``auto``: the GPU when torch sees one, else the CPU."""
    if name != "auto":
        return name
    import torch
    return "cuda" if torch.cuda.is_available() else "cpu"


def cmd_train_counter(args: argparse.Namespace) -> int:
    if args.epochs:
        _require_training("torch", "onnx")
    from vision.density_train import ARCHS, VIEW_NAMES, describe_toppled, train, write_data
    if args.arch not in ARCHS:          # checked here: the parser would import the training module on every command
        raise AugurError(f"unknown network shape '{args.arch}' (expected {', '.join(sorted(ARCHS))})")
    if not 0.0 <= args.spill_share <= 1.0:
        raise AugurError(f"--spill-share must lie between 0 and 1, not {args.spill_share}")
    if args.distill < 0:
        raise AugurError(f"--distill must be a weight of at least 0, not {args.distill}")
    teacher = Path(args.teacher) if args.teacher else None
    if teacher and not teacher.is_file():          # before the long rendering, not after it
        raise AugurError(f"teacher checkpoint not found: {teacher}")
    if teacher and args.epochs:
        from vision.density_train import arch_of, load_checkpoint
        arch_of(load_checkpoint(teacher))
    prints = _print_choice(args)
    data = Path(args.work) / "samples"
    n = _per_tier(args.images)
    total = sum(n.values())
    if args.render_for is not None and args.render_for <= 0:
        raise AugurError(f"--render-for must be a positive number of seconds, not {args.render_for}")
    if not 0.0 <= args.rich_share <= 1.0:
        raise AugurError(f"--rich-share must lie between 0 and 1, not {args.rich_share}")
    toppled = _toppled(args.toppled)
    files = write_data(data, n, args.render_seed, workers=args.workers, counter_view=args.counter_view,
                       progress=_rendered, prints=prints, frames=args.frames, render_for=args.render_for,
                       rich_share=args.rich_share, toppled=toppled)
    if args.epochs:
        card = train(data, Path(args.models), epochs=args.epochs, steps=args.steps, batch=args.batch, seed=args.seed,
                     lr=args.lr, balance_kinds=args.balance_kinds, init=Path(args.init) if args.init else None,
                     arch=args.arch, device=_training_device(args.device), workers=args.workers, clip=args.clip,
                     floor=args.floor, spill_share=args.spill_share, teacher=teacher, distill=args.distill,
                     recipe={"renders_per_tier": n, "render_seed": args.render_seed, "frames_per_table": args.frames,
                             "render_for_s": args.render_for, "vexillum_rich_share": args.rich_share,
                             "view": VIEW_NAMES[args.counter_view], "command": "augur train-counter",
                             **({"toppled": describe_toppled(toppled)} if toppled else {}),
                             "on_real_print": prints.describe() if prints else None})
        print(json.dumps(card["history"][-1]))
    else:
        print(f"{len(files)} samples of up to {total} tables in {data}; no training asked (--epochs 0)")
    return 0


def cmd_average_counter(args: argparse.Namespace) -> int:
    _require_training("torch", "onnx")
    from vision.density_train import average_checkpoints
    card = average_checkpoints([Path(c) for c in args.checkpoints], models=Path(args.models))
    print(json.dumps(card))
    return 0


def cmd_train_summits(args: argparse.Namespace) -> int:
    from vision.density_train import describe_toppled
    from vision.summits_train import require_weights, train, write_windows
    init = require_weights(args.init) if args.init else None        # before the long rendering, not after it
    if args.epochs:
        _require_training("torch", "onnx")
    data = Path(args.work) / "windows"
    n = _per_tier(args.images)
    rich = _per_tier(getattr(args, "rich", (0, 0, 0)))      # train-hulls renders no vexillum-rich tables
    prints = _print_choice(args)
    toppled = _toppled(getattr(args, "toppled", None))      # train-hulls knocks nothing over
    write_windows(data, n, args.render_seed, workers=args.workers, progress=_rendered,
                  look="hulls" if args.hulls else "summits", rich_per_tier=rich, prints=prints, toppled=toppled)
    if args.epochs:
        card = train(data, Path(args.models), epochs=args.epochs, batch=args.batch, seed=args.seed, lr=args.lr,
                     width=args.width, depth=args.depth, hulls=args.hulls, init=init,
                     recipe={"renders_per_tier": n, "vexillum_rich_per_tier": rich, "render_seed": args.render_seed,
                             **({"print": prints.describe()} if prints else {}),
                             **({"toppled": describe_toppled(toppled)} if toppled else {}),
                             "command": "augur train-hulls" if args.hulls else "augur train-summits"})
        print(json.dumps(card["held_out"]))
    else:
        print(f"windows of {sum(n.values())} tables in {data}; no training asked (--epochs 0)")
    return 0


def cmd_train_lying(args: argparse.Namespace) -> int:
    from vision.density_train import describe_toppled
    from vision.lying_train import train
    from vision.summits_train import require_weights, write_windows
    toppled = _toppled(args.toppled)
    if not toppled:
        raise AugurError("--toppled must be above 0: the classifier learns from knocked-over pieces")
    init = require_weights(args.init) if args.init else None        # before the long rendering, not after it
    if args.epochs:
        _require_training("torch", "onnx")
    data = Path(args.work) / "windows"
    n = _per_tier(args.images)
    prints = _print_choice(args)
    write_windows(data, n, args.render_seed, workers=args.workers, progress=_rendered, look="lying", prints=prints,
                  toppled=toppled)
    if args.epochs:
        card = train(data, Path(args.models), epochs=args.epochs, batch=args.batch, seed=args.seed, lr=args.lr,
                     width=args.width, depth=args.depth, init=init,
                     recipe={"renders_per_tier": n, "render_seed": args.render_seed,
                             **({"print": prints.describe()} if prints else {}),
                             "toppled": describe_toppled(toppled), "command": "augur train-lying"})
        print(json.dumps(card["held_out"]))
    else:
        print(f"windows of {sum(n.values())} tables in {data}; no training asked (--epochs 0)")
    return 0


def _toppled_option(p: argparse.ArgumentParser, what: str) -> None:
    from vision.synth.dataset import TOPPLED_TABLES
    p.add_argument("--toppled", type=float, metavar="SHARE",
                   help=f"on a seeded {TOPPLED_TABLES:g} of the {what} tables, this share of the legionaries and "
                        f"vexilla lie knocked over, as after a battle (e.g. --toppled 0.1)")


def _print_choice(args: argparse.Namespace):
    """``--board-photo``, ``--rotate`` and ``--print-share``: which rendered tables show a real
    print (:class:`vision.density_train.PrintChoice`), or None."""
    if not 0.0 < args.print_share <= 1.0:
        raise AugurError(f"--print-share must lie above 0 and at most 1, not {args.print_share}")
    if not args.board_photo:
        return None
    from vision.density_train import PrintChoice
    return PrintChoice(args.board_photo, args.rotate, args.print_share)


def cmd_fit_confidence(args: argparse.Namespace) -> int:
    from vision.confidence import (DEFAULT_CONFIDENCE, FIT_SEEDS, describe, file_sha256, fit_confidence, pooled_rows,
                                   rendered_rows)
    from vision.density_train import describe_toppled
    from vision.density import DEFAULT_COUNTER
    from vision.summit_counts import DEFAULT_SUMMIT_COUNTS
    from vision.summits import DEFAULT_HULLS, DEFAULT_SUMMITS
    n = _per_tier(args.images)
    seeds = list(FIT_SEEDS if args.render_seed is None else dict.fromkeys(args.render_seed))
    counter = Path(args.counter) if args.counter else DEFAULT_COUNTER
    if not counter.is_file():
        raise AugurError(f"counting model not found: {counter}")
    prints = _print_choice(args)
    toppled = _toppled(args.toppled)
    kept, kept_recipe = _kept_hidden(args.keep_hidden, counter) if args.keep_hidden else (None, None)
    rows = pooled_rows([rendered_rows(n, seed, counter, progress=_tier_progress(f"counted (seed {seed})"),
                                      prints=prints, toppled=toppled) for seed in seeds])
    # the counts it learns from are read with the shipped summit and hull classifiers and the
    # summit-count model, where there are
    summits = file_sha256(DEFAULT_SUMMITS) if DEFAULT_SUMMITS.is_file() else None
    hulls = file_sha256(DEFAULT_HULLS) if DEFAULT_HULLS.is_file() else None
    counts = file_sha256(DEFAULT_SUMMIT_COUNTS) if DEFAULT_SUMMIT_COUNTS.is_file() else None
    card = fit_confidence(rows, counter, {"renders_per_tier": n, "render_seeds": seeds,
                                          "summit_classifier_sha256": summits, "hull_classifier_sha256": hulls,
                                          "summit_counts_sha256": counts,
                                          "print": prints.describe() if prints else None,
                                          **({"toppled": describe_toppled(toppled)} if toppled else {}),
                                          **({"hidden_model_recipe": kept_recipe} if kept else {}),
                                          "command": "augur fit-confidence"},
                          Path(args.out) if args.out else DEFAULT_CONFIDENCE, args.networks, kept)
    for tier, figures in card["figures_on_fitting_tables"].items():
        print(f"[{tier}] below {card['threshold']}: {describe(figures)}; marked unseen: "
              f"{figures['unseen_really_hidden']} really hidden, {figures['unseen_visible']} visible (of "
              f"{figures['hidden']} hidden) (on the fitting tables)")
    return 0


def _kept_hidden(path: str, counter: Path):
    """``--keep-hidden FILE``: that confidence file's hidden-region model, and the recipe it was
    fitted by (the first fit's, when it was itself kept from an earlier file)."""
    from vision.confidence import ConfidenceError, hidden_for
    file = Path(path)
    if not file.is_file():
        raise AugurError(f"--keep-hidden: no such file: {file}")
    hidden = hidden_for(counter.resolve(), file.resolve())
    if hidden is None:
        raise AugurError(f"--keep-hidden: {file} holds no hidden-region model fitted for {counter.name}")
    try:
        recipe = json.loads(file.read_text(encoding="utf-8")).get("recipe") or {}
    except (OSError, ValueError, AttributeError) as exc:
        raise ConfidenceError(f"--keep-hidden: cannot read {file}: {exc}") from None
    return hidden, recipe.get("hidden_model_recipe", recipe)


def cmd_fit_summit_counts(args: argparse.Namespace) -> int:
    from vision.density import DEFAULT_COUNTER
    from vision.density_train import describe_toppled
    from vision.summit_counts import DEFAULT_SUMMIT_COUNTS, FIT_SEED, fit_and_write, rendered_summits
    from vision.summits import DEFAULT_SUMMITS
    for path, what in ((DEFAULT_COUNTER, "counting model"), (DEFAULT_SUMMITS, "summit classifier")):
        if not path.is_file():
            raise AugurError(f"{what} not found: {path}")
    n = _per_tier(args.images)
    seed = FIT_SEED if args.render_seed is None else args.render_seed
    prints = _print_choice(args)
    toppled = _toppled(args.toppled)
    rows = rendered_summits(n, seed, prints, args.workers, progress=_tier_progress("read"), toppled=toppled)
    card = fit_and_write(rows, DEFAULT_COUNTER, DEFAULT_SUMMITS,
                         {"renders_per_tier": n, "render_seed": seed,
                          "print": prints.describe() if prints else None,
                          **({"toppled": describe_toppled(toppled)} if toppled else {}),
                          "command": "augur fit-summit-counts"},
                         Path(args.out) if args.out else DEFAULT_SUMMIT_COUNTS)
    for key, f in card["figures_on_fitting_tables"].items():
        print(f"[{key}] {f['summits']} summits: {100 * f['right_by_model']:.2f}% read right by the model, "
              f"{100 * f['right_by_threshold_rule']:.2f}% by the threshold rule (on the fitting tables)")
    print("refit the per-region confidence on the new counts: augur fit-confidence")
    return 0


def cmd_quantize_counter(args: argparse.Namespace) -> int:
    from vision.density import DEFAULT_COUNTER, FLOAT_COUNTER
    from vision.quantize import quantize_counter
    quantize_counter(Path(args.counter) if args.counter else FLOAT_COUNTER,
                     Path(args.out) if args.out else DEFAULT_COUNTER, args.tables, args.render_seed)
    print("refit the per-region confidence for it: augur fit-confidence")
    return 0


def cmd_quantize_classifiers(args: argparse.Namespace) -> int:
    from vision.lying import DEFAULT_LYING
    from vision.quantize import classifier_windows, float_original, quantize_classifier
    from vision.summits import DEFAULT_HULLS, DEFAULT_SUMMITS
    print(f"reading {args.tables} rendered tables per tier (seed {args.render_seed}) for the activation ranges")
    summit_windows, hull_windows = classifier_windows(args.tables, args.render_seed)
    # the knocked-over piece classifier reads the summit classifier's windows
    for shipped, samples in ((DEFAULT_SUMMITS, summit_windows), (DEFAULT_HULLS, hull_windows),
                             (DEFAULT_LYING, summit_windows)):
        out = Path(args.out_dir) / shipped.name if args.out_dir else shipped
        quantize_classifier(float_original(shipped), out, samples)
        print(f"wrote {out} ({out.stat().st_size // 1024} KB) from {len(samples)} windows")
    print("refit the per-region confidence for them: augur fit-confidence")
    return 0


# -- regionmap --------------------------------------------------------------------------
def cmd_regionmap(args: argparse.Namespace) -> int:
    from calibration.region_map import build_geometry, load_north_up_photo, write_geometry
    from tracker.board import load_board

    drawing = _read_image(args.drawing)
    photo = load_north_up_photo(Path(args.photo), args.rotate)
    labels, meta = build_geometry(drawing, photo, load_board(args.board))
    png, js = write_geometry(labels, meta, Path(args.output))
    print(f"wrote {png} and {js} ({meta['size'][0]} x {meta['size'][1]} board units)")
    return 0


# -- synth ------------------------------------------------------------------------------
def cmd_synth(args: argparse.Namespace) -> int:
    from vision.synth.board_art import PrintedBoard
    from vision.synth.dataset import contact_sheet, write_dataset
    size = _size(args.size)
    art, board_map = PrintedBoard.parts(_board_print(args))
    if args.what == "images":
        n = write_dataset(Path(args.output), args.tier, args.n, args.seed, size, art=art, geometry=board_map)
        print(f"wrote {n} {args.tier} images with ground truth to {args.output}")
    elif args.what == "sheet":
        out = Path(args.output)
        if out.suffix.lower() != ".png":
            raise GameError("the contact sheet is written as a .png file")
        out.parent.mkdir(parents=True, exist_ok=True)
        _write_image(out, contact_sheet(args.n if args.n_given else 4, args.seed, art=art, geometry=board_map))
        print(f"wrote {out}")
    else:
        from vision.synth.video import write_video
        frames = write_video(Path(args.output), seed=args.seed, turns=args.turns, tier=args.tier, size=size,
                             art=art, geometry=board_map)
        print(f"wrote {frames} frames with ground truth to {args.output}")
    return 0


def _board_print(args: argparse.Namespace):
    """``--board-photo`` and ``--rotate``: the real print to render tables on, its map fitted to it
    (:class:`vision.synth.board_art.PrintedBoard`; the pieces stand inside its own borders), or None."""
    if not args.board_photo:
        return None
    from vision.synth.board_art import PrintedBoard
    return PrintedBoard.from_photo(args.board_photo, args.rotate)


def _relight(text: str) -> tuple[float, float]:
    """``--relight=KELVIN:LEVEL``, e.g. ``-2000:0.7`` (2,000 K warmer and 0.7 times as bright)."""
    try:
        kelvin, level = (float(v) for v in text.split(":"))
    except ValueError:
        raise GameError(f"--relight must look like --relight=-2000:0.7 (kelvin change : brightness factor), "
                        f"got '{text}'") from None
    if not (-6000 <= kelvin <= 6000 and 0.1 <= level <= 3):
        raise GameError(f"--relight {text} is out of range (kelvin within 6000, brightness factor 0.1 to 3)")
    return kelvin, level


def _toppled(share: float | None) -> float:
    """``--toppled SHARE``: the share of legionaries and vexilla lying knocked over."""
    if share is None:
        return 0.0
    if not 0 <= share <= 1:
        raise GameError(f"--toppled {share:g} is out of range (a share, 0 to 1)")
    return share


def _relief(mm: float | None) -> float:
    """``--relief MM``: how far the folded board rises off the table along its creases."""
    from vision.synth.relief import MAX_RELIEF_MM
    if mm is None:
        return 0.0
    if not 0 <= mm <= MAX_RELIEF_MM:
        raise GameError(f"--relief {mm:g} is out of range (0 to {MAX_RELIEF_MM:g} mm)")
    return float(mm)


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise GameError(f"--size must look like 1280x720, got '{text}'") from None
    if not (160 <= w <= 4096 and 120 <= h <= 4096):
        raise GameError(f"--size {text} is out of range")
    return w, h


# -- demo / run / review -----------------------------------------------------------------
def _port_free(host: str, port: int) -> None:
    """Refuse, in one line and before any work, a port another program holds (often an augur
    already running at this table).

    Why: the web server only finds out when it starts, after the camera, the recording and the
    game have been opened, and says so in two lines of its own: by then a second ``augur run``
    on the same recording has resumed the game the first one is following, and may have written
    into it."""
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise GameError(f"cannot serve the dashboard on {host}:{port} ({exc.strerror or exc}): another program, "
                            f"perhaps an augur already running, holds it; stop it or give another --port") from None


def _serve_and_wait(app, host: str, port: int, stop, worker=None, what: str = "the game") -> None:
    from webui.loop import dashboard_urls, say, serve
    _, server = serve(app, host, port)
    say(f"Augur dashboard for {what}: {dashboard_urls(host, port)}  (Ctrl-C to stop)")
    try:
        while True:                 # the dashboard stays up after the video ends, until Ctrl-C
            time.sleep(0.5)
    except KeyboardInterrupt:
        stop.set()
        server.shutdown()


def _markers_seen(live) -> str:
    """"; score markers seen on ..." as the camera last read the track (vision.track), or "" when
    it never did."""
    if not live.track:
        return ""
    return "; score markers seen on " + ", ".join(f"{c} {'?' if b is None else b}" for c, b in live.track.items())


def cmd_demo(args: argparse.Namespace) -> int:
    """The embedded default: a seeded game video, no camera, through vision, tracker and dashboard
    (``--setup``: the set-up made from the empty board, followed placement by placement)."""
    import tempfile
    import threading

    from calibration.profile import calibrate
    from vision.frames import NewestFrame, video_frames
    from vision.pipeline import Pipeline
    from vision.synth.board_art import procedural_art
    from vision.synth.video import PLAYERS, default_video_dir, ensure_default_video
    from webui.app import create_app
    from webui.live import LiveGame
    from webui.loop import feed, say
    from webui.store import Store

    if not args.no_serve:
        _port_free(args.host, args.port)
    if not (default_video_dir(args.setup) / "video.json").is_file():
        what = "the set-up film (about two minutes" if args.setup else "the demo video (about a minute"
        say(f"first run: rendering {what}; cached for next time)...")
    folder = ensure_default_video(setup=args.setup)
    meta = json.loads((folder / "video.json").read_text())
    import cv2
    profile = calibrate(cv2.imread(str(folder / "calibration.jpg")), procedural_art(), players=PLAYERS)
    record = Path(args.record) if args.record else Path(tempfile.mkdtemp(prefix="augur-demo-"))
    hold_recording(record)
    store = Store(record)
    live = LiveGame.open(store, list(PLAYERS), resume=False)
    live.profile = profile
    pipeline = Pipeline(profile, players=PLAYERS)
    say(f"detector: {pipeline.detector.name}; recording to {record}")
    stop = threading.Event()
    frames = video_frames(folder, meta["fps"], realtime=not args.fast, limit=args.frames)
    if not args.fast:          # played like a camera: the loop reads the newest frame, dropping those it missed
        frames = NewestFrame(frames)
    if args.no_serve:
        summary = feed(live, pipeline, frames, stop, log=say)
        dropped = f" ({frames.dropped} more dropped while counting)" if isinstance(frames, NewestFrame) else ""
        say(f"-- {summary['frames']} frames{dropped}, {summary['commits']} committed states; VP " +
            ", ".join(f"{c} {v}" for c, v in live.game.vp.items()) + _markers_seen(live))
        return 0
    worker = threading.Thread(target=feed, args=(live, pipeline, frames, stop), daemon=True)
    worker.start()
    _serve_and_wait(create_app(live), args.host, args.port, stop, worker, "the demo game")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    import threading

    from calibration.profile import CalibrationError, CalibrationProfile
    from vision.pipeline import Pipeline
    from vision.frames import NewestFrame, VideoFile, camera_frames
    from webui.app import create_app
    from webui.live import LiveGame
    from webui.loop import ALL_INTERFACES, feed, say
    from webui.store import Store

    players = _players(args.players) or []
    from tracker.spqrisiko.setup import check_players
    check_players(players)
    profile = CalibrationProfile.load(Path(args.calibration), args.board)
    if args.video is not None and args.camera is not None:
        raise GameError("give either --camera N or --video FILE")
    if args.no_serve and args.video is None:
        raise GameError("--no-serve is for --video FILE: a live camera's game is followed on the dashboard")
    if not args.no_serve:
        _port_free(ALL_INTERFACES if args.lan else "127.0.0.1", args.port)
    video = VideoFile(Path(args.video)) if args.video is not None else None
    if video is not None:               # a recorded film of the table: every frame read, at its own pace
        frames, kind, source = video, "video", f"video {args.video}"
    else:
        camera = _or(args.camera, 0)
        frames, kind, source = camera_frames(camera, size=tuple(profile.image_size)), "camera", f"camera {camera}"
    first = next(frames)
    if first is not None and tuple(first.shape[1::-1]) != tuple(profile.image_size):
        raise CalibrationError(f"{source} delivers {first.shape[1]}x{first.shape[0]} frames, the "
                               f"calibration was made at {profile.image_size[0]}x{profile.image_size[1]}: "
                               f"calibrate again from this {kind}")
    hold_recording(Path(args.record))
    store = Store(Path(args.record))
    # a camera's game resumes after a restart; a video is followed from its start, as a new game
    # beside those the recording holds
    live = LiveGame.open(store, players, args.ruleset, args.target, resume=video is None)
    live.profile, live.profile_path = profile, Path(args.calibration)
    stop = threading.Event()
    pipeline = Pipeline(profile, which=args.detector, players=tuple(players))

    def frames_again():
        yield first
        yield from frames

    def follow_video(log=None) -> None:
        summary = feed(live, pipeline, frames_again(), stop, log=log)
        if stop.is_set():
            return
        cut = (f" (cut short: {video.passed} of the {video.total} frames it says it holds)"
               if video.cut_short else "")
        live.set_camera_notice(f"the video has ended{cut}")       # the tablets' status bar says so
        say(f"-- the video has ended{cut}: {summary['frames']} frames read, {summary['commits']} committed "
            f"states; VP " + ", ".join(f"{c} {v}" for c, v in live.game.vp.items()) + _markers_seen(live)
            + f"; recorded in {args.record}")

    if video is not None and args.no_serve:
        follow_video(log=say)
        return 0
    if video is not None:
        worker = threading.Thread(target=follow_video, daemon=True)
    else:   # the loop counts about ten frames a second of the camera's thirty: it takes the newest each time
        worker = threading.Thread(target=feed, args=(live, pipeline, NewestFrame(frames_again()), stop), daemon=True)
    worker.start()
    token = None
    host = "127.0.0.1"
    if args.lan:
        import secrets
        token = f"{secrets.randbelow(10 ** 6):06d}"
        host = ALL_INTERFACES
        print(f"join PIN for changes from other tablets: {token}")
    _serve_and_wait(create_app(live, token), host, args.port, stop, worker, "this table")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from webui.loop import export_archive
    if not (Path(args.record) / "game.sqlite").is_file():
        raise GameError(f"{args.record} holds no recorded game")
    print(f"wrote {export_archive(Path(args.record), Path(args.output))}")
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    import secrets
    import tempfile
    import threading

    from webui.app import create_app
    from webui.live import LiveGame
    from webui.loop import import_archive
    from webui.store import Store
    if not args.no_serve:
        _port_free("127.0.0.1", args.port)
    folder = import_archive(Path(args.archive), Path(tempfile.mkdtemp(prefix="augur-review-")))
    store = Store(folder)
    last = store.last_game()
    if last is None:
        raise GameError(f"{args.archive} holds no game")
    live = LiveGame.open(store, last["players"], last["ruleset"], last["target_vp"], resume=True)
    games = store.games()
    earlier = f"; {counted(len(games) - 1, 'earlier game')} too, in the Review tab" if len(games) > 1 else ""
    print(f"verified {args.archive}: {counted(len(store.snapshots(last['id'])), 'snapshot')} of its last game{earlier}")
    if args.no_serve:
        return 0
    _serve_and_wait(create_app(live, join_token=secrets.token_urlsafe(24), review_only=True), "127.0.0.1", args.port,
                    threading.Event(), None, "review")
    return 0


def cmd_narrate(args: argparse.Namespace) -> int:
    """Play a seeded simulated game through the tracker and narrate it turn by turn."""
    from tracker.replay import replay, replay_lines
    from tracker.spqrisiko.simulator import Simulator

    players = ("red", "blue", "yellow", "green")
    sim = Simulator(players, seed=args.seed, max_turns=args.turns, target_vp=args.target)
    steps = list(sim.steps())
    lines = replay_lines(sim.initial_state, steps)
    print(f"Augur narration: a seeded S.P.Q.RisiKo! game ({', '.join(players)}; seed {args.seed}), "
          "followed by the rules tracker from the board states alone.")
    game, out = replay(lines, players, target_vp=args.target)
    for step in out:
        _print_step(step, game.board, False)
    _print_summary(game)
    return 0


#: The --detector choice of augur count and augur run.
DETECTOR_HELP = ("the counting network (default when shipped; density-mirrored reads each image twice, as it is "
                 "and mirrored: about 60 ms slower, and as accurate as the live loop's still runs), the box "
                 "detector, or the classical baseline")


def _rendering_options(p: argparse.ArgumentParser, images: tuple[int, int, int], work: str, what: str) -> None:
    """The options of a training command that renders its own tables."""
    p.add_argument("--images", type=NONE_OR_MORE, nargs=3, default=images, metavar=("EASY", "MEDIUM", "HARD"),
                   help="rendered tables per tier")
    p.add_argument("--render-seed", type=SEED, default=11, help="seed of the rendered tables")
    p.add_argument("--workers", type=COUNT, default=2, help=f"processes rendering the {what}")
    p.add_argument("--work", default=work, help=f"scratch folder for the rendered {what}")
    p.add_argument("--models", default=str(Path(__file__).resolve().parents[1] / "models"))


def _print_share_options(p: argparse.ArgumentParser) -> None:
    """``--board-photo``, ``--rotate`` and ``--print-share`` of a command that renders tables,
    a share of them on a real print (read by :func:`_print_choice`)."""
    p.add_argument("--board-photo", metavar="PHOTO",
                   help="render a share of the tables (--print-share) on this real board's print, from a top-down "
                        "photo of it empty (e.g. ../shared/reference/spqrisiko/board-photo-topdown.jpeg --rotate ccw)")
    p.add_argument("--rotate", default="none", choices=ROTATIONS,
                   help="turn --board-photo north up (the shared reference photo needs ccw)")
    p.add_argument("--print-share", type=float, default=0.5,
                   help="share of the tables rendered on --board-photo's print (default: %(default)s)")


def _fitting_options(p: argparse.ArgumentParser, images: tuple[int, int, int], default_seed: str,
                     several: bool = False) -> None:
    """``--images`` and ``--render-seed`` of a command that fits a model on rendered tables;
    ``several``: the command pools the tables of several seeds, as many a tier of each."""
    p.add_argument("--images", type=NONE_OR_MORE, nargs=3, default=images, metavar=("EASY", "MEDIUM", "HARD"),
                   help="rendered tables per tier" + (" (of each seed)" if several else ""))
    if several:
        p.add_argument("--render-seed", type=SEED, nargs="+", default=None,
                       help=f"seeds of the rendered tables, their rows pooled (default: {default_seed})")
    else:
        p.add_argument("--render-seed", type=SEED, default=None,
                       help=f"seed of the rendered tables (default: {default_seed})")


def _window_classifier_options(p: argparse.ArgumentParser, width: int, epochs: int) -> None:
    """The training options of the summit and hull classifiers (one network, :mod:`vision.summits_train`);
    the defaults are those of the shipped model."""
    p.add_argument("--epochs", type=NONE_OR_MORE, default=epochs, help="training epochs (default: %(default)s)")
    p.add_argument("--batch", type=COUNT, default=256)
    p.add_argument("--lr", type=RATE, default=2e-3, help="peak learning rate (one-cycle schedule)")
    p.add_argument("--seed", type=SEED, default=0, help="seed of the training (batches, weights)")
    p.add_argument("--width", type=COUNT, default=width, help="channels of the classifier's first stage (default: %(default)s)")
    p.add_argument("--depth", type=COUNT, default=3, help="convolutions per stage of the classifier")
    p.add_argument("--init", help="continue from these weights (a .pt of an earlier run, same width and depth)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="augur", description="Augur: a camera companion for S.P.Q.RisiKo!")
    sub = parser.add_subparsers(dest="command", required=True)

    from tracker.rulesets import RULESETS
    rulesets_help = f"ruleset: {', '.join(RULESETS)} (default 2005, S.P.Q.RisiKo!)"
    p = sub.add_parser("score", help="points each player would claim on a board state (S.P.Q.RisiKo! §5, "
                                     "tournament and LotR points, classic standings)")
    p.add_argument("states", nargs="+", metavar="STATE.json")
    p.add_argument("--players", required=True, help="colours in turn order, e.g. red,blue,yellow")
    p.add_argument("--ruleset", default="2005", help=rulesets_help)
    p.add_argument("--neutrals", default=None, help="neutral army colours (tournament, 2-player LotR)")
    p.add_argument("--objectives", default=None, metavar="OBJECTIVES.json",
                   help="tournament: colour -> {territories: [...], continents: [...]}")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("replay", help="replay a game file (JSON lines of observed states)")
    p.add_argument("game", metavar="GAME.jsonl")
    p.add_argument("--players", help="colours in turn order (else from the file's header)")
    p.add_argument("--ruleset", default=None, help=rulesets_help.replace("default 2005", "default: the file's header"))
    p.add_argument("--target", type=TARGET, default=None, help="victory-point target")
    p.add_argument("--json", action="store_true", help="one JSON object per state instead of text")
    p.add_argument("--serve", action="store_true", help="serve the dashboard on the replayed game")
    p.add_argument("--port", type=PORT, default=8765)
    p.add_argument("--record", default=None, help="with --serve: keep the recording in this folder")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("simulate", help="write a seeded random legal game as a game file")
    p.add_argument("--players", default=None, help="colours in turn order (default: a line-up for the ruleset)")
    p.add_argument("--neutrals", default=None, help="neutral army colours (tournament, 2-player LotR)")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--turns", type=COUNT, default=300)
    p.add_argument("--target", type=TARGET, default=None)
    p.add_argument("--ruleset", default="2005", help=rulesets_help)
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("bench", help="print speed figures")
    p.add_argument("what", choices=["tracker", "synth", "vision", "confidence", "game", "setup", "laid-out",
                                    "track", "memory", "dashboard"],
                   help="game: the live loop over whole rendered game videos (commits, phantom changes, "
                        "the tracker's verdicts); setup: the live game following a filmed set-up from the "
                        "empty board (placements, verdicts, when the game starts); memory: the peak memory "
                        "of the demo's live loop, and of calibrating on and following its film scaled up "
                        "as a phone films (--size, default 3840x2160); confidence: confidence models "
                        "(--confidence) judging the same readings of the vision bench's tables; laid-out: "
                        "tables calibrated with their game laid out on the map, painted out as augur calibrate "
                        "does, and read on a later state of the game; track: the score markers read on the "
                        "vision bench's tables")
    p.add_argument("--verbose", action="store_true", help="setup: print every verdict given while the set-up was "
                                                          "followed; game: every verdict, on the tracked states and "
                                                          "on the true ones, and every true change missed or "
                                                          "phantom change, with its frame")
    p.add_argument("--commits", type=COUNT, default=1440, help="dashboard: committed states (one per 5 s for 2 hours)")
    p.add_argument("--games", type=COUNT, help="tracker: simulated games (default 5); game, setup: videos per tier "
                                             "(default 2)")
    p.add_argument("--images", type=COUNT, default=40,
                   help="synth: images timed per tier; vision, laid-out, track: images per tier")
    p.add_argument("--detector", default="auto", choices=DETECTORS,
                   help="vision: the detector to measure (auto: every shipped one, side by side)")
    p.add_argument("--tiers", nargs="+", default=["easy", "medium", "hard"], choices=["easy", "medium", "hard"],
                   help="vision, game, setup, laid-out, track: the tiers to measure")
    p.add_argument("--size", metavar="WxH",
                   help="vision, game, setup: the camera frame the tables are filmed at (default: the renderer's, "
                        "720p); memory: the phone's film (default 3840x2160)")
    p.add_argument("--no-video", action="store_true", help="vision: skip the video figures (gating, commit delay, the live loop's peak memory)")
    p.add_argument("--relight", metavar="KELVIN:LEVEL",
                   help="vision: light the tables otherwise than their calibration photos, e.g. --relight=-2000:0.7 "
                        "(2,000 K warmer, 0.7 times as bright: the light drifting over an evening)")
    p.add_argument("--relief", type=float, metavar="MM",
                   help="vision: a board folded in four that rises up to MM millimetres off the table along its "
                        "creases, as at the calibration (e.g. --relief 4)")
    p.add_argument("--toppled", type=float, metavar="SHARE",
                   help="vision: about this share of the legionaries and vexilla on the map lie knocked over, as a "
                        "sleeve or a die leaves them during a battle (e.g. --toppled 0.05); they still count")
    p.add_argument("--board-photo", metavar="PHOTO",
                   help="vision, game, setup: render the tables on the real print of this top-down photo of an "
                        "empty board (e.g. ../shared/reference/spqrisiko/board-photo-topdown.jpeg --rotate ccw) instead of "
                        "the procedural art, the pieces standing inside its printed borders; the calibration "
                        "still compares with the procedural art, as at a real table")
    p.add_argument("--rotate", default="none", choices=ROTATIONS,
                   help="vision, game: turn --board-photo north up (the shared reference photo needs ccw)")
    p.add_argument("--dataset", type=COUNT, default=300, help="synth: images in the streamed dataset run")
    p.add_argument("--turns", type=COUNT, help="tracker: turns per game (default 300); game: turns per video "
                                             "(default 3)")
    p.add_argument("--seed", type=SEED, help=f"tracker, synth: the seed (default 0); game, setup: the first video's seed "
                                            f"(default {GAME_BENCH_SEED}); confidence, track: the tables' seed (default: "
                                            f"the vision bench's)")
    p.add_argument("--no-hold", action="store_true",
                   help="game: count every region afresh at every still frame, untouched ones too")
    p.add_argument("--read-whole", action="store_true",
                   help="game: read every still frame whole, not only where it changed since it was last read")
    p.add_argument("--no-settle", action="store_true",
                   help="game: keep the camera's set-up counts where the rules fix them otherwise (the dashboard "
                        "settles them and says so)")
    p.add_argument("--record", metavar="DIR",
                   help="game: record what was committed on every frame of each game in DIR, one file a game, "
                        "for --replay; setup: the states the live game was given, one file a set-up")
    p.add_argument("--answer-checks", action="store_true",
                   help="game: the table answers every check the dashboard marks, setting the true count on the "
                        "tablet as it comes (what an attentive table ends up with: its answers, the verdicts and "
                        "claims that still go wrong)")
    p.add_argument("--confidence", nargs="+", metavar="FILE",
                   help="confidence: the confidence files to compare (default: the shipped one); the flag count "
                        "each is also scored at is the first one's")
    p.add_argument("--replay", metavar="DIR",
                   help="game, setup: instead of filming, replay what was recorded in DIR through the tracker (and, "
                        "setup, the dashboard's live game) as it now is (seconds, not minutes: for measuring a change "
                        "to the tracker)")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("train", help="reproduce the shipped piece detector (needs the [train] extra)")
    p.add_argument("--images", type=COUNT, default=200, help="rendered tables to cut into training tiles")
    p.add_argument("--epochs", type=COUNT, default=12)
    p.add_argument("--batch", type=COUNT, default=32)
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--work", default="out/train", help="scratch folder for tiles and runs")
    p.add_argument("--init", help="continue from this checkpoint (.pt) instead of starting from scratch")
    p.add_argument("--models", default=str(Path(__file__).resolve().parents[1] / "models"))
    p.set_defaults(func=cmd_train)

    p = sub.add_parser("train-counter", help="train a counting network, such as the fine-tunes the shipped one "
                                             "averages (needs torch and onnx; rendering takes about 4 minutes on 16 "
                                             "cores, training about 3 on one GPU; each ingredient's recipe is on the "
                                             "shipped card, models/pieces-density.json)")
    _rendering_options(p, (900, 1100, 1300), "out/train-counter", "samples")
    p.add_argument("--epochs", type=NONE_OR_MORE, default=10)
    p.add_argument("--steps", type=COUNT, default=600, help="batches per epoch")
    p.add_argument("--batch", type=COUNT, default=32)
    p.add_argument("--lr", type=RATE, default=2e-3, help="peak learning rate (one-cycle schedule)")
    p.add_argument("--counter-view", action="store_true",
                   help="cut the samples as the counter reads frames (undistorted, at its counting scale), "
                        "not as the camera took them")
    p.add_argument("--frames", type=COUNT, default=1,
                   help="photos per rendered table, each of another state of the game, calibrated once (the "
                        "calibration is most of a table's cost; default: %(default)s)")
    p.add_argument("--render-for", type=float, metavar="SECONDS",
                   help="begin no new table after this many seconds, and train on the tables rendered by then "
                        "(the tiers interleaved, so the mix of --images holds)")
    p.add_argument("--rich-share", type=float, default=0.0,
                   help="share of the tables showing a vexillum-rich state of their game (of its states with "
                        "the most full tens: late, crowded boards, where the big piles and the vexilla are)")
    _toppled_option(p, "training")
    p.add_argument("--balance-kinds", action="store_true",
                   help="centre training crops on a kind drawn uniformly, then on one of its pieces")
    p.add_argument("--spill-share", type=float, default=0.0,
                   help="share of piece-centred crops centred on a piece spilled off its island onto the sea "
                        "(samples rendered since session 19 mark them)")
    _print_share_options(p)
    p.add_argument("--seed", type=SEED, default=21, help="seed of the training (crops, weights)")
    p.add_argument("--init", help="continue from this checkpoint (.pt)")
    p.add_argument("--arch", default="wide",
                   help="the network's shape, a key of vision.density_train.ARCHS (broad: wide with more channels "
                        "at 1/4 and 1/8, which starts from a wide --init exactly where it was, shipped since "
                        "session 100 as a mean of fine-tunes; wide: shipped from session 15 to 99; "
                        "small: the network shipped until session 14; lean: the wide one with less work at half "
                        "resolution, trained with --teacher; lean24: lean with a wider last decoder stage, "
                        "which starts from a lean --init exactly where it was)")
    p.add_argument("--teacher", help="a trained network's checkpoint (.pt) whose maps the new network also learns")
    p.add_argument("--distill", type=float, default=1.0,
                   help="weight of the teacher's maps against the truth's (default: %(default)s)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                   help="where to train: cpu, cuda, or auto (a GPU when torch sees one; the CPU takes hours)")
    p.add_argument("--clip", type=_real(0.0), default=0.0, help="clip the gradient's norm to this (0: no clipping)")
    p.add_argument("--no-floor", dest="floor", action="store_false",
                   help="let the raw density sink freely below zero (as the small network was trained)")
    p.set_defaults(func=cmd_train_counter)

    p = sub.add_parser("average-counter", help="average fine-tunes of the counting network, tensor by tensor, "
                                               "into a network (needs torch and onnx; how the shipped one was made)")
    p.add_argument("checkpoints", nargs="+", metavar="CHECKPOINT", help="the fine-tunes' weights (.pt)")
    p.add_argument("--models", default=str(Path(__file__).resolve().parents[1] / "models"),
                   help="where to write training/pieces-density.pt and pieces-density.onnx")
    p.set_defaults(func=cmd_average_counter)

    p = sub.add_parser("train-summits", help="reproduce the shipped summit classifier (vexilla, pieces per summit; "
                                             "needs torch and onnx)")
    _rendering_options(p, (800, 800, 800), "out/train-summits", "windows")
    _window_classifier_options(p, width=24, epochs=18)
    p.add_argument("--rich", type=NONE_OR_MORE, nargs=3, default=(800, 800, 800), metavar=("EASY", "MEDIUM", "HARD"),
                   help="vexillum-rich tables per tier as well (the most crowded states of new games)")
    _print_share_options(p)
    _toppled_option(p, "training")
    p.set_defaults(func=cmd_train_summits, hulls=False)

    p = sub.add_parser("train-hulls", help="reproduce the shipped hull classifier (triremes per trireme summit of "
                                           "a sea; needs torch and onnx)")
    _rendering_options(p, (800, 800, 800), "out/train-hulls", "windows")
    _window_classifier_options(p, width=16, epochs=24)
    _print_share_options(p)
    p.set_defaults(func=cmd_train_summits, hulls=True)

    p = sub.add_parser("train-lying", help="reproduce the shipped knocked-over piece classifier (where a piece "
                                          "lies on its side; needs torch and onnx)")
    _rendering_options(p, (200, 300, 900), "out/train-lying", "windows")
    _window_classifier_options(p, width=24, epochs=24)
    _print_share_options(p)
    _toppled_option(p, "training")
    p.set_defaults(func=cmd_train_lying, render_seed=120, seed=120, toppled=0.1)

    p = sub.add_parser("fit-confidence", help="fit the per-region confidence of the counting network on rendered "
                                              "tables (numpy only)")
    _fitting_options(p, (150, 150, 150), "vision.confidence.FIT_SEEDS", several=True)
    p.add_argument("--counter", help="the counting network (default: the shipped one)")
    p.add_argument("--out", help="where to write the model (default: beside the shipped network)")
    from vision.confidence import FIT_NETWORKS
    p.add_argument("--networks", type=COUNT, default=FIT_NETWORKS,
                   help="the confidence is the mean of this many networks, each from its own seed (default: "
                        "%(default)s, as shipped)")
    p.add_argument("--keep-hidden", metavar="FILE",
                   help="keep the hidden-region model of this confidence file (fitted for the same counting "
                        "network) instead of fitting one, e.g. models/pieces-density-confidence.json")
    _print_share_options(p)
    _toppled_option(p, "fitting")
    p.set_defaults(func=cmd_fit_confidence)

    p = sub.add_parser("fit-summit-counts", help="fit how many legionaries stand at each summit from its mass and "
                                                 "the summit classifier's word, on rendered tables (numpy, scipy)")
    _fitting_options(p, (100, 300, 300), "vision.summit_counts.FIT_SEED")
    p.add_argument("--workers", type=COUNT, default=2, help="rendering processes (default: %(default)s)")
    p.add_argument("--out", help="where to write the model (default: beside the shipped networks)")
    _print_share_options(p)
    _toppled_option(p, "fitting")
    p.set_defaults(func=cmd_fit_summit_counts)

    from vision.quantize import QUANT_SEED, QUANT_TABLES
    p = sub.add_parser("quantize-counter", help="quantise the counting network to 8 bits for the CPU (needs the "
                                                "onnx package, in the [train] extra)")
    p.add_argument("--counter", help="the float network (default: the shipped one)")
    p.add_argument("--out", help="where to write the 8-bit one (default: the one the counter runs)")
    p.add_argument("--tables", type=COUNT, default=QUANT_TABLES, help="rendered tables per tier for the activation "
                                                                    "ranges")
    p.add_argument("--render-seed", type=SEED, default=QUANT_SEED, help="their seed")
    p.set_defaults(func=cmd_quantize_counter)

    p = sub.add_parser("quantize-classifiers", help="quantise the summit, hull and knocked-over piece classifiers "
                                                    "to 8 bits from their float exports (needs the onnx package)")
    p.add_argument("--out-dir", help="where to write them (default: over the shipped ones)")
    p.add_argument("--tables", type=COUNT, default=QUANT_TABLES, help="rendered tables per tier whose summit "
                                                                    "windows set the activation ranges")
    p.add_argument("--render-seed", type=SEED, default=QUANT_SEED, help="their seed")
    p.set_defaults(func=cmd_quantize_classifiers)

    p = sub.add_parser("calibrate", help="learn the board pose and piece colours from a photo of the empty board")
    p.add_argument("image", nargs="*", help="photo of the empty board with the score markers on box 0; or three or "
                                            "more from the same place, composed so that a hand in fewer than half "
                                            "of them is taken out")
    p.add_argument("--camera", type=CAMERA, help="take the photo from this camera instead (its frames over a few "
                                              "seconds, composed)")
    p.add_argument("--video", metavar="FILE", help="take the photo from the first seconds of a recorded video of "
                                                   "the table instead (their frames composed): film the empty "
                                                   "board first")
    p.add_argument("--board", default="spqrisiko")
    p.add_argument("--players", help="colours of the score markers on box 0, e.g. red,blue,yellow")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--preview", help="where to draw the fitted map over the photo (default: beside the output)")
    p.add_argument("--anchors", metavar="ANCHORS.json",
                   help="fit the region map to your copy of the board: [{\"from\": [x, y], \"to\": [x, y]}, ...], "
                        "each dragging a point of the map drawn on the preview to where your board has it "
                        "(preview pixels)")
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser("markers", help="a printable sheet of four corner markers, for tables where the board's red "
                                       "frame cannot be found (a red cloth, poor light)")
    p.add_argument("-o", "--output", required=True, metavar="SHEET.png")
    p.add_argument("--dpi", type=DPI, default=300)
    p.set_defaults(func=cmd_markers)

    p = sub.add_parser("count", help="count the pieces in photos; prints one observed state per line, with the "
                                     "box each score marker stands on (\"track\")")
    p.add_argument("images", nargs="+")
    p.add_argument("--calibration", required=True)
    p.add_argument("--board", default="spqrisiko")
    p.add_argument("--detector", default="auto", choices=DETECTORS, help=DETECTOR_HELP)
    p.set_defaults(func=cmd_count)

    p = sub.add_parser("synth", help="render synthetic tables: images, a contact sheet, or a game video")
    p.add_argument("what", choices=["images", "sheet", "video"])
    p.add_argument("--tier", default="easy", choices=["easy", "medium", "hard"])
    p.add_argument("--n", type=COUNT, default=None, help="images (or samples per tier for the sheet)")
    p.add_argument("--seed", type=SEED, default=0)
    p.add_argument("--turns", type=COUNT, default=6, help="game turns in a video")
    p.add_argument("--size", default="1280x720")
    p.add_argument("--board-photo", help="a top-down photo of an empty board to use as the board texture")
    p.add_argument("--rotate", default="none", choices=ROTATIONS,
                   help="turn --board-photo north up (the shared reference photo needs ccw)")
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(func=cmd_synth)

    ref = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "spqrisiko"
    p = sub.add_parser("regionmap", help="derive the board geometry from a region drawing and a board photo")
    p.add_argument("action", choices=["build"])
    p.add_argument("--drawing", default=str(ref / "region-colour-map.png"), help="flat-colour drawing of the regions")
    p.add_argument("--photo", default=str(ref / "board-photo-topdown.jpeg"), help="top-down photo of the board")
    p.add_argument("--rotate", default="ccw", choices=ROTATIONS,
                   help="turn the photo north up (the reference photo needs ccw)")
    p.add_argument("--board", default="spqrisiko")
    p.add_argument("-o", "--output", default=str(Path(__file__).resolve().parents[1] / "vision" / "data"))
    p.set_defaults(func=cmd_regionmap)

    p = sub.add_parser("demo", help="play the embedded demo game video through vision, tracker and dashboard")
    p.add_argument("--port", type=PORT, default=8350)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--record", help="folder to record the demo game in (default: a new temporary folder)")
    p.add_argument("--fast", action="store_true", help="do not pace the video at its frame rate")
    p.add_argument("--frames", type=COUNT, help="stop after this many frames")
    p.add_argument("--no-serve", action="store_true", help="print the events instead of serving the dashboard")
    p.add_argument("--setup", action="store_true", help="play the set-up instead: made from the empty board one "
                                                        "placement at a time, in the order of play, then the first move")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("narrate", help="narrate a seeded simulated game followed by the tracker (text only)")
    p.add_argument("--seed", type=SEED, default=3)
    p.add_argument("--turns", type=COUNT, default=24)
    p.add_argument("--target", type=TARGET, default=None)
    p.set_defaults(func=cmd_narrate)

    p = sub.add_parser("run", help="follow a live game from a camera (or a recorded video of one) and serve the "
                                   "dashboard")
    p.add_argument("--camera", type=CAMERA, help="the camera's index (default 0)")
    p.add_argument("--video", metavar="FILE", help="follow a recorded video of the table instead of a camera: "
                                                   "every frame read in order, at about 12 a second, as a new "
                                                   "game in the recording")
    p.add_argument("--no-serve", action="store_true", help="with --video: print the events and verdicts as they "
                                                           "are committed, then the victory points, and stop")
    p.add_argument("--calibration", required=True, metavar="CAL.json", help="the calibration made by augur "
                                                                            "calibrate at this table")
    p.add_argument("--players", required=True, help="the players' colours in the order of play, e.g. red,blue,yellow")
    p.add_argument("--ruleset", default="2005")
    p.add_argument("--target", type=TARGET, help="the victory points that win the game")
    p.add_argument("--board", default="spqrisiko")
    p.add_argument("--record", default="augur-game", help="folder of the recording (resumed if it exists)")
    p.add_argument("--port", type=PORT, default=8350)
    p.add_argument("--lan", action="store_true", help="serve on the local network; changes need a join PIN")
    p.add_argument("--detector", default="auto", choices=DETECTORS, help=DETECTOR_HELP)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("export", help="pack a recorded game into one archive file (with checksums)")
    p.add_argument("record")
    p.add_argument("-o", "--output", required=True)
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("review", help="open an exported game archive for dispute review")
    p.add_argument("archive")
    p.add_argument("--port", type=PORT, default=8351)
    p.add_argument("--no-serve", action="store_true", help="only verify and load the archive")
    p.set_defaults(func=cmd_review)
    return parser


def _quiet_opencv() -> None:
    """Keep OpenCV's and FFmpeg's own log lines (a camera index that opens nothing, a file that is
    no video) from coming before the one line augur says about it; set OPENCV_LOG_LEVEL and
    OPENCV_FFMPEG_LOGLEVEL to see them. OpenCV reads its level once, as it is imported, and
    building the parser imports it (some options' help names constants of modules that use it),
    so this runs first; a caller that imported it already (a test calling :func:`main`) gets the
    level set through OpenCV itself."""
    level = os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    cv2 = sys.modules.get("cv2")
    if cv2 is not None and level == "ERROR":
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)


def main(argv: Sequence[str] | None = None) -> int:
    _quiet_opencv()
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:       # --help (0), or a bad command line, already said in one line (2)
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    if getattr(args, "func", None) is cmd_synth:
        args.n_given = args.n is not None
        args.n = 100 if args.n is None else args.n
    try:
        return args.func(args)
    except AugurError as exc:
        print(f"augur: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0
    except OSError as exc:
        # a file or folder the command could not read or write that no command checked for itself
        # (an output under a folder that does not exist, or under a file; a full disk; no
        # permission): said in one line, as every bad input
        why = ("part of this path is a file, not a folder" if isinstance(exc, NotADirectoryError) else
               "this is a file, not a folder" if isinstance(exc, FileExistsError) else exc.strerror or str(exc))
        print(f"augur: error: {exc.filename}: {why}" if exc.filename else f"augur: error: {why}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:       # Ctrl-C: what was recorded is committed as it came; no traceback
        print("augur: stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
