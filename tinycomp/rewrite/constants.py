"""Constants during rewriting: create them, keep one of each, keep them at the top.

Folding turns ops into constants, and many constants are equal. The greedy driver
keeps them tidy the way MLIR's ``OperationFolder`` does:

1. Each constant belongs to an *insertion region*: the region of the nearest enclosing
   op that is isolated from above (a function body), unregistered, or a top-level op.
   Constants inside an ``scf.for`` body therefore belong to the function.
2. When the driver meets a constant (it does so once per iteration, while filling its
   worklist), it looks up ``(region, op name, value, type)``. If an equal constant is
   already known, every use is redirected to that one and the newcomer is erased.
3. Otherwise the constant becomes the known one and moves to the start of the region's
   entry block, unless it already sits in the run of known constants at the top.

The result is what ``mlir-opt --canonicalize`` prints: every constant once, at the top
of the function, the most recently hoisted first.

>>> from tinycomp.ir import IntegerAttr, i32
>>> print(materialize_constant(IntegerAttr(7, i32), i32))
%c7_i32 = arith.constant 7 : i32
"""

from __future__ import annotations

from tinycomp.dialects.arith import ConstantOp
from tinycomp.ir.attributes import Attribute, BoolAttr, FloatAttr, IntegerAttr
from tinycomp.ir.block import Block
from tinycomp.ir.dense import DenseElementsAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.types import Type
from tinycomp.rewrite.rewriter import PatternRewriter
from tinycomp.rewrite.traits import is_registered

__all__ = ["MATERIALIZE_INTO_OPS", "ConstantUniquer", "materialize_constant"]

MATERIALIZE_INTO_OPS = frozenset({"affine.for", "affine.parallel", "affine.if"})
"""Ops whose bodies keep their own constants (the affine dialect asks for this in MLIR,
so that loop bodies stay valid affine scopes)."""

ConstantKey = tuple[Region, str, Attribute, Type]


def materialize_constant(value: Attribute, result_type: Type) -> Operation | None:
    """A new ``arith.constant`` holding ``value`` of ``result_type``, or ``None`` when
    ``value`` is not a typed constant of exactly that type."""
    if not isinstance(value, (IntegerAttr, FloatAttr, BoolAttr, DenseElementsAttr)):
        return None
    if value.type != result_type:
        return None
    return ConstantOp.build(value)


class ConstantUniquer:
    """The known constants of each insertion region (see the module docstring)."""

    def __init__(self) -> None:
        self._known: dict[ConstantKey, Operation] = {}
        self._key_of: dict[Operation, ConstantKey] = {}

    def insertion_region(self, block: Block) -> Region:
        """Step 1: the region constants used in ``block`` should live in."""
        while True:
            region = block.parent
            parent = region.parent_op if region is not None else None
            if region is None or parent is None:
                return region
            if (
                parent.is_isolated_from_above
                or not is_registered(parent)
                or parent.parent is None
                or parent.name in MATERIALIZE_INTO_OPS
            ):
                return region
            block = parent.parent

    def insert_known_constant(self, op: Operation, rewriter: PatternRewriter) -> bool:
        """Steps 2 and 3 for the constant op ``op``. Returns ``False`` when ``op`` was
        replaced by an equal constant (and erased), ``True`` when it was kept."""
        block = op.parent
        if op in self._key_of:  # known already: only check that it is still on top
            if block.first_op is not op and op.prev_op not in self._key_of:
                op.move_before(block.first_op)
            return True
        region = self.insertion_region(block)
        key = (region, op.name, op.attributes["value"], op.results[0].type)
        existing = self._known.get(key)
        if existing is not None:
            rewriter.replace_op(op, existing.results)
            return False
        entry = region.blocks[0]
        if block is not entry or (entry.first_op is not op and op.prev_op not in self._key_of):
            op.move_before(entry.first_op)
        self._known[key] = op
        self._key_of[op] = key
        return True

    def notify_erased(self, op: Operation) -> None:
        """Forget ``op`` (it is being erased)."""
        key = self._key_of.pop(op, None)
        if key is not None:
            del self._known[key]
