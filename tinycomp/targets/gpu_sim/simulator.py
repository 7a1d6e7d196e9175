"""``simulate``: run a ``gpu.func`` kernel on numpy arrays, as a GPU would, with the
sanitizer on and every counter counted.

The kernel is compiled once into closures (``executor.py``), then run on chunks of
whole blocks, every value a numpy array over the chunk's lanes (or a plain scalar when
it is the same for all of them). The simulator works on copies of the arrays and
writes them back only when the whole grid ran without an error: after any error the
user's arrays are unchanged, and the message says so.

>>> from tinycomp.ir import parse
>>> module = parse('''gpu.module @kernels {
...   gpu.func @scale(%x: memref<?xf32>, %n: index) kernel {
...     %b = gpu.block_id  x
...     %d = gpu.block_dim  x
...     %t = gpu.thread_id  x
...     %o = arith.muli %b, %d : index
...     %i = arith.addi %o, %t : index
...     %ok = arith.cmpi slt, %i, %n : index
...     scf.if %ok {
...       %v = memref.load %x[%i] : memref<?xf32>
...       %w = arith.addf %v, %v : f32
...       memref.store %w, %x[%i] : memref<?xf32>
...     }
...     gpu.return
...   }
... }''')
>>> x = np.arange(40, dtype=np.float32)
>>> run = simulate(module, grid=2, block=32, args=[x, 40])
>>> x[:3].tolist(), x[-1].item(), run.counters.total("global_load_sectors")
([0.0, 2.0, 4.0], 78.0, 5)
>>> run.counters.total("divergent_branches"), round(run.counters.simt_efficiency(), 3)
(1, 0.887)
>>> run.grid, run.threads_per_block, run.shared_bytes
((2, 1, 1), 32, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.arguments import bind_arguments
from tinycomp.targets.gpu_sim.compiled_cache import kept_program
from tinycomp.targets.gpu_sim.context import ChunkState, RunContext
from tinycomp.targets.gpu_sim.counters import COUNTER_ROW, KernelCounters
from tinycomp.targets.gpu_sim.errors import UNCHANGED, LaunchError
from tinycomp.targets.gpu_sim.executor import Program
from tinycomp.targets.gpu_sim.lanes import ChunkLanes
from tinycomp.targets.gpu_sim.launch_config import DEFAULT_LANE_BUDGET, LaunchConfig
from tinycomp.targets.gpu_sim.memory import BufferStorage
from tinycomp.targets.gpu_sim.pattern_memo import MEMO_LANES
from tinycomp.targets.gpu_sim.preset import GpuPreset, lookup_preset
from tinycomp.targets.gpu_sim.sanitizer import RaceShadow
from tinycomp.targets.gpu_sim.trace import WarpTrace
from tinycomp.targets.gpu_sim.trace_recorder import TraceRecorder

__all__ = ["SimulationRun", "find_kernel", "simulate"]

CHUNK_BYTES = 1 << 30
"""The most memory one chunk's values, buffers and shadows may take (roughly)."""


@dataclass
class SimulationRun:
    """What one simulated launch gives back."""

    kernel: str
    config: LaunchConfig
    preset: GpuPreset
    counters: KernelCounters
    trace: WarpTrace | None = None
    shared_bytes: int = 0
    """Static shared memory per block (the workgroup attributions, 16-byte aligned)."""

    @property
    def grid(self) -> tuple[int, int, int]:
        """Grid dimensions ``(x, y, z)``."""
        return self.config.grid

    @property
    def block(self) -> tuple[int, int, int]:
        """Block dimensions ``(x, y, z)``."""
        return self.config.block

    @property
    def threads_per_block(self) -> int:
        """Threads in one block."""
        return self.config.threads_per_block


def _gpu_funcs(op: Operation) -> list[Operation]:
    """The ``gpu.func``\\ s of ``op``'s ``gpu.module``\\ s (or of ``op``, a ``gpu.module``)."""
    found = []
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                if child.name == "gpu.func":
                    found.append(child)
                elif child.name in ("gpu.module", "builtin.module"):
                    found.extend(_gpu_funcs(child))
    return found


def find_kernel(module_or_func: Operation, kernel: str | None = None) -> Operation:
    """The ``gpu.func`` to run: ``module_or_func`` itself, the kernel named ``kernel``,
    or the only kernel of the module's ``gpu.module``\\ s.

    >>> from tinycomp.ir import parse
    >>> find_kernel(parse("gpu.module @m { gpu.func @k() kernel { gpu.return } }")).sym_name
    'k'
    """
    if module_or_func.name == "gpu.func":
        return module_or_func
    kernels = [op for op in _gpu_funcs(module_or_func) if "gpu.kernel" in op.attributes]
    names = [k.attributes["sym_name"].value for k in kernels]
    if kernel is not None:
        for func, name in zip(kernels, names, strict=True):
            if name == kernel:
                return func
        raise LaunchError(
            f"no kernel named '{kernel}'; the kernels are {', '.join(names) or 'none'}"
        )
    if len(kernels) != 1:
        listed = ", ".join(names) or "none"
        raise LaunchError(f"expected one kernel (or kernel=...), found {len(kernels)}: {listed}")
    return kernels[0]


def _lane_budget(program: Program, config: LaunchConfig, bound: Any, asked: int) -> int:
    per_block = config.lanes_per_block * (16 * len(program.slots) + 8)
    for spec in bound.specs:
        if spec.space == "shared":
            per_block += spec.nbytes * 12
        elif spec.space == "local":
            per_block += config.lanes_per_block * spec.nbytes * 2
    blocks = max(1, CHUNK_BYTES // per_block)
    return max(config.lanes_per_block, min(asked, blocks * config.lanes_per_block))


def simulate(
    module_or_func: Operation,
    grid: int | tuple[int, ...],
    block: int | tuple[int, ...],
    args: list[Any] | tuple[Any, ...],
    preset: str | GpuPreset = "classroom",
    sanitize: bool = True,
    trace_warp: tuple[int, int] | None = None,
    sample_blocks: int | None = None,
    step_limit: int = 10_000_000,
    kernel: str | None = None,
    lane_budget: int = DEFAULT_LANE_BUDGET,
    keep_compiled: bool = False,
) -> SimulationRun:
    """Run the kernel over the grid; results are written into ``args``' arrays in place.

    ``trace_warp=(linear_block, warp)`` records that warp's instructions
    (``run.trace``). ``sample_blocks=n`` runs only ``n`` blocks spread over the grid
    (the first, the last, evenly between): the counters are then scaled to the grid
    and the arrays are **not** written back (only part of the grid ran).
    ``sanitize=False`` turns the checks off for speed. ``lane_budget`` bounds the lanes
    simulated at once (whole blocks; the chunk also stays under about 1 GB); the results
    and counters do not depend on it. ``step_limit`` bounds the loop iterations of the
    whole launch (a kernel past it is reported as one that may not terminate).
    ``keep_compiled=True`` promises that the ``gpu.func`` is not changed in place between
    runs: its compiled program is then kept and reused (``compiled_cache.py``).
    """
    func = find_kernel(module_or_func, kernel)
    name = func.attributes["sym_name"].value
    chip = lookup_preset(preset)
    config = LaunchConfig.create(grid, block)
    bound = bind_arguments(func, args, name)
    config.check(chip, name, bound.shared_bytes)
    recorder = None
    if trace_warp is not None:
        linear, warp = trace_warp
        if not (0 <= linear < config.blocks_total and 0 <= warp < config.warps_per_block):
            raise LaunchError(
                f"kernel '{name}': trace_warp={trace_warp} is outside the grid "
                f"({config.blocks_total} blocks of {config.warps_per_block} warps); {UNCHANGED}"
            )
        xyz = tuple(int(c[0]) for c in config.block_coordinates(np.array([linear])))
        recorder = TraceRecorder(name, linear, warp, xyz)  # type: ignore[arg-type]
    run = RunContext(name, sanitize, step_limit, chip.independent_thread_scheduling, trace=recorder)
    if keep_compiled:
        program = kept_program(func, run, bound)
        run = program.run
    else:
        program = Program(func, run, bound.by_value, constants=bound.scalars)
    block_ids = config.block_ids(sample_blocks)
    if recorder is not None and recorder.block not in set(block_ids.tolist()):
        block_ids = np.union1d(block_ids, [recorder.block])
    counters = KernelCounters.zeros(block_ids, config.threads_per_block)
    counters.blocks_total = config.blocks_total
    copies = {index: array.copy().reshape(-1) for index, array in bound.arrays.items()}
    touched: dict[str, np.ndarray] = {}
    budget = _lane_budget(program, config, bound, lane_budget)
    try:
        with np.errstate(all="ignore"):
            _run_chunks(program, config, bound, copies, budget, block_ids, counters, touched)
    finally:
        program.release()
    counters.footprint_sectors = {k: int(v.sum()) for k, v in touched.items()}
    if not counters.sampled:
        for index, array in bound.arrays.items():
            np.copyto(array, copies[index].reshape(array.shape))
    trace = recorder.trace if recorder else None
    return SimulationRun(name, config, chip, counters, trace, bound.shared_bytes)


def _run_chunks(
    program: Program, config: LaunchConfig, bound: Any, copies: dict[int, np.ndarray],
    budget: int, block_ids: np.ndarray, counters: KernelCounters, touched: dict[str, np.ndarray],
) -> None:  # fmt: skip
    """Run the blocks chunk by chunk; add each chunk's counters and footprint."""
    run, sanitize = program.run, program.run.sanitize
    start = 0
    for chunk in config.chunks(budget, block_ids):
        lanes = ChunkLanes(config, chunk)
        st = ChunkState(run, lanes, len(program.slots))
        layout = None
        if program.memo is not None and lanes.total <= MEMO_LANES:
            st.memo = st.footprint.memo = program.memo
            layout = (config, chunk.tobytes())
        for spec in bound.specs:
            storage = BufferStorage(spec, lanes, sanitize, copies.get(spec.index))
            if sanitize and spec.space == "shared":
                storage.shadow = RaceShadow(lanes.blocks * spec.size, lanes)
            st.buffers.append(storage)
        program.run_chunk(st, layout)
        totals = st.flush()
        per_block, hit = st.footprint.finish()
        totals[COUNTER_ROW["global_distinct_sectors"]] += per_block
        counters.matrix[:, start : start + lanes.blocks] += totals  # type: ignore[index]
        for array_name, sectors in hit.items():
            touched[array_name] = (
                touched[array_name] | sectors if array_name in touched else sectors
            )
        start += lanes.blocks
