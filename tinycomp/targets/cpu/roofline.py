"""This CPU core's roofline, measured: the micro-kernel's peak and the copy bandwidth.

A roofline (``tinycomp.perf.roofline.Machine``) needs two numbers. The data sheet gives
theoretical ones; measuring gives what code can actually reach on this core, one
thread, which is the roofline the GEMM benchmark should be read against. Measuring
JITs code, so it lives with the CPU target; the roofline itself is perf's.

1. **Compute roof**: the micro-kernel (``blis/microkernel.py``) on packed data that stays
   in L1. ``@microkernel_repeat`` calls it ``repeats`` times on the same MR x KC and
   KC x NR slivers, accumulating into one tile of C, so nothing but its FMAs and its
   L1 loads is timed; FLOPs = ``2 * MR * NR * KC * repeats``. This is the best any
   code built from this micro-kernel can do (BLIS reports the same quantity).
2. **Memory roof**: copying a buffer much larger than the last-level cache with numpy
   (``np.copyto``: a ``memcpy``), bytes = read + written, as STREAM's "copy" counts
   them (the write-allocate read of the destination is real traffic but not counted,
   so this is a lower bound on what the memory system moved).
3. ``measure_machine``: both, as a ``Machine`` whose ``notes`` say how they were measured.
   ``benchmarks/cpu_roofline.py`` stores it with the chapter's kernels
   (``benchmarks/results/cpu_roofline_<cpu>.json``).

>>> small = Blocking(mr=4, nr=16, kc=64, mc=4, nc=16, lanes=8)
>>> machine = measure_machine(small, megabytes=1, repeats=10, trials=1)
>>> machine.peak_flops > 0 and machine.bandwidth > 0, machine.notes["microkernel"]
(True, '4x16, KC=64, lanes=8')
"""

from __future__ import annotations

import time

import numpy as np

from tinycomp.perf.roofline import Machine
from tinycomp.targets.cpu.blis.blocking import Blocking, choose_blocking
from tinycomp.targets.cpu.blis.ir_text import FunctionWriter
from tinycomp.targets.cpu.blis.microkernel import MICROKERNEL, microkernel_ir
from tinycomp.targets.cpu.machine import detect_machine

__all__ = [
    "measure_copy_bandwidth",
    "measure_machine",
    "measure_microkernel_peak",
    "microkernel_repeat_ir",
]


def microkernel_repeat_ir(blocking: Blocking) -> str:
    """A module with ``@microkernel`` and ``@microkernel_repeat(%kc, %a, %b, %c, %repeats)``,
    which runs the micro-kernel ``repeats`` times on the same slivers (step 1)."""
    f = FunctionWriter(
        "microkernel_repeat",
        "%kc: index, %a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?x?xf32>, %repeats: index",
    )
    accumulate = f.constant("accumulate", "arith.constant false")
    zero, rows, cols = f.index(0), f.index(blocking.mr), f.index(blocking.nr)
    with f.region(f"scf.for %repeat = {zero} to %repeats step {f.index(1)} {{"):
        f.line(
            f"func.call @{MICROKERNEL}(%kc, %a, {zero}, %b, {zero}, %c, {zero}, {zero}, "
            f"{rows}, {cols}, {accumulate}) : (index, memref<?xf32>, index, memref<?xf32>, "
            "index, memref<?x?xf32>, index, index, index, index, i1) -> ()"
        )
    f.line("return")
    return "module {\n" + f.text() + "\n\n" + microkernel_ir(blocking) + "\n}"


def measure_microkernel_peak(
    blocking: Blocking | None = None, repeats: int = 4000, trials: int = 5
) -> float:
    """Step 1: the micro-kernel's FLOP/s on L1-resident packed data (best of ``trials``).

    >>> small = Blocking(mr=4, nr=16, kc=64, mc=4, nc=16, lanes=8)
    >>> measure_microkernel_peak(small, repeats=10, trials=1) > 0
    True
    """
    from tinycomp.codegen.cpu import jit  # llvmlite: imported when needed

    b = blocking if blocking is not None else choose_blocking(detect_machine())
    module = jit(microkernel_repeat_ir(b))
    rng = np.random.default_rng(0)
    a = rng.standard_normal(b.mr * b.kc).astype(np.float32)
    packed_b = rng.standard_normal(b.nr * b.kc).astype(np.float32)
    c = np.zeros((b.mr, b.nr), dtype=np.float32)
    run = module["microkernel_repeat"]
    run(b.kc, a, packed_b, c, 1)  # warm up: caches, page faults
    best = float("inf")
    for _ in range(trials):
        start = time.perf_counter()
        run(b.kc, a, packed_b, c, repeats)
        best = min(best, time.perf_counter() - start)
    return 2.0 * b.mr * b.nr * b.kc * repeats / best


def measure_copy_bandwidth(megabytes: int = 256, trials: int = 5) -> float:
    """Step 2: bytes/s of ``np.copyto`` on a buffer of ``megabytes`` MiB (read + write).

    >>> measure_copy_bandwidth(megabytes=1, trials=1) > 0
    True
    """
    count = megabytes * (1 << 20) // 4
    source = np.ones(count, dtype=np.float32)
    target = np.zeros(count, dtype=np.float32)
    np.copyto(target, source)  # touch every page first
    best = float("inf")
    for _ in range(trials):
        start = time.perf_counter()
        np.copyto(target, source)
        best = min(best, time.perf_counter() - start)
    return 2.0 * source.nbytes / best


def measure_machine(
    blocking: Blocking | None = None, megabytes: int = 256, repeats: int = 4000, trials: int = 5
) -> Machine:
    """Step 3: both roofs measured now (a few seconds at the defaults)."""
    machine_model = detect_machine()
    b = blocking if blocking is not None else choose_blocking(machine_model)
    peak = measure_microkernel_peak(b, repeats=repeats, trials=trials)
    bandwidth = measure_copy_bandwidth(megabytes, trials=trials)
    notes = {
        "cpu": machine_model.llvm_cpu,
        "microkernel": f"{b.mr}x{b.nr}, KC={b.kc}, lanes={b.lanes}",
        "copy_mib": megabytes,
    }
    name = f"{machine_model.name}, 1 core (measured)"
    return Machine(name, peak_flops=peak, bandwidth=bandwidth, notes=notes)
