"""A second look at each legionary summit of a province: is it a vexillum, and how many pieces stand there?

Why a second, small network: the counting network reads a province's pieces from the summits of
its density map, and two of its mistakes cannot be fixed from those maps.

- A vexillum (worth ten legionaries) stands only in big piles and is about one piece in a
  hundred. The counting network puts a summit on it like on any legionary but never scores its
  kind highest there, so every vexillum was read as one legionary and its province's strength
  came out nine short. A probe of the counting network's last features told vexilla from
  legionaries at an AUC of only 0.65: its half-resolution maps have lost the thin flag.
- Two touching legionaries far from the camera often merge into one summit, and a near one can
  show two; the basin's mass tells them apart only roughly.

This classifier looks at the counting network's own input (frame and empty reference, six
planes) at full resolution, in a PATCH-pixel window around each legionary summit of a province,
and gives the probability that a vexillum stands there and how many pieces (0, 1, 2, 3 or more)
stand nearer to it than to any other summit. The counter takes its word only where it is sure
(VEXILLUM_P, PIECES_P, tuned on validation renders).

It is trained (``augur train-summits``, needs the ``[train]`` extra) on the summits the shipped
counting network finds on rendered tables, labelled by the rendered pieces, and runs with
onnxruntime (no torch at run time). It is optional: without its file the counter reads every
summit as before.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tracker.errors import AugurError
from vision.onnx_models import onnx_session

#: Side of the square window (network input pixels) the classifier sees around a summit: a
#: legionary spans about ten input pixels at the counting scale, and a tilted vexillum's flag
#: stands up to about two legionary widths away from its base.
PATCH = 48
#: The classifier's pieces classes: 0, 1, 2, and 3 or more pieces at a summit.
PIECE_CLASSES = 4
#: A summit is a vexillum when the classifier's probability reaches this (a false vexillum costs
#: nine legionaries, so it must be sure). Tuned on the validation tables (seed 5150): at 0.8 the
#: easy ones gained 91 of 118 vexilla but 13 false ones, at 0.9 82 and 6, at 0.95 68 and 1.
VEXILLUM_P = 0.9
#: A summit's pieces are the classifier's count, instead of the one read from its basin's mass,
#: when the classifier gives that count at least this probability (tuned there too: 0.8, 0.85
#: and 0.9 read the same share of easy and medium regions right within 0.05 points, and the hard
#: ones 72.1, 71.9 and 71.6 %).
PIECES_P = 0.8

DEFAULT_SUMMITS = Path(__file__).resolve().parents[1] / "models" / "pieces-summits.onnx"


class SummitModelError(AugurError):
    """The summit classifier's file is unreadable."""


def patches(planes: np.ndarray, points: np.ndarray, size: int = PATCH) -> np.ndarray:
    """The ``size`` x ``size`` windows of ``planes`` (C x H x W network input) centred on each of
    ``points`` (N x 2 input pixels, x and y; the centre is pixel ``size // 2`` of the window), as
    N x C x size x size float32; zero beyond the input's edge."""
    c, h, w = planes.shape
    out = np.zeros((len(points), c, size, size), np.float32)
    half = size // 2
    for i, (x, y) in enumerate(np.asarray(points, np.int64).reshape(-1, 2)):
        x0, y0 = int(x) - half, int(y) - half
        sx0, sy0 = max(0, x0), max(0, y0)
        sx1, sy1 = min(w, x0 + size), min(h, y0 + size)
        if sx1 > sx0 and sy1 > sy0:
            out[i, :, sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = planes[:, sy0:sy1, sx0:sx1]
    return out


@dataclass(frozen=True)
class SummitReading:
    """The classifier's word on N summits: p(vexillum) (N) and p(0, 1, 2, 3+ pieces) (N x 4)."""

    vexillum: np.ndarray
    pieces: np.ndarray

    @classmethod
    def from_logits(cls, logits: np.ndarray) -> "SummitReading":
        logits = np.asarray(logits, np.float64).reshape(-1, 1 + PIECE_CLASSES)
        vex = 1.0 / (1.0 + np.exp(-np.clip(logits[:, 0], -50, 50)))
        e = np.exp(logits[:, 1:] - logits[:, 1:].max(axis=1, keepdims=True))
        return cls(vex, e / e.sum(axis=1, keepdims=True))

    def sure_pieces(self, at_least: float = PIECES_P) -> np.ndarray:
        """The count at each summit where the classifier is sure of it, -1 elsewhere."""
        return np.where(self.pieces.max(axis=1) >= at_least, self.pieces.argmax(axis=1), -1)


class SummitClassifier:
    """Reads summits with an ONNX model: input N x 6 x PATCH x PATCH (0..255), output N x 5
    logits (vexillum, then 0, 1, 2, 3+ pieces)."""

    def __init__(self, path: Path, threads: int | None = None, session=None):
        self.path = Path(path)
        self.session = session or onnx_session(self.path.resolve(), threads, SummitModelError, "summit classifier")
        self.input_name = self.session.get_inputs()[0].name

    def read(self, planes: np.ndarray, points: np.ndarray) -> SummitReading:
        """The classifier's word at each input pixel of ``points`` (N x 2), read from ``planes``."""
        if not len(points):
            return SummitReading(np.zeros(0), np.zeros((0, PIECE_CLASSES)))
        return SummitReading.from_logits(self.session.run(None, {self.input_name: patches(planes, points)})[0])


def summits_for(path: Path | None = None) -> SummitClassifier | None:
    """The shipped classifier, or None when its file is absent (the counter then reads summits alone)."""
    path = Path(path or DEFAULT_SUMMITS)
    return SummitClassifier(path) if path.is_file() else None


def model_card(path: Path | None = None) -> dict:
    card = Path(path or DEFAULT_SUMMITS).with_suffix(".json")
    return json.loads(card.read_text(encoding="utf-8")) if card.is_file() else {}
