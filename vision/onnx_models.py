"""Opening ONNX models for onnxruntime on the CPU: one way for every model the counter runs."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from tracker.errors import AugurError


#: onnxruntime's graph optimiser that moves 8-bit convolutions to channels-last (NHWC) order.
NHWC = "NhwcTransformer"


@lru_cache(maxsize=4)
def onnx_session(path: Path, threads: int | None = None, error: type[AugurError] = AugurError,
                 what: str = "model", disabled: tuple[str, ...] = ()):
    """One onnxruntime session per model file, shared by every user (a re-calibration or a
    re-localisation makes a new counter, not a new session). A missing or unreadable file raises
    ``error`` with a one-line message naming ``what`` it is. ``disabled``: onnxruntime graph
    optimisers left out (such as :data:`NHWC`); the arithmetic is the same either way, only the
    order the data is laid out in differs."""
    import onnxruntime as ort
    if not path.is_file():
        raise error(f"{what} not found: {path}")
    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = threads
    opts.log_severity_level = 3
    # onnxruntime's worker threads spin for a while after each run; on a 2-core laptop they took
    # the CPU from the numpy reading between runs: 105 instead of 77 ms a frame (p50, easy tables)
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"],
                                    disabled_optimizers=list(disabled))
    except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own exception types
        raise error(f"cannot load the {what} {path.name}: {exc}") from None


#: The input types a model may take, pixels 0..255 either way: float (the float exports, and
#: 8-bit files made before session 103) or uint8 (vision.quantize.pixels_in_uint8).
INPUT_TYPES = {"tensor(float)": np.float32, "tensor(uint8)": np.uint8}


def input_dtype(session, error: type[AugurError] = AugurError) -> type:
    """The numpy type of the first input of the onnxruntime ``session`` (``error`` if it is neither)."""
    kind = session.get_inputs()[0].type
    if kind not in INPUT_TYPES:
        raise error(f"the model takes its input as {kind}, not as pixels")
    return INPUT_TYPES[kind]
