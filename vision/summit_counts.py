"""How many legionaries stand at each summit: one decision from the basin's mass and the summit
classifier's probabilities together.

Until session 105 the counter took the summit classifier's count only where the classifier gave
it at least PIECES_P, and elsewhere the basin's mass alone decided (TWIN_MASS). On hard tables one
summit in seven fell to the mass, and there it was right about 70 % of the time; two touching
legionaries merged into one summit and read as one were the commonest wrong region of the hard
tier. The two signs are not redundant: the mass says how much stands there, the classifier what
it looks like. A multinomial logistic regression over both (and the legionary's size in output
cells) decides every summit the classifier read; its weights are fitted on rendered tables
(``augur fit-summit-counts``) for one counting network and one summit classifier, and the file
names both by their hashes, so that a changed network falls back to the threshold rule instead of
reading with weights fitted for another one.

numpy and scipy only; the fit takes seconds.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from tracker.errors import AugurError
from vision.confidence import file_sha256, standardised, write_card
from vision.summits import PIECE_CLASSES

#: The signs of one summit the model reads, in this order (:func:`summit_signs`).
SUMMIT_FEATURES = (
    "basin",            # the density mass of the summit's basin
    "basin_squared",    # its square, the mass capped at 4 (a pile's summit holds more than 3)
    "p0", "p1", "p2", "p3",             # the summit classifier's probability of 0, 1, 2, 3+ pieces
    "log_p0", "log_p1", "log_p2", "log_p3",
    "vexillum",         # the summit classifier's probability of a vexillum
    "across",           # a legionary's width in output cells (far cameras merge more)
)
#: The column of p0 in the signs (p1 to p3 follow it).
P0 = SUMMIT_FEATURES.index("p0")
#: Where the model file lives, beside the networks it was fitted for.
DEFAULT_SUMMIT_COUNTS = Path(__file__).resolve().parents[1] / "models" / "pieces-summit-counts.json"
#: The L2 penalty on the standardised weights (not the intercepts).
L2 = 1.0
#: Seed of the rendered tables the shipped model was fitted on: neither the networks' training
#: tables, nor the confidence's (7070 to 7074), nor the validation (5150) or bench (90210) tables.
FIT_SEED = 7171


class SummitCountsError(AugurError):
    """The summit-count model file is unreadable or does not fit this code."""


def summit_signs(basin: np.ndarray, pieces_p: np.ndarray, vexillum_p: np.ndarray, across: float) -> np.ndarray:
    """The N x len(SUMMIT_FEATURES) signs of N summits: their basins' masses, the classifier's
    probabilities of 0..3+ pieces (N x PIECE_CLASSES) and of a vexillum, and a legionary's width."""
    basin = np.asarray(basin, np.float64)
    p = np.asarray(pieces_p, np.float64).reshape(len(basin), PIECE_CLASSES)
    return np.column_stack([basin, np.minimum(basin, 4.0) ** 2, p, np.log(np.clip(p, 1e-4, 1.0)),
                            np.asarray(vexillum_p, np.float64), np.full(len(basin), float(across))])


@dataclass(frozen=True)
class SummitCounts:
    """A multinomial logistic regression over standardised :data:`SUMMIT_FEATURES`: the probability
    that 0, 1, 2 or 3+ legionaries stand at a summit."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray            # len(SUMMIT_FEATURES) x PIECE_CLASSES
    intercept: np.ndarray       # PIECE_CLASSES
    counter_sha256: str = ""
    summits_sha256: str = ""

    def probabilities(self, signs: np.ndarray) -> np.ndarray:
        z = ((np.asarray(signs, np.float64) - self.mean) / self.scale) @ self.coef + self.intercept
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def pieces(self, signs: np.ndarray, from_mass: np.ndarray) -> np.ndarray:
        """The legionaries at each summit: the likeliest class, and for "3 or more" the count the
        basin's mass gives (``from_mass``) when that is more."""
        n = self.probabilities(signs).argmax(axis=1)
        return np.where(n == PIECE_CLASSES - 1, np.maximum(n, from_mass), n)

    def to_dict(self) -> dict:
        return {"features": list(SUMMIT_FEATURES), "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": self.intercept.tolist(),
                "counter_sha256": self.counter_sha256, "summits_sha256": self.summits_sha256}

    @classmethod
    def from_dict(cls, data: dict) -> "SummitCounts":
        if list(data.get("features", [])) != list(SUMMIT_FEATURES):
            raise SummitCountsError("the summit-count model was fitted on other signs: run augur fit-summit-counts again")
        try:
            mean, scale, coef, intercept = (np.asarray(data[k], np.float64) for k in ("mean", "scale", "coef", "intercept"))
        except (KeyError, TypeError, ValueError) as exc:
            raise SummitCountsError(f"the summit-count model is malformed: {exc}") from None
        n = len(SUMMIT_FEATURES)
        if (mean.shape != (n,) or scale.shape != (n,) or coef.shape != (n, PIECE_CLASSES)
                or intercept.shape != (PIECE_CLASSES,) or not np.all(scale > 0)):
            raise SummitCountsError("the summit-count model is malformed: wrong sizes or a zero scale")
        return cls(mean, scale, coef, intercept, str(data.get("counter_sha256", "")), str(data.get("summits_sha256", "")))


@lru_cache(maxsize=4)
def summit_counts_for(counter_path: Path, summits_path: Path,
                      path: Path = DEFAULT_SUMMIT_COUNTS) -> SummitCounts | None:
    """The model fitted for this counting network and summit classifier, or None when there is
    none or it was fitted for others (the counter then keeps the threshold rule)."""
    if not (path.is_file() and counter_path.is_file() and summits_path.is_file()):
        return None
    try:
        model = SummitCounts.from_dict(json.loads(path.read_text(encoding="utf-8"))["model"])
    except (ValueError, KeyError, TypeError) as exc:
        raise SummitCountsError(f"cannot read the summit-count model {path.name}: {exc}") from None
    if model.counter_sha256 != file_sha256(counter_path) or model.summits_sha256 != file_sha256(summits_path):
        return None
    return model


def fit_summit_counts(signs: np.ndarray, standing: np.ndarray, l2: float = L2) -> SummitCounts:
    """Fit the regression on summits' signs and the legionaries truly standing at each (3 and more
    are one class) by L-BFGS on the penalised log-loss. Deterministic: the loss is convex and the
    start is zero."""
    from scipy.optimize import minimize

    X = np.asarray(signs, np.float64)
    y = np.minimum(np.asarray(standing, np.int64), PIECE_CLASSES - 1)
    if len(X) == 0:
        raise SummitCountsError("no summits to fit the summit-count model on")
    mean, scale, Z = standardised(X)
    onehot = np.eye(PIECE_CLASSES)[y]
    n, f = Z.shape

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        W, b = w[:f * PIECE_CLASSES].reshape(f, PIECE_CLASSES), w[f * PIECE_CLASSES:]
        z = Z @ W + b
        z -= z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        g = (np.exp(logp) - onehot) / n
        value = -(onehot * logp).sum() / n + 0.5 * l2 / n * (W ** 2).sum()
        return value, np.concatenate([(Z.T @ g + l2 / n * W).ravel(), g.sum(axis=0)])

    w = minimize(loss, np.zeros(f * PIECE_CLASSES + PIECE_CLASSES), jac=True, method="L-BFGS-B",
                 options={"maxiter": 500}).x
    return SummitCounts(mean, scale, w[:f * PIECE_CLASSES].reshape(f, PIECE_CLASSES), w[f * PIECE_CLASSES:])


def table_summits(counter, image: np.ndarray, truth, profile) -> tuple[np.ndarray, np.ndarray]:
    """One rendered table's summits the classifier reads: their signs, and how many rendered
    legionaries and vexilla of each one's province stand nearer to it than to any other of its
    summits (what a perfect reading would count there; :func:`vision.summits_train._standing`).
    ``counter`` reads with the summit classifier and without a summit-count model."""
    from tracker.pieces import LEGIONARY, VEXILLUM
    from vision.summits_train import SUMMIT_REACH, _standing
    out = counter.predict(image)
    at, basin = counter.second_look_candidates(out)
    pieces = [p for p in truth.pieces if p.kind in (LEGIONARY, VEXILLUM) and p.region is not None]
    if not len(at) or not pieces:
        return np.zeros((0, len(SUMMIT_FEATURES))), np.zeros(0, np.int64)
    seen = counter.summits.read(counter._input[0], counter.summit_pixels(at))
    w = counter.labels.shape[1]
    cells = np.column_stack([at % w, at // w]).astype(np.float64)
    _, standing = _standing(counter, profile, cells, counter.land_labels.ravel()[at], pieces, SUMMIT_REACH)
    return summit_signs(basin, seen.pieces, seen.vexillum, counter.across), standing.astype(np.int64)


def _table_job(job: tuple) -> tuple[str, int, tuple[np.ndarray, np.ndarray] | None]:
    """Render, calibrate and read one table of :func:`rendered_summits` (in a worker process)."""
    from vision.confidence import fitting_table
    from vision.density import DensityCounter
    tier, seed, i, prints, toppled = job
    key, img, truth, profile = fitting_table(tier, seed, i, prints, toppled)
    if profile is None:
        return key, i, None                 # the board was not found: no summits to learn from
    counter = DensityCounter(profile, confidence=None, hidden=None, summit_counts=None, threads=1)
    if counter.summits is None:
        raise SummitCountsError("the summit classifier is missing: there is nothing to weigh its word with")
    return key, i, table_summits(counter, img, truth, profile)


def rendered_summits(n_per_tier: dict[str, int], seed: int = FIT_SEED, prints=None, workers: int = 2,
                     progress=None, toppled: float = 0.0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Render tables of each tier as the bench does, calibrate on their empty photos, and return
    every summit's signs and standing (:func:`table_summits`), per tier, in the tables' order
    whatever the ``workers``; ``prints``: as in :func:`vision.confidence.rendered_rows` (the
    print's tables come under "<tier> on the print"); ``toppled``: as there too."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from vision.density_train import rendering_worker
    jobs = [(tier, seed, i, prints, toppled) for tier, n in n_per_tier.items() for i in range(max(n, 0))]
    parts: dict[str, list] = {}
    board = None
    if prints is not None:
        from vision.density_train import printed_board
        board = printed_board(prints)
    with ProcessPoolExecutor(max(1, workers), mp_context=get_context("spawn"), initializer=rendering_worker,
                             initargs=(prints, board)) as pool:
        for (key, i, rows), (tier, *_) in zip(pool.map(_table_job, jobs, chunksize=4), jobs):
            if rows is not None:
                parts.setdefault(key, []).append(rows)
            if progress:
                progress(tier, i + 1, n_per_tier[tier])
    return {key: tuple(np.concatenate(column) for column in zip(*rows)) for key, rows in parts.items()}


def fit_and_write(rows: dict[str, tuple[np.ndarray, np.ndarray]], counter_path: Path, summits_path: Path,
                  recipe: dict, out: Path = DEFAULT_SUMMIT_COUNTS) -> dict:
    """Fit the model on every tier's summits together and write it with its recipe and, per tier,
    the summits read right by it and by the threshold rule it replaces (on the fitting tables)."""
    from vision.density import pieces_at_summit
    from vision.summits import PIECES_P, SummitReading
    if not rows:
        raise SummitCountsError("no table could be calibrated and read: nothing to fit the summit counts on")
    X, y = (np.concatenate([r[k] for r in rows.values()]) for k in range(2))
    model = replace(fit_summit_counts(X, y), counter_sha256=file_sha256(counter_path),
                    summits_sha256=file_sha256(summits_path))
    figures = {}
    for key, (x, standing) in rows.items():
        p, mass = x[:, P0:P0 + PIECE_CLASSES], pieces_at_summit(x[:, SUMMIT_FEATURES.index("basin")])
        sure = SummitReading(np.zeros(len(p)), p).sure_pieces(PIECES_P)
        rule = np.where(sure >= 0, sure, mass)
        figures[key] = {"summits": int(len(standing)),
                        "right_by_model": float((model.pieces(x, mass) == standing).mean()) if len(x) else 0.0,
                        "right_by_threshold_rule": float((rule == standing).mean()) if len(x) else 0.0}
    card = {"model": model.to_dict(), "l2": L2, "counter": Path(counter_path).name,
            "summit_classifier": Path(summits_path).name, "recipe": recipe, "figures_on_fitting_tables": figures}
    write_card(card, out, SummitCountsError, "the summit-count model")
    summit_counts_for.cache_clear()
    return card
