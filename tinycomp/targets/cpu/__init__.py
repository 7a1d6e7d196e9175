"""The CPU target's own pieces: the machine model, the BLIS strategy, the measured roofline.

* ``caches``, ``machine``: the core as the blocking sees it (SIMD width, registers,
  FMA units, L1/L2/L3), read from the machine with named presets and a visible fallback;
* ``blis/``: blocking, packing, the micro-kernel and the five loops, generated as IR;
* ``contraction``: which ``linalg.generic`` ops are contractions, and their m/n/k/batch;
* ``contraction_to_blis``: the pass ``cpu-contraction-to-blis``, which lowers them
  through the BLIS strategy inside the compiled module;
* ``roofline``: this core's roofline, measured (the micro-kernel's peak, the copy
  bandwidth).

>>> from tinycomp.targets.cpu import PRESETS, choose_blocking
>>> choose_blocking(PRESETS["znver5"]).mr
14
"""

from tinycomp.targets.cpu.blis import Blocking, choose_blocking
from tinycomp.targets.cpu.caches import CacheLevel, read_caches
from tinycomp.targets.cpu.machine import PRESETS, CpuMachine, detect_machine

__all__ = [
    "PRESETS",
    "Blocking",
    "CacheLevel",
    "CpuMachine",
    "choose_blocking",
    "detect_machine",
    "read_caches",
]
