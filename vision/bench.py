"""``augur bench vision``: the full pipeline from calibration photo to counts on rendered sets.

For every image of a tier, the renderer also makes the calibration photo the players would
take (the same camera and light, the board empty, the markers on box 0); the pipeline
calibrates on it, then detects and counts on the game image. Images are held out from any
training set (different seeds). Prints per-region and whole-board exact accuracy, per-kind
and per-colour confusion, how well the per-region confidence points at the wrong regions,
latency per stage and peak memory.

How a region is scored: it is right when its counts equal the truth, or when the detector
marked it unseen and it really is hidden (a hand, a card or a cup covers a quarter of it, or
half of one of its pieces): the pipeline then keeps that region's last committed count, which
is what a player wants. Marking a region unseen that the camera could see is wrong. The plain
figure (every region's counts compared, unseen marks ignored) is printed beside it.

A detector that reads a run of still frames together (the counting network, see
``DensityCounter.detect_in_run``) is also scored as the live loop uses it: the state committed
after three still frames of the table (the fusion's vote over their readings). The frames are
the same photo but for the sensor noise (the renderer's ``sensor_seed``): what a camera on a
tripod delivers while nothing moves. Focus, shake and compression stay those of the image.

What a table lives with is also scored: the victory points (§5) each player would claim if their
turn began on the board as read, against the claim on the true board. A legionary too many
seldom moves a claim; a province read in the wrong colour or empty, a lost power centre or a
fleet majority read wrong does. A region marked unseen takes its true contents there: the live
loop keeps its last committed count.
"""
from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
from scipy import stats

from calibration.covered import profile_covered
from calibration.pieces_on_map import PIECES_ON_MAP, pieces_on_map
from calibration.profile import calibrate
from tracker.errors import AugurError
from tracker.pieces import TRIREME
from tracker.readings import LOW_CONFIDENCE
from tracker.spqrisiko.scoring import score_all
from tracker.state import ObservedState
from vision.confidence import describe, flag_figures
from vision.count import count
from vision.density import UNSEEN_COVER
from vision.environment import bench_environment
from vision.failures import FailureTally
from vision.geometry import load_geometry
from vision.synth.board_art import PrintedBoard, procedural_art
from vision.synth.dataset import iter_still_tables
from vision.synth.render import FRAME_SIZE, calibration_scene

HELD_OUT_SEED = 90_210


def run_vision_bench(n: int = 200, tiers=("easy", "medium", "hard"), seed: int = HELD_OUT_SEED,
                     detector: str = "auto", video: bool = True, size: tuple[int, int] = FRAME_SIZE,
                     relight: tuple[float, float] | None = None, relief: float = 0.0,
                     board_print: PrintedBoard | None = None, toppled: float = 0.0) -> dict:
    """Every shipped detector side by side (``detector="auto"``), or just the one named; the
    tables filmed at ``size`` (a 1080p camera gives the far pieces of a tilted view more pixels);
    ``relight`` = (kelvin, level): the tables lit otherwise than their calibration photos, as
    the light drifts over an evening; ``relief``: the folded board rising up to that many mm off
    the table along its creases; ``toppled``: that share of the legionaries and vexilla lying
    knocked over, as after a battle (all three: see :func:`vision.synth.render.render`); ``board_print``:
    the tables and their calibration photos rendered on a real board's print instead of the
    procedural art, their pieces standing inside the print's own borders (its fitted map), while
    the calibration compares them with the procedural art, as it does at a real table."""
    from vision.density import DEFAULT_COUNTER
    from vision.game_bench import bench_game_videos
    from vision.yolo import DEFAULT_MODEL
    env = bench_environment()
    print(f"environment: {env.describe()}")
    results = {"environment": env.as_dict()}
    if detector == "auto":
        detectors = (["density"] if DEFAULT_COUNTER.is_file() else []) \
            + (["yolo"] if DEFAULT_MODEL.is_file() else []) + ["classical"]
    else:
        detectors = [detector]
    for which in detectors:
        results[which] = _bench_detector(which, n, tiers, seed, size, relight, relief, board_print, toppled)
    if video:
        results["video"] = bench_game_videos(tiers)
        results["real_time"] = bench_real_time_commit()
        results["live"] = bench_live_memory()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the bench's own process {rss:.0f} MB (not the product's figure: it also holds the "
          f"renderer, its images and every detector measured)"
          + ("; no trained model is shipped, so only the classical baseline was measured"
             if detectors == ["classical"] and detector == "auto" else ""))
    results["peak_rss_mb"] = rss
    return results


def _bench_detector(which: str, n: int, tiers, seed: int, size: tuple[int, int] = FRAME_SIZE,
                    relight: tuple[float, float] | None = None, relief: float = 0.0,
                    board_print: PrintedBoard | None = None, toppled: float = 0.0) -> dict:
    from vision.pipeline import make_detector
    geo = load_geometry()
    art = procedural_art()
    # on a real print, the pieces stand inside its printed borders
    print_art, board_map = PrintedBoard.parts(board_print)
    results = {}
    for tier in tiers:
        right = total = boards = plain = hidden_total = 0
        run_right = run_boards = run_tables = 0    # the state committed after a run of still frames
        claims = claims_ok = claim_tables = 0     # victory-point claims (§5) as on the true board
        table_right: list[int] = []                  # regions right on each table (0 where calibration failed)
        table_run_right: list[int] = []              # the same for the state committed after a still run
        failed: list[str] = []
        unseen: Counter = Counter()
        kinds: Counter = Counter()
        colours: Counter = Counter()
        lat: dict[str, list[float]] = {"calibrate": [], "detect": [], "count": []}
        sure: list[tuple[float, bool]] = []          # every seen region's confidence, and whether it was right
        map_off = map_pieces = map_tables = 0         # pieces the fitted map puts across a border, and on how many tables
        warned = warned_right = 0                      # calibration photos augur calibrate warns about, regions right on them
        cal_pieces: list[int] = []                     # pieces read on the map of each (empty) calibration photo
        markers = Counter()                            # score markers on box 0: found at their piece, elsewhere, not
        failures = FailureTally()                      # the wrong regions the detector saw, by cause and pile size
        knocked = Counter()                            # seen regions where a piece lies knocked over (toppled)
        told = Counter()                               # regions told to stand a piece up in (vision.lying)
        for i, img, truth, frame in iter_still_tables(tier, n, seed, size, art=print_art, relight=relight,
                                                      relief=relief, geometry=board_map, toppled=toppled):
            cal_img, cal_truth = calibration_scene(truth, print_art)
            t0 = time.perf_counter()
            try:
                profile = calibrate(cal_img, art, players=truth.players)
            except AugurError as exc:        # the board was not found: every region of this image is wrong
                failed.append(f"image {i}: {exc}")
                total += len(geo.region_ids)
                claims += len(truth.players)
                table_right.append(0)
                table_run_right.append(0)
                continue
            t_cal = time.perf_counter() - t0
            markers += markers_found(profile, cal_truth)
            off, on_map = pieces_off_their_region(truth, profile.geometry)
            map_off, map_pieces, map_tables = map_off + off, map_pieces + on_map, map_tables + (off > 0)
            detector = make_detector(profile, which)
            t1 = time.perf_counter()
            det = detector.detect(img)
            t2 = time.perf_counter()
            got = count(det, profile.geometry, det.unseen)      # this table's map (calibration.surface)
            t3 = time.perf_counter()
            lat["calibrate"].append(t_cal)
            lat["detect"].append(t2 - t1)
            lat["count"].append(t3 - t2)
            want = ObservedState.from_dict(truth.state)
            hidden = hidden_regions(truth)
            lying = lying_regions(truth)
            ok = regions_right(got, want, hidden, geo)
            on_map = pieces_on_map(profile)       # the photos are of the empty board: a warning is false
            cal_pieces.append(on_map.pieces)
            if profile_covered(profile) or on_map:    # over the map, pieces on it, map off
                warned, warned_right = warned + 1, warned_right + ok
            players_right = claims_right(got, want, truth.players)
            claims, claims_ok = claims + len(truth.players), claims_ok + players_right
            claim_tables += players_right == len(truth.players)
            for r in geo.region_ids:
                g, w = got.regions.get(r, {}), want.regions.get(r, {})
                plain += g == w
                if r in got.unseen:
                    unseen[("hidden" if r in hidden else "visible")] += 1
                    continue
                confidence = got.confidence_of(r)
                sure.append((confidence, g == w))
                if r in lying and r not in hidden:
                    knocked["regions"] += 1
                    knocked["right"] += g == w
                    knocked["wrong_flagged"] += g != w and confidence < LOW_CONFIDENCE
                    knocked["wrong"] += g != w
                    knocked["told"] += r in got.lying
                    knocked["wrong_told"] += g != w and r in got.lying
                elif r in got.lying:
                    told["falsely"] += 1
                    told["falsely_right"] += g == w
                failures.add(g, w, geo.board.is_sea(r), r in hidden)
                for colour in set(g) | set(w):
                    for kind in set(g.get(colour, {})) | set(w.get(colour, {})):
                        kinds[(kind, "exact" if g.get(colour, {}).get(kind, 0) == w.get(colour, {}).get(kind, 0)
                               else "wrong")] += 1
                wo, go = want.owners.get(r), got.owners.get(r)
                if wo or go:
                    colours[(wo, go)] += 1
            told["tables_falsely"] += bool(got.lying - lying)
            right += ok
            table_right.append(ok)
            total += len(geo.region_ids)
            boards += ok == len(geo.region_ids)
            hidden_total += len(hidden)
            if hasattr(detector, "detect_in_run"):
                run = [img] + [frame(k) for k in range(1, STILL_RUN)]
                ok = regions_right(committed_after_still_run(detector, run, profile.geometry), want, hidden, geo)
                run_right += ok
                table_run_right.append(ok)
                run_boards += ok == len(geo.region_ids)
                run_tables += 1
        pct = lambda xs, q: 1000 * float(np.percentile(xs, q))  # noqa: E731
        doubt = flag_figures(*zip(*sure), LOW_CONFIDENCE) if sure else None
        res = {"per_region": right / total, "per_region_plain": plain / total, "whole_board": boards / n,
               "flagged_below_low_confidence": doubt,
               "claims_right": claims_ok / max(claims, 1), "tables_every_claim_right": claim_tables / n,
               "unseen": dict(unseen), "hidden": hidden_total, "calibration_failed": failed, "latency_ms": {
            k: (pct(v, 50), pct(v, 95)) for k, v in lat.items()}, "kinds": dict(kinds), "owners": dict(colours),
               "map": {"pieces": map_pieces, "in_another_region": map_off, "tables": map_tables},
               "calibration_warned": {"tables": warned, "regions_right": warned_right},
               "calibration_pieces_on_map": cal_pieces,
               "markers": {k: markers[k] for k in ("at_their_piece", "elsewhere", "not_found")},
               "failures": failures.as_dict()}
        if toppled:
            res["knocked_over"] = dict(knocked)
        res["told_to_stand_up_falsely"] = {k: told[k] for k in ("falsely", "falsely_right", "tables_falsely")}
        if run_tables:
            res["committed_after_still_run"] = {"per_region": run_right / total, "whole_board": run_boards / n,
                                                "frames": STILL_RUN, "frames_differ_by": "sensor noise"}
        n_regions = len(geo.region_ids)
        res["interval_95"] = {"per_region": region_interval(table_right, n_regions),
                              "whole_board": board_interval(boards, n)}
        if run_tables:
            res["committed_after_still_run"]["interval_95"] = {
                "per_region": region_interval(table_run_right, n_regions), "whole_board": board_interval(run_boards, n)}
        results[tier] = res
        ci = res["interval_95"]
        filmed = ('' if size == FRAME_SIZE else ' at %dx%d' % size) + \
            ('' if relight is None else ' lit %+.0f K and x%.2f from calibration' % relight) + \
            (' on a board rising up to %g mm along its creases' % relief if relief else '') + \
            (' with %g of the legionaries and vexilla knocked over' % toppled if toppled else '') + \
            (' on the real print of --board-photo' if board_print is not None else '')
        print(f"[{tier}] {which} on {n} held-out images{filmed}: per-region exact {100 * res['per_region']:.1f}% "
              f"{_span(ci['per_region'])} (target 99.5/99.5/99), whole board {100 * res['whole_board']:.1f}% "
              f"{_span(ci['whole_board'])} (target >= 90 on hard); 95% intervals over these tables")
        if run_tables:
            ci = res["committed_after_still_run"]["interval_95"]
            print(f"[{tier}]   committed after {STILL_RUN} still frames of each table (sensor noise apart; the live loop): per-region "
                  f"exact {100 * run_right / total:.1f}% {_span(ci['per_region'])}, whole board {100 * run_boards / n:.1f}% "
                  f"{_span(ci['whole_board'])}")
        print(f"[{tier}]   victory points (§5) a player would claim on the board as read: {claims_ok} of {claims} "
              f"claims as on the true board; every player's claim right on {claim_tables} of {n} tables")
        print(f"[{tier}]   the map each table's calibration fitted puts {map_off} of {map_pieces} pieces in another "
              f"region than the map they were placed by (on {map_tables} tables)")
        print(f"[{tier}]   calibration photos augur calibrate warns about (something over the map, pieces on it, or "
              f"the map off the print): {warned} of {n}"
              + (f", {100 * warned_right / (warned * len(geo.region_ids)):.1f}% of their regions read right" if warned else ""))
        if cal_pieces:
            print(f"[{tier}]   pieces read on the map of the (empty) calibration photos: none on {cal_pieces.count(0)} of "
                  f"{len(cal_pieces)}, at most {max(cal_pieces)} (augur calibrate warns from {PIECES_ON_MAP})")
        print(f"[{tier}]   score markers on box 0 in the calibration photos: {markers['at_their_piece']} of "
              f"{sum(markers.values())} found at their own piece, {markers['elsewhere']} taken from something else, "
              f"{markers['not_found']} not found (their colours left at the defaults)")
        if toppled:
            print(f"[{tier}]   regions in view where a piece lies knocked over: {knocked['right']} of "
                  f"{knocked['regions']} read right; of the wrong ones {knocked['wrong_flagged']} flagged for a check "
                  f"(confidence below {LOW_CONFIDENCE})")
            print(f"[{tier}]   told to stand a piece up (vision.lying) in {knocked['told']} of the {knocked['regions']} "
                  f"regions where one lies, {knocked['wrong_told']} of the {knocked['wrong']} read wrong")
        print(f"[{tier}]   told to stand a piece up where none lies: {told['falsely']} regions ({told['falsely_right']} "
              f"of them read right) on {told['tables_falsely']} of {n} tables")
        if failed:
            print(f"[{tier}]   calibration failed on {len(failed)} image(s): " + "; ".join(failed[:3]))
        print(f"[{tier}]   counts alone (unseen marks ignored) {100 * res['per_region_plain']:.1f}%; "
              f"regions marked unseen: {unseen['hidden']} really hidden, {unseen['visible']} visible "
              f"(of {hidden_total} hidden)")
        if doubt:
            print(f"[{tier}]   confidence below {LOW_CONFIDENCE} (the dashboard asks for a check): {describe(doubt)}")
        for k, (p50, p95) in res["latency_ms"].items():
            print(f"[{tier}]   {k}: p50 {p50:.0f} ms, p95 {p95:.0f} ms")
        per_kind = {}
        for (kind, verdict), c in kinds.items():
            per_kind.setdefault(kind, Counter())[verdict] += c
        print(f"[{tier}]   per kind (colour+kind cells exact/wrong): " +
              ", ".join(f"{k} {v['exact']}/{v['wrong']}" for k, v in sorted(per_kind.items())))
        print(f"[{tier}]   where it fails (regions not marked unseen, by cause): {failures.describe()}")
        owner_ok = sum(c for (w, g), c in colours.items() if w == g)
        print(f"[{tier}]   province/sea owner colour right {owner_ok}/{sum(colours.values())}; commonest confusions: " +
              ", ".join(f"{w}->{g} {c}" for (w, g), c in Counter({k: v for k, v in colours.items()
                                                                   if k[0] != k[1]}).most_common(4)))
    return results


def region_interval(right_per_table: list[int], regions_per_table: int, resamples: int = 2000) -> tuple[float, float]:
    """A 95 % interval for the share of regions read right, by resampling whole tables.

    A table's regions are not independent draws (one blurred or tilted view spoils many of
    them at once), so the interval comes from a bootstrap over tables rather than a binomial
    over regions: it says how far another set of tables of the same tier could land. Seeded,
    so the bench prints the same interval for the same readings."""
    right = np.asarray(right_per_table, dtype=float)
    if len(right) < 2 or np.all(right == right[0]):
        share = float(right.mean()) / regions_per_table if len(right) else 0.0
        return share, share
    ci = stats.bootstrap((right,), lambda r, axis=-1: r.mean(axis=axis) / regions_per_table,
                         n_resamples=resamples, method="percentile", random_state=0).confidence_interval
    return float(ci.low), float(ci.high)


def board_interval(right: int, tables: int) -> tuple[float, float]:
    """A 95 % (Wilson) interval for the share of whole boards read right: tables are independent."""
    if tables == 0:
        return 0.0, 0.0
    ci = stats.binomtest(right, tables).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def _span(interval: tuple[float, float]) -> str:
    return f"[{100 * interval[0]:.1f}-{100 * interval[1]:.1f}]"


#: Still frames of one table read as a run (the fusion commits after three).
STILL_RUN = 3


def committed_after_still_run(detector, frames: list[np.ndarray], geo) -> ObservedState:
    """The state the live loop commits after reading ``frames`` (still frames of one table) as a
    run, its fusion asked to agree over all of them."""
    from vision.fuse import Fusion
    fusion = Fusion(agree=len(frames))
    for k, img in enumerate(frames):
        det = detector.detect_in_run(img, first=k == 0)
        fusion.offer(count(det, geo, det.unseen))
    return fusion.committed if fusion.committed is not None else ObservedState.from_dict({"regions": {}}, geo.board)


#: A marker blob stands at its piece when that piece is the marker nearest its centre, this near
#: (board units; the markers on box 0 stand about 20 apart)
MARKER_NEAR = 15.0


def markers_found(profile, cal_truth) -> Counter:
    """Where calibration found each score marker of the calibration photo (``cal_truth``, its
    renderer's truth): ``at_their_piece`` (the blob it learned the colour from stands at that
    marker), ``elsewhere`` (the blob was something else: another marker, the printed frame), or
    ``not_found``. Each piece is placed where the rectified view shows it, the middle of its
    image box brought back through the calibration's lens and pose: a tilted camera shows a
    piece's body up to 15 units off its foot, most of the way to the next marker's. Session 80
    found red's colour taken from the frame round box 0 for a quarter of the markers of rendered
    tables, which no other figure showed."""
    from calibration.lens import undistort_points
    markers = [p for p in cal_truth.pieces if p.region is None]
    if not markers:
        return Counter()
    mids = np.array([[(p.box[0] + p.box[2]) / 2, (p.box[1] + p.box[3]) / 2] for p in markers], np.float64)
    mids = undistort_points(mids, profile.image_size, profile.k1)
    seen = profile.pose.to_board(mids)
    out = Counter()
    for p in markers:
        at = profile.markers_at.get(p.colour)
        if at is None:
            out["not_found"] += 1
            continue
        d = np.hypot(*(seen - np.asarray(at, float)).T)
        k = int(np.argmin(d))
        out["at_their_piece" if markers[k].colour == p.colour and d[k] <= MARKER_NEAR else "elsewhere"] += 1
    return out


def regions_right(got: ObservedState, want: ObservedState, hidden: set[str], geo) -> int:
    """Regions read right by the bench's rule (see the module doc)."""
    return sum((r in hidden) if r in got.unseen else got.regions.get(r, {}) == want.regions.get(r, {})
               for r in geo.region_ids)


def claims_right(got: ObservedState, want: ObservedState, players) -> int:
    """How many of ``players`` would claim the same victory points (§5) at the start of their turn
    on the board as read as on the true board. A region marked unseen takes its true contents (see
    the module doc)."""
    regions = {r: c for r, c in got.to_dict()["regions"].items() if r not in got.unseen}
    regions.update({r: c for r, c in want.to_dict()["regions"].items() if r in got.unseen})
    read = ObservedState.from_dict({"board": want.board.id, "regions": regions}, want.board)
    on_read, on_true = score_all(read, players), score_all(want, players)
    return sum(on_read[c].total == on_true[c].total for c in players)


#: A region is hidden when an occluder covers more of it than the counting network's unseen share.
HIDDEN_COVER = UNSEEN_COVER
#: ... or when one of its pieces is at least this much under an occluder.
HIDDEN_PIECE = 0.5


def hidden_regions(truth) -> set[str]:
    """Regions the camera cannot fully see in a rendered image (see the module doc)."""
    out = {r for r, f in truth.occluded_regions.items() if f > HIDDEN_COVER}
    return out | {p.region for p in truth.pieces if p.region and p.occluded >= HIDDEN_PIECE}


def lying_regions(truth) -> set[str]:
    """Regions of a rendered image where a piece lies knocked over (``render``'s ``toppled``)."""
    return {p.region for p in truth.pieces if p.lying}


def pieces_off_their_region(truth, geometry) -> tuple[int, int]:
    """How many of a rendered table's pieces (in regions; not the score markers) the region map
    ``geometry`` puts in another region than the one the renderer placed them in, and how many
    there are. A province's piece is looked up as the counter counts it
    (:attr:`BoardGeometry.land_labels`: a pile spilled off a coast is its province's), a trireme
    on the printed seas.

    Why: the calibration fits the map to each camera's view, and a piece found exactly where it
    stands is still counted in the neighbour when the fitted map puts it across a border. This
    separates the calibration's part in the wrong regions from the counter's. On the procedural
    art the renderer's map is the committed one, and the figure is an error. On a real print it
    is the calibration's own fit seen from straight above (:func:`vision.synth.board_art.printed_map`),
    and the figure is a disagreement. Session 59 found 13 / 50 / 91 such pieces of about 4,800 on
    the first 40 print tables per tier (easy / medium / hard), and none on the procedural art. In
    one of the easy cases it looked at, the fit from above had given a tongue of Moesia to Thracia.
    That was a fault of the trace's tone check, mended the same session
    (:func:`calibration.borders._unlike_their_new_region`); then 8 / 45 / 94."""
    pieces = [p for p in truth.pieces if p.region is not None]
    off = 0
    for land in (True, False):
        mine = [p for p in pieces if (p.kind != TRIREME) == land]
        if mine:
            found = geometry.regions_at(np.array([p.board_xy for p in mine], np.float64), land=land)
            off += sum(g != p.region for p, g in zip(mine, found))
    return off, len(pieces)


def bench_real_time_commit(limit: int | None = None, folder=None, partial: bool = True) -> dict:
    """How long after the last hand leaves the board a state is committed, on the wall clock,
    counting time included: the demo's game video (or the one in ``folder``, written by ``augur
    synth video``) played at its own pace and read through :class:`~vision.frames.NewestFrame`,
    exactly as ``augur run`` reads a camera. Frames the counter had no time for are dropped, as
    they would be live. ``partial=False`` reads every still frame whole (:mod:`vision.partial`).

    A move's delay runs from the moment its first frame without a hand was delivered to the
    moment the pipeline returned the committed state. The video runs at 12 frames a second; a
    30-frame camera would hand the counter a fresher frame each time it is free."""
    from vision.frames import NewestFrame, video_frames
    from vision.game_bench import read_video_folder
    from vision.pipeline import Pipeline
    from vision.synth.video import PLAYERS, default_video_dir, ensure_default_video
    folder = Path(folder) if folder else ensure_default_video()
    meta, truth, calibration_image = read_video_folder(folder)
    hands = [t["hand_present"] for t in truth]
    profile = calibrate(calibration_image, procedural_art(), players=PLAYERS)
    pipeline = Pipeline(profile, partial=partial)
    source = NewestFrame(video_frames(folder, meta["fps"], realtime=True, limit=limit), keep_times=True)
    left = _moves(truth)
    delay: dict[int, float] = {}     # move (its first frame without a hand) -> seconds to its commit
    counted = 0
    for img in source:
        i = source.index
        res = pipeline.process(img)
        counted += res.state is not None
        move = max((j for j in left if j <= i), default=None)
        if res.committed is not None and move is not None and not hands[i] and move not in delay:
            delay[move] = time.monotonic() - source.times[move]
    delays = list(delay.values())
    moves = sum(j < source.delivered for j in left)
    out = {"moves": moves, "committed": len(delays), "delays_s": delays, "frames": source.delivered,
           "counted": counted, "dropped": source.dropped, "fps": meta["fps"]}
    what = "the demo video" if folder == default_video_dir() else f"the {meta['tier']} game video of seed {meta['seed']}"
    print(f"[real time] {what} at {meta['fps']} frames/s, read like a camera (newest frame only, counting "
          f"included): {len(delays)} of {moves} moves that changed the board committed, "
          + (f"{np.median(delays):.2f} s after the last hand left (median; worst {max(delays):.2f} s; target <= 0.5 s)"
             if delays else "none committed")
          + f"; {counted} of {source.delivered} frames counted, {source.dropped} dropped unread")
    return out


def _moves(truth: list[dict]) -> list[int]:
    """The first frame without a hand after each hand that changed the board (a hand can also
    leave it as it was: a card played, a move thought better of)."""
    out = []
    for j in range(1, len(truth)):
        if truth[j - 1]["hand_present"] and not truth[j]["hand_present"]:
            came = j - 1
            while came > 0 and truth[came - 1]["hand_present"]:
                came -= 1
            if came > 0 and truth[came - 1]["state"] != truth[j]["state"]:
                out.append(j)
    return out


#: Runs ``augur`` with the arguments given, then prints the process's own peak RSS (Linux's
#: ``VmHWM``, which starts afresh at exec; ``ru_maxrss`` where there is no /proc).
_REPORTING_MAIN = """
import re, resource, sys
from augur.cli import main
rc = main(sys.argv[1:])
try:
    kb = int(re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read())[1])
except (OSError, TypeError):
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"augur-peak-rss-kb {kb}", flush=True)
sys.exit(rc)
"""


def _reporting_child(args: list[str], what: str) -> tuple[str, float, float]:
    """``augur ARGS`` run in a child process that reports its own high-water mark: its output,
    its peak RSS (MB) and its wall time (s). Raises AugurError naming ``what`` when it fails."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _REPORTING_MAIN, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=False)
    seconds = time.perf_counter() - t0
    output = proc.stdout
    lines = output.strip().splitlines() or ["no output"]
    peak = re.search(r"^augur-peak-rss-kb (\d+)$", output, re.M)
    if proc.returncode != 0 or peak is None:
        raise AugurError(f"{what} failed (exit {proc.returncode}): {lines[-1]}")
    return output, int(peak[1]) / 1024, seconds


def bench_live_memory(frames: int | None = None) -> dict:
    """Peak memory of the product as players run it: ``augur demo --no-serve --fast`` on the
    embedded game video, in a child process, measured by the kernel for that process alone. It
    calibrates, gates, counts, fuses, tracks and records, as ``augur run`` does from a camera.

    Why a child: the bench's own process also holds the table renderer, the rendered images and
    every detector it measured, so its peak RSS overstates what the players' laptop needs (790
    against about 350 MB when this was written). The video is rendered first, here, so that
    its rendering is not counted. The child reports its own high-water mark (``VmHWM``): the
    kernel's ``ru_maxrss`` of a child counts the parent's memory at the fork as well."""
    from vision.synth.video import ensure_default_video
    ensure_default_video()
    with tempfile.TemporaryDirectory(prefix="augur-bench-live-") as record:
        cmd = ["demo", "--no-serve", "--fast", "--record", record]
        if frames:
            cmd += ["--frames", str(frames)]
        output, peak, seconds = _reporting_child(cmd, "the live loop")
    summary = re.search(r"-- (\d+) frames, (\d+) committed states", output)
    if summary is None:
        raise AugurError(f"the live loop printed no summary: {output.strip().splitlines()[-1]}")
    out = {"peak_rss_mb": peak, "frames": int(summary[1]), "commits": int(summary[2]), "seconds": seconds}
    print(f"[live] augur demo (calibration, gate, counting, fusion, tracker, recording) over {out['frames']} "
          f"frames, {out['commits']} states committed: peak RSS {out['peak_rss_mb']:.0f} MB (target <= 600)")
    return out


#: The size a phone films at (``augur bench memory``'s default): 4K, nine times a 720p webcam's
#: pixels, where every full-size array of the calibration weighs 25 to 66 MB.
PHONE_SIZE = (3840, 2160)


def bench_phone_film(size: tuple[int, int] = PHONE_SIZE) -> dict:
    """Peak memory and time of ``augur calibrate --video`` and ``augur run --video --no-serve``
    on the demo's film scaled up to ``size`` (as a phone films the table), each in a child process
    (see :func:`bench_live_memory`). The film opens on the calibration photo for three seconds,
    as players are asked to film the empty board first."""
    import cv2
    from vision.synth.video import ensure_default_video
    folder = ensure_default_video()
    meta = json.loads((folder / "video.json").read_text())
    with open(folder / "game.jsonl", encoding="utf-8") as f:
        players = json.loads(f.readline())["game"]["players"]
    width, height = size
    with tempfile.TemporaryDirectory(prefix="augur-bench-film-") as tmp:
        film, cal = Path(tmp) / "film.mp4", Path(tmp) / "calibration.json"
        fps = meta["fps"]
        writer = cv2.VideoWriter(str(film), cv2.VideoWriter_fourcc(*"mp4v"), fps, (width, height))
        if not writer.isOpened():
            raise AugurError(f"OpenCV cannot write an mp4v film here at {width}x{height}")

        def put(path: Path) -> None:
            writer.write(cv2.resize(cv2.imread(str(path)), (width, height), interpolation=cv2.INTER_CUBIC))
        for _ in range(3 * fps):
            put(folder / "calibration.jpg")
        for frame in sorted((folder / "frames").glob("*.jpg")):
            put(frame)
        writer.release()
        _, cal_peak, cal_seconds = _reporting_child(["calibrate", "--video", str(film), "-o", str(cal)],
                                                    f"the calibration on a {width}x{height} film")
        output, run_peak, run_seconds = _reporting_child(
            ["run", "--video", str(film), "--no-serve", "--calibration", str(cal), "--players", ",".join(players),
             "--record", str(Path(tmp) / "recording")], f"following a {width}x{height} film")
    summary = re.search(r"(\d+) frames read, (\d+) committed states", output)
    if summary is None:
        raise AugurError(f"following a {width}x{height} film printed no summary: {output.strip().splitlines()[-1]}")
    frames, commits = int(summary[1]), int(summary[2])
    out = {"size": [width, height], "calibrate_peak_rss_mb": cal_peak, "calibrate_seconds": cal_seconds,
           "run_peak_rss_mb": run_peak, "run_seconds": run_seconds, "frames": frames, "commits": commits}
    print(f"[film {width}x{height}] augur calibrate --video: {cal_seconds:.1f} s, peak RSS {cal_peak:.0f} MB; "
          f"augur run --video: {frames} frames in {run_seconds:.1f} s, {commits} states committed, peak RSS "
          f"{run_peak:.0f} MB (target <= 600)")
    return out
