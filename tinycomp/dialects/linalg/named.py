"""Named linalg ops whose syntax is ``{attrs} ins(...) outs(...) -> types``: ``fill``,
``matmul``, ``batch_matmul`` and ``conv_2d_nhwc_hwcf``.

Each one is a ``linalg.generic`` with fixed maps and payload; the class says which
(``indexing_maps()``, ``iterator_types()``, ``payload_builder``), builds the payload
region itself and does not print it, as MLIR does. ``mlir-opt``'s generic form does
show that region; tinycomp reads it and keeps it (it is the same one).

========================  ==========================  ======================================
op                        loops                       maps (inputs..., output)
========================  ==========================  ======================================
``fill``                  one per output dimension    ``() ``, identity
``matmul``                ``m, n, k``                 ``(m, k)``, ``(k, n)``, ``(m, n)``
``batch_matmul``          ``b, m, n, k``              ``(b, m, k)``, ``(b, k, n)``, ``(b, m, n)``
``conv_2d_nhwc_hwcf``     ``n, oh, ow, f, kh, kw, c`` ``(n, oh*sh + kh*dh, ow*sw + kw*dw, c)``,
                                                      ``(kh, kw, c, f)``, ``(n, oh, ow, f)``
========================  ==========================  ======================================

(``sh, sw`` are the ``strides``, ``dh, dw`` the ``dilations``; ``k``, ``kh, kw, c`` are
reductions.) ``matmul`` and ``batch_matmul`` accept other maps (``indexing_maps = [...]``
before ``ins``, e.g. a transposed operand) and ``cast = #linalg.type_fn<cast_unsigned>``.

>>> from tinycomp.ir import Block, RankedTensorType, f32
>>> a, w, out = Block([RankedTensorType((1, 10, 10, 3), f32),
...                    RankedTensorType((3, 3, 3, 8), f32),
...                    RankedTensorType((1, 4, 4, 8), f32)]).arguments
>>> conv = Conv2DNhwcHwcfOp.build(a, w, out, strides=(2, 2))
>>> print(conv.indexing_maps()[0])
(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d6)
>>> conv.static_loop_sizes()
(1, 4, 4, 8, 3, 3, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from tinycomp.affine import AffineMap, dim
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.payload import (
    CAST_SIGNED,
    CAST_UNSIGNED,
    PayloadBuilder,
    build_payload,
    copy_body,
    multiply_accumulate_body,
)
from tinycomp.dialects.linalg.syntax import (
    PARALLEL,
    REDUCTION,
    SEGMENT_SIZES,
    parse_ins_outs,
    parse_optional_result_arrow,
    print_ins_outs,
    print_result_arrow,
    segment_sizes_attr,
)
from tinycomp.ir.attributes import AffineMapAttr, ArrayAttr, Attribute, OpaqueAttr
from tinycomp.ir.dense import DenseElementsAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.type_helpers import element_type, rank
from tinycomp.ir.types import RankedTensorType, Type, i64
from tinycomp.ir.values import Value


class NamedStructuredOp(StructuredOp):
    """Base of the ops in this file: their common syntax and creation."""

    num_inputs_expected: ClassVar[int] = 2
    """How many ``ins`` the op takes."""
    attributes_in_syntax: ClassVar[tuple[str, ...]] = (SEGMENT_SIZES,)
    """Attributes the syntax shows elsewhere than in the attribute dictionary."""

    @classmethod
    def create(
        cls,
        inputs: Sequence[Value],
        outputs: Sequence[Value],
        attributes: dict[str, Attribute] | None = None,
        result_types: Sequence[Type] | None = None,
    ) -> NamedStructuredOp:
        """The op with its payload region built; results default to the tensor outputs."""
        attributes = dict(attributes or {})
        attributes[SEGMENT_SIZES] = segment_sizes_attr(len(inputs), len(outputs))
        if result_types is None:
            result_types = [v.type for v in outputs if isinstance(v.type, RankedTensorType)]
        types = [element_type(v.type) for v in (*inputs, *outputs)]
        if len(inputs) == cls.num_inputs_expected and len(outputs) == 1:
            region = build_payload(types, cls.payload_builder(attributes))
        else:  # no payload fits these operands: a placeholder, the verifier reports why
            region = build_payload(types, lambda builder, arguments: [])
        return cls([*inputs, *outputs], list(result_types), attributes, [region])

    @classmethod
    def payload_builder(cls, attributes: dict[str, Attribute]) -> PayloadBuilder:
        """The body of the op (the multiply-accumulate unless overridden)."""
        unsigned = str(attributes.get("cast", CAST_SIGNED)) == CAST_UNSIGNED
        return multiply_accumulate_body(unsigned)

    def verify_definition(self) -> None:
        if self.num_inputs != self.num_inputs_expected or self.num_outputs != 1:
            raise self.error(
                f"expected {self.num_inputs_expected} inputs and 1 output, "
                f"got {self.num_inputs} and {self.num_outputs}"
            )

    # -- custom syntax -------------------------------------------------------------------
    def print_leading(self, printer: Printer) -> None:
        """What comes before the attribute dictionary (matmul's ``indexing_maps``)."""

    def print_custom(self, printer: Printer) -> None:
        self.print_leading(printer)
        printer.print_attr_dict(self.attributes, elided=self.attributes_in_syntax)
        print_ins_outs(printer, self.inputs, self.outputs)
        print_result_arrow(printer, self.result_types)

    @classmethod
    def parse_leading(cls, parser: Parser) -> dict[str, Attribute]:
        """Read what ``print_leading`` writes."""
        return {}

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes = cls.parse_leading(parser)
        attributes.update(parser.parse_optional_attr_dict())
        inputs, outputs = parse_ins_outs(parser)
        result_types = parse_optional_result_arrow(parser)
        return cls.create(inputs, outputs, attributes, result_types)


class FillOp(NamedStructuredOp):
    """Fill an output with one value:
    ``%0 = linalg.fill ins(%zero : f32) outs(%t : tensor<4x8xf32>) -> tensor<4x8xf32>``."""

    name = "linalg.fill"
    inherent_attributes = (SEGMENT_SIZES,)
    num_inputs_expected = 1

    @classmethod
    def build(cls, value: Value, output: Value) -> FillOp:
        """Fill ``output`` (a tensor or memref) with the scalar ``value``."""
        return cls.create([value], [output])

    @classmethod
    def payload_builder(cls, attributes: dict[str, Attribute]) -> PayloadBuilder:
        return copy_body

    def indexing_maps(self) -> list[AffineMap]:
        loops = rank(self.outputs[0].type) if self.outputs else 0
        return [AffineMap(loops, 0, ()), AffineMap.identity(loops)]

    def iterator_types(self) -> list[str]:
        return [PARALLEL] * (rank(self.outputs[0].type) if self.outputs else 0)

    def verify_definition(self) -> None:
        super().verify_definition()
        value_type = self.inputs[0].type
        output_element = element_type(self.outputs[0].type)
        if value_type != output_element:
            raise self.error(
                f"expected the fill value to have the output element type {output_element}, "
                f"got {value_type}"
            )


class ContractionOp(NamedStructuredOp):
    """Base of ``matmul`` and ``batch_matmul``: default maps, optional custom maps."""

    inherent_attributes = ("cast", "indexing_maps", SEGMENT_SIZES)
    attributes_in_syntax = (SEGMENT_SIZES, "indexing_maps")

    @classmethod
    def default_maps(cls) -> list[AffineMap]:
        """The maps of the plain op (no ``indexing_maps`` attribute)."""
        raise NotImplementedError

    @classmethod
    def build(
        cls,
        lhs: Value,
        rhs: Value,
        output: Value,
        indexing_maps: Sequence[AffineMap] | None = None,
        unsigned: bool = False,
    ) -> ContractionOp:
        """``output += lhs * rhs``; ``indexing_maps`` replaces the default maps (to read
        an operand transposed); ``unsigned`` zero-extends integer inputs."""
        attributes: dict[str, Attribute] = {}
        if indexing_maps is not None:
            attributes["indexing_maps"] = ArrayAttr([AffineMapAttr(m) for m in indexing_maps])
        if unsigned:
            attributes["cast"] = OpaqueAttr(CAST_UNSIGNED)
        return cls.create([lhs, rhs], [output], attributes)

    def indexing_maps(self) -> list[AffineMap]:
        attr = self.attributes.get("indexing_maps")
        if attr is None:
            return self.default_maps()
        if not isinstance(attr, ArrayAttr) or not all(isinstance(e, AffineMapAttr) for e in attr):
            raise self.error(f"expected 'indexing_maps' to be an array of affine maps, got {attr}")
        return [e.map for e in attr]

    def iterator_types(self) -> list[str]:
        return [PARALLEL] * (len(self.loop_names) - 1) + [REDUCTION]

    def verify_definition(self) -> None:
        super().verify_definition()
        cast = str(self.attributes.get("cast", CAST_SIGNED))
        if cast not in (CAST_SIGNED, CAST_UNSIGNED):
            raise self.error(f"expected 'cast' to be {CAST_SIGNED} or {CAST_UNSIGNED}, got {cast}")
        maps = self.indexing_maps()
        if len(maps) != 3:
            raise self.error(f"expected 3 indexing maps, got {len(maps)}")

    def print_leading(self, printer: Printer) -> None:
        attr = self.attributes.get("indexing_maps")
        if attr is not None and attr != self.default_attributes["indexing_maps"]:
            printer.write(" indexing_maps = ")
            printer.print_attribute(attr)

    @classmethod
    def parse_leading(cls, parser: Parser) -> dict[str, Attribute]:
        if not parser.parse_optional_keyword("indexing_maps"):
            return {}
        parser.parse_punct("=")
        return {"indexing_maps": parser.parse_attribute()}


def _maps_attr(maps: list[AffineMap]) -> ArrayAttr:
    return ArrayAttr([AffineMapAttr(m) for m in maps])


_MATMUL_MAPS = [AffineMap(3, 0, (dim(0), dim(2))), AffineMap(3, 0, (dim(2), dim(1))),
                AffineMap(3, 0, (dim(0), dim(1)))]  # fmt: skip
_BATCH_MATMUL_MAPS = [AffineMap(4, 0, (dim(0), dim(1), dim(3))),
                      AffineMap(4, 0, (dim(0), dim(3), dim(2))),
                      AffineMap(4, 0, (dim(0), dim(1), dim(2)))]  # fmt: skip


class MatmulOp(ContractionOp):
    """``C += A * B``: ``%0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
    outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>``."""

    name = "linalg.matmul"
    loop_names = ("m", "n", "k")
    default_attributes = {
        "indexing_maps": _maps_attr(_MATMUL_MAPS),
        "cast": OpaqueAttr(CAST_SIGNED),
    }

    @classmethod
    def default_maps(cls) -> list[AffineMap]:
        return list(_MATMUL_MAPS)


class BatchMatmulOp(ContractionOp):
    """A matmul per batch entry: ``linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>,
    tensor<2x8x16xf32>) outs(%c : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>``."""

    name = "linalg.batch_matmul"
    loop_names = ("b", "m", "n", "k")
    default_attributes = {
        "indexing_maps": _maps_attr(_BATCH_MATMUL_MAPS),
        "cast": OpaqueAttr(CAST_SIGNED),
    }

    @classmethod
    def default_maps(cls) -> list[AffineMap]:
        return list(_BATCH_MATMUL_MAPS)


def _pair_attr(values: Sequence[int]) -> DenseElementsAttr:
    """``dense<[a, b]> : tensor<2xi64>`` (``dense<a>`` when both are equal)."""
    return DenseElementsAttr(RankedTensorType((2,), i64), list(values))


class Conv2DNhwcHwcfOp(NamedStructuredOp):
    """2-D convolution, input NHWC, filter HWCF, output NHWF:
    ``linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> :
    tensor<2xi64>} ins(%in, %w : ...) outs(%out : ...) -> tensor<...>``."""

    name = "linalg.conv_2d_nhwc_hwcf"
    loop_names = ("n", "oh", "ow", "f", "kh", "kw", "c")
    inherent_attributes = ("dilations", SEGMENT_SIZES, "strides")
    default_attributes = {"dilations": _pair_attr([1, 1]), "strides": _pair_attr([1, 1])}

    @classmethod
    def build(
        cls,
        input: Value,
        filter: Value,
        output: Value,
        strides: Sequence[int] = (1, 1),
        dilations: Sequence[int] = (1, 1),
    ) -> Conv2DNhwcHwcfOp:
        """``output[n, oh, ow, f] += input[n, oh*sh + kh*dh, ow*sw + kw*dw, c] *
        filter[kh, kw, c, f]``; size ``output`` with ``conv_output_size``."""
        attributes = {"dilations": _pair_attr(dilations), "strides": _pair_attr(strides)}
        return cls.create([input, filter], [output], attributes)

    def _pair(self, key: str) -> tuple[int, int]:
        attr = self.attributes.get(key, self.default_attributes[key])
        if not (isinstance(attr, DenseElementsAttr) and attr.type == RankedTensorType((2,), i64)):
            raise self.error(f"expected '{key}' to be dense<...> : tensor<2xi64>, got {attr}")
        first, second = (int(v) for v in attr.values)
        return first, second

    @property
    def strides(self) -> tuple[int, int]:
        """``(sh, sw)``: how far the window moves per output pixel."""
        return self._pair("strides")

    @property
    def dilations(self) -> tuple[int, int]:
        """``(dh, dw)``: the spacing of the filter taps."""
        return self._pair("dilations")

    def indexing_maps(self) -> list[AffineMap]:
        (sh, sw), (dh, dw) = self.strides, self.dilations
        n, oh, ow, f, kh, kw, c = (dim(i) for i in range(7))
        return [
            AffineMap(7, 0, (n, oh * sh + kh * dh, ow * sw + kw * dw, c)).simplify(),
            AffineMap(7, 0, (kh, kw, c, f)),
            AffineMap(7, 0, (n, oh, ow, f)),
        ]

    def iterator_types(self) -> list[str]:
        return [PARALLEL] * 4 + [REDUCTION] * 3

    def verify_definition(self) -> None:
        super().verify_definition()
        for key in ("strides", "dilations"):
            if min(self._pair(key)) < 1:
                raise self.error(f"expected positive {key}, got {list(self._pair(key))}")
        ranks = [rank(v.type) for v in self.operands]
        if ranks != [4, 4, 4]:
            raise self.error(f"expected input, filter and output of rank 4, got ranks {ranks}")
        input_shape, filter_shape, output_shape = self.operand_shapes()
        for axis, what in ((0, "height"), (1, "width")):
            sizes = (output_shape[1 + axis], filter_shape[axis], input_shape[1 + axis])
            if None in sizes:
                continue
            out, window, have = sizes
            stride, dilation = self.strides[axis], self.dilations[axis]
            needed = (out - 1) * stride + (window - 1) * dilation + 1
            if out > 0 and have < needed:
                raise self.error(
                    f"expected input {what} >= (output {what} - 1) * stride + (filter {what} "
                    f"- 1) * dilation + 1 = ({out} - 1) * {stride} + ({window} - 1) * "
                    f"{dilation} + 1 = {needed}, got {have}"
                )


def conv_output_size(input_size: int, filter_size: int, stride: int = 1, dilation: int = 1) -> int:
    """The output size of a convolution without padding along one axis.

    >>> conv_output_size(10, 3), conv_output_size(10, 3, stride=2), conv_output_size(10, 3, 1, 2)
    (8, 4, 6)
    """
    return (input_size - (filter_size - 1) * dilation - 1) // stride + 1


NAMED_OPS: tuple[type[Operation], ...] = (FillOp, MatmulOp, BatchMatmulOp, Conv2DNhwcHwcfOp)
"""The ops of this module, for the linalg ``Dialect``."""

__all__ = [
    "NAMED_OPS", "BatchMatmulOp", "ContractionOp", "Conv2DNhwcHwcfOp", "FillOp", "MatmulOp",
    "NamedStructuredOp", "conv_output_size",
]  # fmt: skip
