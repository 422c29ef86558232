"""Reproduce the shipped summit classifier (``augur train-summits``; needs the ``[train]`` extra).

The data: seeded renders of each tier, each table from one of many simulated games, calibrated
by the real calibration code and read by the shipped counting network exactly as at run time.
Every legionary summit of a province, or of the sea off its coast where a small island's pile
spills (:meth:`vision.density.DensityCounter.second_look_candidates`), gives one window of the
network's input, labelled a vexillum when the visible rendered piece nearest to the summit, within
half a legionary's width, is one, and with the number of rendered pieces of its province standing
nearer to it than to any other summit. The windows are cut SHIFT pixels wider than the
classifier's, so training can move them a little. torch is imported only here.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

from calibration.lens import undistort_points
from tracker.errors import AugurError
from tracker.pieces import LEGIONARY, TRIREME, VEXILLUM
from vision.density_train import (MAX_HIDDEN, NO_PRINT, TIER_SEED, PrintChoice, check_settings, describe_prints,
                                  describe_toppled, print_of_table, printed_board, render_table, rendering_worker, save_once, write_settings)
from vision.quantize import FORMAT, float_original, quantize_classifier
from vision.summits import CHANNELS, PATCH, PIECE_CLASSES, windows
from vision.synth.dataset import TABLES_PER_GAME, game_of, table_game, toppled_of_table

#: Training windows are this many pixels wider on each side than the classifier's (random shifts).
SHIFT = 2
#: A summit is labelled by the nearest rendered piece within this share of a legionary's width.
MATCH = 0.5
#: A legionary stands for the summit nearest to it within this many legionary widths.
SUMMIT_REACH = 1.5
#: Summits of a region with at least PILE of them are all kept; of the others, LONE_SHARE.
PILE = 4
LONE_SHARE = 0.25
#: Vexillum-rich tables (:func:`vision.density_train.rich_steps`) are numbered from here: their
#: games are new games, and a file's name says which kind of table it holds.
RICH_FIRST = 50_000


def is_rich(i: int) -> bool:
    """Whether training table ``i`` is a vexillum-rich one."""
    return i >= RICH_FIRST


def table_windows(tier: str, seed: int, i: int, prints: PrintChoice | None = None, toppled: float = 0.0) -> dict:
    """One rendered table's candidate summits: windows (N x CHANNELS x P x P uint8, P = PATCH +
    2 SHIFT, every candidate summit marked, kept or not), label (1 = vexillum), the distance
    (cells) to the nearest visible rendered legionary or vexillum, ``standing`` (how many
    rendered legionaries and vexilla of the summit's province, hidden or not, stand nearer to it
    than to any other of its summits, within SUMMIT_REACH legionary widths: what a perfect
    reading would count there), ``basin`` (the density mass of the summit's
    basin), ``rule`` (the pieces the reading counts there from that mass), ``weight`` (how
    many summits each kept one stands for) and ``at_sea`` (the summit stands on the sea off its
    province's coast: a pile spilled off a small island, or a piece on the printed coastline;
    every such summit is kept). ``prints``: which tables show a real print
    (:class:`vision.density_train.PrintChoice`; the classifier shipped until session 39 had seen
    only the procedural art, and on the print took lone legionaries for vexilla). ``toppled``: on a
    seeded half of the tables that share of the legionaries and vexilla lie knocked over
    (:func:`vision.synth.dataset.toppled_of_table`; the shipped classifier of session 39 had never
    seen one, and read a lying legionary's one summit as two pieces)."""
    from vision.density import DensityCounter, pieces_at_summit

    img, truth, profile = render_table(tier, seed, i, table_game(seed, i), rich=is_rich(i),
                                       board_print=print_of_table(prints, tier, seed, i),
                                       toppled=toppled_of_table(toppled, tier, seed, i))
    counter = DensityCounter(profile, confidence=None, summits=None)
    out = counter.predict(img)
    at, basin = counter.second_look_candidates(out)
    rule = pieces_at_summit(basin).astype(np.uint8)
    w = counter.labels.shape[1]
    cells = np.column_stack([at % w, at // w]).astype(np.float64)
    # a summit on the sea off an island's coast is the island's (as the reading counts it): its
    # pieces are the island's spilled pile, not nothing
    region = counter.land_labels.ravel()[at]
    at_sea = counter._sea[counter.labels.ravel()[at]] == 1
    pieces = [p for p in truth.pieces if p.kind in (LEGIONARY, VEXILLUM) and p.region is not None]
    label = np.zeros(len(at), np.uint8)
    dist = np.full(len(at), np.inf)
    standing = np.zeros(len(at), np.uint8)
    if pieces and len(at):
        d, standing = _standing(counter, profile, cells, region, pieces, SUMMIT_REACH)
        visible = np.array([p.occluded <= MAX_HIDDEN for p in pieces])
        seen_d = np.where(visible[None, :], d, np.inf)
        nearest = seen_d.argmin(axis=1)
        dist = seen_d[np.arange(len(at)), nearest]
        is_vex = np.array([p.kind == VEXILLUM for p in pieces])
        label = (is_vex[nearest] & (dist <= max(1.5, MATCH * counter.across))).astype(np.uint8)
    # vexilla stand in piles: keep every summit of a pile, and a share of the lone ones (weighted)
    pile = np.bincount(region, minlength=counter.n_regions + 1)[region] >= PILE
    rng = np.random.default_rng([seed, i, TIER_SEED[tier], 8])
    keep = (label == 1) | pile | at_sea | (rng.random(len(at)) < LONE_SHARE)
    weight = np.where((label == 1) | pile | at_sea, 1.0, 1.0 / LONE_SHARE)[keep]
    size = PATCH + 2 * SHIFT
    win = windows(counter._input[0], counter.summit_pixels(at), size)[keep]
    return {"windows": np.clip(win, 0, 255).astype(np.uint8), "label": label[keep],
            "dist": dist[keep].astype(np.float32), "weight": weight.astype(np.float32),
            "standing": standing[keep], "basin": basin[keep].astype(np.float32), "rule": rule[keep],
            "at_sea": at_sea[keep]}


def piece_distances(counter, profile, cells: np.ndarray, region: np.ndarray, pieces: list) -> tuple[np.ndarray, np.ndarray]:
    """The distance (output cells) from each summit (``cells``, N x 2, in region label ``region``)
    to where each rendered piece of ``pieces`` stands (N x M), and the same with every piece of
    another region than the summit's at infinity."""
    from vision.density import output_to_image
    feet = undistort_points(np.array([p.footprint for p in pieces], np.float64), profile.image_size, profile.k1)
    pts = cv2.perspectiveTransform(feet.reshape(-1, 1, 2), np.linalg.inv(output_to_image(counter.crop)))
    d = np.linalg.norm(cells[:, None, :] - pts.reshape(1, -1, 2), axis=2)
    index = {rid: k + 1 for k, rid in enumerate(counter.geo.region_ids)}
    own = np.array([index[p.region] for p in pieces])
    return d, np.where(region[:, None] == own[None, :], d, np.inf)


def _standing(counter, profile, cells: np.ndarray, region: np.ndarray, pieces: list, reach: float):
    """The distance (output cells) from each summit (``cells``, N x 2, in region label ``region``)
    to each rendered piece of ``pieces`` (N x M), and how many of them stand for each summit: those
    of its region nearer to it than to any other of its summits, within ``reach`` legionary widths
    (what a perfect reading would count there)."""
    d, d_own = piece_distances(counter, profile, cells, region, pieces)
    owner = d_own.argmin(axis=0)
    near = d_own[owner, np.arange(len(pieces))] <= reach * counter.across
    return d, np.bincount(owner[near], minlength=len(cells)).astype(np.uint8)


#: A trireme stands for the hull summit nearest to it within this many legionary widths (a hull
#: is about one and a half legionaries long).
HULL_REACH = 2.0


def table_hull_windows(tier: str, seed: int, i: int, prints: PrintChoice | None = None) -> dict:
    """One rendered table's trireme summits of seas (:meth:`vision.density.DensityCounter.hull_candidates`),
    in the same format as :func:`table_windows`: ``standing`` is how many rendered triremes of the
    summit's sea, hidden or not, stand nearer to it than to any other of its summits, within
    HULL_REACH legionary widths; ``rule`` is the one trireme the reading counts at every summit
    without the classifier; there is no vexillum (``label`` 0) and every summit is kept.
    ``prints``: which tables show a real print, as for :func:`table_windows` (the shipped
    classifier has seen only the procedural art's seas; a fine-tune on the print was tried in
    session 40 and read them no better, see models/README.md)."""
    from vision.density import DensityCounter

    img, truth, profile = render_table(tier, seed, i, table_game(seed, i),
                                       board_print=print_of_table(prints, tier, seed, i))
    counter = DensityCounter(profile, confidence=None, summits=None, hulls=None)
    out = counter.predict(img)
    at = counter.hull_candidates(out)
    w = counter.labels.shape[1]
    cells = np.column_stack([at % w, at // w]).astype(np.float64)
    region = counter.labels.ravel()[at]
    hulls = [p for p in truth.pieces if p.kind == TRIREME and p.region is not None]
    standing = np.zeros(len(at), np.uint8)
    if hulls and len(at):
        standing = _standing(counter, profile, cells, region, hulls, HULL_REACH)[1]
    size = PATCH + 2 * SHIFT
    win = windows(counter._input[0], counter.summit_pixels(at), size)
    return {"windows": np.clip(win, 0, 255).astype(np.uint8), "label": np.zeros(len(at), np.uint8),
            "weight": np.ones(len(at), np.float32), "standing": standing, "rule": np.ones(len(at), np.uint8)}


#: What a window folder holds: the summit classifier's windows and labels, the hull classifier's,
#: or the knocked-over piece classifier's (:func:`vision.lying_train.table_lying_windows`).
LOOKS = ("summits", "hulls", "lying")


def _write_one(args: tuple[Path, str, int, int, str, PrintChoice | None, float]) -> str:
    out, tier, seed, i, look, prints, toppled = args
    if look == "hulls":
        return save_once(out / f"{tier}-{i:05d}.npz", lambda: table_hull_windows(tier, seed, i, prints))
    if look == "lying":
        from vision.lying_train import table_lying_windows
        return save_once(out / f"{tier}-{i:05d}.npz", lambda: table_lying_windows(tier, seed, i, prints, toppled))
    return save_once(out / f"{tier}-{i:05d}.npz", lambda: table_windows(tier, seed, i, prints, toppled))


def write_windows(out: Path, n_per_tier: dict[str, int], seed: int, workers: int = 2, progress=None,
                  look: str = "summits", rich_per_tier: dict[str, int] | None = None,
                  prints: PrintChoice | None = None, toppled: float = 0.0) -> list[Path]:
    """Render the tables and cut their windows (resumable: existing files are kept): ``look``
    (one of LOOKS) says which: at the legionary summits of provinces, the trireme summits of seas
    (``hulls``), or the legionary summits labelled where a piece lies knocked over (``lying``);
    ``rich_per_tier`` vexillum-rich tables as well, numbered from RICH_FIRST; ``prints``: a
    share of the tables on a real print; ``toppled``: pieces knocked over on half the tables (see
    :func:`table_windows`). The folder remembers its seed, what was cut, which tables show a print
    and what was knocked over, so a later run cannot mix other tables in."""
    if look not in LOOKS:
        raise ValueError(f"look must be one of {LOOKS}, not {look!r}")
    wanted = {"seed.txt": ("were rendered with seed", str(seed)),
              "look.txt": ("were cut at", look),
              "print.txt": ("were rendered with prints", describe_prints(prints)),
              "toppled.txt": ("were rendered with knocked-over pieces", describe_toppled(toppled))}
    check_settings(out, "windows", wanted, {"print.txt": NO_PRINT, "toppled.txt": describe_toppled(0.0)})
    board = printed_board(prints) if prints is not None else None     # a photo that is no board fails here
    write_settings(out, wanted)
    jobs = [(out, tier, seed, i, look, prints, toppled) for tier, n in n_per_tier.items() for i in range(n)]
    jobs += [(out, tier, seed, RICH_FIRST + i, look, prints, toppled) for tier, n in (rich_per_tier or {}).items()
             for i in range(n)]
    done = 0
    # spawned, as vision.density_train.write_data's: a forked worker can inherit a lock held by one
    # of the threads that fitted the print's map
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=rendering_worker,
                             initargs=(prints, board)) as ex:
        for _ in ex.map(_write_one, jobs, chunksize=TABLES_PER_GAME):     # one game per worker at a time
            done += 1
            if progress:
                progress(done, len(jobs))
    return sorted(out.glob("*-*[0-9].npz"))


# -- the classifier ----------------------------------------------------------------------
def build_net(width: int = 16, depth: int = 3, flag: bool = True, outputs: int | None = None):
    """A small convolutional classifier: N x CHANNELS x PATCH x PATCH (0..255) -> N x 5 logits (vexillum,
    then 0, 1, 2, 3+ pieces), or without ``flag`` N x 4 (the pieces alone: the hull classifier),
    or N x ``outputs`` where given (1: the knocked-over piece classifier, :mod:`vision.lying_train`).

    Three stride-2 stages keep it cheap (about 2 M multiply-adds a window at one convolution a
    stage; a table has about a hundred candidate summits) and the last stage keeps where things
    are in the window: a neighbour's flag or body beside the summit must not count as this
    summit's. ``depth`` convolutions a stage (the first strided) see further for the same
    resolution."""
    from torch import nn

    def cbr(i, o, s=1, k=3):
        return nn.Sequential(nn.Conv2d(i, o, k, s, padding=k // 2, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class SummitNet(nn.Module):
        def __init__(self):
            super().__init__()
            stages, c = [], CHANNELS
            for o in (width, 2 * width, 4 * width):
                stages += [cbr(c, o, 2)] + [cbr(o, o) for _ in range(depth - 1)]
                c = o
            self.features = nn.Sequential(*stages, cbr(4 * width, 16, k=1))
            side = PATCH // 8
            self.head = nn.Sequential(nn.Flatten(), nn.Linear(16 * side * side, 64), nn.ReLU(inplace=True),
                                      nn.Dropout(0.2), nn.Linear(64, outputs or int(flag) + PIECE_CLASSES))

        def forward(self, x):
            return self.head(self.features(x / 127.5 - 1.0))

    return SummitNet()


def load_windows(files: list[Path]) -> dict[str, np.ndarray]:
    """Every table's windows stacked, with the game and tier each came from. Windows cut for a
    classifier of other input planes (before the summit marks) are refused in one line."""
    keys = ("windows", "label", "weight", "standing", "rule")
    parts: dict[str, list] = {k: [] for k in keys + ("at_sea", "game", "tier", "rich")}
    for f in files:
        d = np.load(f)
        if d["windows"].shape[1] != CHANNELS:
            raise AugurError(f"the windows in {f.parent} have {d['windows'].shape[1]} planes, not {CHANNELS}: they were "
                             f"cut for an older classifier; choose another --work folder")
        n = len(d["label"])
        tier, i = f.stem.split("-")
        for k in keys:
            parts[k].append(d[k])
        # windows cut before session 20 (and hull windows) do not mark the summits at sea
        parts["at_sea"].append(d["at_sea"] if "at_sea" in d.files else np.zeros(n, bool))
        parts["game"].append(np.full(n, game_of(int(i))))
        parts["tier"].append(np.full(n, tier))
        parts["rich"].append(np.full(n, is_rich(int(i))))
    data = {k: np.concatenate(v) for k, v in parts.items()}
    data["pieces"] = np.minimum(data["standing"], PIECE_CLASSES - 1).astype(np.int64)
    return data


def _batch(data: dict, idx: np.ndarray, rng: np.random.Generator | None, train: bool) -> np.ndarray:
    """Windows of the classifier's size: random shifts, quarter turns, mirror images and frame
    brightness in training (a flag may point any way), the centre otherwise."""
    win = data["windows"][idx]
    if not train:
        return win[:, :, SHIFT:SHIFT + PATCH, SHIFT:SHIFT + PATCH].astype(np.float32)
    out = np.empty((len(idx), win.shape[1], PATCH, PATCH), np.float32)
    dx, dy = rng.integers(0, 2 * SHIFT + 1, (2, len(idx)))
    for j in range(len(idx)):
        out[j] = win[j, :, dy[j]:dy[j] + PATCH, dx[j]:dx[j] + PATCH]
    flip = rng.random(len(idx)) < 0.5
    out[flip] = out[flip, :, :, ::-1]
    turns = rng.integers(0, 4, len(idx))
    for k in (1, 2, 3):
        out[turns == k] = np.rot90(out[turns == k], k, axes=(2, 3))
    out[:, :3] *= rng.uniform(0.85, 1.15, (len(idx), 1, 1, 1)).astype(np.float32)
    return np.clip(out, 0, 255)


def _logits(net, data: dict, idx: np.ndarray) -> np.ndarray:
    import torch
    net.eval()
    out = [np.zeros((0, net.head[-1].out_features), np.float32)]
    with torch.no_grad():
        for k in range(0, len(idx), 1024):
            out.append(net(torch.from_numpy(_batch(data, idx[k:k + 1024], None, False))).numpy())
    return np.concatenate(out)


def held_out_figures(data: dict, idx: np.ndarray, logits: np.ndarray, thresholds=(0.5, 0.9)) -> dict:
    """On held-out summits (weighted back to every summit): vexilla found and false vexilla per
    table (not for the hull classifier, which has no vexillum output), and how often the pieces
    at a summit are right by the reading's rule alone (the basin's mass; one trireme a hull
    summit) and with the classifier's count where it is sure."""
    from vision.summits import SummitReading
    seen = SummitReading.from_logits(logits)
    flag = logits.shape[1] == 1 + PIECE_CLASSES
    label, weight = data["label"][idx], data["weight"][idx]
    truth, rule = data["pieces"][idx], np.minimum(data["rule"][idx], PIECE_CLASSES - 1)
    right = lambda pieces: round(float((weight * (pieces == truth)).sum() / max(weight.sum(), 1e-9)), 4)  # noqa: E731
    out = {"summits": round(float(weight.sum()))}
    if flag:
        out.update(vexilla=int(label.sum()), pieces_right_by_mass=right(rule))
    else:
        out.update(triremes_right_as_one=right(rule))
    for t in thresholds:
        hit = seen.vexillum >= t
        sure = seen.sure_pieces(t)
        out[f"at_{t}"] = {"pieces_right": right(np.where(sure >= 0, sure, rule))}
        if flag:
            out[f"at_{t}"].update(vexilla_found=round(float((hit & (label == 1)).sum() / max(1, label.sum())), 4),
                                  false_vexilla=round(float(weight[hit & (label == 0)].sum()), 1))
    return out


def train(data_dir: Path, models: Path, epochs: int = 24, batch: int = 256, seed: int = 0, lr: float = 2e-3,
          hard_weight: float = 4.0, width: int = 16, depth: int = 3, recipe: dict | None = None, log=print,
          hulls: bool = False, init: Path | None = None) -> dict:
    """Train on the tables of every game but one in ten (held out for the figures: the tables of
    one game share its armies, so holding out tables alone would flatter the figures), export
    ONNX in floating point (kept in training/) and in 8 bits (shipped), write the card.

    Batches draw the summits worth a second look (a vexillum, or not one piece, or a basin
    mass that says otherwise) ``hard_weight`` times as often as the others. ``hulls``: the
    windows are trireme summits of seas (:func:`table_hull_windows`), and the classifier, without
    a vexillum output, ships as ``pieces-hulls.onnx``. ``init``: continue from these weights (a
    ``.pt`` written by an earlier run, of the same width and depth) instead of from scratch."""
    import torch
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    files = sorted(Path(data_dir).glob("*-*[0-9].npz"))
    if not files:
        raise AugurError(f"no windows in {data_dir} (run with --images first)")
    data = load_windows(files)
    held = data["game"] % 10 == 0
    train_idx, held_idx = np.flatnonzero(~held), np.flatnonzero(held)
    # the history reads the ordinary tables' held-out games, comparable with classifiers trained without rich ones
    report_idx = held_idx[~data["rich"][held_idx]] if (~data["rich"][held_idx]).any() else held_idx
    if not len(train_idx) or not (hulls or data["label"][train_idx].any()):
        raise AugurError("no vexillum among the training windows: render more tables")
    rule = np.minimum(data["rule"], PIECE_CLASSES - 1)
    # summits on the sea off a coast are few (about one in forty on easy tables), and a spilled pile is read there
    hard = (data["label"] == 1) | (data["pieces"] != 1) | (rule != data["pieces"]) | data["at_sea"]
    draw = np.where(hard[train_idx], hard_weight, 1.0)
    draw /= draw.sum()
    log(f"{len(files)} tables, {len(train_idx)} training windows ({int(data['label'][train_idx].sum())} vexilla, "
        f"{hard[train_idx].mean():.1%} worth a second look), {len(held_idx)} held out")
    net = build_net(width, depth, flag=not hulls)
    if init is not None:
        load_weights(net, Path(init))
    bce, ce = torch.nn.functional.binary_cross_entropy_with_logits, torch.nn.functional.cross_entropy

    def loss_of(out, idx):
        loss = ce(out[:, -PIECE_CLASSES:], torch.from_numpy(data["pieces"][idx]))
        if not hulls:
            loss = loss + bce(out[:, 0], torch.from_numpy(data["label"][idx].astype(np.float32)))
        return loss

    t0 = time.time()
    history = fit(net, data, train_idx, draw, rng, epochs, batch, lr, loss_of,
                  lambda: held_out_figures(data, report_idx, _logits(net, data, report_idx))["at_0.9"], log)
    models = Path(models)
    (models / "training").mkdir(parents=True, exist_ok=True)
    name = "pieces-hulls" if hulls else "pieces-summits"
    torch.save(net.state_dict(), models / "training" / f"{name}.pt")
    float_path = float_original(models / f"{name}.onnx")
    export(net, float_path)
    quantize_classifier(float_path, models / f"{name}.onnx", _batch(data, calibration_windows(train_idx), None, False))
    by_tier, rich_by_tier = {}, {}
    for tier in sorted(set(data["tier"][held_idx])):
        for rich, figures in ((False, by_tier), (True, rich_by_tier)):
            sel = held_idx[(data["tier"][held_idx] == tier) & (data["rich"][held_idx] == rich)]
            if len(sel):
                figures[tier] = held_out_figures(data, sel, _logits(net, data, sel))
    card = {"model": f"{name}.onnx",
            "architecture": f"3-stage convolutional window classifier, {depth} convolutions a stage",
            "input": f"N x {CHANNELS} x {PATCH} x {PATCH} (frame and reference planes of the counting network's input, "
                     f"and the candidate {'trireme summits of seas' if hulls else 'summits'} marked, 0..255)",
            "output": ("N x 4 logits: 0, 1, 2, 3 or more triremes at the window's centre" if hulls else
                       "N x 5 logits: vexillum, then 0, 1, 2, 3 or more pieces at the window's centre"),
            "parameters": int(sum(q.numel() for q in net.parameters())),
            "data": {**(recipe or {}), "tables": len(files), "vexillum_rich_tables": int(sum(is_rich(int(f.stem.split("-")[1]))
                                                                                          for f in files)),
                     "windows": int(len(data["label"])),
                     "tables_per_game": TABLES_PER_GAME,
                     **({"reach_legionary_widths": HULL_REACH} if hulls else
                        {"vexilla": int(data["label"].sum()), "pile": PILE, "lone_share": LONE_SHARE, "match": MATCH})},
            **({"init": Path(init).name} if init is not None else {}),
            "seed": seed, "epochs": epochs, "batch": batch, "lr": lr, "hard_weight": hard_weight, "width": width,
            "depth": depth,
            "weights": f"8-bit ({FORMAT}), calibrated on every {CALIBRATION_STEP}th training "
                       "window; the history and held-out figures are read in floating point",
            "history": history, "held_out": by_tier,
            **({"held_out_vexillum_rich": rich_by_tier} if rich_by_tier else {}),
            "train_minutes": round((time.time() - t0) / 60, 1)}
    (models / f"{name}.json").write_text(json.dumps(card, indent=1) + "\n")
    return card


def fit(net, data: dict, train_idx: np.ndarray, draw: np.ndarray, rng: np.random.Generator, epochs: int, batch: int,
        lr: float, loss_of, held_out, log=print) -> list[dict]:
    """Train ``net`` in place: ``epochs`` of len(train_idx) // batch batches drawn from
    ``train_idx`` with probabilities ``draw`` (shifted, turned and mirrored, :func:`_batch`),
    AdamW on a one-cycle schedule to ``lr``; ``loss_of(output, indices)`` is a batch's loss and
    ``held_out()`` the figures logged after each epoch. Returns the history, one entry an epoch.
    The window classifiers (summits, hulls, lying pieces) all train this way."""
    import torch
    steps = max(1, len(train_idx) // batch)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps, pct_start=0.1)
    history = []
    t0 = time.time()
    for epoch in range(epochs):
        net.train()
        total = 0.0
        for _ in range(steps):
            idx = rng.choice(train_idx, batch, p=draw)
            loss = loss_of(net(torch.from_numpy(_batch(data, idx, rng, True))), idx)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() / steps
        history.append({"epoch": epoch + 1, "loss": round(total, 4), "held_out_at_0.9": held_out(),
                        "minutes": round((time.time() - t0) / 60, 1)})
        log(json.dumps(history[-1]))
    return history


def require_weights(path: Path) -> Path:
    """``path``, refused in one line when there is no file to continue from (the CLI asks before
    rendering, which takes minutes)."""
    if not Path(path).is_file():
        raise AugurError(f"no weights to continue from at {path}")
    return Path(path)


def load_weights(net, path: Path) -> None:
    """Load ``path`` (a state dict saved by :func:`train`) into ``net``; weights of another shape
    (another width, depth, or the other classifier) are refused in one line."""
    import torch
    path = require_weights(path)
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        net.load_state_dict(state)
    except (RuntimeError, KeyError, EOFError, OSError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise AugurError(f"cannot continue from {path}: not weights of this classifier's shape ({first})") from None


#: Every this many training windows calibrate the 8-bit quantisation (about 3,700 windows).
CALIBRATION_STEP = 35


def calibration_windows(train_idx: np.ndarray) -> np.ndarray:
    """The training windows that calibrate the 8-bit ranges: every CALIBRATION_STEP-th."""
    return train_idx[::CALIBRATION_STEP]


def export(net, path: Path) -> None:
    import torch
    net.eval()
    torch.onnx.export(net, torch.zeros(2, CHANNELS, PATCH, PATCH), str(path), input_names=["windows"],
                      output_names=["logits"], opset_version=17,
                      dynamic_axes={"windows": {0: "n"}, "logits": {0: "n"}}, dynamo=False)
