"""``gpu-map-kernels``: give every kernel a grid of blocks of threads (MLIR's
``-gpu-map-parallel-loops``, after tiling).

A GPU runs a kernel as a grid of blocks, each of up to 1024 threads. The simplest
mapping that is always legal gives each thread one *tile* of the output: the parallel
loops of the kernel are tiled by 1, and each such tile loop is bound to a grid
dimension (``tinycomp.bind = "gpu.block.x"``) with ``tinycomp.threads = T`` threads of
each block along it (iteration ``i`` of the loop runs on block ``i / T``, thread
``i % T``). What stays inside a tile (a reduction, a row) is the thread's own loop.

1. Collect the kernels: the linalg ops on tensors whose results no other linalg op
   reads (``tiling_roots``), except fills and ops already inside a tile loop; repeat
   until none is left (a producer shared by two kernels is fused into both, then
   gone, or becomes a kernel of its own).
2. Classify each (``kernel_kind``): a *contraction* (matmul, batch matmul, conv: a
   product of two inputs summed), a *row* kernel (softmax, layernorm, rmsnorm: its
   reductions run along the rows, ``classify_row_kernel``), *elementwise* (no
   reduction), or another *reduction*. A kernel without a parallel loop, or with
   dynamic sizes, cannot be mapped: its decision says so (``chosen=False``) and it is
   left as it is.
   2b. With ``block_tiles`` (the default), a contraction whose loops have GEMM roles
   (``contraction_roles``) is left whole, and so is an elementwise kernel that is the
   epilogue of one (it reads the contraction's result, which nothing else reads, where
   it writes): after bufferization ``gpu-contraction-block-tiles`` makes them one
   block-tiled kernel with tiles in shared memory. The producers such a kernel reads
   become kernels of their own (step 1 does not count reads by left kernels). A
   contraction without those roles (a matrix-vector product, a broadcast) keeps the
   mapping below: a thread per output element.
3. Choose the tile sizes: 1 for each parallel loop (a row kernel keeps its innermost
   loop whole), 0 for the reductions; only the three innermost tiled loops are bound
   (x innermost, for coalescing), outer ones are left whole.
4. Choose the threads per block: 256 along x for one bound loop, 16 x 16 for two or
   three (z gets 1 thread: blocks only), each cut to the loop's trip count rounded up
   to a power of two (at least a warp of 32 when there is one bound loop). A row
   kernel gets a block per row instead, and ``tinycomp.row_threads`` threads (up to
   256, a power of two) that share the row: they stride over it and reduce it
   together, by warp shuffles, then across warps through shared memory
   (``row_cooperation.py``).
5. Tile and fuse the producers (``tile_and_fuse``), bind the tile loops
   (``bind_loops``) and write ``tinycomp.threads`` on each.
6. Record one ``StrategyDecision`` per kernel: the mapping, the grid, and why.

``gpu-kernel-outlining`` (``outlining.py``) later turns each bound nest into a
``gpu.func`` and a ``gpu.launch_func``.

>>> import numpy as np, tinycomp
>>> from tinycomp import CompileOptions
>>> mapping = GpuMappingPass(block_tiles=False)
>>> a, b = np.ones((10, 7), np.float32), np.ones((7, 9), np.float32)
>>> options = CompileOptions(extra_passes={"tiled": [mapping]})
>>> _ = tinycomp.compile(lambda a, b: a @ b, a, b, options=options, stop_after="tiled")
>>> print(mapping.decisions[0])  # doctest: +NORMALIZE_WHITESPACE
%matmul: contraction (a thread per output element of 10x9, looping over the 7-long
reduction; blocks of 16x16 threads, grid 1x1: each output element is an independent
reduction; 1 producer fused into each tile (recomputed per tile))
>>> mapping = GpuMappingPass(sm_count=84)
>>> options = CompileOptions(extra_passes={"tiled": [mapping]})
>>> _ = tinycomp.compile(lambda a, b: a @ b, a, b, options=options, stop_after="tiled")
>>> print(mapping.decisions[0])  # doctest: +NORMALIZE_WHITESPACE
%matmul: block-tiles (block tiles of a 10x9x7 GEMM: 16x16 tiles, BK=16, 1x1 per thread,
256 threads, grid 1x1x1; A and B tiles staged in shared memory between barriers; tiles
cut to the problem (the power of two covering M and N, 16 to 128) and halved (down to
32) while the grid has fewer blocks than 84 SMs)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.op_names import op_name
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import ShapedType, i64
from tinycomp.passes.gpu.contraction_roles import choose_tiles, contraction_roles
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.passes.row_strategy import classify_row_kernel, inside_a_loop
from tinycomp.passes.strategy import StrategyDecision, StrategyPass
from tinycomp.passes.tiling.binding import bind_loops
from tinycomp.passes.tiling.fuse import tile_and_fuse
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = [
    "ROW_THREADS_ATTRIBUTE",
    "THREADS_ATTRIBUTE",
    "GpuMapping",
    "GpuMappingPass",
    "kernel_kind",
    "plan_mapping",
]

THREADS_ATTRIBUTE = "tinycomp.threads"
"""The discardable attribute on a bound loop: threads per block along its dimension."""

ROW_THREADS_ATTRIBUTE = "tinycomp.row_threads"
"""On the outermost loop of a row kernel: the threads (along x) that share each row."""

_DIMENSIONS = ("z", "y", "x")


@dataclass(frozen=True)
class GpuMapping:
    """Where one kernel's loops go: tile sizes, the bound loops and their threads."""

    tile_sizes: tuple[int, ...]
    """One per loop of the kernel: 1 for a loop spread over threads, 0 to keep it whole."""
    units: tuple[str, ...]
    """The grid dimension of each tiled loop, outermost first (``"gpu.block.x"``)."""
    threads: tuple[int, ...]
    """Threads per block along each of those loops."""
    grid: tuple[int, ...]
    """Blocks along each of those loops: the trip count over the threads, rounded up."""
    row_threads: int = 0
    """For a row kernel: the threads of a block that share its row (0: none)."""


def kernel_kind(kernel: StructuredOp) -> str:
    """Step 2: ``contraction``, ``rows``, ``elementwise`` or ``reduction``.

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(lambda a, b: a @ b, TensorSpec((4, 8)), TensorSpec((8, 2)))
    >>> kernel_kind([op for op in m.walk() if op.name == "linalg.matmul"][0])
    'contraction'
    """
    strategy, _ = classify_row_kernel(kernel)
    if strategy == "contraction":
        return "contraction"
    if strategy == "rows":
        return "rows"
    return "reduction" if kernel.reduction_dims() else "elementwise"


def _threads_along(trip_count: int, most: int, at_least: int) -> int:
    """Step 4: ``most`` threads, fewer for a short loop (a power of two >= ``at_least``)."""
    return min(most, max(at_least, 1 << max(0, math.ceil(math.log2(trip_count)))))


def plan_mapping(kernel: StructuredOp, kind: str) -> GpuMapping | str:
    """Steps 3-4 for ``kernel``, or the reason it cannot be mapped.

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(lambda a, b: a @ b, TensorSpec((40, 8)), TensorSpec((8, 20)))
    >>> plan_mapping([op for op in m.walk() if op.name == "linalg.matmul"][0], "contraction")
    GpuMapping(tile_sizes=(1, 1, 0), units=('gpu.block.y', 'gpu.block.x'), \
threads=(16, 16), grid=(3, 2), row_threads=0)
    """
    sizes = kernel.static_loop_sizes()
    if None in sizes:
        return "dynamic sizes: the grid would be known only at run time"
    parallel = kernel.parallel_dims()
    if kind == "rows":
        parallel = parallel[:-1]  # the row itself stays whole: one thread per row
    if not parallel:
        return "no parallel loop to spread over threads (a reduction to one value)"
    bound = parallel[-3:]
    tile_sizes = tuple(1 if loop in bound else 0 for loop in range(len(sizes)))
    units = tuple(f"gpu.block.{d}" for d in _DIMENSIONS[-len(bound) :])
    if kind == "rows":  # a block per row, its threads share the row
        row_threads = _threads_along(sizes[kernel.parallel_dims()[-1]], 256, 32)
        grid = tuple(sizes[loop] for loop in bound)
        return GpuMapping(tile_sizes, units, (1,) * len(bound), grid, row_threads)
    if len(bound) == 1:
        threads: tuple[int, ...] = (_threads_along(sizes[bound[0]], 256, 32),)
    else:
        most = {"x": 16, "y": 16, "z": 1}
        threads = tuple(
            _threads_along(sizes[loop], most[unit[-1]], 1)
            for loop, unit in zip(bound, units, strict=True)
        )
    grid = tuple(-(-sizes[loop] // t) for loop, t in zip(bound, threads, strict=True))
    return GpuMapping(tile_sizes, units, threads, grid)


def _describe(kernel: StructuredOp, kind: str, mapping: GpuMapping) -> str:
    """Step 6: the decision's reason, in words."""
    sizes = kernel.static_loop_sizes()
    per_block = "x".join(str(t) for t in reversed(mapping.threads))  # x first, as CUDA
    grid = "x".join(str(g) for g in reversed(mapping.grid))
    shape = "x".join(str(sizes[p]) for p in kernel.parallel_dims())
    launch = f"blocks of {per_block} threads, grid {grid}"
    if kind == "rows":
        row = sizes[kernel.parallel_dims()[-1]]
        warps = mapping.row_threads // 32
        across = (
            f", then across its {warps} warps in shared memory with barriers" if warps > 1 else ""
        )
        return (
            f"a block per row of {row}, {mapping.row_threads} threads striding over it, "
            f"its reductions by warp shuffles (gpu.shuffle xor){across}; grid {grid}: "
            "its reductions run along the rows, so the threads of a block can share one"
        )
    reductions = [sizes[r] for r in kernel.reduction_dims()]
    if reductions:
        length = "x".join(str(r) for r in reductions)
        element = "output element" if kind == "contraction" else "element"
        return (
            f"a thread per {element} of {shape}, looping over the {length}-long reduction; "
            f"{launch}: each {element} is an independent reduction"
        )
    return f"a thread per element of {shape}; {launch}: the elements are independent"


class GpuMappingPass(StrategyPass, Pass):
    """Tile each kernel into one tile per thread and bind the tile loops to the grid
    (see the module docstring)."""

    name = "gpu-map-kernels"
    summary = "tile kernels by one element per GPU thread and bind the tile loops to the grid"

    def __init__(self, block_tiles: bool = True, sm_count: int = 108) -> None:
        super().__init__()
        self.block_tiles = block_tiles
        """Whether contractions are left whole for ``gpu-contraction-block-tiles``."""
        self.sm_count = sm_count
        """SMs of the GPU (the block tiles are chosen so that the grid fills them)."""
        self.left: set[int] = set()
        """The kernels (by ``id``) left whole for the block-tiled strategy."""

    def run(self, op: Operation) -> None:
        self.decisions = []
        self.left = set()
        rewriter = PatternRewriter()
        seen: set[int] = set()
        while True:
            kernels = [k for k in _candidates(op, self.left) if id(k) not in seen]  # step 1
            if not kernels:
                return
            for kernel in kernels:
                seen.add(id(kernel))
                if kernel.parent_op() is None:
                    continue  # fused into an earlier kernel and erased
                self._map(kernel, rewriter)

    def _map(self, kernel: StructuredOp, rewriter: PatternRewriter) -> None:
        name = op_name(kernel)
        kind = kernel_kind(kernel)  # step 2
        no_block_tiles = ""
        if self.block_tiles:
            left = self._leave_for_block_tiles(kernel, kind)
            if left is True:
                return
            if isinstance(left, str):
                no_block_tiles = f"; no block tiles: {left}"
        mapping = plan_mapping(kernel, kind)  # steps 3-4
        if isinstance(mapping, str):
            reason = f"{mapping}; target 'cpu' or 'interp' runs it"
            self.decisions.append(StrategyDecision(name, "cpu", reason, chosen=False))
            return
        reason = _describe(kernel, kind, mapping) + no_block_tiles
        result = tile_and_fuse(kernel, mapping.tile_sizes, rewriter)  # step 5
        refused = bind_loops(result.loops, mapping.units)
        if refused:
            reason = f"{refused[0]}; target 'cpu' or 'interp' runs it"
            self.decisions.append(StrategyDecision(name, "cpu", reason, chosen=False))
            return
        fused = sum(isinstance(op, StructuredOp) for op in result.tiled_ops[1:])
        if fused:
            plural = "s" if fused != 1 else ""
            reason += f"; {fused} producer{plural} fused into each tile (recomputed per tile)"
        for loop, threads in zip(result.loops, mapping.threads, strict=True):
            loop.attributes[THREADS_ATTRIBUTE] = IntegerAttr(threads, i64)
        if mapping.row_threads:
            result.loops[0].attributes[ROW_THREADS_ATTRIBUTE] = IntegerAttr(
                mapping.row_threads, i64
            )
        self.decisions.append(StrategyDecision(name, kind, reason))  # step 6
        self.statistics[f"{kind} kernels mapped"] += 1

    def _leave_for_block_tiles(self, kernel: StructuredOp, kind: str) -> bool | str:
        """Step 2b: a contraction (or the elementwise epilogue of one that only it
        reads) is left whole for block tiles (``True``); its decision says which tiles
        and why. A contraction that cannot be gets the reason."""
        contraction, epilogue = kernel, None
        if kind == "elementwise":
            contraction = _epilogue_source(kernel)
            if contraction is None:
                return False
            epilogue = kernel
        elif kind != "contraction":
            return False
        roles = contraction_roles(contraction)
        if isinstance(roles, str):
            return roles if epilogue is None else False
        tiles = choose_tiles(roles, self.sm_count)
        batch, m, n, k = roles.gemm_shape
        grid = f"{-(-n // tiles.bn)}x{-(-m // tiles.bm)}x{batch}"
        batched = f" ({batch} of them)" if batch > 1 else ""
        large = tiles.bm == tiles.bn == 128
        why = (
            "128x128 tiles do 16 FMAs per shared load and the grid fills the SMs"
            if large
            else "tiles cut to the problem (the power of two covering M and N, 16 to 128) "
            f"and halved (down to 32) while the grid has fewer blocks than {self.sm_count} SMs"
        )
        reason = (
            f"block tiles of a {m}x{n}x{k} GEMM{batched}: {tiles}, 256 threads, grid {grid}; "
            f"A and B tiles staged in shared memory between barriers; {why}"
        )
        if epilogue is not None:
            reason += f"; epilogue {op_name(epilogue)} applied before the store"
        self.decisions.append(StrategyDecision(op_name(contraction), "block-tiles", reason))
        self.left.update({id(contraction), id(kernel)})
        self.statistics["contractions left for block tiles"] += 1
        return True


def _epilogue_source(kernel: StructuredOp) -> StructuredOp | None:
    """The contraction an elementwise ``kernel`` is the epilogue of: it reads the
    contraction's result (read by nothing else) where it writes its own output."""
    if kernel.num_outputs != 1:
        return None
    maps = kernel.indexing_maps()
    for value, indexing in zip(kernel.inputs, maps, strict=False):
        producer = value.defining_op()
        if not isinstance(producer, StructuredOp) or indexing != maps[-1]:
            continue
        if kernel_kind(producer) != "contraction" or len(value.users) != 1:
            continue
        if not isinstance(contraction_roles(producer), str):
            return producer
    return None


def _candidates(op: Operation, left: set[int]) -> list[StructuredOp]:
    """Step 1: kernels on tensors that no other kernel reads (but those ``left`` for
    block tiles), not yet in a tile loop or left themselves."""
    found = []
    for root in op.walk():
        if not isinstance(root, StructuredOp) or id(root) in left:
            continue
        users = [user for result in root.results for user in result.users]
        if any(isinstance(user, StructuredOp) and id(user) not in left for user in users):
            continue
        if not root.is_tensor_semantics:
            continue
        if not any(isinstance(v.type, ShapedType) for v in root.inputs):
            continue  # a fill: the initial value of another kernel
        if inside_a_loop(root):
            continue
        found.append(root)
    return found


register_pass(GpuMappingPass)
