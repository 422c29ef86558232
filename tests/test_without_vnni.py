"""tools/without-vnni.sh: a command run as on an AVX2-only CPU, and what the 8-bit networks read there.

The 8-bit files hold 7-bit weights so that a CPU without VNNI adds their products without
saturating (tests/test_quantize.py checks the weights). Here the claim itself is checked: the
same input through the shipped networks gives the same output, to the bit, with the VNNI
kernels and with the AVX2 ones.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.density import DEFAULT_COUNTER
from vision.environment import MASKED_ENV, VNNI_FLAGS, cpu_flags
from vision.lying import DEFAULT_LYING
from vision.summits import DEFAULT_HULLS, DEFAULT_SUMMITS

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "without-vnni.sh"

FLAGS = cpu_flags()
pytestmark = [
    pytest.mark.skipif("cpuid_fault" not in FLAGS, reason="this CPU or kernel cannot make CPUID fault "
                                                          "(no cpuid_fault in /proc/cpuinfo)"),
    pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to build tools/cpuid-mask.c"),
]


#: The environment of every process these tests start: never masked already (as when the suite
#: itself runs under tools/without-vnni.sh), so that "plain" means the CPU as it is.
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", MASKED_ENV)}


def run(args: list[str], timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=CLEAN_ENV)


def without_vnni(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return run(["bash", str(SCRIPT), *args], timeout=timeout)


FEATURES = """
import json
from numpy._core._multiarray_umath import __cpu_features__ as f
from vision.environment import bench_environment
print(json.dumps({"AVX2": f["AVX2"], "AVX512F": f["AVX512F"], "AVX512VNNI": f["AVX512VNNI"],
                  "said": bench_environment().describe()}))
"""

RUN_MODELS = """
import sys
import numpy as np
import onnxruntime as ort
from vision.onnx_models import input_dtype
folder = sys.argv[1]
for name in sys.argv[2:]:
    s = ort.InferenceSession(f"{folder}/{name}.onnx", providers=["CPUExecutionProvider"])
    x = np.load(f"{folder}/{name}.in.npy")
    np.save(f"{folder}/{name}.out.npy", s.run(None, {s.get_inputs()[0].name: x.astype(input_dtype(s))})[0])
"""


#: A program that asks the CPU itself (leaf 7, subleaves 0 and 1) what the tests check.
CPUID_PROBE = r"""
#include <cpuid.h>
#include <stdio.h>
int main(void) {
    unsigned a, b, c, d, a1, b1, c1, d1;
    __cpuid_count(7, 0, a, b, c, d);
    __cpuid_count(7, 1, a1, b1, c1, d1);
    printf("{\"avx2\": %d, \"avx512f\": %d, \"avx512_vnni\": %d, \"avx_vnni\": %d}\n",
           !!(b & (1u << 5)), !!(b & (1u << 16)), !!(c & (1u << 11)), !!(a1 & (1u << 4)));
    return 0;
}
"""


@pytest.fixture(scope="module")
def cpuid_probe(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("cpuid")
    (folder / "probe.c").write_text(CPUID_PROBE)
    subprocess.run(["cc", "-O1", "-o", str(folder / "probe"), str(folder / "probe.c")], check=True)
    return str(folder / "probe")


class TestTheMask:
    def test_the_cpu_answers_the_process_without_avx512_or_vnni(self, cpuid_probe):
        plain = json.loads(run([cpuid_probe]).stdout)
        masked = json.loads(without_vnni(cpuid_probe).stdout)
        assert masked == {**plain, "avx512f": 0, "avx512_vnni": 0, "avx_vnni": 0}
        assert masked["avx2"] == ("avx2" in FLAGS)

    @pytest.mark.skipif("avx_vnni" not in FLAGS, reason="this CPU has no AVX-VNNI to keep")
    def test_keep_avx_vnni_hides_avx512_alone(self, cpuid_probe):
        """The CPUs of most Intel laptops since 2021: AVX-VNNI without AVX-512."""
        proc = without_vnni("--keep-avx-vnni", cpuid_probe)
        assert proc.returncode == 0, proc.stderr
        seen = json.loads(proc.stdout)
        assert seen["avx_vnni"] == 1 and seen["avx512f"] == 0 and seen["avx512_vnni"] == 0
        assert "AVX-VNNI kept" in proc.stderr
        said = without_vnni("--keep-avx-vnni", sys.executable, "-c", FEATURES)
        assert "(its AVX-512 hidden, AVX-VNNI kept by tools/without-vnni.sh)" in json.loads(said.stdout)["said"]

    def test_the_process_sees_avx2_but_no_avx512_or_vnni(self):
        plain = run([sys.executable, "-c", FEATURES])
        assert plain.returncode == 0, plain.stderr
        here = json.loads(plain.stdout)
        proc = without_vnni(sys.executable, "-c", FEATURES)
        assert proc.returncode == 0, proc.stderr
        seen = json.loads(proc.stdout)
        assert seen["AVX2"] == here["AVX2"]
        assert not seen["AVX512F"] and not seen["AVX512VNNI"]
        assert "hidden by tools/without-vnni.sh" in seen["said"]
        assert proc.stderr.count("AVX-512 and VNNI hidden") == 1      # once, not once per child process

    def test_no_command_is_a_usage_error(self):
        proc = without_vnni()
        assert proc.returncode == 2 and "usage: bash tools/without-vnni.sh" in proc.stderr
        proc = without_vnni("--keep-avx-vnni")
        assert proc.returncode in (2, 3) and "without-vnni" in proc.stderr

    def test_a_real_fault_still_ends_the_process(self):
        """Only a CPUID instruction is stepped over; any other fault kills the process as before."""
        proc = without_vnni(sys.executable, "-c", "import ctypes; ctypes.string_at(0)", timeout=60)
        assert proc.returncode in (-11, 139)

    def test_a_program_with_its_own_fault_handler_is_masked_and_still_dies_its_own_way(self):
        """Python's faulthandler (pytest turns it on) installs a SIGSEGV handler of its own. Before
        the library wrapped sigaction, the first CPUID after it ended the process; now the
        program's handler gets the real faults only, and prints its traceback as it would."""
        proc = without_vnni(sys.executable, "-X", "faulthandler", "-c", FEATURES)
        assert proc.returncode == 0, proc.stderr
        assert not json.loads(proc.stdout)["AVX512F"]
        proc = without_vnni(sys.executable, "-X", "faulthandler", "-c", "import ctypes; ctypes.string_at(0)",
                            timeout=60)
        assert proc.returncode in (-11, 139)
        assert "Fatal Python error: Segmentation fault" in proc.stderr


@pytest.fixture(scope="module")
def easy_table():
    """One held-out easy table, calibrated: its frame and profile (calibrated once for both tests)."""
    from tests.test_density import calibrated_scene

    img, _, profile = calibrated_scene("easy", 0)
    return img, profile


@pytest.mark.skipif(not any(f in FLAGS for f in VNNI_FLAGS), reason="this CPU has no VNNI to hide")
class TestEveryCpuReadsTheSame:
    @staticmethod
    def _run_plain_and_masked(folder: Path, names: list[str]) -> tuple[dict, dict]:
        outputs = {}
        for how in ([sys.executable], ["bash", str(SCRIPT), sys.executable]):
            proc = run([*how, "-c", RUN_MODELS, str(folder), *names])
            assert proc.returncode == 0, proc.stderr
            outputs[len(how)] = {n: np.load(folder / f"{n}.out.npy") for n in names}
        return outputs[1], outputs[3]

    def test_the_shipped_8bit_networks_give_the_same_output_to_the_bit(self, tmp_path, easy_table):
        from tests.test_quantize import _counter_input
        from vision.quantize import table_windows

        img, profile = easy_table
        summit_win, hull_win = table_windows(profile, img)
        # The knocked-over piece classifier reads the summit classifier's windows (one cut for both).
        inputs = {DEFAULT_COUNTER: _counter_input(img, profile), DEFAULT_SUMMITS: summit_win, DEFAULT_HULLS: hull_win,
                  DEFAULT_LYING: summit_win}
        names = []
        for path, x in inputs.items():
            assert len(x) > 0
            shutil.copy(path, tmp_path / path.name)
            np.save(tmp_path / f"{path.stem}.in.npy", x)
            names.append(path.stem)
        plain, masked = self._run_plain_and_masked(tmp_path, names)
        for n in names:
            assert plain[n].shape == masked[n].shape and np.abs(plain[n]).max() > 0
            assert np.array_equal(plain[n], masked[n]), f"{n}: the AVX2 kernels read otherwise"

    def test_weights_in_eight_bits_would_read_otherwise(self, tmp_path, monkeypatch, easy_table):
        """Why the weights stop at 64: the summit classifier quantised with the full -127..127
        range reads the same windows otherwise once VNNI is hidden (its logits moved by 16 on
        session 108's CPU), as session 46 found on a CPU that had none."""
        import vision.quantize as quantize

        img, profile = easy_table
        win, _ = quantize.table_windows(profile, img)
        monkeypatch.setattr(quantize, "WEIGHT_LIMIT", 127)
        monkeypatch.setattr(quantize, "REDUCE_RANGE", False)
        quantize.quantize_classifier(quantize.float_original(DEFAULT_SUMMITS), tmp_path / "eight.onnx", win[::2])
        np.save(tmp_path / "eight.in.npy", win)
        plain, masked = self._run_plain_and_masked(tmp_path, ["eight"])
        assert np.abs(plain["eight"] - masked["eight"]).max() > 1.0
