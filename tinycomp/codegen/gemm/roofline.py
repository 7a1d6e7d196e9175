"""A roofline of this CPU core, measured: the micro-kernel's peak and the copy bandwidth.

A roofline (``tinycomp.perf.roofline``) needs two numbers. The data sheet gives
theoretical ones; measuring gives what code can actually reach on this core, one
thread, which is the roofline the GEMM benchmark should be read against:

1. **Compute roof**: the micro-kernel (``microkernel.py``) on packed data that stays
   in L1. ``@microkernel_repeat`` calls it ``repeats`` times on the same MR x KC and
   KC x NR slivers, accumulating into one tile of C, so nothing but its FMAs and its
   L1 loads is timed; FLOPs = ``2 * MR * NR * KC * repeats``. This is the best any
   code built from this micro-kernel can do (BLIS reports the same quantity).
2. **Memory roof**: copying a buffer much larger than the last-level cache with numpy
   (``np.copyto``: a ``memcpy``), bytes = read + written, as STREAM's "copy" counts
   them (the write-allocate read of the destination is real traffic but not counted,
   so this is a lower bound on what the memory system moved).
3. **Kernels**: the chapter's kernels (softmax, layernorm, matmul, conv2d of the
   catalogue ``tinycomp.testing.KERNELS``), traced at ``ROOFLINE_SHAPES`` and fused
   (``stop_after="fused"``); their FLOPs and compulsory bytes are counted from the
   linalg ops by ``tinycomp.perf.kernel_costs`` and summed per program.
4. ``CpuRoofline``: the ``tinycomp.perf.Machine`` of the two roofs and the kernels on
   it, as data (``table()``) and as a picture (``picture()``, which draws with
   ``tinycomp.perf.roofline_picture``). ``from_dict`` rebuilds one from a stored
   measurement (``benchmarks/results/cpu_roofline_<cpu>.json``), which is how a
   notebook shows it with deterministic output.

>>> roofline = CpuRoofline.from_dict({"name": "toy core", "peak_gflops": 200.0,
...                                   "bandwidth_gbs": 20.0})
>>> roofline.machine.ridge_point
10.0
>>> [(k.name, k.bound) for k in roofline.placements()]
[('softmax', 'memory'), ('layernorm', 'memory'), ('matmul', 'compute'), ('conv2d', 'compute')]
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from tinycomp.codegen.gemm.blocking import Blocking, choose_blocking
from tinycomp.codegen.gemm.ir_text import FunctionWriter
from tinycomp.codegen.gemm.machine import detect_machine
from tinycomp.codegen.gemm.microkernel import MICROKERNEL, microkernel_ir
from tinycomp.perf import KernelCost, Machine, kernel_costs, roofline_picture, roofline_table

__all__ = [
    "ROOFLINE_SHAPES",
    "CpuRoofline",
    "Placement",
    "chapter_kernel_costs",
    "measure_copy_bandwidth",
    "measure_microkernel_peak",
    "microkernel_repeat_ir",
]

ROOFLINE_SHAPES: dict[str, dict[str, int]] = {
    "softmax": {"rows": 1024, "cols": 1024},
    "layernorm": {"rows": 1024, "cols": 1024},
    "matmul": {"m": 1024, "k": 1024, "n": 1024},
    "conv2d": {"n": 1, "h": 56, "w": 56, "c": 64, "f": 64, "kh": 3, "kw": 3},
}
"""The chapter's kernels at the sizes placed on the roofline: softmax and layernorm
of 1024 x 1024, a 1024^3 matmul, and conv2d a ResNet-like layer (a 56 x 56 x 64 image,
a 3 x 3 x 64 x 64 filter, stride 2, padding 1, as the catalogue's ``conv2d`` is)."""


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


def chapter_kernel_costs(
    shapes: dict[str, dict[str, int]] = ROOFLINE_SHAPES,
) -> list[KernelCost]:
    """Step 3: one ``KernelCost`` per program, named after the kernel (its shape is in
    ``shapes``), its fused kernels' FLOPs and bytes summed.

    >>> costs = chapter_kernel_costs({"matmul": {"m": 64, "k": 64, "n": 64}})
    >>> costs[0].name, costs[0].flops   # 2 m n k
    ('matmul', 524288)
    """
    import tinycomp
    from tinycomp.testing import KERNELS

    costs = []
    for name, shape in shapes.items():
        fused = tinycomp.compile(KERNELS[name].trace("f32", **shape), stop_after="fused")
        kernels = kernel_costs(fused.module)
        flops = sum(cost.flops for cost in kernels)
        moved = sum(cost.bytes for cost in kernels)
        costs.append(KernelCost(name, flops=flops, bytes=moved))
    return costs


class Placement(NamedTuple):
    """One kernel on the roofline."""

    name: str
    intensity: float
    """FLOP/byte."""
    bound: str
    """``memory`` or ``compute``."""
    attainable_gflops: float
    """The roof at this intensity, GFLOP/s."""


@dataclass
class CpuRoofline:
    """Step 4: a measured CPU roofline and the chapter's kernels on it."""

    machine: Machine
    """The two roofs (FLOP/s, bytes/s)."""
    kernels: list[KernelCost] = field(default_factory=chapter_kernel_costs)
    """The kernels to place."""
    notes: dict[str, Any] = field(default_factory=dict)
    """How the roofs were measured (micro-kernel tile, copy size, cpu)."""

    @classmethod
    def measure(cls, blocking: Blocking | None = None, megabytes: int = 256) -> CpuRoofline:
        """Measure both roofs now (steps 1-2; a few seconds)."""
        machine_model = detect_machine()
        b = blocking if blocking is not None else choose_blocking(machine_model)
        peak = measure_microkernel_peak(b)
        bandwidth = measure_copy_bandwidth(megabytes)
        name = f"{machine_model.name}, 1 core (measured)"
        notes = {
            "cpu": machine_model.llvm_cpu,
            "microkernel": f"{b.mr}x{b.nr}, KC={b.kc}, lanes={b.lanes}",
            "copy_mib": megabytes,
        }
        return cls(Machine(name, peak_flops=peak, bandwidth=bandwidth), notes=notes)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CpuRoofline:
        """A roofline from stored figures: ``name``, ``peak_gflops``, ``bandwidth_gbs``."""
        machine = Machine(
            data["name"],
            peak_flops=float(data["peak_gflops"]) * 1e9,
            bandwidth=float(data["bandwidth_gbs"]) * 1e9,
        )
        return cls(machine, notes=dict(data.get("notes", {})))

    def to_dict(self) -> dict[str, Any]:
        """The figures ``from_dict`` reads back, and the placements."""
        return {
            "name": self.machine.name,
            "peak_gflops": round(self.machine.peak_flops / 1e9, 2),
            "bandwidth_gbs": round(self.machine.bandwidth / 1e9, 2),
            "notes": self.notes,
            "shapes": ROOFLINE_SHAPES,
            "kernels": [p._asdict() for p in self.placements()],
        }

    def placements(self) -> list[Placement]:
        """Each kernel's intensity, bound and attainable GFLOP/s."""
        return [
            Placement(
                k.name,
                round(k.intensity, 4),
                self.machine.bound(k.intensity),
                round(self.machine.attainable(k.intensity) / 1e9, 2),
            )
            for k in self.kernels
        ]

    def table(self) -> str:
        """The text table of ``tinycomp.perf.roofline_table``."""
        return roofline_table(self.machine, self.kernels)

    def picture(self):
        """The roofline picture (``tinycomp.perf.roofline_picture``)."""
        return roofline_picture(self.machine, self.kernels)
