"""``launch``: run a kernel on the simulated GPU, and say how fast a real one would be.

``launch(kernel, grid, block, args, preset="classroom")`` does what a CUDA launch does
on a laptop with no GPU: it specialises the kernel to its arguments' types (the DSL
reads the Python function into gpu IR), cleans a copy of that IR up as ``nvcc -O3`` would
(``canonicalize,cse,loop-invariant-code-motion``, see ``cleanup.py``; ``optimize=False``
simulates the IR as written), runs every block on the SIMT simulator with the sanitizer
on, and writes the results into the arrays passed, in place. Then it asks two models
about the run:

1. the register estimate (liveness in the gpu IR) and the occupancy calculator: how
   many blocks fit on one SM, and which limit binds;
2. the cost model: cycles and seconds on the preset's GPU, the limit that binds, and a
   breakdown, from the counters the simulator kept.

What depends only on the kernel's IR is done once per specialisation and kept: the
cleaned copy, the ``gpu.func`` to run, its register estimate and the simulator's
compiled program (per buffer shapes and scalar values). A later launch of the same
specialisation binds its arguments and runs; the cleaned copy is shared by those
launches (``result.module``: copy it before changing it). IR passed in directly is
cleaned (and compiled) again at every launch, since it may have changed since.

>>> import numpy as np
>>> from tinycomp import gpu
>>> @gpu.kernel
... def scale(x, y, a):
...     i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
...     y[i] = a * x[i]
>>> x = np.arange(64, dtype=np.float32); y = np.zeros_like(x)
>>> result = gpu.launch(scale, grid=2, block=32, args=(x, y, np.float32(3)))
>>> bool(np.array_equal(y, 3 * x)), result.counters.total("global_load_requests")
(True, 2)
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tinycomp.dialects.gpu import GPUFuncOp
from tinycomp.frontend.simt import Kernel
from tinycomp.gpu.cleanup import cleaned_once, cleaned_up
from tinycomp.ir import ModuleOp, Operation
from tinycomp.targets.gpu_sim.cost_model import Estimate, estimate
from tinycomp.targets.gpu_sim.counters import KernelCounters
from tinycomp.targets.gpu_sim.errors import UNCHANGED, LaunchError
from tinycomp.targets.gpu_sim.occupancy import Occupancy, occupancy
from tinycomp.targets.gpu_sim.preset import GpuPreset, lookup_preset
from tinycomp.targets.gpu_sim.registers import RegisterEstimate, estimate_registers
from tinycomp.targets.gpu_sim.simulator import find_kernel, simulate
from tinycomp.targets.gpu_sim.trace import WarpTrace

if TYPE_CHECKING:
    from tinycomp.codegen.gpu.ptxas import KernelResources

__all__ = ["LaunchResult", "launch"]

Dims = int | Sequence[int]


@dataclass(frozen=True)
class LaunchResult:
    """What one launch did and what the models say about it."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    preset: GpuPreset
    module: ModuleOp | Operation
    """The gpu IR that ran: specialised to the arguments and, with ``optimize``, cleaned
    up (a copy: the kernel's own IR is not changed)."""
    counters: KernelCounters
    registers: RegisterEstimate
    occupancy: Occupancy
    estimate: Estimate
    trace: WarpTrace | None = None
    ptxas: KernelResources | None = None
    """What ``ptxas`` reported, when the launch asked for ``registers="ptxas"``."""
    device: str = "sim"
    """Where it ran: ``"sim"``, or the GPU's name (``device="cuda"`` / ``"hip"``)."""
    measured_seconds: float | None = None
    """The kernel's time on that GPU, between two events; ``None`` on the simulator."""

    def __str__(self) -> str:
        grid = "x".join(map(str, self.grid))
        block = "x".join(map(str, self.block))
        lines = [
            f"{self.kernel} on {self.preset.name}: grid {grid}, block {block}",
            f"  {self.estimate.cycles:,.0f} cycles ({self.estimate.seconds * 1e6:,.2f} us),"
            f" bound by {self.estimate.binding}",
            f"  occupancy {self.occupancy.occupancy:.0%} ({self.occupancy.blocks_per_sm} blocks"
            f" per SM, limited by {self.occupancy.binding}),"
            f" {self.occupancy_registers} registers per thread"
            f" ({'ptxas' if self.ptxas is not None else 'estimated'})",
            f"  SIMT efficiency {self.counters.simt_efficiency():.0%},"
            f" coalescing {self.counters.coalescing_efficiency():.0%},"
            f" bank-conflict degree {self.counters.bank_conflict_degree():.2f}",
        ]
        return "\n".join(lines)

    __repr__ = __str__

    @property
    def occupancy_registers(self) -> int:
        """The registers per thread the occupancy was computed with."""
        return self.ptxas.registers if self.ptxas is not None else self.registers.registers


def launch(
    kernel: Kernel | ModuleOp | Operation,
    grid: Dims,
    block: Dims,
    args: Sequence[Any],
    preset: str | GpuPreset = "classroom",
    *,
    sanitize: bool = True,
    trace_warp: tuple[int, int] | None = None,
    sample_blocks: int | None = None,
    flops: float | None = None,
    optimize: bool = True,
    step_limit: int = 10_000_000,
    registers: str = "estimate",
    device: str = "sim",
    repeats: int = 1,
) -> LaunchResult:
    """Run ``kernel`` over ``grid`` x ``block`` threads on the simulator; results in place.

    ``kernel`` is a ``@gpu.kernel`` function (specialised to ``args``' types), or gpu IR
    (a module holding one ``gpu.func ... kernel``, or the ``gpu.func`` itself).
    ``sample_blocks=n`` runs only ``n`` blocks spread over the grid and scales the
    counters (for grids too large to run in full); the arrays are then not written.
    ``flops`` tells the cost model the useful work (for example ``2 * M * N * K``).
    ``optimize=True`` (the default) simulates a copy of the IR after
    ``canonicalize,cse,loop-invariant-code-motion``, as ``nvcc -O3`` would clean it up:
    constants folded, repeated index arithmetic computed once, loop-invariant pure ops
    hoisted (barriers, shuffles, votes and loads stay where they are); the counters, the
    register estimate and ``result.module`` are those of that copy. ``optimize=False``
    simulates the IR exactly as written (``Kernel.specialize`` gives it, for printing).
    ``step_limit`` bounds the loop iterations of the whole launch: past it, a
    ``SanitizerError`` names the loop and its line (a loop that may not terminate).
    ``registers="ptxas"`` compiles the kernel to PTX for the preset's architecture and
    gives the occupancy calculator the registers ``ptxas`` allocates (``result.ptxas``)
    instead of the estimate; it needs ``ptxas`` on PATH (``gpu.to_ptx`` says why not).
    ``device="cuda"`` (or ``"hip"``) runs the kernel on a real GPU instead (arrays written
    in place, ``result.measured_seconds`` the fastest of ``repeats`` timed launches); the
    models then read a simulation of a few blocks on copies (``tinycomp.gpu.devices``;
    ``DeviceUnavailable`` says what is missing).

    >>> from tinycomp import gpu
    >>> import numpy as np
    >>> @gpu.kernel
    ... def fill(out):
    ...     out[gpu.thread_idx.x] = 1.0
    >>> out = np.zeros(32, np.float32)
    >>> gpu.launch(fill, 1, 32, [out]).estimate.binding in ("launch", "latency")
    True
    """
    chip = lookup_preset(preset)
    args = list(args)
    if isinstance(kernel, Kernel):  # built once per signature and never changed: keep
        written = kernel.specialize(*args)
        module = cleaned_once(written) if optimize else written
        found = _PREPARED.get(module)
        if found is None:
            func = find_kernel(module)
            found = _PREPARED[module] = (func, estimate_registers(func))
        func, estimated = found
    else:
        name = kernel.sym_name if isinstance(kernel, GPUFuncOp) else None
        module = _outermost(kernel)
        if optimize:
            module = cleaned_up(module)
        func = find_kernel(module, name)
        estimated = estimate_registers(func)
    assembled = _ptxas_resources(module, chip, registers)  # before any array changes
    measured = None
    if device != "sim":
        from tinycomp.gpu.devices.launching import on_device  # GPU packages when asked

        measured, args, sample_blocks, sanitize = on_device(
            device, module, func, grid, block, args, repeats
        )
    run = simulate(
        func,
        grid=grid,
        block=block,
        args=args,
        preset=chip,
        sanitize=sanitize,
        trace_warp=trace_warp,
        sample_blocks=sample_blocks,
        step_limit=step_limit,
        keep_compiled=isinstance(kernel, Kernel),
    )
    per_thread = assembled.registers if assembled is not None else estimated.registers
    occ = occupancy(chip, run.threads_per_block, per_thread, run.shared_bytes)
    cost = estimate(run.counters, chip, occ, flops=flops)
    return LaunchResult(
        kernel=run.kernel,
        grid=run.grid,
        block=run.block,
        preset=chip,
        module=module,
        counters=run.counters,
        registers=estimated,
        occupancy=occ,
        estimate=cost,
        trace=run.trace,
        ptxas=assembled,
        device=measured.device if measured is not None else "sim",
        measured_seconds=measured.seconds if measured is not None else None,
    )


def _ptxas_resources(module: Operation, chip: GpuPreset, registers: str) -> KernelResources | None:
    """``None`` for ``registers="estimate"``; ptxas's report for ``"ptxas"``."""
    if registers == "estimate":
        return None
    if registers != "ptxas":
        raise LaunchError(
            f"registers={registers!r}: expected 'estimate' (the register estimate) or "
            f"'ptxas' (what ptxas allocates); {UNCHANGED}"
        )
    from tinycomp.gpu.ptx import to_ptx  # llvmlite: loaded when asked for

    compiled = to_ptx(module, (), chip, clean=False)
    if compiled.resources is None:
        raise LaunchError(
            f"registers='ptxas' needs ptxas: {compiled.note}; use registers='estimate' "
            f"(the default); {UNCHANGED}"
        )
    return compiled.resources


_PREPARED: weakref.WeakKeyDictionary[Operation, tuple[GPUFuncOp, RegisterEstimate]] = (
    weakref.WeakKeyDictionary()
)
"""A specialisation's module (cleaned or as written) -> its kernel and register estimate."""


def _outermost(op: Operation) -> Operation:
    """The op holding ``op`` at the top (the module around a ``gpu.func``), or ``op``."""
    while op.parent_op() is not None:
        op = op.parent_op()
    return op
