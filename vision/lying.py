"""A third small look at each legionary summit of a province: does a piece lie knocked over there?

Why: pieces get knocked over in long battles, and the counting network learnt its pieces
standing. It gives a legionary lying on its side about two pieces' mass, and the summit
classifier mends only part of that: on rendered tables with a twentieth of the pieces knocked
over, 14 / 26 / 33 % of the regions holding one were still read wrong (easy / medium / hard;
models/README.md, sessions 113 to 116), and CPU fine-tunes of the counting network on such
tables cost the standing tables what they gained. A count cannot be trusted there, but the
table can mend it at once: stand the piece up. So this classifier does not count. It says where
a piece seems to lie, the counter marks that region (its confidence held under the dashboard's
check level, :data:`LYING_CONFIDENCE`), and the dashboard asks the players to stand it up; the
next still frame then counts it standing.

It sees the summit classifier's input, the same window around the same summits
(:class:`vision.summits.SummitWindows`), and gives one probability: that a knocked-over piece is the
nearest piece to the summit. It is trained (``augur train-lying``, the ``[train]`` extra) on
rendered tables half of which have pieces knocked over (:mod:`vision.lying_train`) and runs with
onnxruntime. It is optional: without its file the counter marks nothing.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from tracker.errors import AugurError
from tracker.readings import LOW_CONFIDENCE
from vision.onnx_models import input_dtype, onnx_session
from vision.summits import SummitWindows

DEFAULT_LYING = Path(__file__).resolve().parents[1] / "models" / "pieces-lying.onnx"

#: A region holds a knocked-over piece when the classifier gives one of its summits at least this
#: probability. Chosen on validation tables (seed 5150, 100 a tier, half on the print, a tenth of
#: the pieces knocked over on half of them; scratch ``valsweep.py``, session 120) for session
#: 120's classifier: at 0.9 the regions holding a lying piece found were 372 / 365 / 137 of 398 /
#: 491 / 408 (easy / medium / hard) and the regions called so on the tables where every piece
#: stood 4 / 13 / 13 (on 58 / 46 / 59 tables); at 0.95, 359 / 332 / 108 and 3 / 7 / 5; at 0.98,
#: 338 / 285 / 79 and 1 / 5 / 1. Most false calls were on the print. A false "stand it up" costs
#: the players a look and teaches them to ignore the next one; a missed one leaves a count the
#: confidence still flags seven times in ten when it is wrong. 0.9 asked on a standing hard print
#: table one time in four on the bench. Checked again for session 121's wider classifier, trained
#: on more hard tables (the same windows; scratch ``/work/out/s121/valsweep.py``): at 0.9, 386 /
#: 424 / 195 found and 1 / 7 / 14 false; at 0.95, 381 / 403 / 167 and 1 / 2 / 6; at 0.97, 377 /
#: 383 / 151 and 1 / 0 / 4; at 0.98, 372 / 362 / 134 and 1 / 0 / 2. From 0.97 to 0.95 it finds
#: 40 more regions for 5 more false calls (on the tables with pieces knocked over too), from 0.95
#: to 0.9 54 more for 21 more; session 120 turned down 0.9's 75 more found for its 30 more false
#: calls, about the same trade, so 0.95 stands. Session 122's fine-tune of it (more hard tables):
#: at 0.9, 388 / 424 / 200 found and 2 / 4 / 15 false; at 0.95, 384 / 412 / 181 and 2 / 1 / 3; at
#: 0.97, 380 / 397 / 163 and 1 / 1 / 3; at 0.98, 380 / 386 / 155 and 1 / 0 / 0. From 0.97 to 0.95
#: it finds 37 more for 2 more false calls (on both kinds of table), from 0.95 to 0.9 35 more for
#: 19 more: 0.95 stands.
LYING_P = 0.95
#: ...and the region's confidence is then at most this: below the dashboard's check level
#: (:data:`tracker.readings.LOW_CONFIDENCE`), so the tracker weighs its count as one in doubt.
LYING_CONFIDENCE = round(LOW_CONFIDENCE / 2, 2)


class LyingModelError(AugurError):
    """The knocked-over piece classifier's file is unreadable."""


@dataclass(frozen=True)
class LyingReading:
    """The classifier's word on N summits: the probability that a piece lies knocked over there."""

    lying: np.ndarray

    @classmethod
    def empty(cls) -> "LyingReading":
        return cls(np.zeros(0))

    def take(self, which) -> "LyingReading":
        """The readings of some summits (an index array or a slice)."""
        return LyingReading(self.lying[which])


class LyingClassifier:
    """Reads summits with an ONNX model: input N x CHANNELS x PATCH x PATCH (0..255, the summit
    classifier's windows), output N x 1 logits."""

    def __init__(self, path: Path, threads: int | None = None):
        self.path = Path(path)
        self.session = onnx_session(self.path.resolve(), threads, LyingModelError, "knocked-over piece classifier")
        self.input_name = self.session.get_inputs()[0].name
        self.dtype = input_dtype(self.session, LyingModelError)

    def read(self, planes: np.ndarray, points: np.ndarray, only: np.ndarray | None = None) -> LyingReading:
        """The classifier's word at each input pixel of ``points`` (N x 2) of ``planes``; with
        ``only`` (indices into ``points``), at those alone, every point still marked in their windows."""
        return self.read_windows(SummitWindows.at(planes, points, only))

    def read_windows(self, cut: SummitWindows) -> LyingReading:
        """The classifier's word at each of ``cut``'s summits: the summit classifier's windows,
        cut once for both in the counter (:class:`vision.summits.SummitMemory`)."""
        return LyingReading(self._probabilities(cut.array)) if len(cut) else LyingReading.empty()

    def _probabilities(self, win: np.ndarray) -> np.ndarray:
        """The probability of a lying piece in each window (N x CHANNELS x PATCH x PATCH, 0..255)."""
        logits = np.asarray(self.session.run(None, {self.input_name: win.astype(self.dtype, copy=False)})[0],
                            np.float64).reshape(len(win), -1)
        if logits.shape[1] != 1:
            raise LyingModelError(f"a knocked-over piece classifier gives 1 score a window, not {logits.shape[1]}")
        return 1.0 / (1.0 + np.exp(-np.clip(logits[:, 0], -50, 50)))


def lying_regions(lying: np.ndarray, region: np.ndarray, at_least: float = LYING_P) -> set[int]:
    """The region labels (``region``, one per summit) with a summit whose ``lying`` probability
    reaches ``at_least``."""
    return {int(r) for r in np.asarray(region)[np.asarray(lying) >= at_least] if r > 0}


def marked_lying(region_confidence: Mapping[str, float], lying: frozenset[str],
                 unseen: frozenset[str]) -> tuple[frozenset[str], dict[str, float]]:
    """The seen regions of ``lying``, and ``region_confidence`` with theirs held at
    LYING_CONFIDENCE or under: a count the camera cannot trust until the piece stands."""
    lying = frozenset(lying) - unseen
    return lying, {**region_confidence, **{r: min(region_confidence.get(r, 1.0), LYING_CONFIDENCE) for r in lying}}


def lying_for(path: Path | None = None) -> LyingClassifier | None:
    """The shipped classifier, or None when its file is absent (the counter then marks nothing)."""
    path = Path(path or DEFAULT_LYING)
    return LyingClassifier(path) if path.is_file() else None


def model_card(path: Path | None = None) -> dict:
    card = Path(path or DEFAULT_LYING).with_suffix(".json")
    return json.loads(card.read_text(encoding="utf-8")) if card.is_file() else {}
