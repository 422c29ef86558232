"""Reproduce the shipped counting network (``augur train-counter``; needs the ``[train]`` extra).

The data: seeded renders of each tier (a game image and the calibration photo of the same
table), calibrated by the real calibration code and cut by :mod:`vision.density`'s input functions
exactly as at run time. Each sample keeps the network input and every piece's footprint,
kind and colour in output cells (and whether it stands spilled off its island), and the occluder
mask; target maps are drawn per crop.

Shapes of encoder-decoder (:data:`ARCHS`): the small one (0.14 M weights) trained on the 2-core
CPU until session 14; the wide one (0.45 M) shipped from session 15 to 99, trained on one GPU with
the crops cut on the device; two lean ones with less work at half resolution, taught by the wide
one (sessions 55 to 64, not shipped); and the broad one (0.78 M), the wide one with more channels
at 1/4 and 1/8, widened from its weights in session 99 and shipped since session 100 as the mean
of four fine-tunes (``augur average-counter``). All are exported to ONNX with dynamic height and
width.
torch is imported only here; the run time uses onnxruntime (:mod:`vision.density`).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

from calibration.lens import undistort_points
from tracker.errors import AugurError
from tracker.pieces import SPQR_PIECES, VEXILLUM_VALUE
from vision.density import (COLOUR_AT, COLOURS, KIND_AT, KINDS, N_OUT, STRIDE, Crop, counting_crop, network_input,
                            output_to_image, reference_input)
from vision.geometry import load_geometry
from vision.synth.board_art import PrintedBoard
from vision.synth.dataset import (PRINT_TABLE_STREAM, RICH_TABLE_STREAM, TIER_SEED, TOPPLED_TABLES, game_states,
                                  table_draw, toppled_of_table)

#: Training crops, in input pixels.
CROP = 256
#: Width (output cells) of the blob each piece adds to its kind's density; its mass is 1.
SIGMA = 1.0
#: A piece more hidden than this by a hand or an object is not a target (it cannot be seen).
MAX_HIDDEN = 0.5


# -- data --------------------------------------------------------------------------------
#: A vexillum-rich table shows one of the RICH_SHARE of its game's states with the most full tens.
RICH_SHARE = 0.1


def full_tens(state) -> int:
    """How many vexilla a state's armies could stand as: the full tens of every province's strength."""
    return sum(SPQR_PIECES.strength(kinds) // VEXILLUM_VALUE
               for content in state.regions.values() for kinds in content.values())


def rich_steps(steps: list) -> list:
    """The RICH_SHARE of ``steps`` whose armies could stand as the most vexilla (late, crowded boards):
    vexilla are about 2 % of the summits of ordinary tables, too few for the summit classifier to
    learn them on tilted, dim ones."""
    order = sorted(range(len(steps)), key=lambda k: (-full_tens(steps[k].state), k))
    return [steps[k] for k in sorted(order[:max(1, round(RICH_SHARE * len(steps)))])]


def is_rich_table(rich_share: float, tier: str, seed: int, i: int) -> bool:
    """Whether counting-network training table ``i`` of a tier shows a vexillum-rich state of its
    game (:func:`rich_steps`): a seeded ``rich_share`` of the tables, drawn from the table's own
    stream, so the share changes no other draw. The big piles and the vexilla are where most of
    the hard tables' wrong regions stand (``models/README.md``, session 101), and ordinary tables
    show few of them."""
    return rich_share > 0 and table_draw(tier, seed, i, RICH_TABLE_STREAM) < rich_share


def render_table(tier: str, seed: int, i: int, steps: list, rich: bool = False,
                 board_print: PrintedBoard | None = None, toppled: float = 0.0):
    """Training table ``i`` of a tier: a state drawn from ``steps`` (a simulated game's committed
    states; ``rich``: from those with the most full tens, see :func:`rich_steps`), rendered, and
    the calibration made from its empty photo. ``board_print``: render the table (and its
    calibration photo) on a real board's print, its pieces inside the print's own borders, as
    ``augur bench vision --board-photo`` does; the calibration still compares the photo with the
    procedural art, as at a real table. ``toppled``: that share of the legionaries and vexilla lie
    knocked over (the calibration photo shows the empty board). Returns the image, its ground
    truth and the profile; raises AugurError when the photo is not understood."""
    from calibration.profile import calibrate
    from vision.synth.board_art import procedural_art
    from vision.synth.render import calibration_render

    if rich:
        steps = rich_steps(steps)
    art, _ = PrintedBoard.parts(board_print)
    img, truth = render_frame(tier, seed, i, frame_steps(steps, tier, seed, i, 1)[0], board_print, toppled)
    return img, truth, calibrate(calibration_render(truth, art), procedural_art(), players=truth.players)


def render_frame(tier: str, seed: int, i: int, step, board_print: PrintedBoard | None = None,
                 toppled: float = 0.0):
    """A photo of table ``i`` showing ``step``'s state: the table's seed draws its camera and light
    (see :func:`make_samples`), on the procedural art or ``board_print``, ``toppled`` of its
    legionaries and vexilla knocked over."""
    from vision.synth.render import render

    art, geometry = PrintedBoard.parts(board_print)
    return render(step.state, tier, seed=(seed, i, TIER_SEED[tier]), vp=step.vp, art=art, geometry=geometry,
                  toppled=toppled)


@dataclass(frozen=True)
class PrintChoice:
    """Which training tables are rendered on a real print: a seeded ``share`` of them, on the
    top-down photo ``photo`` turned north up by ``rotate``. Every table of the counting network
    before session 35 showed the procedural art; the real print has its own tones, texture and
    lettering, and on it session 19's network reads easy tables about two points worse
    (``models/README.md``, sessions 34 and 35)."""
    photo: str
    rotate: str = "none"
    share: float = 0.5

    def on_print(self, tier: str, seed: int, i: int) -> bool:
        """Whether table ``i`` of ``tier`` is rendered on the print (drawn from its own stream, so
        the share changes no other draw of the table)."""
        return table_draw(tier, seed, i, PRINT_TABLE_STREAM) < self.share

    def describe(self) -> str:
        """How the folder remembers it (``print.txt``)."""
        return f"{self.share:g} of the tables on {Path(self.photo).name} turned {self.rotate}"


_PRINTS: dict[PrintChoice, PrintedBoard] = {}


def printed_board(prints: PrintChoice) -> PrintedBoard:
    """The print of ``prints``' photo, read and fitted once per process (fitting the map takes
    seconds; rendering workers are handed the parent's, see :func:`write_data`)."""
    if prints not in _PRINTS:
        _PRINTS[prints] = PrintedBoard.from_photo(prints.photo, prints.rotate)
    return _PRINTS[prints]


def print_of_table(prints: PrintChoice | None, tier: str, seed: int, i: int) -> PrintedBoard | None:
    """The print table ``i`` of a tier is rendered on, or None for the procedural art."""
    return printed_board(prints) if prints is not None and prints.on_print(tier, seed, i) else None


def frame_steps(steps: list, tier: str, seed: int, i: int, frames: int) -> list:
    """The game states the ``frames`` frames of table ``i`` show: frame 0's is :func:`render_table`'s
    draw, each later frame's is drawn from its own stream, and no two frames show the same state
    (while the game has states enough)."""
    picks = [int(np.random.default_rng([seed, i, TIER_SEED[tier], 7]).integers(len(steps)))]
    for k in range(1, frames):
        rng = np.random.default_rng([seed, i, TIER_SEED[tier], 7, k])
        j = int(rng.integers(len(steps)))
        while j in picks and len(picks) < len(steps):
            j = int(rng.integers(len(steps)))
        picks.append(j)
    return [steps[j] for j in picks]


def make_samples(tier: str, seed: int, i: int, frames: int = 1, counter_view: bool = False,
                 prints: PrintChoice | None = None, rich_share: float = 0.0, toppled: float = 0.0) -> list[dict]:
    """The training samples of table ``i``: ``frames`` photos of one table, calibrated once.

    Calibrating a table (finding the board, its lens, its light) takes about 2 s of the 2.3 s a
    sample costs; rendering a photo about 0.15 s. Later frames show other states of the game on the
    same table: the render's seed draws the camera and the light before the pieces, so each frame
    is taken by the calibration photo's camera in its light, as at a real table through an evening,
    while its pieces, hands, glare and sensor noise are its own. Frame 0 is the table's own draw
    (:func:`frame_steps`).
    A table :func:`is_rich_table` picks for ``rich_share`` shows vexillum-rich states in every frame,
    and one :func:`vision.synth.dataset.toppled_of_table` picks for ``toppled`` that share of its
    legionaries and vexilla knocked over in every frame."""
    board_print = print_of_table(prints, tier, seed, i)
    toppled = toppled_of_table(toppled, tier, seed, i)
    steps = _states(seed)
    if is_rich_table(rich_share, tier, seed, i):
        steps = rich_steps(steps)
    img, truth, profile = render_table(tier, seed, i, steps, board_print=board_print, toppled=toppled)
    samples = [sample_from(img, truth, profile, counter_view)]
    for step in frame_steps(steps, tier, seed, i, frames)[1:]:
        samples.append(sample_from(*render_frame(tier, seed, i, step, board_print, toppled), profile, counter_view))
    return samples


def sample_from(img: np.ndarray, truth, profile, counter_view: bool = False) -> dict:
    """The network input of a rendered image and its targets: every visible piece's footprint
    (output cells), kind and colour, and the occluder mask (output cells).

    ``counter_view``: cut exactly as :class:`vision.density.DensityCounter` reads a frame, undistorted
    by the calibrated lens and at its counting scale (:func:`vision.density.counting_crop`).
    Otherwise the raw frame at the camera's own scale, as the shipped stages 1 to 5 were trained.

    ``spilled`` marks each piece standing off its own province (a pile spilled off a small island
    onto the sea), so training crops may be centred on them (:class:`_Crops`' ``spill_share``)."""
    geo = load_geometry(profile.board_id)
    if counter_view:
        crop = counting_crop(profile, geo)
        frame, occluder = profile.undistort(img), profile.undistort(truth.occluder)
    else:
        crop = Crop.around(profile.pose.corners, tuple(profile.image_size))
        frame, occluder = img, truth.occluder
    x = network_input(frame, reference_input(profile, crop), profile.gains, crop)
    seen = [p for p in truth.pieces if p.occluded <= MAX_HIDDEN]
    spilled = [p.region is not None and geo.board.is_province(p.region) and geo.region_at(*p.board_xy) != p.region
               for p in seen]
    feet = np.array([p.footprint for p in seen], np.float64).reshape(-1, 2)
    if counter_view:
        feet = undistort_points(feet, profile.image_size, profile.k1)
    to_out = np.linalg.inv(output_to_image(crop))
    pts = cv2.perspectiveTransform(feet.reshape(-1, 1, 2), to_out).reshape(-1, 2) if len(feet) else feet
    kinds = [KINDS.index(p.kind) for p in seen]
    colours = [COLOURS.index(p.colour) for p in seen]
    occ = np.zeros(crop.size[::-1], np.uint8)
    part = occluder[crop.y0:crop.y1, crop.x0:crop.x1]
    occ[:part.shape[0], :part.shape[1]] = part
    occ = cv2.resize(occ, (x.shape[1] // STRIDE, x.shape[0] // STRIDE), interpolation=cv2.INTER_AREA) > 127
    return {"x": x, "pts": np.array(pts, np.float32).reshape(-1, 2), "kind": np.array(kinds, np.int8),
            "colour": np.array(colours, np.int8), "occ": occ, "spilled": np.array(spilled, bool)}


def ideal_output(sample: dict) -> np.ndarray:
    """The maps a perfect network would output for a sample (N_OUT x h x w): tests read them."""
    h, w = sample["occ"].shape
    dens, colour, kind, occ = targets(sample, 0, 0, w, h)
    out = np.zeros((N_OUT, h, w), np.float32)
    out[0] = dens.sum(axis=0)
    # where pieces of two kinds meet, each cell's kind is the one with more density there
    out[KIND_AT] = np.where(dens > 0, 20.0 * (dens == dens.max(axis=0, keepdims=True)), 0.0)
    ys, xs = np.nonzero(colour >= 0)
    out[COLOUR_AT.start + colour[ys, xs], ys, xs] = 10.0
    out[-1] = occ * 20 - 10
    return out


_STATES: dict[int, list] = {}


def _states(seed: int) -> list:
    if seed not in _STATES:
        _STATES[seed] = game_states(seed)
    return _STATES[seed]


def save_once(path: Path, make) -> str:
    """Write the arrays ``make()`` returns to ``path`` unless it (or its ``.skipped`` note) exists,
    so an interrupted rendering resumes; a table whose calibration photo was not understood
    leaves the note instead. Returns the file's name, or "" for a skipped table."""
    names = save_frames([path], lambda: [make()])
    return names[0] if names else ""


def save_frames(paths: list[Path], make) -> list[str]:
    """:func:`save_once` for a table of several frames: ``make()`` returns one set of arrays per
    path. The first path is written last, so a table is done when it exists (an interrupted
    table is rendered again whole: its frames are drawn from seeds, the same again). The
    ``.skipped`` note goes beside the first path. Returns the files' names, or [] when skipped."""
    first = paths[0]
    skip = first.with_suffix(".skipped")
    if skip.is_file():
        return []
    if not first.is_file():
        try:
            frames = make()
        except AugurError as exc:          # the calibration photo was not understood: no sample
            skip.write_text(f"{exc}\n")
            return []
        for path, arrays in reversed(list(zip(paths, frames, strict=True))):
            tmp = path.with_suffix(".tmp.npz")
            np.savez_compressed(tmp, **arrays)
            tmp.rename(path)
    return [path.name for path in paths]


def one_thread() -> None:
    """A rendering worker's OpenCV runs on one thread: the workers already fill the cores. On a
    16-core machine, sixteen workers rendered the 3,300 training tables in 247 s with OpenCV's own
    threads and in 204 s with one each (and OMP_NUM_THREADS=1)."""
    cv2.setNumThreads(1)


def rendering_worker(prints: PrintChoice | None, board: PrintedBoard | None) -> None:
    """A rendering worker: OpenCV on one thread, and the print already fitted by the parent."""
    one_thread()
    if prints is not None:
        _PRINTS[prints] = board


def table_paths(out: Path, tier: str, i: int, frames: int) -> list[Path]:
    """The sample files of table ``i``: frame 0 keeps the name of a one-frame table."""
    return [out / f"{tier}-{i:05d}.npz"] + [out / f"{tier}-{i:05d}-{k}.npz" for k in range(1, frames)]


@dataclass(frozen=True)
class TableJob:
    """One table for a rendering worker to write (see :func:`write_data`)."""
    out: Path
    tier: str
    seed: int
    i: int
    frames: int = 1
    counter_view: bool = False
    prints: PrintChoice | None = None
    #: a time (``time.time()``) after which a table not yet rendered is left out
    until: float | None = None
    #: the share of tables showing their game's most crowded states (:func:`is_rich_table`)
    rich_share: float = 0.0
    #: the share of pieces knocked over on the tables that show some (:func:`make_samples`)
    toppled: float = 0.0


def _write_one(job: TableJob) -> int:
    """Render and save one table unless it is done; the number of its samples on disk."""
    paths = table_paths(job.out, job.tier, job.i, job.frames)
    if job.until is not None and time.time() > job.until and not paths[0].is_file():
        return 0
    return len(save_frames(paths, lambda: make_samples(job.tier, job.seed, job.i, job.frames, job.counter_view,
                                                       job.prints, job.rich_share, job.toppled)))


def interleaved(n_per_tier: dict[str, int]) -> list[tuple[str, int]]:
    """Every (tier, table) of ``n_per_tier``, the tiers interleaved in proportion to their counts,
    so a rendering cut off at a deadline keeps the mix it was asked for."""
    return sorted(((tier, i) for tier, n in n_per_tier.items() for i in range(n)),
                  key=lambda job: ((job[1] + 0.5) / n_per_tier[job[0]], job[0]))


class SampleFolderError(AugurError):
    """A samples folder holds tables rendered with another seed, or cut from another view."""


#: How a samples folder's tables were cut: as the camera took them, or as the counter reads them.
VIEW_NAMES = {False: "camera", True: "counter"}
#: ``print.txt`` of a folder whose tables all show the procedural art.
NO_PRINT = "none"


def describe_prints(prints: PrintChoice | None) -> str:
    """How a folder remembers which of its tables show a print (``print.txt``)."""
    return prints.describe() if prints is not None else NO_PRINT


def describe_toppled(share: float) -> str:
    """How a folder remembers its knocked-over pieces (``toppled.txt``): the share knocked over on
    the tables :func:`vision.synth.dataset.toppled_of_table` picks, or "none"."""
    return f"{share:g} on {TOPPLED_TABLES:g} of the tables" if share else "none"


def check_settings(out: Path, what: str, wanted: dict[str, tuple[str, str]], defaults: dict[str, str],
                   error: type[AugurError] = AugurError) -> None:
    """Refuse a folder of rendered ``what`` (samples, windows) made with other settings, so a
    later run cannot silently train on the old tables: ``wanted`` maps each settings file to how
    the message says it and its value, and ``defaults`` gives the value of a setting that a
    folder written before it existed holds. :func:`write_settings` records them."""
    found = {name: (out / name).read_text().strip() for name in wanted if (out / name).is_file()}
    if found:
        found = {**defaults, **found}
    for name, (says, value) in wanted.items():
        if name in found and found[name] != value:
            raise error(f"the {what} in {out} {says} '{found[name]}', not '{value}': choose another --work folder")


def write_settings(out: Path, wanted: dict[str, tuple[str, str]]) -> None:
    """Record the settings :func:`check_settings` accepted in folder ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    for name, (_, value) in wanted.items():
        (out / name).write_text(f"{value}\n")


def write_data(out: Path, n_per_tier: dict[str, int], seed: int, workers: int = 2, progress=None,
               counter_view: bool = False, prints: PrintChoice | None = None, frames: int = 1,
               render_for: float | None = None, rich_share: float = 0.0, toppled: float = 0.0) -> list[Path]:
    """Render the samples (resumable: existing files are kept), ``frames`` per table (see
    :func:`make_samples`). ``render_for``: seconds after which no new table is begun (a GPU
    lease is short, and rendering is most of it); the tiers are interleaved, so the tables
    rendered by then keep the mix of ``n_per_tier``. ``rich_share``: the share of tables showing
    vexillum-rich states (:func:`is_rich_table`); ``toppled``: the share of pieces knocked over on
    the half of the tables that show some (:func:`make_samples`).

    The folder remembers the seed its samples were rendered with (``seed.txt``), how they were
    cut (``view.txt``; none means the camera's view), which show a real print (``print.txt``;
    none means none), the frames per table (``frames.txt``; none means one), the vexillum-rich
    share (``rich.txt``; none means 0) and the pieces knocked over (``toppled.txt``; none means
    none), so a later run with other settings cannot silently train on the old tables."""
    if frames < 1:
        raise AugurError(f"a table needs at least one frame, not {frames}")
    wanted = {"seed.txt": ("were rendered with seed", str(seed)),
              "view.txt": ("were rendered with view", VIEW_NAMES[counter_view]),
              "print.txt": ("were rendered with prints", describe_prints(prints)),
              "frames.txt": ("were rendered with frames per table", str(frames)),
              "rich.txt": ("were rendered with a vexillum-rich share", f"{rich_share:g}"),
              "toppled.txt": ("were rendered with knocked-over pieces", describe_toppled(toppled))}
    check_settings(out, "samples", wanted, {"view.txt": VIEW_NAMES[False], "print.txt": NO_PRINT, "frames.txt": "1",
                                            "rich.txt": "0", "toppled.txt": describe_toppled(0.0)}, SampleFolderError)
    until = time.time() + render_for if render_for is not None else None
    # a photo that is not a board fails here, once; the workers are handed the fitted print
    board = printed_board(prints) if prints is not None else None
    write_settings(out, wanted)
    jobs = [TableJob(out, tier, seed, i, frames, counter_view, prints, until, rich_share, toppled)
            for tier, i in interleaved(n_per_tier)]
    done = 0
    # spawned, not forked: the print's map was fitted here by threaded OpenCV and numpy, and a forked
    # worker that inherits a lock one of those threads held hangs forever (seen: both workers asleep;
    # and so did load_samples' workers, forked after it)
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=rendering_worker,
                             initargs=(prints, board)) as ex:
        for _ in ex.map(_write_one, jobs, chunksize=4):
            done += 1
            if progress:
                progress(done, len(jobs))
    return sorted(out.glob("*-*[0-9].npz"))


# -- targets -----------------------------------------------------------------------------
def _blob(fx: float, fy: float) -> tuple[int, int, np.ndarray]:
    """A 5x5 Gaussian of mass 1 centred on the sub-cell point (fx, fy)."""
    ix, iy = int(np.floor(fx)) - 2, int(np.floor(fy)) - 2
    xs = np.arange(ix, ix + 5) - fx
    ys = np.arange(iy, iy + 5) - fy
    g = np.exp(-(ys[:, None] ** 2 + xs[None, :] ** 2) / (2 * SIGMA ** 2))
    return ix, iy, g / g.sum()


def targets(sample: dict, x0: int, y0: int, w: int, h: int) -> tuple[np.ndarray, ...]:
    """Of an output window: density per kind (kinds x h x w), and near each piece its colour and
    kind index (h x w, -1 elsewhere), and the occluder (h x w)."""
    dens = np.zeros((len(KINDS), h + 12, w + 12), np.float32)     # 6-cell border: blobs may hang over
    colour = np.full((h, w), -1, np.int64)
    kind = np.full((h, w), -1, np.int64)
    best = np.full((h, w), 9.0, np.float32)
    gy, gx = np.mgrid[0:h, 0:w].astype(np.float32)
    for (px, py), k, c in zip(sample["pts"], sample["kind"], sample["colour"]):
        fx, fy = px - x0, py - y0
        if not (-3 <= fx < w + 3 and -3 <= fy < h + 3):
            continue
        ix, iy, g = _blob(fx, fy)
        dens[k, iy + 6:iy + 11, ix + 6:ix + 11] += g
        d2 = (gx - fx) ** 2 + (gy - fy) ** 2
        near = d2 < np.minimum(best, 2.5 ** 2)
        colour[near] = c
        kind[near] = k
        best[near] = d2[near]
    occ_t = np.zeros((h, w), np.float32)
    part = sample["occ"][y0:y0 + h, x0:x0 + w]
    occ_t[:part.shape[0], :part.shape[1]] = part
    return dens[:, 6:-6, 6:-6], colour, kind, occ_t


# -- the network -------------------------------------------------------------------------
#: The counting networks' shapes. "small" (about 0.14 M weights) is the shipped network of sessions
#: 5 to 14, trained on the 2-core CPU. "wide" (about 0.45 M) has wider stages and a deeper, residual
#: stage at 1/8 resolution whose dilations reach about 60 input pixels around a pile; it costs about
#: twice the arithmetic, and was trained on a GPU (see models/README.md). Both keep three stride-2
#: stages, so the input stays a multiple of :data:`vision.density.MULTIPLE`. "lean" is "wide" with its
#: work at half resolution cut: one stem convolution of 16 channels instead of two of 24, and a
#: last decoder stage of 16 channels instead of 32. Those few-channel convolutions over the whole
#: frame took about half the wide network's time on a 2-core CPU without VNNI (60 of 115 ms a hard
#: frame in 8 bits) for a third of its arithmetic; in 8 bits the lean one reads a whole hard frame
#: about a fifth faster (165 against 207 ms p50, session 55). It learns from the wide one as a
#: teacher (``teacher`` in :func:`train`); one GPU lease of it read hard tables 4.7 points worse
#: (models/README.md, session 55), so it is not shipped.
ARCHS = {
    "small": {"channels": (16, 32, 64), "dilations": (2, 4), "decoder": (32, 24), "residual": False, "stem": 2},
    "wide": {"channels": (24, 48, 96), "dilations": (1, 2, 4, 8), "decoder": (48, 32), "residual": True, "stem": 2},
    "lean": {"channels": (16, 48, 96), "dilations": (1, 2, 4, 8), "decoder": (48, 16), "residual": True, "stem": 1},
    # the lean shape with its last decoder stage at 24 channels: where the teacher's summits are
    # sharpest, for a student that stopped gaining at 16 (models/README.md, "Session 64")
    "lean24": {"channels": (16, 48, 96), "dilations": (1, 2, 4, 8), "decoder": (48, 24), "residual": True, "stem": 1},
    # the wide shape with more channels at 1/4 and 1/8, where the arithmetic is cheap per input
    # pixel and a pile's summits merge: for accuracy, not speed; started from the wide weights it
    # computes at first exactly what they did (widened in session 99; shipped since session 100 as a
    # mean of fine-tunes: models/README.md)
    "broad": {"channels": (24, 64, 128), "dilations": (1, 2, 4, 8), "decoder": (64, 32), "residual": True, "stem": 2},
}


def build_net(arch: str = "small"):
    import torch
    from torch import nn

    shape = ARCHS[arch]
    c1, c2, c3 = shape["channels"]
    u2, u1 = shape["decoder"]

    def cbr(i, o, s=1, d=1, k=3):
        return nn.Sequential(nn.Conv2d(i, o, k, s, padding=d * (k // 2), dilation=d, bias=False),
                             nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class Residual(nn.Module):
        def __init__(self, block):
            super().__init__()
            self.block = block

        def forward(self, x):
            return x + self.block(x)

    def deep(c, d):
        return Residual(cbr(c, c, d=d)) if shape["residual"] else cbr(c, c, d=d)

    class DensityNet(nn.Module):
        """Input N x 6 x H x W (0..255), output N x N_OUT x H/2 x W/2."""

        def __init__(self):
            super().__init__()
            self.e1 = nn.Sequential(cbr(6, c1, 2), *(cbr(c1, c1) for _ in range(shape["stem"] - 1)))
            self.e2 = nn.Sequential(cbr(c1, c2, 2), cbr(c2, c2))
            self.e3 = nn.Sequential(cbr(c2, c3, 2), *(deep(c3, d) for d in shape["dilations"]))
            # the small net fuses its skips with a 1x1 only at 1/4 (its state dict stays loadable)
            self.d2 = nn.Sequential(cbr(c3 + c2, u2, k=1), cbr(u2, u2))
            self.d1 = nn.Sequential(cbr(u2 + c1, u1, k=1 if shape["residual"] else 3), cbr(u1, u1))
            self.head = nn.Conv2d(u1, N_OUT, 1)
            self.up = nn.Upsample(scale_factor=2, mode="nearest")

        def forward(self, x):
            x = x / 127.5 - 1.0
            f1 = self.e1(x)
            f2 = self.e2(f1)
            f3 = self.e3(f2)
            u2 = self.d2(torch.cat([self.up(f3), f2], 1))
            u1 = self.d1(torch.cat([self.up(u2), f1], 1))
            y = self.head(u1)
            d = y[:, :1]
            if self.training:
                # a plain ReLU density goes dark everywhere early in training (most cells hold no
                # piece) and never recovers; this one is a ReLU going forward but passes the
                # gradient straight through, so a missed piece still pulls its cell back up. The
                # raw density comes back too, for the loss to hold it near zero (see loss_fn).
                return torch.cat([d + (torch.relu(d) - d).detach(), y[:, 1:]], 1), d
            return torch.cat([torch.relu(d), y[:, 1:]], 1)

    return DensityNet()


# -- training ----------------------------------------------------------------------------
class _Crops:
    """Random training crops: most centred near a piece, some anywhere on the board; random flips
    and quarter turns (any is a view a camera could have). Targets are drawn per crop (numpy, little
    memory: the CPU training of the shipped small network)."""

    def __init__(self, samples: list[dict], seed: int, balance_kinds: bool = False, spill_share: float = 0.0):
        if spill_share and any("spilled" not in s for s in samples):
            raise SampleFolderError("these samples were rendered before spilled pieces were marked: "
                                    "render them again (another --work folder) to centre crops on them")
        self.samples = samples
        # where crops may go: each sample's pieces, their kinds, which stand spilled off their island
        # and the input's size (the arrays themselves may move to a training device, see _TensorCrops)
        self.places = [(s["pts"], s["kind"], s.get("spilled", np.zeros(len(s["kind"]), bool)), s["x"].shape[:2])
                       for s in samples]
        self.rng = np.random.default_rng(seed)
        self.balance_kinds = balance_kinds
        self.spill_share = spill_share

    def _piece(self, kinds: np.ndarray, spilled: np.ndarray | None = None) -> int:
        """A piece to centre a crop on. ``spill_share`` of them (where the table has any) is a piece
        spilled off its island onto the sea: about one piece in sixty, and the network took them
        for the sea's triremes. Balanced by kind: first a kind present on the table (uniformly),
        then a piece of it: a vexillum is one piece in a hundred, and crops centred on pieces drawn
        uniformly almost never show one. Without either, the draws are those of the earlier recipes."""
        if self.spill_share and spilled is not None and spilled.any() and self.rng.random() < self.spill_share:
            return int(self.rng.choice(np.flatnonzero(spilled)))
        if not self.balance_kinds:
            return int(self.rng.integers(len(kinds)))
        kind = self.rng.choice(np.unique(kinds))
        return int(self.rng.choice(np.flatnonzero(kinds == kind)))

    def _place(self) -> tuple[int, int, int, float, float, int, bool]:
        """One crop's draw: the sample, its window's corner (input pixels, on the output grid), the
        brightness jitter (light drifts between calibration and play), the quarter turns and flip."""
        i = int(self.rng.integers(len(self.places)))
        pts, kinds, spilled, (H, W) = self.places[i]
        c = CROP
        if len(pts) and self.rng.random() < 0.75:
            px, py = pts[self._piece(kinds, spilled)] * STRIDE
            cx, cy = px + self.rng.uniform(-c / 3, c / 3), py + self.rng.uniform(-c / 3, c / 3)
        else:
            cx, cy = self.rng.uniform(0, W), self.rng.uniform(0, H)
        x0 = int(np.clip(cx - c / 2, 0, max(0, W - c))) // STRIDE * STRIDE
        y0 = int(np.clip(cy - c / 2, 0, max(0, H - c))) // STRIDE * STRIDE
        alpha, beta = float(self.rng.uniform(0.85, 1.15)), float(self.rng.uniform(-10, 10))
        return i, x0, y0, alpha, beta, int(self.rng.integers(4)), bool(self.rng.random() < 0.5)

    def batch(self, n: int):
        import torch
        xs, ds, cs, ks, os_ = [], [], [], [], []
        c = CROP
        for _ in range(n):
            i, x0, y0, alpha, beta, k, flip = self._place()
            s = self.samples[i]
            x = np.zeros((c, c, 6), np.uint8)
            part = s["x"][y0:y0 + c, x0:x0 + c]
            x[:part.shape[0], :part.shape[1]] = part
            d, col, kind, occ = targets(s, x0 // STRIDE, y0 // STRIDE, c // STRIDE, c // STRIDE)
            x[..., :3] = cv2.convertScaleAbs(x[..., :3], alpha=alpha, beta=beta)
            x = np.rot90(x, k, axes=(0, 1))
            d, col, kind, occ = (np.rot90(a, k, axes=(-2, -1)) for a in (d, col, kind, occ))
            if flip:
                x, d, col, kind, occ = x[:, ::-1], d[..., ::-1], col[..., ::-1], kind[..., ::-1], occ[..., ::-1]
            xs.append(np.ascontiguousarray(x.transpose(2, 0, 1)))
            ds.append(np.ascontiguousarray(d))
            cs.append(np.ascontiguousarray(col))
            ks.append(np.ascontiguousarray(kind))
            os_.append(np.ascontiguousarray(occ))
        return tuple(torch.from_numpy(np.stack(a)) for a in (xs, ds, cs, ks, os_))


def whole_targets(sample: dict) -> dict:
    """A sample with the targets of its whole output grid drawn once (:func:`targets` of the full
    window: a crop of them equals the crop's own targets, as every piece near it is drawn), for
    :class:`_TensorCrops`. The density is summed over kinds, as the loss reads it."""
    h, w = sample["occ"].shape
    dens, colour, kind, occ = targets(sample, 0, 0, w, h)
    return {**sample, "dens": dens.sum(axis=0, keepdims=True), "colour_map": colour.astype(np.int8),
            "kind_map": kind.astype(np.int8), "occ_map": occ.astype(np.uint8)}


def _load_whole(path: Path) -> dict:
    return whole_targets(dict(np.load(path)))


class _TensorCrops(_Crops):
    """The same crops as :class:`_Crops`, cut by torch from samples and whole targets held on the
    training device (a GPU: the numpy crops could not feed it)."""

    def __init__(self, samples: list[dict], seed: int, balance_kinds: bool = False, device: str = "cuda",
                 spill_share: float = 0.0):
        import torch
        super().__init__(samples, seed, balance_kinds, spill_share)
        self.held = [{"x": torch.from_numpy(s["x"]).to(device).permute(2, 0, 1),
                      "dens": torch.from_numpy(s["dens"]).to(device),
                      "colour": torch.from_numpy(s["colour_map"]).to(device),
                      "kind": torch.from_numpy(s["kind_map"]).to(device),
                      "occ": torch.from_numpy(s["occ_map"]).to(device)} for s in samples]

    def batch(self, n: int):
        import torch
        import torch.nn.functional as F
        c, o = CROP, CROP // STRIDE
        parts: dict[str, list] = {"x": [], "dens": [], "colour": [], "kind": [], "occ": []}
        jitter = []
        for _ in range(n):
            i, x0, y0, alpha, beta, k, flip = self._place()
            for name, t in self.held[i].items():
                if name == "x":
                    a = t[:, y0:y0 + c, x0:x0 + c]
                    pad = (0, c - a.shape[2], 0, c - a.shape[1])
                else:
                    a = t[..., y0 // STRIDE:y0 // STRIDE + o, x0 // STRIDE:x0 // STRIDE + o]
                    pad = (0, o - a.shape[-1], 0, o - a.shape[-2])
                if any(pad):
                    a = F.pad(a, pad, value=-1 if name in ("colour", "kind") else 0)
                a = torch.rot90(a, k, dims=(-2, -1))
                parts[name].append(a.flip(-1) if flip else a)
            jitter.append((alpha, beta))
        x = torch.stack(parts["x"]).float()
        ab = torch.tensor(jitter, device=x.device, dtype=torch.float32)
        x[:, :3] = (x[:, :3] * ab[:, 0, None, None, None] + ab[:, 1, None, None, None]).abs().round().clamp(0, 255)
        return (x, torch.stack(parts["dens"]), torch.stack(parts["colour"]).long(),
                torch.stack(parts["kind"]).long(), torch.stack(parts["occ"]).float())


#: Kind classes weighted against their rarity (about 120 legionaries to 1 vexillum, 10 triremes
#: and 3 centres per table).
KIND_WEIGHTS = (1.0, 4.0, 2.0, 2.0)
#: Weight of the occluder loss, and of its occluded cells against the (far more) visible ones.
#: At 0.3 and unweighted, the head learnt to mark almost nothing (3 of 1,498 hidden regions).
OCC_WEIGHT = 1.0
OCC_POS_WEIGHT = 3.0


#: The raw density (before its ReLU) is held above -RAW_FLOOR by a squared hinge of this weight.
#: The count loss pushes every cell of an over-counted window down, the dark ones too, and nothing
#: pushed them back: in a long GPU run the raw density of empty cells sank to -400, the weights
#: grew to carry it and every loss rose again after 4,000 to 6,600 steps (the small network shipped
#: until session 14 sank to -85 over its CPU stages).
RAW_FLOOR = 1.0
FLOOR_WEIGHT = 1.0


def loss_fn(out, dens, colour, kind, occ, raw=None):
    """Counts first: the L1 error of the piece count in windows of 4, 8 and 16 cells, plus the
    per-cell density error (where the mass sits); then the kind and colour of the cells near a
    piece, and the occluder; and with ``raw`` (the density before its ReLU), how far it sinks below
    -RAW_FLOOR."""
    import torch
    import torch.nn.functional as F
    d, t = out[:, :1], dens.sum(1, keepdim=True)
    pix = F.mse_loss(d, t) * 1000
    cnt = sum((F.avg_pool2d(d, k) - F.avg_pool2d(t, k)).abs().mean() * k for k in (4, 8, 16))
    weights = torch.tensor(KIND_WEIGHTS, dtype=out.dtype, device=out.device)
    # weighted means over the cells near a piece, written out so that a crop with none costs no
    # branch (on a GPU a branch on the targets would wait for the device every step)
    kd = F.cross_entropy(out[:, KIND_AT], kind, weight=weights, ignore_index=-1, reduction="sum") \
        / (weights[kind.clamp(min=0)] * (kind >= 0)).sum().clamp(min=1e-6)
    col = F.cross_entropy(out[:, COLOUR_AT], colour, ignore_index=-1, reduction="sum") \
        / (colour >= 0).sum().clamp(min=1)
    oc = F.binary_cross_entropy_with_logits(out[:, -1], occ, pos_weight=torch.tensor(OCC_POS_WEIGHT, dtype=out.dtype,
                                                                                     device=out.device))
    parts = {"pix": pix, "count": cnt, "kind": kd, "colour": col, "occ": oc}
    total = pix + cnt + kd + col + OCC_WEIGHT * oc
    if raw is not None:
        parts["floor"] = (torch.relu(-raw.float() - RAW_FLOOR) ** 2).mean()
        total = total + FLOOR_WEIGHT * parts["floor"]
    return total, {k: v.detach() for k, v in parts.items()}


def distill_loss(out, teach, colour, kind):
    """How far a student's maps are from its teacher's on the same crops (see :func:`train`): the
    density cell by cell and in windows, weighed as :func:`loss_fn` weighs the truth; the kind and
    colour as the teacher's probabilities, on the cells near a piece; the occluder as the teacher's
    probability. Why a teacher as well as the truth: it says at every cell what the shipped network
    makes of the pixels, which that network took many sessions of fine-tunes to learn; a new shape
    learns it from the teacher faster than from the truth alone, though 11,000 steps were not
    enough (session 55)."""
    import torch
    import torch.nn.functional as F
    d, t = out[:, :1], teach[:, :1]
    pix = F.mse_loss(d, t) * 1000
    cnt = sum((F.avg_pool2d(d, k) - F.avg_pool2d(t, k)).abs().mean() * k for k in (4, 8, 16))

    def soft(at, near):
        near = near.to(out.dtype)
        ce = -(torch.softmax(teach[:, at], 1) * torch.log_softmax(out[:, at], 1)).sum(1)
        return (ce * near).sum() / near.sum().clamp(min=1)

    oc = F.binary_cross_entropy_with_logits(out[:, -1], torch.sigmoid(teach[:, -1]))
    return pix + cnt + soft(KIND_AT, kind >= 0) + soft(COLOUR_AT, colour >= 0) + OCC_WEIGHT * oc


def load_checkpoint(path: Path) -> dict:
    """The weights in the checkpoint ``path``; a missing, truncated or foreign file is one line."""
    import torch
    if not Path(path).is_file():
        raise AugurError(f"checkpoint not found: {path}")
    try:
        state = torch.load(path, map_location="cpu")
    except Exception as exc:            # a truncated or foreign file: one line, not torch's traceback
        raise AugurError(f"not a checkpoint of weights: {path} ({type(exc).__name__})") from exc
    if not isinstance(state, dict):
        raise AugurError(f"not a checkpoint of weights: {path} (a {type(state).__name__})")
    return state


def widened_state(checkpoint: dict, own: dict) -> tuple[dict, int]:
    """The tensors of ``checkpoint`` that a network whose own tensors are ``own`` can start from,
    and how many of them were widened. A checkpoint of another output layout still gives its
    features: a tensor that does not fit is skipped. One narrower than the network's own in some
    of its dimensions (a stage with more channels: ``lean24`` from ``lean``) fills the leading
    part of the network's own fresh tensor, and a convolution's weights from the new input
    channels are set to zero, so the widened network computes at first exactly what the
    checkpoint did (Net2Net's widening) and the new channels only add to it as they learn."""
    found, widened = {}, 0
    old_parts, new_parts = _concatenated_inputs(checkpoint), _concatenated_inputs(own)
    for k, v in checkpoint.items():
        if k not in own:
            continue
        mine = own[k]
        if mine.shape == v.shape:
            found[k] = v
        elif v.dim() == mine.dim() and v.dim() and all(a <= b for a, b in zip(v.shape, mine.shape)):
            w = mine.clone()
            if w.dim() == 4:
                # where the old input channels sit in the new input: in place, or part by part
                # where the input is a concatenation of two wider stages
                cols = list(range(v.shape[1]))
                if k in old_parts and k in new_parts:
                    cols = [start + i for start, n in zip(np.cumsum((0,) + new_parts[k][:-1]), old_parts[k])
                            for i in range(n)]
                taken = set(cols)
                w[:, [c for c in range(w.shape[1]) if c not in taken]] = 0
                w[:v.shape[0], cols] = v
            else:
                w[tuple(slice(0, n) for n in v.shape)] = v
            found[k], widened = w, widened + 1
    return found, widened


def _concatenated_inputs(state: dict) -> dict[str, tuple[int, ...]]:
    """The channels of the parts that each decoder stage's first convolution reads concatenated
    (the upsampled deeper stage, then the skip), by that convolution's tensor name: a network
    wider at both parts finds the narrower one's channels part by part, not in a run."""
    def out(key):
        return int(state[key].shape[0])
    parts = {}
    if all(k in state for k in ("e3.0.0.weight", "e2.0.0.weight", "d2.0.0.weight")):
        parts["d2.0.0.weight"] = (out("e3.0.0.weight"), out("e2.0.0.weight"))
    if all(k in state for k in ("d2.0.0.weight", "e1.0.0.weight", "d1.0.0.weight")):
        parts["d1.0.0.weight"] = (out("d2.0.0.weight"), out("e1.0.0.weight"))
    return parts


def arch_of(state: dict) -> str:
    """The key of :data:`ARCHS` whose network has exactly the tensors of the checkpoint ``state``."""
    for arch in ARCHS:
        own = build_net(arch).state_dict()
        if own.keys() == state.keys() and all(own[k].shape == state[k].shape for k in own):
            return arch
    raise AugurError("the checkpoint is not of any counting network's shape (" + ", ".join(ARCHS) + ")")


def load_samples(files: list[Path], whole: bool, workers: int = 2) -> list[dict]:
    """The samples of ``files``, with their whole targets drawn (``whole``, for :class:`_TensorCrops`),
    read by ``workers`` processes: thousands of compressed samples take minutes to read in one."""
    load = _load_whole if whole else _load_plain
    if workers <= 1:
        return [load(f) for f in files]
    with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=one_thread) as ex:   # see write_data
        return list(ex.map(load, files, chunksize=8))


def _load_plain(path: Path) -> dict:
    return dict(np.load(path))


def train(data_dir: Path, models: Path, epochs: int = 20, steps: int = 400, batch: int = 12, seed: int = 0,
          lr: float = 3e-3, init: Path | None = None, recipe: dict | None = None, balance_kinds: bool = False,
          arch: str = "small", device: str = "cpu", workers: int = 2, clip: float = 0.0, floor: bool = True,
          spill_share: float = 0.0, teacher: Path | None = None, distill: float = 1.0, log=print) -> dict:
    """Train the counting network on the samples in ``data_dir`` and export it to ``models``.

    On the CPU the crops and their targets are cut by numpy (:class:`_Crops`), as the shipped small
    network was trained. On a GPU (``device="cuda"``) every sample and its whole targets are held on
    the device and cropped there (:class:`_TensorCrops`). ``floor``: hold the raw density near zero
    (:data:`RAW_FLOOR`; the shipped small network was trained without it). ``clip``: clip the
    gradient's norm to this (0: no clipping). ``spill_share``: the share of piece-centred crops
    centred on a piece spilled off its island (see :meth:`_Crops._piece`). ``teacher``: a checkpoint
    of a trained network (of any shape) whose maps on each crop the new one also learns, weighted
    ``distill`` against the truth (:func:`distill_loss`); how the lean shape was made from the wide.
    """
    import torch
    torch.manual_seed(seed)
    files = sorted(Path(data_dir).glob("*-*[0-9].npz"))
    if not files:
        raise FileNotFoundError(f"no samples in {data_dir} (run with --images first)")
    on_gpu = device != "cpu"
    samples = load_samples(files, whole=on_gpu, workers=workers)
    log(f"{len(samples)} samples loaded")
    net = build_net(arch)
    if init:
        own = net.state_dict()
        found, widened = widened_state(load_checkpoint(init), own)
        net.load_state_dict(found, strict=False)
        log(f"started from {init} ({len(found)}/{len(own)} tensors" + (f", {widened} widened)" if widened else ")"))
    teach = None
    if teacher:
        state = load_checkpoint(teacher)
        teacher_arch = arch_of(state)
        teach = build_net(teacher_arch)
        teach.load_state_dict(state)
        teach.eval().requires_grad_(False).to(device)
        log(f"distilling from {teacher} ({teacher_arch}), weight {distill}")
    net.to(device)
    if on_gpu:
        torch.backends.cudnn.benchmark = True
        net.to(memory_format=torch.channels_last)
        if teach is not None:
            teach.to(memory_format=torch.channels_last)
        crops = _TensorCrops(samples, seed, balance_kinds, device, spill_share)
        del samples[:]              # held on the device now
    else:
        crops = _Crops(samples, seed, balance_kinds, spill_share)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * steps, pct_start=0.1)
    models = Path(models)
    (models / "training").mkdir(parents=True, exist_ok=True)
    history = []
    t0 = time.time()
    for epoch in range(epochs):
        net.train()
        agg: dict[str, torch.Tensor] = {}
        for _ in range(steps):
            x, d, c, k, o = crops.batch(batch)
            x = x.contiguous(memory_format=torch.channels_last) if on_gpu else x.float()
            out, raw = net(x)
            loss, parts = loss_fn(out, d, c, k, o.float(), raw if floor else None)
            if teach is not None:
                with torch.no_grad():
                    taught = teach(x)
                gap = distill_loss(out, taught, c, k)
                loss = loss + distill * gap
                parts["distill"] = gap.detach()
            opt.zero_grad()
            loss.backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
            opt.step()
            sched.step()
            for name, v in parts.items():
                agg[name] = agg.get(name, 0.0) + v / steps
        history.append({"epoch": epoch + 1, **{k: round(float(v), 4) for k, v in agg.items()},
                        "minutes": round((time.time() - t0) / 60, 1),
                        "steps_per_second": round((epoch + 1) * steps / (time.time() - t0), 1)})
        log(json.dumps(history[-1]))
        torch.save(net.state_dict(), models / "training" / "pieces-density.pt")
    net.cpu().to(memory_format=torch.contiguous_format)
    export(net, models / "pieces-density.onnx")
    card = {"model": "pieces-density.onnx", "architecture": "encoder-decoder density net, output at 1/2 resolution",
            "arch": arch, "shape": ARCHS[arch],
            "parameters": int(sum(p.numel() for p in net.parameters())), "outputs": {
                "density": 1, "kind": list(KINDS), "colour": list(COLOURS), "occluder": 1},
            "data": {**(recipe or {}), "samples": len(files), "crop": CROP, "sigma": SIGMA},
            "loss": {"kind_weights": list(KIND_WEIGHTS), "occ_weight": OCC_WEIGHT, "occ_pos_weight": OCC_POS_WEIGHT},
            "crops_balanced_by_kind": balance_kinds, "crops_on_spilled_pieces": spill_share, "device": device, "clip_grad_norm": clip,
            "raw_density_floor": {"floor": RAW_FLOOR, "weight": FLOOR_WEIGHT} if floor else None,
            "init": Path(init).name if init else None,
            "teacher": {"file": Path(teacher).name, "weight": distill} if teacher else None, "seed": seed, "epochs": epochs, "steps_per_epoch": steps, "batch": batch, "lr": lr,
            "history": history, "train_minutes": round((time.time() - t0) / 60, 1)}
    (models / "pieces-density.json").write_text(json.dumps(card, indent=1) + "\n")
    return card


def average_checkpoints(paths: list[Path], models: Path | None = None, log=print) -> dict:
    """The mean of fine-tunes' weights, tensor by tensor (batch-norm statistics too; the integer
    batch counters are the first checkpoint's), exported as a trained network to ``models``
    (``training/pieces-density.pt`` and ``pieces-density.onnx``).

    Why: fine-tunes of one network from the same weights stay in one basin, where their mean is a
    network too. Each GPU run alone traded easy tables for hard ones; the mean kept most of the
    gain on hard tables and lost little (sessions 50 and 54 in ``models/README.md``). Returns the
    ingredients' names and SHA-256s for the card."""
    import hashlib

    import torch
    if len(paths) < 2:
        raise AugurError("averaging needs at least two checkpoints")
    dicts = [load_checkpoint(path) for path in paths]
    first = dicts[0]
    if any(d.keys() != first.keys() or any(d[k].shape != first[k].shape for k in first) for d in dicts):
        raise AugurError("the checkpoints are not of one network shape: only fine-tunes of one network average")
    share = 1.0 / len(dicts)
    mean = {k: sum(d[k] * share for d in dicts) if first[k].is_floating_point() else first[k] for k in first}
    net = build_net(arch_of(first))
    net.load_state_dict(mean)
    models = Path(models) if models is not None else Path(__file__).resolve().parents[1] / "models"
    (models / "training").mkdir(parents=True, exist_ok=True)
    torch.save(mean, models / "training" / "pieces-density.pt")
    export(net, models / "pieces-density.onnx")
    log(f"wrote {models / 'pieces-density.onnx'}, the mean of {len(paths)} checkpoints")
    return {"ingredients": [{"file": Path(path).name, "sha256": hashlib.sha256(Path(path).read_bytes()).hexdigest()}
                            for path in paths]}


def export(net, path: Path) -> None:
    import torch
    net.eval()
    dummy = torch.zeros(1, 6, 256, 256)
    torch.onnx.export(net, dummy, str(path), input_names=["input"], output_names=["maps"], opset_version=17,
                      dynamic_axes={"input": {2: "h", 3: "w"}, "maps": {2: "h2", 3: "w2"}}, dynamo=False)
