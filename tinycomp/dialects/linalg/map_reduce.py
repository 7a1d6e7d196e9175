"""``linalg.map``, ``linalg.reduce``, ``linalg.transpose`` and ``linalg.broadcast``: the
named ops whose result type is implied by their ``outs`` (no ``-> type`` is printed)
and whose attribute is a plain list of dimensions::

    %mapped = linalg.map { arith.addf } ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>)
                outs(%init : tensor<4x8xf32>)
    %reduced = linalg.reduce { arith.addf } ins(%a : tensor<4x8xf32>)
                 outs(%sums : tensor<4xf32>) dimensions = [1]
    %transposed = linalg.transpose ins(%a : tensor<4x8xf32>)
                    outs(%t : tensor<8x4xf32>) permutation = [1, 0]
    %broadcasted = linalg.broadcast ins(%sums : tensor<4xf32>)
                     outs(%init : tensor<4x8xf32>) dimensions = [1]

``map`` and ``reduce`` carry a payload written by the user (in the short form above or
the long form, see ``linalg_syntax``); ``transpose`` and ``broadcast`` build theirs
(``yield %in``). Their maps:

* map: identity for every operand, all loops parallel;
* reduce: loops over the input; inputs identity, inits the identity without the
  reduced ``dimensions``, which are the reduction loops;
* transpose: loops over the output; output identity, input the inverse of
  ``permutation`` (output dimension ``i`` is input dimension ``permutation[i]``);
* broadcast: loops over the output; output identity, input the identity without the
  added ``dimensions``.

>>> from tinycomp.ir import Block, RankedTensorType, f32
>>> x, t = Block([RankedTensorType((2, 3, 4), f32), RankedTensorType((3, 4, 2), f32)]).arguments
>>> op = TransposeOp.build(x, t, [1, 2, 0])
>>> [str(m) for m in op.indexing_maps()]
['(d0, d1, d2) -> (d2, d0, d1)', '(d0, d1, d2) -> (d0, d1, d2)']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tinycomp.affine import AffineMap
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.payload import PayloadBuilder, build_payload, copy_body
from tinycomp.dialects.linalg.syntax import (
    PARALLEL,
    REDUCTION,
    find_short_form_payload,
    i64_array,
    parse_dims_attr,
    parse_ins_outs,
    parse_optional_short_form,
    parse_region_with_arguments,
    print_dims_attr,
    print_ins_outs,
    print_region_with_arguments,
    print_short_form,
    short_form_region,
)
from tinycomp.ir.attributes import Attribute
from tinycomp.ir.dense import DenseArrayAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.type_helpers import element_type, rank
from tinycomp.ir.types import DYNAMIC, RankedTensorType
from tinycomp.ir.values import Value


class DimsStructuredOp(StructuredOp):
    """Base of the four ops: syntax, creation and the dimension-list attribute."""

    dims_keyword: ClassVar[str] = ""
    """``"dimensions"``, ``"permutation"``, or ``""`` (map has none)."""
    has_payload_syntax: ClassVar[bool] = False
    """The payload is printed (map, reduce) rather than implied (transpose, broadcast)."""
    accumulator_first: ClassVar[bool] = False
    """In the short form the payload reads the output first (reduce)."""
    result_name: ClassVar[str] = ""
    """The name MLIR gives the result (``%mapped``)."""

    def _split_point(self) -> int:
        return max(0, len(self.operands) - 1)

    def asm_result_names(self) -> list[str]:
        return [self.result_name]

    @property
    def dims(self) -> list[int]:
        """The ``dimensions`` or ``permutation`` list."""
        attr = self.attributes.get(self.dims_keyword)
        if not isinstance(attr, DenseArrayAttr) or str(attr.element_type) != "i64":
            raise self.error(f"expected '{self.dims_keyword}' to be array<i64: ...>, got {attr}")
        return [int(v) for v in attr.values]

    @classmethod
    def create(
        cls,
        inputs: Sequence[Value],
        outputs: Sequence[Value],
        attributes: dict[str, Attribute],
        body: PayloadBuilder | Region,
    ) -> DimsStructuredOp:
        """The op with payload ``body`` (a builder, or a finished region)."""
        if not isinstance(body, Region):
            body = build_payload([element_type(v.type) for v in (*inputs, *outputs)], body)
        results = [v.type for v in outputs if isinstance(v.type, RankedTensorType)]
        return cls([*inputs, *outputs], results, attributes, [body])

    def _check_dims(self, limit: int, what: str) -> list[int]:
        dims = self.dims
        if len(set(dims)) != len(dims) or not all(0 <= d < limit for d in dims):
            raise self.error(
                f"expected distinct {self.dims_keyword} in [0, {limit}) ({what}), got {dims}"
            )
        return dims

    # -- custom syntax -------------------------------------------------------------------
    def print_custom(self, printer: Printer) -> None:
        payload = None
        if self.has_payload_syntax:
            payload = find_short_form_payload(self.body, self.accumulator_first)
            if payload is not None:
                print_short_form(printer, payload)
        print_ins_outs(printer, self.inputs, self.outputs)
        if self.dims_keyword:
            print_dims_attr(printer, self.dims_keyword, self.dims)
        printer.print_attr_dict(self.attributes, elided=[self.dims_keyword])
        if self.has_payload_syntax and payload is None:
            print_region_with_arguments(printer, self.payload_region)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        short_form = parse_optional_short_form(parser) if cls.has_payload_syntax else None
        inputs, outputs = parse_ins_outs(parser)
        attributes: dict[str, Attribute] = {}
        if cls.dims_keyword:
            attributes[cls.dims_keyword] = parse_dims_attr(parser, cls.dims_keyword)
        attributes.update(parser.parse_optional_attr_dict())
        body: PayloadBuilder | Region = copy_body
        if short_form is not None:
            if not outputs:
                raise parser.expected("'outs(...)' for the short form's result")
            name, payload_attributes = short_form
            input_types = [element_type(v.type) for v in inputs]
            output_type = element_type(outputs[-1].type)
            body = short_form_region(
                name, payload_attributes, input_types, output_type, cls.accumulator_first
            )
        elif cls.has_payload_syntax:
            body = parse_region_with_arguments(parser)
        return cls.create(inputs, outputs, attributes, body)


class MapOp(DimsStructuredOp):
    """Apply the payload elementwise: ``%mapped = linalg.map { math.exp } ins(%x : ...)
    outs(%init : ...)``; the payload's arguments are the inputs' elements, then the
    output's (usually unused)."""

    name = "linalg.map"
    output_argument_name = "init"
    has_payload_syntax = True
    result_name = "mapped"

    @classmethod
    def build(cls, inputs: Sequence[Value], init: Value, body: PayloadBuilder) -> MapOp:
        """``init[i] = body(inputs[0][i], ..., init[i])`` for every index ``i``."""
        return cls.create(inputs, [init], {}, body)

    def indexing_maps(self) -> list[AffineMap]:
        loops = rank(self.operands[-1].type) if self.operands else 0
        return [AffineMap.identity(loops)] * len(self.operands)

    def iterator_types(self) -> list[str]:
        return [PARALLEL] * (rank(self.operands[-1].type) if self.operands else 0)

    def verify_definition(self) -> None:
        if self.num_outputs != 1:
            raise self.error(f"expected 1 output, got {self.num_outputs}")
        init_shape = self.operand_shapes()[-1]
        for position, value in enumerate(self.inputs):
            if self.operand_shapes()[position] != init_shape:
                raise self.error(
                    f"expected input #{position} to have the output's shape, got {value.type} "
                    f"and {self.outputs[0].type}"
                )


class ReduceOp(DimsStructuredOp):
    """Reduce ``dimensions`` of the inputs into the inits with the payload:
    ``%reduced = linalg.reduce { arith.addf } ins(%x : tensor<4x8xf32>)
    outs(%init : tensor<4xf32>) dimensions = [1]``. The payload's arguments are the
    input elements, then the accumulators; it yields the new accumulators. The short
    form ``{ arith.addf }`` stands for ``arith.addf %init, %in`` (accumulator first), so
    a body that computes ``arith.addf %in, %init`` prints in the long form, as in MLIR."""

    name = "linalg.reduce"
    inherent_attributes = ("dimensions",)
    output_argument_name = "init"
    dims_keyword = "dimensions"
    has_payload_syntax = True
    accumulator_first = True
    result_name = "reduced"

    @classmethod
    def build(
        cls,
        inputs: Sequence[Value],
        inits: Sequence[Value],
        dimensions: Sequence[int],
        body: PayloadBuilder,
    ) -> ReduceOp:
        """Reduce ``dimensions`` of ``inputs`` into ``inits`` (one init per input);
        ``body(builder, [*input_elements, *accumulators])`` returns the new accumulators."""
        return cls.create(inputs, inits, {"dimensions": i64_array(dimensions)}, body)

    def _split_point(self) -> int:
        return len(self.operands) // 2

    def indexing_maps(self) -> list[AffineMap]:
        loops = rank(self.operands[0].type) if self.operands else 0
        identity = AffineMap.identity(loops)
        reduced = identity.drop_results(d for d in self.dims if 0 <= d < loops)
        return [identity] * self.num_inputs + [reduced] * self.num_outputs

    def iterator_types(self) -> list[str]:
        dims = set(self.dims)
        loops = rank(self.operands[0].type) if self.operands else 0
        return [REDUCTION if i in dims else PARALLEL for i in range(loops)]

    def verify_definition(self) -> None:
        if len(self.operands) % 2 or not self.operands:
            raise self.error(
                f"expected as many inits as inputs, got {len(self.operands)} operands in all"
            )
        shapes = self.operand_shapes()
        input_shape = shapes[0]
        dims = self._check_dims(len(input_shape), "the input's dimensions")
        kept = tuple(size for i, size in enumerate(input_shape) if i not in dims)
        for position in range(1, self.num_inputs):
            if shapes[position] != input_shape:
                raise self.error(
                    f"expected all inputs to have one shape, got {self.operands[0].type} and "
                    f"{self.operands[position].type}"
                )
        for position, value in enumerate(self.outputs):
            if not _shapes_agree(shapes[self.num_inputs + position], kept):
                raise self.error(
                    f"expected init #{position} to have the input shape without dimensions "
                    f"{dims} ({_format_shape(kept)}), got {value.type}"
                )


class TransposeOp(DimsStructuredOp):
    """Permute dimensions: ``%transposed = linalg.transpose ins(%x : tensor<4x8xf32>)
    outs(%t : tensor<8x4xf32>) permutation = [1, 0]``; output dimension ``i`` is
    input dimension ``permutation[i]``."""

    name = "linalg.transpose"
    inherent_attributes = ("permutation",)
    dims_keyword = "permutation"
    result_name = "transposed"

    @classmethod
    def build(cls, input: Value, init: Value, permutation: Sequence[int]) -> TransposeOp:
        """``init[i0, ..., in] = input[...]`` with output dimension ``i`` taken from input
        dimension ``permutation[i]``."""
        return cls.create([input], [init], {"permutation": i64_array(permutation)}, copy_body)

    def indexing_maps(self) -> list[AffineMap]:
        if sorted(self.dims) != list(range(len(self.dims))):
            raise self.error(f"expected a permutation, got {self.dims}")
        permutation = AffineMap.from_permutation(self.dims)
        return [permutation.inverse_permutation(), AffineMap.identity(len(self.dims))]

    def iterator_types(self) -> list[str]:
        return [PARALLEL] * len(self.dims)

    def verify_definition(self) -> None:
        _expect_one_input_one_output(self)
        input_shape, init_shape = self.operand_shapes()
        permutation = self.dims
        if sorted(permutation) != list(range(len(input_shape))):
            raise self.error(
                f"expected a permutation of 0..{len(input_shape) - 1} (the input's rank is "
                f"{len(input_shape)}), got {permutation}"
            )
        expected = tuple(input_shape[p] for p in permutation)
        if not _shapes_agree(init_shape, expected):
            raise self.error(
                f"expected the output shape {_format_shape(expected)} (the input's permuted), "
                f"got {self.outputs[0].type}"
            )


class BroadcastOp(DimsStructuredOp):
    """Copy the input along new dimensions: ``%broadcasted = linalg.broadcast
    ins(%x : tensor<4xf32>) outs(%init : tensor<4x8xf32>) dimensions = [1]``;
    ``dimensions`` are the output dimensions the input does not have."""

    name = "linalg.broadcast"
    inherent_attributes = ("dimensions",)
    dims_keyword = "dimensions"
    result_name = "broadcasted"

    @classmethod
    def build(cls, input: Value, init: Value, dimensions: Sequence[int]) -> BroadcastOp:
        """Broadcast ``input`` into ``init`` along the new ``dimensions``."""
        return cls.create([input], [init], {"dimensions": i64_array(dimensions)}, copy_body)

    def indexing_maps(self) -> list[AffineMap]:
        loops = rank(self.outputs[0].type) if self.outputs else 0
        identity = AffineMap.identity(loops)
        return [identity.drop_results(d for d in self.dims if 0 <= d < loops), identity]

    def iterator_types(self) -> list[str]:
        return [PARALLEL] * (rank(self.outputs[0].type) if self.outputs else 0)

    def verify_definition(self) -> None:
        _expect_one_input_one_output(self)
        input_shape, init_shape = self.operand_shapes()
        dims = self._check_dims(len(init_shape), "the output's dimensions")
        if len(input_shape) + len(dims) != len(init_shape):
            raise self.error(
                f"expected the input rank ({len(input_shape)}) plus the added dimensions "
                f"({len(dims)}) to be the output rank ({len(init_shape)})"
            )
        kept = tuple(size for i, size in enumerate(init_shape) if i not in dims)
        if not _shapes_agree(input_shape, kept):
            raise self.error(
                f"expected the input shape {_format_shape(kept)} (the output's without "
                f"dimensions {dims}), got {self.inputs[0].type}"
            )


def _expect_one_input_one_output(op: StructuredOp) -> None:
    if len(op.operands) != 2:
        raise op.error(f"expected 1 input and 1 output, got {len(op.operands)} operands")


def _shapes_agree(actual: tuple, expected: tuple) -> bool:
    """Same rank, and equal sizes wherever both are static."""
    return len(actual) == len(expected) and all(
        a == e or DYNAMIC in (a, e) for a, e in zip(actual, expected, strict=True)
    )


def _format_shape(sizes: tuple) -> str:
    return "[" + ", ".join("?" if s is DYNAMIC else str(s) for s in sizes) + "]"


MAP_REDUCE_OPS: tuple[type[Operation], ...] = (MapOp, ReduceOp, TransposeOp, BroadcastOp)
"""The ops of this module, for the linalg ``Dialect``."""

__all__ = [
    "MAP_REDUCE_OPS", "BroadcastOp", "DimsStructuredOp", "MapOp", "ReduceOp", "TransposeOp",
]  # fmt: skip
