"""The 8-bit models (``augur quantize-counter``, ``augur quantize-classifiers``, vision/quantize.py)."""
from __future__ import annotations

import json

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from tests.test_density import calibrated_scene
from tracker.state import ObservedState
from vision.confidence import file_sha256
from vision.count import count
from vision.density import DEFAULT_COUNTER, FLOAT_COUNTER, DensityCounter
from vision.geometry import load_geometry
from vision.onnx_models import input_dtype
from vision.quantize import (FLOAT_TAIL, WEIGHT_LIMIT, QuantizeError, classifier_windows, float_original, float_tail,
                             fold_input_scaling, pixels_in_uint8, quantize_classifier, quantize_counter, quantize_qdq,
                             table_windows)
from vision.lying import DEFAULT_LYING
from vision.summits import DEFAULT_HULLS, DEFAULT_SUMMITS, PIECES_P, VEXILLUM_P, SummitReading

pytestmark = pytest.mark.skipif(not FLOAT_COUNTER.is_file(), reason="no counting network shipped in models/")


def _maps(path, x: np.ndarray) -> np.ndarray:
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return s.run(None, {s.get_inputs()[0].name: x.astype(input_dtype(s))})[0][0]


def _counter_input(img: np.ndarray, profile) -> np.ndarray:
    """The counting network's input for a frame, as the counter writes it."""
    counter = DensityCounter(profile, model=FLOAT_COUNTER, confidence=None, summits=None, hulls=None, hidden=None)
    counter._write_frame(img)
    return counter._input.copy()


def _easy_input() -> np.ndarray:
    img, _, profile = calibrated_scene("easy", 0)
    return _counter_input(img, profile)


def _weights_int8(path) -> list[np.ndarray]:
    """The int8 tensors of an 8-bit file: its quantised weights (activations are uint8)."""
    from onnx import numpy_helper
    return [numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer
            if t.data_type == onnx.TensorProto.INT8]


def _in_seven_bits(path) -> bool:
    return all(w.min() >= -WEIGHT_LIMIT and w.max() <= WEIGHT_LIMIT for w in _weights_int8(path))


def _readings(path, win: np.ndarray) -> SummitReading:
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return SummitReading.from_logits(s.run(None, {s.get_inputs()[0].name: win.astype(input_dtype(s))})[0])


@pytest.fixture(scope="module")
def easy_windows():
    """The summit and hull windows the shipped counter cuts on two held-out easy tables."""
    summit_wins, hull_wins = zip(*(table_windows(profile, img) for img, _, profile in
                                   (calibrated_scene("easy", k) for k in range(2))))
    return np.concatenate(summit_wins), np.concatenate(hull_wins)


#: every 8-bit file the counter runs
EIGHT_BIT_MODELS = [DEFAULT_COUNTER, DEFAULT_SUMMITS, DEFAULT_HULLS, DEFAULT_LYING]


class TestEveryCpuReadsTheSame:
    """The 8-bit files hold 7-bit weights (-64..64). onnxruntime adds uint8 x int8 products in
    pairs in a saturating 16-bit lane on x86 CPUs without VNNI; with 8-bit weights the summit classifier made
    on a VNNI machine took 106 of 4,400 summit windows for vexilla on an AMD EPYC where its float
    original took 61, and easy tables read 92 % of regions right instead of 99 %."""

    @pytest.mark.parametrize("path", EIGHT_BIT_MODELS, ids=lambda p: p.stem)
    def test_every_weight_fits_in_seven_bits(self, path):
        assert _weights_int8(path), "no 8-bit weights in the file"
        assert _in_seven_bits(path)

    @pytest.mark.parametrize("path", EIGHT_BIT_MODELS, ids=lambda p: p.stem)
    def test_it_takes_the_pixels_as_they_are(self, path):
        model = onnx.load(str(path))
        assert model.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.UINT8
        assert not {"Div", "Sub"} & {n.op_type for n in model.graph.node}
        assert not [n for n in model.graph.node if n.op_type == "QuantizeLinear" and model.graph.input[0].name in n.input]

    def test_the_summit_classifier_reads_as_its_float_original(self, easy_windows):
        win = easy_windows[0]
        assert len(win) > 100
        want, got = _readings(float_original(DEFAULT_SUMMITS), win), _readings(DEFAULT_SUMMITS, win)
        # the vexillum call agrees wherever the float original is clear of the threshold, as the
        # pieces' call is compared where both are sure: session 100's counter cuts one window (of
        # 233) that the float file reads at 0.934 and the 8-bit one at 0.889, across the 0.9 line;
        # saturation on CPUs without VNNI moved clear windows too (106 vexilla against 61)
        clear = np.abs(want.vexillum - VEXILLUM_P) >= 0.05
        assert clear.mean() > 0.98
        assert np.array_equal((got.vexillum >= VEXILLUM_P)[clear], (want.vexillum >= VEXILLUM_P)[clear])
        sure = (want.sure_pieces(PIECES_P) >= 0) & (got.sure_pieces(PIECES_P) >= 0)
        assert sure.mean() > 0.8
        assert np.mean(got.sure_pieces(PIECES_P)[sure] == want.sure_pieces(PIECES_P)[sure]) > 0.99

    def test_the_knocked_over_piece_classifier_reads_as_its_float_original(self, easy_windows):
        from vision.lying import LYING_P, LyingClassifier
        win = easy_windows[0]
        want, got = (LyingClassifier(path)._probabilities(win)
                     for path in (float_original(DEFAULT_LYING), DEFAULT_LYING))
        clear = np.abs(want - LYING_P) >= 0.05
        assert clear.mean() > 0.98
        assert np.array_equal((got >= LYING_P)[clear], (want >= LYING_P)[clear])
        assert np.abs(got - want).max() < 0.3

    def test_the_hull_classifier_reads_as_its_float_original(self, easy_windows):
        win = easy_windows[1]
        assert len(win) > 5
        want, got = _readings(float_original(DEFAULT_HULLS), win), _readings(DEFAULT_HULLS, win)
        assert np.mean(np.argmax(got.pieces, 1) == np.argmax(want.pieces, 1)) > 0.95
        assert np.abs(got.pieces - want.pieces).max() < 0.2


class TestQuantizeClassifiers:
    def test_the_windows_are_cut_where_the_counter_asks_for_a_second_look(self):
        summit_wins, hull_wins = classifier_windows(per_tier=1)
        assert summit_wins.ndim == 4 and summit_wins.shape[1:] == (7, 48, 48) and len(summit_wins) > 50
        assert hull_wins.shape[1:] == (7, 48, 48)
        assert summit_wins[:, :6].max() > 100 and summit_wins[:, 6].max() > 0      # frame planes, summits marked

    def test_it_remakes_a_classifier_in_seven_bits_that_reads_like_the_float_one(self, tmp_path, easy_windows):
        out = tmp_path / "summits.onnx"
        win = easy_windows[0]
        quantize_classifier(float_original(DEFAULT_SUMMITS), out, win[::2])
        assert _in_seven_bits(out)
        assert onnx.load(str(out)).graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.UINT8
        want, got = _readings(float_original(DEFAULT_SUMMITS), win), _readings(out, win)
        assert np.mean(np.argmax(got.pieces, 1) == np.argmax(want.pieces, 1)) > 0.97
        assert np.abs(got.vexillum - want.vexillum).max() < 0.5

    def test_the_command_remakes_the_three_classifiers_beside_each_other(self, tmp_path):
        import subprocess
        import sys
        proc = subprocess.run([sys.executable, "-m", "augur", "quantize-classifiers", "--tables", "1",
                               "--out-dir", str(tmp_path)], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        for shipped in (DEFAULT_SUMMITS, DEFAULT_HULLS, DEFAULT_LYING):
            out = tmp_path / shipped.name
            assert f"wrote {out}" in proc.stdout
            assert _in_seven_bits(out)
        assert DEFAULT_SUMMITS.read_bytes() != (tmp_path / DEFAULT_SUMMITS.name).read_bytes()  # not a copy

    def test_a_missing_classifier_is_one_clear_error(self, tmp_path):
        with pytest.raises(QuantizeError, match="float classifier not found"):
            quantize_classifier(tmp_path / "none.onnx", tmp_path / "out.onnx", np.zeros((1, 7, 48, 48), np.float32))


class TestShippedInt8Counter:
    def test_it_was_made_from_the_shipped_float_network(self):
        card = json.loads(DEFAULT_COUNTER.with_suffix(".json").read_text())
        assert card["float_sha256"] == file_sha256(FLOAT_COUNTER)
        assert set(card["kept_float"]) == set(float_tail(onnx.load(str(FLOAT_COUNTER))))

    def test_its_maps_are_the_float_networks_within_a_few_percent(self):
        x = _easy_input()
        want, got = _maps(FLOAT_COUNTER, x), _maps(DEFAULT_COUNTER, x)
        dense = want[0] > 0.01
        assert dense.sum() > 100
        assert np.median(np.abs(got[0] - want[0])[dense] / want[0][dense]) < 0.05
        assert np.mean(np.argmax(got[1:5], 0)[dense] == np.argmax(want[1:5], 0)[dense]) > 0.99

    def test_it_quantises_its_input_straight_from_the_pixels(self):
        card = json.loads(DEFAULT_COUNTER.with_suffix(".json").read_text())
        assert card["input_scaling_folded"] is True and card["input_uint8"] is True
        ops = [n.op_type for n in onnx.load(str(DEFAULT_COUNTER)).graph.node]
        assert "Div" not in ops and "Sub" not in ops
        assert "Div" in [n.op_type for n in onnx.load(str(FLOAT_COUNTER)).graph.node]   # the float one scales

    def test_the_counter_writes_each_frame_in_the_type_its_network_takes(self):
        img, _, profile = calibrated_scene("easy", 0)
        shipped, exported = (DensityCounter(profile, model=m, confidence=None, summits=None, hulls=None, hidden=None)
                             for m in (DEFAULT_COUNTER, FLOAT_COUNTER))
        for counter in (shipped, exported):
            counter._write_frame(img)
        assert shipped._input.dtype == np.uint8 and exported._input.dtype == np.float32
        np.testing.assert_array_equal(shipped._input, exported._input)     # the same whole pixels
        assert shipped._input.nbytes * 4 == exported._input.nbytes

    def test_it_counts_held_out_easy_tables_as_the_float_network_does(self):
        """The two networks' own readings (the summits' basins, no classifier) are the same. The
        summit classifier reads windows of each network's input and can tip a summit it is unsure
        of either way: session 113's read a vexillum in Armenia on easy table 0 from the float
        network's input, not from the 8-bit one's (two legionaries stand there)."""
        geo = load_geometry()
        for k in range(2):
            img, truth, profile = calibrated_scene("easy", k)
            own = [count(d, profile.geometry, d.unseen) for d in
                   (DensityCounter(profile, model=m, summits=None, summit_counts=None).detect(img)
                    for m in (FLOAT_COUNTER, DEFAULT_COUNTER))]
            assert own[0].regions == own[1].regions
            shipped = DensityCounter(profile).detect(img)
            read = count(shipped, profile.geometry, shipped.unseen)
            want = ObservedState.from_dict(truth.state)
            assert sum(read.regions.get(r) == want.regions.get(r) for r in geo.region_ids) >= 0.9 * len(geo.region_ids)


class TestQuantizeCounter:
    def test_the_float_tail_is_the_head_and_all_after_it(self):
        model = onnx.load(str(FLOAT_COUNTER))
        tail = float_tail(model)
        convs = [n.name for n in model.graph.node if n.op_type == "Conv"]
        assert [n for n in tail if n in convs] == convs[-FLOAT_TAIL:]
        assert tail[-1] == model.graph.node[-1].name         # everything after them too

    def test_it_remakes_a_network_that_reads_like_the_float_one(self, tmp_path):
        out = tmp_path / "int8.onnx"
        card = quantize_counter(FLOAT_COUNTER, out, per_tier=1, progress=lambda *_: None)
        assert card["tables"]["read"] == 3 and card["float_sha256"] == file_sha256(FLOAT_COUNTER)
        assert card["input_scaling_folded"] is True and card["input_uint8"] is True
        assert json.loads(out.with_suffix(".json").read_text()) == card
        assert out.stat().st_size < FLOAT_COUNTER.stat().st_size / 2
        x = _easy_input()
        want, got = _maps(FLOAT_COUNTER, x), _maps(out, x)
        dense = want[0] > 0.01
        assert np.median(np.abs(got[0] - want[0])[dense] / want[0][dense]) < 0.1

    def test_a_missing_network_is_one_clear_error(self, tmp_path):
        with pytest.raises(QuantizeError, match="counting network not found"):
            quantize_counter(tmp_path / "none.onnx", tmp_path / "out.onnx", progress=lambda *_: None)


def _scaling_network(path, scale: bool = True, per_plane: bool = False) -> None:
    """A small float network that scales its pixels as the counting network does (``x / 127.5 - 1``,
    unless ``scale`` is False; ``per_plane``: by a divisor of its own for each plane, all 127.5),
    then two convolutions, written to ``path``."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(7)
    inits = [numpy_helper.from_array(rng.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32), "w1"),
             numpy_helper.from_array(rng.normal(0, 0.1, 8).astype(np.float32), "b1"),
             numpy_helper.from_array(rng.normal(0, 0.3, (2, 8, 1, 1)).astype(np.float32), "w2"),
             numpy_helper.from_array(np.zeros(2, np.float32), "b2"),
             numpy_helper.from_array(np.full((1, 3, 1, 1) if per_plane else (), 127.5, np.float32), "d"),
             numpy_helper.from_array(np.array(1.0, np.float32), "c")]
    nodes = [helper.make_node("Div", ["input", "d"], ["x1"]), helper.make_node("Sub", ["x1", "c"], ["x2"])] \
        if scale else []
    nodes += [helper.make_node("Conv", ["x2" if scale else "input", "w1", "b1"], ["y1"], pads=[1, 1, 1, 1],
                               strides=[2, 2]),
              helper.make_node("Relu", ["y1"], ["y2"]),
              helper.make_node("Conv", ["y2", "w2", "b2"], ["maps"])]
    graph = helper.make_graph(nodes, "scaling", [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                                               [1, 3, "h", "w"])],
                              [helper.make_tensor_value_info("maps", TensorProto.FLOAT, None)], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def _pixels(seed: int) -> np.ndarray:
    """1 x 3 x 32 x 32 whole pixel values, as the counter's input holds (8-bit frames)."""
    return np.random.default_rng(seed).integers(0, 256, (1, 3, 32, 32)).astype(np.float32)


@pytest.fixture()
def folded(tmp_path):
    """The small scaling network in float, in 8 bits, and in 8 bits folded (paths), and what
    the fold returned."""
    src, out, folded = tmp_path / "float.onnx", tmp_path / "int8.onnx", tmp_path / "folded.onnx"
    _scaling_network(src)
    quantize_qdq(src, out, [{"input": _pixels(k)} for k in range(4)])
    folded.write_bytes(out.read_bytes())
    return src, out, folded, fold_input_scaling(folded)


class TestFoldInputScaling:
    def test_the_scaling_leaves_the_graph(self, folded):
        _, out, folded, found = folded
        assert found is True
        before, model = onnx.load(str(out)), onnx.load(str(folded))
        assert {"Div", "Sub"} <= {n.op_type for n in before.graph.node}
        assert not {"Div", "Sub"} & {n.op_type for n in model.graph.node}
        assert [n.input[0] for n in model.graph.node if n.op_type == "QuantizeLinear"][0] == "input"
        assert not {"d", "c"} & {t.name for t in model.graph.initializer}      # nor its constants

    def test_it_reads_as_the_unfolded_network_and_no_further_from_the_float_one(self, folded):
        src, out, folded, _ = folded
        x = np.concatenate([_pixels(k) for k in range(10, 14)], axis=3)
        want, before, after = _maps(src, x), _maps(out, x), _maps(folded, x)
        spread = float(np.ptp(want))
        # each pixel read at most a step apart, and now closer to its true value: the outputs
        # stay within a few output steps, and nearer the float network's on average
        assert np.abs(after - before).max() < 0.05 * spread
        assert np.abs(after - want).mean() <= np.abs(before - want).mean()

    @pytest.mark.parametrize("scale", [True, False], ids=["scaled plane by plane", "not scaled"])
    def test_a_network_it_cannot_fold_is_left_as_it_is(self, tmp_path, scale):
        src, out = tmp_path / "float.onnx", tmp_path / "int8.onnx"
        _scaling_network(src, scale=scale, per_plane=scale)
        # a network that does not scale its pixels is given them scaled
        feeds = [_pixels(k) if scale else _pixels(k) / 127.5 - 1 for k in range(4)]
        quantize_qdq(src, out, [{"input": x} for x in feeds])
        kept = out.read_bytes()
        assert ("Div" in [n.op_type for n in onnx.load(str(out)).graph.node]) is scale
        assert fold_input_scaling(out) is False
        assert out.read_bytes() == kept

    def test_the_brightest_pixel_still_fits_in_eight_bits(self, folded):
        # min-max ranges put the scaled pixels' zero point half a step off (0.5): rounded up, it
        # would quantise pixel 255 to 256, clipped; the zero point below it keeps every pixel
        _, _, folded, _ = folded
        model = onnx.load(str(folded))
        init = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
        quant = [n for n in model.graph.node if n.op_type == "QuantizeLinear" and n.input[0] == "input"][0]
        scale, zero = float(init[quant.input[1]]), int(init[quant.input[2]])
        assert abs(scale - 1) < 0.01
        assert np.round(255 / scale) + zero <= 255


class TestPixelsInUint8:
    def test_the_folded_network_takes_its_pixels_as_uint8_and_reads_the_same_to_the_bit(self, folded, tmp_path):
        _, _, folded, found = folded
        assert found is True
        out = tmp_path / "uint8.onnx"
        out.write_bytes(folded.read_bytes())
        assert pixels_in_uint8(out) is True
        model = onnx.load(str(out))
        assert model.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.UINT8
        assert not [n for n in model.graph.node if n.op_type == "QuantizeLinear" and n.input[0] == "input"]
        x = np.concatenate([_pixels(k) for k in range(20, 24)], axis=3)
        x[..., :4] = 255                # the brightest pixels too
        assert np.array_equal(_maps(out, x), _maps(folded, x))

    def test_a_network_whose_quantiser_is_not_the_identity_on_pixels_is_left_as_it_is(self, tmp_path):
        src, out = tmp_path / "float.onnx", tmp_path / "int8.onnx"
        _scaling_network(src)
        # pixels seen only up to 100: the quantiser's steps are finer than a pixel
        quantize_qdq(src, out, [{"input": np.minimum(_pixels(k), 100)} for k in range(4)])
        assert fold_input_scaling(out) is True
        kept = out.read_bytes()
        assert pixels_in_uint8(out) is False
        assert out.read_bytes() == kept

    def test_an_unfolded_network_is_left_as_it_is(self, folded):
        _, out, _, _ = folded
        kept = out.read_bytes()
        assert pixels_in_uint8(out) is False        # its input goes to the Div, not to a quantiser
        assert out.read_bytes() == kept
