"""What a bench's figures depend on besides the code and the seeds: the libraries and the CPU.

Why the benches print it: two of their figures move with the machine, not the code.
- Latency: onnxruntime's 8-bit convolutions run on VNNI instructions where the CPU has them and
  on slower AVX2 ones where it does not (``vision.quantize`` explains the difference in the
  arithmetic too), so a frame's milliseconds are only comparable between CPUs of one kind.
- The tables on the real print: the print is the shared photo warped to the board frame and
  the region map fitted to it, so OpenCV's resampling decides where the pieces stand. The same
  network read the first 40 validation tables per tier on the print at 98.77 / 95.96 / 86.93 %
  (easy / medium / hard) with OpenCV 5.0.0 and at 97.94 / 96.14 / 87.81 % with 4.14.0, while
  the procedural tables agreed within 0.04 points (session 57, ``models/README.md``).
Figures from two benches are comparable only where this line reads the same. A bench run under
``tools/without-vnni.sh`` (the CPU's VNNI and AVX-512 hidden from the process, so that onnxruntime
takes its AVX2 kernels) says so: /proc/cpuinfo still lists the flags the process cannot see.
"""
from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")

#: The CPU flags (Linux's names) of the VNNI instructions onnxruntime's 8-bit kernels use.
VNNI_FLAGS = ("avx512_vnni", "avx_vnni")

#: Set by tools/cpuid-mask.c in a process whose CPUID it masks (and inherited by its children), to
#: one of the keys of :data:`HIDDEN`.
MASKED_ENV = "AUGUR_CPUID_MASKED"

#: What tools/without-vnni.sh hid, by the value it leaves in :data:`MASKED_ENV`, and whether the
#: process still sees a VNNI instruction set.
HIDDEN = {"all": ("its VNNI and AVX-512 hidden", False),
          "avx512": ("its AVX-512 hidden, AVX-VNNI kept", True)}


def cpuid_masked(environ=os.environ) -> str | None:
    """What tools/without-vnni.sh hides from this process (a key of :data:`HIDDEN`), or None."""
    mode = environ.get(MASKED_ENV)
    return mode if mode in HIDDEN and "cpuid-mask" in environ.get("LD_PRELOAD", "") else None


@dataclass(frozen=True)
class BenchEnvironment:
    """The libraries and the CPU a bench ran on."""
    opencv: str
    onnxruntime: str
    numpy: str
    python: str
    cores: int
    cpu: str
    vnni: bool | None       # None: the CPU's flags could not be read; the process's view when masked
    masked: str | None = None   # what tools/without-vnni.sh hides from the process (a key of HIDDEN)

    def describe(self) -> str:
        vnni = {True: "with VNNI", False: "without VNNI", None: "VNNI unknown"}[self.vnni]
        if self.masked:
            vnni = f"{HIDDEN[self.masked][0]} by tools/without-vnni.sh"
        return (f"OpenCV {self.opencv}, onnxruntime {self.onnxruntime}, NumPy {self.numpy}, "
                f"Python {self.python}; {self.cores} cores of {self.cpu} ({vnni})")

    def as_dict(self) -> dict:
        return {"opencv": self.opencv, "onnxruntime": self.onnxruntime, "numpy": self.numpy,
                "python": self.python, "cores": self.cores, "cpu": self.cpu, "vnni": self.vnni, "masked": self.masked}


def name_and_flags(cpuinfo: str) -> tuple[str | None, set[str] | None]:
    """The first CPU's model name and flags, from the text of /proc/cpuinfo (None for what the
    text does not say)."""
    name = flags = None
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and name is None:
            name = value.strip()
        elif key == "flags" and flags is None:
            flags = set(value.split())
    return name, flags


def cpu_flags(cpuinfo: Path = CPUINFO) -> set[str]:
    """The CPU's flags as Linux names them; empty where /proc/cpuinfo cannot be read or says none."""
    try:
        return name_and_flags(cpuinfo.read_text(errors="replace"))[1] or set()
    except OSError:
        return set()


def cpu_of(cpuinfo: str) -> tuple[str | None, bool | None]:
    """The CPU's model name and whether it has VNNI, from the text of /proc/cpuinfo (None for
    what the text does not say)."""
    name, flags = name_and_flags(cpuinfo)
    return name, (None if flags is None else any(f in flags for f in VNNI_FLAGS))


def bench_environment(cpuinfo: Path = CPUINFO, environ=os.environ) -> BenchEnvironment:
    import cv2
    import numpy
    import onnxruntime
    try:
        name, vnni = cpu_of(cpuinfo.read_text(errors="replace"))
    except OSError:             # not Linux: the model name from the platform, the flags unknown
        name, vnni = None, None
    masked = cpuid_masked(environ)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return BenchEnvironment(opencv=cv2.__version__, onnxruntime=onnxruntime.__version__, numpy=numpy.__version__,
                            python=platform.python_version(), cores=cores,
                            cpu=name or platform.processor() or platform.machine() or "an unknown CPU",
                            vnni=HIDDEN[masked][1] if masked else vnni, masked=masked)
