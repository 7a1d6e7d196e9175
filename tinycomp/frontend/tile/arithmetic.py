"""Arithmetic of a tile kernel: the same rules for scalars and for tiles.

``binary(context, "+", lhs, rhs)`` is what ``lhs + rhs`` means in a kernel:

1. two Python numbers: Python computes it (``BLOCK // 2`` is a compile-time int);
2. a ``Pointer`` plus integer offsets: a pointer with the offsets added;
3. otherwise the element type of the result is the *promotion* of the operands'
   (``promote``: a float beats an integer, the wider type wins, ``f16`` with ``bf16``
   is ``f32``, a Python number takes the other operand's type); ``/`` on integers is
   true division in ``f32``, comparisons give ``i1``;
4. scalars only: one ``arith`` op on the promoted scalars;
5. with a tile: one ``linalg.generic`` (``frontend/elementwise.py``) whose payload
   casts each element to the promoted type and applies the same ``arith`` op. Scalar
   operands are captured into the payload; shapes broadcast as in numpy.

>>> from tinycomp.ir.types import bf16, f16, f32, i1, i32
>>> print(promote(i32, f16), promote(f16, bf16), promote(i1, i32), promote(f16, 2.0))
f16 f32 i32 f16
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

from tinycomp.dialects import arith, math
from tinycomp.frontend.elementwise import elementwise
from tinycomp.frontend.tile.values import Pointer, Tile, TileContext, TileError, kind_of
from tinycomp.ir import Builder
from tinycomp.ir.type_helpers import bitwidth, is_float, is_integer
from tinycomp.ir.types import IndexType, Type, f32, i1, i32
from tinycomp.ir.values import Value

__all__ = [
    "apply_op", "binary", "convert", "element_type", "promote", "scalar_cast", "to_value", "unary",
]  # fmt: skip

Operand = Tile | Value | int | float | bool
"""An operand of kernel arithmetic."""

_PYTHON_OPS: dict[str, Callable] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
    "&": operator.and_, "|": operator.or_, "^": operator.xor,
}  # fmt: skip
_FLOAT_OPS = {
    "+": arith.AddFOp, "-": arith.SubFOp, "*": arith.MulFOp, "/": arith.DivFOp,
    "%": arith.RemFOp, "maximum": arith.MaximumFOp, "minimum": arith.MinimumFOp,
}  # fmt: skip
_INT_OPS = {
    "+": arith.AddIOp, "-": arith.SubIOp, "*": arith.MulIOp, "//": arith.DivSIOp,
    "%": arith.RemSIOp, "&": arith.AndIOp, "|": arith.OrIOp, "^": arith.XOrIOp,
    "maximum": arith.MaxSIOp, "minimum": arith.MinSIOp,
}  # fmt: skip
_FLOAT_COMPARE = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}
_INT_COMPARE = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
_WORDS = {
    "+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floordiv", "%": "rem", "<": "lt",
    "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne", "&": "and", "|": "or",
    "^": "xor", "maximum": "maximum", "minimum": "minimum",
}  # fmt: skip
"""How errors and value names call each operator."""
_UNARY_MATH = {
    "exp": math.ExpOp, "log": math.LogOp, "sqrt": math.SqrtOp, "rsqrt": math.RsqrtOp,
    "abs": math.AbsFOp,
}  # fmt: skip


def element_type(value: Operand) -> Type | int | float | bool:
    """The IR element type of a tile or scalar; a Python number is returned as is
    (it adapts to the other operand).

    >>> element_type(2.5), str(element_type(to_value(TileContext.scratch(), 3, i32)))
    (2.5, 'i32')
    """
    if isinstance(value, Tile):
        return value.dtype
    if isinstance(value, Value):
        return value.type
    return value


def _rank(t: Type) -> tuple[int, int]:
    """Order of the promotion lattice: (is float, width)."""
    return (1 if is_float(t) else 0, bitwidth(t))


def promote(a: Type | int | float | bool, b: Type | int | float | bool) -> Type:
    """The element type an operation on ``a`` and ``b`` computes in (see module docs).

    >>> from tinycomp.ir.types import f16
    >>> print(promote(f16, f32), promote(i32, 1), promote(i32, 0.5))
    f32 i32 f32
    """
    if not isinstance(a, Type) and not isinstance(b, Type):
        return f32 if isinstance(a, float) or isinstance(b, float) else i32
    if not isinstance(a, Type):
        a, b = b, a
    if not isinstance(b, Type):
        if isinstance(b, float) and not isinstance(b, bool) and not is_float(a):
            return f32
        return i32 if a == i1 and not isinstance(b, bool) else a
    if a == b:
        return a
    if is_float(a) and is_float(b) and bitwidth(a) == bitwidth(b):
        return f32  # f16 with bf16
    return a if _rank(a) > _rank(b) else b


def scalar_cast(builder: Builder, value: Value, to: Type) -> Value:
    """``value`` converted to ``to`` with one ``arith`` cast (or none when equal).

    >>> from tinycomp.ir.types import f16
    >>> context = TileContext.scratch()
    >>> half = to_value(context, 1.5, f16)
    >>> scalar_cast(context.builder, half, f32).defining_op().name
    'arith.extf'
    """
    source = value.type
    if source == to:
        return value
    if isinstance(source, IndexType) or isinstance(to, IndexType):
        return builder.insert(arith.IndexCastOp.build(value, to)).result
    if is_float(source) and is_float(to):
        op = arith.ExtFOp if bitwidth(to) > bitwidth(source) else arith.TruncFOp
    elif is_integer(source) and is_float(to):
        op = arith.UIToFPOp if source == i1 else arith.SIToFPOp
    elif is_float(source) and is_integer(to):
        op = arith.FPToSIOp
    elif source == i1:
        op = arith.ExtUIOp
    else:
        op = arith.ExtSIOp if bitwidth(to) > bitwidth(source) else arith.TruncIOp
    return builder.insert(op.build(value, to)).result


def to_value(context: TileContext, value: Operand, dtype: Type) -> Value | Tile:
    """A Python number as an ``arith.constant`` of ``dtype``; a scalar cast to ``dtype``;
    a tile is returned as is.

    >>> print(to_value(TileContext.scratch(), 7, i32).defining_op().name)
    arith.constant
    """
    if isinstance(value, Tile):
        return value
    if isinstance(value, Value):
        context.builder.location = context.location
        return scalar_cast(context.builder, value, dtype)
    if is_integer(dtype) and isinstance(value, float) and not value.is_integer():
        raise TileError(f"expected an integer for {dtype}, got {value}")
    number = float(value) if is_float(dtype) else int(value)
    return context.insert(arith.ConstantOp.build(number, dtype)).result


def convert(context: TileContext, value: Operand, dtype: Type, op_name: str = "to") -> Operand:
    """``value.to(dtype)``: a tile cast elementwise, a scalar cast once.

    >>> from tinycomp.frontend.tile.shaping import arange
    >>> context = TileContext.scratch()
    >>> convert(context, arange(context, 0, 4), f32)
    Tile(tensor<4xf32>)
    """
    if isinstance(value, Tile):
        if value.dtype == dtype:
            return value

        def body(builder: Builder, scalars: Sequence[Value]) -> Value:
            return scalar_cast(builder, scalars[0], dtype)

        return elementwise(op_name, [value], body, dtype)
    if isinstance(value, (Value, int, float, bool)):
        return to_value(context, value, dtype)
    raise TileError(f"{op_name}: expected a tile or a scalar, got {kind_of(value)}")


def apply_op(builder: Builder, op: str, scalars: Sequence[Value], dtype: Type) -> Value:
    """The one ``arith`` op of ``op`` on scalars already of ``dtype``.

    >>> context = TileContext.scratch()
    >>> one = to_value(context, 1.0, f32)
    >>> apply_op(context.builder, "<", [one, one], f32).defining_op().name
    'arith.cmpf'
    """
    lhs, rhs = scalars
    if op in _FLOAT_COMPARE:
        if is_float(dtype):
            return builder.insert(arith.CmpFOp.build(_FLOAT_COMPARE[op], lhs, rhs)).result
        return builder.insert(arith.CmpIOp.build(_INT_COMPARE[op], lhs, rhs)).result
    table = _FLOAT_OPS if is_float(dtype) else _INT_OPS
    if op not in table:
        raise TileError(f"'{op}': not defined on {dtype} operands")
    return builder.insert(table[op].build(lhs, rhs)).result


def _pointer_arithmetic(context: TileContext, op: str, lhs: object, rhs: object) -> Pointer:
    """``pointer + offsets`` (either order) or ``pointer - offsets``."""
    pointer, offsets = (lhs, rhs) if isinstance(lhs, Pointer) else (rhs, lhs)
    if op not in ("+", "-") or (op == "-" and not isinstance(lhs, Pointer)):
        raise TileError(f"'{op}': a pointer only takes '+' or '-' of integer offsets")
    kind = element_type(offsets) if isinstance(offsets, (Tile, Value)) else offsets
    integer_type = isinstance(kind, Type) and is_integer(kind) and kind != i1
    python_int = isinstance(kind, int) and not isinstance(kind, bool)
    if not (integer_type or python_int):
        raise TileError(f"'{op}': expected integer offsets for a pointer, got {kind_of(offsets)}")
    if op == "-":
        offsets = binary(context, "-", 0, offsets)
    if pointer.offsets is None:
        total = to_value(context, offsets, i32)
    else:
        total = binary(context, "+", pointer.offsets, offsets)
    return Pointer(pointer.buffer, total)


def binary(context: TileContext, op: str, lhs: object, rhs: object) -> Operand | Pointer:
    """``lhs <op> rhs`` in a kernel (see the module docstring); ``op`` is ``"+"``,
    ``"<"``, ``"maximum"``, ... .

    >>> from tinycomp.frontend.tile.shaping import arange
    >>> context = TileContext.scratch()
    >>> binary(context, "//", 256, 2), binary(context, "<", arange(context, 0, 8), 5)
    (128, Tile(tensor<8xi1>))
    """
    if isinstance(lhs, Pointer) or isinstance(rhs, Pointer):
        return _pointer_arithmetic(context, op, lhs, rhs)
    for value in (lhs, rhs):
        if not isinstance(value, (Tile, Value, int, float, bool)):
            raise TileError(f"'{op}': expected tiles, scalars or numbers, got {kind_of(value)}")
    if not isinstance(lhs, (Tile, Value)) and not isinstance(rhs, (Tile, Value)):
        if op == "maximum":
            return max(lhs, rhs)
        if op == "minimum":
            return min(lhs, rhs)
        return _PYTHON_OPS[op](lhs, rhs)
    dtype = promote(element_type(lhs), element_type(rhs))
    if op == "/" and not is_float(dtype):
        dtype = f32
    result_type = i1 if op in _FLOAT_COMPARE else dtype
    if not isinstance(lhs, Tile) and not isinstance(rhs, Tile):
        scalars = [to_value(context, v, dtype) for v in (lhs, rhs)]
        context.builder.location = context.location
        return apply_op(context.builder, op, scalars, dtype)
    operands = [v if isinstance(v, Tile) else to_value(context, v, dtype) for v in (lhs, rhs)]

    def body(builder: Builder, scalars: Sequence[Value]) -> Value:
        cast = [scalar_cast(builder, s, dtype) for s in scalars]
        return apply_op(builder, op, cast, dtype)

    return elementwise(_WORDS[op], operands, body, result_type)


def unary(context: TileContext, op: str, x: object) -> Operand:
    """``-x``, ``not x`` and the math functions (``"exp"``, ``"sqrt"``, ...) on a tile or
    a scalar; integer operands of a math function are converted to ``f32`` first.

    >>> from tinycomp.frontend.tile.shaping import arange
    >>> context = TileContext.scratch()
    >>> unary(context, "exp", arange(context, 0, 4)), unary(context, "-", 3)
    (Tile(tensor<4xf32>), -3)
    """
    if not isinstance(x, (Tile, Value, int, float, bool)):
        raise TileError(f"{op}: expected a tile or a scalar, got {kind_of(x)}")
    if op == "-":
        return binary(context, "-", 0, x) if not isinstance(x, (int, float)) else -x
    if op == "not":
        if isinstance(x, (int, float, bool)):
            return not x
        return binary(context, "==", x, False if element_type(x) == i1 else 0)
    if isinstance(x, (int, float, bool)):
        x = to_value(context, x, f32)
    dtype = element_type(x)
    if not is_float(dtype):
        x, dtype = convert(context, x, f32, op), f32
    op_class = _UNARY_MATH[op]
    if isinstance(x, Tile):

        def body(builder: Builder, scalars: Sequence[Value]) -> Value:
            return builder.insert(op_class.build(scalars[0])).result

        return elementwise(op, [x], body, dtype)
    return context.insert(op_class.build(x)).result
