"""The builtins that compute on tiles: making them, math, reductions, ``dot``.

Each builds linalg on tensors: ``zeros``/``full`` a ``linalg.generic`` that yields the
value, ``dot`` a ``linalg.matmul`` accumulating in ``f32`` (into ``acc``, or a
``linalg.fill`` of zeros), the reductions a ``linalg.generic`` with one ``reduction``
loop into a filled accumulator, the math functions and ``where`` elementwise
``linalg.generic``s (``arithmetic.py``).

>>> cdiv(1000, 256), cdiv(1024, 256)
(4, 4)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import AffineMap, dim
from tinycomp.dialects.arith import ConstantOp, SelectOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.linalg.named import FillOp, MatmulOp
from tinycomp.dialects.tensor import EmptyOp
from tinycomp.frontend.elementwise import elementwise
from tinycomp.frontend.shapes import transpose
from tinycomp.frontend.tile import arithmetic
from tinycomp.frontend.tile.arithmetic import element_type, promote, scalar_cast
from tinycomp.frontend.tile.builtin import Builtin
from tinycomp.frontend.tile.shaping import arange as build_arange
from tinycomp.frontend.tile.shaping import broadcast_to, normalize_shape
from tinycomp.frontend.tile.values import Tile, TileContext, TileError, kind_of
from tinycomp.frontend.tracer import ir_element_type
from tinycomp.ir import Builder
from tinycomp.ir.type_helpers import bitwidth, is_float
from tinycomp.ir.types import Type, f32, i1
from tinycomp.ir.values import Value

__all__ = [
    "abs", "arange", "cast", "cdiv", "dot", "exp", "full", "log", "max", "maximum", "min",
    "minimum", "rsqrt", "sqrt", "sum", "trans", "where", "zeros",
]  # fmt: skip


def cdiv(a: int, b: int) -> int:
    """``ceil(a / b)`` for positive ints: how many blocks of ``b`` cover ``a``."""
    return (a + b - 1) // b


def _cdiv(context: TileContext, a: object, b: object) -> object:
    """``tile.cdiv(a, b)``: ``(a + b - 1) // b`` on ints or scalars."""
    total = arithmetic.binary(context, "+", a, arithmetic.binary(context, "-", b, 1))
    return arithmetic.binary(context, "//", total, b)


def _dtype(dtype: object, op_name: str) -> Type:
    try:
        return ir_element_type(dtype)
    except Exception as error:
        raise TileError(
            f"{op_name}: expected a dtype such as tile.float32, got {dtype!r}"
        ) from error


def _zeros(context: TileContext, shape: object, dtype: object = f32) -> Tile:
    """``tile.zeros(shape, dtype)``: a tile of zeros."""
    return broadcast_to(
        context, 0, normalize_shape(shape, "zeros"), _dtype(dtype, "zeros"), "zeros"
    )


def _full(context: TileContext, shape: object, value: object, dtype: object = None) -> Tile:
    """``tile.full(shape, value, dtype)``: a tile whose every element is ``value``."""
    if dtype is None:
        kind = element_type(value) if not isinstance(value, (int, float)) else value
        dtype = kind if isinstance(kind, Type) else promote(kind, kind)
    return broadcast_to(
        context, value, normalize_shape(shape, "full"), _dtype(dtype, "full"), "full"
    )


def _cast(context: TileContext, x: object, dtype: object) -> object:
    """``tile.cast(x, dtype)`` (also ``x.to(dtype)``): convert elementwise."""
    return arithmetic.convert(context, x, _dtype(dtype, "cast"), "cast")


def _dot(context: TileContext, a: object, b: object, acc: object = None) -> Tile:
    """``tile.dot(a, b, acc=None)``: ``a @ b`` for 2-D tiles (``f16``, ``bf16`` or
    ``f32``), accumulated in ``f32`` (``linalg.matmul``), added to ``acc`` if given."""
    for operand in (a, b):
        if not isinstance(operand, Tile) or operand.ndim != 2:
            raise TileError(f"dot: expected 2-D tiles, got {kind_of(operand)}")
    if a.shape[1] != b.shape[0]:
        raise TileError(
            f"dot: expected the inner sizes to match, got {a.shape} @ {b.shape} "
            f"({a.shape[1]} != {b.shape[0]})"
        )
    if a.dtype != b.dtype or not is_float(a.dtype):
        raise TileError(f"dot: expected two float tiles of one type, got {a.dtype} and {b.dtype}")
    out_shape = (a.shape[0], b.shape[1])
    if acc is None:
        zero = context.insert(ConstantOp.build(0.0, f32)).result
        empty = context.insert(EmptyOp.build(out_shape, f32)).result
        init = context.insert(FillOp.build(zero, empty)).result
    elif isinstance(acc, Tile) and acc.shape == out_shape and acc.dtype == f32:
        init = acc.value
    else:
        raise TileError(
            f"dot: expected acc to be tensor<{out_shape[0]}x{out_shape[1]}xf32>, got {kind_of(acc)}"
        )
    product = context.insert(MatmulOp.build(a.value, b.value, init)).result
    return context.wrap(product, "dot")


_IDENTITIES = {"sum": 0.0, "max": float("-inf"), "min": float("inf")}
_COMBINE = {"sum": "+", "max": "maximum", "min": "minimum"}


def _identity(kind: str, dtype: Type) -> float | int:
    if is_float(dtype):
        return _IDENTITIES[kind]
    width = bitwidth(dtype)
    return {"sum": 0, "max": -(2 ** (width - 1)), "min": 2 ** (width - 1) - 1}[kind]


def _reduce(context: TileContext, kind: str, x: object, axis: object) -> Tile:
    """``tile.sum/max/min(x, axis)``: reduce ``axis`` away (``None``: all of them)."""
    if not isinstance(x, Tile):
        raise TileError(f"{kind}: expected a tile, got {kind_of(x)}")
    if axis is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axis, int) and -x.ndim <= axis < x.ndim:
        axes = (axis % x.ndim,)
    else:
        raise TileError(
            f"{kind}: expected an axis in [{-x.ndim}, {x.ndim}) for the "
            f"{x.ndim}-D tile, got {axis!r}"
        )
    kept = [p for p in range(x.ndim) if p not in axes]
    out_shape = tuple(x.shape[p] for p in kept)
    identity = context.insert(ConstantOp.build(_identity(kind, x.dtype), x.dtype)).result
    empty = context.insert(EmptyOp.build(out_shape, x.dtype)).result
    init = context.insert(FillOp.build(identity, empty)).result

    def payload(builder: Builder, arguments: Sequence[Value]) -> list[Value]:
        combined = arithmetic.apply_op(builder, _COMBINE[kind], arguments, x.dtype)
        return [combined]

    maps = [AffineMap.identity(x.ndim), AffineMap(x.ndim, 0, [dim(p) for p in kept])]
    iterators = ["reduction" if p in axes else "parallel" for p in range(x.ndim)]
    generic = GenericOp.build([x.value], [init], maps, iterators, payload)
    return context.wrap(context.insert(generic).result, kind)


def _where(context: TileContext, condition: object, x: object, y: object) -> object:
    """``tile.where(condition, x, y)``: ``x`` where ``condition`` holds, else ``y``."""
    condition_type = element_type(condition)
    if condition_type != i1 and not isinstance(condition, bool):
        raise TileError(f"where: expected an i1 condition, got {kind_of(condition)}")
    dtype = promote(element_type(x), element_type(y))
    operands = [
        arithmetic.to_value(context, v, i1 if k == 0 else dtype)
        for k, v in enumerate((condition, x, y))
    ]
    if not any(isinstance(v, Tile) for v in operands):
        context.builder.location = context.location
        return context.insert(SelectOp.build(*operands)).result

    def body(builder: Builder, scalars: Sequence[Value]) -> Value:
        chosen = [scalars[0]] + [scalar_cast(builder, s, dtype) for s in scalars[1:]]
        return builder.insert(SelectOp.build(*chosen)).result

    return elementwise("where", operands, body, dtype)


def _trans(context: TileContext, x: object) -> Tile:
    """``tile.trans(x)``: the transpose of a 2-D tile (``linalg.transpose``)."""
    if not isinstance(x, Tile) or x.ndim != 2:
        raise TileError(f"trans: expected a 2-D tile, got {kind_of(x)}")
    return transpose(x, (1, 0))


def _math(name: str) -> Builtin:
    def implementation(context: TileContext, x: object) -> object:
        return arithmetic.unary(context, name, x)

    implementation.__doc__ = f"``tile.{name}(x)``: elementwise ``math.{name}``."
    return Builtin(name, implementation)


def _binary(name: str) -> Builtin:
    def implementation(context: TileContext, a: object, b: object) -> object:
        return arithmetic.binary(context, name, a, b)

    implementation.__doc__ = f"``tile.{name}(a, b)``: elementwise {name} (NaN-propagating)."
    return Builtin(name, implementation)


def _reduction(kind: str) -> Builtin:
    def implementation(context: TileContext, x: object, axis: object = None) -> Tile:
        return _reduce(context, kind, x, axis)

    implementation.__doc__ = _reduce.__doc__
    return Builtin(kind, implementation)


arange = Builtin("arange", build_arange)
zeros = Builtin("zeros", _zeros)
full = Builtin("full", _full)
cast = Builtin("cast", _cast)
dot = Builtin("dot", _dot)
where = Builtin("where", _where)
trans = Builtin("trans", _trans)
cdiv = Builtin("cdiv", _cdiv, host=cdiv)
sum = _reduction("sum")  # noqa: A001 (named as Triton's)
max = _reduction("max")  # noqa: A001
min = _reduction("min")  # noqa: A001
exp, log, sqrt, rsqrt, abs = (_math(n) for n in ("exp", "log", "sqrt", "rsqrt", "abs"))  # noqa: A001
maximum, minimum = _binary("maximum"), _binary("minimum")
