"""Shape ops on traced tensors: ``transpose`` and ``reshape``.

``transpose(x, (1, 0))`` (or ``x.T``) records ``linalg.transpose`` into a fresh
``tensor.empty``; output dimension ``i`` is input dimension ``perm[i]``, as in numpy.

``reshape`` records no data movement: a row-major reshape that only *merges* adjacent
dimensions is ``tensor.collapse_shape``, one that only *splits* dimensions is
``tensor.expand_shape``. Both need a *reassociation*: which dimensions of the larger
shape form each dimension of the smaller one. Steps of ``reassociation``:

1. Walk the larger shape left to right, multiplying sizes into the current group until
   the product equals the next size of the smaller shape; that closes a group.
2. Size-1 dimensions after the last group join it (MLIR allows them in any group).
3. If a product overshoots, or sizes are left over, the reshape is neither a pure
   collapse nor a pure expand (e.g. ``(2, 3) -> (3, 2)``): ``reassociation`` returns
   ``None`` and ``reshape`` raises a ``TraceError``.

>>> reassociation((2, 3, 4), (6, 4))
[[0, 1], [2]]
>>> reassociation((2, 3), (3, 2)) is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tinycomp.dialects.linalg.map_reduce import TransposeOp
from tinycomp.dialects.tensor import EmptyOp
from tinycomp.dialects.tensor.reshape import CollapseShapeOp, ExpandShapeOp
from tinycomp.frontend.tensor import Tensor, trace_error


def transpose(x: Tensor, perm: Sequence[int] | None = None) -> Tensor:
    """``numpy.transpose(x, perm)`` as ``linalg.transpose`` (``perm=None`` reverses).

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(lambda x: transpose(x, (2, 0, 1)), TensorSpec((2, 3, 4)))
    >>> print(m.body.first_op.function_type)
    (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    """
    if not isinstance(x, Tensor):
        raise trace_error("transpose", f"expected a Tensor, got {type(x).__name__}")
    permutation = tuple(reversed(range(x.ndim))) if perm is None else tuple(perm)
    if sorted(permutation) != list(range(x.ndim)) or not all(
        isinstance(p, int) for p in permutation
    ):
        raise trace_error(
            "transpose",
            f"expected a permutation of {tuple(range(x.ndim))} for shape {x.shape}, "
            f"got {permutation}",
        )
    out_shape = tuple(x.shape[p] for p in permutation)
    context = x.context
    empty = context.insert(EmptyOp.build(out_shape, x.dtype)).result
    transposed = context.insert(TransposeOp.build(x.value, empty, permutation)).result
    return context.wrap(transposed, "transposed")


def reassociation(larger: Sequence[int], smaller: Sequence[int]) -> list[list[int]] | None:
    """Groups of ``larger``'s dimensions whose products are ``smaller``'s sizes, or
    ``None`` when no such grouping of adjacent dimensions exists (see steps above).

    >>> reassociation((4, 1), (4,))
    [[0, 1]]
    """
    if not smaller:
        return [] if all(s == 1 for s in larger) else None
    groups: list[list[int]] = []
    position = 0
    for target in smaller:
        group: list[int] = []
        product = 1
        while position < len(larger) and (not group or product < target):
            group.append(position)
            product *= larger[position]
            position += 1
        if product != target:
            return None
        groups.append(group)
    while position < len(larger):
        if larger[position] != 1:
            return None
        groups[-1].append(position)
        position += 1
    return groups


def reshape(x: Tensor, shape: Sequence[int] | int) -> Tensor:
    """``numpy.reshape(x, shape)`` for pure collapses and pure expands (one ``-1`` allowed).

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(lambda x: reshape(x, (2, -1)), TensorSpec((2, 3, 4)))
    >>> print(m.body.first_op.function_type)
    (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    """
    if not isinstance(x, Tensor):
        raise trace_error("reshape", f"expected a Tensor, got {type(x).__name__}")
    requested = (shape,) if isinstance(shape, int) else tuple(shape)
    size = int(np.prod(x.shape))
    if requested.count(-1) == 1:
        known = int(np.prod([s for s in requested if s != -1]))
        if known > 0 and size % known == 0:
            requested = tuple(size // known if s == -1 else s for s in requested)
    if any(not isinstance(s, int) or s < 0 for s in requested) or int(np.prod(requested)) != size:
        raise trace_error(
            "reshape", f"expected a shape with {size} elements for {x.shape}, got {shape}"
        )
    context = x.context
    if requested == x.shape:
        return x
    if len(requested) < x.ndim:
        groups = reassociation(x.shape, requested)
        if groups is not None:
            collapsed = context.insert(CollapseShapeOp.build(x.value, groups)).result
            return context.wrap(collapsed, "collapsed")
    elif len(requested) > x.ndim:
        groups = reassociation(requested, x.shape)
        if groups is not None:
            expanded = context.insert(ExpandShapeOp.build(x.value, groups, requested)).result
            return context.wrap(expanded, "expanded")
    raise trace_error(
        "reshape",
        f"expected a reshape that only merges adjacent dimensions (tensor.collapse_shape) "
        f"or only splits dimensions (tensor.expand_shape), got {x.shape} to {requested}",
    )


__all__ = ["reassociation", "reshape", "transpose"]
