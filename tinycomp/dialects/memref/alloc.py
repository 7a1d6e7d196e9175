"""memref: buffers: ``alloc``, ``alloca``, ``dealloc``, ``global``, ``get_global``.

A memref is a typed reference to a buffer. ``memref.alloc`` gets one from the heap
(free it with ``memref.dealloc``), ``memref.alloca`` from the stack frame (freed on
return); the ``?`` sizes of the type come from operands, in order::

    %buf = memref.alloc(%n) : memref<?x8xf32>
    %tile = memref.alloca() {alignment = 64 : i64} : memref<16x16xf32, 3>
    memref.dealloc %buf : memref<?x8xf32>

A ``memref.global`` is a module-level buffer (a constant table, a lookup array) and
``memref.get_global`` a reference to it. The memory space (``3``,
``#gpu.address_space<workgroup>``) is part of the type and prints with it.

Operands of alloc/alloca: ``[*dynamic_sizes, *symbol_operands]`` with
``operandSegmentSizes = array<i32: sizes, symbols>``; the symbols feed an affine-map
layout's ``s0, s1, ...``.

>>> from tinycomp.ir import Block, MemRefType, f32, index
>>> n = Block([index]).arguments[0]
>>> op = AllocOp.build(MemRefType((None, 8), f32), [n])
>>> print(op.result.type)
memref<?x8xf32>
>>> op.dynamic_sizes == (n,)
True
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.operand_segments import (
    SEGMENTS,
    check_segments,
    segment,
    segment_sizes,
)
from tinycomp.dialects.common.syntax import (
    check_dynamic_sizes,
    parse_dims_and_symbols,
    parse_typed_operand,
    print_dims_and_symbols,
    print_typed_operand,
)
from tinycomp.ir.attributes import (
    AffineMapAttr,
    Attribute,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from tinycomp.ir.dense import DenseElementsAttr
from tinycomp.ir.memory_effect import allocates, frees
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import MemRefType, RankedTensorType, i64, index
from tinycomp.ir.values import Value


def check_memref(op: Operation, value_type, what: str) -> MemRefType:
    """``value_type`` as a ``MemRefType``, or a verify error naming ``what``."""
    if not isinstance(value_type, MemRefType):
        raise op.error(f"expected {what} to be a memref, got {value_type}")
    return value_type


class _AllocLikeOp(Operation):
    """Base of ``memref.alloc`` and ``memref.alloca``: same operands, syntax and rules."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = ("alignment", SEGMENTS)

    @classmethod
    def build(
        cls,
        memref_type: MemRefType,
        dynamic_sizes: Sequence[Value] = (),
        symbol_operands: Sequence[Value] = (),
        alignment: int | None = None,
    ) -> _AllocLikeOp:
        """A buffer of ``memref_type``; one ``dynamic_sizes`` value per ``?``."""
        attributes: dict[str, Attribute] = {
            SEGMENTS: segment_sizes(len(dynamic_sizes), len(symbol_operands))
        }
        if alignment is not None:
            attributes["alignment"] = IntegerAttr(alignment, i64)
        return cls([*dynamic_sizes, *symbol_operands], [memref_type], attributes)

    @property
    def dynamic_sizes(self) -> tuple[Value, ...]:
        """One ``index`` value per ``?`` in the type, in order."""
        return segment(self, 0)

    @property
    def symbol_operands(self) -> tuple[Value, ...]:
        """The values of the layout map's symbols."""
        return segment(self, 1)

    def asm_result_names(self) -> list[str]:
        """``%alloc`` / ``%alloca``, as MLIR names them."""
        return [self.name.removeprefix("memref.")]

    def verify_op(self) -> None:
        memref_type = check_memref(self, self.result.type, "the result")
        check_segments(self, 2)
        check_dynamic_sizes(self, memref_type, self.dynamic_sizes)
        layout = memref_type.layout
        symbols = layout.map.num_symbols if isinstance(layout, AffineMapAttr) else 0
        if len(self.symbol_operands) != symbols:
            raise self.error(
                f"expected {symbols} symbol operands (the layout's symbols), "
                f"got {len(self.symbol_operands)}"
            )
        for value in self.operands:
            if value.type != index:
                raise self.error(f"expected index operands, got {value.type}")

    def print_custom(self, printer: Printer) -> None:
        print_dims_and_symbols(printer, self.operands, len(self.dynamic_sizes))
        printer.print_attr_dict(self.attributes, elided=[SEGMENTS])
        printer.write(" : ")
        printer.print_type(self.result.type)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        operands, num_sizes = parse_dims_and_symbols(parser)
        attributes = parser.parse_optional_attr_dict()
        result_type = parser.parse_colon_type()
        attributes[SEGMENTS] = segment_sizes(num_sizes, len(operands) - num_sizes)
        return cls(operands, [result_type], attributes)


class AllocOp(_AllocLikeOp):
    """A heap buffer: ``%buf = memref.alloc(%n) : memref<?x8xf32>`` (free it with dealloc)."""

    name = "memref.alloc"
    effects = (allocates(result=0),)


class AllocaOp(_AllocLikeOp):
    """A stack buffer, freed when the function returns:
    ``%tmp = memref.alloca() : memref<16xf32>``."""

    name = "memref.alloca"
    effects = (allocates(result=0),)


class DeallocOp(Operation):
    """Free a heap buffer: ``memref.dealloc %buf : memref<?x8xf32>``."""

    name = "memref.dealloc"
    effects = (frees(0),)
    num_operands = 1
    num_results = 0
    num_regions = 0
    num_successors = 0
    has_custom_syntax = True

    @classmethod
    def build(cls, memref: Value) -> DeallocOp:
        """Free ``memref``."""
        return cls([memref])

    @property
    def memref(self) -> Value:
        """The buffer being freed."""
        return self.operands[0]

    def verify_op(self) -> None:
        check_memref(self, self.memref.type, "the operand")

    def print_custom(self, printer: Printer) -> None:
        print_typed_operand(printer, self, self.memref)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        value, attributes = parse_typed_operand(parser)
        return cls([value], [], attributes)


class GlobalOp(Operation):
    """A module-level buffer, a symbol:
    ``memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>``.

    ``initial_value`` is a ``DenseElementsAttr`` of the matching tensor type, a
    ``UnitAttr`` for ``= uninitialized``, or absent for an external declaration."""

    name = "memref.global"
    num_operands = 0
    num_results = 0
    num_regions = 0
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = (
        "alignment", "constant", "initial_value", "sym_name", "sym_visibility", "type",
    )  # fmt: skip

    @classmethod
    def build(
        cls,
        name: str,
        memref_type: MemRefType,
        initial_value: DenseElementsAttr | None = None,
        constant: bool = False,
        visibility: str | None = None,
    ) -> GlobalOp:
        """A global ``@name`` of ``memref_type`` holding ``initial_value``."""
        attributes: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "type": TypeAttr(memref_type),
        }
        if initial_value is not None:
            attributes["initial_value"] = initial_value
        if constant:
            attributes["constant"] = UnitAttr()
        if visibility is not None:
            attributes["sym_visibility"] = StringAttr(visibility)
        return cls([], [], attributes)

    @property
    def sym_name(self) -> str:
        """The global's name (without ``@``)."""
        return self.attributes["sym_name"].value

    @property
    def memref_type(self) -> MemRefType:
        """The type ``memref.get_global`` returns."""
        return self.attributes["type"].type

    @property
    def initial_value(self) -> Attribute | None:
        """The initial contents (``UnitAttr`` for uninitialized), or ``None``."""
        return self.attributes.get("initial_value")

    @property
    def is_constant(self) -> bool:
        """True when the buffer is read-only."""
        return "constant" in self.attributes

    def verify_op(self) -> None:
        if not isinstance(self.attributes.get("sym_name"), StringAttr):
            raise self.error("expected a 'sym_name' string attribute")
        type_attr = self.attributes.get("type")
        if not isinstance(type_attr, TypeAttr):
            raise self.error(f"expected a 'type' attribute, got {type_attr}")
        memref_type = check_memref(self, type_attr.type, "the type")
        if not memref_type.has_static_shape:
            raise self.error(f"expected a statically shaped memref type, got {memref_type}")
        value = self.initial_value
        if value is None or isinstance(value, UnitAttr):
            return
        tensor_type = RankedTensorType(memref_type.shape, memref_type.element_type)
        if not isinstance(value, DenseElementsAttr) or value.type != tensor_type:
            found = value.type if isinstance(value, DenseElementsAttr) else value
            raise self.error(f"expected an initial value of type {tensor_type}, got {found}")

    def print_custom(self, printer: Printer) -> None:
        if "sym_visibility" in self.attributes:
            printer.write(" ")
            printer.print_attribute(self.attributes["sym_visibility"])
        if self.is_constant:
            printer.write(" constant")
        printer.write(" ")
        printer.print_symbol_name(self.sym_name)
        printer.write(" : ")
        printer.print_type(self.memref_type)
        value = self.initial_value
        if isinstance(value, UnitAttr):
            printer.write(" = uninitialized")
        elif isinstance(value, DenseElementsAttr):
            printer.write(f" = dense<{value.format_body()}>")
        shown_by_syntax = ("constant", "initial_value", "sym_name", "sym_visibility", "type")
        printer.print_attr_dict(self.attributes, elided=shown_by_syntax)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        from tinycomp.ir.parser import parse_attribute

        attributes: dict[str, Attribute] = {}
        if parser.token.kind == "string":
            attributes["sym_visibility"] = parser.parse_attribute()
        if parser.parse_optional_keyword("constant"):
            attributes["constant"] = UnitAttr()
        attributes["sym_name"] = StringAttr(parser.parse_symbol_name())
        type_token = parser.token
        memref_type = parser.parse_colon_type()
        if not isinstance(memref_type, MemRefType):
            raise parser.error(f"expected a memref type, got {memref_type}", type_token)
        attributes["type"] = TypeAttr(memref_type)
        if parser.parse_optional_punct("="):
            if parser.parse_optional_keyword("uninitialized"):
                attributes["initial_value"] = UnitAttr()
            else:
                # The data is written without its type: it is the memref's, as a tensor.
                value_token = parser.parse_keyword("dense")
                if not parser.token.is_punct("<"):
                    raise parser.expected("'<'")
                body, end = parser.scan_balanced(parser.token)
                parser.reset_to(end)
                tensor_type = RankedTensorType(memref_type.shape, memref_type.element_type)
                try:
                    value = parse_attribute(f"dense<{body}> : {tensor_type}")
                except Exception as error:  # noqa: BLE001 (report any parse problem here)
                    raise parser.error(f"invalid initial value: {error}", value_token) from None
                attributes["initial_value"] = value
        attributes.update(parser.parse_optional_attr_dict())
        return cls([], [], attributes)


class GetGlobalOp(Operation):
    """A reference to a ``memref.global``: ``%t = memref.get_global @table : memref<4xf32>``."""

    name = "memref.get_global"
    num_operands = 0
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = ("name",)

    @classmethod
    def build(cls, global_op: GlobalOp) -> GetGlobalOp:
        """Refer to ``global_op``."""
        return cls([], [global_op.memref_type], {"name": SymbolRefAttr(global_op.sym_name)})

    @property
    def global_name(self) -> str:
        """The referenced global's name (without ``@``)."""
        return self.attributes["name"].root

    def verify_op(self) -> None:
        name = self.attributes.get("name")
        if not isinstance(name, SymbolRefAttr):
            raise self.error(f"expected a 'name' symbol reference, got {name}")
        check_memref(self, self.result.type, "the result")

    def verify_symbol_uses(self, symbols) -> None:
        target = symbols.lookup(self.global_name) if symbols is not None else None
        if not isinstance(target, GlobalOp):
            raise self.error(f"'@{self.global_name}' does not reference a valid global memref")
        if target.memref_type != self.result.type:
            raise self.error(
                f"expected the type of @{self.global_name} ({target.memref_type}), "
                f"got {self.result.type}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_attribute(self.attributes["name"])
        printer.write(" : ")
        printer.print_type(self.result.type)
        printer.print_attr_dict(self.attributes, elided=["name"])

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        name = SymbolRefAttr(parser.parse_symbol_name())
        result_type = parser.parse_colon_type()
        attributes = parser.parse_optional_attr_dict()
        attributes["name"] = name
        return cls([], [result_type], attributes)


__all__ = [
    "AllocOp",
    "AllocaOp",
    "DeallocOp",
    "GetGlobalOp",
    "GlobalOp",
    "check_memref",
]
