"""Building payloads: the scalar code inside a linalg op, as MLIR's named ops define it.

A payload is a block with one argument per operand (the elements being read and
written) that ends with ``linalg.yield``. Named ops build theirs here, and the same body
is what ``generalize()`` puts in the ``linalg.generic``:

* ``copy_body``: ``yield %in`` (``fill``, ``transpose``, ``broadcast``);
* ``multiply_accumulate_body``: ``yield %out + cast(%a) * cast(%b)`` (``matmul``,
  ``batch_matmul``, convolutions), where ``cast`` converts an input element to the
  output's element type (``arith.extf`` for f16 -> f32, ``arith.extsi`` for i8 -> i32,
  ``arith.sitofp`` for i8 -> f32; the unsigned variants for ``cast_unsigned``).

>>> from tinycomp.ir import f16, f32
>>> region = build_payload([f16, f16, f32], multiply_accumulate_body())
>>> [op.name for op in region.entry_block]
['arith.extf', 'arith.extf', 'arith.mulf', 'arith.addf', 'linalg.yield']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tinycomp.dialects import arith
from tinycomp.ir.block import Block
from tinycomp.ir.builder import Builder
from tinycomp.ir.region import Region
from tinycomp.ir.types import FloatType, IndexType, IntegerType, Type, i1
from tinycomp.ir.values import BlockArgument, Value

PayloadBuilder = Callable[[Builder, list[BlockArgument]], Sequence[Value]]
"""Fills a payload: gets a builder at the end of the block and the block arguments,
returns the values to yield (one per output)."""

CAST_SIGNED = "#linalg.type_fn<cast_signed>"
"""The default ``cast`` of matmul-like ops: integers are sign-extended."""
CAST_UNSIGNED = "#linalg.type_fn<cast_unsigned>"
"""The ``cast`` that zero-extends integers (``arith.extui``, ``arith.uitofp``)."""


def build_payload(element_types: Sequence[Type], body: PayloadBuilder) -> Region:
    """A region with one block whose arguments have ``element_types``, filled by
    ``body`` and ended with ``linalg.yield`` of what ``body`` returns."""
    from tinycomp.dialects.linalg.generic import YieldOp

    block = Block(element_types)
    builder = Builder.at_end(block)
    yielded = body(builder, list(block.arguments))
    builder.insert(YieldOp.build(list(yielded)))
    return Region([block])


def copy_body(builder: Builder, arguments: list[BlockArgument]) -> list[Value]:
    """``yield %in`` (converted to the output's element type if it differs)."""
    return [convert_scalar(builder, arguments[0], arguments[-1].type)]


def multiply_accumulate_body(unsigned: bool = False) -> PayloadBuilder:
    """The body ``%out + cast(%lhs) * cast(%rhs)``, MLIR's order of operands."""

    def body(builder: Builder, arguments: list[BlockArgument]) -> list[Value]:
        lhs, rhs, accumulator = arguments
        to = accumulator.type
        lhs_value = convert_scalar(builder, lhs, to, unsigned)
        rhs_value = convert_scalar(builder, rhs, to, unsigned)
        product = multiply(builder, lhs_value, rhs_value)
        return [add(builder, accumulator, product)]

    return body


def add(builder: Builder, lhs: Value, rhs: Value) -> Value:
    """``lhs + rhs``: ``arith.addf``, ``arith.addi`` (``arith.ori`` for i1)."""
    if isinstance(lhs.type, FloatType):
        return builder.insert(arith.AddFOp.build(lhs, rhs)).result
    if lhs.type == i1:
        return builder.insert(arith.OrIOp.build(lhs, rhs)).result
    return builder.insert(arith.AddIOp.build(lhs, rhs)).result


def multiply(builder: Builder, lhs: Value, rhs: Value) -> Value:
    """``lhs * rhs``: ``arith.mulf``, ``arith.muli`` (``arith.andi`` for i1)."""
    if isinstance(lhs.type, FloatType):
        return builder.insert(arith.MulFOp.build(lhs, rhs)).result
    if lhs.type == i1:
        return builder.insert(arith.AndIOp.build(lhs, rhs)).result
    return builder.insert(arith.MulIOp.build(lhs, rhs)).result


def convert_scalar(builder: Builder, value: Value, to: Type, unsigned: bool = False) -> Value:
    """``value`` converted to ``to`` as linalg's ``cast`` does; ``value`` itself when the
    types already agree. Raises ``ValueError`` for a conversion linalg does not define."""
    source = value.type
    if source == to:
        return value
    op: arith.CastOp
    if isinstance(source, FloatType) and isinstance(to, FloatType):
        op = (arith.ExtFOp if to.width > source.width else arith.TruncFOp).build(value, to)
    elif isinstance(source, IntegerType) and isinstance(to, IntegerType):
        if to.width > source.width:
            op = (arith.ExtUIOp if unsigned else arith.ExtSIOp).build(value, to)
        else:
            op = arith.TruncIOp.build(value, to)
    elif isinstance(source, IntegerType) and isinstance(to, FloatType):
        op = (arith.UIToFPOp if unsigned else arith.SIToFPOp).build(value, to)
    elif isinstance(source, FloatType) and isinstance(to, IntegerType):
        op = (arith.FPToUIOp if unsigned else arith.FPToSIOp).build(value, to)
    elif isinstance(source, IndexType) or isinstance(to, IndexType):
        op = (arith.IndexCastUIOp if unsigned else arith.IndexCastOp).build(value, to)
    else:
        raise ValueError(f"cannot convert a payload value of type {source} to {to}")
    return builder.insert(op).result


__all__ = [
    "CAST_SIGNED", "CAST_UNSIGNED", "PayloadBuilder", "add", "build_payload",
    "convert_scalar", "copy_body", "multiply", "multiply_accumulate_body",
]  # fmt: skip
