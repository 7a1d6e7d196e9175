"""A ``gpu.func`` compiled once into nested Python closures over a slot list.

1. Every SSA value gets a slot (an index into ``ChunkState.v``).
2. Constants, ``memref.dim`` and the block/grid dimensions are known when compiling:
   they are written into the slots once per chunk and cost nothing afterwards; thread
   and block ids are set once per chunk too (``sync_ops.id_value``).
3. Every other op becomes one closure ``run(state, mask)`` from the op-compiler tables
   (control flow, memory, atomics, warps, barriers, vectors, arithmetic); any other
   ``arith`` or ``math`` op runs through the interpreter's rule.
4. A block becomes a ``CompiledBlock``: its closures, the slots its terminator yields,
   and its static histogram of instruction classes, as ptxas would emit the code
   (``emitted_code.py``: fused multiply-adds, unrolled loops, private arrays in
   registers). Running it under a mask tallies ``histogram x active warps`` (computed
   once per mask) and runs the closures.
5. The entry block's ops computed from ids, constants, dims and scalars alone are
   *structural* (``structural.py``): a kept program computes them once per chunk layout
   and restores them at the start of later chunks of that layout.

>>> from tinycomp.ir import parse
>>> module = parse('''gpu.module @m {
...   gpu.func @k(%a: memref<?xf32>) kernel {
...     %i = gpu.thread_id  x
...     %x = memref.load %a[%i] : memref<?xf32>
...     %y = arith.addf %x, %x : f32
...     memref.store %y, %a[%i] : memref<?xf32>
...     gpu.return
...   }
... }''')
>>> func = module.body.ops[0].body.ops[0]
>>> from tinycomp.targets.gpu_sim.memory import BufferSpec
>>> spec = BufferSpec("a", "global", (32,), np.dtype(np.float32))
>>> program = Program(func, RunContext("k"), {func.arguments[0]: spec})
>>> sorted(program.body_histogram().items())
[('fp32', 1), ('ld_global', 1), ('misc', 1), ('st_global', 1)]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tinycomp.interp.rules.arith import run_constant
from tinycomp.ir.block import Block
from tinycomp.ir.dense import DenseElementsAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import IndexType, IntegerType, VectorType
from tinycomp.ir.values import Value
from tinycomp.targets.gpu_sim.arith_ops import ARITH_COMPILERS, compile_rule
from tinycomp.targets.gpu_sim.atomics import ATOMIC_COMPILERS
from tinycomp.targets.gpu_sim.context import ChunkState, Contribution, RunContext
from tinycomp.targets.gpu_sim.control import CONTROL_COMPILERS, run_body_blocks
from tinycomp.targets.gpu_sim.emitted_code import EmittedCode
from tinycomp.targets.gpu_sim.errors import SanitizerError
from tinycomp.targets.gpu_sim.lanes import Mask
from tinycomp.targets.gpu_sim.memory import BufferSpec
from tinycomp.targets.gpu_sim.memory_ops import MEMORY_COMPILERS
from tinycomp.targets.gpu_sim.structural import StructuralValues, skipped_when_restored
from tinycomp.targets.gpu_sim.sync_ops import ID_OPS, SYNC_COMPILERS, id_axis, id_value
from tinycomp.targets.gpu_sim.vector_ops import VECTOR_COMPILERS
from tinycomp.targets.gpu_sim.warp_ops import WARP_COMPILERS
from tinycomp.targets.gpu_sim.warp_votes import VOTE_COMPILERS

__all__ = ["CompiledBlock", "Program"]

OpFn = Callable[[ChunkState, Mask], None]
OP_COMPILERS: dict[str, Callable[[Any, Operation], OpFn | None]] = {
    **ARITH_COMPILERS,
    **MEMORY_COMPILERS,
    **ATOMIC_COMPILERS,
    **CONTROL_COMPILERS,
    **WARP_COMPILERS,
    **VOTE_COMPILERS,
    **SYNC_COMPILERS,
    **VECTOR_COMPILERS,
}


YIELDS = frozenset(["scf.yield", "memref.atomic_yield", "scf.condition"])
"""Terminators that hand values to their parent op (``scf.condition``'s are read by the
while loop itself)."""
BRANCHES = frozenset(["gpu.return", "cf.br", "cf.cond_br"])
"""Terminators of the kernel body's blocks (``control.run_body_blocks`` follows them)."""


class CompiledBlock:
    """The closures of one block, what it yields, and its instruction histogram."""

    def __init__(self, fns: list[OpFn], histogram: dict[str, int], yields: list[int]) -> None:
        self.fns = fns
        self.histogram = histogram
        self.yields = yields
        self.issued = sum(histogram.values())

    def contribution(self, m: Mask) -> Contribution:
        """``histogram x active warps`` and the active lanes, for this mask."""
        contribution = m.cache.get(self)
        if contribution is None:
            warps = m.warps_per_block
            items: list[tuple[str, Any]] = [
                (f"inst_{k}", n * warps) for k, n in self.histogram.items()
            ]
            items.append(("lane_instructions", self.issued * m.lanes_per_block))
            contribution = Contribution(items)
            m.cache[self] = contribution
        return contribution

    def run(self, st: ChunkState, m: Mask) -> None:
        """Run the block under ``m``."""
        if self.issued:
            st.tally(self.contribution(m))
        for fn in self.fns:
            fn(st, m)


class Program:
    """A kernel compiled for one launch (its buffers' shapes are fixed)."""

    def __init__(
        self, func: Operation, run: RunContext, specs: dict[Value, BufferSpec],
        constants: list[tuple[Value, Any]] = (),  # type: ignore[assignment]
    ) -> None:  # fmt: skip
        self.func = func
        self.run = run
        self.specs = specs
        self.slots: dict[Value, int] = {}
        self.constants: list[tuple[int, Any]] = []
        self.constant_values: dict[int, Any] = {}
        self.ids: list[tuple[int, Operation, int | None]] = []
        self.blocks: list[CompiledBlock] = []
        self.memo: Any = None
        """A ``PatternMemo`` when the program is kept between launches."""
        self.plans: list[Any] = []
        """The ``AccessPlan`` of every memory op (``release`` forgets their last run)."""
        self.emitted = EmittedCode(func)
        """What ptxas would emit: the free ops and the unrolled loops."""
        self.structural = StructuralValues()
        """The entry block's values made of ids, constants, dims and scalars alone."""
        self.entry = func.regions[0].blocks[0] if func.regions[0].blocks else None
        for value, constant in constants:
            self.set_constant(value, constant)
        self.body = run_body_blocks(self, list(func.regions[0].blocks))

    # -- what the op compilers call --------------------------------------------------------
    def slot(self, value: Value) -> int:
        """The slot of ``value`` (a new one the first time)."""
        slot = self.slots.get(value)
        if slot is None:
            slot = self.slots[value] = len(self.slots)
        return slot

    def spec_of(self, value: Value) -> BufferSpec:
        """The buffer a memref value names (an argument or an attribution)."""
        spec = self.specs.get(value)
        if spec is None:
            owner = value.defining_op()
            raise self.unsupported(
                owner or self.func,
                "the simulator accesses kernel arguments and attributions only, not memrefs "
                "made inside the kernel",
            )
        return spec

    def constant_of(self, value: Value) -> Any:
        """The compile-time value of ``value``, or ``None``."""
        return self.constant_values.get(self.slot(value))

    def set_constant(self, value: Value, constant: Any) -> None:
        """Fix the value of ``value`` for every lane of every chunk."""
        slot = self.slot(value)
        self.constants.append((slot, constant))
        self.constant_values[slot] = constant
        self.structural.seed(slot)

    def unsupported(self, op: Operation, message: str) -> SanitizerError:
        """An ``unsupported`` error naming the op."""
        return self.run.error("unsupported", op, message)

    def compile_block(self, block: Block) -> CompiledBlock:
        """The closures of ``block``'s ops (its terminator only names what it yields)."""
        fns: list[OpFn] = []
        histogram: dict[str, int] = {}
        term = block.terminator
        yielding = term is not None and term.name in YIELDS
        entry = block is self.entry
        for op in block.ops:
            if op is term and (yielding or op.name in BRANCHES):
                if op.name == "cf.cond_br":  # run by the body's block runner
                    histogram["branch"] = histogram.get("branch", 0) + 1
                continue
            kind = self.emitted.instruction_class(op)
            if kind is not None:
                histogram[kind] = histogram.get(kind, 0) + 1
            fn = self.compile_op(op)
            if fn is not None and self.run.trace is not None:
                fn = self._traced(op, fn)
            elif fn is not None and entry and self._structural(op):
                fn = skipped_when_restored(fn)
            if fn is not None:
                fns.append(fn)
        yields = [self.slot(x) for x in term.operands] if yielding else []
        compiled = CompiledBlock(fns, histogram, yields)
        self.blocks.append(compiled)
        return compiled

    def compile_op(self, op: Operation) -> OpFn | None:
        """One op's closure (``None`` for an op fixed at compile or chunk time)."""
        name = op.name
        if name == "arith.constant":
            self.set_constant(op.results[0], _constant(op))
            return None
        if name in ID_OPS:
            slot = self.slot(op.results[0])
            self.ids.append((slot, op, id_axis(op)))
            self.structural.seed(slot)
            return None
        compiler = OP_COMPILERS.get(name)
        if compiler is not None:
            return compiler(self, op)
        if name.split(".")[0] in ("arith", "math"):
            return compile_rule(self, op)
        raise self.unsupported(op, "the SIMT simulator does not run this op")

    def _structural(self, op: Operation) -> bool:
        """Whether ``op`` (of the entry block) is structural; its results become so."""
        operands = [self.slot(x) for x in op.operands]
        if not self.structural.admits(op.name, operands, bool(op.regions)):
            return False
        self.structural.add([self.slot(r) for r in op.results])
        return True

    def _traced(self, op: Operation, fn: OpFn) -> OpFn:
        trace = self.run.trace

        def run(st: ChunkState, m: Mask) -> None:
            fn(st, m)
            trace.record(st, m, op)

        def run_nested(st: ChunkState, m: Mask) -> None:
            trace.record(st, m, op)  # the branch or loop issues before its body
            fn(st, m)

        return run_nested if op.regions else run

    # -- running ---------------------------------------------------------------------------
    def start_chunk(self, st: ChunkState, layout: Any = None) -> None:
        """Write the constants and ids of this chunk into the slots (and the structural
        values kept for ``layout``, if any)."""
        v, lanes = st.v, st.lanes
        kept = self.structural.find(layout)
        if kept is not None:
            for slot, value in kept.values:
                v[slot] = value
            st.cache.update(kept.offsets)
            st.restored = True
            return
        for slot, constant in self.constants:
            v[slot] = constant(lanes) if callable(constant) else constant
        for slot, op, axis in self.ids:
            v[slot] = id_value(op, lanes, axis)

    def run_chunk(self, st: ChunkState, layout: Any = None) -> None:
        """Run every block of the chunk to the end. With a ``layout`` (a hashable name
        of the chunk's blocks; kept programs only), the structural values are restored
        from an earlier chunk of that layout, or kept for the next one."""
        self.start_chunk(st, layout)
        self.body(st, st.lanes.full_mask)
        if layout is not None and not st.restored:
            self.structural.keep(layout, st.v, st.cache)

    def release(self) -> None:
        """Forget what the last run left in the plans (its chunk's arrays), so that a kept
        program holds no memory between launches."""
        for plan in self.plans:
            plan.last = None

    def body_histogram(self) -> dict[str, int]:
        """The static instruction classes of every block, added up (for a quick look)."""
        total: dict[str, int] = {}
        for block in self.blocks:
            for kind, count in block.histogram.items():
                total[kind] = total.get(kind, 0) + count
        return total


def _constant(op: Operation) -> Any:
    """An ``arith.constant`` as a slot value: a Python int for ``index``, a bool for
    ``i1``, a numpy scalar otherwise, and a function of the lanes for a vector."""
    (value,) = run_constant(op, [], None)
    t = op.results[0].type
    if isinstance(t, VectorType):
        values = np.asarray(value)
        if isinstance(op.attributes.get("value"), DenseElementsAttr) and values.ndim == 0:
            values = np.full(t.shape, values)
        return lambda lanes: np.broadcast_to(values, (lanes.total, *values.shape))
    if isinstance(t, IndexType):
        return int(value)
    if isinstance(t, IntegerType) and t.width == 1:
        return bool(value)
    return value
