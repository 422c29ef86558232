"""Reproduce the shipped knocked-over piece classifier (``augur train-lying``; needs the ``[train]`` extra).

The data: seeded renders of each tier, half of them with a share of the legionaries and vexilla
knocked over (:func:`vision.synth.dataset.toppled_of_table`), each calibrated by the real
calibration code and read by the shipped counting network as at run time. Every summit the
summit classifier reads (:meth:`vision.density.DensityCounter.second_look_candidates`) gives one
window, cut as the summit classifier's are (:func:`vision.summits_train.table_windows`).

The label: each knocked-over piece stands for the summit of its own province nearest to where
its base stood, within REACH legionary widths; that summit is a 1. The other summits within
NEAR widths of a lying piece (the rest of its long blob, or a neighbour in its pile) are 2, left
out of the training: which of them the piece "is" is a matter of taste, and the counter asks the
region, not the summit. Every other summit is a 0. The tables without knocked-over pieces teach
what a standing pile looks like, which is what a false "stand it up" would be made of.
torch is imported only in :func:`train`.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from tracker.errors import AugurError
from tracker.pieces import LEGIONARY, VEXILLUM
from vision.density_train import PrintChoice, print_of_table, render_table
from vision.quantize import FORMAT, float_original, quantize_classifier
from vision.summits import CHANNELS, PATCH, windows
from vision.summits_train import (CALIBRATION_STEP, SHIFT, _batch, build_net, calibration_windows, export, fit,
                                  load_weights, piece_distances)
from vision.synth.dataset import TABLES_PER_GAME, game_of, table_game, toppled_of_table

#: A lying piece stands for the nearest summit of its province within this many legionary widths.
REACH = 2.0
#: ...and the other summits this near to it are left out of the training.
NEAR = 1.5
#: The figures are read at these probabilities (the shipped threshold is vision.lying.LYING_P).
THRESHOLDS = (0.5, 0.8, 0.9, 0.95)


def table_lying_windows(tier: str, seed: int, i: int, prints: PrintChoice | None = None, toppled: float = 0.0) -> dict:
    """One rendered table's summit windows (N x CHANNELS x P x P uint8, P = PATCH + 2 SHIFT), each
    one's ``label`` (0, 1 or 2, see the module doc), ``dist`` (legionary widths to the nearest
    lying piece of its province; inf where none), ``region`` (the province it counts towards),
    ``basin`` (its basin's density mass), ``toppled`` (the share knocked over on this table) and
    ``lying_regions`` (the regions where a rendered piece lies knocked over)."""
    from vision.density import DensityCounter

    share = toppled_of_table(toppled, tier, seed, i)
    img, truth, profile = render_table(tier, seed, i, table_game(seed, i),
                                       board_print=print_of_table(prints, tier, seed, i), toppled=share)
    counter = DensityCounter(profile, confidence=None, summits=None, lying=None)
    out = counter.predict(img)
    at, basin = counter.second_look_candidates(out)
    w = counter.labels.shape[1]
    cells = np.column_stack([at % w, at // w]).astype(np.float64)
    region = counter.land_labels.ravel()[at]
    pieces = [p for p in truth.pieces if p.kind in (LEGIONARY, VEXILLUM) and p.region is not None]
    label = np.zeros(len(at), np.uint8)
    dist = np.full(len(at), np.inf, np.float32)
    lying = np.array([p.lying for p in pieces], bool)
    if len(at) and lying.any():
        d = piece_distances(counter, profile, cells, region, pieces)[1][:, lying] / counter.across
        dist = d.min(axis=1).astype(np.float32)
        label[dist <= NEAR] = 2
        nearest = d.argmin(axis=0)
        label[nearest[d[nearest, np.arange(d.shape[1])] <= REACH]] = 1
    names = np.array(counter.geo.region_ids)
    return {"windows": np.clip(windows(counter._input[0], counter.summit_pixels(at), PATCH + 2 * SHIFT), 0, 255)
            .astype(np.uint8),
            "label": label, "dist": dist, "region": names[np.maximum(region - 1, 0)],
            "basin": basin.astype(np.float32), "toppled": np.float32(share),
            "lying_regions": np.array(sorted({p.region for p in truth.pieces if p.lying}), dtype="U32")}


def load_windows(files: list[Path]) -> tuple[dict[str, np.ndarray], dict[str, tuple[set[str], bool]]]:
    """Every table's windows stacked, with the game, tier and table each came from; and each
    table's regions holding a lying piece, and whether any piece was knocked over there."""
    parts: dict[str, list] = {k: [] for k in ("windows", "label", "region", "game", "tier", "table")}
    tables = {}
    for f in files:
        d = np.load(f)
        if d["windows"].shape[1] != CHANNELS or "lying_regions" not in d.files:
            raise AugurError(f"the windows in {f.parent} were not cut for this classifier; choose another --work folder")
        n = len(d["label"])
        tier, i = f.stem.split("-")
        for k in ("windows", "label", "region"):
            parts[k].append(d[k])
        parts["game"].append(np.full(n, game_of(int(i))))
        parts["tier"].append(np.full(n, tier))
        parts["table"].append(np.full(n, f.stem))
        tables[f.stem] = (set(d["lying_regions"].tolist()), float(d["toppled"]) > 0)
    return {k: np.concatenate(v) for k, v in parts.items()}, tables


def held_out_figures(data: dict, tables: dict, idx: np.ndarray, p: np.ndarray) -> dict:
    """On held-out summits ``idx`` with the classifier's probabilities ``p``, at each of THRESHOLDS:
    the lying pieces' summits found and the summits called lying falsely (labels 0), and, per
    region as the counter asks: the regions holding a lying piece found, and the regions called
    lying falsely on tables with pieces knocked over and on tables without."""
    label = data["label"][idx]
    out = {"lying_summits": int((label == 1).sum()), "other_summits": int((label == 0).sum())}
    names = sorted(set(data["table"][idx]))
    out["regions_lying"] = sum(len(tables[t][0]) for t in names)
    out["tables_without"] = sum(not tables[t][1] for t in names)
    for t in THRESHOLDS:
        called: dict[str, set[str]] = {name: set() for name in names}
        for name, r in zip(data["table"][idx][p >= t], data["region"][idx][p >= t]):
            called[name].add(str(r))
        out[f"at_{t}"] = {"summits_found": int(((p >= t) & (label == 1)).sum()),
                          "false_summits": int(((p >= t) & (label == 0)).sum()),
                          "regions_found": sum(len(called[n] & tables[n][0]) for n in names),
                          "false_regions_knocked_tables": sum(len(called[n] - tables[n][0]) for n in names if tables[n][1]),
                          "false_regions_standing_tables": sum(len(called[n]) for n in names if not tables[n][1])}
    return out


def _probabilities(net, data: dict, idx: np.ndarray) -> np.ndarray:
    import torch
    net.eval()
    out = [np.zeros(0, np.float32)]
    with torch.no_grad():
        for k in range(0, len(idx), 1024):
            logits = net(torch.from_numpy(_batch(data, idx[k:k + 1024], None, False)))
            out.append(torch.sigmoid(logits[:, 0]).numpy())
    return np.concatenate(out)


def train(data_dir: Path, models: Path, epochs: int = 20, batch: int = 256, seed: int = 120, lr: float = 2e-3,
          lying_weight: float = 4.0, width: int = 16, depth: int = 3, recipe: dict | None = None, log=print,
          init: Path | None = None) -> dict:
    """Train on the tables of every game but one in ten (held out for the figures: one game's
    tables share its armies), export ONNX in floating point (kept in training/) and in 8 bits
    (shipped as ``pieces-lying.onnx``), write the card. Batches draw the lying pieces' summits
    ``lying_weight`` times as often as the others (about one summit in twenty on the tables with
    pieces knocked over); summits labelled 2 are never drawn."""
    import torch
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    files = sorted(Path(data_dir).glob("*-*[0-9].npz"))
    if not files:
        raise AugurError(f"no windows in {data_dir} (run with --images first)")
    data, tables = load_windows(files)
    held = data["game"] % 10 == 0
    usable = data["label"] != 2
    train_idx, held_idx = np.flatnonzero(~held & usable), np.flatnonzero(held)
    positive = data["label"][train_idx] == 1
    if not positive.any():
        raise AugurError("no knocked-over piece among the training windows: render more tables, with --toppled")
    draw = np.where(positive, lying_weight, 1.0)
    draw /= draw.sum()
    log(f"{len(files)} tables, {len(train_idx)} training windows ({int(positive.sum())} of lying pieces), "
        f"{len(held_idx)} held out")
    net = build_net(width, depth, outputs=1)
    if init is not None:
        load_weights(net, Path(init))
    bce = torch.nn.functional.binary_cross_entropy_with_logits
    t0 = time.time()
    history = fit(net, data, train_idx, draw, rng, epochs, batch, lr,
                  lambda out, idx: bce(out[:, 0], torch.from_numpy((data["label"][idx] == 1).astype(np.float32))),
                  lambda: held_out_figures(data, tables, held_idx, _probabilities(net, data, held_idx))["at_0.9"], log)
    models = Path(models)
    (models / "training").mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), models / "training" / "pieces-lying.pt")
    float_path = float_original(models / "pieces-lying.onnx")
    export(net, float_path)
    quantize_classifier(float_path, models / "pieces-lying.onnx", _batch(data, calibration_windows(train_idx), None, False))
    by_tier = {}
    for tier in sorted(set(data["tier"][held_idx])):
        sel = held_idx[data["tier"][held_idx] == tier]
        by_tier[tier] = held_out_figures(data, tables, sel, _probabilities(net, data, sel))
    card = {"model": "pieces-lying.onnx",
            "architecture": f"3-stage convolutional window classifier, {depth} convolutions a stage",
            "input": f"N x {CHANNELS} x {PATCH} x {PATCH} (the summit classifier's windows, 0..255)",
            "output": "N x 1 logit: a piece lies knocked over at the window's centre",
            "parameters": int(sum(q.numel() for q in net.parameters())),
            "data": {**(recipe or {}), "tables": len(files), "windows": int(len(data["label"])),
                     "lying_summits": int((data["label"] == 1).sum()), "left_out_near_lying": int((data["label"] == 2).sum()),
                     "tables_per_game": TABLES_PER_GAME, "reach_legionary_widths": REACH, "near_legionary_widths": NEAR},
            **({"init": Path(init).name} if init is not None else {}),
            "seed": seed, "epochs": epochs, "batch": batch, "lr": lr, "lying_weight": lying_weight, "width": width,
            "depth": depth,
            "weights": f"8-bit ({FORMAT}), calibrated on every {CALIBRATION_STEP}th training window; the history and "
                       "held-out figures are read in floating point",
            "history": history, "held_out": by_tier, "train_minutes": round((time.time() - t0) / 60, 1)}
    (models / "pieces-lying.json").write_text(json.dumps(card, indent=1) + "\n")
    return card
