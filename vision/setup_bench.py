"""``augur bench setup``: the live game following a filmed set-up, from the empty board.

A seeded set-up is filmed one placement at a time (:func:`vision.synth.video.setup_frames`), then
the first player's first reinforcements; every frame goes through the gate and the pipeline as
at the table, and what they commit goes to a :class:`webui.live.LiveGame` on a scratch
recording, as ``augur run`` feeds it (:func:`webui.loop.feed`). The figures say how well the
dashboard follows the opening occupation: placements committed as made, the rules' verdicts on
a set-up made right (the truth gives none), the checks the map asks meanwhile, whether and when
the game starts, the set-up it starts on against the true one, and whether the first turn's
move is read.

Filming and reading a tier's set-ups takes about ten minutes here; the tracker's and the
dashboard's part of it, a second. So ``--record DIR`` writes, one file a set-up
(``<tier>-<seed>.jsonl``), the states the live game was given (each commit with the regions a
hand changed, and each re-sighting) after a header with the truth the scoring needs, and
``--replay DIR`` feeds them to a new live game as the code now stands and prints the same lines.
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tracker.errors import AugurError
from tracker.events import SETUP_PLACEMENT
from tracker.readings import LOW_CONFIDENCE
from tracker.spqrisiko.setup import vouched_placements
from tracker.state import ObservedState
from vision.game_recording import RecordingError, parse_recorded, recording_lines, recording_path
from vision.synth.render import FRAME_SIZE

FORMAT = "augur-setup-recording"
VERSION = 1


@dataclass
class SetupFigures:
    """What one filmed set-up gave (see module doc)."""

    tier: str
    seed: int
    placements: int = 0          # provinces the players occupied
    right: int = 0               # ... committed as a placement of the army and count placed
    wrong: int = 0               # placements committed that were not made so
    violations: int = 0          # verdicts while the set-up was followed (the truth gives none)
    warnings: int = 0
    on_misread: int = 0          # ... of those, the ones that name a held province the camera misread
    checks: int = 0              # checks the map asked of held provinces while placing (each province and reading once)
    commits: int = 0             # ... those commits
    started: str = "never"       # "at the last placement", "at the first move", or "never"
    start_wrong: int = -1        # regions of the set-up the game started on that differ from the true one
    first_move: bool = False     # the first turn's reinforcement read where it was placed
    frames: int = 0
    messages: list[str] = field(default_factory=list)


def play_setup_video(tier: str, seed: int, fps: int = 12, size: tuple[int, int] = FRAME_SIZE,
                     record: Path | None = None, board_print=None) -> SetupFigures:
    """Film the set-up of ``seed`` on a ``tier`` table, calibrate on its empty-table photo, feed
    every frame to a live game and score what it recorded. ``record``: a folder to write what the
    live game was given in, for :func:`replay_setup`. ``board_print``
    (:class:`vision.synth.board_art.PrintedBoard`): the table shows that real print, and the
    calibration compares it with the procedural art, as ``augur bench game`` does."""
    from calibration.profile import calibrate
    from vision.pipeline import Pipeline
    from vision.synth.board_art import PrintedBoard, procedural_art
    from vision.synth.video import PLAYERS, calibration_photo, setup_frames
    from webui.live import LiveGame
    from webui.loop import feed
    from webui.store import Store

    out = SetupFigures(tier, seed)
    truths: list[dict] = []
    art, geometry = PrintedBoard.parts(board_print)

    def filmed():
        for img, truth, _ in setup_frames(seed, tier, size, fps, art=art, geometry=geometry):
            truths.append(truth)
            yield img

    profile = calibrate(calibration_photo(seed, tier, size, art=art), procedural_art(), players=PLAYERS)
    with tempfile.TemporaryDirectory(prefix="augur-setup-bench-") as folder:
        store = Store(Path(folder))
        try:
            given = _Given(LiveGame.open(store, list(PLAYERS), resume=False))
            out.frames = feed(given, Pipeline(profile), filmed())["frames"]
            ends = truth_ends(truths)
            _score(out, given.live, ends)
        finally:
            store.close()
    if record is not None:
        write_recording(Path(record), out, fps, ends, list(PLAYERS), given.lines)
    return out


def write_recording(folder: Path, figures: SetupFigures, fps: int, ends: dict[str, dict], players: list[str],
                    lines: list[dict]) -> Path:
    """Write one set-up's recording (module doc) in ``folder``: ``players``' live game was given
    ``lines``; its path."""
    header = {"format": FORMAT, "version": VERSION, "tier": figures.tier, "seed": figures.seed, "fps": fps,
              "frames": figures.frames, "players": players, "truth": ends}
    folder.mkdir(parents=True, exist_ok=True)
    path = recording_path(folder, figures.tier, figures.seed)
    with open(path, "w", encoding="utf-8") as fh:
        for line in [header, *lines]:
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")
    return path


class _Given:
    """A live game as :func:`webui.loop.feed` drives it, keeping each state it is given."""

    def __init__(self, live):
        self.live, self.lines = live, []

    def commit(self, state: ObservedState, jpeg=None, source: str = "camera", detections=None, moved=None) -> dict:
        self.lines.append({"commit": state.to_dict(), "moved": sorted(moved) if moved is not None else None})
        return self.live.commit(state, jpeg, source, detections, moved)

    def resight(self, state: ObservedState) -> None:
        self.lines.append({"resight": state.to_dict()})
        self.live.resight(state)

    def __getattr__(self, name):
        return getattr(self.live, name)


def truth_ends(truths: list[dict]) -> dict[str, dict]:
    """What the scoring needs of a set-up film's truth (its frames' ``state``s): the board it
    began on, the finished set-up, and the board after the first move."""
    final_move = truths[-1]["state"]["regions"]          # after the first move, the film's last step
    finished = next(t for t in reversed(truths) if t["step"] == truths[-1]["step"] - 1)["state"]["regions"]
    return {"first": truths[0]["state"]["regions"], "finished": finished, "final": final_move}


def replay_setup(path: Path) -> SetupFigures:
    """The figures of one recorded set-up (``augur bench setup --record``): the states its live
    game was given, fed to a new one with the tracker and dashboard as they now are."""
    from webui.live import LiveGame
    from webui.store import Store
    lines = recording_lines(path)
    header = parse_recorded(path, 1, lines[0])
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        raise RecordingError(f"{path} is not an {FORMAT} of version {VERSION}")
    try:
        out = SetupFigures(header["tier"], header["seed"], frames=header["frames"])
        ends, players = header["truth"], list(header["players"])
    except KeyError as exc:
        raise RecordingError(f"{path}: its header has no {exc}") from None
    except TypeError:
        raise RecordingError(f"{path}: its header's players are not a list of colours") from None
    if not (isinstance(ends, dict) and all(isinstance(ends.get(k), dict) for k in ("first", "final", "finished"))):
        raise RecordingError(f"{path}: its header's truth is not the set-up's first, final and finished states")
    with tempfile.TemporaryDirectory(prefix="augur-setup-replay-") as folder:
        store = Store(Path(folder))
        try:
            live = LiveGame.open(store, players, resume=False)
            for number, text in enumerate(lines[1:], start=2):
                line = parse_recorded(path, number, text)
                try:
                    if "resight" in line:
                        live.resight(ObservedState.from_dict(line["resight"]))
                    else:
                        moved = frozenset(line["moved"]) if line["moved"] is not None else None
                        live.commit(ObservedState.from_dict(line["commit"]), moved=moved)
                except (KeyError, TypeError, AugurError) as exc:
                    raise RecordingError(f"{path}, line {number}: not a recorded state ({exc})") from None
            _score(out, live, ends)
        finally:
            store.close()
    return out


def bench_setup_replays(folder: Path, verbose: bool = False) -> dict:
    """Replay every set-up recorded in ``folder``; print one line per tier, as the bench does."""
    paths = sorted(Path(folder).glob("*.jsonl")) if Path(folder).is_dir() else []
    if not paths:
        raise RecordingError(f"no set-up recordings (*.jsonl) in {folder}")
    by_tier: dict[str, list[SetupFigures]] = {}
    for path in paths:
        f = replay_setup(path)
        by_tier.setdefault(f.tier, []).append(f)
    for tier in ("easy", "medium", "hard"):
        if tier in by_tier:
            _print(sorted(by_tier[tier], key=lambda f: f.seed), verbose)
    return by_tier


def _score(out: SetupFigures, live, ends: dict[str, dict]) -> None:
    """Score a live game's recording against the filmed truth (:func:`truth_ends`)."""
    from webui.live import SETUP
    final_move, finished = ends["final"], ends["finished"]
    setup = ObservedState.from_dict({"regions": finished})
    placed = {p: kinds for p, kinds in finished.items() if p not in ends["first"]}
    out.placements = len(placed)
    moved = next(p for p in final_move if final_move[p] != finished.get(p))
    snaps = live.store.snapshots(live.game_id)
    marks: set[tuple[str, str]] = set()
    start = next((k for k, s in enumerate(snaps) if s.source == SETUP), None)
    for k, s in enumerate(snaps):
        following = start is None or k <= start
        for e in s.events:
            if e["kind"] == SETUP_PLACEMENT:
                ok = placed.get(e["target"]) == {e["actor"]: {"legionary": e["amount"]}}
                out.right += ok
                out.wrong += not ok
            elif start is not None and k > start and e.get("target") == moved:
                out.first_move = True
        if following:
            read = s.state["regions"]
            for v in s.verdicts:
                if v["level"] in ("violation", "warning"):
                    out.violations += v["level"] == "violation"
                    out.warnings += v["level"] == "warning"
                    out.on_misread += any(read.get(r) and read[r] != finished.get(r) for r in v["regions"])
                    out.messages.append(f"{v['level']} {v['rule']}: {v['message']}")
            if start is None or k < start:
                state = ObservedState.from_dict(s.state)
                vouched = vouched_placements(state, live.game.plan)
                marks |= {(r, json.dumps(state.regions[r], sort_keys=True)) for r in state.owners
                          if r not in vouched and state.confidence_of(r) < LOW_CONFIDENCE}
                out.commits += 1
    out.checks = len(marks)
    if start is not None:
        out.started = "at the last placement" if snaps[start].events else "at the first move"
        out.start_wrong = len(ObservedState.from_dict(snaps[start].state).changed_regions(setup))


def describe(figures: list[SetupFigures]) -> str:
    """One line for a tier's set-ups together."""
    f0 = figures[0]
    total = lambda name: sum(getattr(f, name) for f in figures)  # noqa: E731
    started = {k: sum(f.started == k for f in figures) for k in ("at the last placement", "at the first move", "never")}
    wrong = [f.start_wrong for f in figures if f.start_wrong >= 0]
    return (f"{f0.tier}: {len(figures)} set-ups, {total('frames')} frames; placements committed right "
            f"{total('right')} of {total('placements')} ({total('wrong')} committed otherwise than made); "
            f"while the set-up was followed {total('violations')} violation(s), {total('warnings')} warning(s) "
            f"(the truth gives none; {total('on_misread')} of them name a province misread), "
            f"{total('checks')} check(s) asked of held provinces (a province and its reading once) over "
            f"{total('commits')} commits; the game started {started['at the last placement']} time(s) at the last "
            f"placement, {started['at the first move']} at the first move, {started['never']} never; "
            f"regions of the set-up it started on off the true one: {sum(wrong)} over {len(wrong)} game(s); "
            f"first move read {total('first_move')} of {len(figures)}")


def bench_setup_videos(tiers=("easy", "hard"), seeds=(5,), fps: int = 12, size: tuple[int, int] = FRAME_SIZE,
                       verbose: bool = False, record: Path | None = None, board_print=None) -> dict:
    """Every set-up of ``seeds`` on each tier (on ``board_print`` when given); prints one line
    per tier (and, ``verbose``, each verdict) and returns the figures. ``record``: a folder to
    record each set-up in, one file a set-up, for ``--replay`` (:func:`bench_setup_replays`)."""
    out = {}
    for tier in tiers:
        out[tier] = [play_setup_video(tier, s, fps, size, record, board_print) for s in seeds]
        _print(out[tier], verbose)
    return out


def _print(figures: list[SetupFigures], verbose: bool) -> None:
    if verbose:
        for f in figures:
            for m in f.messages:
                print(f"  {f.tier} seed {f.seed}: {m}", flush=True)
    print(describe(figures), flush=True)
