"""The builtin dialect: ``module`` and ``unrealized_conversion_cast``.

A ``module`` is the top-level container: one block of ops (functions, mostly), no
terminator, isolated from above, and a symbol table (functions find each other by
name in it). Builtin ops print without the ``builtin.`` prefix at the top level and
inside a module.

>>> from tinycomp.ir import f32
>>> print(ModuleOp.build(name="kernels"))
module @kernels {
}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tinycomp.ir.attributes import StringAttr
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.registry import Dialect, register_dialect
from tinycomp.ir.types import Type
from tinycomp.ir.values import Value

if TYPE_CHECKING:
    from tinycomp.ir.parser import Parser
    from tinycomp.ir.printer import Printer


class ModuleOp(Operation):
    """The top-level container: ``module { func.func @f() { ... } }``."""

    name = "builtin.module"
    num_operands = 0
    num_results = 0
    num_regions = 1
    num_successors = 0
    is_isolated_from_above = True
    no_terminator = True
    has_graph_regions = True
    is_symbol_table = True
    has_custom_syntax = True
    default_dialect = "builtin"
    inherent_attributes = ("sym_name", "sym_visibility")

    @classmethod
    def build(cls, ops: Sequence[Operation] = (), name: str | None = None) -> ModuleOp:
        """A module holding the detached ``ops``, optionally named ``@name``."""
        attributes = {"sym_name": StringAttr(name)} if name is not None else {}
        module = cls([], [], attributes, [Region([Block()])])
        for op in ops:
            module.body.append(op)
        return module

    @property
    def body(self) -> Block:
        """The module's single block."""
        return self.regions[0].blocks[0]

    @property
    def sym_name(self) -> str | None:
        """The module's name, if it has one."""
        attr = self.attributes.get("sym_name")
        return attr.value if isinstance(attr, StringAttr) else None

    def verify_op(self) -> None:
        region = self.regions[0]
        if len(region.blocks) != 1:
            raise self.error(f"expected a body of exactly one block, got {len(region.blocks)}")
        if region.blocks[0].arguments:
            raise self.error("expected a body block without arguments")

    def print_custom(self, printer: Printer) -> None:
        if self.sym_name is not None:
            printer.write(" ")
            printer.print_symbol_name(self.sym_name)
        printer.print_attr_dict_with_keyword(self.attributes, elided=["sym_name"])
        printer.write(" ")
        printer.print_region(self.regions[0], print_entry_args=False)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes = {}
        if parser.token.kind == "at_id":
            attributes["sym_name"] = StringAttr(parser.parse_symbol_name())
        attributes.update(parser.parse_optional_attr_dict_with_keyword())
        region = parser.parse_region()
        if not region.blocks:
            region.append_block(Block())
        return cls([], [], attributes, [region])


class UnrealizedConversionCastOp(Operation):
    """A placeholder cast between types while a conversion is half done:
    ``%0 = builtin.unrealized_conversion_cast %a : i32 to f32``. Lowering passes insert
    it and later passes remove it; it must not survive to code generation."""

    name = "builtin.unrealized_conversion_cast"
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, inputs: Sequence[Value], result_types: Sequence[Type]):
        """Cast ``inputs`` to values of ``result_types``."""
        return cls(inputs, result_types)

    def verify_op(self) -> None:
        if not self.results:
            raise self.error("expected at least one result")

    def print_custom(self, printer: Printer) -> None:
        if self.operands:
            printer.write(" ")
            printer.print_operands(self.operands)
            printer.write(" : ")
            printer.print_types(self.operand_types)
        printer.write(" to ")
        printer.print_types(self.result_types)
        printer.print_attr_dict(self.attributes)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        operands = parser.parse_operand_list()
        input_types: list[Type] = []
        if operands:
            input_types = [parser.parse_colon_type()]
            while parser.parse_optional_punct(","):
                input_types.append(parser.parse_type())
        parser.parse_keyword("to")
        result_types = parser.parse_type_list()
        attributes = parser.parse_optional_attr_dict()
        return cls(parser.resolve_operands(operands, input_types), result_types, attributes)


BUILTIN = Dialect("builtin", (ModuleOp, UnrealizedConversionCastOp))
"""The builtin dialect (registered on import)."""
register_dialect(BUILTIN)
