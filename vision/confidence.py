"""How sure the counter is of each region: a model of "this region's count is right".

Why: the counting network is not yet right everywhere (see ``models/README.md``), and players
need to know which regions to check by eye. The density maps say a lot about a doubtful
region: its mass is far from a whole number of pieces, two summits share a basin, a summit is
faint, a hand covers part of it, the pieces stand far from the camera. This module turns those
signs (:data:`FEATURES`, computed by :class:`vision.density.DensityCounter` from its maps) into
the probability that the region's count is right (a small network since session 44, a
logistic regression before: :func:`fit_network`). That probability is the region's confidence
in the observed state, and below :data:`tracker.readings.LOW_CONFIDENCE` the dashboard asks
for a check and the tracker reports a broken rule there as a warning only.

The model is fitted (``augur fit-confidence``) on rendered tables held out from both the
network's training set and the bench, against the counts the shipped network actually reads
on them; it is stored beside the network (``models/pieces-density-confidence.json``) with the
network's checksum, and is used only with that network.

The same file holds a second model, a logistic regression over the same signs and three more from the
occluder output (:data:`HIDDEN_FEATURES`): the probability that the camera cannot see a region.
The counter marks a region unseen by it (:data:`vision.density.HIDDEN_P`) instead of by the share
of the region under the occluder output alone, whose ragged outline often stops short of the
pieces a hand hides.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from tracker.errors import AugurError

#: The signs of doubt, one value per region (see ``DensityCounter.region_features``).
FEATURES = (
    "sea",              # 1 for a sea area
    "pieces",           # pieces counted in the region (a vexillum is one piece)
    "mass",             # density mass that went to the region
    "residual",         # |mass - pieces|
    "signed_residual",  # mass - pieces
    "relative_residual",  # |mass - pieces| / max(pieces, 1)
    "twin_summits",     # legionary summits counted as two or more (their basin held two masses)
    "near_twins",       # legionary summits whose basin held between NEAR_TWIN and TWIN_MASS
    "faint_summits",    # summits lower than twice the peak threshold
    "lowest_summit",    # the lowest summit's height (0 when none)
    "border_mass",      # |mass on the region's cells - mass that went to it|: pieces astride a border
    "cover",            # share of the region under a hand, card or cup
    "across",           # a legionary's width in output cells where the region lies
    "log_area",         # log of the region's area in legionary footprints
    "hull_gap",         # |trireme mass - triremes counted|
    "centre_by_kind",   # 1 when a centre was found by the kind output alone
    "colour_doubt",     # share of the army-colour mass not of the region's leading colour
    "empty",            # 1 when no piece was counted
    "log_pieces",       # log(1 + pieces): doubt grows with the pile, but not linearly
    "stray_peak",       # the highest density on the region's cells that is not a summit's
    "kind_doubt",       # share of the region's mass whose kind is not the one counted most
    "hull_doubt",       # the hull classifier's doubt (1 - its likeliest count's p) summed over the sea's summits
    "summit_doubt",     # the summit classifier's, summed over the province's legionary summits
    "vexilla",          # vexilla counted in the region (each is ten legionaries' strength)
    "flag_peak",        # the highest vexillum probability the summit classifier gave a summit there
)

#: Signs that the camera cannot see a region, on top of FEATURES: the occluder output near it. A
#: hand's outline in the occluder output is ragged and often stops short of the pieces it hides.
OCCLUSION_FEATURES = (
    "cover_near",       # share of the region within a legionary's width of an occluder cell
    "cover_wide",       # share of the region within two legionary widths of an occluder cell
    "occluder_mean",    # mean occluder probability over the region
)
#: The signs the hidden-region model reads (the counter computes them all for every region).
HIDDEN_FEATURES = FEATURES + OCCLUSION_FEATURES

#: The confidence model of the shipped network, and beside it in the same file (``hidden_model``)
#: its hidden-region model: the probability that the camera cannot see a region.
DEFAULT_CONFIDENCE = Path(__file__).resolve().parents[1] / "models" / "pieces-density-confidence.json"


class ConfidenceError(AugurError):
    """The confidence model file is unreadable or does not fit this code."""


@dataclass(frozen=True)
class RegionConfidence:
    """A model over standardised signs: :data:`FEATURES` (is the count right?) or
    :data:`HIDDEN_FEATURES` (is the region hidden?).

    Without a hidden layer it is a logistic regression (the hidden-region model, and every
    confidence model until session 44). With one (``hidden_weights``, ``hidden_bias``: a layer of
    rectified units between the signs and the logistic output) it is the small network
    :func:`fit_network` fits; ``coef`` then weighs the hidden units."""

    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    counter_sha256: str = ""
    features: tuple[str, ...] = FEATURES
    hidden_weights: np.ndarray | None = None      # len(features) x units
    hidden_bias: np.ndarray | None = None         # units

    def predict(self, features: np.ndarray) -> np.ndarray:
        """The probability for each row of an N x len(self.features) array; wider rows (the
        counter's HIDDEN_FEATURES, which begin with FEATURES) are read up to the model's own."""
        x = np.asarray(features, np.float64)[:, :len(self.features)]
        z = (x - self.mean) / self.scale
        if self.hidden_weights is not None:
            z = np.maximum(z @ self.hidden_weights + self.hidden_bias, 0.0)
        z = z @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))

    def to_dict(self) -> dict:
        data = {"features": list(self.features), "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "coef": self.coef.tolist(), "intercept": self.intercept, "counter_sha256": self.counter_sha256}
        if self.hidden_weights is not None:
            data["hidden_weights"] = self.hidden_weights.tolist()
            data["hidden_bias"] = self.hidden_bias.tolist()
        return data

    @classmethod
    def from_dict(cls, data: dict, features: tuple[str, ...] = FEATURES) -> "RegionConfidence":
        if list(data.get("features", [])) != list(features):
            raise ConfidenceError("the confidence model was fitted on other features: run augur fit-confidence again")
        try:
            mean, scale, coef = (np.asarray(data[k], np.float64) for k in ("mean", "scale", "coef"))
            intercept = float(data["intercept"])
            layer = "hidden_weights" in data
            weights = np.asarray(data["hidden_weights"], np.float64) if layer else None
            bias = np.asarray(data["hidden_bias"], np.float64) if layer else None
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfidenceError(f"the confidence model is malformed: {exc}") from None
        n = len(features)
        inputs = coef.shape[0] if coef.ndim == 1 else -1
        sizes_ok = mean.shape == (n,) and scale.shape == (n,) and coef.ndim == 1 and (
            weights.shape == (n, inputs) and bias.shape == (inputs,) if layer else inputs == n)
        if not sizes_ok or not np.all(scale > 0):
            raise ConfidenceError("the confidence model is malformed: wrong sizes or a zero scale")
        return cls(mean, scale, coef, intercept, str(data.get("counter_sha256", "")), tuple(features), weights, bias)


@dataclass(frozen=True)
class MeanConfidence:
    """The mean probability of several confidence networks fitted on the same rows, each from its
    own first weights and order of the rows (``augur fit-confidence --networks K``).

    Why: one network's fit moves with its seed as much as with the tables it is fitted on. On the
    real print's 720 bench tables, three fits on the same 600 tables that differed only in the
    network's seed left 592, 616 and 599 wrong regions unflagged (session 118, models/README.md);
    the mean of several is a steadier estimate of the same probability."""

    members: tuple[RegionConfidence, ...]
    counter_sha256: str = ""
    features: tuple[str, ...] = FEATURES

    def predict(self, features: np.ndarray) -> np.ndarray:
        return np.mean([m.predict(features) for m in self.members], axis=0)

    def to_dict(self) -> dict:
        return {"features": list(self.features), "counter_sha256": self.counter_sha256,
                "members": [m.to_dict() for m in self.members]}

    @classmethod
    def from_dict(cls, data: dict, features: tuple[str, ...] = FEATURES) -> "MeanConfidence":
        if list(data.get("features", [])) != list(features):
            raise ConfidenceError("the confidence model was fitted on other features: run augur fit-confidence again")
        members = data.get("members")
        if not isinstance(members, list) or not members:
            raise ConfidenceError("the confidence model is malformed: no member networks")
        return cls(tuple(RegionConfidence.from_dict(m, features) for m in members),
                   str(data.get("counter_sha256", "")), tuple(features))


#: What the counter reads a region's confidence with: one network, or the mean of several.
Confidence = RegionConfidence | MeanConfidence


def model_from_dict(data: dict, features: tuple[str, ...] = FEATURES) -> Confidence:
    """A confidence or hidden-region model as its file stores it: several networks under
    ``members``, else one."""
    if isinstance(data, dict) and "members" in data:
        return MeanConfidence.from_dict(data, features)
    return RegionConfidence.from_dict(data, features)


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@lru_cache(maxsize=4)
def confidence_for(counter_path: Path, path: Path = DEFAULT_CONFIDENCE) -> Confidence | None:
    """The confidence model fitted for the network at ``counter_path``, or None when there is none
    (or it was fitted for other weights: its probabilities would mean nothing for these)."""
    return _model_for(counter_path, path, "model", FEATURES, "confidence model")


@lru_cache(maxsize=4)
def hidden_for(counter_path: Path, path: Path = DEFAULT_CONFIDENCE) -> RegionConfidence | None:
    """The hidden-region model fitted for the network at ``counter_path`` (``hidden_model`` of the
    confidence file), or None: the counter then marks a region unseen by its cover alone."""
    return _model_for(counter_path, path, "hidden_model", HIDDEN_FEATURES, "hidden-region model")


def _model_for(counter_path: Path, path: Path, key: str, features: tuple[str, ...],
               what: str) -> Confidence | None:
    if not path.is_file() or not counter_path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if key != "model" and key not in data:
            return None
        model = model_from_dict(data[key], features)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfidenceError(f"cannot read the {what} {path.name}: {exc}") from None
    return model if model.counter_sha256 == file_sha256(counter_path) else None


def standardised(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The columns' means and scales (1 for a constant column), and ``X`` standardised by them:
    what the fits learn on (these and :func:`vision.summit_counts.fit_summit_counts`) and their models undo."""
    X = np.asarray(X, np.float64)
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-9] = 1.0
    return mean, scale, (X - mean) / scale


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = 1.0, iterations: int = 50) -> RegionConfidence:
    """Logistic regression by Newton's method on standardised features, with an L2 penalty on the
    weights (not the intercept). A few thousand rows and a score of features: exact and fast."""
    mean, scale, Z = standardised(X)
    y = np.asarray(y, np.float64)
    Z = np.column_stack([Z, np.ones(len(Z))])
    w = np.zeros(Z.shape[1])
    penalty = np.full(Z.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(Z @ w, -30, 30)))
        grad = Z.T @ (p - y) + penalty * w
        hess = (Z * (p * (1 - p))[:, None]).T @ Z + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return RegionConfidence(mean, scale, w[:-1], float(w[-1]))


#: The confidence model's network (:func:`fit_network`): rectified units in its hidden layer, passes
#: over the rows, Adam's step size, the L2 penalty on its weights, and the seed of its first weights
#: and of the order of the rows. Measured in session 44 (models/README.md, "The per-region confidence").
NETWORK = {"units": 16, "epochs": 200, "learning_rate": 1e-3, "l2": 1e-3, "batch": 256, "seed": 0}


def fit_network(X: np.ndarray, y: np.ndarray, units: int = 16, epochs: int = 200, learning_rate: float = 1e-3,
                l2: float = 1e-3, batch: int = 256, seed: int = 0) -> RegionConfidence:
    """A logistic output over one hidden layer of rectified units, on standardised features,
    fitted by Adam on the log-loss (numpy only; a few seconds on 35,000 rows).

    Why not the logistic regression: a sign's meaning can depend on others (half a piece of mass
    too much may say little in a sea of four triremes and much in a province of one legionary),
    and a linear model averages such cases. On held-out medium and hard tables it gave regions
    0.80 to 0.90 (0.86 on average) that were right 75 to 82 % of the time. Fitted on the same rows and
    read on held-out tables, this network's probabilities matched the outcomes in every band, and
    it left a third fewer wrong regions unflagged at the 0.8 threshold (session 44, models/README.md).
    Deterministic for a seed."""
    mean, scale, Z = standardised(X)
    y = np.asarray(y, np.float64)
    rng = np.random.default_rng(seed)
    n = Z.shape[1]
    params = [rng.normal(0.0, 1.0 / np.sqrt(n), (n, units)), np.zeros(units),
              rng.normal(0.0, 1.0 / np.sqrt(units), units), np.zeros(1)]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(Z))
        for start in range(0, len(Z), batch):
            rows = order[start:start + batch]
            W1, b1, w2, b2 = params
            h = np.maximum(Z[rows] @ W1 + b1, 0.0)
            p = 1.0 / (1.0 + np.exp(-np.clip(h @ w2 + b2[0], -30, 30)))
            g = (p - y[rows]) / len(rows)
            gh = np.outer(g, w2) * (h > 0)
            grads = [Z[rows].T @ gh + l2 * W1, gh.sum(axis=0), h.T @ g + l2 * w2, np.array([g.sum()])]
            step += 1
            for k, grad in enumerate(grads):
                first[k] = 0.9 * first[k] + 0.1 * grad
                second[k] = 0.999 * second[k] + 0.001 * grad ** 2
                params[k] -= learning_rate * (first[k] / (1 - 0.9 ** step)) / (
                    np.sqrt(second[k] / (1 - 0.999 ** step)) + 1e-8)
    W1, b1, w2, b2 = params
    return RegionConfidence(mean, scale, w2, float(b2[0]), hidden_weights=W1, hidden_bias=b1)


def flag_figures(confidence: np.ndarray, right: np.ndarray, threshold: float) -> dict:
    """What a player sees when regions below ``threshold`` are flagged for a check: the share
    flagged, how many of the wrong regions are among them, and how often an unflagged region is right."""
    confidence = np.asarray(confidence, float)
    right = np.asarray(right, bool)
    flagged = confidence < threshold
    return {"regions": int(len(right)), "flagged": float(flagged.mean()) if len(right) else 0.0,
            "wrong": int((~right).sum()), "wrong_flagged": int((flagged & ~right).sum()),
            "unflagged_right": float(right[~flagged].mean()) if (~flagged).any() else float("nan")}


def describe(figures: dict) -> str:
    return (f"{100 * figures['flagged']:.1f}% of regions flagged for a check, holding "
            f"{figures['wrong_flagged']} of the {figures['wrong']} wrong ones; unflagged regions "
            f"{100 * figures['unflagged_right']:.2f}% right")


# -- fitting (``augur fit-confidence``) ----------------------------------------------------
#: Seed of the rendered tables the shipped hidden-region model was fitted on, and the first of
#: the confidence's: neither the network's training tables (11), nor the validation tables
#: (5150), nor the bench's (90210).
FIT_SEED = 7070
#: Seeds of the rendered tables the shipped confidence was fitted on, pooled (session 118; its
#: hidden-region model is the one fitted on FIT_SEED's tables alone, kept): ``augur
#: fit-confidence``'s default. None of them is another model's or the benches' (7171: the
#: summit-count model's; 90211 and 90212: the fresh bench tables session 118 judged it on).
FIT_SEEDS = (FIT_SEED, 7071, 7072, 7073, 7074)
#: Networks the shipped confidence averages (:class:`MeanConfidence`): ``--networks``' default.
FIT_NETWORKS = 5


def table_rows(counter, image: np.ndarray, want, hidden: set[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One table's regions: their signs (:data:`HIDDEN_FEATURES`), whether the counter read each
    right (``want`` is the true observed state) and whether each is hidden (``hidden``: the
    regions the camera cannot see). ``counter`` must read without a hidden-region model."""
    from vision.count import count
    det, signs = counter.reading(counter.predict(image))
    got = count(det, counter.geo)
    ids = counter.geo.region_ids
    right = [got.regions.get(r, {}) == want.regions.get(r, {}) for r in ids]
    return signs[1:], np.array(right, bool), np.array([r in hidden for r in ids], bool)


def rendered_rows(n_per_tier: dict[str, int], seed: int = FIT_SEED, counter_path: Path | None = None,
                  progress=None, prints=None, toppled: float = 0.0) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Render tables of each tier, calibrate on their empty photos, count them with the network
    (no confidence or hidden-region model), and return every region's signs, rightness and
    hiddenness, per tier (see :func:`table_rows`).

    ``prints`` (a :class:`vision.density_train.PrintChoice`): render its seeded share of the
    tables on a real print, their pieces inside its own borders; their rows come under
    ``"<tier> on the print"``. The models shipped until session 39 were fitted on the procedural
    art only, and the hidden-region model was a coin flip on the print's tables (a province a
    quarter under a card's corner got 0.51). The other tables are the ones fitted on without
    ``prints``, so a share adds print tables' rows and takes away the procedural tables they
    replace, nothing else. ``toppled``: on a seeded half of the tables that share of the
    legionaries and vexilla lie knocked over (:func:`vision.synth.dataset.toppled_of_table`)."""
    from tracker.state import ObservedState
    from vision.bench import hidden_regions
    from vision.density import DEFAULT_COUNTER, DensityCounter
    parts: dict[str, list] = {}
    for tier, n in n_per_tier.items():
        for i in range(max(n, 0)):
            key, img, truth, profile = fitting_table(tier, seed, i, prints, toppled)
            if profile is not None:           # None: the board was not found, no regions to learn from
                counter = DensityCounter(profile, model=counter_path or DEFAULT_COUNTER, confidence=None, hidden=None)
                parts.setdefault(key, []).append(
                    table_rows(counter, img, ObservedState.from_dict(truth.state), hidden_regions(truth)))
            if progress:
                progress(tier, i + 1, n)
    return {key: tuple(np.concatenate(column) for column in zip(*rows)) for key, rows in parts.items()}


def pooled_rows(draws: list[dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]],
                ) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Several draws of fitting rows (:func:`rendered_rows`, a seed each) as one: each key's
    rows one after another in the order of the draws, the keys in the order they first come.

    Why pool: refitted on another seed's 600 tables, the shipped confidence left 676 wrong regions
    unflagged on the print's bench tables where it had left 592 (session 117); a fit on more
    tables depends less on which tables a seed drew. One draw comes back as it went in, so a
    single seed's fit is the one ``fit_confidence`` made on it before pooling existed."""
    keys = list(dict.fromkeys(key for draw in draws for key in draw))
    return {key: tuple(np.concatenate([draw[key][j] for draw in draws if key in draw]) for j in range(3))
            for key in keys}


def fitting_table(tier: str, seed: int, i: int, prints=None, toppled: float = 0.0):
    """Table ``i`` of a tier as the bench renders it (on ``prints``' print where its seeded share
    picks it, with ``toppled`` of its pieces knocked over where :func:`toppled_of_table` picks it),
    and its calibration: the rows under ``key`` ("<tier>" or "<tier> on the print"), the image,
    its ground truth and the profile (None where the board was not found)."""
    from calibration.profile import calibrate
    from vision.density_train import print_of_table
    from vision.synth.board_art import PrintedBoard, procedural_art
    from vision.synth.dataset import still_table, toppled_of_table
    from vision.synth.render import calibration_render
    board_print = print_of_table(prints, tier, seed, i)
    art, geometry = PrintedBoard.parts(board_print)
    img, truth = still_table(tier, seed, i, art=art, geometry=geometry,
                             toppled=toppled_of_table(toppled, tier, seed, i))
    key = tier if board_print is None else f"{tier} on the print"
    try:
        # as at a real table, the photo is compared with the procedural art whatever it shows
        return key, img, truth, calibrate(calibration_render(truth, art), procedural_art(), players=truth.players)
    except AugurError:
        return key, img, truth, None


def write_card(card: dict, out: Path, error: type[AugurError], what: str) -> None:
    """Write a fitted model's card (the model itself, its recipe and figures) as JSON at ``out``,
    its folder made; ``error`` says in one line that ``what`` could not be written."""
    try:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise error(f"cannot write {what} to {out}: {exc.strerror or exc}") from None


def fit_confidence(rows: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]], counter_path: Path, recipe: dict,
                   out: Path = DEFAULT_CONFIDENCE, networks: int = 1, hidden: RegionConfidence | None = None) -> dict:
    """Fit both models on every tier's rows together (:func:`rendered_rows`) and write them, with
    their recipe and their figures on the rows they were fitted on, beside the network they
    belong to: first the hidden-region model (a logistic regression) on every region, then the
    confidence (:func:`fit_network`, :data:`NETWORK`) on the regions it leaves seen (a region
    marked unseen has no confidence). ``networks`` above one: the confidence is the mean of that
    many networks (:class:`MeanConfidence`), seeded NETWORK's seed, the next, and so on.
    ``hidden``: a hidden-region model to keep as it is (fitted for the same network) instead of
    fitting one (``augur fit-confidence --keep-hidden``)."""
    from tracker.readings import LOW_CONFIDENCE
    from vision.density import HIDDEN_P
    if not rows:
        raise ConfidenceError("no table could be calibrated and counted: nothing to fit the confidence on")
    X, right, hidden_truth = (np.concatenate([r[k] for r in rows.values()]) for k in range(3))
    sha = file_sha256(counter_path)
    if hidden is not None and hidden.counter_sha256 != sha:
        raise ConfidenceError("the hidden-region model to keep was fitted for another counting network")
    hidden_model = hidden if hidden is not None else replace(
        fit_logistic(X, hidden_truth.astype(np.float64)), counter_sha256=sha, features=HIDDEN_FEATURES)
    seen = hidden_model.predict(X) < HIDDEN_P
    fitted = [replace(fit_network(X[seen][:, :len(FEATURES)], right[seen], **{**NETWORK, "seed": NETWORK["seed"] + k}),
                      counter_sha256=sha) for k in range(max(networks, 1))]
    model = fitted[0] if len(fitted) == 1 else MeanConfidence(tuple(fitted), sha)
    figures = {}
    for tier, (x, r, h) in rows.items():
        s = hidden_model.predict(x) < HIDDEN_P
        figures[tier] = {**flag_figures(model.predict(x[s]), r[s], LOW_CONFIDENCE),
                         "unseen_really_hidden": int((~s & h).sum()), "unseen_visible": int((~s & ~h).sum()),
                         "hidden": int(h.sum())}
    card = {"model": model.to_dict(), "model_network": NETWORK, "networks": len(fitted),
            "hidden_model": hidden_model.to_dict(),
            "hidden_p": HIDDEN_P,
            "counter": Path(counter_path).name, "recipe": recipe,
            "threshold": LOW_CONFIDENCE, "figures_on_fitting_tables": figures}
    write_card(card, out, ConfidenceError, "the confidence model")
    confidence_for.cache_clear()
    hidden_for.cache_clear()
    return card
