"""Rules for scf (structured control flow): loops and conditionals with regions.

Each rule runs its regions through ``interp.run_region``, which returns the operands
of the region's terminator (``scf.yield``, ``scf.condition``, ``scf.reduce``):

* ``scf.for``: the body runs with ``(iv, *carried)``; what it yields is carried on;
* ``scf.if``: one of two regions; ``scf.index_switch``: one of several;
* ``scf.while``: ``before`` decides (``scf.condition``) and forwards values to ``after``;
* ``scf.parallel``: every point of the index space in lexicographic order (one valid
  order of the parallel iterations); ``scf.reduce`` values are combined into the
  accumulators in that order by the reduction regions;
* ``scf.forall``: likewise in lexicographic order; each iteration's
  ``tensor.parallel_insert_slice`` writes its tile into the shared output tensors.

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> from tinycomp.interp import Interpreter
>>> m = parse('''
... func.func @triangle(%n: index) -> index {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %sum = "scf.for"(%c0, %n, %c1, %c0) ({
...   ^bb0(%i: index, %acc: index):
...     %next = arith.addi %acc, %i : index
...     "scf.yield"(%next) : (index) -> ()
...   }) : (index, index, index, index) -> index
...   return %sum : index
... }''')
>>> [int(v) for v in Interpreter(m).call("triangle", [np.int64(5)])]
[10]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tinycomp.interp.control import Exit
from tinycomp.interp.errors import op_error
from tinycomp.interp.numerics import int_width, unsigned
from tinycomp.interp.rules.common import int_list, mixed_values, segments
from tinycomp.ir.operation import Operation


def index_space(
    op: Operation, lowers: Sequence[int], uppers: Sequence[int], steps: Sequence[int]
) -> list[range]:
    """One ``range`` per loop dimension; a step must be positive."""
    for step in steps:
        if int(step) <= 0:
            raise op_error(op, f"expected positive steps, got {[int(s) for s in steps]}")
    return [
        range(int(lo), int(hi), int(st)) for lo, hi, st in zip(lowers, uppers, steps, strict=True)
    ]


def run_for(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``scf.for %iv = %lb to %ub step %st iter_args(...)``."""
    lower, upper, step, *carried = operands
    if "unsignedCmp" in op.attributes:
        width = int_width(op.operands[0].type)
        lower, upper, step = (unsigned(v, width) for v in (lower, upper, step))
    (iterations,) = index_space(op, [lower], [upper], [step])
    iv_type = np.asarray(operands[0]).dtype.type
    for iv in iterations:
        carried = interp.run_region(op.regions[0], [iv_type(iv), *carried])
    return list(carried)


def run_if(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``scf.if %cond``: run the then- or the else-region (an empty else yields nothing)."""
    region = op.regions[0] if bool(operands[0]) else op.regions[1]
    if not region.blocks:
        return []
    return interp.run_region(region, [])


def run_index_switch(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``scf.index_switch %i``: the region of the matching case (region 0 is default)."""
    cases = int_list(op, "cases")
    selected = int(operands[0])
    region = op.regions[1 + cases.index(selected)] if selected in cases else op.regions[0]
    return interp.run_region(region, [])


def run_execute_region(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``scf.execute_region``: run the region once (it may have several blocks)."""
    return interp.run_region(op.regions[0], [])


def run_while(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``scf.while``: ``before`` ends in ``scf.condition(%c) values``; while ``%c``,
    ``after`` runs on the values and yields the next arguments of ``before``."""
    before, after = op.regions
    arguments = list(operands)
    while True:
        condition, *forwarded = interp.run_region(before, arguments)
        if not bool(condition):
            return forwarded
        arguments = interp.run_region(after, forwarded)


def run_parallel(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``scf.parallel``: run every point; fold ``scf.reduce`` values into the inits."""
    lowers, uppers, steps, accumulators = segments(op, operands, 4)
    ranges = index_space(op, lowers, uppers, steps)
    body = op.regions[0]
    accumulators = list(accumulators)
    for point in itertools.product(*ranges):
        values = interp.run_region(body, [np.int64(i) for i in point])
        reduce_op = body.blocks[-1].last_op
        for k, value in enumerate(values):  # acc = reduction_k(acc, value)
            (accumulators[k],) = interp.run_region(reduce_op.regions[k], [accumulators[k], value])
    return accumulators


def run_forall(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``scf.forall ... shared_outs(%o = %t)``: the body sees the shared tensors as they
    are so far; its ``tensor.parallel_insert_slice`` ops update them."""
    dynamic_lowers, dynamic_uppers, dynamic_steps, outputs = segments(op, operands, 4)
    uppers = mixed_values(op, "staticUpperBound", dynamic_uppers)
    lowers = mixed_values(op, "staticLowerBound", dynamic_lowers)
    steps = mixed_values(op, "staticStep", dynamic_steps)
    ranges = index_space(op, lowers, uppers, steps)
    block = op.regions[0].entry_block
    shared_arguments = block.arguments[len(ranges) :]
    shared = list(outputs)
    for point in itertools.product(*ranges):
        interp.run_region(op.regions[0], [*(np.int64(i) for i in point), *shared])
        shared = [interp.read(argument) for argument in shared_arguments]
    return shared


def run_in_parallel(op: Operation, operands: list[Any], interp: Any) -> Exit:
    """``scf.forall.in_parallel { tensor.parallel_insert_slice ... }``: run the inserts."""
    interp.run_region(op.regions[0], [])
    return Exit([])


def run_terminator(op: Operation, operands: list[Any], interp: Any) -> Exit:
    """``scf.yield``, ``scf.condition``, ``scf.reduce``, ``scf.reduce.return``: leave
    the region with the operands."""
    return Exit(operands)


RULES = {
    "scf.for": run_for,
    "scf.if": run_if,
    "scf.index_switch": run_index_switch,
    "scf.execute_region": run_execute_region,
    "scf.while": run_while,
    "scf.parallel": run_parallel,
    "scf.forall": run_forall,
    "scf.forall.in_parallel": run_in_parallel,
    "scf.yield": run_terminator,
    "scf.condition": run_terminator,
    "scf.reduce": run_terminator,
    "scf.reduce.return": run_terminator,
}
"""Every scf op the interpreter runs."""

__all__ = ["RULES", "index_space"]
