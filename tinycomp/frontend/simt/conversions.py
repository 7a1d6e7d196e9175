"""The kernel DSL's typing rules: constants, conversions and the type two operands meet in.

A kernel's values are IR values (``index``, ``i1``, ``i32``, ``i64``, ``f16``, ``bf16``,
``f32``) or Python literals not yet given a type. The rules, as CUDA C++ has them where
Python has none:

1. ids, ``range`` variables and ``shape[k]`` are ``index``; an integer meeting an
   ``index`` becomes one (``arith.index_cast``);
2. two integers meet in the wider one (``arith.extsi``); an integer meeting a float
   becomes that float (``arith.sitofp``, through an ``index_cast`` to ``i64`` for an
   ``index``); two floats meet in the wider, ``f16`` and ``bf16`` in ``f32``
   (``arith.extf``); a ``bool`` (``i1``) in arithmetic is 0 or 1 (``arith.extui``);
3. a literal takes the other operand's type, except that a float literal meeting an
   integer is ``f32``; a literal alone is ``i32``, ``f32`` or ``i1``;
4. a store, a loop-carried variable and a branch result convert to the type they must
   have (``convert``): down as well as up (``arith.truncf``, ``arith.fptosi``...).

>>> from tinycomp.ir import Block, Builder, bf16, f16, index, i32
>>> block = Block([index, i32])
>>> builder = Builder.at_end(block)
>>> i, n = block.arguments
>>> common_type(i.type, n.type), common_type(f16, bf16)
(IndexType(), FloatType(name='f32'))
>>> print(convert(builder, n, index).type, [op.name for op in block.ops])
index ['arith.index_cast']
"""

from __future__ import annotations

from tinycomp.dialects import arith
from tinycomp.ir.builder import Builder
from tinycomp.ir.types import FloatType, IndexType, IntegerType, Type, f32, i1, i64
from tinycomp.ir.values import Value

__all__ = [
    "Literal", "Operand", "common_type", "constant", "convert", "is_number_type",
    "literal_type", "type_of",
]  # fmt: skip

Literal = bool | int | float
"""A Python constant in the kernel's source (or a global ``TILE = 16``), not yet typed."""
Operand = Value | Literal
"""What an expression of the kernel evaluates to, before it needs a type."""

FLOAT_WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def is_number_type(t: Type) -> bool:
    """Whether values of ``t`` take part in arithmetic (index, integers, floats).

    >>> from tinycomp.ir import f16
    >>> is_number_type(i64), is_number_type(f16)
    (True, True)
    """
    return isinstance(t, (IndexType, IntegerType, FloatType))


def literal_type(value: Literal, other: Type | None = None) -> Type:
    """The type a literal takes next to an operand of type ``other`` (rule 3).

    >>> from tinycomp.ir import bf16, f16
    >>> literal_type(2), literal_type(2, f16), literal_type(0.5, i64), literal_type(0.5, bf16)
    (IntegerType(width=32), FloatType(name='f16'), FloatType(name='f32'), FloatType(name='bf16'))
    """
    if isinstance(value, bool) and (other is None or other == i1):
        return i1
    if isinstance(value, float):
        return other if isinstance(other, FloatType) else f32
    if other is None or other == i1:
        return IntegerType(32)
    return other


def type_of(operand: Operand) -> Type:
    """The IR type of an operand (a literal's type when alone)."""
    return operand.type if isinstance(operand, Value) else literal_type(operand)


def constant(builder: Builder, value: Literal, type: Type) -> Value:
    """An ``arith.constant`` of ``value`` as ``type`` (ints wrap to the width: 0xffffffff
    as ``i32`` is -1).

    >>> from tinycomp.ir import Block, Builder, i32
    >>> block = Block()
    >>> constant(Builder.at_end(block), 0xFFFFFFFF, i32).op.value.value
    -1
    """
    if isinstance(type, FloatType):
        return builder.insert(arith.ConstantOp.build(float(value), type)).result
    if type == i1:
        return builder.insert(arith.ConstantOp.build(bool(value))).result
    number = int(value)
    if isinstance(type, IntegerType):
        number &= (1 << type.width) - 1
        if number >= 1 << (type.width - 1):
            number -= 1 << type.width
    return builder.insert(arith.ConstantOp.build(number, type)).result


def common_type(a: Type, b: Type) -> Type:
    """The type two operands meet in (rules 1 and 2).

    >>> from tinycomp.ir import f16, index, i32
    >>> common_type(i32, index), common_type(i32, f16), common_type(i1, i32)
    (IndexType(), FloatType(name='f16'), IntegerType(width=32))
    """
    if a == b:
        return a
    if isinstance(a, FloatType) and isinstance(b, FloatType):
        if FLOAT_WIDTH[a.name] == FLOAT_WIDTH[b.name]:
            return f32
        return a if FLOAT_WIDTH[a.name] > FLOAT_WIDTH[b.name] else b
    if isinstance(a, FloatType):
        return a
    if isinstance(b, FloatType):
        return b
    if isinstance(a, IndexType) or isinstance(b, IndexType):
        return IndexType()
    return a if a.width >= b.width else b


def convert(builder: Builder, value: Value, to: Type) -> Value:
    """``value`` as a ``to`` (rule 4): the ops that change an integer's width, an index,
    a float's precision or a number's kind; ``value`` itself when it already is one.

    >>> from tinycomp.ir import Block, Builder, f16, index
    >>> block = Block([index])
    >>> print(convert(Builder.at_end(block), block.arguments[0], f16).type)
    f16
    >>> [op.name for op in block.ops]
    ['arith.index_cast', 'arith.sitofp']
    """
    source = value.type
    if source == to:
        return value
    if to == i1:
        zero = constant(builder, 0, source)
        if isinstance(source, FloatType):
            return builder.insert(arith.CmpFOp.build("une", value, zero)).result
        return builder.insert(arith.CmpIOp.build("ne", value, zero)).result
    if isinstance(source, FloatType) and isinstance(to, FloatType):
        if FLOAT_WIDTH[source.name] == FLOAT_WIDTH[to.name]:  # f16 <-> bf16
            value = builder.insert(arith.ExtFOp.build(value, f32)).result
            return builder.insert(arith.TruncFOp.build(value, to)).result
        wider = FLOAT_WIDTH[to.name] > FLOAT_WIDTH[source.name]
        op_class = arith.ExtFOp if wider else arith.TruncFOp
        return builder.insert(op_class.build(value, to)).result
    if isinstance(source, FloatType):  # to an integer or an index
        integer = i64 if isinstance(to, IndexType) else to
        value = builder.insert(arith.FPToSIOp.build(value, integer)).result
        return convert(builder, value, to)
    if source == i1:
        widened = i64 if isinstance(to, (IndexType, FloatType)) else to
        value = builder.insert(arith.ExtUIOp.build(value, widened)).result
        return convert(builder, value, to)
    if isinstance(to, FloatType):
        if isinstance(source, IndexType):
            value = builder.insert(arith.IndexCastOp.build(value, i64)).result
        return builder.insert(arith.SIToFPOp.build(value, to)).result
    if isinstance(source, IndexType) or isinstance(to, IndexType):
        return builder.insert(arith.IndexCastOp.build(value, to)).result
    op_class = arith.ExtSIOp if to.width > source.width else arith.TruncIOp
    return builder.insert(op_class.build(value, to)).result
