"""Parsing operations: a module, alias definitions, and each op in generic or custom form.

``Parser`` reads ``(%results =)? op (loc(...))?``: the generic form
``"name"(operands)[successors] <{props}> (regions) {attrs} : type`` of any op, or the
custom form of a registered op, handed to its class's ``parse_custom(parser)``. The
methods such a hook calls are listed in ``parser.py``.

>>> from tinycomp.ir.parser import Parser
>>> op = Parser('"test.op"() {n = 1 : i32} : () -> ()').parse_operation()
>>> op.name, str(op.attributes["n"])
('test.op', '1 : i32')
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tinycomp.ir.attributes import Attribute, OpaqueAttr
from tinycomp.ir.block import Block
from tinycomp.ir.builtin import ModuleOp
from tinycomp.ir.lexer import Token, decode_string
from tinycomp.ir.location import DEFAULT_FILE
from tinycomp.ir.operation import Operation
from tinycomp.ir.parse_structure import StructureParser
from tinycomp.ir.region import Region
from tinycomp.ir.registry import lookup_op_class

__all__ = ["Parser"]


class Parser(StructureParser):
    """The whole parser: a module, alias definitions and operations, generic or custom
    (see ``parser.py`` for the methods a ``parse_custom`` hook uses)."""

    def __init__(self, source: str, filename: str = DEFAULT_FILE) -> None:
        super().__init__(source, filename)
        self._default_dialects = ["builtin"]
        self._location_uses: list[tuple[Operation, str, Token]] = []

    def expect_end(self) -> None:
        """Fail unless all input was consumed."""
        if self.token.kind != "eof":
            raise self.expected("end of input")

    # -- the module ----------------------------------------------------------------------
    def parse_module(self) -> ModuleOp:
        """The whole input: alias definitions and top-level ops."""
        self.scopes.push()
        top = Block()
        while self.token.kind != "eof":
            if self.token.kind in ("hash_id", "exclamation_id"):
                self._parse_alias_definition()
            else:
                top.append(self.parse_operation())
        self.scopes.pop()
        for op, alias, token in self._location_uses:
            if alias not in self.loc_aliases:
                raise self.error(f"undefined location alias '#{alias}'", token)
            op.location = self.loc_aliases[alias]
        ops = top.ops
        if len(ops) == 1 and isinstance(ops[0], ModuleOp):
            return ops[0].detach()
        module = ModuleOp.build()
        for op in ops:
            module.body.append(op.detach())
        return module

    def _parse_alias_definition(self) -> None:
        token = self.advance()
        name = token.text[1:]
        self.parse_punct("=")
        if token.kind == "exclamation_id":
            if name in self.type_aliases:
                raise self.error(f"redefinition of type alias '{token.text}'", token)
            self.type_aliases[name] = self.parse_type()
        elif self.token.is_keyword("loc"):
            start = self.token.pos
            location = self.parse_optional_location()
            if isinstance(location, str):  # an alias of an alias
                location = self.loc_aliases.get(location)
            self.loc_aliases[name] = location
            text = self.lexer.source[start : self.token.pos].rstrip()
            self.attr_aliases[name] = OpaqueAttr(text)
        else:
            if name in self.attr_aliases:
                raise self.error(f"redefinition of attribute alias '{token.text}'", token)
            self.attr_aliases[name] = self.parse_attribute()

    # -- operations ----------------------------------------------------------------------
    def parse_operation(self) -> Operation:
        """``(%results =)? (generic-op | custom-op) (loc(...))?``."""
        groups = self._parse_result_names()
        name_token = self.token
        if name_token.kind == "string":
            op = self._parse_generic_operation()
        elif name_token.kind == "bare_id":
            op = self._parse_custom_operation()
        else:
            raise self.expected("an operation name")
        location_token = self.token
        location = self.parse_optional_location()
        if isinstance(location, str) and location:
            self._location_uses.append((op, location, location_token))
        op.location = self.location_of(name_token) if isinstance(location, str) else location
        self._bind_results(op, groups)
        return op

    def _parse_result_names(self) -> list[tuple[Token, int]]:
        """``%a, %b:2 =`` -> [(token of %a, 1), (token of %b, 2)]."""
        groups: list[tuple[Token, int]] = []
        if self.token.kind != "percent_id":
            return groups
        while True:
            token = self.parse_value_name()
            count = 1
            if self.parse_optional_punct(":"):
                count = self.parse_integer("a result count")
                if count < 1:
                    raise self.error("expected a positive result count", token)
            groups.append((token, count))
            if not self.parse_optional_punct(","):
                break
        self.parse_punct("=")
        return groups

    def _bind_results(self, op: Operation, groups: list[tuple[Token, int]]) -> None:
        """Define the names of ``%a, %b:2 =`` as the op's results."""
        if not groups:
            return
        named = sum(count for _, count in groups)
        if named != len(op.results):
            raise self.error(
                f"operation '{op.name}' defines {len(op.results)} results but was provided "
                f"{named} to bind",
                groups[0][0],
            )
        position = 0
        for token, count in groups:
            values = op.results[position : position + count]
            self.scopes.define(token, values)
            if not self._is_generated_name(token.text[1:], op):
                values[0].name_hint = token.text[1:]
            position += count

    @staticmethod
    def _is_generated_name(name: str, op: Operation) -> bool:
        """Result names a printer invents (``%3``, ``%c0``, ``%cst_1``) are not kept."""
        if name.isdigit():
            return True
        suggested = op.asm_result_names()
        base = suggested[0] if suggested else None
        return bool(base) and re.fullmatch(re.escape(base) + r"(_[0-9]+)?", name) is not None

    def _parse_generic_operation(self) -> Operation:
        """``"name"(operands)[successors] <{props}> (regions) {attrs} : type``."""
        name_token = self.advance()
        name = decode_string(name_token.text)
        if not name:
            raise self.error("expected a non-empty operation name", name_token)
        op_class = lookup_op_class(name)
        self.parse_punct("(")
        operands = self.parse_comma_separated(self.parse_operand, ")")
        self.parse_punct(")")
        successors: list[Block] = []
        if self.parse_optional_punct("["):
            successors = self.parse_comma_separated(self.parse_successor, "]")
            self.parse_punct("]")
        attributes: dict[str, Attribute] = {}
        if self.parse_optional_punct("<"):
            attributes.update(self.parse_attr_dict())
            self.parse_punct(">")
        regions: list[Region] = []
        if self.parse_optional_punct("("):
            self._default_dialects.append(op_class.default_dialect if op_class else "")
            regions = self.parse_comma_separated(self.parse_region, ")")
            self._default_dialects.pop()
            self.parse_punct(")")
        if self.token.is_punct("{"):
            dict_token = self.token
            for key, value in self.parse_attr_dict().items():
                if key in attributes:
                    raise self.error(f"attribute '{key}' is given twice", dict_token)
                attributes[key] = value
        type_token = self.token
        self.parse_punct(":")
        if not self.token.is_punct("("):
            raise self.expected("a function type like '(f32) -> f32'")
        function_type = self.parse_function_type()
        if len(function_type.inputs) != len(operands):
            raise self.error(
                f"expected {len(operands)} operand type{'' if len(operands) == 1 else 's'}, "
                f"got {len(function_type.inputs)}",
                type_token,
            )
        values = self.resolve_operands(operands, function_type.inputs)
        return self._build(
            name_token,
            lambda: Operation.create(
                name, values, function_type.results, attributes, regions, successors
            ),
        )

    def _parse_custom_operation(self) -> Operation:
        """``name ...`` where ``...`` is read by the op class's ``parse_custom``."""
        name_token = self.advance()
        name = name_token.text
        default = self._default_dialects[-1]
        full_name = name if "." in name or not default else f"{default}.{name}"
        op_class = lookup_op_class(full_name)
        if op_class is None or not op_class.has_custom_syntax:
            dialect = full_name.split(".")[0]
            raise self.error(
                f"custom op '{name}' is unknown (use the generic form \"{full_name}\"(...), "
                f"or import the module that registers the '{dialect}' dialect)",
                name_token,
            )
        self._default_dialects.append(op_class.default_dialect)
        try:
            return self._build(name_token, lambda: op_class.parse_custom(self))
        finally:
            self._default_dialects.pop()

    def _build(self, token: Token, make: Callable[[], Operation]) -> Operation:
        """Run an op constructor, reporting its complaints as a ``ParseError``."""
        try:
            return make()
        except (ValueError, TypeError) as exc:
            raise self.error(str(exc), token) from None
