"""affine: memory accesses with affine subscripts: ``affine.load``, ``affine.store``.

The subscripts are an affine map of loop counters and symbols, written inline with SSA
names (``affine_ssa.py``)::

    %x = affine.load %A[%i + 1, %j * 2] : memref<100x100xf32>
    affine.store %x, %B[%j, symbol(%n) - %i] : memref<100x100xf32>

Stored as the attribute ``map`` (``(d0, d1) -> (d0 + 1, d1 * 2)``) and the operands
``[memref, *map_operands]`` (load) or ``[value, memref, *map_operands]`` (store), the
map operands being its dimensions, then its symbols. Because the subscripts are affine,
passes can tell exactly which elements a loop nest touches.

>>> from tinycomp.affine import parse_affine_map
>>> from tinycomp.ir import Block, MemRefType, f32, index
>>> A, i = Block([MemRefType((8, 8), f32), index]).arguments
>>> load = AffineLoadOp.build(A, parse_affine_map("(d0) -> (d0 + 1, 0)"), [i])
>>> load.result.type, str(load.map)
(FloatType(name='f32'), '(d0) -> (d0 + 1, 0)')
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import AffineMap
from tinycomp.dialects.affine.operands import check_dims_and_symbols
from tinycomp.dialects.affine.ssa import parse_subscripts, print_subscripts
from tinycomp.dialects.memref.alloc import check_memref
from tinycomp.ir.attributes import AffineMapAttr
from tinycomp.ir.memory_effect import reads, writes
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import MemRefType
from tinycomp.ir.values import Value


class _AffineAccessOp(Operation):
    """Base of load and store: a memref, a ``map`` and its operands."""

    num_regions = 0
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = ("map",)
    memref_position = 0
    """Where the memref is among the operands (the map operands follow it)."""

    @property
    def memref(self) -> Value:
        """The buffer accessed."""
        return self.operands[self.memref_position]

    @property
    def map(self) -> AffineMap:
        """The subscript map: one result per memref dimension."""
        return self.attributes["map"].map

    @property
    def map_operands(self) -> tuple[Value, ...]:
        """The map's dimensions, then its symbols."""
        return self.operands[self.memref_position + 1 :]

    def _verify_access(self) -> MemRefType:
        if len(self.operands) <= self.memref_position:
            raise self.error(f"expected at least {self.memref_position + 1} operands")
        memref_type = check_memref(self, self.memref.type, "the accessed value")
        attr = self.attributes.get("map")
        if not isinstance(attr, AffineMapAttr):
            raise self.error(f"expected an affine map 'map', got {attr}")
        if attr.map.num_results != memref_type.rank:
            raise self.error(
                f"expected {memref_type.rank} subscripts (the rank of {memref_type}), "
                f"got a map with {attr.map.num_results} results: {attr.map}"
            )
        if attr.map.num_inputs != len(self.map_operands):
            raise self.error(
                f"expected {attr.map.num_inputs} map operands for {attr.map}, "
                f"got {len(self.map_operands)}"
            )
        check_dims_and_symbols(self, self.map_operands, attr.map.num_dims, "subscript map")
        return memref_type

    def _print_access(self, printer: Printer) -> None:
        printer.print_operand(self.memref)
        printer.write("[")
        print_subscripts(printer, self.map, self.map_operands)
        printer.write("]")
        printer.print_attr_dict(self.attributes, elided=["map"])
        printer.write(" : ")
        printer.print_type(self.memref.type)

    @staticmethod
    def _parse_access(parser: Parser):
        """``%A[subscripts] {attrs} : type`` -> (memref name, map, operands, attrs, type)."""
        memref = parser.parse_operand()
        parser.parse_punct("[")
        affine_map, operands = parse_subscripts(parser)
        parser.parse_punct("]")
        attributes = parser.parse_optional_attr_dict()
        type_token = parser.token
        memref_type = parser.parse_colon_type()
        if not isinstance(memref_type, MemRefType):
            raise parser.error(f"expected a memref type, got {memref_type}", type_token)
        attributes["map"] = AffineMapAttr(affine_map)
        return parser.resolve_operand(memref, memref_type), operands, attributes, memref_type


class AffineLoadOp(_AffineAccessOp):
    """Read one element at affine subscripts: ``%x = affine.load %A[%i, %j + 1] : memref<...>``."""

    name = "affine.load"
    effects = (reads(0),)
    num_results = 1

    @classmethod
    def build(
        cls, memref: Value, affine_map: AffineMap, map_operands: Sequence[Value]
    ) -> AffineLoadOp:
        """Read ``memref[affine_map(map_operands)]``."""
        if not isinstance(memref.type, MemRefType):
            raise ValueError(f"expected a memref to load from, got {memref.type}")
        attributes = {"map": AffineMapAttr(affine_map)}
        return cls([memref, *map_operands], [memref.type.element_type], attributes)

    def verify_op(self) -> None:
        memref_type = self._verify_access()
        if self.result.type != memref_type.element_type:
            raise self.error(
                f"expected result type {memref_type.element_type} (the element type), "
                f"got {self.result.type}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        self._print_access(printer)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        memref, operands, attributes, memref_type = cls._parse_access(parser)
        return cls([memref, *operands], [memref_type.element_type], attributes)


class AffineStoreOp(_AffineAccessOp):
    """Write one element at affine subscripts:
    ``affine.store %x, %A[%i, symbol(%n) - 1] : memref<...>``."""

    name = "affine.store"
    effects = (writes(1),)
    num_results = 0
    memref_position = 1

    @classmethod
    def build(
        cls, value: Value, memref: Value, affine_map: AffineMap, map_operands: Sequence[Value]
    ) -> AffineStoreOp:
        """Write ``value`` to ``memref[affine_map(map_operands)]``."""
        return cls([value, memref, *map_operands], [], {"map": AffineMapAttr(affine_map)})

    @property
    def value(self) -> Value:
        """The value written."""
        return self.operands[0]

    def verify_op(self) -> None:
        memref_type = self._verify_access()
        if self.value.type != memref_type.element_type:
            raise self.error(
                f"expected a value of type {memref_type.element_type} (the element type), "
                f"got {self.value.type}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.value)
        printer.write(", ")
        self._print_access(printer)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        value = parser.parse_operand()
        parser.parse_punct(",")
        memref, operands, attributes, memref_type = cls._parse_access(parser)
        stored = parser.resolve_operand(value, memref_type.element_type)
        return cls([stored, memref, *operands], [], attributes)


__all__ = ["AffineLoadOp", "AffineStoreOp"]
