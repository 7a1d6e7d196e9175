"""``StructuredOp``: what every linalg op shares, and what every later pass asks of it.

A linalg op is a loop nest described as data. It reads its ``inputs`` and writes its
``outputs`` (``ins(...) outs(...)``); it has ``num_loops`` loops, each ``parallel`` or
``reduction`` (``iterator_types()``); operand ``i`` is indexed by the loops through
``indexing_maps()[i]``; and its **payload** (``body``) computes one element from one
scalar per operand (block arguments: the inputs' elements, then the outputs').
``linalg.matmul`` is::

    for m, n, k:                        # iterator types: parallel, parallel, reduction
        C[m, n] = C[m, n] + A[m, k] * B[k, n]
                                        # maps: (m,n,k)->(m,k), (m,n,k)->(k,n), (m,n,k)->(m,n)

On tensors an op returns one new tensor per output (``-> tensor<...>``); on memrefs it
writes the buffers in place and returns nothing. Named ops (``linalg.matmul``) derive
their maps from their definition; ``linalg.generic`` stores them. Every op of this
dialect carries its payload as a region (named ops build it themselves and do not
print it, like MLIR), so fusion, tiling and the interpreter treat all of them alike,
and ``generalize()`` turns any of them into the equivalent ``linalg.generic``.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
...                          %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
...   %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
...                      outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
...   return %0 : tensor<4x16xf32>
... }''')
>>> mm = m.body.first_op.entry_block.first_op
>>> [str(map) for map in mm.indexing_maps()]
['(d0, d1, d2) -> (d0, d2)', '(d0, d1, d2) -> (d2, d1)', '(d0, d1, d2) -> (d0, d1)']
>>> mm.iterator_types(), mm.static_loop_sizes(), mm.is_tensor_semantics
(['parallel', 'parallel', 'reduction'], (4, 16, 8), True)
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar

from tinycomp.affine import AffineDimExpr, AffineMap
from tinycomp.dialects.linalg.syntax import SEGMENT_SIZES
from tinycomp.ir.block import Block
from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.memory_effect import MemoryEffect
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.type_helpers import element_type, shape
from tinycomp.ir.types import DYNAMIC, MemRefType, RankedTensorType, Shape, Type
from tinycomp.ir.values import Value

if TYPE_CHECKING:
    from tinycomp.dialects.linalg.generic import GenericOp

MEMOIZED_MAPS = "linalg.memoized_indexing_maps"
"""A cache of indexing maps ``mlir-opt`` attaches to some named ops; tinycomp drops it."""
_PRINTER_MADE_NAME = re.compile(r"(in|out|init)(_[0-9]+)?")


class StructuredOp(Operation):
    """Base of the linalg ops; see the module docstring."""

    num_results = None
    num_regions = 1
    num_successors = 0
    has_custom_syntax = True
    output_argument_name: ClassVar[str] = "out"
    """How the payload's output arguments are named (``%out``; ``%init`` for map/reduce)."""
    loop_names: ClassVar[tuple[str, ...]] = ()
    """Names of the loops for error messages (``("m", "n", "k")``); default ``d0, d1...``."""

    def __init__(self, *args, **kwargs) -> None:
        """As ``Operation``; also drops ``linalg.memoized_indexing_maps`` and names the
        payload's block arguments ``%in``/``%out`` as MLIR prints them."""
        super().__init__(*args, **kwargs)
        self.attributes.pop(MEMOIZED_MAPS, None)
        self._name_payload_arguments()

    def _name_payload_arguments(self) -> None:
        """Give MLIR's names to payload arguments that have none (or a printer-made
        one like ``%in_3``), so the printer numbers clashes as MLIR does."""
        if len(self.regions) != 1 or self.regions[0].entry_block is None:
            return
        split = self._split_point()
        for position, argument in enumerate(self.regions[0].entry_block.arguments):
            hint = argument.name_hint
            if hint is None or _PRINTER_MADE_NAME.fullmatch(hint):
                argument.name_hint = "in" if position < split else self.output_argument_name

    # -- operands ----------------------------------------------------------------------
    def _split_point(self) -> int:
        """How many operands are inputs; never fails (the verifier checks the rest)."""
        sizes = self.attributes.get(SEGMENT_SIZES)
        if isinstance(sizes, DenseArrayAttr) and len(sizes.values) == 2:
            return max(0, min(int(sizes.values[0]), len(self.operands)))
        return max(0, len(self.operands) - 1)

    @property
    def num_inputs(self) -> int:
        """How many operands are inputs (``ins``)."""
        return self._split_point()

    @property
    def inputs(self) -> tuple[Value, ...]:
        """The values read (``ins``)."""
        return self.operands[: self.num_inputs]

    @property
    def outputs(self) -> tuple[Value, ...]:
        """The values written (``outs``): the initial value of each result, or buffers."""
        return self.operands[self.num_inputs :]

    @property
    def num_outputs(self) -> int:
        """How many operands are outputs (``outs``)."""
        return len(self.operands) - self.num_inputs

    def result_for_output(self, output_position: int) -> Value:
        """The result holding output ``output_position``'s final value (tensor semantics)."""
        return self.results[output_position]

    @property
    def is_tensor_semantics(self) -> bool:
        """All outputs are tensors: the op returns new tensors."""
        return all(isinstance(v.type, RankedTensorType) for v in self.outputs)

    @property
    def is_buffer_semantics(self) -> bool:
        """All outputs are memrefs: the op writes them in place and returns nothing."""
        return all(isinstance(v.type, MemRefType) for v in self.outputs)

    def operand_shapes(self) -> list[Shape]:
        """The shape of each operand, inputs then outputs (``()`` for a scalar)."""
        return [shape(v.type) for v in self.operands]

    def element_types(self) -> list[Type]:
        """The element type of each operand (the type itself for a scalar)."""
        return [element_type(v.type) for v in self.operands]

    # -- loops and maps (named ops override the first two) -------------------------------
    def indexing_maps(self) -> list[AffineMap]:
        """One map per operand, from the loop indices to the element it touches."""
        raise NotImplementedError(f"'{self.name}' does not define its indexing maps")

    def iterator_types(self) -> list[str]:
        """``"parallel"`` or ``"reduction"`` for each loop."""
        raise NotImplementedError(f"'{self.name}' does not define its iterator types")

    @property
    def num_loops(self) -> int:
        """How many loops the op runs (the number of iterator types)."""
        return len(self.iterator_types())

    def parallel_dims(self) -> list[int]:
        """Positions of the parallel loops."""
        return [i for i, kind in enumerate(self.iterator_types()) if kind == "parallel"]

    def reduction_dims(self) -> list[int]:
        """Positions of the reduction loops."""
        return [i for i, kind in enumerate(self.iterator_types()) if kind == "reduction"]

    def loop_name(self, position: int) -> str:
        """``k`` for matmul's third loop; ``d2`` when the op names no loops."""
        if position < len(self.loop_names):
            return self.loop_names[position]
        return f"d{position}"

    def loop_dim_sources(self) -> list[tuple[int, int]]:
        """For each loop, the first ``(operand, dimension)`` whose map result is exactly
        that loop: where its trip count comes from. Raises ``VerifyError`` when a loop
        has no such operand (MLIR: "indexing maps are non-invertible")."""
        sources: dict[int, tuple[int, int]] = {}
        for operand_position, indexing_map in enumerate(self.indexing_maps()):
            for dim_position, result in enumerate(indexing_map.results):
                if isinstance(result, AffineDimExpr):
                    sources.setdefault(result.position, (operand_position, dim_position))
        missing = [self.loop_name(i) for i in range(self.num_loops) if i not in sources]
        if missing:
            raise self.error(
                f"expected every loop to be a plain dimension of some operand's indexing "
                f"map, got none for loop {', '.join(missing)}"
            )
        return [sources[i] for i in range(self.num_loops)]

    def loop_sizes_from_shapes(self, shapes: list[Shape]) -> tuple[int | None, ...]:
        """The trip count of each loop for operands of the given ``shapes`` (e.g. the
        run-time shapes of numpy arrays): the first static size among the operand
        dimensions indexed by exactly that loop, ``DYNAMIC`` when all are dynamic."""
        maps = self.indexing_maps()
        ranks = [len(s) for s in shapes]
        if len(maps) != len(shapes) or [m.num_results for m in maps] != ranks:
            raise self.error(
                f"expected one indexing map per operand with one result per dimension "
                f"(ranks {ranks}), got maps with {[m.num_results for m in maps]} results"
            )
        sizes: list[int | None] = [shapes[op][dim] for op, dim in self.loop_dim_sources()]
        for operand_position, indexing_map in enumerate(maps):
            for dim_position, result in enumerate(indexing_map.results):
                if isinstance(result, AffineDimExpr) and sizes[result.position] is DYNAMIC:
                    sizes[result.position] = shapes[operand_position][dim_position]
        return tuple(sizes)

    def static_loop_sizes(self) -> tuple[int | None, ...]:
        """The trip count of each loop, from the operand types (``DYNAMIC`` if unknown)."""
        return self.loop_sizes_from_shapes(self.operand_shapes())

    def loop_ranges(self) -> list[tuple[int, int]]:
        """``[(0, size), ...]``, one half-open range per loop: the iteration box that
        ``AffineMap.footprint`` takes. Every size must be static."""
        sizes = self.static_loop_sizes()
        for position, size in enumerate(sizes):
            if size is DYNAMIC:
                raise self.error(f"expected a static size for loop {self.loop_name(position)}")
        return [(0, size) for size in sizes]

    # -- the payload -------------------------------------------------------------------------
    @property
    def payload_region(self) -> Region:
        """The region holding the payload (built by named ops themselves)."""
        return self.regions[0]

    @property
    def body(self) -> Block:
        """The payload block: one argument per operand, ending with ``linalg.yield``."""
        block = self.payload_region.entry_block
        if block is None:
            raise self.error("expected a payload block, got an empty region")
        return block

    def payload_reads(self, operand_position: int) -> bool:
        """Whether the payload uses operand ``operand_position``'s element (an output
        that is never read only provides the shape, like ``tensor.empty``)."""
        return self.body.arguments[operand_position].has_uses

    def get_effects(self) -> list[MemoryEffect]:
        """On memrefs: read every ``ins`` buffer, read an ``outs`` buffer whose element the
        payload uses (a reduction, ``C += A * B``), write every ``outs`` buffer (MLIR's
        ``getGenericEffectsImpl``). On tensors a value computation: no effect."""
        effects: list[MemoryEffect] = []
        split = self.num_inputs
        for position, value in enumerate(self.operands):
            if isinstance(value.type, MemRefType) and (
                position < split or self.payload_reads(position)
            ):
                effects.append(MemoryEffect("read", value))
        for value in self.outputs:
            if isinstance(value.type, MemRefType):
                effects.append(MemoryEffect("write", value))
        return effects

    def generalize(self) -> GenericOp:
        """The equivalent ``linalg.generic``: the same operands, maps, iterator types
        and a copy of the payload. Detached; results correspond one to one."""
        from tinycomp.dialects.linalg.generic import GenericOp

        return GenericOp.from_structured_op(self)

    def verify_op(self) -> None:
        from tinycomp.dialects.linalg.verify import verify_structured_op

        self.verify_definition()
        verify_structured_op(self)

    def verify_definition(self) -> None:
        """Checks of the op's own attributes, run before the shared structured checks
        (which need ``indexing_maps()`` to work). Named ops override it."""


__all__ = ["MEMOIZED_MAPS", "StructuredOp"]
