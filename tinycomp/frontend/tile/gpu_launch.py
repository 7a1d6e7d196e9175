"""Running a tile kernel on the SIMT simulator: one block of ``32 * num_warps`` threads per
program, as Triton launches it on a GPU.

``launch_gpu(kernel, grid, *args, num_warps=4, preset="classroom", layout_for=None,
**constexprs)``:

1. specialise the kernel to the arguments (``TileKernel.specialize``) and lower it to a
   ``gpu.func`` (``to_gpu.py``), each tile in ``default_layout`` or in the layout
   ``layout_for(shape, num_warps)`` chooses (``layout_choice.py``);
2. clean a copy up with ``canonicalize,cse,loop-invariant-code-motion``, as ``nvcc -O3``
   (and ``tinycomp.gpu.launch``) would;
3. simulate the grid, on flat copies of the arrays (an array passed twice is one
   buffer), and copy them back into the caller's arrays once every block ran;
4. ask the models: the register estimate, occupancy and the cost model.

``kernel[grid](...)`` still runs on the reference interpreter; this is the GPU target.

>>> import numpy as np
>>> from tinycomp.frontend.tile import kernel, constexpr
>>> from tinycomp.frontend.tile import tile_builtins as tl, memory_builtins as tm
>>> @kernel
... def double(x, n, BLOCK: constexpr):
...     offs = tm.program_id(0) * BLOCK + tl.arange(0, BLOCK)
...     tm.store(x + offs, tm.load(x + offs, mask=offs < n) * 2.0, mask=offs < n)
>>> x = np.arange(300, dtype=np.float32)
>>> result = launch_gpu(double, (2,), x, 300, BLOCK=256, num_warps=2)
>>> x[:3].tolist(), x[-1].item(), result.block
([0.0, 2.0, 4.0], 598.0, (64, 1, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tinycomp.frontend.tile.launch import Grid, normalize_grid
from tinycomp.frontend.tile.layout_choice import LayoutFor
from tinycomp.frontend.tile.signature import bind
from tinycomp.frontend.tile.to_gpu import lower_to_gpu
from tinycomp.ir import ModuleOp
from tinycomp.passes import PassManager
from tinycomp.targets.gpu_sim.cost_model import Estimate, estimate
from tinycomp.targets.gpu_sim.counters import KernelCounters
from tinycomp.targets.gpu_sim.occupancy import Occupancy, occupancy
from tinycomp.targets.gpu_sim.preset import GpuPreset, lookup_preset
from tinycomp.targets.gpu_sim.registers import RegisterEstimate, estimate_registers
from tinycomp.targets.gpu_sim.simulator import find_kernel, simulate

if TYPE_CHECKING:  # kernel.py may import this module
    from tinycomp.frontend.tile.kernel import TileKernel

__all__ = ["CLEANUP", "TileLaunch", "gpu_module", "launch_gpu"]

CLEANUP = "canonicalize,cse,loop-invariant-code-motion"
"""The passes run on the lowered kernel before it is simulated."""


@dataclass(frozen=True)
class TileLaunch:
    """What one launch on the simulator did and what the models say about it."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    num_warps: int
    preset: GpuPreset
    module: ModuleOp
    """The gpu IR that ran (lowered and cleaned up)."""
    counters: KernelCounters
    registers: RegisterEstimate
    occupancy: Occupancy
    estimate: Estimate

    def __str__(self) -> str:
        return (
            f"{self.kernel} on {self.preset.name}: grid {'x'.join(map(str, self.grid))}, "
            f"{self.num_warps} warps per program, {self.estimate.cycles:,.0f} cycles, "
            f"coalescing {self.counters.coalescing_efficiency():.0%}"
        )


def gpu_module(
    kernel: TileKernel,
    *args: object,
    num_warps: int = 4,
    layout_for: LayoutFor | None = None,
    **constexprs: object,
) -> ModuleOp:
    """The cleaned-up gpu IR of ``kernel`` for these arguments (``layout_for``: as
    ``launch_gpu``'s).

    >>> import numpy as np
    >>> from tinycomp.frontend.tile import kernel, memory_builtins as tm
    >>> @kernel
    ... def first(x):
    ...     tm.store(x + tm.program_id(0), 1.0)
    >>> print(gpu_module(first, np.zeros(2, np.float32), num_warps=1).body.first_op.sym_name)
    kernels
    """
    module = lower_to_gpu(kernel.specialize(*args, **constexprs), num_warps, layout_for)
    PassManager.parse(CLEANUP, print_after_each=False).run(module)
    return module


def launch_gpu(
    kernel: TileKernel,
    grid: Grid,
    *args: object,
    num_warps: int = 4,
    preset: str | GpuPreset = "classroom",
    layout_for: LayoutFor | None = None,
    sanitize: bool = True,
    sample_blocks: int | None = None,
    **constexprs: object,
) -> TileLaunch:
    """Run ``kernel`` on ``grid`` programs, each a block of ``32 * num_warps`` threads,
    on the simulator; the arrays are written in place (module docstring).
    ``layout_for(shape, num_warps)``, when given, chooses the layout of the tiles of
    each shape instead of ``default_layout``. ``sanitize=False`` turns the simulator's
    checks off; ``sample_blocks=n`` runs ``n`` blocks spread over the grid, scales the
    counters to the grid and leaves the arrays unwritten (``simulate``)."""
    bound = bind(kernel.name, kernel.parameters, kernel.constexprs, args, constexprs)
    sizes = normalize_grid(grid, bound.constexprs)
    module = gpu_module(kernel, *args, num_warps=num_warps, layout_for=layout_for, **constexprs)
    chip = lookup_preset(preset)
    copies: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    values = []
    for value in bound.runtime.values():
        if isinstance(value, np.ndarray):
            if id(value) not in copies:
                copies[id(value)] = (value, np.array(value).reshape(-1))
            values.append(copies[id(value)][1])
        else:
            values.append(value)
    func = find_kernel(module)
    run = simulate(
        func, grid=sizes, block=32 * num_warps, args=values, preset=chip,
        sanitize=sanitize, sample_blocks=sample_blocks,
    )  # fmt: skip
    if sample_blocks is None:
        for original, flat in copies.values():
            original[...] = flat.reshape(original.shape)
    registers = estimate_registers(func)
    occ = occupancy(chip, run.threads_per_block, registers.registers, run.shared_bytes)
    return TileLaunch(
        kernel=kernel.name,
        grid=run.grid,
        block=run.block,
        num_warps=num_warps,
        preset=chip,
        module=module,
        counters=run.counters,
        registers=registers,
        occupancy=occ,
        estimate=estimate(run.counters, chip, occ),
    )
