"""``linalg.generic``, the op every other linalg op can become, with ``linalg.yield``
and ``linalg.index``.

A generic op spells out everything a named op implies: the indexing maps, the
iterator types and the payload. Row sums of a 4x8 matrix::

    #id = affine_map<(d0, d1) -> (d0, d1)>
    #row = affine_map<(d0, d1) -> (d0)>
    %sums = linalg.generic {indexing_maps = [#id, #row],
                            iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<4x8xf32>) outs(%zeros : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %0 = arith.addf %in, %out : f32
      linalg.yield %0 : f32
    } -> tensor<4xf32>

In custom syntax the iterator types are strings; the generic form stores them as
``#linalg.iterator_type<parallel>`` attributes (``mlir-opt`` rejects strings there).
Attributes that are not part of the op's definition go after ``attrs =``.

>>> from tinycomp.affine import AffineMap
>>> from tinycomp.ir import Block, RankedTensorType, f32
>>> from tinycomp.dialects.arith import AddFOp
>>> x, init = Block([RankedTensorType((4, 8), f32), RankedTensorType((4,), f32)]).arguments
>>> rows = AffineMap(2, 0, [AffineMap.identity(2).results[0]])
>>> op = GenericOp.build([x], [init], [AffineMap.identity(2), rows], ["parallel", "reduction"],
...                      lambda b, args: [b.insert(AddFOp.build(args[0], args[1])).result])
>>> op.static_loop_sizes(), op.reduction_dims()
((4, 8), [1])
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import AffineMap
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.payload import PayloadBuilder, build_payload
from tinycomp.dialects.linalg.syntax import (
    SEGMENT_SIZES,
    iterator_kind,
    iterator_kind_in_custom_form,
    iterator_types_attr,
    parse_ins_outs,
    parse_optional_result_arrow,
    print_ins_outs,
    print_result_arrow,
    segment_sizes_attr,
)
from tinycomp.ir.attributes import (
    AffineMapAttr,
    ArrayAttr,
    Attribute,
    IntegerAttr,
    StringAttr,
    format_attr_dict,
)
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.type_helpers import element_type
from tinycomp.ir.types import RankedTensorType, i64, index
from tinycomp.ir.values import Value

_SHOWN_IN_DICT = ("doc", "indexing_maps", "iterator_types", "library_call")


class GenericOp(StructuredOp):
    """A loop nest given by indexing maps, iterator types and a payload (see above)."""

    name = "linalg.generic"
    inherent_attributes = (*_SHOWN_IN_DICT, SEGMENT_SIZES)

    @classmethod
    def build(
        cls,
        inputs: Sequence[Value],
        outputs: Sequence[Value],
        indexing_maps: Sequence[AffineMap],
        iterator_types: Sequence[str],
        body: PayloadBuilder | None = None,
        doc: str | None = None,
        library_call: str | None = None,
    ) -> GenericOp:
        """A generic op; ``body(builder, block_arguments)`` returns the values to yield.
        Without ``body`` the payload block is left empty for the caller to fill (it must
        end with a ``YieldOp``). Results: one per tensor output."""
        attributes: dict[str, Attribute] = {
            "indexing_maps": ArrayAttr([AffineMapAttr(m) for m in indexing_maps]),
            "iterator_types": iterator_types_attr(iterator_types),
            SEGMENT_SIZES: segment_sizes_attr(len(inputs), len(outputs)),
        }
        if doc is not None:
            attributes["doc"] = StringAttr(doc)
        if library_call is not None:
            attributes["library_call"] = StringAttr(library_call)
        types = [element_type(v.type) for v in (*inputs, *outputs)]
        if body is None:
            region = Region([Block(types)])
        else:
            region = build_payload(types, body)
        results = [v.type for v in outputs if isinstance(v.type, RankedTensorType)]
        return cls([*inputs, *outputs], results, attributes, [region])

    @classmethod
    def from_structured_op(cls, op: StructuredOp) -> GenericOp:
        """The generic twin of any linalg op (what ``op.generalize()`` returns)."""
        attributes: dict[str, Attribute] = {
            "indexing_maps": ArrayAttr([AffineMapAttr(m) for m in op.indexing_maps()]),
            "iterator_types": iterator_types_attr(op.iterator_types()),
            SEGMENT_SIZES: segment_sizes_attr(op.num_inputs, op.num_outputs),
        }
        region = op.payload_region.clone()
        return cls(list(op.operands), list(op.result_types), attributes, [region])

    def indexing_maps(self) -> list[AffineMap]:
        """The ``indexing_maps`` attribute, as ``AffineMap`` values."""
        attr = self.attributes.get("indexing_maps")
        if not isinstance(attr, ArrayAttr) or not all(isinstance(e, AffineMapAttr) for e in attr):
            raise self.error(f"expected 'indexing_maps' to be an array of affine maps, got {attr}")
        return [e.map for e in attr]

    def iterator_types(self) -> list[str]:
        """The ``iterator_types`` attribute, as strings."""
        attr = self.attributes.get("iterator_types")
        kinds = [iterator_kind(e) for e in attr] if isinstance(attr, ArrayAttr) else [None]
        if None in kinds:
            raise self.error(
                "expected 'iterator_types' to be an array of #linalg.iterator_type<parallel> "
                f"or <reduction>, got {attr}"
            )
        return kinds

    def verify_definition(self) -> None:
        for key in ("doc", "library_call"):
            if key in self.attributes and not isinstance(self.attributes[key], StringAttr):
                raise self.error(f"expected '{key}' to be a string, got {self.attributes[key]}")
        self.indexing_maps()
        self.iterator_types()

    # -- custom syntax -------------------------------------------------------------------
    def print_custom(self, printer: Printer) -> None:
        shown = {k: self.attributes[k] for k in _SHOWN_IN_DICT if k in self.attributes}
        shown["iterator_types"] = ArrayAttr([StringAttr(k) for k in self.iterator_types()])
        printer.write(" " + format_attr_dict(shown))
        print_ins_outs(printer, self.inputs, self.outputs)
        extra = {k: v for k, v in self.attributes.items() if k not in self.inherent_attributes}
        if extra:
            printer.write(" attrs = ")  # MLIR writes two spaces before the dictionary
            printer.print_attr_dict(extra)
        printer.write(" ")
        printer.print_region(self.payload_region)
        print_result_arrow(printer, self.result_types)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        dict_token = parser.token
        attributes = parser.parse_attr_dict()
        iterators = attributes.get("iterator_types")
        if isinstance(iterators, ArrayAttr):
            kinds = [iterator_kind_in_custom_form(e) for e in iterators]
            if None in kinds:
                raise parser.error(
                    f'expected iterator types "parallel" or "reduction", got {iterators}',
                    dict_token,
                )
            attributes["iterator_types"] = iterator_types_attr(kinds)
        attributes.update(parser.parse_optional_attr_dict())
        inputs, outputs = parse_ins_outs(parser)
        if parser.parse_optional_keyword("attrs"):
            parser.parse_punct("=")
            attributes.update(parser.parse_attr_dict())
        region = parser.parse_region()
        result_types = parse_optional_result_arrow(parser)
        attributes[SEGMENT_SIZES] = segment_sizes_attr(len(inputs), len(outputs))
        return cls([*inputs, *outputs], result_types, attributes, [region])


class YieldOp(Operation):
    """Ends a linalg payload with the new output elements: ``linalg.yield %0 : f32``."""

    name = "linalg.yield"
    num_results = 0
    num_regions = 0
    num_successors = 0
    is_terminator = True
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, values: Sequence[Value]) -> YieldOp:
        """``linalg.yield values...``."""
        return cls(list(values), [])

    def verify_op(self) -> None:
        if not isinstance(self.parent_op(), StructuredOp):
            parent = self.parent_op()
            found = f"'{parent.name}'" if parent is not None else "no parent"
            raise self.error(f"expected to be inside a linalg op, got {found}")

    def print_custom(self, printer: Printer) -> None:
        if self.operands:
            printer.write(" ")
            printer.print_operands(self.operands)
        printer.print_attr_dict(self.attributes)
        if self.operands:
            printer.write(" : ")
            printer.print_types(self.operand_types)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        names = parser.parse_operand_list()
        attributes = parser.parse_optional_attr_dict()
        values: list[Value] = []
        if names:
            parser.parse_punct(":")
            values = parser.resolve_operands(names, parser.parse_type_list())
        return cls(values, [], attributes)


class IndexOp(Operation):
    """The current index of loop ``dim`` inside a payload: ``%i = linalg.index 0 : index``."""

    name = "linalg.index"
    num_operands = 0
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = ("dim",)

    @classmethod
    def build(cls, dim: int) -> IndexOp:
        """The index of loop ``dim``."""
        return cls([], [index], {"dim": IntegerAttr(dim, i64)})

    @property
    def dim(self) -> int:
        """Which loop's index this is."""
        attr = self.attributes.get("dim")
        if not isinstance(attr, IntegerAttr):
            raise self.error(f"expected an integer 'dim' attribute, got {attr}")
        return attr.value

    def verify_op(self) -> None:
        if self.result.type != index:
            raise self.error(f"expected an index result, got {self.result.type}")
        parent = self.parent_op()
        if not isinstance(parent, StructuredOp):
            found = f"'{parent.name}'" if parent is not None else "no parent"
            raise self.error(f"expected to be inside a linalg op, got {found}")
        if not 0 <= self.dim < parent.num_loops:
            raise self.error(
                f"expected a loop number in [0, {parent.num_loops}) (the loops of "
                f"'{parent.name}'), got {self.dim}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(f" {self.dim}")
        printer.print_attr_dict(self.attributes, elided=["dim"])
        printer.write(" : ")
        printer.print_type(self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        dim = parser.parse_integer("a loop number")
        attributes = parser.parse_optional_attr_dict()
        attributes["dim"] = IntegerAttr(dim, i64)
        result_type = parser.parse_colon_type()
        return cls([], [result_type], attributes)


__all__ = ["GenericOp", "IndexOp", "YieldOp"]
