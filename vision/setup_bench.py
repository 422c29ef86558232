"""``augur bench setup``: the live game following a filmed set-up, from the empty board.

A seeded set-up is filmed one placement at a time (:func:`vision.synth.video.setup_frames`), then
the first player's first reinforcements; every frame goes through the gate and the pipeline as
at the table, and what they commit goes to a :class:`webui.live.LiveGame` on a scratch
recording, as ``augur run`` feeds it (:func:`webui.loop.feed`). The figures say how well the
dashboard follows the opening occupation: placements committed as made, the rules' verdicts on
a set-up made right (the truth gives none), the checks the map asks meanwhile, whether and when
the game starts, the set-up it starts on against the true one, and whether the first turn's
move is read.
"""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tracker.events import SETUP_PLACEMENT
from tracker.readings import LOW_CONFIDENCE
from tracker.spqrisiko.setup import vouched_placements
from tracker.state import ObservedState
from vision.synth.render import FRAME_SIZE


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


def play_setup_video(tier: str, seed: int, fps: int = 12, size: tuple[int, int] = FRAME_SIZE) -> SetupFigures:
    """Film the set-up of ``seed`` on a ``tier`` table, calibrate on its empty-table photo, feed
    every frame to a live game and score what it recorded."""
    from calibration.profile import calibrate
    from vision.pipeline import Pipeline
    from vision.synth.board_art import procedural_art
    from vision.synth.video import PLAYERS, calibration_photo, setup_frames
    from webui.live import LiveGame
    from webui.loop import feed
    from webui.store import Store

    out = SetupFigures(tier, seed)
    truths: list[dict] = []

    def filmed():
        for img, truth, _ in setup_frames(seed, tier, size, fps):
            truths.append(truth)
            yield img

    profile = calibrate(calibration_photo(seed, tier, size), procedural_art(), players=PLAYERS)
    with tempfile.TemporaryDirectory(prefix="augur-setup-bench-") as folder:
        store = Store(Path(folder))
        try:
            live = LiveGame.open(store, list(PLAYERS), resume=False)
            out.frames = feed(live, Pipeline(profile), filmed())["frames"]
            _score(out, live, truths)
        finally:
            store.close()
    return out


def _score(out: SetupFigures, live, truths: list[dict]) -> None:
    """Score a live game's recording against the filmed truth (its frames' ``state``s)."""
    from webui.live import SETUP
    final_move = truths[-1]["state"]["regions"]          # after the first move, the film's last step
    finished = next(t for t in reversed(truths) if t["step"] == truths[-1]["step"] - 1)["state"]["regions"]
    setup = ObservedState.from_dict({"regions": finished})
    placed = {p: kinds for p, kinds in finished.items() if p not in truths[0]["state"]["regions"]}
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
            f"(the truth gives none; {total('on_misread')} of them name a province misread), {total('checks')} check(s) asked of held provinces (a province and "
            f"its reading once) over {total('commits')} commits; the game started {started['at the last placement']} time(s) at the last "
            f"placement, {started['at the first move']} at the first move, {started['never']} never; "
            f"regions of the set-up it started on off the true one: {sum(wrong)} over {len(wrong)} game(s); "
            f"first move read {total('first_move')} of {len(figures)}")


def bench_setup_videos(tiers=("easy", "hard"), seeds=(5,), fps: int = 12, size: tuple[int, int] = FRAME_SIZE,
                       verbose: bool = False) -> dict:
    """Every set-up of ``seeds`` on each tier; prints one line per tier (and, ``verbose``, each
    verdict) and returns the figures."""
    out = {}
    for tier in tiers:
        out[tier] = [play_setup_video(tier, s, fps, size) for s in seeds]
        if verbose:
            for f in out[tier]:
                for m in f.messages:
                    print(f"  {tier} seed {f.seed}: {m}", flush=True)
        print(describe(out[tier]), flush=True)
    return out
