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
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path

import numpy as np

from tracker.errors import AugurError
from vision.onnx_models import input_dtype, onnx_session

#: Side of the square window (network input pixels) the classifier sees around a summit: a
#: legionary spans about ten input pixels at the counting scale, and a tilted vexillum's flag
#: stands up to about two legionary widths away from its base.
PATCH = 48
#: The classifier's pieces classes: 0, 1, 2, and 3 or more pieces at a summit.
PIECE_CLASSES = 4
#: A summit is a vexillum when the classifier's probability reaches this (a false vexillum costs
#: nine legionaries, so it must be sure). Tuned on the validation tables (seed 5150, 200 per tier)
#: with session 13's classifier read once: at 0.9 it found 109 / 56 / 17 of the 118 / 103 / 101
#: vexilla in view (easy / medium / hard) with 8 / 14 / 17 false ones, at 0.95 106 / 46 / 10 with
#: 5 / 6 / 7, at 0.98 101 / 41 / 8 with 1 / 4 / 1, and 0.98 was chosen. The doubtful summits are
#: now read in four views (:data:`VIEWS`), whose mean probability is less extreme; on the
#: validation tables of session 18 (seed 5150, 100 per tier) the vexillum cells missed / false
#: were 2 / 0, 35 / 2 and 54 / 0 at 0.98 and 1 / 0, 21 / 3 and 43 / 0 at 0.9 (of 71 / 71 / 64
#: cells holding one), and the regions read right 98.98 / 96.05 / 87.26 % against 99.00 / 96.23 /
#: 87.42 % (0.85: 99.00 / 96.26 / 87.40; 0.95: 98.98 / 96.21 / 87.33). Checked again in session
#: 106 with the shipped networks and the summit-count model (seed 5150, the first 100 tables per
#: tier, regions right against 0.9, easy / medium / hard): 0.8 read +0 / +3 / -4 regions (on the
#: print, medium / hard: -1 / -2), 0.7 +0 / +4 / -10 (-4 / -3), 0.6 +0 / +2 / -21 (-7 / -5), 0.5
#: -2 / -4 / -38 (-17 / -17): the vexilla still missed on hard tables are not near the threshold.
VEXILLUM_P = 0.9
#: A summit's pieces are the classifier's count, instead of the one read from its basin's mass,
#: when the classifier gives that count at least this probability. Tuned there too (vexilla at
#: 0.95): at 0.5 the regions read right were 96.43 / 90.20 / 77.26 % (easy / medium / hard), at
#: 0.6 96.56 / 90.50 / 77.67, at 0.7 96.67 / 90.69 / 77.69, at 0.8 96.68 / 90.53 / 77.23.
#: Swept again for the classifier of session 20 read in four views: 0.65 / 0.7 / 0.75 read
#: 98.91 / 99.00 / 98.96 % (easy), 96.26 / 96.23 / 96.19 (medium), 87.32 / 87.42 / 87.07 (hard).
PIECES_P = 0.7
#: A trireme summit's triremes are the hull classifier's count, instead of one, when it gives that
#: count at least this probability; a sea whose every summit it was sure of is not capped by its
#: trireme mass. Tuned on the validation tables (seed 5150, 200 per tier): the regions read right
#: (easy / medium / hard) were 96.69 / 90.72 / 77.67 % without it, 96.91 / 91.63 / 78.58 at 0.5,
#: 97.18 / 91.72 / 78.55 at 0.7, 97.37 / 91.77 / 78.54 at 0.8, 97.43 / 91.68 / 78.44 at 0.9,
#: 97.24 / 91.61 / 78.30 at 0.95; with the cap kept everywhere, 96.84 / 91.41 / 78.16 at 0.7, and
#: without any cap 97.31 / 91.70 / 78.50 at 0.9. Checked again in session 106 with the shipped
#: networks (seed 5150, the first 100 tables per tier, regions right against 0.8, easy / medium /
#: hard): 0.9 read +1 / +0 / -7 (on the print, medium / hard: -4 / -1), 0.7 +1 / +3 / -3 (-1 / -4),
#: 0.6 +0 / -2 / -15 (-6 / -11), 0.5 -3 / -6 / -21 (-9 / -11).
HULLS_P = 0.8
#: A trireme summit of a sea within a province's spill reach is a pile spilled off the province
#: (see ``DensityCounter._spilled_piles``) when the hull classifier gives at least
#: SPILL_NO_TRIREME_P of no trireme standing there and the summit classifier at least
#: SPILL_PIECES_P of a piece standing there. At such summits of the validation tables (seed 5150,
#: 100 per tier) the hull classifier's median probability of none was 0.89 where a legionary stood
#: and 0.00 where a trireme did (90th percentile 0.12), and the summit classifier's median
#: probability of a piece 0.95 and 0.04. Tuned on the regions read right there (easy / medium /
#: hard): 99.00 / 96.23 / 87.42 % without, 99.19 / 96.68 / 87.74 at 0.3 and 0.8, 99.19 / 96.70 /
#: 87.68 at 0.3 and 0.7, 99.12 / 96.42 / 87.53 at 0.7 with no summit classifier's word, 99.16 /
#: 96.46 / 87.65 at 0.5 and 0.5, 99.21 / 96.68 / 87.72 at 0.1 and 0.8, 99.19 / 96.63 / 87.70 at
#: 0.4 and 0.7.
SPILL_NO_TRIREME_P = 0.3
SPILL_PIECES_P = 0.8
#: A summit the classifier is in doubt about is read again in these views of its window (mirrored
#: left to right, turned half round, and both; it was trained on all of them) and the readings
#: averaged: one reading of a blurred, noisy window is a guess its mirror image may not share. On
#: the validation tables of session 18 (seed 5150, 100 per tier; VEXILLUM_P 0.9) the regions read
#: right went from 98.84 / 96.12 / 86.46 % (easy / medium / hard) to 99.00 / 96.23 / 87.42 %. With
#: VEXILLUM_P at 0.98, all eight quarter turns and mirror images read 98.77 / 96.05 / 87.09 %, four
#: views 98.89 / 95.96 / 87.16 %; the hull classifier gained nothing from them (four views of its
#: windows as well read 87.16 % on hard, against 87.25 % without).
VIEWS = 4
#: ...a summit is in doubt when its likeliest count has less than this probability, or its
#: vexillum probability lies between FLAG_DOUBT and this. On the validation tables 11 % of the
#: windows of medium tables are, and 49 % of hard ones; reading them again costs about 8 ms a frame
#: at the median on hard tables (the reading's p95 went from 23 to 41 ms). At 0.99 (where the
#: figures above were measured) 22 % and 76 % of them were, the reading's p95 was 50 ms, and the
#: regions read right were 99.19 / 96.68 / 87.70 % against 99.18 / 96.67 / 87.68 % here, with
#: the spilled piles (0.9: 96.72 / 87.53 % on medium and hard).
DOUBT = 0.95
FLAG_DOUBT = 0.05
#: ...and at most this many windows of a frame are read again, the least certain first (see
#: ``SummitReading.certainty``), so that a crowded, blurred frame costs no more than about 8 ms
#: over a single reading. On the validation tables of hard tables the reading took 31 / 42 ms
#: (p50 / p95) and read 88.47 % of the regions right, against 32 / 51 ms and 88.65 % with no
#: limit, 27 / 38 ms and 88.23 % at 32, and 23 / 30 ms and 87.49 % with one view (easy and
#: medium: within 0.01 points of no limit). A first bench without the limit put the detection
#: p95 of hard tables filmed at 1920 x 1080 at 157 ms in a slow hour.
AGAIN_AT_MOST = 48

DEFAULT_SUMMITS = Path(__file__).resolve().parents[1] / "models" / "pieces-summits.onnx"
#: The hull classifier: the same kind of network, without the vexillum output, at the trireme
#: summits of seas (how many triremes stand there).
DEFAULT_HULLS = DEFAULT_SUMMITS.with_name("pieces-hulls.onnx")


class SummitModelError(AugurError):
    """The summit classifier's file is unreadable."""


def patches(planes: np.ndarray, points: np.ndarray, size: int = PATCH) -> np.ndarray:
    """The ``size`` x ``size`` windows of ``planes`` (C x H x W network input) centred on each of
    ``points`` (N x 2 input pixels, x and y; the centre is pixel ``size // 2`` of the window), as
    N x C x size x size of the planes' own type; zero beyond the input's edge."""
    c, h, w = planes.shape
    out = np.zeros((len(points), c, size, size), planes.dtype)
    half = size // 2
    for i, (x, y) in enumerate(np.asarray(points, np.int64).reshape(-1, 2)):
        x0, y0 = int(x) - half, int(y) - half
        sx0, sy0 = max(0, x0), max(0, y0)
        sx1, sy1 = min(w, x0 + size), min(h, y0 + size)
        if sx1 > sx0 and sy1 > sy0:
            out[i, :, sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = planes[:, sy0:sy1, sx0:sx1]
    return out


#: The classifier sees the counting network's six input planes and, in a seventh, where the
#: other candidate summits stand: the pieces a summit stands for are those nearer to it than to
#: any other, which its window alone cannot tell.
CHANNELS = 7
#: A summit is marked in the seventh plane as a MARK x MARK square of 255.
MARK = 3


def summit_marks(points: np.ndarray, centres: np.ndarray, size: int = PATCH, dtype=np.float32) -> np.ndarray:
    """N x 1 x size x size windows (of ``dtype``) centred on each of ``centres`` (N x 2 input
    pixels) marking every one of ``points`` (M x 2, the summits read in the same frame, the
    centres among them) that falls inside; the centre pixel of a window is ``size // 2``, as in
    :func:`patches`."""
    centres = np.asarray(centres, np.int64).reshape(-1, 2)
    points = np.asarray(points, np.int64).reshape(-1, 2)
    out = np.zeros((len(centres), 1, size, size), dtype)
    if not len(centres) or not len(points):
        return out
    rel = points[None, :, :] - centres[:, None, :] + size // 2          # N x M x 2
    for d in range(-(MARK // 2), MARK - MARK // 2):
        for e in range(-(MARK // 2), MARK - MARK // 2):
            x, y = rel[..., 0] + d, rel[..., 1] + e
            inside = (x >= 0) & (x < size) & (y >= 0) & (y < size)
            n, _ = np.nonzero(inside)
            out[n, 0, y[inside], x[inside]] = 255
    return out


def windows(planes: np.ndarray, points: np.ndarray, size: int = PATCH, among: np.ndarray | None = None) -> np.ndarray:
    """The classifier's input for each of ``points``: its window of the six planes and the
    marks of all the frame's summits, ``among`` (``points`` themselves by default; N x CHANNELS x
    size x size, of the planes' type: uint8 from the shipped counter's input)."""
    marked = points if among is None else among
    return np.concatenate([patches(planes, points, size), summit_marks(marked, points, size, planes.dtype)], axis=1)


@dataclass(eq=False)
class SummitWindows:
    """The classifiers' input at some of a reading's summits: ``centres`` (N x 2 input pixels,
    the summits read) among ``points`` (every summit of the reading, marked in the windows).

    Why an object: the summit classifier and the knocked-over piece classifier read the same
    windows at the same summits. Cutting them (:func:`windows`) takes 0.7 to 0.9 ms for the
    hundred-odd province summits of a hard table on a 2-core CPU (session 121), against 5.6 ms for
    the knocked-over piece classifier's reading of them (6.2 ms on an easy table's). The windows
    are cut once, when a classifier first asks for :attr:`array`."""

    planes: np.ndarray
    points: np.ndarray
    centres: np.ndarray

    @classmethod
    def at(cls, planes: np.ndarray, points: np.ndarray, only: np.ndarray | None = None) -> "SummitWindows":
        """The windows at ``points`` (N x 2) of ``planes``, or at ``only`` (indices into ``points``)."""
        return cls(planes, points, points if only is None else points[only])

    def __len__(self) -> int:
        return len(self.centres)

    @cached_property
    def array(self) -> np.ndarray:
        """N x CHANNELS x PATCH x PATCH, of the planes' type (see :func:`windows`)."""
        return windows(self.planes, self.centres, among=self.points)


@dataclass(frozen=True)
class SummitReading:
    """The classifier's word on N summits: p(vexillum) (N; zero from the hull classifier, which
    has no such output) and p(0, 1, 2, 3+ pieces) (N x 4)."""

    vexillum: np.ndarray
    pieces: np.ndarray

    @classmethod
    def from_logits(cls, logits: np.ndarray) -> "SummitReading":
        """From N x 5 logits (vexillum, then the pieces classes) or N x 4 (the pieces classes alone)."""
        logits = np.asarray(logits, np.float64)
        logits = logits.reshape(-1, logits.shape[-1] if logits.ndim == 2 else 1 + PIECE_CLASSES)
        if logits.shape[1] not in (PIECE_CLASSES, 1 + PIECE_CLASSES):
            raise SummitModelError(f"a summit classifier gives {PIECE_CLASSES} or {1 + PIECE_CLASSES} scores a "
                                   f"window, not {logits.shape[1]}")
        has_flag = logits.shape[1] == 1 + PIECE_CLASSES
        vex = 1.0 / (1.0 + np.exp(-np.clip(logits[:, 0], -50, 50))) if has_flag else np.zeros(len(logits))
        pieces = logits[:, -PIECE_CLASSES:]
        e = np.exp(pieces - pieces.max(axis=1, keepdims=True))
        return cls(vex, e / e.sum(axis=1, keepdims=True))

    def take(self, which) -> "SummitReading":
        """The readings of some summits (an index array or a slice)."""
        return SummitReading(self.vexillum[which], self.pieces[which])

    def certainty(self) -> np.ndarray:
        """How sure the reading is of each summit: the lesser of its likeliest count's probability
        and its vexillum call's (the probability of the flag, or of no flag, whichever is higher)."""
        return np.minimum(self.pieces.max(axis=1), np.maximum(self.vexillum, 1.0 - self.vexillum))

    def in_doubt(self) -> np.ndarray:
        """Which summits are worth reading in more views (DOUBT, FLAG_DOUBT)."""
        flag = (self.vexillum > FLAG_DOUBT) & (self.vexillum < DOUBT)
        return (self.pieces.max(axis=1) < DOUBT) | flag

    @classmethod
    def mean(cls, readings: list["SummitReading"]) -> "SummitReading":
        """The readings' mean probabilities (of the same summits)."""
        return cls(np.mean([r.vexillum for r in readings], axis=0), np.mean([r.pieces for r in readings], axis=0))

    def sure_pieces(self, at_least: float = PIECES_P) -> np.ndarray:
        """The count at each summit where the classifier is sure of it, -1 elsewhere."""
        return np.where(self.pieces.max(axis=1) >= at_least, self.pieces.argmax(axis=1), -1)


def other_views(win: np.ndarray) -> list[np.ndarray]:
    """The windows (N x C x P x P) mirrored left to right, turned half round, and upside down
    (turned half round and mirrored): the VIEWS - 1 views read besides the window itself."""
    return [win[..., ::-1], win[..., ::-1, ::-1], win[..., ::-1, :]]


class SummitClassifier:
    """Reads summits with an ONNX model: input N x CHANNELS x PATCH x PATCH (0..255), output
    N x 5 logits (vexillum, then 0, 1, 2, 3+ pieces), or N x 4 (the hull classifier).

    ``views``: 1 reads each window once; VIEWS reads the windows in doubt again in
    :func:`other_views` and averages (see VIEWS)."""

    def __init__(self, path: Path, threads: int | None = None, session=None, what: str = "summit classifier",
                 views: int = 1):
        if views not in (1, VIEWS):
            raise ValueError(f"views must be 1 or {VIEWS}, not {views}")
        self.path = Path(path)
        self.session = session or onnx_session(self.path.resolve(), threads, SummitModelError, what)
        self.input_name = self.session.get_inputs()[0].name
        self.dtype = input_dtype(self.session, SummitModelError)
        self.views = views

    def read(self, planes: np.ndarray, points: np.ndarray, only: np.ndarray | None = None) -> SummitReading:
        """The classifier's word at each input pixel of ``points`` (N x 2), read from ``planes``;
        with ``only`` (indices into ``points``), at those points alone, every point still marked
        in their windows."""
        return self.read_windows(SummitWindows.at(planes, points, only))

    def read_windows(self, cut: SummitWindows) -> SummitReading:
        """The classifier's word at each of ``cut``'s summits."""
        if not len(cut):
            return SummitReading(np.zeros(0), np.zeros((0, PIECE_CLASSES)))
        win = cut.array
        seen = self._run(win)
        doubt = np.flatnonzero(seen.in_doubt()) if self.views > 1 else np.zeros(0, np.int64)
        if not len(doubt):
            return seen
        if len(doubt) > AGAIN_AT_MOST:          # the most doubtful first
            doubt = np.sort(doubt[np.argsort(seen.certainty()[doubt], kind="stable")[:AGAIN_AT_MOST]])
        # the other views of the windows in doubt, in one batch
        views = other_views(win[doubt])
        again = self._run(np.ascontiguousarray(np.concatenate(views)))
        n = len(doubt)
        mean = SummitReading.mean([seen.take(doubt)] + [again.take(slice(j * n, (j + 1) * n)) for j in range(len(views))])
        vexillum, pieces = seen.vexillum.copy(), seen.pieces.copy()
        vexillum[doubt], pieces[doubt] = mean.vexillum, mean.pieces
        return SummitReading(vexillum, pieces)

    def _run(self, win: np.ndarray) -> SummitReading:
        # the windows are whole pixels (0..255) either way: a float export gets them as float
        return SummitReading.from_logits(self.session.run(None, {self.input_name: win.astype(self.dtype, copy=False)})[0])


class SummitMemory:
    """The classifiers' word at the summits of the last reading, by output cell, for a counter
    that reads again only part of a frame (:mod:`vision.partial`). A summit whose window lies
    wholly outside that part shows the pixels it showed, and the same summits around it, so its
    word stands; the others are read again. Most of a hard table's reading is the summit
    classifier's (58 of 68 ms on a 2-core CPU without VNNI, session 46).

    One memory serves every classifier that reads the same summits (the summit classifier and
    the knocked-over piece classifier, at a province's legionary summits): they agree on which
    summits stand, and the windows of the others are cut once for all of them
    (:class:`SummitWindows`). A classifier reads with ``read_windows`` and gives a frozen
    dataclass of arrays, one row a summit, with ``take`` (a :class:`SummitReading`, a
    :class:`vision.lying.LyingReading`)."""

    def __init__(self):
        self.cells = np.zeros(0, np.int64)          # sorted
        self.readings: dict = {}                    # classifier -> its reading, rows by self.cells

    def read(self, classifiers, planes: np.ndarray, points: np.ndarray, cells: np.ndarray,
             standing: np.ndarray | None = None) -> list:
        """Each of ``classifiers``' word at ``points`` (N x 2 input pixels) of output ``cells`` (N,
        flat indices), in their order; ``standing`` (N booleans, None for none) marks the points
        whose word, if there is one from the last reading at the same cell, stands. A classifier
        that did not read last time has no word to keep, so then every summit is read."""
        classifiers = list(classifiers)
        cells = np.asarray(cells, np.int64)
        known = np.zeros(len(cells), bool)
        pos = np.zeros(len(cells), np.int64)
        if standing is not None and len(self.cells) and len(cells) and all(c in self.readings for c in classifiers):
            pos = np.minimum(np.searchsorted(self.cells, cells), len(self.cells) - 1)
            known = standing & (self.cells[pos] == cells)
        cut = SummitWindows.at(planes, points, np.flatnonzero(~known) if known.any() else None)
        readings = [_stitched(len(cells), known, self.readings[c].take(pos[known]), c.read_windows(cut))
                    if known.any() else c.read_windows(cut) for c in classifiers]
        order = np.argsort(cells, kind="stable")
        self.cells = cells[order]
        self.readings = {c: reading.take(order) for c, reading in zip(classifiers, readings)}
        return readings


def _stitched(n: int, known: np.ndarray, kept, fresh):
    """A reading of ``n`` summits: ``kept``'s rows where ``known``, ``fresh``'s elsewhere (two
    readings of one type, a frozen dataclass of arrays with one row a summit)."""
    rows = {}
    for f in fields(fresh):
        new, old = getattr(fresh, f.name), getattr(kept, f.name)
        out = np.zeros((n,) + new.shape[1:], new.dtype)
        out[~known], out[known] = new, old
        rows[f.name] = out
    return type(fresh)(**rows)


def summits_for(path: Path | None = None) -> SummitClassifier | None:
    """The shipped classifier, reading the summits in doubt in VIEWS views, or None when its file is
    absent (the counter then reads summits alone)."""
    path = Path(path or DEFAULT_SUMMITS)
    return SummitClassifier(path, views=VIEWS) if path.is_file() else None


def hulls_for(path: Path | None = None) -> SummitClassifier | None:
    """The shipped hull classifier, or None when its file is absent (each trireme summit is then one)."""
    path = Path(path or DEFAULT_HULLS)
    return SummitClassifier(path, what="hull classifier") if path.is_file() else None


def model_card(path: Path | None = None) -> dict:
    card = Path(path or DEFAULT_SUMMITS).with_suffix(".json")
    return json.loads(card.read_text(encoding="utf-8")) if card.is_file() else {}
