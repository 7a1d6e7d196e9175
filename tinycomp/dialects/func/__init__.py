"""The func dialect: functions, calls and returns.

::

    func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
      %0 = arith.mulf %a, %x : f32
      %1 = arith.addf %0, %y : f32
      return %1 : f32
    }
    func.func private @ext(f32) -> f32             // a declaration: no body
    %r = func.call @axpy(%a, %x, %y) : (f32, f32, f32) -> f32

Inside a ``func.func`` the ``func.`` prefix is dropped (``return``, ``call``), as MLIR does.

>>> from tinycomp.ir import Builder, FunctionType, f32
>>> f = FuncOp.build("neg", FunctionType([f32], [f32]))
>>> b = Builder.at_end(f.entry_block)
>>> _ = b.insert(ReturnOp.build(f.arguments))
>>> print(f)
func.func @neg(%arg0: f32) -> f32 {
  return %arg0 : f32
}
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.syntax import parse_values_with_types, print_values_with_types
from tinycomp.ir.attributes import (
    ArrayAttr,
    Attribute,
    DictionaryAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
)
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.registry import Dialect, register_dialect
from tinycomp.ir.types import FunctionType, Type, format_result_types
from tinycomp.ir.values import BlockArgument, Value

_FUNC_INHERENT = ("arg_attrs", "function_type", "res_attrs", "sym_name", "sym_visibility")


class FuncOp(Operation):
    """A function: a symbol with a type and a body region (empty for a declaration):
    ``func.func @neg(%x: f32) -> f32 { ... }``, ``func.func private @ext(f32) -> f32``."""

    name = "func.func"
    num_operands = 0
    num_results = 0
    num_regions = 1
    num_successors = 0
    is_isolated_from_above = True
    has_custom_syntax = True
    default_dialect = "func"
    inherent_attributes = _FUNC_INHERENT

    @classmethod
    def build(
        cls,
        name: str,
        function_type: FunctionType,
        visibility: str | None = None,
        declaration: bool = False,
    ) -> FuncOp:
        """A function ``@name``; unless ``declaration``, with an entry block whose
        arguments match the inputs (add the ops, ending with a ``ReturnOp``)."""
        attributes: dict[str, Attribute] = {
            "sym_name": StringAttr(name),
            "function_type": TypeAttr(function_type),
        }
        if visibility is not None:
            attributes["sym_visibility"] = StringAttr(visibility)
        body = Region() if declaration else Region([Block(function_type.inputs)])
        return cls([], [], attributes, [body])

    @property
    def sym_name(self) -> str:
        """The function name (without ``@``)."""
        return self.attributes["sym_name"].value

    @property
    def function_type(self) -> FunctionType:
        """The function's type."""
        return self.attributes["function_type"].type

    @property
    def visibility(self) -> str:
        """``"public"`` (the default), ``"private"`` or ``"nested"``."""
        attr = self.attributes.get("sym_visibility")
        return attr.value if isinstance(attr, StringAttr) else "public"

    @property
    def body(self) -> Region:
        """The body region."""
        return self.regions[0]

    @property
    def is_declaration(self) -> bool:
        """True when the function has no body."""
        return not self.body.blocks

    @property
    def entry_block(self) -> Block:
        """The first block of the body."""
        return self.body.blocks[0]

    @property
    def arguments(self) -> tuple[BlockArgument, ...]:
        """The function's parameters (the entry block's arguments)."""
        return self.entry_block.arguments

    def verify_op(self) -> None:
        if not isinstance(self.attributes.get("sym_name"), StringAttr):
            raise self.error("expected a 'sym_name' string attribute")
        type_attr = self.attributes.get("function_type")
        if not (isinstance(type_attr, TypeAttr) and isinstance(type_attr.type, FunctionType)):
            raise self.error(
                f"expected a 'function_type' attribute with a function type, got {type_attr}"
            )
        if self.is_declaration:
            if self.visibility == "public":
                raise self.error("symbol declaration cannot have public visibility")
            return
        inputs = self.function_type.inputs
        arg_types = tuple(a.type for a in self.entry_block.arguments)
        if arg_types != inputs:
            raise self.error(
                f"expected entry block arguments ({', '.join(map(str, inputs))}) to match the "
                f"function type, got ({', '.join(map(str, arg_types))})"
            )

    # -- custom syntax -------------------------------------------------------------------
    def print_custom(self, printer: Printer) -> None:
        if "sym_visibility" in self.attributes:
            printer.write(f" {self.visibility}")
        printer.write(" ")
        printer.print_symbol_name(self.sym_name)
        function_type = self.function_type
        arg_attrs = _dicts(self.attributes.get("arg_attrs"), len(function_type.inputs))
        printer.write("(")
        for index, arg_type in enumerate(function_type.inputs):
            if index:
                printer.write(", ")
            if self.is_declaration:
                printer.print_type(arg_type)
                printer.print_attr_dict(arg_attrs[index])
            else:
                printer.print_argument(self.arguments[index], arg_attrs[index])
        printer.write(")")
        results = function_type.results
        res_attrs = _dicts(self.attributes.get("res_attrs"), len(results))
        if results and any(res_attrs):
            parts = [
                f"{t}{_attr_suffix(printer, a)}" for t, a in zip(results, res_attrs, strict=True)
            ]
            printer.write(" -> (" + ", ".join(parts) + ")")
        elif results:
            printer.write(" -> " + format_result_types(results))
        printer.print_attr_dict_with_keyword(self.attributes, elided=_FUNC_INHERENT)
        if not self.is_declaration:
            printer.write(" ")
            printer.print_region(self.body, print_entry_args=False)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes: dict[str, Attribute] = {}
        for visibility in ("private", "public", "nested"):
            if parser.parse_optional_keyword(visibility):
                attributes["sym_visibility"] = StringAttr(visibility)
                break
        attributes["sym_name"] = StringAttr(parser.parse_symbol_name())
        arguments, input_types, arg_attrs = [], [], []
        parser.parse_punct("(")
        if parser.token.kind == "percent_id":
            arguments = parser.parse_comma_separated(parser.parse_argument, ")")
            input_types = [a.type for a in arguments]
            arg_attrs = [a.attributes for a in arguments]
        else:

            def parse_input() -> None:
                input_types.append(parser.parse_type())
                arg_attrs.append(parser.parse_optional_attr_dict())

            parser.parse_comma_separated(parse_input, ")")
        parser.parse_punct(")")
        result_types, res_attrs = (
            _parse_results(parser) if parser.parse_optional_punct("->") else ([], [])
        )
        dict_token = parser.token
        extra = parser.parse_optional_attr_dict_with_keyword()
        for key in extra:
            if key in _FUNC_INHERENT:
                raise parser.error(
                    f"'{key}' is set by the syntax, not the attribute dictionary", dict_token
                )
        attributes.update(extra)
        attributes["function_type"] = TypeAttr(FunctionType(input_types, result_types))
        if any(arg_attrs):
            attributes["arg_attrs"] = ArrayAttr([DictionaryAttr(d) for d in arg_attrs])
        if any(res_attrs):
            attributes["res_attrs"] = ArrayAttr([DictionaryAttr(d) for d in res_attrs])
        body = Region()
        if parser.token.is_punct("{"):
            if input_types and not arguments:
                raise parser.error(
                    "expected named arguments ('%x: f32') for a function with a body"
                )
            body = parser.parse_region(arguments)
        return cls([], [], attributes, [body])


def _dicts(attr: Attribute | None, count: int) -> list[dict[str, Attribute]]:
    """``arg_attrs``/``res_attrs`` as one plain dict per argument (empty when absent)."""
    if isinstance(attr, ArrayAttr) and len(attr) == count:
        return [a.to_dict() if isinstance(a, DictionaryAttr) else {} for a in attr]
    return [{} for _ in range(count)]


def _attr_suffix(printer: Printer, attributes: dict[str, Attribute]) -> str:
    from tinycomp.ir.attributes import format_attr_dict

    return " " + format_attr_dict(attributes) if attributes else ""


def _parse_results(parser: Parser) -> tuple[list[Type], list[dict[str, Attribute]]]:
    """``f32`` or ``(f32 {attrs}, i32)`` after ``->``."""
    if not parser.parse_optional_punct("("):
        return [parser.parse_type()], [{}]
    types: list[Type] = []
    attrs: list[dict[str, Attribute]] = []

    def parse_result() -> None:
        types.append(parser.parse_type())
        attrs.append(parser.parse_optional_attr_dict())

    parser.parse_comma_separated(parse_result, ")")
    parser.parse_punct(")")
    return types, attrs


class ReturnOp(Operation):
    """Return from a function: ``return %a, %b : f32, i32`` (or just ``return``)."""

    name = "func.return"
    is_pure = True
    num_regions = 0
    num_successors = 0
    num_results = 0
    is_terminator = True
    has_custom_syntax = True

    @classmethod
    def build(cls, values: Sequence[Value] = ()) -> ReturnOp:
        """Return ``values``."""
        return cls(values)

    def verify_op(self) -> None:
        func = self.parent_op()
        if not isinstance(func, FuncOp):
            where = f"'{func.name}'" if func is not None else "no parent op"
            raise self.error(f"expected to be inside 'func.func', got {where}")
        type_attr = func.attributes.get("function_type")
        if not (isinstance(type_attr, TypeAttr) and isinstance(type_attr.type, FunctionType)):
            return  # the function itself is invalid and reports it
        results = type_attr.type.results
        if len(self.operands) != len(results):
            raise self.error(
                f"has {len(self.operands)} operands, but enclosing function "
                f"(@{func.sym_name}) returns {len(results)}"
            )
        for index, (value, expected) in enumerate(zip(self.operands, results, strict=True)):
            if value.type != expected:
                raise self.error(
                    f"type of return operand {index} ({value.type}) doesn't match function "
                    f"result type ({expected}) in function @{func.sym_name}"
                )

    def print_custom(self, printer: Printer) -> None:
        printer.print_attr_dict(self.attributes)
        print_values_with_types(printer, self.operands)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        attributes = parser.parse_optional_attr_dict()
        return cls(parse_values_with_types(parser), [], attributes)


class CallOp(Operation):
    """Call a function by name: ``%r = call @f(%a) : (f32) -> f32``."""

    name = "func.call"
    num_regions = 0
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = ("arg_attrs", "callee", "no_inline", "res_attrs")

    @classmethod
    def build(
        cls, callee: str | FuncOp, args: Sequence[Value], result_types: Sequence[Type] | None = None
    ):
        """Call ``callee`` (a name, or the ``FuncOp`` itself, which also gives the result
        types) with ``args``."""
        if isinstance(callee, FuncOp):
            result_types = callee.function_type.results if result_types is None else result_types
            callee = callee.sym_name
        if result_types is None:
            raise ValueError("expected result_types when the callee is given by name")
        return cls(args, result_types, {"callee": SymbolRefAttr(callee)})

    @property
    def callee(self) -> str:
        """The called function's name (without ``@``)."""
        return self.attributes["callee"].root

    def verify_op(self) -> None:
        callee = self.attributes.get("callee")
        if not (isinstance(callee, SymbolRefAttr) and not callee.nested):
            raise self.error(f"expected a 'callee' attribute like @f, got {callee}")

    def verify_symbol_uses(self, symbols) -> None:
        func = symbols.lookup(self.callee) if symbols is not None else None
        if not isinstance(func, FuncOp):
            raise self.error(f"'@{self.callee}' does not reference a valid function")
        expected = func.function_type
        if len(expected.inputs) != len(self.operands):
            raise self.error(
                f"expected {len(expected.inputs)} operands for @{self.callee}, "
                f"got {len(self.operands)}"
            )
        for index, (value, want) in enumerate(zip(self.operands, expected.inputs, strict=True)):
            if value.type != want:
                raise self.error(f"expected operand #{index} of type {want}, got {value.type}")
        if tuple(self.result_types) != tuple(expected.results):
            raise self.error(
                f"expected results ({', '.join(map(str, expected.results))}) of @{self.callee}, "
                f"got ({', '.join(map(str, self.result_types))})"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_attribute(self.attributes["callee"])
        printer.write("(")
        printer.print_operands(self.operands)
        printer.write(")")
        printer.print_attr_dict(self.attributes, elided=["callee"])
        printer.write(" : ")
        printer.print_function_type(self.operand_types, self.result_types)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        callee = parser.parse_symbol_name()
        parser.parse_punct("(")
        operands = parser.parse_operand_list()
        parser.parse_punct(")")
        attributes = parser.parse_optional_attr_dict()
        attributes["callee"] = SymbolRefAttr(callee)
        parser.parse_punct(":")
        function_type = parser.parse_function_type_or_error()
        args = parser.resolve_operands(operands, function_type.inputs)
        return cls(args, function_type.results, attributes)


FUNC = Dialect("func", (FuncOp, ReturnOp, CallOp))
"""The func dialect (registered on import)."""
register_dialect(FUNC)
