"""The window ``[offsets] [sizes] [strides]`` that views and slices take.

``memref.subview``, ``memref.reinterpret_cast``, ``tensor.extract_slice`` and
``tensor.insert_slice`` all select a strided, rectangular window: per dimension, the
elements ``offset + k * stride`` for ``k`` in ``[0, size)``. Each of the three lists
mixes constants and ``index`` values (``mixed_indices.py``); MLIR gives these ops one
interface, ``OffsetSizeAndStrideOpInterface``, and tinycomp one base class,
``OffsetsSizesStridesOp``. It stores the lists as MLIR does:

* ``static_offsets``, ``static_sizes``, ``static_strides``: ``array<i64: ...>`` with
  ``DYNAMIC_INDEX`` where the entry is a value;
* the operands ``[*leading, *offsets, *sizes, *strides]``, split by
  ``operandSegmentSizes = array<i32: 1, n_offsets, n_sizes, n_strides>`` (two leading
  1s for ``insert_slice``, which has a source and a destination).

The subclasses add their own types and syntax around the lists. The checks every window
gets, as in MLIR: offsets and sizes are not negative, and a fully static window stays
inside the static dimensions it reads (``slice_bounds_problem``).

>>> from tinycomp.ir import Block, RankedTensorType, f32, index
>>> from tinycomp.dialects.tensor import ExtractSliceOp
>>> t, i = Block([RankedTensorType((8, 16), f32), index]).arguments
>>> op = ExtractSliceOp.build(t, [i, 0], [4, 8])
>>> op.offsets == [i, 0], op.static_list(1), op.static_list(2)
(True, (4, 8), (1, 1))
>>> print(op.attributes["operandSegmentSizes"])
array<i32: 1, 1, 0, 0>
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tinycomp.dialects.common.mixed_indices import (
    MixedIndex,
    check_index_list,
    join_mixed,
    parse_index_list,
    print_index_list,
    split_mixed,
    static_or_dynamic,
)
from tinycomp.dialects.common.operand_segments import (
    SEGMENTS,
    check_segments,
    segment,
    segment_sizes,
)
from tinycomp.ir.attributes import Attribute
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import DYNAMIC
from tinycomp.ir.values import Value

STATIC_LISTS = ("static_offsets", "static_sizes", "static_strides")
"""The attributes of the three lists, in order."""

Dims = Sequence[int | None]
"""Sizes, strides or offsets, one per dimension, ``None`` where dynamic."""


class OffsetsSizesStridesOp(Operation):
    """Base of the ops with a window ``[offsets] [sizes] [strides]`` (module docstring)."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = (SEGMENTS, *STATIC_LISTS)
    num_leading_operands: ClassVar[int] = 1
    """Operands before the dynamic offsets (the source, and the destination if any)."""

    @classmethod
    def window_attributes(
        cls,
        offsets: Sequence[MixedIndex],
        sizes: Sequence[MixedIndex],
        strides: Sequence[MixedIndex],
    ) -> tuple[dict[str, Attribute], list[Value]]:
        """The ``static_*`` attributes and ``operandSegmentSizes`` for these lists, and
        the dynamic values that follow the leading operands."""
        attributes: dict[str, Attribute] = {}
        dynamic_operands: list[Value] = []
        counts = []
        for name, entries in zip(STATIC_LISTS, (offsets, sizes, strides), strict=True):
            static, dynamic = split_mixed(entries)
            attributes[name] = static
            dynamic_operands += dynamic
            counts.append(len(dynamic))
        attributes[SEGMENTS] = segment_sizes(*[1] * cls.num_leading_operands, *counts)
        return attributes, dynamic_operands

    @property
    def source(self) -> Value:
        """The first operand: the memref or tensor the window is in (for
        ``insert_slice``, the slice written into the destination)."""
        return self.operands[0]

    def mixed_list(self, position: int) -> list[MixedIndex]:
        """Offsets (0), sizes (1) or strides (2) as a list of ints and values."""
        check_segments(self, self.num_leading_operands + 3)
        values = segment(self, self.num_leading_operands + position)
        return join_mixed(self.attributes[STATIC_LISTS[position]], values)

    def static_list(self, position: int) -> tuple[int | None, ...]:
        """Offsets (0), sizes (1) or strides (2), with ``None`` where dynamic."""
        return static_or_dynamic(self.attributes[STATIC_LISTS[position]])

    @property
    def offsets(self) -> list[MixedIndex]:
        """Where the window starts in each dimension."""
        return self.mixed_list(0)

    @property
    def sizes(self) -> list[MixedIndex]:
        """The window's size in each dimension (before any rank reduction)."""
        return self.mixed_list(1)

    @property
    def strides(self) -> list[MixedIndex]:
        """The step between window elements in each dimension."""
        return self.mixed_list(2)

    # -- checks ------------------------------------------------------------------------------
    def verify_window(self, lengths: Sequence[int]) -> None:
        """Check the segments and the three lists (``lengths`` entries each), then that
        no static offset or size is negative."""
        leading = self.num_leading_operands
        segments = check_segments(self, leading + 3)
        if list(segments[:leading]) != [1] * leading:
            raise self.error(
                f"expected '{SEGMENTS}' to start with {leading} 1s (one per tensor or memref "
                f"operand), got {self.attributes[SEGMENTS]}"
            )
        for position, (name, length) in enumerate(zip(STATIC_LISTS, lengths, strict=True)):
            what = name.removeprefix("static_")
            dynamic = segment(self, leading + position)
            check_index_list(self, self.attributes.get(name), dynamic, what, length)
        for position, what in enumerate(("offsets", "sizes")):
            for value in self.static_list(position):
                if value is not DYNAMIC and value < 0:
                    raise self.error(f"expected {what} to be non-negative, but got {value}")

    def verify_in_bounds(self, shape: Dims) -> None:
        """A static window must stay inside the static dimensions of ``shape``."""
        problem = slice_bounds_problem(shape, *(self.static_list(i) for i in range(3)))
        if problem:
            raise self.error(problem)

    # -- syntax ------------------------------------------------------------------------------
    def print_window(self, printer: Printer, separators: Sequence[str] = ("", " ", " ")) -> None:
        """``[%i, 0] [4, 4] [1, 1]``, each list after its separator."""
        for position, (name, separator) in enumerate(zip(STATIC_LISTS, separators, strict=True)):
            printer.write(separator)
            dynamic = segment(self, self.num_leading_operands + position)
            print_index_list(printer, self.attributes[name], dynamic)

    @classmethod
    def parse_window(
        cls, parser: Parser, keywords: Sequence[str] = ("", "", "")
    ) -> tuple[dict[str, Attribute], list[Value]]:
        """Read the three lists, each after its keyword if it has one (``sizes: [...]``,
        the keywords separated by commas); returns what ``window_attributes`` does."""
        lists = []
        for position, keyword in enumerate(keywords):
            if keyword:
                if position:
                    parser.parse_punct(",")
                parser.parse_keyword(keyword)
                parser.parse_punct(":")
            static, dynamic = parse_index_list(parser)
            lists.append(join_mixed(static, dynamic))
        return cls.window_attributes(*lists)


def slice_bounds_problem(shape: Dims, offsets: Dims, sizes: Dims, strides: Dims) -> str | None:
    """Why a static window reaches outside a static dimension, or ``None`` (MLIR's
    ``verifyInBoundsSlice``: an offset must lie inside a static dimension even when the
    size is 0; the last element is ``offset + (size - 1) * stride``).

    >>> slice_bounds_problem((8,), (6,), (2,), (2,))
    'slice along dimension 0 runs out-of-bounds: 8 >= 8'
    >>> slice_bounds_problem((8,), (8,), (0,), (1,))
    'offset 0 is out-of-bounds: 8 >= 8'
    """
    for i, size in enumerate(shape):
        if size is DYNAMIC or offsets[i] is DYNAMIC:
            continue
        if offsets[i] >= size:
            return f"offset {i} is out-of-bounds: {offsets[i]} >= {size}"
        if sizes[i] is DYNAMIC or strides[i] is DYNAMIC:
            continue
        last = offsets[i] + max(0, sizes[i] - 1) * strides[i]
        if last >= size:
            return f"slice along dimension {i} runs out-of-bounds: {last} >= {size}"
    return None


__all__ = ["STATIC_LISTS", "Dims", "OffsetsSizesStridesOp", "slice_bounds_problem"]
