"""Elementwise ops on traced tensors, each one ``linalg.generic`` with parallel loops.

``add(x, w)`` for ``x: 4x8`` and ``w: 8`` records::

    %0 = tensor.empty() : tensor<4x8xf32>
    %add = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                            affine_map<(d0, d1) -> (d1)>,
                                            affine_map<(d0, d1) -> (d0, d1)>],
                           iterator_types = ["parallel", "parallel"]}
        ins(%x, %w : tensor<4x8xf32>, tensor<8xf32>) outs(%0 : tensor<4x8xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %1 = arith.addf %in, %in_0 : f32
      linalg.yield %1 : f32
    } -> tensor<4x8xf32>

How an op is built:

1. Turn Python numbers into ``arith.constant`` scalars of the tensor operand's element
   type (defined before the generic and used inside its body: linalg.generic is not
   isolated from above, so its payload may capture outer values).
2. Broadcast the tensor shapes with numpy's rules (``broadcast_shapes``); a mismatch is a
   ``TraceError`` naming both shapes.
3. One loop per output dimension. Each input's indexing map aligns its dimensions
   to the right (missing leading dimensions simply do not appear in the map) and reads
   a size-1 dimension that is broadcast at constant index 0 (``broadcast_map``).
4. The output is a fresh ``tensor.empty`` passed as ``outs``; the payload applies the
   scalar op to the block arguments and yields the result.

>>> broadcast_shapes((4, 1), (3,))
(4, 3)
>>> print(broadcast_map((4, 1), (2, 4, 3)))
(d0, d1, d2) -> (d1, 0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tinycomp.affine import AffineMap, const, dim
from tinycomp.dialects.arith import (
    AddFOp,
    AddIOp,
    ConstantOp,
    DivFOp,
    DivSIOp,
    MaximumFOp,
    MaxSIOp,
    MulFOp,
    MulIOp,
    NegFOp,
    SubFOp,
    SubIOp,
)
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.math import ExpOp, LogOp, RsqrtOp, SqrtOp, TanhOp
from tinycomp.dialects.tensor import EmptyOp
from tinycomp.frontend.tensor import Tensor, trace_error
from tinycomp.ir import Builder
from tinycomp.ir.type_helpers import is_float, is_integer
from tinycomp.ir.types import Type
from tinycomp.ir.values import Value

ScalarBody = Callable[[Builder, Sequence[Value]], Value]
"""Builds the payload's scalar computation from the operands' block arguments."""


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...] | None:
    """numpy's broadcast of ``shapes``, or ``None`` when they do not broadcast.

    >>> broadcast_shapes((2, 1, 5), (3, 1)), broadcast_shapes((2,), (3,))
    ((2, 3, 5), None)
    """
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for position in range(rank):
        sizes = {s[position - rank + len(s)] for s in shapes if position - rank + len(s) >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            return None
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def broadcast_map(shape: tuple[int, ...], out_shape: tuple[int, ...]) -> AffineMap:
    """The indexing map reading an operand of ``shape`` inside loops over ``out_shape``.

    >>> print(broadcast_map((8,), (4, 8)))
    (d0, d1) -> (d1)
    """
    offset = len(out_shape) - len(shape)
    results = [
        const(0) if size == 1 and out_shape[offset + i] != 1 else dim(offset + i)
        for i, size in enumerate(shape)
    ]
    return AffineMap(len(out_shape), 0, results)


def elementwise(
    op_name: str, operands: Sequence[Tensor | Value], body: ScalarBody, result_type: Type
) -> Tensor:
    """The generic op computing ``body`` on each element of the broadcast ``operands``.

    Scalar ``Value`` operands (already built constants) are captured into the payload;
    the result's element type is ``result_type``.
    """
    tensors = [t for t in operands if isinstance(t, Tensor)]
    context = tensors[0].context
    out_shape = broadcast_shapes(*(t.shape for t in tensors))
    if out_shape is None:
        shapes = " and ".join(str(t.shape) for t in tensors)
        raise trace_error(op_name, f"expected broadcastable shapes, got {shapes}")
    empty = context.insert(EmptyOp.build(out_shape, result_type)).result
    maps = [broadcast_map(t.shape, out_shape) for t in tensors]
    maps.append(AffineMap.identity(len(out_shape)))

    def payload(builder: Builder, arguments: Sequence[Value]) -> list[Value]:
        tensor_arguments = iter(arguments[: len(tensors)])
        scalars = [next(tensor_arguments) if isinstance(v, Tensor) else v for v in operands]
        return [body(builder, scalars)]

    generic = GenericOp.build(
        [t.value for t in tensors], [empty], maps, ["parallel"] * len(out_shape), payload
    )
    return context.wrap(context.insert(generic).result, op_name)


def _operands(op_name: str, lhs, rhs) -> tuple[Tensor | Value, Tensor | Value, Type]:
    """Check the two operands of a binary op; turn a Python number into a constant."""
    tensors = [v for v in (lhs, rhs) if isinstance(v, Tensor)]
    if not tensors:
        raise trace_error(op_name, "expected at least one traced Tensor operand")
    for value in (lhs, rhs):
        if not isinstance(value, (Tensor, int, float)):
            raise trace_error(
                op_name, f"expected a Tensor or a Python number, got {type(value).__name__}"
            )
    dtype = tensors[0].dtype
    if len(tensors) == 2 and tensors[1].dtype != dtype:
        raise trace_error(
            op_name, f"expected operands of one element type, got {dtype} and {tensors[1].dtype}"
        )

    def as_operand(value) -> Tensor | Value:
        if isinstance(value, Tensor):
            return value
        if is_integer(dtype) and not float(value).is_integer():
            raise trace_error(op_name, f"expected an integer for a {dtype} tensor, got {value}")
        number = float(value) if is_float(dtype) else int(value)
        return tensors[0].context.insert(ConstantOp.build(number, dtype)).result

    return as_operand(lhs), as_operand(rhs), dtype


def _binary(op_name: str, lhs, rhs, float_op, int_op) -> Tensor:
    a, b, dtype = _operands(op_name, lhs, rhs)
    op_class = float_op if is_float(dtype) else int_op
    if op_class is None:
        raise trace_error(op_name, f"expected a float element type, got {dtype}")

    def body(builder: Builder, scalars: Sequence[Value]) -> Value:
        return builder.insert(op_class.build(scalars[0], scalars[1])).result

    return elementwise(op_name, [a, b], body, dtype)


def add(lhs: Tensor | float, rhs: Tensor | float) -> Tensor:
    """``lhs + rhs`` with broadcasting (``arith.addf`` / ``arith.addi``)."""
    return _binary("add", lhs, rhs, AddFOp, AddIOp)


def subtract(lhs: Tensor | float, rhs: Tensor | float) -> Tensor:
    """``lhs - rhs`` with broadcasting (``arith.subf`` / ``arith.subi``)."""
    return _binary("sub", lhs, rhs, SubFOp, SubIOp)


def multiply(lhs: Tensor | float, rhs: Tensor | float) -> Tensor:
    """``lhs * rhs`` with broadcasting (``arith.mulf`` / ``arith.muli``)."""
    return _binary("mul", lhs, rhs, MulFOp, MulIOp)


def divide(lhs: Tensor | float, rhs: Tensor | float) -> Tensor:
    """``lhs / rhs`` with broadcasting (``arith.divf``; ``arith.divsi`` for integers)."""
    return _binary("div", lhs, rhs, DivFOp, DivSIOp)


def maximum(lhs: Tensor | float, rhs: Tensor | float) -> Tensor:
    """numpy's ``maximum`` (NaN-propagating ``arith.maximumf``; ``arith.maxsi``).

    ``maximum(x, 0.0)`` is a ReLU.
    """
    return _binary("maximum", lhs, rhs, MaximumFOp, MaxSIOp)


def _unary(op_name: str, x: Tensor, op_class) -> Tensor:
    if not isinstance(x, Tensor):
        raise trace_error(op_name, f"expected a Tensor, got {type(x).__name__}")
    if not is_float(x.dtype):
        raise trace_error(op_name, f"expected a float element type, got {x.dtype}")

    def body(builder: Builder, scalars: Sequence[Value]) -> Value:
        return builder.insert(op_class.build(scalars[0])).result

    return elementwise(op_name, [x], body, x.dtype)


def exp(x: Tensor) -> Tensor:
    """Elementwise ``e ** x`` (``math.exp``)."""
    return _unary("exp", x, ExpOp)


def log(x: Tensor) -> Tensor:
    """Elementwise natural logarithm (``math.log``)."""
    return _unary("log", x, LogOp)


def sqrt(x: Tensor) -> Tensor:
    """Elementwise square root (``math.sqrt``)."""
    return _unary("sqrt", x, SqrtOp)


def rsqrt(x: Tensor) -> Tensor:
    """Elementwise ``1 / sqrt(x)`` (``math.rsqrt``)."""
    return _unary("rsqrt", x, RsqrtOp)


def tanh(x: Tensor) -> Tensor:
    """Elementwise hyperbolic tangent (``math.tanh``)."""
    return _unary("tanh", x, TanhOp)


def negative(x: Tensor) -> Tensor:
    """Elementwise ``-x`` (``arith.negf``)."""
    return _unary("neg", x, NegFOp)


__all__ = [
    "add",
    "broadcast_map",
    "broadcast_shapes",
    "divide",
    "elementwise",
    "exp",
    "log",
    "maximum",
    "multiply",
    "negative",
    "rsqrt",
    "sqrt",
    "subtract",
    "tanh",
]
