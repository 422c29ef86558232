"""The trained piece counter at run time: a small density network, run with onnxruntime.

Why a density map rather than boxes: players pile legionaries against each other, and at a
tilted camera their silhouettes overlap so much that a box detector with non-maximum
suppression loses a third of them (measured on the YOLO checkpoint, see ``models/README.md``).
Crowd counters solve the same problem by predicting, per pixel, how much of a piece stands
there; a pile's count is the sum over its area whatever the overlap. Here the network predicts,
at half the resolution of its input (the board cut from the undistorted frame and resized so that
a legionary always spans about the same number of pixels, see :func:`counting_crop`):

- one density channel: each piece a small blob of mass 1 centred on the point where it stands
  on the board;
- the kind of the piece standing there (legionary, vexillum, trireme, centre), as class scores:
  a count split by kind, rather than one density per kind, lets the rare kinds (a vexillum is
  one piece in a hundred) learn from every piece's density;
- the colour of the piece standing there (the five armies and the neutral ivory);
- where a hand, a card, dice or a cup hides the board.

It sees the frame beside the empty board as the camera saw it at calibration (warped back from
the calibration profile), both white-balanced, so the printed art is not mistaken for a piece.
Because the density sits where the pieces stand (the board plane), its peaks fall inside the
region of the board's label map (projected through the calibrated homography) that holds the
piece: a region's count is the number of its peaks, and its mass says how sure that count is.

No torch is needed at run time. ``vision/density_train.py`` makes the data and trains the net.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from calibration.lens import undistort
from calibration.profile import WORK_SCALE, CalibrationProfile
from tracker.errors import AugurError
from tracker.pieces import ARMY_COLOURS, CENTRE, LEGIONARY, NEUTRAL, TRIREME, VEXILLUM
from tracker.readings import LOW_CONFIDENCE
from vision.confidence import HIDDEN_FEATURES, Confidence, RegionConfidence, confidence_for, hidden_for
from vision.geometry import BoardGeometry
from vision.light import LightMatch
from vision.lying import LyingClassifier, LyingReading, lying_for, lying_regions, marked_lying
from vision.onnx_models import NHWC, input_dtype, onnx_session
from vision.partial import REACH, Box, ReadSoFar
from vision.records import DENSITY_MIRRORED, Detections
from vision.summit_counts import SummitCounts, summit_counts_for, summit_signs
from vision.summits import (HULLS_P, PATCH, PIECE_CLASSES, PIECES_P, SPILL_NO_TRIREME_P, SPILL_PIECES_P, VEXILLUM_P,
                             SummitClassifier, SummitMemory, SummitReading, hulls_for, summits_for)

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
#: The trained network, in float: what training writes and fine-tunes start from.
FLOAT_COUNTER = MODELS_DIR / "pieces-density.onnx"
#: The network the counter runs: the float one quantised to 8 bits (``augur quantize-counter``,
#: :mod:`vision.quantize`): twice as fast on the CPU, for about 0.2 points of regions read
#: right (``models/README.md``).
DEFAULT_COUNTER = MODELS_DIR / "pieces-density-int8.onnx"

#: The output channels, in order: density, kind logits, colour logits, the occluder logit.
KINDS = (LEGIONARY, VEXILLUM, TRIREME, CENTRE)
COLOURS = tuple(ARMY_COLOURS) + (NEUTRAL,)
KIND_AT = slice(1, 1 + len(KINDS))
COLOUR_AT = slice(KIND_AT.stop, KIND_AT.stop + len(COLOURS))
N_OUT = COLOUR_AT.stop + 1
#: The network's output is this many times smaller than its input.
STRIDE = 2
#: The input size must be a multiple of this (three stride-2 stages).
MULTIPLE = 8
#: Margin (pixels) around the board quad kept in the crop: pieces on the edge stand out of it.
MARGIN = 24
#: The crop is resized so that a legionary at the board's centre spans about this many output
#: cells (its width in camera pixels / STRIDE)...
TARGET_ACROSS = 5.0
#: ...by a factor within these bounds, and never so far down that the farthest legionary spans
#: fewer than FAR_ACROSS cells (for a top-down camera, whose legionaries are all about the same
#: size, that floor is what sets the scale). Tuned on validation renders (seed 5150, 200 per
#: tier): the shipped network counted 89.2 / 82.1 / 69.2 % of regions right at the camera's own
#: scale and 91.7 / 84.0 / 70.1 % at this one. Near top-down cameras gain by shrinking (a near
#: piece's blob no longer shows two summits), far tilted ones by growing. FAR_ACROSS stays clear
#: of 5.5, where the peak window steps from 3 to 5 cells: top-down boards get 5 cells, reliably.
SCALES = (0.7, 1.3)
FAR_ACROSS = 5.6
#: ...and never past this many input pixels (the time per frame grows with them).
MAX_INPUT_PIXELS = 650_000
#: Density below this is noise (a region of thousands of pixels would add it up).
DENSITY_FLOOR = 0.004
#: A density peak lower than this is not a piece (a perfect blob peaks near 0.16).
PEAK_MIN = 0.03
#: Peaks are local maxima over a square window about as wide as a legionary seen by this camera
#: (see :func:`peak_window`), within these bounds: a wider window merges touching pieces, a
#: narrower one splits a near piece's blob into two summits...
PEAK_WINDOWS = (3, 5)
#: ...triremes' over this many cells (a hull is about seven cells long)...
HULL_WINDOW = 7
#: ...and power centres' over this many (a centre is a disc about two legionaries wide, and its
#: wide blob showed two summits in a 3 or 5-cell window: on validation renders a province's one
#: centre was read as two in 41 / 59 / 28 regions per 200 easy / medium / hard tables).
CENTRE_WINDOW = 11
#: A summit whose basin holds this much mass stands for two pieces (and one more for each
#: further unit): touching legionaries at the far side of a tilted view merge into one blob.
TWIN_MASS = 1.7
#: A summit whose basin holds between this and TWIN_MASS is a doubt (one piece, or two merged).
NEAR_TWIN = 1.3
#: A region holds no more triremes than its trireme mass rounded up from this fraction. Tuned on
#: validation renders (seed 5150, 200 per tier, with the summit classifier): at 0.3 the seas
#: were read right 93.5 / 89.0 / 83.8 % of the time, at 0.15 93.8 / 89.9 / 84.9 % (0.2: 93.8 /
#: 89.5 / 84.6; 0.1: 93.6 / 89.8 / 85.2): moored hulls merge, and their mass comes out short.
HULL_MASS_SLACK = 0.15
#: A power centre the density missed (a wide ivory disc often gets no summit of its own) is still
#: found by the kind output: a patch of cells scoring centre above one half, whose mean centre
#: score reaches CENTRE_SCORE and whose area is CENTRE_AREA legionary footprints (one legionary's
#: width squared). Tuned on validation renders (seed 5150): the kind output is untrained away from
#: pieces and scores about 0.6 there, a missed centre about 0.84. 0.78 for the small network; the
#: wide one (session 15) misses fewer centres and its stray patches score higher: at 0.85 it read
#: 99.19 / 96.02 / 87.39 % of validation regions right (easy / medium / hard), against 99.10 /
#: 95.89 / 86.90 % at 0.78 and 99.13 / 95.95 / 87.28 % with no centre from the kind output at all.
#: 0.86 since session 36. The 8-bit networks the counter runs put a few stray patches just past
#: 0.85 (one read a centre in Syria on an easy test table where the float one scored 0.84). On
#: 40 validation tables per tier of each art, procedural and the real print, the patches scoring
#: 0.85 to 0.86 were 3 missed centres and 4 phantoms for session 19's 8-bit network, 1 and 5 for
#: an 8-bit copy of session 35's and 1 and 3 for session 36's; those scoring 0.86 to 0.88 were 18
#: missed centres and 9 phantoms over the three (scratch sweep). 0.90 since session 100: the broad
#: network's stray patches score higher again. On the same 40 tables per tier and art, its 8-bit
#: copy's patches at 0.86 and over were 12 missed centres and 19 phantoms; at 0.90 and over 7
#: and 3, at 0.92 and over 4 and none (at 0.88: 9 and 7). Its phantoms at 0.86 put a neutral
#: centre in 11 of the bench's 200 easy tables (seed 90210), two of them read sure.
CENTRE_SCORE = 0.90
CENTRE_AREA = (1.0, 8.0)
#: A calibration photo with the game laid out on it has its pieces painted out of it
#: (:mod:`calibration.pieces_on_map`), and some stay in it: a fleet or a crowded province the
#: counter did not find, or a smear where one was painted. When such a piece later leaves, the
#: network compares bare board with the piece still in the reference, a change it never saw in
#: training, and reads it as a power centre, sure of its kind and its ivory colour. So with a
#: painted reference every centre read is checked by reading the input the other way round (the
#: reference as the frame, the frame as the reference) over a window around it: that reading finds
#: what the reference shows and the frame does not. A centre with at least STALE_MASS of that
#: density within its disc (CENTRE_WINDOW cells across) stands where the reference still shows a
#: piece, or one read inside a disc a piece was painted out in (the profile's ``painted_discs``:
#: where the paint left a smear and the frame shows the printed board, the network reads a centre
#: too, and the other way's reading sees no piece there), and its region's confidence is held at
#: STALE_CONFIDENCE, under the dashboard's check level, so the players are asked, and the tracker
#: does not hold the centre for good until a commit reads it clearly
#: (:meth:`tracker.game.Game.hold_permanent`). Its count is not changed: a centre placed where a
#: piece stood in the photo is read so too. Measured in session 125 (scratch
#: ``/work/out/s125/check_impl.py``; 18 rendered tables a tier of seeds 5151, 6161 and 7272, each
#: calibrated on a state of its game with centres on the map, painted, and read on a later state):
#: of 76 centres read where none stood, the confidence alone asked for a check of 37 and with the
#: other way's check (before the discs) 63; of 263 read where one stood, 107 and 120 (24 and 33 of
#: them in regions read right). With session 124's painting (around each region's detections, no
#: centre patches) 98 centres were read where none stood, 46 and 83 of them asked for. On the
#: scratch's first reading (``feats.py``, session 124's painting) 75 of 80 centres read where none
#: stood had 0.5 or more of the other way's density, and 60 of 262 where one stood (59 of those had
#: stood in the calibration photo too, and the renderer had placed them elsewhere since).
#: Calibrated on the empty board, the same tables read 299 centres where one stood and 1 where none
#: did. Checking two centres costs about 2 ms. ``augur bench laid-out`` measures it on tables of
#: its own (:mod:`vision.laid_out_bench`; ``--images 20``, the painting by summit): the other way's
#: check alone asked about 12 / 16 / 27 of 27 / 20 / 32 phantom centres (easy / medium / hard),
#: with the discs too 21 / 18 / 30, for 42 / 57 / 88 of the standing centres read asked about
#: against 25 / 54 / 83 (the renderer places a centre afresh whenever its province changes, often
#: in paint); regions read wrong with no check asked 57 / 50 / 55 and 44 / 48 / 51 of 1,140.
STALE_MASS = 0.5
STALE_CONFIDENCE = round(LOW_CONFIDENCE / 2, 2)
#: A centre's disc in output cells, CENTRE_WINDOW across (where STALE_MASS is summed).
_CENTRE_DISC = cv2.circle(np.zeros((CENTRE_WINDOW, CENTRE_WINDOW), np.float32),
                          (CENTRE_WINDOW // 2, CENTRE_WINDOW // 2), CENTRE_WINDOW // 2, 1.0, -1)
#: A legionary summit whose army colour is not its province's, read with at least this
#: probability, standing within STRAY_REACH legionary widths of a province held by its colour,
#: is that province's piece (:meth:`DensityCounter._to_its_army`; past 1: never). On 40
#: validation tables per tier (seed 5150) the regions read right went from 99.12 / 97.28 / 88.11 %
#: to 99.30 / 97.37 / 88.33 % (easy / medium / hard), and on the same tables rendered on the real
#: print from 97.63 / 95.26 / 85.79 % to 98.25 / 95.70 / 86.36 %. A summit's colour is seldom in
#: doubt: any threshold from 0.6 to 0.9 read the same; a reach of 0.5, 0.75 or 1 legionary width
#: within 0.1 point of each other, 1.5 a little worse.
STRAY_P = 0.8
STRAY_REACH = 0.75
#: A cell is under an occluder where the occluder logit exceeds this.
OCCLUDED_LOGIT = 0.0
#: A region is unseen when this much of it lies under a hand, a card or a cup (without a
#: hidden-region model)...
UNSEEN_COVER = 0.25
#: ...or, with one (``hidden_model`` in the confidence file), when it gives the region at least
#: this probability of being hidden. The cover alone misses hands whose outline in the occluder
#: output stops short of the pieces they hide. On the validation tables (seed 5150, 200 per tier)
#: the regions read right (easy / medium / hard) were 97.37 / 91.77 / 78.54 % by the cover alone,
#: 97.36 / 91.58 / 79.96 at 0.3, 97.36 / 91.77 / 79.90 at 0.4, 97.37 / 91.90 / 79.68 at 0.5,
#: 97.37 / 91.97 / 79.38 at 0.6, 97.37 / 92.08 / 79.01 at 0.7: 0.5 loses on no tier (the
#: confidence is fitted on the regions this threshold leaves seen).
HIDDEN_P = 0.5


@dataclass(frozen=True)
class Crop:
    """The part of the frame the network sees: the board's bounding box with a margin, in image
    pixels, resized by ``scale`` (to ``input_size``, a multiple of MULTIPLE) for the network."""

    x0: int
    y0: int
    x1: int
    y1: int
    scale: float = 1.0

    @classmethod
    def around(cls, corners: np.ndarray, size: tuple[int, int], margin: int = MARGIN,
               scale: float = 1.0) -> "Crop":
        w, h = size
        x0 = int(max(0, np.floor(corners[:, 0].min()) - margin))
        y0 = int(max(0, np.floor(corners[:, 1].min()) - margin))
        x1 = int(min(w, np.ceil(corners[:, 0].max()) + margin))
        y1 = int(min(h, np.ceil(corners[:, 1].max()) + margin))
        # grow to a multiple of the network's stride, inside the frame where possible
        cw = -(-(x1 - x0) // MULTIPLE) * MULTIPLE
        ch = -(-(y1 - y0) // MULTIPLE) * MULTIPLE
        x0 = max(0, min(x0, w - cw))
        y0 = max(0, min(y0, h - ch))
        return cls(x0, y0, x0 + cw, y0 + ch, float(scale))

    @property
    def size(self) -> tuple[int, int]:
        """Width and height in image pixels."""
        return self.x1 - self.x0, self.y1 - self.y0

    @property
    def input_size(self) -> tuple[int, int]:
        """Width and height of the network input."""
        w, h = self.size
        return (max(MULTIPLE, int(round(w * self.scale / MULTIPLE)) * MULTIPLE),
                max(MULTIPLE, int(round(h * self.scale / MULTIPLE)) * MULTIPLE))

    def resize(self, pixels: np.ndarray) -> np.ndarray:
        """Crop-sized pixels to the network's input size (unchanged at scale 1)."""
        if self.input_size == self.size:
            return pixels
        return cv2.resize(pixels, self.input_size, interpolation=cv2.INTER_LINEAR)


def reference_in_image(profile: CalibrationProfile) -> np.ndarray:
    """The empty board as the camera saw it at calibration, in image pixels (black off the board)."""
    w, h = profile.image_size
    S = np.diag([WORK_SCALE, WORK_SCALE, 1.0])
    return cv2.warpPerspective(profile.reference, profile.H @ np.linalg.inv(S), (int(w), int(h)),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def balanced(image: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """White balance against the board (the calibration's gains), kept in 8 bits."""
    g = [float(v) for v in gains]
    return cv2.multiply(image, (g[0], g[1], g[2], 0.0))


def reference_input(profile: CalibrationProfile, crop: Crop) -> np.ndarray:
    """The empty board's half of the network input: the calibration reference as the camera saw
    it, cropped and white-balanced (the same for every frame of one calibration)."""
    return crop.resize(_cut(balanced(reference_in_image(profile), profile.gains), crop))


def frame_input(image: np.ndarray, gains: np.ndarray, crop: Crop, light: LightMatch, k1: float = 0.0) -> np.ndarray:
    """The frame's half of the network input: undistorted by the calibrated lens ``k1`` (0 for a
    frame already undistorted), cropped, white-balanced, resized (H x W x 3) and brought to the
    light of the reference (``light``, made from :func:`reference_input`: the light drifts over an
    evening, see :mod:`vision.light`). Only the crop's part of the frame is undistorted, which
    gives the same pixels as undistorting it all first."""
    return light(crop.resize(balanced(_cut(image, crop, k1), gains)))


def _cut(image: np.ndarray, crop: Crop, k1: float = 0.0) -> np.ndarray:
    """The crop's pixels (undistorted by ``k1``), padded with black where a frame smaller than
    one stride ends early."""
    h, w = image.shape[:2]
    part = undistort(image, k1, (crop.x0, crop.y0, min(crop.x1, w), min(crop.y1, h)))
    cw, ch = crop.size
    if part.shape[:2] == (ch, cw):
        return part
    return cv2.copyMakeBorder(part, 0, ch - part.shape[0], 0, cw - part.shape[1], cv2.BORDER_CONSTANT)


def network_input(image: np.ndarray, reference: np.ndarray, gains: np.ndarray, crop: Crop) -> np.ndarray:
    """The 6-channel uint8 input (frame, reference; BGR each), cropped: H x W x 6.
    ``reference`` is :func:`reference_input` for the same calibration and crop.

    The same functions prepare training samples and live frames, so the two cannot drift."""
    return np.concatenate([frame_input(image, gains, crop, LightMatch(reference)), reference], axis=2)


def output_to_image(crop: Crop) -> np.ndarray:
    """3x3 map from output cells (pixel centres) to image pixels. An output cell covers STRIDE
    input pixels; an input pixel centre ``u`` comes from image ``x0 + (u + 0.5) / sx - 0.5`` (the
    resize's convention), so at scale 1 a cell's centre is ``x0 + STRIDE * cell + (STRIDE - 1) / 2``."""
    (w, h), (iw, ih) = crop.size, crop.input_size
    sx, sy = iw / w, ih / h
    return np.array([[STRIDE / sx, 0, crop.x0 + STRIDE / 2 / sx - 0.5],
                     [0, STRIDE / sy, crop.y0 + STRIDE / 2 / sy - 0.5],
                     [0, 0, 1.0]])


def region_labels_in_output(H: np.ndarray, geo: BoardGeometry, crop: Crop, land: bool = False) -> np.ndarray:
    """The board's region label of every output cell (0 off the map); with ``land``, the region a
    province's piece standing there counts towards (``BoardGeometry.land_labels``: a pile spilled
    off a small island onto the sea is the island's)."""
    M = np.linalg.inv(output_to_image(crop)) @ H
    w, h = crop.input_size[0] // STRIDE, crop.input_size[1] // STRIDE
    return cv2.warpPerspective(geo.land_labels if land else geo.labels, M, (w, h), flags=cv2.INTER_NEAREST,
                               borderMode=cv2.BORDER_CONSTANT)


class CounterError(AugurError):
    """The counting model is missing or unusable."""


class DensityCounter:
    """Counts pieces per region from the density network; reports them as :class:`Detections`.

    Each counted piece becomes one detection at its region's strongest density peak (a point
    inside the region), so :func:`vision.count.count` (the zone counting every detector shares)
    puts it back in the same region. A region's confidence is the probability that its count is
    right (:mod:`vision.confidence`; without that model, how close its density sums were to whole
    numbers).
    """

    name = "density"

    def __init__(self, profile: CalibrationProfile, model: Path | None = None, threads: int | None = None,
                 session=None, confidence: Confidence | None | bool = False,
                 summits: SummitClassifier | None | bool = False, hulls: SummitClassifier | None | bool = False,
                 hidden: RegionConfidence | None | bool = False, mirrored: bool = False, partial: bool = True,
                 summit_counts: SummitCounts | None | bool = False, lying: LyingClassifier | None | bool = False):
        """``session`` replaces the onnxruntime session (anything with ``run`` and ``get_inputs``, whose
        first input has a ``type`` as onnxruntime names it: "tensor(float)" or "tensor(uint8)").
        ``confidence``: the region confidence model; by default the one fitted for ``model``
        (none with a replaced session), and None reads confidence from the masses alone.
        ``summits``: the classifier that takes a second look at each legionary summit (vexillum
        or not, how many pieces; :mod:`vision.summits`); by default the shipped one (none with a
        replaced session), and None reads every summit from the density maps alone. ``hulls``: the
        classifier that says how many triremes each trireme summit of a sea stands for, alike.
        ``hidden``: the model of which regions the camera cannot see (fitted with the confidence
        for ``model``); None marks a region unseen by its cover alone. ``summit_counts``: the model
        that decides how many legionaries stand at each summit the summit classifier read
        (:mod:`vision.summit_counts`); by default the one fitted for ``model`` and the summit
        classifier, and None keeps the classifier's count where it is sure and the basin's mass
        elsewhere. ``lying``: the classifier that says where a piece lies knocked over
        (:mod:`vision.lying`); by default the shipped one (none with a replaced session), and None
        marks no region so. ``mirrored``: read each
        frame mirrored as well and average the two outputs (see :meth:`run_network`). ``partial``:
        a still run's frames are read again only where they changed (:meth:`detect_in_run`)."""
        # channels-first throughout: channels-last, onnxruntime upsamples the decoder's 8-bit maps
        # pixel by pixel (14 of 92 ms a 608 x 904 input on a 2-core CPU without VNNI, against
        # under 1 ms channels-first); without that rewrite the network takes 3 to 15 % less, its
        # output the same to the bit. The classifiers' small windows run faster channels-last.
        self.session = session or onnx_session(Path(model or DEFAULT_COUNTER).resolve(), threads, CounterError,
                                               "counting model", disabled=(NHWC,))
        self.input_name = self.session.get_inputs()[0].name
        self.profile = profile
        self.geo = profile.geometry
        self.crop = counting_crop(profile, self.geo)
        reference = reference_input(profile, self.crop)
        self.light = LightMatch(reference)      # the frame brought back to the calibration's light
        # the network's input (1 x 6 x H x W; the shipped 8-bit network takes the pixels as uint8,
        # a float export as float): the reference half is filled once, and each frame only writes
        # its own three planes (an interleaved concatenation cost 6 ms a frame)
        self._input = np.zeros((1, 6) + reference.shape[:2], input_dtype(self.session, CounterError))
        for k, plane in enumerate(cv2.split(reference)):
            self._input[0, 3 + k] = plane
        self.mirrored = mirrored
        if mirrored:
            self.name = DENSITY_MIRRORED
        self._mirror: np.ndarray | None = None      # the input's mirror image (see _pass)
        # a run of still frames (detect_in_run): the last frame's output, and whether the next is mirrored
        self._held: tuple[tuple[Box, Box, np.ndarray], ...] = ()   # with partial: each box, its window, its output
        self._turn = False
        # reading only what changed (detect_in_run, vision.partial): the output read so far, the
        # boxes the current run reads again and the changed pixels' boxes they came from, the
        # last frame written (uint8) and its detections
        self.partial = partial
        self._so_far = ReadSoFar(self._input.shape[2:], MULTIPLE, STRIDE)
        self._run_boxes: tuple[Box, ...] = ()
        self._run_changes: tuple[Box, ...] = ()
        self._frame: np.ndarray | None = None
        self._last: Detections | None = None
        # the classifiers' word at the legionary summits of provinces (the summit and knocked-over
        # piece classifiers, which read the same windows) and at the trireme summits of seas
        self._legion_memory, self._hull_memory = SummitMemory(), SummitMemory()
        self.labels = region_labels_in_output(profile.H, self.geo, self.crop)
        self.land_labels = region_labels_in_output(profile.H, self.geo, self.crop, land=True)
        # regions the camera's frame cuts off are unseen, as if a card lay over them (they read as
        # empty before session 110)
        self.out_of_view = frozenset(profile.out_of_view(UNSEEN_COVER))
        self.n_regions = len(self.geo.region_ids)
        self.across = legionary_across(profile, self.geo) * self.crop.scale
        self.peak_window = peak_window(self.across)
        self._area = np.bincount(self.labels.ravel(), minlength=self.n_regions + 1).astype(np.float64)
        # a legionary's width (output cells) at each region's label point; index 0 is off the map
        points = [self.geo.label_points[r] for r in self.geo.region_ids]
        self._across_at = np.concatenate([[1.0], legionary_across_at(profile, points) * self.crop.scale])
        self._sea = np.array([0.0] + [float(self.geo.board.is_sea(r)) for r in self.geo.region_ids])
        self._to_board = np.linalg.inv(profile.H) @ output_to_image(self.crop)     # output cell -> board
        # the discs pieces were painted out of the reference in (x, y, radius; see STALE_MASS)
        self._painted_discs = np.asarray(profile.painted_discs, float).reshape(-1, 3)
        self.confidence = confidence if confidence is not False else \
            (None if session else confidence_for(Path(model or DEFAULT_COUNTER).resolve()))
        self.summits = summits if summits is not False else (None if session else summits_for())
        self.hulls = hulls if hulls is not False else (None if session else hulls_for())
        self.hidden = hidden if hidden is not False else \
            (None if session else hidden_for(Path(model or DEFAULT_COUNTER).resolve()))
        self.summit_counts = summit_counts if summit_counts is not False else (
            None if session or self.summits is None
            else summit_counts_for(Path(model or DEFAULT_COUNTER).resolve(), self.summits.path.resolve()))
        self.lying = lying if lying is not False else (None if session else lying_for())

    def predict(self, image: np.ndarray) -> np.ndarray:
        """Raw network output for a frame: N_OUT x h x w (densities already non-negative)."""
        self._write_frame(image)
        return self.run_network()

    def _write_frame(self, image: np.ndarray) -> None:
        """Write a frame's three planes into the network input (the reference half stays)."""
        if tuple(image.shape[1::-1]) != tuple(self.profile.image_size):
            raise CounterError(f"frame is {image.shape[1]}x{image.shape[0]}, the calibration was made at "
                               f"{self.profile.image_size[0]}x{self.profile.image_size[1]}")
        frame = frame_input(image, self.profile.gains, self.crop, self.light, self.profile.k1)
        for k, plane in enumerate(cv2.split(frame)):
            self._input[0, k] = plane
        self._frame = frame

    def _pass(self, mirrored: bool, window: Box | None = None) -> np.ndarray:
        """One network pass over the input written (or its ``window``); ``mirrored``: over its
        mirror image, with the output turned back. The input itself is left as it was (the summit
        classifiers cut their windows from it); the mirror image of the whole input goes to a
        buffer of its own, kept between frames (onnxruntime wants a contiguous array)."""
        if window is not None and window != self._so_far.whole:
            x = np.ascontiguousarray(self._input[:, :, window.rows, window.cols])
            if mirrored:
                x = np.ascontiguousarray(x[..., ::-1])
        elif not mirrored:
            x = self._input
        else:
            if self._mirror is None:
                self._mirror = np.empty_like(self._input)
            np.copyto(self._mirror, self._input[..., ::-1])
            x = self._mirror
        out = self.session.run(None, {self.input_name: x})[0][0]
        return out[..., ::-1] if mirrored else out

    def run_network(self) -> np.ndarray:
        """The network's output for the input already written: N_OUT x h x w.

        With ``mirrored`` (the ``density-mirrored`` detector) the network reads the input twice, as
        it is and mirrored left to right, and the two outputs are averaged once the mirrored one is
        turned back. It was trained on mirrored crops, so both are fair readings, and their mean
        has fewer stray and fewer missed summits: on the validation tables (seed 5150, 200 per
        tier) the regions read right went from 97.66 / 92.54 / 79.76 % to 97.93 / 92.85 / 80.16 %
        (easy / medium / hard; an upside-down reading as well, a third pass, gave 97.78 / 92.89 /
        80.46 %; all with the small network of sessions 5 to 14). It is not the default for single
        photos: with the wide network the second pass costs about 60 ms a frame on a 2-core CPU,
        and the bench's detection p95 went to 155 to 172 ms, past the 150 ms target. The live loop
        gets it at one pass a frame (:meth:`detect_in_run`)."""
        out = self._pass(False)
        if not self.mirrored:
            return out
        return (out + self._pass(True)) * np.float32(0.5)

    def detect(self, image: np.ndarray) -> Detections:
        """One frame read whole (a photo); the next frame of a still run is read whole too."""
        out = self.predict(image)
        self._so_far.forget()
        return self.read(out)

    def summit_points(self, out: np.ndarray) -> np.ndarray:
        """Board points (N x 2, board units) of every summit of the density ``out`` shows on the
        map, over the legionary window and the hull window: one where each piece stands, where a
        region's detections all stand at its anchor (calibration.pieces_on_map paints them out)."""
        total = _density(out)
        peaks = (_peaks(total, self.peak_window) | _peaks(total, HULL_WINDOW)) & (self.labels > 0)
        ys, xs = np.nonzero(peaks)
        return np.array([self._board_point(x, y) for x, y in zip(xs, ys)], float).reshape(-1, 2)

    def detect_in_run(self, image: np.ndarray, first: bool) -> Detections:
        """One frame of a run of still frames (the live pipeline's; ``first`` begins a run).

        The frames of a run show the same board, so they are read as they are and mirrored in
        turn, one network pass each, and from the second frame on each reading is the mean of the
        latest two outputs: the committed state (a vote over the run's readings, see
        :mod:`vision.fuse`) gets the mirrored reading's accuracy (:meth:`run_network`) at the cost
        of one pass a frame. A counter that reads every frame mirrored already just detects.

        With ``partial`` (the default) a frame is read again only where its pixels changed since
        they were last read (:mod:`vision.partial`): a run reads, in every frame, the boxes around
        what changed since the run before (the whole crop in the first run), pasted into the
        output read so far, and the summit classifiers read again only the summits near the
        pixels that changed since the run before (their word on the others stands,
        :meth:`_look`). A run that shows no change is not read at all: the last reading stands."""
        if self.mirrored:
            return self.detect(image)
        self._write_frame(image)
        if first:
            self._held, self._turn, self._run_boxes, self._run_changes = (), False, (), ()
        changes = self._so_far.changes(self._frame) if self.partial else (self._so_far.whole,)
        if not changes and not self._run_boxes and self._last is not None:
            return self._last
        # the run's boxes only grow: each box of the last pass lies inside one of this pass's, and
        # the mean is taken where the last pass read (a box grown by a change found late in the
        # run is read once where it grew)
        self._run_boxes = boxes = self._so_far.merged(self._so_far.to_read(changes) + self._run_boxes)
        self._run_changes += changes
        passes = []
        for box in boxes:
            window = self._so_far.window(box)
            passes.append((box, window, self._pass(self._turn, window)))
        self._turn = not self._turn
        held, self._held = self._held, tuple(passes)
        for box, window, out in passes:
            mean = out
            for then, around, last in held:
                both = then.overlap(box)
                if both is None:
                    continue
                mean = out.copy() if mean is out else mean
                cells = both.cells(STRIDE)
                rows, cols = cells.within(window.cells(STRIDE))
                mean[:, rows, cols] = (mean[:, rows, cols] + last[(slice(None),) + cells.within(around.cells(STRIDE))]) \
                    * np.float32(0.5)
            whole = self._so_far.paste(box, window, mean, self._frame)
        self._last = self.read(whole, fresh=None if boxes == (self._so_far.whole,) else self._run_changes)
        return self._last

    def read(self, out: np.ndarray, fresh: tuple[Box, ...] | None = None) -> Detections:
        """Per-region counts from the network's output maps (see :meth:`reading`)."""
        return self.reading(out, features=self.confidence is not None or self.hidden is not None, fresh=fresh)[0]

    def reading(self, out: np.ndarray, features: bool = True,
                fresh: tuple[Box, ...] | None = None) -> tuple[Detections, np.ndarray | None]:
        """Per-region counts from the network's output maps, and (``features``) every region's
        signs of doubt (:meth:`region_features`), which the confidence model reads. ``fresh``:
        the boxes around the input pixels that changed since the run before this one (None:
        all of them); the classifiers' word on summits far from them stands (:meth:`_look`).

        One density peak is one piece: the network puts a blob on every piece's standing point,
        and in a pile the blobs keep their own summits even where the summed mass comes out
        short (measured on validation renders: a region of three legionaries read right 91 % of
        the time by its peaks, 71 % by its rounded mass), unless two pieces stand so close that
        their blobs merge: a summit with the mass of two counts two. A peak's kind is the kind
        scored highest there. Triremes and centres are the exceptions: a hull is long enough to
        show two summits, so their peaks must lie a hull apart and the region's trireme mass must
        bear them, unless the hull classifier (:mod:`vision.summits`) was sure of every trireme
        summit of the sea, in which case its counts stand; a centre's disc is wide, so its summits
        are sought over its width, in its own kind's density, and a centre the density missed
        altogether may still be found by the kind output alone (:meth:`_centres_without_summit`).
        Whether a province's summit is a legionary or a vexillum, and how many pieces stand there
        where it is sure, is the summit classifier's call when there is one
        (:mod:`vision.summits`): the network's kind output never tells a vexillum from a legionary.
        With the summit-count model (:mod:`vision.summit_counts`), how many stand at every summit
        the classifier read is one decision over its probabilities and the basin's mass together.
        A trireme summit off a province's coast that both classifiers say is pieces, not a fleet,
        is a pile spilled off the province (:meth:`_spilled_piles`)."""
        total = _density(out)
        minlength = self.n_regions + 1
        cover = self._cover(out[-1])
        peaks = _peaks(total, self.peak_window)
        region_of, anchors, basin, land_region_of = self._attribute(total, peaks)
        flat = out.reshape(len(out), -1)
        cells = np.flatnonzero(total)               # the few cells that hold any density
        region = region_of[cells]
        land_region = land_region_of[cells]
        by_kind = total.ravel()[cells] * _softmax(flat[KIND_AT, cells])
        colour_p = _softmax(flat[COLOUR_AT, cells])
        # each kind's candidate summits (cells) and the kind scored highest at each
        centre_density = np.zeros(total.size, np.float32)
        centre_density[cells] = by_kind[KINDS.index(CENTRE)]
        peaks_of = {
            LEGIONARY: np.flatnonzero(peaks),
            TRIREME: np.flatnonzero(_peaks(total, HULL_WINDOW)),
            # a centre's summits are sought in its own kind's density, over a window as wide as the
            # disc: its neighbours' summits cannot hide it, nor can its wide blob show two summits
            CENTRE: np.flatnonzero(_peaks(centre_density.reshape(total.shape), CENTRE_WINDOW)),
        }
        summits = {kind: (at, np.argmax(flat[KIND_AT, at], axis=0)) for kind, at in peaks_of.items()}
        summits[VEXILLUM] = summits[LEGIONARY]          # a vexillum's base is about a legionary's size
        # triremes the hull classifier is sure of at each trireme summit of a sea (-1: one, as read)
        hulls_sure = None
        # how unsure each classifier was of each summit it read (1 - its likeliest count's
        # probability; 0 where it did not look): a sign of doubt for the confidence
        doubt = {TRIREME: np.zeros(len(summits[TRIREME][0])), LEGIONARY: np.zeros(len(summits[LEGIONARY][0]))}
        # the summit classifier's vexillum probability at each legionary summit (0 where it did not look)
        flag_p = np.zeros(len(summits[LEGIONARY][0]))
        if self.hulls is not None:
            hulls_sure, hull_p = self._hull_look(*summits[TRIREME], fresh=fresh)
            doubt[TRIREME] = _unsure(hull_p)
            if self.summits is not None:
                self._spilled_piles(summits, hulls_sure, hull_p[:, 0])
        # pieces the summit classifier is sure of at each legionary summit (-1: read from the basin)
        sure = None
        pick, summit_seen, lying_seen = self._legion_look(*summits[LEGIONARY], fresh=fresh)
        if self.summits is not None:
            sure, summit_p, flag_p = self._second_look(*summits[LEGIONARY], pick, summit_seen)
            doubt[LEGIONARY] = _unsure(summit_p)
        lying = self._lying_in(summits[LEGIONARY][0][pick], lying_seen)
        foot, kinds, colours, scores = [], [], [], []
        counted = np.zeros((len(KINDS), minlength), np.int64)        # pieces per kind and region
        at, kind_at = summits[CENTRE]
        centre_cells = at[kind_at == KINDS.index(CENTRE)]
        centre_cells = centre_cells[np.isin(self.land_labels.ravel()[centre_cells], list(anchors))]
        centres = {int(r) for r in self.land_labels.ravel()[centre_cells]}
        by_kind_output = []
        for r, point, score, cell in self._centres_without_summit(out[KIND_AT], centres):
            centre_cells = np.append(centre_cells, cell)
            foot.append(point)
            kinds.append(CENTRE)
            colours.append(NEUTRAL)
            scores.append(score)
            counted[KINDS.index(CENTRE), r] += 1
            by_kind_output.append(r)
        for k, kind in enumerate(KINDS):
            at, kind_at = summits[kind]
            # a province's pieces off its coast count towards it, a fleet only in its own sea
            labels, cell_region = (self.labels, region) if kind == TRIREME else (self.land_labels, land_region)
            labels = labels.ravel()
            pieces = np.ones(int(np.count_nonzero(kind_at == k)))
            if kind == LEGIONARY:
                # a summit may stand for merged legionaries, and a vexillum's summit whose basin
                # holds two stands beside a legionary
                on_foot = (kind_at == k) | (kind_at == KINDS.index(VEXILLUM))
                at, is_vexillum = at[on_foot], kind_at[on_foot] != k
                b = basin.ravel()[at]
                pieces = pieces_at_summit(b)
                if sure is not None and self.summit_counts is not None:
                    # every summit the classifier read: its probabilities and the mass weighed together
                    p_at = summit_p[on_foot]
                    read = p_at.sum(axis=1) > 0
                    signs_at = summit_signs(b[read], p_at[read], flag_p[on_foot][read], self.across)
                    pieces[read] = np.maximum(self.summit_counts.pieces(signs_at, pieces[read]), is_vexillum[read])
                elif sure is not None:
                    pieces = np.where(sure[on_foot] >= 0, np.maximum(sure[on_foot], is_vexillum), pieces)
                pieces = pieces - is_vexillum
            else:
                mine = kind_at == k
                if kind == TRIREME and hulls_sure is not None:
                    pieces = np.where(hulls_sure[mine] >= 0, hulls_sure[mine], 1)
                    unsure = np.bincount(labels[at[mine]], weights=hulls_sure[mine] < 0, minlength=minlength)
                at = at[mine]
            if not len(at):
                continue
            colour_at = self._summit_colours(out[COLOUR_AT], total, at)
            where = labels[at]
            if kind == LEGIONARY:
                where = self._to_its_army(at, where, colour_at, pieces)
            found = np.rint(np.bincount(where, weights=pieces, minlength=minlength)).astype(int)
            mass = np.bincount(cell_region, weights=by_kind[k], minlength=minlength)
            # colours go by summit, each weighted by the pieces it stands for, not by mass: a fleet
            # whose hull drew a light blob is still one of the two fleets in its sea
            q = colour_at * pieces[:, None]
            per_colour = np.stack([np.bincount(where, weights=q[:, c], minlength=minlength)
                                   for c in range(len(COLOURS))])
            for r in np.nonzero(found)[0]:
                if r == 0 or r not in anchors:
                    continue
                n = int(found[r])
                if kind == TRIREME and (hulls_sure is None or unsure[r] > 0):
                    # the hull classifier's sure counts need no cap: it tells a hull's second
                    # summit (0) and moored hulls merged into one summit (2), whose mass is short
                    n = min(n, int(np.ceil(mass[r] - HULL_MASS_SLACK)))
                if n <= 0:
                    continue
                counted[k, r] += n
                score = float(np.clip(1 - 2 * abs(mass[r] - n), 0.05, 1.0))
                split = self._colours_of(kind, n, per_colour[:, r])
                for c, m in enumerate(split):
                    for _ in range(m):
                        foot.append(anchors[r])
                        kinds.append(kind)
                        colours.append(COLOURS[c])
                        scores.append(score)
        signs = None
        if features or self.hidden is not None:
            signs = self.region_features(total=total, cells=cells, region=region, basin=basin, by_kind=by_kind,
                                         colour_p=colour_p, counted=counted, summits=summits[LEGIONARY],
                                         cover=cover, by_kind_output=by_kind_output, occluder=out[-1],
                                         doubt={k: (summits[k][0], d) for k, d in doubt.items()},
                                         flags=(summits[LEGIONARY][0], flag_p))
        unseen, region_confidence = judge_regions(self.geo.region_ids, self.out_of_view, signs, cover,
                                                  self.confidence, self.hidden)
        lying, region_confidence = marked_lying(region_confidence, lying, unseen)
        for r in self._stale_centres(centre_cells) - unseen:
            region_confidence[r] = min(region_confidence.get(r, 1.0), STALE_CONFIDENCE)
        if not kinds:
            return replace(Detections.empty(self.name, unseen), region_confidence=region_confidence,
                           lying=lying), signs
        return Detections(np.array(foot, float), tuple(kinds), tuple(colours), np.array(scores, float),
                          np.full((len(kinds), 4), np.nan), self.name, unseen, region_confidence, lying), signs

    def region_features(self, *, total, cells, region, basin, by_kind, colour_p, counted, summits, cover,
                        by_kind_output, occluder, doubt, flags) -> np.ndarray:
        """The signs of doubt of every region (row = label value; :data:`vision.confidence.HIDDEN_FEATURES`:
        the confidence's FEATURES, then the occlusion signs), from what :meth:`reading` worked out
        (``summits``: the cells of the peaks over the legionary window and the kind scored highest
        at each; ``occluder``: the occluder logits; ``doubt``: per kind, trireme and legionary, the
        summit cells and how unsure a classifier was of each, 0 where none looked; ``flags``: the
        legionary summit cells and the summit classifier's vexillum probability at each, 0 where it
        did not look)."""
        minlength = self.n_regions + 1
        bins = lambda idx, w=None: np.bincount(idx, weights=w, minlength=minlength).astype(np.float64)  # noqa: E731
        labels = self.labels.ravel()
        weights = total.ravel()[cells]
        pieces = counted.sum(axis=0).astype(np.float64)
        mass = bins(region, weights)
        all_summits, kind_at = summits
        legion_summits = all_summits[kind_at == KINDS.index(LEGIONARY)]
        b = basin.ravel()[legion_summits]
        heights = total.ravel()
        at_label = labels[legion_summits]
        lowest = np.full(minlength, np.inf)
        np.minimum.at(lowest, labels[all_summits], heights[all_summits])
        lowest[np.isinf(lowest)] = 0.0
        armies = np.stack([bins(region, weights * colour_p[c]) for c in range(len(ARMY_COLOURS))])
        army_mass = armies.sum(axis=0)
        tri = KINDS.index(TRIREME)
        kind_mass = np.stack([bins(region, by_kind[k]) for k in range(len(KINDS))])
        # a missed piece often leaves a hill too low or too close to another to make a summit
        stray = np.zeros(minlength)
        away = np.ones(total.size, bool)
        away[all_summits] = False
        np.maximum.at(stray, labels[cells][away[cells]], heights[cells][away[cells]])
        flag_peak = np.zeros(minlength)
        np.maximum.at(flag_peak, self.land_labels.ravel()[flags[0]], flags[1])
        by_output = np.zeros(minlength)
        by_output[by_kind_output] = 1.0
        columns = {
            "sea": self._sea,
            "pieces": pieces,
            "mass": mass,
            "residual": np.abs(mass - pieces),
            "signed_residual": mass - pieces,
            "relative_residual": np.abs(mass - pieces) / np.maximum(pieces, 1),
            "twin_summits": bins(at_label, (b >= TWIN_MASS).astype(float)),
            "near_twins": bins(at_label, ((b >= NEAR_TWIN) & (b < TWIN_MASS)).astype(float)),
            "faint_summits": bins(labels[all_summits], (heights[all_summits] < 2 * PEAK_MIN).astype(float)),
            "lowest_summit": lowest,
            "border_mass": np.abs(bins(labels[cells], weights) - mass),
            "cover": cover,
            "across": self._across_at,
            "log_area": np.log1p(self._area / self._across_at ** 2),
            "hull_gap": np.abs(bins(region, by_kind[tri]) - counted[tri]),
            "centre_by_kind": by_output,
            "colour_doubt": np.where(army_mass > 0, 1 - armies.max(axis=0) / np.maximum(army_mass, 1e-9), 0.0),
            "empty": (pieces == 0).astype(np.float64),
            "log_pieces": np.log1p(pieces),
            "stray_peak": stray,
            "kind_doubt": np.where(mass > 0, 1 - kind_mass.max(axis=0) / np.maximum(mass, 1e-9), 0.0),
            "hull_doubt": bins(labels[doubt[TRIREME][0]], doubt[TRIREME][1]),
            "summit_doubt": bins(self.land_labels.ravel()[doubt[LEGIONARY][0]], doubt[LEGIONARY][1]),
            # a vexillum on a hard table is a guess (of the 10 regions read with one on 40 hard
            # validation tables, 7 were wrong, four of them at a confidence of 0.95 to 1 before
            # these two signs; models/README.md, session 52)
            "vexilla": counted[KINDS.index(VEXILLUM)].astype(np.float64),
            "flag_peak": flag_peak,
            **self._occlusion_signs(occluder),
        }
        return np.column_stack([columns[name] for name in HIDDEN_FEATURES])

    def _occlusion_signs(self, occluder: np.ndarray) -> dict[str, np.ndarray]:
        """:data:`vision.confidence.OCCLUSION_FEATURES` of every region (by label value): its share
        within one and two legionary widths of an occluder cell, and its mean occluder probability."""
        occluded = (occluder > OCCLUDED_LOGIT).astype(np.uint8)
        a = max(1, int(round(self.across)))
        labels = self.labels.ravel()
        area = np.maximum(self._area, 1)
        share = lambda mask: np.bincount(labels, weights=mask.ravel(), minlength=len(area)) / area  # noqa: E731
        near = cv2.dilate(occluded, np.ones((2 * a + 1, 2 * a + 1), np.uint8))
        wide = cv2.dilate(occluded, np.ones((4 * a + 1, 4 * a + 1), np.uint8))
        prob = 1.0 / (1.0 + np.exp(-np.clip(occluder, -30, 30)))
        return {"cover_near": share(near), "cover_wide": share(wide), "occluder_mean": share(prob)}

    def second_look_candidates(self, out: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The output cells (flat indices) where :meth:`reading` asks the summit classifier for a
        second look (its legionary summits in provinces), and the mass of each one's basin: the
        summit classifier's training reads both. The summits of a pile taken for a fleet
        (:meth:`_spilled_piles`) are not among them: the classifier was never trained on them."""
        total = _density(out)
        peaks = _peaks(total, self.peak_window)
        at = np.flatnonzero(peaks)
        kind_at = np.argmax(out[KIND_AT].reshape(len(KINDS), -1)[:, at], axis=0)
        at = at[self._second_look_candidates(at, kind_at)]
        return at, self._attribute(total, peaks)[2].ravel()[at]

    def hull_candidates(self, out: np.ndarray) -> np.ndarray:
        """The output cells (flat indices) where :meth:`reading` asks the hull classifier for a
        second look: its trireme summits in seas (the hull classifier's training reads them)."""
        total = _density(out)
        at = np.flatnonzero(_peaks(total, HULL_WINDOW))
        kind_at = np.argmax(out[KIND_AT].reshape(len(KINDS), -1)[:, at], axis=0)
        return at[self._hull_candidates(at, kind_at)]

    def _hull_candidates(self, at: np.ndarray, kind_at: np.ndarray) -> np.ndarray:
        """Indices into ``at`` of the summits scored trireme that stand in a sea."""
        label = self.labels.ravel()[at]
        return np.flatnonzero((kind_at == KINDS.index(TRIREME)) & (label > 0) & (self._sea[label] == 1))

    def _hull_look(self, at: np.ndarray, kind_at: np.ndarray, fresh: tuple[Box, ...] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The triremes the hull classifier is sure of at each summit of ``at`` (-1 where it is
        not, or did not look), and the probability it gives each of holding 0, 1, 2, 3+ (a row
        of zeros where it did not look). ``fresh``: see :meth:`reading`."""
        sure = np.full(len(at), -1)
        p = np.zeros((len(at), PIECE_CLASSES))
        pick = self._hull_candidates(at, kind_at)
        if len(pick):
            seen, = self._look((self.hulls,), self._hull_memory, at[pick], fresh)
            sure[pick] = seen.sure_pieces(HULLS_P)
            p[pick] = seen.pieces
        return sure, p

    def _spilled_piles(self, summits: dict, hulls_sure: np.ndarray, no_trireme: np.ndarray) -> None:
        """Give a province (mostly a small island) back the pile spilled onto the sea off its coast
        that the network took for a fleet.

        The counting network scores a legionary standing on the sea as a trireme more often than
        not, and the hull classifier, which was trained on such summits, then says no trireme
        stands there; before, the sea lost the false trireme but the island never got its
        legionaries back (on the validation tables, 6 / 21 / 26 of the 7 / 25 / 32 seas counted a
        trireme too many, easy / medium / hard, had a coastal province a piece short). A trireme
        summit of a sea that stands within a province's spill reach (``land_labels``), which the
        hull classifier gives at least SPILL_NO_TRIREME_P of holding none and the summit classifier
        at least SPILL_PIECES_P of holding a piece, is such a pile: it counts no trireme (written in
        ``hulls_sure``), and the legionary summits scored trireme within its hull window (in the
        same spill zone) become legionary summits, which the summit classifier then reads as it
        reads any other (``summits[LEGIONARY]``'s kinds are changed in place). See SPILL_PIECES_P
        for the thresholds' tuning."""
        at, _ = summits[TRIREME]
        land, printed = self.land_labels.ravel()[at], self.labels.ravel()[at]
        pile = np.flatnonzero((no_trireme >= SPILL_NO_TRIREME_P) & (land != printed) & (land > 0))
        if len(pile):
            seen = self.summits.read(self._input[0], self.summit_pixels(at[pile]))
            pile = pile[1.0 - seen.pieces[:, 0] >= SPILL_PIECES_P]
        if not len(pile):
            return
        hulls_sure[pile] = 0
        legion_at, legion_kind = summits[LEGIONARY]
        w = self.labels.shape[1]
        (ly, lx), (py, px) = np.divmod(legion_at, w), np.divmod(at[pile], w)
        reach = HULL_WINDOW // 2
        near = (np.abs(ly[:, None] - py[None, :]) <= reach) & (np.abs(lx[:, None] - px[None, :]) <= reach)
        same_zone = self.land_labels.ravel()[legion_at][:, None] == land[pile][None, :]
        turn = (near & same_zone).any(axis=1) & (legion_kind == KINDS.index(TRIREME))
        legion_kind[turn] = KINDS.index(LEGIONARY)

    def summit_pixels(self, at: np.ndarray) -> np.ndarray:
        """The network input pixel (N x 2, x and y) at the centre of each output cell of ``at``
        (flat indices): a cell covers STRIDE x STRIDE input pixels."""
        w = self.labels.shape[1]
        return np.column_stack([STRIDE * (at % w) + STRIDE // 2, STRIDE * (at // w) + STRIDE // 2])

    def _second_look_candidates(self, at: np.ndarray, kind_at: np.ndarray) -> np.ndarray:
        """Indices into ``at`` of the summits scored legionary or vexillum that stand in a province
        (or off its coast)."""
        label = self.land_labels.ravel()[at]
        kind_ok = (kind_at == KINDS.index(LEGIONARY)) | (kind_at == KINDS.index(VEXILLUM))
        return np.flatnonzero(kind_ok & (label > 0) & (self._sea[label] == 0))

    def _look(self, classifiers: tuple[SummitClassifier | LyingClassifier, ...], memory: SummitMemory,
              at: np.ndarray, fresh: tuple[Box, ...] | None) -> list[SummitReading | LyingReading]:
        """Each of ``classifiers``' word at the summits ``at`` (output cells), standing from the last
        reading (:class:`vision.summits.SummitMemory`) where a summit stands PATCH / 2 + REACH
        pixels or more from every box of changed pixels in ``fresh`` (see :meth:`reading`): its
        window, PATCH / 2 each way, shows the pixels it showed, and the summits marked in it
        stand where they stood, for the density around them, REACH or more from the change, is
        what it was (:mod:`vision.partial`).

        Reading again every summit within PATCH of the density's boxes (REACH past the change),
        as first built, asked the classifiers for a third more summits on a hard rendered game
        (seed 15) for the same counts. A margin of PATCH alone, without the marks' reach,
        asked for a quarter fewer than this one and committed the same
        counts on eight hard games (seeds 15 to 22, the last four on the printed board), but
        one wrong count of those games was no longer flagged for a check (confidence 0.85
        against 0.60); with this margin it was. Not reading summits again within a run at all
        (the frames after its first keeping their word) cost accuracy: the regions read wrong
        per committed state went from 2.15 to 2.49 on the games of seeds 15 to 18 (session 48)."""
        points = self.summit_pixels(at)
        standing = None
        if fresh is not None:
            standing = np.ones(len(points), bool)
            for box in fresh:
                near = box.grown(PATCH // 2 + REACH, self._so_far.shape, 1)
                standing &= ~((points[:, 0] >= near.x0) & (points[:, 0] < near.x1)
                              & (points[:, 1] >= near.y0) & (points[:, 1] < near.y1))
        return memory.read(classifiers, self._input[0], points, at, standing)

    def _legion_look(self, at: np.ndarray, kind_at: np.ndarray, fresh: tuple[Box, ...] | None = None
                     ) -> tuple[np.ndarray, SummitReading | None, LyingReading | None]:
        """The legionary summits of ``at`` the classifiers read (indices into ``at``: those of
        :meth:`_second_look_candidates`), and the summit classifier's and the knocked-over piece
        classifier's word on them (None for a classifier the counter has not). Both read the
        same windows, cut once, and keep their word in one memory. ``fresh``: see :meth:`reading`."""
        pick = self._second_look_candidates(at, kind_at)
        readers = tuple(c for c in (self.summits, self.lying) if c is not None)
        if not len(pick) or not readers:
            return pick, None, None
        seen = dict(zip(readers, self._look(readers, self._legion_memory, at[pick], fresh)))
        return pick, seen.get(self.summits), seen.get(self.lying)

    def _second_look(self, at: np.ndarray, kind_at: np.ndarray, pick: np.ndarray,
                     seen: SummitReading | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The summit classifier's word ``seen`` on the summits ``pick`` of ``at`` (see
        :meth:`_legion_look`; None where there was none to read): it decides the kind (legionary
        or vexillum, in ``kind_at``, in place), and gives the pieces it is sure of at each summit
        of ``at`` (-1 where it is not, or did not look), the probability it gives each of holding
        0, 1, 2, 3+ pieces (a row of zeros where it did not look) and the probability it gives
        each of being a vexillum (0 where it did not look)."""
        sure = np.full(len(at), -1)
        p = np.zeros((len(at), PIECE_CLASSES))
        flag = np.zeros(len(at))
        if seen is None:
            return sure, p, flag
        kind_at[pick] = np.where(seen.vexillum >= VEXILLUM_P, KINDS.index(VEXILLUM), KINDS.index(LEGIONARY))
        sure[pick] = seen.sure_pieces(PIECES_P)
        p[pick] = seen.pieces
        flag[pick] = seen.vexillum
        return sure, p, flag

    def _lying_in(self, at: np.ndarray, seen: LyingReading | None) -> frozenset[str]:
        """The provinces where the knocked-over piece classifier (:mod:`vision.lying`) sees a piece
        lying at one of the summits ``at`` (output cells) it read (``seen``; None: it did not)."""
        if seen is None:
            return frozenset()
        found = lying_regions(seen.lying, self.land_labels.ravel()[at])
        return frozenset(self.geo.region_ids[r - 1] for r in found)

    def centre_patches(self, out: np.ndarray, score: float) -> np.ndarray:
        """Board points (N x 2) of the patches the kind output of ``out`` scores a power centre
        over, with a mean score of at least ``score``, one per region (as
        :meth:`_centres_without_summit` finds them at CENTRE_SCORE)."""
        return np.array([point for _, point, _, _ in self._centres_without_summit(out[KIND_AT], set(), score)],
                        float).reshape(-1, 2)

    def _centres_without_summit(self, kind_logits: np.ndarray, has_centre: set[int], score: float = CENTRE_SCORE):
        """Power centres the density missed, one per region that counted none: patches of cells
        whose kind is centre (see CENTRE_SCORE; ``score``: another bar). Yields (region, board
        point, score, output cell)."""
        centre = KINDS.index(CENTRE)
        others = np.delete(kind_logits, centre, axis=0)
        # the centre score p = 1 / (1 + sum exp(other - centre)) passes 1/2 only where centre scores
        # highest, a small part of the map: score just those cells
        ys, xs = np.nonzero(kind_logits[centre] > others.max(axis=0))
        p = 1.0 / (1.0 + np.exp(np.minimum(others[:, ys, xs] - kind_logits[centre, ys, xs], 50.0)).sum(axis=0))
        keep = p > 0.5
        ys, xs, p = ys[keep], xs[keep], p[keep]
        mask = np.zeros(kind_logits.shape[1:], np.uint8)
        mask[ys, xs] = 1
        n, comp, stats, middle = cv2.connectedComponentsWithStats(mask, connectivity=4)
        area = stats[:, cv2.CC_STAT_AREA]
        mean = np.bincount(comp[ys, xs], weights=p, minlength=n) / np.maximum(area, 1)
        lo, hi = CENTRE_AREA[0] * self.across ** 2, CENTRE_AREA[1] * self.across ** 2
        for j in np.flatnonzero((area >= lo) & (area <= hi) & (mean >= score)):
            if j == 0:
                continue
            x, y = (int(round(v)) for v in middle[j])
            r = int(self.labels[y, x])
            if not r or r in has_centre:
                continue
            has_centre.add(r)
            yield r, self._board_point(x, y), float(mean[j]), y * kind_logits.shape[2] + x

    def _stale_centres(self, cells: np.ndarray) -> set[str]:
        """The regions of the centres read at output ``cells`` that stand where a painted
        reference still shows a piece the frame does not (see STALE_MASS); none unless pieces were
        painted out of this calibration's reference. The input is read the other way round, the
        reference as the frame, in one window around each group of those centres."""
        if not self.profile.painted_out or not len(cells):
            return set()
        h, w = self.labels.shape
        ys, xs = np.divmod(np.asarray(cells, np.int64), w)
        half = CENTRE_WINDOW // 2
        boxes = self._so_far.merged(Box(max(0, (y - half) * STRIDE), max(0, (x - half) * STRIDE),
                                        min(h, y + half + 1) * STRIDE, min(w, x + half + 1) * STRIDE)
                                    for y, x in zip(ys, xs))
        other_way = np.zeros((h, w), np.float32)
        for box in boxes:
            window = self._so_far.window(box)
            x = self._input[:, :, window.rows, window.cols]
            x = np.ascontiguousarray(np.concatenate([x[:, 3:], x[:, :3]], axis=1))
            out = self.session.run(None, {self.input_name: x})[0][0]
            cells_in, around = box.cells(STRIDE), window.cells(STRIDE)
            other_way[cells_in.rows, cells_in.cols] = _density(out)[cells_in.within(around)]
        stale = set()
        for y, x in zip(ys, xs):
            y0, x0 = max(0, y - half), max(0, x - half)
            patch = other_way[y0:y + half + 1, x0:x + half + 1]
            top, left = y0 - (y - half), x0 - (x - half)         # where the patch starts in the disc
            mine = _CENTRE_DISC[top:top + patch.shape[0], left:left + patch.shape[1]]
            r = int(self.land_labels[y, x]) or int(self.labels[y, x])
            if r and (float((patch * mine).sum()) >= STALE_MASS or self._in_paint(x, y)):
                stale.add(self.geo.region_ids[r - 1])
        return stale

    def _in_paint(self, x: int, y: int) -> bool:
        """Whether output cell (x, y) lies in a disc a piece was painted out in (the profile's
        ``painted_discs``): there the reference shows paint, not the printed board."""
        discs = self._painted_discs
        bx, by = self._board_point(x, y)
        return bool(np.any(np.hypot(discs[:, 0] - bx, discs[:, 1] - by) <= discs[:, 2]))

    def _cover(self, occluder_logit: np.ndarray) -> np.ndarray:
        """The share of each region (by label value) under a hand, a card or a cup."""
        occluded = occluder_logit.ravel() > OCCLUDED_LOGIT
        hidden = np.bincount(self.labels.ravel()[occluded], minlength=self.n_regions + 1)
        cover = hidden / np.maximum(self._area, 1)
        cover[0] = 0.0
        return cover

    def _attribute(self, total: np.ndarray, peaks: np.ndarray) -> tuple[np.ndarray, dict[int, tuple[float, float]],
                                                                        np.ndarray, np.ndarray]:
        """Which region each output cell's density counts towards, a board point per region, the
        mass of each peak's basin (the cells nearer to it than to any other peak), and which
        region each cell counts towards for a province's pieces (a pile spilled off a small
        island counts towards the island); ``peaks`` is the density's peak mask over the
        legionary window.

        Summing the density inside each region's outline would split a piece standing near a
        printed border between two regions. Instead every local peak of the density (a piece, or
        one of a pile) takes the region under it, and each cell's mass goes with its nearest peak.
        The anchor of a region is its strongest peak, a point inside it."""
        if not peaks.any():
            return np.zeros(total.size, np.int64), {}, np.zeros_like(total), np.zeros(total.size, np.int64)
        inv = np.where(peaks, 0, 255).astype(np.uint8)
        _, nearest = cv2.distanceTransformWithLabels(inv, cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_PIXEL)
        basin = np.bincount(nearest.ravel(), weights=total.ravel())[nearest]
        lut = np.zeros(int(nearest.max()) + 1, np.int64)
        lut[nearest[peaks]] = self.labels[peaks]
        region_of = lut[nearest].ravel()
        lut[nearest[peaks]] = self.land_labels[peaks]
        land_region_of = lut[nearest].ravel()
        anchors: dict[int, tuple[float, float]] = {}
        ys, xs = np.nonzero(peaks)
        for labels in (self.labels, self.land_labels):       # a region's own summits first
            for i in np.argsort(-total[ys, xs]):
                r = int(labels[ys[i], xs[i]])
                if r and r not in anchors:
                    anchors[r] = self._board_point(xs[i], ys[i])
        return region_of, anchors, basin, land_region_of

    def _to_its_army(self, at: np.ndarray, where: np.ndarray, colour_p: np.ndarray, pieces: np.ndarray) -> np.ndarray:
        """The province each legionary summit (cells ``at``, in province ``where``) counts for.

        A province holds one army, so a summit of another army's colour standing near a border is
        most likely a piece of the neighbour across it: placed by the line, or read a cell or
        two off by a tilted camera. Counted where it stood, it made its province one legionary
        long (and took that province's colour) and the neighbour one short, both with confidence:
        on a rendered hard game, a green legionary of Thracia counted in yellow Moesia for three
        commits, and the tracker reported a yellow legionary placed out of turn. Such a summit
        (its colour read with at least STRAY_P) goes to a province within STRAY_REACH legionary
        widths (an island's spill off its coast included) whose army, by its summits each weighted
        by the pieces it stands for, is that colour."""
        armies = colour_p[:, :len(ARMY_COLOURS)]
        weight = np.stack([np.bincount(where, weights=armies[:, c] * pieces, minlength=self.n_regions + 1)
                           for c in range(len(ARMY_COLOURS))])
        held_by = np.where(weight.max(axis=0) > 0, weight.argmax(axis=0), -1)
        colour, sure = armies.argmax(axis=1), armies.max(axis=1)
        stray = np.flatnonzero((where > 0) & (sure >= STRAY_P) & (colour != held_by[where]))
        if not len(stray):
            return where
        where = where.copy()
        h, w = self.land_labels.shape
        for i in stray:
            y, x = divmod(int(at[i]), w)
            reach = int(np.ceil(STRAY_REACH * self._across_at[where[i]]))
            near = np.unique(self.land_labels[max(0, y - reach):y + reach + 1, max(0, x - reach):x + reach + 1])
            theirs = [int(r) for r in near if r and r != where[i] and not self._sea[r] and held_by[r] == colour[i]]
            if theirs:
                where[i] = theirs[0]
        return where

    @staticmethod
    def _summit_colours(colour_logits: np.ndarray, total: np.ndarray, at: np.ndarray) -> np.ndarray:
        """Each summit's colour (N x len(COLOURS) probabilities): the colour output around it (3 x 3
        cells), weighted by the density there.

        The colours of a region's pieces are shared out by these, each summit weighted by the
        pieces it stands for, rather than by the colour of the region's whole mass: there a fleet
        whose hull drew a light blob lost its trireme to the other fleet of its sea. On the
        validation tables (seed 5150, 200 per tier) the seas read right went from 97.0 / 94.8 /
        88.3 % to 97.4 / 95.5 / 89.2 %, and all regions from 97.66 / 92.54 / 79.76 % to 97.75 /
        92.84 / 80.14 % (a province's army colour by its summits gained 0.00 / 0.14 / 0.19 points
        of that). The centre cell alone, or 5 x 5 cells, did the same within 0.05 points."""
        h, w = total.shape
        ys, xs = np.divmod(at, w)
        acc = np.zeros((len(at), colour_logits.shape[0]))
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                y, x = np.clip(ys + dy, 0, h - 1), np.clip(xs + dx, 0, w - 1)
                acc += total[y, x][:, None] * _softmax(colour_logits[:, y, x]).T
        return acc / np.maximum(acc.sum(axis=1, keepdims=True), 1e-9)

    def _board_point(self, x: float, y: float) -> tuple[float, float]:
        """The board point (board units) under an output cell."""
        b = self._to_board @ np.array([x, y, 1.0])
        return float(b[0] / b[2]), float(b[1] / b[2])

    @staticmethod
    def _colours_of(kind: str, n: int, colour_mass: np.ndarray) -> list[int]:
        """How many of ``n`` pieces of ``kind`` in one region have each colour, from the region's
        colour weights (its summits' colours, each weighted by the pieces it stands for).

        A centre is always neutral. Legionaries and vexilla of one province belong to one army
        (the rules allow no other), so they all take the army colour with the most weight; triremes
        of several fleets may share a sea, so they are shared out by weight."""
        out = [0] * len(COLOURS)
        if kind == CENTRE:
            out[COLOURS.index(NEUTRAL)] = n
            return out
        armies = colour_mass[:len(ARMY_COLOURS)]
        if kind == TRIREME:
            return _split(n, armies) + [0]
        out[int(np.argmax(armies))] = n
        return out


def judge_regions(region_ids, out_of_view: frozenset[str], signs: np.ndarray | None, cover: np.ndarray,
                  confidence: Confidence | None, hidden: RegionConfidence | None,
                  ) -> tuple[frozenset[str], dict[str, float]]:
    """The regions the camera cannot see, and every seen region's confidence (rounded as the
    observed state keeps it), from the regions' signs of doubt and their cover (row = label value;
    ``signs`` None when they were not worked out). A region is unseen where the hidden-region
    model says so, or without one where something covers more than UNSEEN_COVER of it, and where
    the camera's frame cuts it off (``out_of_view``). The counter judges by its own models;
    ``augur bench confidence`` judges one reading by several (:mod:`vision.confidence_bench`)."""
    flags = hidden.predict(signs[1:]) >= HIDDEN_P if hidden is not None else cover[1:] > UNSEEN_COVER
    unseen = frozenset(region_ids[i] for i in np.flatnonzero(flags)) | out_of_view
    if signs is None or confidence is None:
        return unseen, {}
    p = confidence.predict(signs[1:])
    return unseen, {rid: round(float(p[i]), 3) for i, rid in enumerate(region_ids) if rid not in unseen}


def counting_crop(profile: CalibrationProfile, geo: BoardGeometry) -> Crop:
    """The crop the counter reads: the board with its margin, resized so that a legionary at the
    board's centre spans about TARGET_ACROSS output cells, within SCALES and MAX_INPUT_PIXELS.

    A tilted view is shrunk only as far as its farthest legionary (the smallest) keeps
    FAR_ACROSS cells: on validation renders, shrinking tilted views lost more on their far side
    than it gained on the near one. The pixel budget comes first: a board filling a 1280x720
    frame is shrunk to it whatever its pieces' size."""
    native = Crop.around(profile.pose.corners, tuple(profile.image_size))
    at_centre, smallest = legionary_across(profile, geo), legionary_across(profile, geo, smallest=True)
    floor = max(SCALES[0], min(1.0, FAR_ACROSS / smallest))
    scale = min(float(np.clip(TARGET_ACROSS / at_centre, floor, SCALES[1])),
                float(np.sqrt(MAX_INPUT_PIXELS / (native.size[0] * native.size[1]))))
    return replace(native, scale=scale)


def legionary_across(profile: CalibrationProfile, geo: BoardGeometry, smallest: bool = False) -> float:
    """How many output cells (at the camera's own scale) one legionary spans at the board's
    centre, or (``smallest``) at the board corner farthest from the camera."""
    w, h = geo.size
    points = [(0.1 * w, 0.1 * h), (0.9 * w, 0.1 * h), (0.1 * w, 0.9 * h), (0.9 * w, 0.9 * h)] if smallest \
        else [(0.5 * w, 0.5 * h)]
    return float(legionary_across_at(profile, points).min())


def legionary_across_at(profile: CalibrationProfile, points) -> np.ndarray:
    """How many output cells (at the camera's own scale) one legionary spans at each board point:
    from the legionary area learnt at calibration and the homography's local scale there."""
    across = []
    for x, y in points:
        q = cv2.perspectiveTransform(np.array([[[x, y], [x + 1, y], [x, y + 1]]], np.float64), profile.H)[0]
        px_per_unit2 = abs(np.linalg.det(np.stack([q[1] - q[0], q[2] - q[0]], axis=1)))
        across.append(float(np.sqrt(profile.legionary_area * px_per_unit2) / STRIDE))
    return np.array(across)


def peak_window(across: float) -> int:
    """The odd peak window (output cells) for a legionary ``across`` cells wide: its width less
    half a cell, within PEAK_WINDOWS (tuned on validation renders, seed 5150)."""
    window = int((across - 1.5) // 2) * 2 + 1
    return int(np.clip(window, *PEAK_WINDOWS))


def _density(out: np.ndarray) -> np.ndarray:
    """The network's density map, with the faint background below DENSITY_FLOOR cleared."""
    return np.where(out[0] > DENSITY_FLOOR, out[0], 0.0)


def pieces_at_summit(basin: np.ndarray) -> np.ndarray:
    """How many legionaries a summit stands for, from its basin's mass: two standing close enough
    share one summit, and its basin holds both masses (TWIN_MASS)."""
    return np.where(basin >= TWIN_MASS, 2 + np.floor(basin - TWIN_MASS), 1)


def _peaks(total: np.ndarray, window: int) -> np.ndarray:
    """Cells that are the highest in their window and above PEAK_MIN."""
    return (total >= cv2.dilate(total, np.ones((window, window), np.uint8))) & (total > PEAK_MIN)


def _unsure(p: np.ndarray) -> np.ndarray:
    """1 - the likeliest class's probability, per row of class probabilities (0 for a row of
    zeros: a summit no classifier read)."""
    return np.where(p.sum(axis=1) > 0, 1.0 - p.max(axis=1), 0.0) if len(p) else np.zeros(0)


def _softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


def _split(n: int, weights: np.ndarray) -> list[int]:
    """Share ``n`` pieces among colours in proportion to ``weights`` (largest remainders)."""
    total = float(weights.sum())
    if total <= 0:
        return [n] + [0] * (len(weights) - 1)
    share = weights / total * n
    out = np.floor(share).astype(int)
    for i in np.argsort(-(share - out))[:n - int(out.sum())]:
        out[i] += 1
    return out.tolist()


def model_card(path: Path | None = None) -> dict:
    """The card written beside a network (by default the trained float one's)."""
    card = Path(path or FLOAT_COUNTER).with_suffix(".json")
    return json.loads(card.read_text(encoding="utf-8")) if card.is_file() else {}
