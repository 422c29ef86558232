"""``augur bench track``: the score markers read on the vision bench's tables.

Each table is calibrated on its own photo of the empty board with every marker on box 0, as
``augur bench vision`` calibrates it, and its markers are read (:class:`vision.track.TrackReader`)
on the table's photo, where each stands on its army's victory points as the game had them. The
hard tier's photos show hands, some of them over the track, as a single photo may; the live loop
reads the track only on still frames with no hand over the board.

A marker counts as in view when a tenth or less of it is hidden (by a hand, a card, a die); one
more hidden than that is under cover, and for it no reading at all is as right as its box.
"""
from __future__ import annotations

import time
from collections import Counter

import numpy as np

from tracker.errors import AugurError

#: A marker hidden by more than this share of its image is under cover.
IN_VIEW = 0.1


def bench_track(n: int, tiers=("easy", "medium", "hard"), seed: int | None = None, board_print=None) -> dict:
    """Per tier: the markers in view read on their box, on another box, or not at all; those under
    cover read on another box; the tables with every marker read right; the reading's time per
    frame (p50 and p95, the pose's lookup table made). Prints a line a tier and returns the figures."""
    from calibration.profile import calibrate
    from vision.bench import HELD_OUT_SEED
    from vision.synth.board_art import PrintedBoard, procedural_art
    from vision.synth.dataset import iter_still_tables
    from vision.synth.render import calibration_scene
    from vision.track import TrackReader
    seed = HELD_OUT_SEED if seed is None else seed
    art = procedural_art()
    print_art, board_map = PrintedBoard.parts(board_print)
    results = {}
    for tier in tiers:
        tally: Counter = Counter({key: 0 for key in ("tables", "failed", "in_view", "right", "wrong", "unread",
                                                    "covered", "covered_wrong", "tables_right")})
        times: list[float] = []
        for _, img, truth, _ in iter_still_tables(tier, n, seed, art=print_art, geometry=board_map):
            cal_img, _ = calibration_scene(truth, print_art)
            try:
                profile = calibrate(cal_img, art, players=truth.players)
            except AugurError:
                tally["failed"] += 1
                continue
            reader = TrackReader(profile, truth.players)
            reader.read(img)                     # the pose's lookup table, made once per pose in the live loop
            t0 = time.perf_counter()
            got = reader.read(img).boxes
            times.append(time.perf_counter() - t0)
            tally["tables"] += 1
            all_right = True
            for p in truth.pieces:
                if p.region is not None:
                    continue
                read = got.get(p.colour)
                if p.occluded <= IN_VIEW:
                    tally["in_view"] += 1
                    tally["right" if read == p.track_box else "unread" if read is None else "wrong"] += 1
                    all_right &= read == p.track_box
                else:
                    tally["covered"] += 1
                    tally["covered_wrong"] += read is not None and read != p.track_box
                    all_right &= read is None or read == p.track_box
            tally["tables_right"] += all_right
        if times:
            tally["p50_ms"], tally["p95_ms"] = (float(np.percentile(times, q)) * 1000 for q in (50, 95))
        results[tier] = dict(tally)
        print(describe(tier, tally))
    return results


def describe(tier: str, t: Counter) -> str:
    """One line of a tier's figures."""
    if not t["tables"]:
        return f"[{tier}] no table calibrated ({t['failed']} failed)"
    refused = f"; {t['failed']} calibration photos refused" if t["failed"] else ""
    return (f"[{tier}] {t['tables']} tables: of {t['in_view']} score markers in view, read on their box "
            f"{t['right']} ({100 * t['right'] / max(1, t['in_view']):.1f}%), on another box {t['wrong']}, not read "
            f"{t['unread']}; of {t['covered']} under a hand, a card or a die, read on another box "
            f"{t['covered_wrong']}; tables with every marker read right (or not read under cover) "
            f"{t['tables_right']}; reading the track {t['p50_ms']:.1f} ms p50, {t['p95_ms']:.1f} ms p95{refused}")
