"""The 8-bit counting network (``augur quantize-counter``, vision/quantize.py)."""
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
from vision.quantize import FLOAT_TAIL, QuantizeError, float_tail, quantize_counter

pytestmark = pytest.mark.skipif(not FLOAT_COUNTER.is_file(), reason="no counting network shipped in models/")


def _maps(path, x: np.ndarray) -> np.ndarray:
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return s.run(None, {s.get_inputs()[0].name: x})[0][0]


def _easy_input() -> np.ndarray:
    img, _, profile = calibrated_scene("easy", 0)
    counter = DensityCounter(profile, model=FLOAT_COUNTER, confidence=None, summits=None, hulls=None, hidden=None)
    counter._write_frame(img)
    return counter._input.copy()


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

    def test_it_counts_held_out_easy_tables_as_the_float_network_does(self):
        geo = load_geometry()
        for k in range(2):
            img, truth, profile = calibrated_scene("easy", k)
            read = [count(d, profile.geometry, d.unseen) for d in
                    (DensityCounter(profile, model=m).detect(img) for m in (FLOAT_COUNTER, DEFAULT_COUNTER))]
            assert read[0].regions == read[1].regions
            want = ObservedState.from_dict(truth.state)
            assert sum(read[1].regions.get(r) == want.regions.get(r) for r in geo.region_ids) >= 0.9 * len(geo.region_ids)


class TestQuantizeCounter:
    def test_the_float_tail_is_the_head_and_the_convolution_before_it(self):
        model = onnx.load(str(FLOAT_COUNTER))
        tail = float_tail(model)
        convs = [n.name for n in model.graph.node if n.op_type == "Conv"]
        assert [n for n in tail if n in convs] == convs[-FLOAT_TAIL:]
        assert tail[-1] == model.graph.node[-1].name         # everything after them too

    def test_it_remakes_a_network_that_reads_like_the_float_one(self, tmp_path):
        out = tmp_path / "int8.onnx"
        card = quantize_counter(FLOAT_COUNTER, out, per_tier=1, progress=lambda *_: None)
        assert card["tables"]["read"] == 3 and card["float_sha256"] == file_sha256(FLOAT_COUNTER)
        assert json.loads(out.with_suffix(".json").read_text()) == card
        assert out.stat().st_size < FLOAT_COUNTER.stat().st_size / 2
        x = _easy_input()
        want, got = _maps(FLOAT_COUNTER, x), _maps(out, x)
        dense = want[0] > 0.01
        assert np.median(np.abs(got[0] - want[0])[dense] / want[0][dense]) < 0.1

    def test_a_missing_network_is_one_clear_error(self, tmp_path):
        with pytest.raises(QuantizeError, match="counting network not found"):
            quantize_counter(tmp_path / "none.onnx", tmp_path / "out.onnx", progress=lambda *_: None)
