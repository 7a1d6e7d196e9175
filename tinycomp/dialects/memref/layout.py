"""Layout arithmetic for memref views: the result types of subview, collapse and expand.

A memref with a strided layout finds element ``(i, j)`` at
``offset + i * strides[0] + j * strides[1]``. Views compute new strides and offsets
without copying, and the verifier checks the result type the text claims against them.
Sizes, strides and offsets are ``int``s or ``DYNAMIC`` (``None``); any arithmetic with a
dynamic value is dynamic (``mul``, ``add``).

**subview** ``[offsets] [sizes] [strides]`` of a source with strides ``S`` and offset ``o``:

* result sizes are ``sizes``; result strides are ``S[i] * strides[i]``;
* result offset is ``o + sum(offsets[i] * S[i])``;
* the result may drop dimensions of size 1 ("rank-reduced"), keeping the others' strides;
* a static window must stay inside the source (``slice_bounds_problem``, shared with
  ``tensor.extract_slice`` and kept here under its old name too).

>>> from tinycomp.ir import MemRefType, f32
>>> print(subview_type(MemRefType((8, 8), f32), (2, None), (4, 4), (1, 2)))
memref<4x4xf32, strided<[8, 2], offset: ?>>

**collapse_shape** merges groups of adjacent dimensions (they must be contiguous in
memory); **expand_shape** splits dimensions (the shape rules, ``reshape_shape_problem``,
are shared with tensor's reshapes in ``reassociation.py``). With an identity layout the
result has an identity layout too; otherwise its strides are worked out like MLIR's
``computeCollapsedLayoutMap`` / ``computeExpandedLayoutMap``.
"""

from __future__ import annotations

from tinycomp.dialects.common.offsets_sizes_strides import Dims, slice_bounds_problem
from tinycomp.dialects.common.reassociation import Reassociation, reshape_shape_problem
from tinycomp.ir.attributes import StridedLayoutAttr
from tinycomp.ir.type_helpers import strides_and_offset
from tinycomp.ir.types import DYNAMIC, MemRefType


def mul(a: int | None, b: int | None) -> int | None:
    """``a * b``, dynamic if either is.

    >>> mul(4, 2), mul(4, None)
    (8, None)
    """
    return DYNAMIC if a is DYNAMIC or b is DYNAMIC else a * b


def add(a: int | None, b: int | None) -> int | None:
    """``a + b``, dynamic if either is."""
    return DYNAMIC if a is DYNAMIC or b is DYNAMIC else a + b


# -- subview -----------------------------------------------------------------------------------
def subview_type(source: MemRefType, offsets: Dims, sizes: Dims, strides: Dims) -> MemRefType:
    """The full-rank result type of a subview (MLIR's ``SubViewOp::inferResultType``)."""
    source_strides, offset = strides_and_offset(source)
    result_strides = tuple(mul(s, t) for s, t in zip(source_strides, strides, strict=True))
    for source_stride, view_offset in zip(source_strides, offsets, strict=True):
        offset = add(offset, mul(view_offset, source_stride))
    layout = StridedLayoutAttr(result_strides, offset)
    return MemRefType(tuple(sizes), source.element_type, layout, source.memory_space)


def rank_reduction_problem(expected: MemRefType, actual: MemRefType) -> str | None:
    """Why ``actual`` is neither ``expected`` nor ``expected`` with some size-1
    dimensions dropped (``"sizes"``, ``"layout"``, ``"element type"``), or ``None``."""
    if actual.element_type != expected.element_type:
        return "element type"
    try:
        actual_strides, actual_offset = strides_and_offset(actual)
    except ValueError:
        return "layout"
    expected_strides, expected_offset = strides_and_offset(expected)
    expected_dims = list(zip(expected.shape, expected_strides, strict=True))
    actual_dims = list(zip(actual.shape, actual_strides, strict=True))
    if not _match_dropping_unit_dims([s for s, _ in expected_dims], [s for s, _ in actual_dims]):
        return "sizes"
    if not _match_dropping_unit_dims(expected_dims, actual_dims):
        return "layout"
    if actual_offset != expected_offset:
        return "layout"
    return None


def _match_dropping_unit_dims(expected: list, actual: list) -> bool:
    """Can ``actual`` be ``expected`` with some entries of size 1 left out? Entries are
    sizes or ``(size, stride)`` pairs; tries every choice (ranks are small)."""
    if not actual:
        return all(_size(e) == 1 for e in expected)
    if not expected:
        return False
    head, rest = expected[0], expected[1:]
    if head == actual[0] and _match_dropping_unit_dims(rest, actual[1:]):
        return True
    return _size(head) == 1 and _match_dropping_unit_dims(rest, actual)


def _size(entry) -> int | None:
    return entry[0] if isinstance(entry, tuple) else entry


# -- collapse_shape / expand_shape --------------------------------------------------------------
def collapsed_type(
    source: MemRefType, result_shape: Dims, reassociation: Reassociation
) -> MemRefType | None:
    """The type ``collapse_shape`` must produce, or ``None`` when a group is not
    contiguous in memory (or the source layout is not strided).

    1. An identity layout stays an identity layout.
    2. Each group's stride is the stride of its innermost dimension of size other than 1
       (dynamic if that dimension's size is dynamic and the group has several).
    3. Walking each group from the inside out, every dimension's stride must be the
       inner stride times the inner size (dimensions of size 1 and dynamic values are
       not checked), or the group is not contiguous.
    """
    if source.layout is None:
        return MemRefType(tuple(result_shape), source.element_type, None, source.memory_space)
    try:
        strides, offset = strides_and_offset(source)
    except ValueError:
        return None
    shape = source.shape
    result_strides: list[int | None] = []
    for group in reassociation:  # each group takes the stride of its innermost real dim
        kept = list(group)
        while len(kept) > 1 and shape[kept[-1]] == 1:
            kept.pop()
        if shape[kept[-1]] is not DYNAMIC or len(kept) == 1:
            result_strides.append(strides[kept[-1]])
        else:
            result_strides.append(DYNAMIC)
    for position, group in enumerate(reassociation):  # each group must be contiguous
        stride = result_strides[position]
        for dim in reversed(group[1:]):
            stride = mul(stride, shape[dim])
            if shape[dim - 1] == 1:
                continue
            if stride is not DYNAMIC and strides[dim - 1] is not DYNAMIC:
                if stride != strides[dim - 1]:
                    return None
    layout = StridedLayoutAttr(tuple(result_strides), offset)
    return MemRefType(tuple(result_shape), source.element_type, layout, source.memory_space)


def expanded_type(
    source: MemRefType, result_shape: Dims, reassociation: Reassociation
) -> MemRefType | None:
    """The type ``expand_shape`` must produce, or ``None`` for a non-strided source."""
    if source.layout is None:
        return MemRefType(tuple(result_shape), source.element_type, None, source.memory_space)
    try:
        strides, offset = strides_and_offset(source)
    except ValueError:
        return None
    result_strides: list[int | None] = [0] * len(result_shape)
    for source_dim, group in enumerate(reassociation):
        stride = strides[source_dim]  # the innermost new dim keeps the old stride
        for dim in reversed(group):
            result_strides[dim] = stride
            stride = mul(stride, result_shape[dim])
    layout = StridedLayoutAttr(tuple(result_strides), offset)
    return MemRefType(tuple(result_shape), source.element_type, layout, source.memory_space)


__all__ = [
    "Dims",
    "Reassociation",
    "add",
    "collapsed_type",
    "expanded_type",
    "mul",
    "rank_reduction_problem",
    "reshape_shape_problem",
    "slice_bounds_problem",
    "subview_type",
]
