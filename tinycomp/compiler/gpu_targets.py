"""The ``gpu-sim`` target: every kernel a ``gpu.launch_func`` on the SIMT simulator.

``tinycomp.compile(fn, *examples, target="gpu-sim")`` runs the stages of ``stages.py``
with two strategies of this target:

* ``gpu-map`` after ``tiled``: ``gpu-map-kernels`` tiles each kernel by one output
  element (or row) per thread and binds the tile loops to the grid, one
  ``StrategyDecision`` per kernel saying which mapping it got; contractions (and their
  elementwise epilogues) it leaves whole for
* ``block-tiles`` after ``bufferized``: ``gpu-contraction-block-tiles`` makes each a
  block-tiled GEMM kernel (A and B tiles in shared memory between barriers, a register
  tile per thread), tiles chosen for the preset's SM count;
* ``outline`` after ``loops``: ``gpu-kernel-outlining`` turns each bound nest into a
  ``gpu.func`` in its ``gpu.module`` and a ``gpu.launch_func`` in the host function.

The backend checks that nothing but allocations, copies and launches is left on the
host, and returns a ``GpuSimProgram``: a call runs the host function in the reference
interpreter, each ``gpu.launch_func`` on the simulator, and keeps one ``KernelLaunch``
per launch (the kernel, grid, block, the simulator's counters and the cost model's
estimate on the preset, ``CompileOptions(gpu_preset=...)``, ``a100`` by default).

>>> import numpy as np, tinycomp
>>> x = np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32)
>>> program = tinycomp.compile(lambda x: x * 2.0 + 1.0, x, target="gpu-sim")
>>> bool(np.allclose(program(x), x * 2 + 1))
True
>>> launch = program.native.launches[0]
>>> launch.kernel, launch.grid, launch.block
('main_kernel', (1, 1, 1), (8, 8, 1))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tinycomp.compiler.errors import CompileError
from tinycomp.compiler.options import CompileOptions
from tinycomp.compiler.targets import Strategy, Target, register_target
from tinycomp.dialects.gpu import GPUFuncOp
from tinycomp.interp import run_bufferized
from tinycomp.interp.errors import op_error
from tinycomp.interp.memory import MemRefValue, read_all
from tinycomp.interp.rules import ALL_RULES
from tinycomp.ir.op_names import op_name
from tinycomp.ir.operation import Operation
from tinycomp.ir.symbols import symbol_name
from tinycomp.passes import CanonicalizePass, CSEPass, Pass
from tinycomp.passes.gpu.block_tiles import GpuBlockTilesPass
from tinycomp.passes.gpu.mapping import GpuMappingPass
from tinycomp.passes.gpu.outlining import GpuKernelOutliningPass
from tinycomp.targets.gpu_sim.arguments import bind_arguments
from tinycomp.targets.gpu_sim.cost_model import Estimate, estimate
from tinycomp.targets.gpu_sim.counters import KernelCounters, extrapolate_counters
from tinycomp.targets.gpu_sim.errors import SimulatorError
from tinycomp.targets.gpu_sim.occupancy import Occupancy, occupancy
from tinycomp.targets.gpu_sim.preset import lookup_preset
from tinycomp.targets.gpu_sim.registers import estimate_registers
from tinycomp.targets.gpu_sim.simulator import simulate

__all__ = [
    "ESTIMATE_DEPTHS",
    "GPU_SIM",
    "GpuSimProgram",
    "KernelLaunch",
    "compiled_matmul_estimate",
]

_HOST_OPS = (
    "memref.alloc", "memref.dealloc", "memref.subview", "memref.copy", "gpu.launch_func",
)  # fmt: skip
"""What the host function may do besides constants and returning (a copy on the host
stands for a device-to-device ``cudaMemcpy``)."""


@dataclass(frozen=True)
class KernelLaunch:
    """One ``gpu.launch_func`` of a call: where it ran and what the models say."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    counters: KernelCounters
    estimate: Estimate
    occupancy: Occupancy | None = None
    """The occupancy the estimate used (registers and shared memory per block)."""

    def __str__(self) -> str:
        grid, block = "x".join(map(str, self.grid)), "x".join(map(str, self.block))
        return (
            f"{self.kernel}: grid {grid}, block {block}, "
            f"{self.estimate.seconds * 1e6:,.2f} us bound by {self.estimate.binding}"
        )


@dataclass
class GpuSimProgram:
    """The host function of the ``loops`` module, run with its launches simulated."""

    module: Operation
    entry: str
    output_shapes: list[tuple[int, ...]]
    preset: str = "a100"
    """The GPU the cost model estimates for (``tinycomp.targets.gpu_sim.PRESETS``)."""
    launches: list[KernelLaunch] = field(default_factory=list)
    """The launches of the last call, in order."""
    sample_blocks: int | None = None
    """Simulate only this many blocks of each grid (counters scaled to the grid, outputs
    not written: for estimates of large problems); ``None`` runs every block."""

    def __call__(self, *arrays: Any) -> Any:
        self.launches = []
        rules = {**ALL_RULES, "gpu.launch_func": self._launch}
        return run_bufferized(
            self.module, *arrays, entry=self.entry, output_shapes=self.output_shapes, rules=rules
        )

    def _launch(self, op: Operation, operands: list[Any], interp: Any) -> list[Any]:
        """``gpu.launch_func``: simulate the kernel on the memrefs' elements, write them
        back, and keep its counters and estimate."""
        kernel = _find_kernel(op, interp)
        grid = tuple(int(v) for v in operands[0:3])
        block = tuple(int(v) for v in operands[3:6])
        kernel_operands = operands[len(operands) - len(op.kernel_operands) :]
        arrays: list[tuple[MemRefValue, np.ndarray, np.ndarray]] = []
        args: list[Any] = []
        for position, value in enumerate(kernel_operands):
            if isinstance(value, MemRefValue):
                data, initialized = read_all(op, value, f"kernel operand #{position}")
                arrays.append((value, np.ascontiguousarray(data), initialized))
                args.append(arrays[-1][1])
            else:
                args.append(value)
        chip = lookup_preset(self.preset)
        try:
            run = simulate(
                kernel,
                grid=grid,
                block=block,
                args=args,
                preset=chip,
                sanitize=self.sample_blocks is None,
                sample_blocks=self.sample_blocks,
            )
        except SimulatorError as error:
            raise op_error(op, str(error)) from error
        for memref, array, initialized in arrays:  # an element the kernel wrote is set
            positions = memref.linear_indices()
            before = memref.buffer.data[positions]
            changed = ~((array == before) | (np.isnan(array) & np.isnan(before)))
            memref.buffer.data[positions] = array
            if self.sample_blocks is not None:
                changed[:] = True  # a sampled grid is taken to have written its outputs
            memref.buffer.initialized[positions] = initialized | changed
        registers = estimate_registers(kernel).registers
        occ = occupancy(chip, run.threads_per_block, registers, run.shared_bytes)
        array_bytes = None
        if self.sample_blocks is not None:  # a sampled footprint is capped by the arrays' sizes
            bound = bind_arguments(kernel, args, run.kernel)
            array_bytes = {spec.name: int(bound.arrays[spec.index].nbytes)
                           for spec in bound.specs if spec.index in bound.arrays}  # fmt: skip
        cost = estimate(run.counters, chip, occ, array_bytes=array_bytes)
        self.launches.append(KernelLaunch(run.kernel, run.grid, run.block, run.counters, cost, occ))
        return []


def _find_kernel(op: Operation, interp: Any) -> GPUFuncOp:
    symbol = op.attributes["kernel"]
    module = interp.symbols.get(symbol.root)
    for inner in module.regions[0].blocks[0].ops if module is not None else ():
        if isinstance(inner, GPUFuncOp) and inner.sym_name == symbol.nested[0]:
            return inner
    raise op_error(op, f"kernel {symbol} is not a gpu.func of the module")


def check_host_function(module: Operation, entry: str) -> None:
    """Every loop nest became a kernel: the host function only allocates, copies and
    launches. A kernel left on the host is a ``CompileError`` naming it."""
    for function in module.walk():
        if function.name != "func.func" or symbol_name(function) != entry:
            continue
        for op in function.regions[0].blocks[0].ops:
            if op.name in _HOST_OPS or op.name == "func.return" or op.name == "arith.constant":
                continue
            raise CompileError(
                f"target 'gpu-sim': {op_name(op)} ({op.name}) is left on the host: no GPU "
                "mapping was found for the kernel it computes (see the strategy decisions); "
                "target 'cpu' or 'interp' runs it"
            )


def _gpu_sim_backend(
    module: Operation, entry: str, result_shapes: Sequence[Any], options: CompileOptions
) -> GpuSimProgram:
    """The ``loops`` module with its kernels outlined, run on the simulator."""
    check_host_function(module, entry)
    preset = options.gpu_preset
    try:
        lookup_preset(preset)
    except Exception as error:
        raise CompileError(f"target 'gpu-sim': {error}") from error
    shapes = [tuple(shape) for shape, _ in result_shapes]
    return GpuSimProgram(module, entry, shapes, preset)


def _sm_count(options: CompileOptions) -> int:
    try:
        return lookup_preset(options.gpu_preset).sm_count
    except Exception as error:
        raise CompileError(f"target 'gpu-sim': {error}") from error


def _map(options: CompileOptions) -> list[Pass]:
    block_tiles = options.strategies.get("block-tiles", True) is not False
    mapping = GpuMappingPass(block_tiles=block_tiles, sm_count=_sm_count(options))
    return [mapping, CanonicalizePass(), CSEPass()]


def _block_tiles(options: CompileOptions) -> list[Pass]:
    return [GpuBlockTilesPass(sm_count=_sm_count(options)), CanonicalizePass(), CSEPass()]


def _outline(options: CompileOptions) -> list[Pass]:
    return [GpuKernelOutliningPass(), CanonicalizePass(), CSEPass()]


GPU_SIM = register_target(
    Target(
        "gpu-sim",
        "the SIMT GPU simulator, with counters and a cost estimate",
        strategies=(
            Strategy("gpu-map", "kernels to blocks and threads (a block per row)", "tiled", _map),
            Strategy(
                "block-tiles",
                "contractions: shared-memory block tiles, register tiles",
                "bufferized",
                _block_tiles,
            ),
            Strategy("outline", "bound loop nests as gpu.func kernels", "loops", _outline),
        ),
        final_stage="loops",
        backend=_gpu_sim_backend,
        default_options=CompileOptions(strategies={"gpu-map": True}),
    )
)


ESTIMATE_DEPTHS = (576, 1088)
"""The two depths K at which ``compiled_matmul_estimate`` really runs the kernel: long
enough that its loop over K (8 or 16 at a time) is a loop, not one ptxas unrolls."""


def compiled_matmul_estimate(
    size: int = 4096, preset: str = "a6000", sample_blocks: int = 2, seed: int = 0
) -> KernelLaunch:
    """The compiled f32 matmul ``size x size x size`` on ``preset``, estimated as
    ``sgemm_staircase`` estimates the hand-written kernels: ``sample_blocks`` blocks run
    at the two depths ``ESTIMATE_DEPTHS``, the counters extrapolated to ``K = size``
    (each is affine in K), then the cost model with ``flops = 2 size^3``.

    >>> launch = compiled_matmul_estimate(size=1024, sample_blocks=1)  # doctest: +SKIP
    >>> launch.estimate.achieved_gflops > 10_000  # doctest: +SKIP
    True
    """
    from tinycomp.compiler.compile import compile as compile_program

    rng = np.random.default_rng(seed)
    options = CompileOptions(gpu_preset=preset)
    runs = []
    for depth in ESTIMATE_DEPTHS:
        a = rng.standard_normal((size, depth), dtype=np.float32)
        b = rng.standard_normal((depth, size), dtype=np.float32)
        program = compile_program(lambda x, y: x @ y, a, b, target="gpu-sim", options=options)
        native = program.native
        native.sample_blocks = sample_blocks
        native(a, b)
        (launch,) = [run for run in native.launches if "gemm" in run.kernel]
        runs.append(launch)
    counters = extrapolate_counters(runs[0].counters, runs[1].counters, ESTIMATE_DEPTHS, size)
    matrix = size * size * 4
    chip = lookup_preset(preset)
    occ = runs[-1].occupancy
    assert occ is not None
    names = {f"arg{i}": matrix for i in range(3)}
    cost = estimate(counters, chip, occ, flops=2.0 * size**3, array_bytes=names)
    last = runs[-1]
    return KernelLaunch(last.kernel, last.grid, last.block, counters, cost, occ)
