"""The parser: MLIR text to IR objects. ``parse(text)`` returns a ``ModuleOp``.

It reads both forms the printer writes (see ``printer.py``): the generic form of any
op, and the custom form of registered ops, through each op class's ``parse_custom``
hook. Hooks use the methods below, the counterpart of MLIR's ``OpAsmParser``: read
operand *names* with ``parse_operand``, then, once the types are known (they come after
the operands in ``arith.addf %a, %b : f32``), turn them into values with
``resolve_operand``. The pieces a hook uses (each raises ``ParseError`` on a mismatch):

* values: ``parse_operand()``, ``parse_operand_list()``, ``resolve_operand(s)(names, types)``
* types: ``parse_type()``, ``parse_colon_type()``, ``parse_type_list()``,
  ``parse_function_type()``
* attributes: ``parse_attribute()``, ``parse_optional_attr_dict()``,
  ``parse_optional_attr_dict_with_keyword()``, ``parse_symbol_name()``
* words and punctuation: ``parse_keyword(k)``, ``parse_optional_keyword(k)``,
  ``parse_identifier()``, ``parse_punct(p)``, ``parse_optional_punct(p)``, ``token``
* structure: ``parse_region(arguments)``, ``parse_argument()``, ``parse_successor()``,
  ``parse_successor_and_operands()``
* errors: ``error(message)``, ``expected(what)``, both at the current token.

Names written in the text become ``name_hint``s, so ``%sum`` prints as ``%sum`` again;
names a printer invents (``%0``, ``%arg0``, ``%c0``) are not kept.

SSA names are scoped by region, and a name may be used before its definition (blocks
can come in any order); ``ssa_scopes.py`` keeps that bookkeeping. Names that never get
a definition, and uses whose type disagrees with the definition, are ``ParseError``s.

>>> module = parse('''
... func.func @double(%x: f32) -> f32 {
...   %sum = arith.addf %x, %x : f32
...   return %sum : f32
... }''')
>>> print(module)
module {
  func.func @double(%x: f32) -> f32 {
    %sum = arith.addf %x, %x : f32
    return %sum : f32
  }
}
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from tinycomp.ir.attributes import Attribute, OpaqueAttr
from tinycomp.ir.block import Block
from tinycomp.ir.builtin import ModuleOp
from tinycomp.ir.lexer import Token, decode_string
from tinycomp.ir.location import DEFAULT_FILE
from tinycomp.ir.operation import Operation
from tinycomp.ir.parse_attributes import AttributeParser
from tinycomp.ir.region import Region
from tinycomp.ir.registry import lookup_op_class
from tinycomp.ir.ssa_scopes import UnresolvedOperand, ValueScopes
from tinycomp.ir.types import FunctionType, Type
from tinycomp.ir.values import Value

_GENERATED_ARGUMENT_NAME = re.compile(r"[0-9]+|arg[0-9]+")


@dataclass(frozen=True)
class Argument:
    """A block argument declared in custom syntax: ``%x: f32 {attrs}``."""

    name: str
    """The value name, ``%x``."""
    type: Type
    """The declared type."""
    attributes: dict[str, Attribute]
    """Argument attributes (``{}`` when none)."""
    token: Token
    """Where the name was written."""


def parse(text: str, filename: str = DEFAULT_FILE, verify: bool = True) -> ModuleOp:
    """Parse a module (ops without an enclosing ``module`` are wrapped in one, as
    ``mlir-opt`` does) and, unless ``verify=False``, verify it."""
    with _garbage_collector_paused():
        module = Parser(text, filename).parse_module()
    if verify:
        module.verify()
    return module


@contextmanager
def _garbage_collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while parsing.

    Parsing creates millions of objects and no garbage, but the collector runs again and
    again as they pile up, each time walking all of them: on a 100k-op module that alone
    doubles the time to parse. Reference counting still frees everything as usual.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_type(text: str) -> Type:
    """Parse a type on its own: ``parse_type("tensor<4x?xf32>")``."""
    parser = Parser(text, DEFAULT_FILE)
    result = parser.parse_type()
    parser.expect_end()
    return result


def parse_attribute(text: str) -> Attribute:
    """Parse an attribute on its own: ``parse_attribute("dense<1.0> : tensor<2xf32>")``."""
    parser = Parser(text, DEFAULT_FILE)
    result = parser.parse_attribute()
    parser.expect_end()
    return result


class Parser(AttributeParser):
    """Adds operations, blocks, regions and SSA names to ``AttributeParser``."""

    def __init__(self, source: str, filename: str = DEFAULT_FILE) -> None:
        super().__init__(source, filename)
        self.scopes = ValueScopes(self.lexer)
        """The SSA names and block labels visible at the current point."""
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

    def parse_value_name(self) -> Token:
        """A ``%name`` being defined (no ``#N``)."""
        token = self.token
        if token.kind != "percent_id" or "#" in token.text:
            raise self.expected("a value name like '%x'")
        return self.advance()

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

    # -- operands and SSA names ------------------------------------------------------------
    def parse_operand(self) -> UnresolvedOperand:
        """``%x`` or ``%x#1``: a value to read, resolved later with its type."""
        token = self.token
        if token.kind != "percent_id":
            raise self.expected("an SSA value like '%x'")
        self.advance()
        name, _, number = token.text.partition("#")
        return UnresolvedOperand(name, int(number) if number else 0, token)

    def parse_operand_list(self) -> list[UnresolvedOperand]:
        """``%a, %b`` (possibly empty: stops at the first token that is not a value)."""
        if self.token.kind != "percent_id":
            return []
        operands = [self.parse_operand()]
        while self.parse_optional_punct(","):
            operands.append(self.parse_operand())
        return operands

    def resolve_operands(
        self, operands: Sequence[UnresolvedOperand], types: Sequence[Type]
    ) -> list[Value]:
        """``resolve_operand`` for each pair; the counts must match."""
        if len(operands) != len(types):
            token = operands[0].token if operands else self.token
            raise self.error(f"expected {len(operands)} types, got {len(types)}", token)
        return [self.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]

    def resolve_operand(self, operand: UnresolvedOperand, type: Type) -> Value:
        """The value named by ``operand``, which must have type ``type``."""
        return self.scopes.resolve(operand, type)

    # -- regions and blocks ------------------------------------------------------------------
    def parse_region(self, arguments: Sequence[Argument] | None = None) -> Region:
        """``{ ops ^bb1(...): ops ... }``. Custom ops that print the entry block's
        arguments themselves (``func.func``) pass them as ``arguments``."""
        with self.nested():
            self.parse_punct("{")
            self.scopes.push()
            region = Region()
            if arguments is not None and not arguments and self.token.kind == "caret_id":
                arguments = None  # no arguments: the entry block may carry a label
            if arguments is not None:
                entry = region.append_block(Block())
                for argument in arguments:
                    self._define_block_argument(entry, argument.token, argument.type)
                if self.token.kind == "caret_id":
                    raise self.error("invalid block name in a region with named arguments")
                self._parse_block_body(entry)
            elif not self.token.is_punct("}") and self.token.kind != "caret_id":
                self._parse_block_body(region.append_block(Block()))
            while self.token.kind == "caret_id":
                self._parse_block(region)
            self.parse_punct("}")
            self.scopes.pop()
            return region

    def _parse_block(self, region: Region) -> None:
        """``^label(%a: f32, ...):`` followed by the block's ops."""
        block = self.scopes.define_block(self.advance())
        region.append_block(block)
        if self.parse_optional_punct("("):

            def parse_block_argument() -> None:
                argument = self.parse_argument(allow_attributes=False)
                self._define_block_argument(block, argument.token, argument.type)

            self.parse_comma_separated(parse_block_argument, ")")
            self.parse_punct(")")
        self.parse_punct(":")
        self._parse_block_body(block)

    def _define_block_argument(self, block: Block, token: Token, type: Type) -> None:
        argument = block.add_argument(type)
        self.scopes.define(token, (argument,))
        if not _GENERATED_ARGUMENT_NAME.fullmatch(token.text[1:]):  # %0, %arg0: printer-made
            argument.name_hint = token.text[1:]

    def _parse_block_body(self, block: Block) -> None:
        while not (self.token.is_punct("}") or self.token.kind in ("caret_id", "eof")):
            block.append(self.parse_operation())

    def parse_argument(self, allow_attributes: bool = True) -> Argument:
        """``%x: f32``, then ``{attrs}`` if allowed, then an optional ``loc(...)``."""
        token = self.parse_value_name()
        self.parse_punct(":")
        arg_type = self.parse_type()
        attributes = self.parse_optional_attr_dict() if allow_attributes else {}
        self.parse_optional_location()
        return Argument(token.text, arg_type, attributes, token)

    def parse_successor(self) -> Block:
        """``^bb1``: a block of the current region, possibly defined further down."""
        token = self.token
        if token.kind != "caret_id":
            raise self.expected("a block name like '^bb1'")
        self.advance()
        return self.scopes.block(token)

    def parse_successor_and_operands(self) -> tuple[Block, list[Value]]:
        """``^bb1`` or ``^bb1(%a, %b : f32, i32)``."""
        block = self.parse_successor()
        if not self.parse_optional_punct("("):
            return block, []
        operands = self.parse_operand_list()
        self.parse_punct(":")
        types = self.parse_type_list()
        self.parse_punct(")")
        return block, self.resolve_operands(operands, types)

    def parse_function_type_or_error(self) -> FunctionType:
        """A function type, with a clear message when something else is there."""
        if not self.token.is_punct("("):
            raise self.expected("a function type like '(f32) -> f32'")
        return self.parse_function_type()
