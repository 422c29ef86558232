"""``augur bench laid-out``: tables calibrated with their game laid out on the map.

A camera set up mid-game has no empty board to calibrate on, so ``augur calibrate`` paints the
pieces it finds out of the photo (:mod:`calibration.pieces_on_map`), and the counter asks about a
power centre read where a piece stayed in the painted photo (:data:`vision.density.STALE_MASS`).
This bench measures both: each table is calibrated on a state of its game with power centres on
the map and read on a later state of the same game, by the same camera and light, once with its
calibration as photographed and once painted as ``augur calibrate`` paints it.

The tables are the vision bench's renders (:func:`vision.synth.dataset.table_game`: a new game
every eight tables), no hand over them: for table ``i`` the calibration state is drawn between the
first state of its game with ``MIN_CENTRES`` centres and the game's end, and the read state after
it, both from a generator seeded with (seed, i). Caveat: the renderer places a region's pieces
afresh whenever its content changes, centre and all, so a centre that stood in the photo and
still stands has usually moved; the figures for centres standing unmoved since the photo are in
``calibration/pieces_on_map.py`` (CENTRE_PATCH_SCORE).
"""
from __future__ import annotations

import copy
from collections import Counter

import numpy as np

from tracker.errors import AugurError
from tracker.readings import LOW_CONFIDENCE
from tracker.state import ObservedState

#: The bench's seed (its tables are held out of every training set, whose render seeds are others).
LAID_OUT_SEED = 5151
#: A table's calibration state holds at least this many power centres.
MIN_CENTRES = 3


def laid_out_table(tier: str, seed: int, i: int, art=None, geometry=None):
    """Table ``i`` of a tier: (calibration photo, its truth, later photo, its truth), or None when
    the game never holds MIN_CENTRES centres."""
    from vision.synth.dataset import TIER_SEED, table_game
    from vision.synth.render import render
    steps = table_game(seed, i)
    with_centres = [k for k, step in enumerate(steps) if len(step.state.centres) >= MIN_CENTRES]
    if not with_centres or with_centres[0] >= len(steps) - 2:
        return None
    rng = np.random.default_rng([seed, i, 125])
    then = int(rng.integers(with_centres[0], len(steps) - 1))
    now = int(rng.integers(then + 1, len(steps)))
    scene = (seed, i, TIER_SEED[tier])
    shot = dict(hands=0, art=art, geometry=geometry)
    photo, photo_truth = render(steps[then].state, tier, seed=scene, vp=steps[then].vp, **shot)
    later, later_truth = render(steps[now].state, tier, seed=scene, vp=steps[now].vp, **shot)
    return photo, photo_truth, later, later_truth


def bench_laid_out(n: int, tiers=("easy", "medium", "hard"), seed: int = LAID_OUT_SEED, board_print=None,
                   progress=None) -> dict:
    """Per tier: regions right on the later photo, calibrated as photographed and painted out, and
    those read wrong that the dashboard does not ask about; the power centres standing there read; centres read where none stands, and how many of those the
    dashboard asks about (a confidence under LOW_CONFIDENCE). Prints a summary and returns it."""
    from calibration.pieces_on_map import paint_out_pieces
    from calibration.profile import calibrate
    from vision.count import count
    from vision.density import DensityCounter
    from vision.synth.board_art import PrintedBoard, procedural_art
    art, geometry = PrintedBoard.parts(board_print)
    results = {}
    for tier in tiers:
        tally: Counter = Counter()
        for i in range(n):
            table = laid_out_table(tier, seed, i, art, geometry)
            if table is None:
                tally["no_centres"] += 1
                continue
            photo, photo_truth, later, later_truth = table
            try:
                profile = calibrate(photo, procedural_art(), players=photo_truth.players)
            except AugurError:
                tally["failed"] += 1
                continue
            painted = copy.deepcopy(profile)
            paint_out_pieces(painted)
            true = later_truth.state["regions"]
            standing = set(ObservedState.from_dict(later_truth.state).centres)
            tally["tables"] += 1
            for name, calibration in (("photographed", profile), ("painted", painted)):
                read = count(DensityCounter(calibration).detect(later), calibration.geometry)
                got = read.to_dict()["regions"]
                wrong = [r for r in calibration.geometry.region_ids if (true.get(r) or {}) != (got.get(r) or {})]
                tally[f"{name}_right"] += len(calibration.geometry.region_ids) - len(wrong)
                tally[f"{name}_wrong_unasked"] += sum(read.confidence_of(r) >= LOW_CONFIDENCE for r in wrong)
                tally[f"{name}_regions"] += len(calibration.geometry.region_ids)
                centres = set(read.centres)
                tally[f"{name}_centres_read"] += len(centres & standing)
                tally[f"{name}_centres_asked"] += sum(read.confidence_of(r) < LOW_CONFIDENCE for r in centres & standing)
                tally[f"{name}_phantoms"] += len(centres - standing)
                tally[f"{name}_phantoms_asked"] += sum(read.confidence_of(r) < LOW_CONFIDENCE
                                                       for r in centres - standing)
            tally["centres_standing"] += len(standing)
            if progress is not None:
                progress(tier, i + 1, n)
        results[tier] = dict(tally)
        print(describe(tier, tally))
    return results


def describe(tier: str, t: Counter) -> str:
    """One line of a tier's figures."""
    if not t["tables"]:
        return f"[{tier}] no table calibrated ({t['failed']} failed, {t['no_centres']} without {MIN_CENTRES} centres)"

    def both(key: str) -> str:
        return f"{t[f'painted_{key}']} | {t[f'photographed_{key}']}"
    painted, photographed = (100 * t[f"{name}_right"] / t[f"{name}_regions"] for name in ("painted", "photographed"))
    skipped = (f"; {t['failed']} calibration photos refused" if t["failed"] else "") + \
              (f"; {t['no_centres']} tables whose game never held {MIN_CENTRES} centres" if t["no_centres"] else "")
    tables = f"{t['tables']} table{'s' if t['tables'] != 1 else ''}"
    return (f"[{tier}] {tables} calibrated with the game laid out and read on a later state, painted out "
            f"| as photographed: regions right {painted:.1f}% | {photographed:.1f}%, read wrong with no check asked "
            f"{both('wrong_unasked')}; of {t['centres_standing']} power "
            f"centres standing, read {both('centres_read')} (asked about {both('centres_asked')}); centres read where "
            f"none stands {both('phantoms')}, "
            f"asked about on the dashboard {both('phantoms_asked')}{skipped}")
