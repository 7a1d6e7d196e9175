"""Folding: replacing an op by a value it is known to compute, without creating ops.

A *folder* looks at one op and answers with the values its results are equal to: an
existing ``Value`` (``x`` for ``x * 1``) or a constant ``Attribute`` (``6 : i32`` for
``2 * 3``); ``None`` means "cannot fold". The greedy driver turns attributes into
``arith.constant`` ops and replaces the op. MLIR gives each op class a ``fold``
method; tinycomp keeps folders in a table keyed by op name, so a dialect can be given
folders without touching its op classes (``FOLDERS["mydialect.op"] = my_folder``).

The folder every arithmetic op gets is constant folding: when all operands are
constants, run the interpreter's rule for the op on them (``constant_eval.py``), so
the folded constant has exactly the bits the program would have computed. Algebraic
simplifications (``x + 0 -> x``) are patterns in ``tinycomp/passes/canonicalize/``,
where each one can be read and tested on its own.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f() -> f16 {
...   %a = arith.constant 0.1 : f16
...   %b = arith.constant 0.2 : f16
...   %s = arith.addf %a, %b : f16
...   return %s : f16
... }''')
>>> add = m.body.first_op.entry_block.ops[2]
>>> print(fold_op(add)[0])
2.998050e-01 : f16
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tinycomp.dialects.arith.binary import BINARY_OPS
from tinycomp.dialects.arith.cast import CAST_OPS
from tinycomp.dialects.arith.compare import COMPARE_OPS
from tinycomp.ir.attributes import Attribute
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Value
from tinycomp.rewrite.constant_eval import evaluate_on_constants
from tinycomp.rewrite.matchers import constant_attr_of

__all__ = ["FOLDERS", "MATH_OPS", "FoldResult", "Folder", "fold_constant_operands", "fold_op"]

FoldResult = Sequence[Value | Attribute]
"""What a folder returns: one existing value or constant attribute per result."""
Folder = Callable[[Operation], FoldResult | None]
"""A fold function: ``folder(op)`` is a ``FoldResult``, or ``None`` to leave ``op`` alone."""

MATH_OPS = (
    "math.absf", "math.absi", "math.ceil", "math.copysign", "math.cos", "math.erf",
    "math.exp", "math.exp2", "math.expm1", "math.floor", "math.fma", "math.log",
    "math.log10", "math.log1p", "math.log2", "math.powf", "math.round",
    "math.roundeven", "math.rsqrt", "math.sin", "math.sqrt", "math.tan", "math.tanh",
    "math.trunc",
)  # fmt: skip
"""math ops folded when their operands are constants (and the interpreter has a rule)."""


def fold_constant_operands(op: Operation) -> list[Attribute] | None:
    """Constant folding: if every operand is a constant, the interpreter's results.

    Ops without operands are left alone (a constant is already folded).
    """
    if not op.operands:
        return None
    attrs = []
    for operand in op.operands:
        attr = constant_attr_of(operand)
        if attr is None:
            return None
        attrs.append(attr)
    return evaluate_on_constants(op, attrs)


FOLDERS: dict[str, Folder] = {
    **{op_class.name: fold_constant_operands for op_class in BINARY_OPS},
    **{op_class.name: fold_constant_operands for op_class in CAST_OPS},
    **{op_class.name: fold_constant_operands for op_class in COMPARE_OPS},
    **{name: fold_constant_operands for name in MATH_OPS},
}
"""The fold function of each op name (add entries for new ops)."""


def fold_op(op: Operation) -> FoldResult | None:
    """Fold ``op`` with the folder registered for its name, if any.

    The answer has one entry per result, and never ``op``'s own results (which would
    mean "nothing changed"); otherwise ``None``.
    """
    folder = FOLDERS.get(op.name)
    if folder is None:
        return None
    folded = folder(op)
    if folded is None or len(folded) != len(op.results):
        return None
    for item in folded:
        if isinstance(item, Value) and item.defining_op() is op:
            return None
    return folded
