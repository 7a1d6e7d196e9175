"""``gpu-kernel-outlining``: each bound loop nest becomes a ``gpu.func`` kernel and a
``gpu.launch_func`` (MLIR's ``-convert-parallel-loops-to-gpu`` then
``-gpu-kernel-outlining``, in one pass).

``gpu-map-kernels`` bound the tile loops to grid dimensions (``tinycomp.bind``) with a
number of threads per block along each (``tinycomp.threads``). After bufferization and
``convert-linalg-to-loops`` such a nest reads::

    scf.for %i = %c0 to %c10 step %c1 {          // {tinycomp.bind = "gpu.block.y", threads 16}
      scf.for %j = %c0 to %c9 step %c1 { ... }   // {tinycomp.bind = "gpu.block.x", threads 16}
    }

and becomes, per function, in order:

0. A loop nest left on the host that only fills a buffer with one value (what
   bufferization writes for the padding of a ``tensor.pad``) is bound too: its outer
   (up to three) loops to the grid, as ``gpu-map-kernels`` would bind an elementwise
   kernel (``bind_fill_nests``).
1. Find the outermost bound loops; each is one kernel. Its bound loops (itself and the
   bound loops inside it) need constant bounds, no ``iter_args`` and a grid dimension
   each; the grid along a dimension is the trip count over the threads, rounded up.
2. The kernel's arguments: every value the nest uses and does not define. Constants are
   copied into the kernel instead; memrefs and scalars become arguments, in order of
   first use (global memory stays ``memref<...>``).
3. Build ``gpu.module @main_kernel { gpu.func @main_kernel(...) kernel }`` around a
   copy of the nest (steps 4-5 run on it). Each ``memref.alloc`` of a static shape in
   it becomes an attribution, its ``memref.dealloc`` goes: a ``private`` one
   (``#gpu.address_space<private>``, per thread) when each thread has its own tile; a
   ``workgroup`` one (shared by the block) in a row kernel, whose threads share a row
   (``tinycomp.row_threads`` on the nest: ``cooperate_on_rows`` after step 5).
4. Replace each bound loop of the copy by its thread's iteration:
   ``%i = block_id * threads + thread_id``, ``%iv = lb + %i * step``, and the body under
   ``scf.if %i < trip`` when the grid has more threads than iterations (a partial
   block); a loop bound to ``gpu.thread.*`` is ``%i = thread_id``, a block of ``trip``.
5. Leave plain loads and stores: views folded into the accesses (``fold_views``),
   ``affine.apply``/``affine.min`` as arith (``lower_affine_ops``); end with ``gpu.return``.
6. On the host, the nest becomes ``gpu.launch_func @main_kernel::@main_kernel
   blocks in (...) threads in (...) args(...)``; the allocations outside the nests stay
   where they are. The module gets ``gpu.container_module``.

>>> import numpy as np, tinycomp
>>> from tinycomp import CompileOptions
>>> from tinycomp.passes import CSEPass
>>> from tinycomp.passes.gpu.mapping import GpuMappingPass
>>> options = CompileOptions(extra_passes={"tiled": [GpuMappingPass()],
...                                        "loops": [GpuKernelOutliningPass(), CSEPass()]})
>>> x = np.ones((3, 5), np.float32)
>>> program = tinycomp.compile(lambda x: x * 2.0, x, options=options)
>>> print([line.strip() for line in program.stages["loops"].splitlines() if "launch" in line][0])
gpu.launch_func  @main_kernel::@main_kernel blocks in (%c1, %c1, %c1) threads in (%c8, %c4, %c1) \
 args(%x : memref<3x5xf32>, %arg0 : memref<3x5xf32>)
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.arith.binary import AddIOp, MulIOp
from tinycomp.dialects.arith.compare import CmpIOp
from tinycomp.dialects.gpu import (
    BlockIdOp,
    GPUFuncOp,
    GPUModuleOp,
    LaunchFuncOp,
    ReturnOp,
    ThreadIdOp,
    address_space,
)
from tinycomp.dialects.memref.access import StoreOp
from tinycomp.dialects.memref.alloc import AllocOp, DeallocOp
from tinycomp.dialects.scf.control import IfOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.ir.attributes import IntegerAttr, StringAttr, UnitAttr
from tinycomp.ir.builder import Builder
from tinycomp.ir.op_traits import is_constant_op
from tinycomp.ir.operation import Operation
from tinycomp.ir.symbols import symbol_name
from tinycomp.ir.types import DYNAMIC, FunctionType, MemRefType, i64, index
from tinycomp.ir.values import Value
from tinycomp.passes.errors import PassError
from tinycomp.passes.gpu.fold_views import fold_views
from tinycomp.passes.gpu.lower_affine import lower_affine_ops
from tinycomp.passes.gpu.mapping import ROW_THREADS_ATTRIBUTE, THREADS_ATTRIBUTE
from tinycomp.passes.gpu.row_cooperation import cooperate_on_rows
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.passes.tiling.binding import BIND_ATTRIBUTE
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["BoundLoop", "GpuKernelOutliningPass", "bind_fill_nests", "bound_loop"]


@dataclass(frozen=True)
class BoundLoop:
    """Step 1: what a bound loop asks of the launch."""

    unit: str
    """``"gpu.block.x"`` or ``"gpu.thread.x"`` (any of x, y, z)."""
    lower: int
    step: int
    trip_count: int
    threads: int
    """Threads per block along the loop's dimension."""

    @property
    def dimension(self) -> str:
        return self.unit[-1]

    @property
    def blocks(self) -> int:
        """Blocks along the dimension (1 for a loop bound to threads)."""
        return -(-self.trip_count // self.threads)


def _constant(value: Value, loop: ForOp, what: str) -> int:
    op = value.defining_op()
    if op is None or not is_constant_op(op):
        raise PassError(
            f"the loop bound to {loop.attributes[BIND_ATTRIBUTE]} needs a constant {what} "
            f"for its grid, found %{value.name_hint or 'a value'} computed at run time"
        )
    return int(op.attributes["value"].value)


def bound_loop(loop: ForOp) -> BoundLoop:
    """Step 1: the launch dimensions a bound ``scf.for`` asks for.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f() {
    ...   %c0 = arith.constant 0 : index
    ...   %c1 = arith.constant 1 : index
    ...   %c9 = arith.constant 9 : index
    ...   scf.for %i = %c0 to %c9 step %c1 {
    ...   } {tinycomp.bind = "gpu.block.x", tinycomp.threads = 4}
    ...   return }''')
    >>> loop = bound_loop([op for op in m.walk() if op.name == "scf.for"][0])
    >>> loop.trip_count, loop.blocks
    (9, 3)
    """
    unit = str(loop.attributes[BIND_ATTRIBUTE].value)
    if loop.init_args:
        raise PassError(f"the loop bound to {unit} carries values (iter_args): not parallel")
    lower = _constant(loop.lower_bound, loop, "lower bound")
    upper = _constant(loop.upper_bound, loop, "upper bound")
    step = _constant(loop.step, loop, "step")
    trip_count = max(0, -(-(upper - lower) // step))
    if unit.startswith("gpu.thread."):
        return BoundLoop(unit, lower, step, trip_count, max(1, trip_count))
    threads_attr = loop.attributes.get(THREADS_ATTRIBUTE)
    threads = threads_attr.value if isinstance(threads_attr, IntegerAttr) else 1
    return BoundLoop(unit, lower, step, trip_count, threads)


def _fill_nest(loop: ForOp) -> list[ForOp] | None:
    """The perfectly nested loops of ``loop`` when their body is one ``memref.store`` of
    a value from outside the nest at the loops' indices, in order (a fill); else None."""
    loops = [loop]
    while True:
        ops = [o for o in loops[-1].body.ops if o is not loops[-1].body.terminator]
        if len(ops) != 1:
            return None
        if isinstance(ops[0], ForOp) and BIND_ATTRIBUTE not in ops[0].attributes:
            loops.append(ops[0])
            continue
        store = ops[0]
        ivs = [inner.induction_var for inner in loops]
        if not isinstance(store, StoreOp) or list(store.indices) != ivs:
            return None
        producer = store.value.defining_op() or store.value.parent_block().parent_op()
        if producer is not None and loop.is_ancestor_of(producer):
            return None
        return loops


def bind_fill_nests(function: Operation) -> int:
    """Step 0: bind the fill nests at the top of ``function``; returns how many."""
    count = 0
    for op in list(function.regions[0].blocks[0].ops):
        nest = _fill_nest(op) if isinstance(op, ForOp) and not op.init_args else None
        if nest is None or None in [_static_trip_count(loop) for loop in nest]:
            continue
        bound = nest[:3]
        units = [f"gpu.block.{d}" for d in "zyx"[-len(bound) :]]
        for loop, unit in zip(bound, units, strict=True):
            trip = _static_trip_count(loop) or 1
            most = 256 if len(bound) == 1 else {"x": 16, "y": 16, "z": 1}[unit[-1]]
            threads = min(most, 1 << max(0, (trip - 1).bit_length()))
            loop.attributes[BIND_ATTRIBUTE] = StringAttr(unit)
            loop.attributes[THREADS_ATTRIBUTE] = IntegerAttr(threads, i64)
        count += 1
    return count


def _static_trip_count(loop: ForOp) -> int | None:
    bounds = [v.defining_op() for v in (loop.lower_bound, loop.upper_bound, loop.step)]
    if not all(b is not None and is_constant_op(b) for b in bounds):
        return None
    lower, upper, step = (int(b.attributes["value"].value) for b in bounds)
    return max(0, -(-(upper - lower) // step))


def _is_bound(op: Operation) -> bool:
    return isinstance(op, ForOp) and BIND_ATTRIBUTE in op.attributes


def _outermost_bound_loops(function: Operation) -> list[ForOp]:
    found: list[ForOp] = []
    for op in function.walk():
        if _is_bound(op) and not any(outer.is_ancestor_of(op) for outer in found):
            found.append(op)
    return found


def _free_values(nest: Operation) -> list[Value]:
    """Step 2: the values ``nest`` uses that are defined outside it, in order of use."""
    free: list[Value] = []
    for op in nest.walk():
        for value in op.operands:
            owner = value.defining_op() or value.parent_block().parent_op()
            if owner is not None and nest.is_ancestor_of(owner):
                continue
            if value not in free:
                free.append(value)
    return free


class GpuKernelOutliningPass(Pass):
    """Bound loop nests as ``gpu.func`` kernels launched by the host (see the module
    docstring)."""

    name = "gpu-kernel-outlining"
    summary = "outline bound loop nests into gpu.func kernels launched with gpu.launch_func"

    def run(self, op: Operation) -> None:
        functions = [f for f in op.walk() if f.name == "func.func"]
        for function in functions:
            self.statistics["fill nests bound"] += bind_fill_nests(function)  # step 0
            for count, nest in enumerate(_outermost_bound_loops(function)):
                name = f"{symbol_name(function)}_kernel" + (f"_{count}" if count else "")
                self._outline(op, function, nest, name)
                self.statistics["kernels outlined"] += 1
        if any(f.name == "gpu.launch_func" for f in op.walk()):
            op.attributes["gpu.container_module"] = UnitAttr()

    def _outline(self, module: Operation, function: Operation, nest: ForOp, name: str) -> None:
        loops = [bound_loop(loop) for loop in nest.walk() if _is_bound(loop)]  # step 1
        dims = [loop.dimension for loop in loops]
        if len(set(dims)) != len(dims):
            raise PassError(f"two loops of one nest are bound to gpu dimension {dims}")
        grid = {loop.dimension: loop.blocks for loop in loops}
        block = {loop.dimension: loop.threads for loop in loops}
        row_threads = nest.attributes.get(ROW_THREADS_ATTRIBUTE)
        if isinstance(row_threads, IntegerAttr):
            block["x"] = row_threads.value  # the threads of a block share its row
        free = _free_values(nest)  # step 2
        arguments = [v for v in free if not is_constant_op(v.defining_op() or nest)]
        draft = GPUFuncOp.build(name, FunctionType([v.type for v in arguments], []), kernel=True)
        body = draft.entry_block
        mapping: dict = dict(zip(arguments, draft.arguments, strict=True))
        for value in free:
            if value not in mapping:
                mapping[value] = body.append(value.defining_op().clone()).results[0]
        copy = body.append(nest.clone(mapping))
        body.append(ReturnOp.build())
        rewriter = PatternRewriter()
        for loop, shape in zip([f for f in copy.walk() if _is_bound(f)], loops, strict=True):
            _to_thread_iteration(loop, shape, rewriter)  # step 4
        fold_views(draft)  # step 5
        lower_affine_ops(draft)
        space = "private"
        if isinstance(row_threads, IntegerAttr):
            cooperate_on_rows(body, row_threads.value)
            space = "workgroup"
        kernel = _with_attributions(draft, space, rewriter)  # step 3
        gpu_module = GPUModuleOp.build(name)
        gpu_module.body.append(kernel)
        module.regions[0].blocks[0].insert_before(gpu_module, function)
        host = Builder.before(nest)  # step 6
        sizes = [
            [host.insert(ConstantOp.build(sizes.get(d, 1), index)).result for d in "xyz"]
            for sizes in (grid, block)
        ]
        host.insert(LaunchFuncOp.build(name, name, sizes[0], sizes[1], arguments))
        rewriter.erase_op(nest)


def _with_attributions(draft: GPUFuncOp, space: str, rewriter: PatternRewriter) -> GPUFuncOp:
    """Step 3: ``draft``'s body in a kernel whose ``memref.alloc``s are attributions of
    ``space`` (``private`` or ``workgroup``); their deallocations go."""
    allocs = [a for a in draft.walk() if isinstance(a, AllocOp)]
    types = [_attribution_type(a, space) for a in allocs]
    kernel = GPUFuncOp.build(draft.sym_name, draft.function_type, kernel=True, **{space: types})
    for old, new in zip(draft.arguments, kernel.arguments, strict=True):
        rewriter.replace_all_uses_with(old, new)
    if space == "private":
        attributions = kernel.private_attributions
    else:
        attributions = kernel.workgroup_attributions
    for alloc, buffer in zip(allocs, attributions, strict=True):
        for user in list(alloc.results[0].users):
            if isinstance(user, DeallocOp):
                rewriter.erase_op(user)
        rewriter.replace_all_uses_with(alloc.results[0], buffer)
        rewriter.erase_op(alloc)
    for op in list(draft.entry_block.ops):
        op.detach()
        kernel.entry_block.append(op)
    return kernel


def _attribution_type(alloc: AllocOp, space: str) -> MemRefType:
    memref_type = alloc.results[0].type
    assert isinstance(memref_type, MemRefType)
    if DYNAMIC in memref_type.shape:
        raise PassError(
            f"a kernel needs a buffer of dynamic shape {memref_type}: expected static "
            "shapes inside a tile"
        )
    space_attr = address_space(space)
    return MemRefType(memref_type.shape, memref_type.element_type, memory_space=space_attr)


def _to_thread_iteration(loop: ForOp, bound: BoundLoop, rewriter: PatternRewriter) -> None:
    """Step 4: ``loop`` replaced by the one iteration of this thread."""
    rewriter.set_current_op(loop)
    constant = lambda n: rewriter.insert(ConstantOp.build(n, index)).result  # noqa: E731
    position = rewriter.insert(ThreadIdOp.build(bound.dimension)).result
    if bound.unit.startswith("gpu.block."):
        block_id = rewriter.insert(BlockIdOp.build(bound.dimension)).result
        if bound.threads > 1:
            first = rewriter.insert(MulIOp.build(block_id, constant(bound.threads))).result
            position = rewriter.insert(AddIOp.build(first, position)).result
        else:
            position = block_id
    iv = position
    if bound.step != 1:
        iv = rewriter.insert(MulIOp.build(iv, constant(bound.step))).result
    if bound.lower != 0:
        iv = rewriter.insert(AddIOp.build(constant(bound.lower), iv)).result
    rewriter.erase_op(loop.body.terminator)
    if bound.blocks * bound.threads == bound.trip_count:
        rewriter.inline_block_before(loop.body, loop, [iv])
    else:
        inside = rewriter.insert(CmpIOp.build("ult", position, constant(bound.trip_count)))
        guard = rewriter.insert(IfOp.build(inside.result))
        rewriter.inline_block_before(loop.body, guard.regions[0].blocks[0].terminator, [iv])
    rewriter.erase_op(loop)


register_pass(GpuKernelOutliningPass)
