"""``augur quantize-counter``: the counting network in 8-bit integers, for the CPU.

The float network (``models/pieces-density.onnx``, what training writes and fine-tunes start
from) reads a table filmed at 1280 x 720 in about 125 ms on a 2-core laptop; three such readings stand
between the last hand leaving the board and a committed state. Its weights and activations in
8 bits, with onnxruntime's static quantisation, run the same network in about 60 ms there.

Three things keep its counts close to the float network's (``models/README.md``):

- **the output stays float.** The head writes the piece density (a few hundredths per cell)
  beside logits of about ten in one tensor; in 8 bits over that range the density was lost (27 %
  of regions right on easy tables). The head stays float (``FLOAT_TAIL``).
- **activation ranges from rendered tables of every tier**, clipped at a high percentile, so
  that one bright specular spot does not stretch a layer's range.
- **7-bit weights** (``REDUCE_RANGE``), so that the result is the same on every CPU; see
  :func:`quantize_qdq`.

And the input is quantised straight from the pixels, the network's own scaling of them folded
into the quantiser (:func:`fold_input_scaling`); that quantiser then turns each pixel into itself,
so it leaves the graph and the network takes the pixels as uint8 (:func:`pixels_in_uint8`).

The summit and hull classifiers are quantised the same way (:func:`quantize_qdq`, their input
folded and taken as uint8 as well); ``augur quantize-classifiers`` remakes them from their float
exports (``models/training/*-float.onnx``) without torch, their activation ranges read on the
windows the counter cuts at the summits of the same seeded tables (:func:`classifier_windows`).

The quantised file is a derived artifact: this module remakes it from the float file and the
seeded tables, and its card (``pieces-density-int8.json``) records the float file's SHA-256.
Only this needs the ``onnx`` package (the ``[train]`` extra); reading the result needs
onnxruntime alone.
"""
from __future__ import annotations

import contextlib
import io
import json
import tempfile
from pathlib import Path

import numpy as np

from tracker.errors import AugurError
from vision.confidence import file_sha256

#: Seed of the rendered tables whose network inputs set the activation ranges (no other set
#: uses it: training 11, validation 5150, confidence 7070 to 7074, bench 90210).
QUANT_SEED = 8686
#: Tables per tier.
QUANT_TABLES = 16
#: Each table's input is cut to its centre, this size, so that the histograms stack.
QUANT_WINDOW = (512, 512)
#: Activation ranges clipped at this percentile of each layer's values.
QUANT_PERCENTILE = 99.999
#: Convolutions at the network's end kept in float, with every node after the first of them. From
#: session 27 to 101 the decoder's last convolution stayed float too (2): with the network of
#: session 27 and min-max activation ranges the densities' relative error at the pieces was 6.4 %
#: with the head alone float, and 3.0 % with both, but the two changes were measured together. At
#: full output resolution that float convolution was the costliest layer (14 of 93 ms on a
#: 760 x 856 input, session 102). For the broad network of session 100, in 8 bits with percentile
#: ranges, the error went from 2.6 to 3.5 % and the regions read right did not move: 36,480
#: validation regions (tables 0 to 79, medium and hard, both arts) within 0.05 points
#: (models/README.md, session 102).
FLOAT_TAIL = 1
#: Weights quantised to 7 bits (-64..64, onnxruntime's reduced range) instead of 8. onnxruntime
#: multiplies uint8 activations by int8 weights with VPMADDUBSW on x86 CPUs that lack VNNI (AVX2
#: only: most AMD Zen 2 and 3, Intel before Ice Lake), which adds two products in a saturating
#: 16-bit lane (at most 32,767): 2 x 255 x 127 overflows it, 2 x 255 x 64 = 32,640 does not.
#: CPUs with VNNI add in 32 bits and never saturate, so with 8-bit weights one file read
#: differently on two laptops. Found in session 46 on an AMD EPYC without VNNI: the summit
#: classifier of session 39 (8-bit weights, made on a VNNI machine) took 106 of 4,400 summit
#: windows of rendered tables for vexilla at p >= 0.9 where its float original took 61, and easy
#: tables read 92.9 % of regions right instead of 99.1 % (models/README.md, session 46).
REDUCE_RANGE = True
#: The largest magnitude a weight takes in those 7 bits.
WEIGHT_LIMIT = 64
#: What every 8-bit file of models/ holds, as its card says it.
FORMAT = (f"QDQ, weights int8 per channel in 7 bits (-{WEIGHT_LIMIT}..{WEIGHT_LIMIT}: no saturation on CPUs "
          "without VNNI), "
          "activations uint8")
#: Summit and hull windows per batch when the classifiers' activation ranges are read.
CLASSIFIER_BATCH = 64


class QuantizeError(AugurError):
    """A network cannot be quantised (a missing file, a missing package)."""


def float_original(shipped: Path) -> Path:
    """The float export an 8-bit classifier of models/ is made from: ``training/<name>-float.onnx``."""
    shipped = Path(shipped)
    return shipped.parent / "training" / f"{shipped.stem}-float.onnx"


def calibrated_tables(per_tier: int = QUANT_TABLES, seed: int = QUANT_SEED):
    """Yields (profile, frame) for ``per_tier`` rendered tables of each tier, each calibrated on
    its own empty-table photo as a user's would be (a table whose calibration fails is skipped)."""
    from calibration.profile import calibrate
    from vision.synth.board_art import procedural_art
    from vision.synth.dataset import iter_renders
    from vision.synth.render import calibration_render
    art = procedural_art()
    for tier in ("easy", "medium", "hard"):
        for _, img, truth in iter_renders(tier, per_tier, seed):
            try:
                yield calibrate(calibration_render(truth), art, players=truth.players), img
            except AugurError:
                continue


def calibration_inputs(src: Path, per_tier: int = QUANT_TABLES, seed: int = QUANT_SEED) -> list[np.ndarray]:
    """The network inputs (1 x 6 x H x W, float) the counter prepares for the float network ``src``
    on the :func:`calibrated_tables`, cut to QUANT_WINDOW around the centre."""
    from vision.density import DensityCounter
    out = []
    h, w = QUANT_WINDOW
    for profile, img in calibrated_tables(per_tier, seed):
        counter = DensityCounter(profile, model=src, confidence=None, summits=None, hulls=None, hidden=None)
        counter._write_frame(img)
        x = counter._input
        y0, x0 = max(0, (x.shape[2] - h) // 2), max(0, (x.shape[3] - w) // 2)
        window = x[:, :, y0:y0 + h, x0:x0 + w]
        if window.shape[2:] == (h, w):
            out.append(np.ascontiguousarray(window, np.float32))
    return out


def float_tail(model) -> list[str]:
    """Names of the nodes kept in float: the last FLOAT_TAIL convolutions and all that follows."""
    nodes = list(model.graph.node)
    convs = [i for i, n in enumerate(nodes) if n.op_type == "Conv"]
    if len(convs) < FLOAT_TAIL:
        raise QuantizeError(f"the network has {len(convs)} convolutions, fewer than {FLOAT_TAIL}")
    return [n.name for n in nodes[convs[-FLOAT_TAIL]:] if n.op_type != "Constant"]


def quantize_counter(src: Path, out: Path, per_tier: int = QUANT_TABLES, seed: int = QUANT_SEED,
                     progress=print) -> dict:
    """Quantise the float network ``src`` into ``out`` and write its card beside it."""
    src, out = _quantisable(src, "counting network"), Path(out)
    import onnx
    import onnxruntime
    from onnxruntime.quantization.shape_inference import quant_pre_process
    progress(f"reading {per_tier} rendered tables per tier (seed {seed}) for the activation ranges")
    inputs = calibration_inputs(src, per_tier, seed)
    name = onnxruntime.InferenceSession(str(src), providers=["CPUExecutionProvider"]).get_inputs()[0].name
    # onnxruntime's calibrator prints its histograms' sizes: not for the user
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        keep_float = float_tail(onnx.load(str(pre)))
        out.parent.mkdir(parents=True, exist_ok=True)
        quantize_qdq(pre, out, [{name: x} for x in inputs], percentile=QUANT_PERCENTILE,
                     nodes_to_exclude=keep_float)
    folded, uint8 = pixels_straight_in(out)
    card = {"model": out.name, "quantised_from": src.name, "float_sha256": file_sha256(src),
            "format": FORMAT, "calibration": "percentile",
            "percentile": QUANT_PERCENTILE, "kept_float": keep_float, "input_scaling_folded": folded,
            "input_uint8": uint8,
            "tables": {"per_tier": per_tier, "seed": seed, "window": list(QUANT_WINDOW), "read": len(inputs)},
            "onnxruntime": onnxruntime.__version__, "command": "augur quantize-counter"}
    out.with_suffix(".json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    progress(f"wrote {out} ({out.stat().st_size // 1024} KB) from {len(inputs)} tables")
    return card


def fold_input_scaling(path: Path) -> bool:
    """Rewrite the 8-bit network at ``path`` so that its input is quantised straight from the
    pixels: the network scales them itself (``x / 127.5 - 1``, a Div and a Sub over the whole
    input, in float), and the quantiser then divides by its own scale. On a 760 x 856 input those
    two passes over six planes took 2 to 6 ms of about 90 on a 2-core CPU, and the scaling folds
    into the quantiser's: ``round((x / d - c) / s) + z`` is ``round(x / (d s)) + (z - c / s)``.

    The zero point must be a whole number, so the fraction left of ``z - c / s`` (0.44 of a step
    for the shipped network) is added, in the first convolution's own 32-bit units, to its bias;
    only the zero padding around the input's edge reads that fraction of a step off. The pixels
    are whole numbers (0..255) and ``d s`` is within 0.05 % of 1, so each pixel now quantises to
    itself, and the first convolution sees it within 0.05 % of its scaled value; before, the
    fraction rounded the pixels from 125 up one step higher, half a step from their true value.
    Of the two whole zero points around the offset, the nearer that keeps pixel 255 inside 8 bits
    is taken (the classifiers' offset is exactly half a step).
    Returns whether the pattern was found (a network exported otherwise is left as it is)."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(str(path))
    graph = model.graph
    init = {t.name: t for t in graph.initializer}      # quant_pre_process made every constant one
    producer = {o: n for n in graph.node for o in n.output}
    users: dict[str, list] = {}
    for n in graph.node:
        for i in n.input:
            users.setdefault(i, []).append(n)

    def value(name: str) -> np.ndarray | None:
        return numpy_helper.to_array(init[name]) if name in init else None

    def only_user(name: str, op: str):
        found = users.get(name, [])
        return found[0] if len(found) == 1 and found[0].op_type == op else None

    x = graph.input[0].name
    div = only_user(x, "Div")
    sub = div and only_user(div.output[0], "Sub")
    quant = sub and only_user(sub.output[0], "QuantizeLinear")
    deq = quant and only_user(quant.output[0], "DequantizeLinear")
    conv = deq and only_user(deq.output[0], "Conv")
    if conv is None or len(conv.input) < 3:
        return False
    scalars = [value(name) for name in (div.input[1], sub.input[1], quant.input[1], quant.input[2])]
    # one scaling for every plane, and pixels quantised to uint8 (what quantize_qdq writes)
    if any(v is None or v.size != 1 for v in scalars) or scalars[3].dtype != np.uint8:
        return False
    d, c, s = (float(v) for v in scalars[:3])
    z = int(scalars[3])
    weights, bias = producer.get(conv.input[1]), producer.get(conv.input[2])
    if weights is None or bias is None or weights.op_type != "DequantizeLinear" or bias.op_type != "DequantizeLinear":
        return False
    offset = z - c / s
    # of the two whole zero points around the offset, the nearer one that keeps pixel 255 in 8
    # bits: the classifiers' offset is 0.5, and rounding it up to 1 would clip the brightest pixel
    top = float(np.round(255 / np.float32(d * s)))
    around = sorted((int(np.floor(offset)), int(np.floor(offset)) + 1), key=lambda k: abs(k - offset))
    zero = next((k for k in around if k + top <= 255), around[0])
    if not 0 <= zero <= 255:        # the pixels would not fit in 8 bits from that zero point
        return False
    w = numpy_helper.to_array(init[weights.input[0]]).astype(np.float64)
    w *= numpy_helper.to_array(init[weights.input[1]]).reshape(-1, 1, 1, 1)
    # every input read (offset - zero) steps of s low: the bias makes up for it
    shift = w.sum(axis=(1, 2, 3)) * (offset - zero) * s
    b, b_scale = numpy_helper.to_array(init[bias.input[0]]), numpy_helper.to_array(init[bias.input[1]])
    init[bias.input[0]].CopyFrom(numpy_helper.from_array((b + np.round(shift / b_scale)).astype(b.dtype),
                                                         bias.input[0]))
    graph.initializer.extend([numpy_helper.from_array(np.array(d * s, np.float32), "input_pixels_scale"),
                              numpy_helper.from_array(np.array(zero, np.uint8), "input_pixels_zero_point")])
    quant.input[0], quant.input[1], quant.input[2] = x, "input_pixels_scale", "input_pixels_zero_point"
    _remove_nodes(model, path, (div, sub), init)
    return True


def pixels_in_uint8(path: Path) -> bool:
    """Rewrite the 8-bit network at ``path`` to take its pixels as 8-bit integers, when its input
    quantiser (once :func:`fold_input_scaling` has made it one straight from the pixels) turns
    every whole pixel 0..255 into itself: that quantiser leaves the graph, and the network's input
    becomes uint8 where it was float. The outputs are the same to the bit. Why: the counter's
    input then takes a quarter of the memory (15.6 MB a 760 x 856 float input, and as much again
    for its mirror image), each frame's planes are written into it without a conversion, the
    classifiers' windows are cut from it in 8 bits, and onnxruntime skips a pass over the whole
    input. Returns whether it was rewritten (a network whose quantiser is not the identity on the
    pixels is left as it is)."""
    import onnx
    from onnx import numpy_helper
    model = onnx.load(str(path))
    graph = model.graph
    x = graph.input[0]
    found = [n for n in graph.node if x.name in n.input]
    if len(found) != 1 or found[0].op_type != "QuantizeLinear" or len(found[0].input) < 3 \
            or x.type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
        return False
    quant = found[0]
    init = {t.name: t for t in graph.initializer}
    if quant.input[1] not in init or quant.input[2] not in init:
        return False
    scale, zero = (numpy_helper.to_array(init[name]) for name in quant.input[1:3])
    if scale.size != 1 or zero.size != 1 or zero.dtype != np.uint8:
        return False
    pixels = np.arange(256, dtype=np.float32)
    quantised = np.clip(np.round(pixels / scale.astype(np.float32)) + int(zero), 0, 255)     # as onnxruntime
    if not np.array_equal(quantised, pixels):
        return False
    for node in graph.node:
        node.input[:] = [x.name if name == quant.output[0] else name for name in node.input]
    x.type.tensor_type.elem_type = onnx.TensorProto.UINT8
    _remove_nodes(model, path, (quant,), init)
    return True


def _remove_nodes(model, path: Path, nodes, init: dict) -> None:
    """Take ``nodes`` out of ``model``'s graph with their constant inputs (``init``: the graph's
    initializers by name) that no other node uses, check the model and save it to ``path``."""
    import onnx
    graph = model.graph
    for node in nodes:
        graph.node.remove(node)
    for name in {i for node in nodes for i in node.input if i in init}:
        if not any(name in n.input for n in graph.node):
            graph.initializer.remove(init[name])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def pixels_straight_in(path: Path) -> tuple[bool, bool]:
    """The 8-bit network at ``path`` rewritten to take its pixels as they are: its input's scaling
    folded (:func:`fold_input_scaling`), then, where that leaves the quantiser the identity on
    pixels, the input made uint8 (:func:`pixels_in_uint8`). Returns what was done, in that order."""
    folded = fold_input_scaling(path)
    return folded, folded and pixels_in_uint8(path)


def _quantisable(src: Path, what: str) -> Path:
    """``src`` as a path, once the quantisation's packages are there and the file is; else one
    clear error naming ``what`` it is."""
    from importlib.util import find_spec
    if find_spec("onnx") is None:
        raise QuantizeError("quantising needs the onnx package (pip install -e '.[train]')")
    src = Path(src)
    if not src.is_file():
        raise QuantizeError(f"{what} not found: {src}")
    return src


def quantize_qdq(src: Path, out: Path, feeds: list[dict], percentile: float | None = None,
                 nodes_to_exclude=()) -> None:
    """onnxruntime's static quantisation with the settings every 8-bit model of models/ shares:
    QDQ nodes, per-channel int8 weights in 7 bits (REDUCE_RANGE), uint8 activations whose
    ranges are read on ``feeds`` (one dict of input name to array a run); ``percentile``: their
    ranges clipped at that percentile of each layer's values (else the minimum and maximum seen)."""
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                          quantize_static)

    class Feeds(CalibrationDataReader):
        def __init__(self):
            self._it = iter(feeds)

        def get_next(self):
            return next(self._it, None)

    extra = {"CalibPercentile": percentile} if percentile is not None else {}
    method = CalibrationMethod.Percentile if percentile is not None else CalibrationMethod.MinMax
    quantize_static(str(src), str(out), Feeds(), quant_format=QuantFormat.QDQ, per_channel=True,
                    reduce_range=REDUCE_RANGE, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    calibrate_method=method, nodes_to_exclude=list(nodes_to_exclude), extra_options=extra)


def classifier_windows(per_tier: int = QUANT_TABLES, seed: int = QUANT_SEED) -> tuple[np.ndarray, np.ndarray]:
    """The summit and hull windows (:func:`table_windows`) of the :func:`calibrated_tables`: the
    classifiers' activation ranges are read on these."""
    summit_wins, hull_wins = zip(*(table_windows(profile, img) for profile, img in calibrated_tables(per_tier, seed)))
    return np.concatenate(summit_wins), np.concatenate(hull_wins)


def table_windows(profile, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The windows (N x CHANNELS x PATCH x PATCH) the shipped counter gives the summit classifier and
    the hull classifier on one frame: at the cells where it asks for a second look
    (:meth:`DensityCounter.second_look_candidates`, :meth:`~DensityCounter.hull_candidates`), cut
    from its own input as at run time."""
    from vision.density import DensityCounter
    from vision.summits import windows
    counter = DensityCounter(profile, confidence=None, summits=None, hulls=None, hidden=None)
    out = counter.predict(image)
    at, _ = counter.second_look_candidates(out)
    return (windows(counter._input[0], counter.summit_pixels(at)),
            windows(counter._input[0], counter.summit_pixels(counter.hull_candidates(out))))


def quantize_classifier(src: Path, out: Path, samples: np.ndarray) -> None:
    """The summit or hull classifier ``src`` (float ONNX, input "windows") in 8 bits, written to
    ``out``, its activation ranges read on ``samples`` (the minimum and maximum seen), its input's
    scaling folded and its windows taken as uint8 pixels (:func:`fold_input_scaling`,
    :func:`pixels_in_uint8`).

    Why 8 bits: with three convolutions a stage the summit classifier took about 12 ms a frame for
    a hundred windows, in 8 bits about 9 (on a CPU with VNNI), and it read the same share of
    regions right (on the bench 94.3 / 86.0 / 74.6 % against 94.2 / 86.1 / 74.5 % in floating
    point; see models/README.md)."""
    src, out = _quantisable(src, "float classifier"), Path(out)
    from onnxruntime.quantization.shape_inference import quant_pre_process
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre))
        out.parent.mkdir(parents=True, exist_ok=True)
        quantize_qdq(pre, out, [{"windows": samples[i:i + CLASSIFIER_BATCH].astype(np.float32)}
                                for i in range(0, len(samples), CLASSIFIER_BATCH)])
    pixels_straight_in(out)
