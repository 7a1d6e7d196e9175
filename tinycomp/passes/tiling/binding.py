"""Binding tile loops to parallel hardware units.

After tiling, the outer loops walk over independent tiles. On a GPU each tile of the
outermost loops becomes a thread block (``blockIdx.x``); on a Da Vinci-like NPU each one
runs on an AI core, and inside a core the two vector units each take half
(``sub_block_idx``). tinycomp records that decision on the loop, as a *discardable
attribute* (one that no op definition owns, spelled ``dialect.name``)::

    %r = scf.for %i = %c0 to %c64 step %c16 iter_args(...) -> (...) {
      ...
    } {tinycomp.bind = "gpu.block.x"}

Later stages (the GPU and NPU lowering) read it. ``mlir-opt`` accepts such an
attribute and prints it back unchanged (the key needs no quotes: a bare identifier may
contain dots), though a pass that rebuilds the loop may drop it. MLIR expresses the
same idea with ``scf.forall`` and a ``mapping = [#gpu.block<x>]`` attribute; tinycomp
keeps ``scf.for`` for the tile loops.

Only a parallel loop may be bound: its iterations must not depend on each other. The
check (``why_not_bindable``) reads the IR tiling produced: every ``tensor.insert_slice``
whose result the loop yields must write at an offset that moves with the loop's
induction variable. A loop over a reduction dimension (matmul's ``k``) writes the same
output window in every iteration, adding to what the previous one left: running those
iterations at once on different blocks would race, so binding it is refused, with the
reason. (A syntactic check, sound for the tile loops tiling builds; it is not a general
dependence analysis.)

>>> from tinycomp.ir import parse
>>> from tinycomp.passes.tiling.tile_op import tile_linalg_op
>>> m = parse('''func.func @main(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>,
...                              %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
...   %mm = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>)
...                       outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
...   return %mm : tensor<8x8xf32> }''')
>>> result = tile_linalg_op(m.body.first_op.entry_block.first_op, [4, 4, 4])
>>> bind_loops(result.loops, ["gpu.block.y", "gpu.block.x", "gpu.thread.x"])
['loop %k not bound to gpu.thread.x: it carries a reduction: every iteration writes the same \
window (the tensor.insert_slice offsets do not depend on %k)']
>>> str(result.loops[0].attributes["tinycomp.bind"])
'"gpu.block.y"'
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.dialects.tensor.slices import InsertSliceOp
from tinycomp.ir.attributes import StringAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import OpResult, Value
from tinycomp.passes.errors import PassError

__all__ = ["BIND_ATTRIBUTE", "HARDWARE_UNITS", "bind_loops", "why_not_bindable"]

BIND_ATTRIBUTE = "tinycomp.bind"
"""The discardable attribute that names the unit a loop is bound to."""

HARDWARE_UNITS: dict[str, str] = {
    "gpu.block.x": "GPU thread blocks along x (blockIdx.x): one tile per block",
    "gpu.block.y": "GPU thread blocks along y (blockIdx.y)",
    "gpu.block.z": "GPU thread blocks along z (blockIdx.z)",
    "gpu.thread.x": "threads of one GPU block along x (threadIdx.x)",
    "npu.aicore": "AI cores of a Da Vinci-like NPU (block_idx): one tile per core",
    "npu.vector_subblock": "the two vector units (AIV) paired with one cube unit "
    "(sub_block_idx): each takes half of a core's tile",
}
"""The parallel units a tile loop can be bound to, with what each one is."""


def bind_loops(loops: Sequence[Operation], units: Sequence[str]) -> list[str]:
    """Bind ``loops[i]`` to ``units[i]`` (fewer units than loops: the rest stay
    sequential) by setting ``tinycomp.bind``. Returns one line per loop *not* bound,
    with the reason; an unknown or repeated unit, or more units than loops, is a
    ``PassError``."""
    for unit in units:
        if unit not in HARDWARE_UNITS:
            raise PassError(
                f"bind: unknown hardware unit '{unit}'; known units: {', '.join(HARDWARE_UNITS)}"
            )
    repeated = sorted({unit for unit in units if list(units).count(unit) > 1})
    if repeated:
        raise PassError(f"bind: expected each unit once, got '{repeated[0]}' more than once")
    if len(units) > len(loops):
        raise PassError(
            f"bind: expected at most one unit per loop ({len(loops)} loops), "
            f"got {len(units)} units: {list(units)}"
        )
    refused: list[str] = []
    for loop, unit in zip(loops, units, strict=False):
        reason = why_not_bindable(loop)
        if reason is not None:
            refused.append(f"loop {_describe_loop(loop)} not bound to {unit}: {reason}")
            continue
        loop.attributes[BIND_ATTRIBUTE] = StringAttr(unit)
    return refused


def why_not_bindable(loop: Operation) -> str | None:
    """Why ``loop`` may not run its iterations in parallel, or ``None`` (see above).

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f() { return }")
    >>> why_not_bindable(m.body.first_op.entry_block.first_op)
    "'func.return' is not an scf.for tile loop"
    """
    if not isinstance(loop, ForOp):
        return f"'{loop.name}' is not an scf.for tile loop"
    if BIND_ATTRIBUTE in loop.attributes:
        return f"it is already bound to {loop.attributes[BIND_ATTRIBUTE]}"
    if not loop.init_args:
        return "it carries no tensors (iter_args), so tinycomp cannot check its tiles"
    terminator = loop.body.terminator
    assert terminator is not None
    for yielded in terminator.operands:
        writes = _tile_writes(yielded)
        if writes is None:
            return f"cannot tell where it writes %{yielded.name_hint or 'a yielded tensor'}"
        for write in writes:
            offsets = [offset for offset in write.offsets if isinstance(offset, Value)]
            if not any(_depends_on(offset, loop.induction_var) for offset in offsets):
                return (
                    "it carries a reduction: every iteration writes the same window "
                    f"(the tensor.insert_slice offsets do not depend on {_describe_loop(loop)})"
                )
    return None


def _tile_writes(value: Value) -> list[InsertSliceOp] | None:
    """The ``tensor.insert_slice`` ops that produce ``value``, looking through nested
    tile loops; ``None`` when ``value`` comes from anything else."""
    op = value.defining_op()
    if isinstance(op, InsertSliceOp):
        return [op]
    if isinstance(op, ForOp):
        terminator = op.body.terminator
        assert terminator is not None and isinstance(value, OpResult)
        return _tile_writes(terminator.operands[value.index])
    return None


def _depends_on(value: Value, iv: Value) -> bool:
    """Whether ``value`` is computed from ``iv`` (through the ops that define it)."""
    if value is iv:
        return True
    op = value.defining_op()
    if op is None:
        return False
    return any(_depends_on(operand, iv) for operand in op.operands)


def _describe_loop(loop: Operation) -> str:
    """``%k``: the loop's induction variable, or its op name."""
    if isinstance(loop, ForOp) and loop.induction_var.name_hint:
        return f"%{loop.induction_var.name_hint}"
    return f"'{loop.name}'"
