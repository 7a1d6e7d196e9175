"""Reductions (``sum``, ``max``, ``mean``) and ``matmul`` on traced tensors.

A reduction over some axes is a ``linalg.generic`` with one loop per input dimension:
the reduced loops are ``"reduction"`` iterators, the others ``"parallel"``. Its output
starts as the identity of the combining op, written by ``linalg.fill``::

    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
    %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                            affine_map<(d0, d1) -> (d0)>],
                           iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<4x8xf32>) outs(%1 : tensor<4xf32>) { ... arith.addf ... }

Steps of ``reduce``:

1. Normalize ``axis`` (``None`` = all, negative counts from the end); out of range or
   repeated is a ``TraceError``.
2. The output map lists the kept loops; with ``keepdims`` a reduced axis stays as a
   size-1 dimension read at constant index 0.
3. Fill the output with the identity (0 for sum, -inf or the smallest integer for max),
   then combine each input element into it.

``mean`` is ``sum`` divided by the number of reduced elements. ``matmul`` is
``linalg.matmul`` (``linalg.batch_matmul`` for 3-D operands) on a zero-filled output.

>>> normalize_axes(-1, 3), normalize_axes(None, 2)
((2,), (0, 1))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tinycomp.affine import AffineMap, const, dim
from tinycomp.dialects.arith import AddFOp, AddIOp, ConstantOp, MaximumFOp, MaxSIOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.linalg.named import BatchMatmulOp, FillOp, MatmulOp
from tinycomp.dialects.tensor import EmptyOp
from tinycomp.frontend.elementwise import divide
from tinycomp.frontend.tensor import Tensor, trace_error
from tinycomp.ir import Builder
from tinycomp.ir.type_helpers import bitwidth, is_float
from tinycomp.ir.types import Type
from tinycomp.ir.values import Value

Axes = int | tuple[int, ...] | None
"""What numpy accepts as ``axis``."""


def normalize_axes(axis: Axes, ndim: int, op_name: str = "reduce") -> tuple[int, ...]:
    """``axis`` as sorted non-negative positions; ``TraceError`` when out of range."""
    if axis is None:
        return tuple(range(ndim))
    requested = (axis,) if isinstance(axis, int) else tuple(axis)
    positions = []
    for a in requested:
        if not isinstance(a, int) or not -ndim <= a < ndim:
            raise trace_error(op_name, f"expected axes in [{-ndim}, {ndim}), got {axis}")
        positions.append(a % ndim)
    if len(set(positions)) != len(positions):
        raise trace_error(op_name, f"expected distinct axes, got {axis}")
    return tuple(sorted(positions))


def _identity(kind: str, dtype: Type) -> float | int:
    if kind == "sum":
        return 0.0 if is_float(dtype) else 0
    if is_float(dtype):
        return float("-inf")
    return -(2 ** (bitwidth(dtype) - 1))


def reduce(x: Tensor, kind: str, axis: Axes = None, keepdims: bool = False) -> Tensor:
    """Reduce ``x`` over ``axis`` with ``kind`` = ``"sum"`` or ``"max"`` (see above)."""
    if not isinstance(x, Tensor):
        raise trace_error(kind, f"expected a Tensor, got {type(x).__name__}")
    axes = normalize_axes(axis, x.ndim, kind)
    context = x.context
    out_shape: list[int] = []
    out_exprs = []
    for position, size in enumerate(x.shape):
        if position not in axes:
            out_shape.append(size)
            out_exprs.append(dim(position))
        elif keepdims:
            out_shape.append(1)
            out_exprs.append(const(0))
    identity = context.insert(ConstantOp.build(_identity(kind, x.dtype), x.dtype)).result
    empty = context.insert(EmptyOp.build(tuple(out_shape), x.dtype)).result
    init = context.insert(FillOp.build(identity, empty)).result
    if kind == "sum":
        combine = AddFOp if is_float(x.dtype) else AddIOp
    else:
        combine = MaximumFOp if is_float(x.dtype) else MaxSIOp

    def payload(builder: Builder, arguments: Sequence[Value]) -> list[Value]:
        return [builder.insert(combine.build(arguments[0], arguments[1])).result]

    maps = [AffineMap.identity(x.ndim), AffineMap(x.ndim, 0, out_exprs)]
    iterators = ["reduction" if p in axes else "parallel" for p in range(x.ndim)]
    generic = GenericOp.build([x.value], [init], maps, iterators, payload)
    return context.wrap(context.insert(generic).result, kind)


def sum(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    """``numpy.sum(x, axis, keepdims=keepdims)``."""
    return reduce(x, "sum", axis, keepdims)


def max(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    """``numpy.max(x, axis, keepdims=keepdims)`` (NaN-propagating, like numpy)."""
    return reduce(x, "max", axis, keepdims)


def mean(x: Tensor, axis: Axes = None, keepdims: bool = False) -> Tensor:
    """``numpy.mean(x, axis, keepdims=keepdims)`` for float tensors."""
    if isinstance(x, Tensor) and not is_float(x.dtype):
        raise trace_error("mean", f"expected a float element type, got {x.dtype}")
    total = reduce(x, "sum", axis, keepdims)
    count = int(np.prod([x.shape[a] for a in normalize_axes(axis, x.ndim, "mean")]))
    return divide(total, float(count))


def matmul(lhs: Tensor, rhs: Tensor) -> Tensor:
    """``lhs @ rhs`` into a zero-filled output: ``linalg.matmul`` for 2-D operands,
    ``linalg.batch_matmul`` for 3-D ones (``(B, M, K) @ (B, K, N)``, equal batches)."""
    for operand in (lhs, rhs):
        if not isinstance(operand, Tensor):
            raise trace_error("matmul", f"expected Tensor operands, got {type(operand).__name__}")
    if (lhs.ndim, rhs.ndim) not in ((2, 2), (3, 3)):
        raise trace_error(
            "matmul",
            f"expected 2-D or 3-D operands of one rank, got shapes {lhs.shape} and {rhs.shape}",
        )
    batched = lhs.ndim == 3
    if batched and lhs.shape[0] != rhs.shape[0]:
        raise trace_error(
            "matmul",
            f"expected equal batch sizes, got shapes {lhs.shape} and {rhs.shape}",
        )
    if lhs.shape[-1] != rhs.shape[-2]:
        raise trace_error(
            "matmul",
            f"expected lhs columns to equal rhs rows, got shapes {lhs.shape} and {rhs.shape}",
        )
    if lhs.dtype != rhs.dtype:
        raise trace_error(
            "matmul", f"expected operands of one element type, got {lhs.dtype} and {rhs.dtype}"
        )
    context = lhs.context
    zero = context.insert(ConstantOp.build(_identity("sum", lhs.dtype), lhs.dtype)).result
    out_shape = (*lhs.shape[:-1], rhs.shape[-1])
    empty = context.insert(EmptyOp.build(out_shape, lhs.dtype)).result
    init = context.insert(FillOp.build(zero, empty)).result
    op_class = BatchMatmulOp if batched else MatmulOp
    product = context.insert(op_class.build(lhs.value, rhs.value, init)).result
    return context.wrap(product, "matmul")


__all__ = ["matmul", "max", "mean", "normalize_axes", "reduce", "sum"]
