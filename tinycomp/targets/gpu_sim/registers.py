"""Registers per thread: an estimate of what ptxas would allocate, from liveness in the gpu IR.

The occupancy of a kernel depends on its registers per thread, which only ptxas knows for
sure. This estimate counts the 32-bit registers live at once in one thread, as a linear
scan over the kernel would:

1. Number the ops of the kernel in program order (pre-order, nested regions inside their
   op; the blocks of an early exit in their topological order).
2. Give each value a size in 32-bit registers (``value_registers``): f32, i32, ``index``,
   f16 and bf16 take 1 (f16 would share half a register; counted as 1 to keep it simple;
   ``index`` is 32-bit arithmetic, as CUDA C's ``int`` indices and MLIR's
   ``convert-gpu-to-nvvm{index-bitwidth=32}`` make it), i64 and f64 take 2, a
   ``vector<4xf32>`` 4, i1 none (predicate registers), a constant none
   (it becomes an immediate), a global memref 2 (a 64-bit address), a workgroup memref none
   (its base is a constant of the shared window). A private attribution is a register array
   (ptxas keeps it in registers when every index is known, as a register tile is): all its
   elements, live for the whole kernel.
3. Each value is live from its definition to its last use. A use inside a loop of a value
   defined outside it counts at the loop's end (it is needed by every iteration); a loop's
   induction variable and iter_args live across the whole loop; the results of an op with
   regions are born where it ends. A value whose only use is the ``scf.yield`` (or
   ``scf.condition``) of a loop shares its iter_arg's register and is not counted again.
4. At each op, count the values live after it plus its own results (an operand that dies
   there frees its register for the result).
5. ``registers = roundup_even(peak + OVERHEAD)`` capped at 255: ``OVERHEAD`` = 2 is the
   register pair of the 64-bit address that every global access forms (base + offset)
   and the IR does not show; the even rounding is because 64-bit values sit in aligned
   register pairs. Past 255, ptxas spills to local memory (``spilled``).

>>> from tinycomp.ir import parse
>>> module = parse('''
... gpu.module @kernels {
...   gpu.func @copy(%src: memref<?xf32>, %dst: memref<?xf32>) kernel {
...     %tx = gpu.thread_id  x
...     %v = memref.load %src[%tx] : memref<?xf32>
...     memref.store %v, %dst[%tx] : memref<?xf32>
...     gpu.return
...   }
... }''')
>>> estimate = estimate_registers(module.body.first_op.body.first_op)
>>> estimate.peak_live, estimate.registers, estimate.peak_op
(5, 8, 'gpu.thread_id')
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.dialects.gpu import GPUFuncOp
from tinycomp.dialects.gpu.address_space import address_space_of
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import FloatType, IndexType, IntegerType, MemRefType, Type, VectorType
from tinycomp.ir.values import BlockArgument, OpResult, Value

__all__ = ["OVERHEAD", "LivePoint", "RegisterEstimate", "estimate_registers", "value_registers"]

OVERHEAD = 2
"""Registers the IR does not show: the pair holding a global access's 64-bit address."""

MAX_REGISTERS = 255
LOOP_OPS = frozenset({"scf.for", "scf.while", "scf.parallel", "affine.for"})
LOOP_TERMINATORS = frozenset({"scf.yield", "scf.condition", "affine.yield"})


@dataclass(frozen=True)
class LivePoint:
    """The registers live at one op (for a liveness picture)."""

    op: str
    line: int | None
    depth: int
    """How deeply the op is nested in regions (0: the kernel's body)."""
    live: int


@dataclass(frozen=True)
class RegisterEstimate:
    """Estimated registers per thread of one kernel, and where the pressure peaks."""

    kernel: str
    registers: int
    """What the occupancy calculator should use: rounded, overhead added, at most 255."""
    peak_live: int
    """The most 32-bit registers live at once, before the overhead."""
    overhead: int
    peak_op: str | None
    peak_line: int | None
    timeline: tuple[LivePoint, ...]
    spilled: int
    """Registers over 255 that ptxas would spill to local memory."""

    def __str__(self) -> str:
        where = f" at '{self.peak_op}'" if self.peak_op else ""
        line = f" (line {self.peak_line})" if self.peak_line is not None else ""
        spill = f"; {self.spilled} spilled" if self.spilled else ""
        return (
            f"@{self.kernel}: {self.registers} registers per thread (peak {self.peak_live} "
            f"live{where}{line} + {self.overhead} overhead){spill}"
        )


def value_registers(type: Type) -> int:
    """32-bit registers one value of this type takes (see the module docstring).

    >>> from tinycomp.ir.types import VectorType, f32, i1, index
    >>> value_registers(f32), value_registers(index), value_registers(i1)
    (1, 1, 0)
    >>> value_registers(VectorType((4,), f32))
    4
    """
    if isinstance(type, IntegerType):
        return 0 if type.width == 1 else -(-type.width // 32)
    if isinstance(type, IndexType):
        return 1
    if isinstance(type, FloatType):
        return 2 if type.width == 64 else 1
    if isinstance(type, VectorType):
        return type.num_elements * value_registers(type.element_type)
    if isinstance(type, MemRefType):
        return 2 if address_space_of(type) == "global" else 0
    return 0


def _private_registers(type: Type) -> int:
    if isinstance(type, MemRefType) and type.has_static_shape:
        return type.num_elements * value_registers(type.element_type)
    return 0


class _Numbering:
    """Ops in program order, with each op's position and the last position nested in it."""

    def __init__(self, func: Operation) -> None:
        self.ops: list[Operation] = []
        self.depth: list[int] = []
        self.position: dict[Operation, int] = {}
        self.end: dict[Operation, int] = {}
        for block in func.regions[0].blocks:
            for op in block.ops:
                self._number(op, 0)

    def _number(self, op: Operation, depth: int) -> None:
        self.position[op] = len(self.ops)
        self.ops.append(op)
        self.depth.append(depth)
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    self._number(inner, depth + 1)
        self.end[op] = len(self.ops) - 1


def _live_range(value: Value, numbering: _Numbering, func: Operation) -> tuple[int, int]:
    """``(first, last)``: the value occupies its registers at positions first..last-1."""
    position, end = numbering.position, numbering.end
    if isinstance(value, BlockArgument):
        block = value.block
        parent = block.parent_op()
        if parent is func:
            first = position[block.first_op] - 1 if block.first_op is not None else -1
        else:
            first = position[parent]
    elif value.defining_op().regions:
        first = end[value.defining_op()] + 1
    else:
        first = position[value.defining_op()]
    # an op's results take registers at the op even if unused; a region op's results
    # are born after it, at their first user, which may reuse the registers it frees
    last = first if isinstance(value, OpResult) and value.defining_op().regions else first + 1
    for use in value.uses:
        user = use.user
        at = position[user]
        ancestor = user.parent_op()
        while ancestor is not None and ancestor is not func:
            inside = position[ancestor] <= first <= end[ancestor]
            if ancestor.name in LOOP_OPS and not inside:
                at = max(at, end[ancestor] + 1)
            ancestor = ancestor.parent_op()
        last = max(last, at)
    if isinstance(value, BlockArgument) and value.block.parent_op() is not func:
        loop = value.block.parent_op()
        if loop.name in LOOP_OPS:
            last = max(last, end[loop] + 1)
    return first, last


def _shares_iter_arg_register(value: Value) -> bool:
    users = value.users
    return bool(users) and all(
        u.name in LOOP_TERMINATORS and u.parent_op() is not None and u.parent_op().name in LOOP_OPS
        for u in users
    )


def _find_kernel(func_op: Operation) -> Operation:
    if isinstance(func_op, GPUFuncOp) or func_op.name == "func.func":
        return func_op
    kernels = [op for op in func_op.walk() if isinstance(op, GPUFuncOp)]
    names = ", ".join(f"@{k.sym_name}" for k in kernels) or "none"
    raise TypeError(
        f"estimate_registers expects a gpu.func, got '{func_op.name}' "
        f"(the gpu.funcs inside it: {names})"
    )


def estimate_registers(func_op: Operation) -> RegisterEstimate:
    """Registers per thread of one ``gpu.func``, from the peak of live 32-bit values.

    >>> from tinycomp.ir import parse
    >>> estimate_registers(parse("gpu.module @m {}"))
    Traceback (most recent call last):
    ...
    TypeError: estimate_registers expects a gpu.func, got 'builtin.module' (the gpu.funcs \
inside it: none)
    """
    func = _find_kernel(func_op)
    numbering = _Numbering(func)
    count = len(numbering.ops)
    delta = [0] * (count + 2)

    def occupy(words: int, first: int, last: int) -> None:
        if words:
            delta[first + 1] += words
            delta[min(last, count) + 1] -= words

    private = set(func.private_attributions) if isinstance(func, GPUFuncOp) else set()
    for block in func.regions[0].blocks:
        for argument in block.arguments:
            if argument in private:
                occupy(_private_registers(argument.type), -1, count)
            else:
                occupy(value_registers(argument.type), *_live_range(argument, numbering, func))
    for op in numbering.ops:
        values: list[Value] = []
        if op.name != "arith.constant":
            values.extend(op.results)
        for region in op.regions:
            for block in region.blocks:
                values.extend(block.arguments)
        for value in values:
            if _shares_iter_arg_register(value):
                continue
            occupy(value_registers(value.type), *_live_range(value, numbering, func))

    live, running = [], delta[0]
    for position in range(count):
        running += delta[position + 1]
        live.append(running)
    timeline = tuple(
        LivePoint(op.name, op.location.line if op.location else None, numbering.depth[i], live[i])
        for i, op in enumerate(numbering.ops)
    )
    peak = max(live, default=0)
    peak_at = live.index(peak) if live else None
    wanted = peak + OVERHEAD
    rounded = wanted + wanted % 2
    name = func.attributes["sym_name"].value if "sym_name" in func.attributes else func.name
    return RegisterEstimate(
        kernel=name,
        registers=min(MAX_REGISTERS, rounded),
        peak_live=peak,
        overhead=OVERHEAD,
        peak_op=timeline[peak_at].op if peak_at is not None else None,
        peak_line=timeline[peak_at].line if peak_at is not None else None,
        timeline=timeline,
        spilled=max(0, wanted - MAX_REGISTERS),
    )
