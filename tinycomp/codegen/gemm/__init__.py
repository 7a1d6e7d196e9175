"""A hardware-aware GEMM: BLIS's blocking from the machine's caches, a generated micro-kernel.

The pieces, in reading order:

* ``caches``, ``machine``: the core as the blocking sees it (SIMD width, registers,
  FMA units, L1/L2/L3), read from the machine with named presets and a visible fallback;
* ``blocking``: MR, NR, KC, MC, NC by the analytical model of Low et al. (2016);
* ``ir_text``: writing generated functions as MLIR text;
* ``microkernel``: the MR x NR register-blocked kernel in the vector dialect;
* ``packing``: A into MR-row slivers, B into NR-column slivers, zero-padded;
* ``gemm``: the five loops around them, one JIT'ed module: ``BlockedGemm``;
* ``interchange``, ``variants``: the naive and the tiled + vectorized matmuls of the
  pipeline that the benchmark compares against;
* ``assembly_stats``: the micro-kernel's inner loop, counted (FMAs, loads, spills);
* ``roofline``: the measured CPU roofline and the chapter's kernels on it;
* ``results``: a stored benchmark result and its staircase picture.

>>> import numpy as np
>>> from tinycomp.codegen.gemm import BlockedGemm, choose_blocking, PRESETS
>>> choose_blocking(PRESETS["laptop-avx2"])
Blocking(mr=6, nr=16, kc=168, mc=192, nc=2720, lanes=8, itemsize=4)
"""

from tinycomp.codegen.gemm.assembly_stats import LoopStats, hot_loop
from tinycomp.codegen.gemm.blocking import Blocking, choose_blocking, register_tile
from tinycomp.codegen.gemm.caches import CacheLevel, read_caches
from tinycomp.codegen.gemm.gemm import BlockedGemm, gemm_module_ir
from tinycomp.codegen.gemm.interchange import InterchangePass
from tinycomp.codegen.gemm.machine import PRESETS, CpuMachine, detect_machine
from tinycomp.codegen.gemm.microkernel import microkernel_ir
from tinycomp.codegen.gemm.packing import pack_a_ir, pack_b_ir
from tinycomp.codegen.gemm.results import GemmBenchmark
from tinycomp.codegen.gemm.roofline import (
    CpuRoofline,
    chapter_kernel_costs,
    measure_copy_bandwidth,
    measure_microkernel_peak,
)
from tinycomp.codegen.gemm.variants import naive_matmul, tiled_matmul

__all__ = [
    "PRESETS",
    "BlockedGemm",
    "Blocking",
    "CacheLevel",
    "CpuMachine",
    "CpuRoofline",
    "GemmBenchmark",
    "InterchangePass",
    "LoopStats",
    "chapter_kernel_costs",
    "choose_blocking",
    "detect_machine",
    "gemm_module_ir",
    "hot_loop",
    "measure_copy_bandwidth",
    "measure_microkernel_peak",
    "microkernel_ir",
    "naive_matmul",
    "pack_a_ir",
    "pack_b_ir",
    "read_caches",
    "register_tile",
    "tiled_matmul",
]
