"""``augur bench confidence``: confidence models compared on the same readings of the same tables.

Why: a confidence model (:mod:`vision.confidence`) is fitted on rendered tables that a seed draws,
and refitting the shipped one on another draw of as many tables moved the wrong regions it left
unflagged on the real print's 720 bench tables from 592 to 676 (session 117, ``models/README.md``):
more than the candidates of sessions 116 and 117 differed by. Telling two confidence models apart
therefore takes the same readings judged by both, and more than one fit of each. ``augur bench
vision`` reads every table again for each model (ten minutes a set of 120 tables here); this bench
reads each table once with the shipped networks, keeps every region's signs of doubt, and lets
each model judge them (:func:`vision.density.judge_regions`): which regions are unseen,
and how sure it is of the others. The counts then go through :func:`vision.count.count` as in
the pipeline, so each model's figures are the ones ``augur bench vision`` would print for it.

Each model is scored twice, because a model that flags more regions leaves fewer wrong ones
unflagged without telling them apart any better:

- at the dashboard's threshold (:data:`tracker.readings.LOW_CONFIDENCE`): the regions flagged for a
  check, the wrong ones among them, the wrong ones left unflagged;
- with as many regions flagged on each set as the first model flags there (each model's least
  sure): the wrong ones then left unflagged measure how well it ranks the regions alone.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from calibration.profile import calibrate
from tracker.errors import AugurError
from tracker.readings import LOW_CONFIDENCE
from tracker.state import ObservedState
from vision.confidence import (HIDDEN_FEATURES, Confidence, ConfidenceError, RegionConfidence, confidence_for,
                               hidden_for)
from vision.count import count
from vision.density import DEFAULT_COUNTER, DensityCounter, judge_regions
from vision.geometry import BoardGeometry
from vision.lying import marked_lying
from vision.records import Detections
from vision.synth.board_art import PrintedBoard, procedural_art
from vision.synth.dataset import iter_still_tables
from vision.synth.render import FRAME_SIZE, calibration_scene


@dataclass(frozen=True)
class TableReading:
    """One table read once by the shipped networks, before any confidence model judged it."""

    geometry: BoardGeometry      # the region map this table's calibration fitted
    out_of_view: frozenset[str]  # the regions its camera's frame cuts off
    detections: Detections
    signs: np.ndarray            # every region's signs of doubt, row = label value (HIDDEN_FEATURES)
    want: ObservedState          # the true state
    hidden: frozenset[str]       # the regions the camera really cannot see
    lying: frozenset[str]        # the regions where a piece lies knocked over


@dataclass(frozen=True)
class ConfidenceModels:
    """A confidence file's two models: is a region's count right, is the region hidden."""

    path: Path
    confidence: Confidence
    hidden: RegionConfidence | None      # None: a region is unseen by its cover alone


@dataclass
class Judged:
    """One model's word on a set of readings: every seen region's confidence and rightness."""

    confidence: np.ndarray
    right: np.ndarray
    lying: np.ndarray            # a piece lies knocked over there (and the region is not hidden)
    unseen_hidden: int = 0       # regions marked unseen that the camera really cannot see
    unseen_visible: int = 0      # regions marked unseen that it can

    def unflagged_wrong(self, flagged: np.ndarray) -> int:
        return int((~self.right & ~flagged).sum())

    def at_threshold(self, threshold: float = LOW_CONFIDENCE) -> np.ndarray:
        return self.confidence < threshold

    def least_sure(self, k: int) -> np.ndarray:
        """The ``k`` regions it is least sure of (ties broken by reading order), flagged."""
        flagged = np.zeros(len(self.confidence), bool)
        flagged[np.argsort(self.confidence, kind="stable")[:max(k, 0)]] = True
        return flagged


def load_models(path: Path, counter_path: Path = DEFAULT_COUNTER) -> ConfidenceModels:
    """Both models of a confidence file fitted for the network at ``counter_path``; a clear error
    when the file is missing, unreadable or fitted for another network."""
    path = Path(path)
    if not path.is_file():
        raise ConfidenceError(f"confidence model not found: {path}")
    counter_path = Path(counter_path).resolve()
    confidence = confidence_for(counter_path, path.resolve())
    if confidence is None:
        raise ConfidenceError(f"{path} was fitted for another counting network than {counter_path.name}")
    return ConfidenceModels(path, confidence, hidden_for(counter_path, path.resolve()))


def read_tables(tier: str, n: int, seed: int, board_print: PrintedBoard | None = None, toppled: float = 0.0,
                counter_path: Path = DEFAULT_COUNTER, progress=None) -> list[TableReading]:
    """The bench's tables of a tier (as ``augur bench vision`` renders and calibrates them), each
    read once by the counting network at ``counter_path`` and the shipped classifiers, with no
    confidence or hidden-region model. A table whose board was not found is left out (it has no
    regions to judge)."""
    from vision.bench import hidden_regions, lying_regions
    art = procedural_art()
    print_art, board_map = PrintedBoard.parts(board_print)
    readings = []
    for i, img, truth, _ in iter_still_tables(tier, n, seed, FRAME_SIZE, art=print_art, geometry=board_map,
                                              toppled=toppled):
        cal_img, _ = calibration_scene(truth, print_art)
        try:
            profile = calibrate(cal_img, art, players=truth.players)
        except AugurError:
            profile = None
        if profile is not None:
            counter = DensityCounter(profile, model=counter_path, confidence=None, hidden=None)
            det, signs = counter.reading(counter.predict(img))
            readings.append(TableReading(profile.geometry, counter.out_of_view, det, signs,
                                         ObservedState.from_dict(truth.state), frozenset(hidden_regions(truth)),
                                         frozenset(lying_regions(truth))))
        if progress:
            progress(tier, i + 1, n)
    return readings


def judge(readings: list[TableReading], models: ConfidenceModels) -> Judged:
    """Every reading judged by ``models`` and counted as the pipeline counts it (unseen regions
    left out of the confidence figures, as ``augur bench vision`` leaves them)."""
    confidence, right, lying = [], [], []
    unseen_hidden = unseen_visible = 0
    for reading in readings:
        geo = reading.geometry
        unseen, region_confidence = judge_regions(geo.region_ids, reading.out_of_view, reading.signs,
                                                  reading.signs[:, HIDDEN_FEATURES.index("cover")],
                                                  models.confidence, models.hidden)
        # a piece seen lying holds its region's confidence down whatever the model (vision.lying)
        marked, region_confidence = marked_lying(region_confidence, reading.detections.lying, unseen)
        det = replace(reading.detections, unseen=unseen, region_confidence=region_confidence, lying=marked)
        got = count(det, geo, det.unseen)
        for r in geo.region_ids:
            if r in got.unseen:
                unseen_hidden += r in reading.hidden
                unseen_visible += r not in reading.hidden
                continue
            confidence.append(got.confidence_of(r))
            right.append(got.regions.get(r, {}) == reading.want.regions.get(r, {}))
            lying.append(r in reading.lying and r not in reading.hidden)
    return Judged(np.array(confidence, float), np.array(right, bool), np.array(lying, bool),
                  unseen_hidden, unseen_visible)


@dataclass(frozen=True)
class Score:
    """One model on one set: what a player sees at the threshold, and at the first model's flag count."""

    regions: int
    wrong: int
    flagged: int
    unflagged_wrong: int
    matched_unflagged_wrong: int
    knocked_unflagged_wrong: int
    unseen_hidden: int
    unseen_visible: int


def score(judged: Judged, flag_count: int | None = None, threshold: float = LOW_CONFIDENCE) -> Score:
    """``judged`` at ``threshold``, and with ``flag_count`` regions flagged (its own count when None)."""
    flagged = judged.at_threshold(threshold)
    matched = judged.least_sure(int(flagged.sum()) if flag_count is None else flag_count)
    return Score(len(judged.right), int((~judged.right).sum()), int(flagged.sum()), judged.unflagged_wrong(flagged),
                 judged.unflagged_wrong(matched), int((~judged.right & ~flagged & judged.lying).sum()),
                 judged.unseen_hidden, judged.unseen_visible)


def compare(readings: list[TableReading], models: list[ConfidenceModels]) -> list[Score]:
    """Every model scored on the same readings, the flag count matched to the first model's."""
    judged = [judge(readings, m) for m in models]
    first = int(judged[0].at_threshold().sum())
    return [score(j, first) for j in judged]


def describe_score(s: Score) -> str:
    share = 100 * s.flagged / max(s.regions, 1)
    return (f"{share:.1f}% flagged ({s.flagged} of {s.regions} seen regions), {s.wrong - s.unflagged_wrong} of the "
            f"{s.wrong} wrong among them, {s.unflagged_wrong} wrong left unflagged ({s.knocked_unflagged_wrong} "
            f"with a piece knocked over); at the first model's flag count {s.matched_unflagged_wrong}; marked "
            f"unseen {s.unseen_hidden} really hidden, {s.unseen_visible} visible")


def run_confidence_bench(paths: list[Path], n: int, tiers, seed: int, board_print: PrintedBoard | None = None,
                         toppled: float = 0.0, progress=None) -> dict[str, list[Score]]:
    """Read each tier's ``n`` bench tables once and print every model's figures on them, tier by
    tier and summed; returns the scores per tier (and "all"), in the order of ``paths``."""
    models = [load_models(p) for p in paths]
    results: dict[str, list[Score]] = {}
    for tier in tiers:
        results[tier] = compare(read_tables(tier, n, seed, board_print, toppled, progress=progress), models)
        for m, s in zip(models, results[tier]):
            print(f"[{tier}] {m.path}: {describe_score(s)}", flush=True)
    results["all"] = [Score(*(sum(getattr(results[t][k], f) for t in tiers) for f in Score.__dataclass_fields__))
                      for k in range(len(models))]
    for m, s in zip(models, results["all"]):
        print(f"[all] {m.path}: {describe_score(s)}")
    return results

